// Simulate a model with Simbody 3.7's RungeKuttaMersonIntegrator + TimeStepper and time it.
// Written for bench_integration.py, which builds this file against Debian's libsimbody-dev.
//
// Usage: simbody_integration_bench MODEL_FILE
//
// MODEL_FILE lines:
//   body PARENT JOINT px py pz mass cx cy cz Ixx Iyy Izz Ixy Ixz Iyz
//       (JOINT: pin | ball | free; X_PF = translation (px, py, pz), X_BM = identity;
//        mass center and inertia about the body origin, in B)
//   q v0 v1 ...          (Simbody's q, quaternions for ball and free)
//   u v0 v1 ...
//   run ACCURACY TFINAL REPEATS [REPORT_INTERVAL]
//       (REPORT_INTERVAL > 0: a PeriodicEventReporter that does nothing fires that often,
//        so the integrator interpolates a State for each report)
// Gravity: 9.81 along -y.
// Output (stdout):
//   steps TAKEN ATTEMPTED REALIZATIONS ERROR_TEST_FAILURES
//   wall SECONDS          (best of REPEATS runs, each from initialize() to stepTo(TFINAL))
//   cpu SECONDS           (process CPU time of the same best-of runs; robust to machine load)
//   q v0 v1 ...           (final state)
//   u v0 v1 ...

#include "Simbody.h"

#include <chrono>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace SimTK;

namespace {
class NullReporter : public PeriodicEventReporter {
public:
    explicit NullReporter(Real interval) : PeriodicEventReporter(interval) {}
    void handleEvent(const State&) const override {}
};
}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: simbody_integration_bench MODEL_FILE\n";
        return 2;
    }
    std::ifstream in(argv[1]);
    MultibodySystem system;
    SimbodyMatterSubsystem matter(system);
    GeneralForceSubsystem forces(system);
    Force::Gravity(forces, matter, -YAxis, 9.81);
    std::vector<MobilizedBody> mobods;
    mobods.push_back(matter.Ground());
    std::vector<double> qv, uv;
    double accuracy = 1e-6, tFinal = 10.0;
    int repeats = 3;
    double reportInterval = 0;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string kind;
        ls >> kind;
        if (kind == "body") {
            int parent;
            std::string joint;
            double px, py, pz, m, cx, cy, cz, ixx, iyy, izz, ixy, ixz, iyz;
            ls >> parent >> joint >> px >> py >> pz >> m >> cx >> cy >> cz >> ixx >> iyy >> izz >>
                ixy >> ixz >> iyz;
            Body::Rigid body(MassProperties(m, Vec3(cx, cy, cz),
                                            Inertia(ixx, iyy, izz, ixy, ixz, iyz)));
            Transform X_PF(Vec3(px, py, pz));
            MobilizedBody& P = mobods[parent];
            if (joint == "pin")
                mobods.push_back(MobilizedBody::Pin(P, X_PF, body, Transform()));
            else if (joint == "ball")
                mobods.push_back(MobilizedBody::Ball(P, X_PF, body, Transform()));
            else if (joint == "free")
                mobods.push_back(MobilizedBody::Free(P, X_PF, body, Transform()));
            else {
                std::cerr << "unknown joint " << joint << "\n";
                return 2;
            }
        } else if (kind == "q" || kind == "u") {
            double v;
            std::vector<double>& dst = kind == "q" ? qv : uv;
            while (ls >> v) dst.push_back(v);
        } else if (kind == "run") {
            ls >> accuracy >> tFinal >> repeats;
            if (!(ls >> reportInterval)) reportInterval = 0;
        }
    }
    if (reportInterval > 0) system.addEventReporter(new NullReporter(reportInterval));
    State state = system.realizeTopology();
    const int nq = state.getNQ(), nu = state.getNU();
    if ((int)qv.size() != nq || (int)uv.size() != nu) {
        std::cerr << "state sizes: file has " << qv.size() << " q, " << uv.size()
                  << " u; model has " << nq << ", " << nu << "\n";
        return 2;
    }
    for (int i = 0; i < nq; ++i) state.updQ()[i] = qv[i];
    for (int i = 0; i < nu; ++i) state.updU()[i] = uv[i];

    double best = 1e300, bestCpu = 1e300;
    State final;
    int taken = 0, attempted = 0, realizations = 0, errFailures = 0;
    for (int rep = 0; rep < repeats; ++rep) {
        RungeKuttaMersonIntegrator integ(system);
        integ.setAccuracy(accuracy);
        TimeStepper ts(system, integ);
        auto t0 = std::chrono::steady_clock::now();
        std::clock_t c0 = std::clock();
        ts.initialize(state);
        ts.stepTo(tFinal);
        double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s < best) best = s;
        if (cpu < bestCpu) bestCpu = cpu;
        final = ts.getState();
        taken = integ.getNumStepsTaken();
        attempted = integ.getNumStepsAttempted();
        realizations = integ.getNumRealizations();
        errFailures = integ.getNumErrorTestFailures();
    }
    std::printf("steps %d %d %d %d\n", taken, attempted, realizations, errFailures);
    std::printf("wall %.9g\n", best);
    std::printf("cpu %.9g\n", bestCpu);
    std::printf("t %.17g\n", final.getTime());
    std::printf("q");
    for (int i = 0; i < nq; ++i) std::printf(" %.17g", final.getQ()[i]);
    std::printf("\nu");
    for (int i = 0; i < nu; ++i) std::printf(" %.17g", final.getU()[i]);
    std::printf("\n");
    return 0;
}
