// Time Simbody 3.7 on a model described in a text file (written by bench_dynamics.py).
//
// Usage: simbody_bench MODEL_FILE
//
// MODEL_FILE lines:
//   body PARENT JOINT px py pz mass cx cy cz Ixx Iyy Izz Ixy Ixz Iyz
//       (JOINT: pin | ball | free; X_PF = translation (px, py, pz), X_BM = identity;
//        inertia about the body origin, in B)
//   q v0 v1 ...     (Simbody's q, quaternions for ball and free)
//   u v0 v1 ...
// Output (stdout): "udot v0 v1 ...", then "time OP MICROSECONDS" per operation.
// Timing: CPU time of batches of calls of at least ~20 ms, best of 5 batches, us per call.

#include "Simbody.h"

#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace SimTK;

// CPU time of this process, in seconds (less disturbed by other processes than wall time).
static double cpuSeconds() {
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double timeIt(const std::function<void()>& f) {
    int n = 1;
    for (;;) {  // calibrate
        double t0 = cpuSeconds();
        for (int i = 0; i < n; ++i) f();
        double s = cpuSeconds() - t0;
        if (s > 0.02 || n >= (1 << 24)) break;
        n *= 2;
    }
    double best = 1e300;
    for (int rep = 0; rep < 5; ++rep) {
        double t0 = cpuSeconds();
        for (int i = 0; i < n; ++i) f();
        double s = cpuSeconds() - t0;
        if (s / n < best) best = s / n;
    }
    return best * 1e6;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: simbody_bench MODEL_FILE\n";
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
        }
    }
    State state = system.realizeTopology();
    const int nq = state.getNQ(), nu = state.getNU(), nb = matter.getNumBodies();
    if ((int)qv.size() != nq || (int)uv.size() != nu) {
        std::cerr << "state sizes: file has " << qv.size() << " q, " << uv.size()
                  << " u; model has " << nq << ", " << nu << "\n";
        return 2;
    }
    Vector q(nq), u(nu);
    for (int i = 0; i < nq; ++i) q[i] = qv[i];
    for (int i = 0; i < nu; ++i) u[i] = uv[i];
    state.updQ() = q;
    state.updU() = u;
    system.realize(state, Stage::Acceleration);
    std::printf("udot");
    for (int i = 0; i < nu; ++i) std::printf(" %.17g", state.getUDot()[i]);
    std::printf("\n");

    Vector udot = state.getUDot();
    Vector f0(nu, 0.0), residual(nu), v(nu), out(nu);
    for (int i = 0; i < nu; ++i) v[i] = 1.0 + 0.01 * i;
    Vector_<SpatialVec> F0(nb, SpatialVec(Vec3(0), Vec3(0)));
    Matrix M(nu, nu);
    Matrix J(6 * nb, nu);

    double t;
    t = timeIt([&] {
        state.updU() = u;
        system.realize(state, Stage::Acceleration);
    });
    std::printf("time fd_u %.6g\n", t);
    t = timeIt([&] {
        state.updQ() = q;
        system.realize(state, Stage::Acceleration);
    });
    std::printf("time fd_q %.6g\n", t);
    t = timeIt([&] { matter.calcM(state, M); });
    std::printf("time calcM %.6g\n", t);
    t = timeIt([&] {
        matter.calcResidualForceIgnoringConstraints(state, f0, F0, udot, residual);
    });
    std::printf("time inverse_dynamics %.6g\n", t);
    t = timeIt([&] { matter.multiplyByMInv(state, v, out); });
    std::printf("time multiplyByMInv %.6g\n", t);
    t = timeIt([&] { matter.calcSystemJacobian(state, J); });
    std::printf("time system_jacobian %.6g\n", t);
    return 0;
}
