// Simbody 3.7's cost per simulated second, window by window: a model run with
// RungeKuttaMersonIntegrator and a TimeStepper that calls stepTo at every reporting interval
// (as the studio's headless comparison and bench_span.py's own run do), with the CPU time,
// steps, attempts and realizations of each window of simulated time. Written for
// bench_span.py (chain50: a chain of 50 Ball mobilizers), built against a Release build
// (build_simbody_release.sh).
//
// Usage: simbody_span_bench MODEL_FILE
//
// MODEL_FILE: bodies, q and u as simbody_bench_model.h reads them, and the line
//   run ACCURACY TFINAL REPORT_INTERVAL WINDOW REPEATS
//       (stepTo(k * REPORT_INTERVAL) for k = 1, 2, ... up to TFINAL; a window ends at each
//        multiple of WINDOW; the whole run is repeated REPEATS times and each window keeps
//        its least CPU time, its counts being the same in every run)
// Output (stdout):
//   window T0 T1 CPU_SECONDS WALL_SECONDS STEPS ATTEMPTS REALIZATIONS   (one line per window)
//   total T0 T1 CPU_SECONDS WALL_SECONDS STEPS ATTEMPTS REALIZATIONS    (the sum of the windows)
//   t TIME
//   q v0 v1 ...    (final state)
//   u v0 v1 ...

#include "Simbody.h"
#include "simbody_bench_model.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace SimTK;

namespace {
struct Window {
    double t0 = 0, t1 = 0, cpu = 1e300, wall = 1e300;
    long steps = 0, attempts = 0, realizations = 0;
};
}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: simbody_span_bench MODEL_FILE\n";
        return 2;
    }
    MultibodySystem system;
    SimbodyMatterSubsystem matter(system);
    GeneralForceSubsystem forces(system);
    BenchModel model;
    if (!readBenchModel(argv[1], matter, forces, model)) return 2;
    double accuracy = 1e-3, tFinal = 16.0, report = 1.0 / 60.0, window = 1.0;
    int repeats = 1;
    for (const std::string& line : model.otherLines) {
        std::istringstream ls(line);
        std::string kind;
        ls >> kind;
        if (kind == "run") ls >> accuracy >> tFinal >> report >> window >> repeats;
    }
    State state = system.realizeTopology();
    if (!benchStateSizesMatch(state, model)) return 2;
    const int nq = state.getNQ(), nu = state.getNU();
    for (int i = 0; i < nq; ++i) state.updQ()[i] = model.q[i];
    for (int i = 0; i < nu; ++i) state.updU()[i] = model.u[i];

    const int nReports = int(std::lround(tFinal / report));
    const int perWindow = std::max(1, int(std::lround(window / report)));
    std::vector<Window> windows((nReports + perWindow - 1) / perWindow);
    State final;
    for (int rep = 0; rep < repeats; ++rep) {
        RungeKuttaMersonIntegrator integ(system);
        integ.setAccuracy(accuracy);
        TimeStepper ts(system, integ);
        ts.initialize(state);
        for (std::size_t w = 0; w < windows.size(); ++w) {
            const int k0 = int(w) * perWindow, k1 = std::min(nReports, k0 + perWindow);
            const long s0 = integ.getNumStepsTaken(), a0 = integ.getNumStepsAttempted(),
                       r0 = integ.getNumRealizations();
            const double tStart = ts.getTime();
            auto wall0 = std::chrono::steady_clock::now();
            std::clock_t c0 = std::clock();
            for (int k = k0 + 1; k <= k1; ++k) ts.stepTo(k * report);
            double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
            double wall =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
            Window& win = windows[w];
            win.t0 = tStart;
            win.t1 = ts.getTime();
            win.cpu = std::min(win.cpu, cpu);
            win.wall = std::min(win.wall, wall);
            win.steps = integ.getNumStepsTaken() - s0;
            win.attempts = integ.getNumStepsAttempted() - a0;
            win.realizations = integ.getNumRealizations() - r0;
        }
        final = ts.getState();
    }
    Window total;
    total.cpu = total.wall = 0;
    for (const Window& w : windows) {
        std::printf("window %.9g %.9g %.9g %.9g %ld %ld %ld\n", w.t0, w.t1, w.cpu, w.wall, w.steps,
                    w.attempts, w.realizations);
        total.cpu += w.cpu;
        total.wall += w.wall;
        total.steps += w.steps;
        total.attempts += w.attempts;
        total.realizations += w.realizations;
    }
    std::printf("total %.9g %.9g %.9g %.9g %ld %ld %ld\n", windows.empty() ? 0.0 : windows[0].t0,
                final.getTime(), total.cpu, total.wall, total.steps, total.attempts,
                total.realizations);
    std::printf("t %.17g\n", final.getTime());
    std::printf("q");
    for (int i = 0; i < nq; ++i) std::printf(" %.17g", final.getQ()[i]);
    std::printf("\nu");
    for (int i = 0; i < nu; ++i) std::printf(" %.17g", final.getU()[i]);
    std::printf("\n");
    return 0;
}
