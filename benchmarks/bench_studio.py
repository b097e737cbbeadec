"""Studio benchmark (not a test): the GUI stays responsive while the 50-link chain runs.

Measures, in a real window (run under ``xvfb-run -a`` when there is no display):

- start to first frame: wall time from launching ``python -m app --screenshot`` on the default
  example (a fresh process, warm numba cache) until the window has drawn the model, as printed
  by a child process that reports the time of its first rendered frame with a model;
- while the 50-link chain runs (by default "as fast as possible"; ``--pacing real`` for real
  time): GUI event-loop latency as the jitter of a 10 ms QTimer (largest and 99th-percentile
  lateness), frames per second drawn by the 3-D view, and the real-time factor (simulated
  seconds per wall-clock second) the studio achieves.

Run: ``python benchmarks/bench_studio.py [--seconds 8] [--example chain50] [--pacing fast]``.
Targets: timer jitter < 50 ms, view >= 30 fps (real time) / >= 10x real time (as fast as
possible), start to first frame < 3 s.
Software OpenGL shares the CPU with everything else, so the load average is printed too, and
the CPU time of the GUI thread per frame and of the worker per simulated second (which other
processes do not inflate), the share of wall-clock time the worker waited for frames being
drawn, and, for comparison, the integrator steps and CPU time per simulated second of a
headless TimeStepper run (same integrator and accuracy, stepTo every reporting interval)
over the same simulated span (a chain's steps per simulated second grow as it whips, so
spans must match).
"""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import re
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = r"""
import sys, time
t_start = time.perf_counter()
sys.path.insert(0, {root!r})
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app.main_window import MainWindow
from app.document.examples import default_example_path
w = MainWindow(model_path=default_example_path(), restore_layout=False)
w.show()
def check():
    panel = w.simulation
    if panel.snapshot is not None and w.viewport.frames_rendered > 0:
        print("FIRST_FRAME", time.perf_counter() - t_start, flush=True)
        w.close()
from PySide6.QtCore import QTimer
timer = QTimer(); timer.timeout.connect(check); timer.start(5)
app.exec()
"""


def start_to_first_frame() -> float:
    """Seconds from spawning the studio process until it reports its first model frame."""
    t0 = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD.format(root=str(ROOT))],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for line in child.stdout:
            if line.startswith("FIRST_FRAME"):
                return time.perf_counter() - t0
        raise RuntimeError(f"the child did not draw a frame:\n{child.stderr.read()}")
    finally:
        child.wait(60)


def thread_cpu(labels: dict[int, str]) -> dict[str, float]:
    """CPU seconds used so far by each thread of this process, summed by thread label
    (``labels``: native thread id -> label) or else by the kernel's thread name with its
    number stripped (Linux: /proc/self/task; llvmpipe's rasterizer threads are "llvmpipe-N")."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[str, float] = {}
    for task in pathlib.Path("/proc/self/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        name = labels.get(int(task.name)) or re.sub(r"[-:]?\d+$", "", name) or name
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def run_event_loop(ms: int) -> None:
    """Run the Qt event loop for ``ms`` milliseconds (idle between events, as the studio is)."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(max(ms, 0), loop.quit)
    loop.exec()


PACINGS = {"real": "real time", "fast": "as fast as possible", "sampled": "sampled"}


def run_chain(
    example: str, seconds: float, paused: bool = False, pacing: str = "fast", profile=None
) -> dict:
    import numpy as np
    from PySide6.QtCore import QElapsedTimer, Qt, QTimer
    from PySide6.QtWidgets import QApplication

    from app.document.examples import example_path
    from app.main_window import MainWindow

    _qapp = QApplication.instance() or QApplication([])  # noqa: F841  (kept alive)
    window = MainWindow(model_path=example_path(example), restore_layout=False)
    window.resize(1280, 800)
    window.show()
    panel = window.simulation
    panel.pacing_box.setCurrentIndex(panel.pacing_box.findText(PACINGS[pacing]))
    end = time.perf_counter() + 120  # a cold numba cache compiles the kernels first
    while panel.snapshot is None and time.perf_counter() < end:
        run_event_loop(50)
    if not paused:
        window.sim_actions["play"].trigger()
        while panel.snapshot.time <= 0.0 and time.perf_counter() < end:
            run_event_loop(50)  # the integrator's first steps (and any compiling) are done

    stamps: list[float] = []
    clock = QElapsedTimer()
    clock.start()
    probe = QTimer()
    probe.setTimerType(Qt.TimerType.PreciseTimer)
    probe.timeout.connect(lambda: stamps.append(clock.nsecsElapsed() * 1e-9))
    # Let the run settle for a second, then measure.
    t_settle = time.perf_counter() + 1.0
    run_event_loop(int(1000 * (t_settle - time.perf_counter())))
    frames0 = window.viewport.frames_rendered
    worker = panel.session._thread if panel.session is not None else None
    worker_clock = time.pthread_getcpuclockid(worker.ident) if worker is not None else None
    gui_cpu0 = time.thread_time()
    worker_cpu0 = time.clock_gettime(worker_clock) if worker_clock is not None else 0.0
    sim0 = panel.snapshot.time
    labels = {os.getpid(): "GUI thread"}
    if worker is not None:
        labels[worker.native_id] = "worker"
    threads0 = thread_cpu(labels)
    integrator = panel.session._stepper.getIntegrator() if panel.session._stepper else None
    steps0 = integrator.getNumStepsTaken() if integrator is not None else 0
    step_time0 = integrator.getTime() if integrator is not None else sim0
    waited0 = getattr(panel.session, "gui_wait_seconds", math.nan)
    wall0 = time.perf_counter()
    probe.start(10)
    t_end = wall0 + seconds
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile(time.thread_time)  # the GUI thread's CPU time only
        profiler.enable()
    run_event_loop(int(1000 * (t_end - time.perf_counter())))
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(profile)
    probe.stop()
    wall = time.perf_counter() - wall0
    waited = getattr(panel.session, "gui_wait_seconds", math.nan) - waited0
    gui_cpu = time.thread_time() - gui_cpu0
    worker_cpu = time.clock_gettime(worker_clock) - worker_cpu0 if worker_clock is not None else 0.0
    frames = window.viewport.frames_rendered - frames0
    sim = panel.snapshot.time - sim0
    threads1 = thread_cpu(labels)
    by_thread = {k: v - threads0.get(k, 0.0) for k, v in threads1.items()}
    stepper = panel.session._stepper
    same = stepper is not None and stepper.getIntegrator() is integrator
    steps = stepper.getIntegrator().getNumStepsTaken() - steps0 if same else 0
    step_span = (step_time0, stepper.getIntegrator().getTime()) if same else None
    settings = panel.session.settings
    core_share = getattr(panel.session, "_core_share", None)
    error = panel.snapshot.error
    window.close()
    late = np.diff(np.array(stamps)) - 0.010
    return {
        "timer_jitter_max_ms": 1000 * float(late.max()) if len(late) else float("nan"),
        "timer_jitter_p99_ms": 1000 * float(np.percentile(late, 99)) if len(late) else float("nan"),
        "fps": frames / wall,
        "real_time_rate": sim / wall,
        "gui_cpu_ms_per_frame": 1000 * gui_cpu / frames if frames else float("nan"),
        "gui_cpu_share": gui_cpu / wall,
        "worker_cpu_per_sim_second": worker_cpu / sim if sim > 0 else float("nan"),
        "error": error,
        "cpu_by_thread": by_thread,
        "sim_seconds": sim,
        "wall_seconds": wall,
        "steps": steps,
        "step_span": step_span,
        "worker_wait_share": waited / wall,
        "settings": settings,
        "core_share": math.nan if core_share is None else core_share,
    }


def headless_span(example: str, span: tuple[float, float], settings) -> dict:
    """Steps and CPU seconds of a headless TimeStepper run of ``example`` with the studio's
    integrator and accuracy, reporting every reporting interval, over the simulated ``span``
    (t0, t1) the studio ran: the studio's figures compared on the same stretch of the
    motion (a chain's steps per simulated second grow as it whips)."""
    from app.body_puller import ensure_pull_force
    from app.document import build, model_io
    from app.document.examples import example_path
    from app.simulation.integrators import make_integrator
    from engine import TimeStepper

    built = build(model_io.load(example_path(example)))
    ensure_pull_force(built)  # laid out as in the studio
    integ = make_integrator(settings.integrator, built.system, settings.accuracy)
    stepper = TimeStepper(built.system, integ)
    stepper.initialize(built.state)
    report = settings.report_interval
    t0, t1 = span
    k = 1
    while k * report < t0:
        stepper.stepTo(k * report)
        k += 1
    stepper.stepTo(t0)
    n0, cpu0 = integ.getNumStepsTaken(), time.thread_time()
    while k * report < t1:
        stepper.stepTo(k * report)
        k += 1
    stepper.stepTo(t1)
    cpu = time.thread_time() - cpu0
    return {"steps": integ.getNumStepsTaken() - n0, "cpu": cpu, "sim": t1 - t0}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--example", default="chain50")
    parser.add_argument(
        "--paused", action="store_true", help="baseline: the model open but not running"
    )
    parser.add_argument("--pacing", choices=tuple(PACINGS), default="fast")
    parser.add_argument(
        "--skip-startup", action="store_true", help="do not measure start to first frame"
    )
    parser.add_argument(
        "--switch-interval", type=float, help="sys.setswitchinterval for the run (GIL hand-off)"
    )
    parser.add_argument(
        "--profile",
        metavar="FILE",
        help="cProfile the GUI thread (its CPU time) over the measured seconds into FILE",
    )
    args = parser.parse_args()
    if args.switch_interval:
        sys.setswitchinterval(args.switch_interval)
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    if not args.skip_startup:
        first = start_to_first_frame()
        print(f"start to first frame (default example, warm JIT): {first:.2f} s   (target < 3 s)")
    r = run_chain(args.example, args.seconds, args.paused, args.pacing, args.profile)
    state = "open, paused," if args.paused else f"running ({PACINGS[args.pacing]})"
    print(f"{args.example} {state} for {args.seconds:.0f} s:")
    print(
        f"  GUI timer jitter: max {r['timer_jitter_max_ms']:.1f} ms, "
        f"p99 {r['timer_jitter_p99_ms']:.1f} ms   (target < 50 ms)"
    )
    print(f"  view: {r['fps']:.1f} fps   (target >= 30)")
    print(f"  real-time factor: {r['real_time_rate']:.2f}x")
    print(
        f"  CPU (independent of other load): GUI thread {r['gui_cpu_ms_per_frame']:.1f} ms per "
        f"frame ({100 * r['gui_cpu_share']:.0f}% of a core); worker "
        f"{r['worker_cpu_per_sim_second']:.2f} CPU s per simulated s"
    )
    sim = r["sim_seconds"]
    if sim > 0:
        busy = sorted(r["cpu_by_thread"].items(), key=lambda kv: -kv[1])
        total = sum(v for _, v in busy)
        parts = ", ".join(f"{name} {v / sim:.3f}" for name, v in busy if v >= 0.005 * total)
        print(
            f"  process CPU per simulated s: {total / sim:.3f} s ({parts}); "
            f"{total / r['wall_seconds']:.2f} cores busy; "
            f"{r['steps'] / sim:.0f} integrator steps per simulated s"
        )
    print(
        f"  the worker waited for frames being drawn {100 * r['worker_wait_share']:.0f}% of "
        f"the wall-clock time (its stepping calls got {r['core_share']:.2f} of a core)"
    )
    span = r["step_span"]
    if span is not None and span[1] > span[0]:
        h = headless_span(args.example, span, r["settings"])
        sim = h["sim"]
        print(
            f"  headless over the same simulated span (t = {span[0]:.2f}..{span[1]:.2f}, "
            f"stepTo every reporting interval): {h['steps'] / sim:.0f} integrator steps per "
            f"simulated s (studio {r['steps'] / sim:.0f}), {h['cpu'] / sim:.3f} CPU s per "
            f"simulated s (studio worker {r['worker_cpu_per_sim_second']:.3f}: "
            f"{r['worker_cpu_per_sim_second'] / (h['cpu'] / sim):.2f}x)"
        )
    if r["error"]:
        print(f"  the run stopped: {r['error']}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
