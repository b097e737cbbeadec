// Time Simbody 3.7 on a model described in a text file (written by bench_dynamics.py).
//
// Usage: simbody_bench MODEL_FILE
//
// MODEL_FILE: bodies, q and u as simbody_bench_model.h reads them.
// Output (stdout): "udot v0 v1 ...", then "time OP MICROSECONDS" per operation.
// Timing: CPU time of batches of calls of at least ~20 ms, best of 5 batches, us per call.

#include "Simbody.h"
#include "simbody_bench_model.h"

#include <cstdio>
#include <ctime>
#include <functional>
#include <iostream>

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
    MultibodySystem system;
    SimbodyMatterSubsystem matter(system);
    GeneralForceSubsystem forces(system);
    BenchModel model;
    if (!readBenchModel(argv[1], matter, forces, model)) return 2;
    State state = system.realizeTopology();
    if (!benchStateSizesMatch(state, model)) return 2;
    const int nq = state.getNQ(), nu = state.getNU(), nb = matter.getNumBodies();
    Vector q(nq), u(nu);
    for (int i = 0; i < nq; ++i) q[i] = model.q[i];
    for (int i = 0; i < nu; ++i) u[i] = model.u[i];
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
    t = timeIt([&] { matter.multiplyByM(state, v, out); });
    std::printf("time multiplyByM %.6g\n", t);
    Vector_<SpatialVec> Ju(nb);
    t = timeIt([&] { matter.multiplyBySystemJacobian(state, v, Ju); });
    std::printf("time jacobian_product %.6g\n", t);
    Vector_<SpatialVec> F1(nb);
    for (int b = 0; b < nb; ++b) F1[b] = SpatialVec(Vec3(0.1 * b, 1, 0), Vec3(1, -0.2 * b, 0.5));
    t = timeIt([&] { matter.multiplyBySystemJacobianTranspose(state, F1, out); });
    std::printf("time jacobian_transpose_product %.6g\n", t);
    return 0;
}
