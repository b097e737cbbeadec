// Simulate a model with Simbody 3.7's RungeKuttaMersonIntegrator + TimeStepper and time it.
// Written for bench_integration.py, which builds this file against Debian's libsimbody-dev.
//
// Usage: simbody_integration_bench MODEL_FILE
//
// MODEL_FILE: bodies, q and u as simbody_bench_model.h reads them, and the line
//   run ACCURACY TFINAL REPEATS [REPORT_INTERVAL]
//       (REPORT_INTERVAL > 0: a PeriodicEventReporter that does nothing fires that often,
//        so the integrator interpolates a State for each report)
// Output (stdout):
//   steps TAKEN ATTEMPTED REALIZATIONS ERROR_TEST_FAILURES
//   wall SECONDS          (best of REPEATS runs, each from initialize() to stepTo(TFINAL))
//   cpu SECONDS           (process CPU time of the same best-of runs; robust to machine load)
//   q v0 v1 ...           (final state)
//   u v0 v1 ...

#include "Simbody.h"
#include "simbody_bench_model.h"

#include <chrono>
#include <ctime>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

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
    MultibodySystem system;
    SimbodyMatterSubsystem matter(system);
    GeneralForceSubsystem forces(system);
    BenchModel model;
    if (!readBenchModel(argv[1], matter, forces, model)) return 2;
    double accuracy = 1e-6, tFinal = 10.0;
    int repeats = 3;
    double reportInterval = 0;
    for (const std::string& line : model.otherLines) {
        std::istringstream ls(line);
        std::string kind;
        ls >> kind;
        if (kind == "run") {
            ls >> accuracy >> tFinal >> repeats;
            if (!(ls >> reportInterval)) reportInterval = 0;
        }
    }
    if (reportInterval > 0) system.addEventReporter(new NullReporter(reportInterval));
    State state = system.realizeTopology();
    if (!benchStateSizesMatch(state, model)) return 2;
    const int nq = state.getNQ(), nu = state.getNU();
    for (int i = 0; i < nq; ++i) state.updQ()[i] = model.q[i];
    for (int i = 0; i < nu; ++i) state.updU()[i] = model.u[i];

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
