"""Scrub benchmark (not a test): how long the studio takes to show a recorded State of the
50-link chain when the user drags the timeline.

In a real window (run under ``xvfb-run -a -s "-screen 0 1280x1024x24"`` when there is no
display) the chain runs for ``--record`` wall-clock seconds and is paused; then the left
button is pressed on the timeline and the pointer moved ``--scrubs`` times (QTest mouse
events at pixel columns spread over the bar in a shuffled order). After each move the event
loop runs until the 3-D view has drawn the State the pointer asks for. The latency of a scrub
is the wall-clock time from sending the move to the end of that frame's render (target
< 50 ms), split into:

- worker: from the move to the worker's snapshot of that State (restore, realize, poses,
  stage info, cache report);
- wait: from the snapshot until the GUI's timer takes it;
- show: ``SimulationPanel.show_snapshot`` (view update, the inspectors, the Joints panel,
  the plots' cursor, the timeline), with its largest parts;
- render: the VTK render of the frame;
- gc: pauses of Python's cyclic garbage collector inside the scrub.

``--cache`` raises the cache inspector's tab (else the stage inspector is the one shown, the
default layout). The load average is printed: the machine may be shared.

Run: ``python benchmarks/bench_scrub.py [--scrubs 200] [--record 6] [--cache]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import pathlib
import random
import statistics
import sys
import time
from collections import defaultdict

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


class Probe:
    """Wall-clock durations of named calls inside the current scrub."""

    def __init__(self) -> None:
        self.parts: dict[str, float] = defaultdict(float)
        self.published: dict[float, float] = {}  # snapshot time -> when it was published
        self.gc_start = 0.0

    def wrap(self, owner, name: str, label: str) -> None:
        original = getattr(owner, name)
        parts = self.parts

        def timed(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                parts[label] += time.perf_counter() - t0

        setattr(owner, name, timed)

    def on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self.gc_start = time.perf_counter()
        else:
            self.parts[f"gc gen{info.get('generation')}"] += time.perf_counter() - self.gc_start


def run(
    scrubs: int,
    record_seconds: float,
    cache: bool,
    seed: int,
    freeze: bool,
    screenshot: str,
    profile: bool = False,
) -> None:
    from PySide6.QtCore import QEventLoop, QPoint, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from app.document.examples import example_path
    from app.main_window import MainWindow
    from app.simulation.session import SimulationSession
    from app.timeline_ui import TimelinePanel

    app = QApplication.instance() or QApplication([])
    if freeze:
        from app.gc_freeze import freeze_imported_modules

        freeze_imported_modules()  # as ``mbstudio`` does at start-up
    probe = Probe()
    # Patched on the classes before the window connects to the bound methods.
    probe.wrap(TimelinePanel, "_snapshot_shown", "show: timeline")
    original_publish = SimulationSession._publish

    def publish(self, *args, **kwargs):
        original_publish(self, *args, **kwargs)
        snap = self._latest
        if snap is not None and snap.time not in probe.published:
            probe.published[snap.time] = time.perf_counter()

    SimulationSession._publish = publish

    window = MainWindow(model_path=example_path("chain50"), restore_layout=False)
    window.resize(1280, 900)
    window.show()
    panel = window.simulation
    deadline = time.perf_counter() + 180
    while panel.snapshot is None and time.perf_counter() < deadline:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    window.sim_actions["play"].trigger()
    end = time.perf_counter() + record_seconds
    while time.perf_counter() < end:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    window.sim_actions["pause"].trigger()
    while panel.snapshot.running:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
    if cache:
        window.docks["Cache inspector"].raise_()
    for _ in range(20):
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
    session = panel.session
    timeline = window.timeline.timeline
    cache_visible = panel.cache_inspector.isVisible()
    start, stop, count = session.history_span()

    probe.wrap(panel, "show_snapshot", "show")
    shown_at = [0.0]  # when show_snapshot began to show the State asked for
    wanted_time = [None]
    timed_show = panel.show_snapshot

    def show_snapshot(snap) -> None:
        if snap.time == wanted_time[0] and not shown_at[0]:
            shown_at[0] = time.perf_counter()
        timed_show(snap)

    panel.show_snapshot = show_snapshot
    probe.wrap(window.viewport, "update_frame", "show: view update")
    probe.wrap(panel.stage_inspector, "update_snapshot", "show: stage inspector")
    probe.wrap(panel.cache_inspector, "update_snapshot", "show: cache inspector")
    probe.wrap(panel.sliders, "update_snapshot", "show: joints panel")
    probe.wrap(panel.plots, "set_cursor", "show: plots cursor")
    probe.wrap(panel.plots, "refresh", "show: plots refresh")
    probe.wrap(window.viewport.scene, "render", "render")
    gc.callbacks.append(probe.on_gc)

    y = timeline.height() // 2
    left, right = round(timeline.x_of(start)), round(timeline.x_of(stop))
    columns = list(range(left, right + 1))
    rng = random.Random(seed)
    rng.shuffle(columns)
    QTest.mousePress(timeline, Qt.MouseButton.LeftButton, pos=QPoint(left, y))
    rendered = [0, 0.0]

    def frame_end(*_args) -> None:
        rendered[0] += 1
        rendered[1] = time.perf_counter()

    window.viewport.render_window.AddObserver("EndEvent", frame_end)
    results = []
    frames = []  # frames rendered per scrub
    cpu = []  # CPU seconds per scrub: the process (all threads), the GUI thread, the worker
    worker_clock = time.pthread_getcpuclockid(session._thread.ident)
    previous = panel.snapshot.time
    k = 0
    load0 = os.getloadavg()[0]
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    for x in columns:
        if len(results) == scrubs:
            break
        wanted = session.recorded_time(timeline.time_at(x))
        if wanted == previous:
            continue
        previous = wanted
        probe.parts.clear()
        probe.published.clear()
        frames0 = rendered[0]
        wanted_time[0] = wanted
        cpu0 = (time.process_time(), time.thread_time(), time.clock_gettime(worker_clock))
        t0 = time.perf_counter()
        QTest.mouseMove(timeline, QPoint(x, y))
        while True:
            app.processEvents(QEventLoop.ProcessEventsFlag.WaitForMoreEvents, 5)
            snap = panel.snapshot
            if shown_at[0] and rendered[0] > frames0 and rendered[1] >= shown_at[0]:
                break
            if time.perf_counter() - t0 > 10:
                raise RuntimeError(
                    f"t = {wanted} was not shown within 10 s: {snap.time} {snap.status} "
                    f"{snap.error} {shown_at} {rendered} {frames0}"
                )
        total = rendered[1] - t0
        cpu1 = (time.process_time(), time.thread_time(), time.clock_gettime(worker_clock))
        cpu.append([b - a for a, b in zip(cpu0, cpu1, strict=True)])
        published = probe.published.get(wanted, t0)
        parts = dict(probe.parts)
        parts["worker"] = published - t0
        parts["wait"] = max(0.0, shown_at[0] - published)
        results.append((total, parts))
        frames.append(rendered[0] - frames0)
        shown_at[0] = 0.0
        k += 1
    QTest.mouseRelease(timeline, Qt.MouseButton.LeftButton, pos=QPoint(x, y))
    if profiler is not None:
        import pstats

        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
    gc.callbacks.remove(probe.on_gc)
    tracked = len(gc.get_objects())
    g0 = time.perf_counter()
    gc.collect()
    full = time.perf_counter() - g0
    load1 = os.getloadavg()[0]
    if screenshot:
        from app.main_window import grab_window

        window.viewport.render_window.Render()
        grab_window(window).save(screenshot)
    window.close()

    totals = sorted(t for t, _ in results)
    median = statistics.median(totals)
    p95 = totals[int(0.95 * (len(totals) - 1))]
    print(f"  (cache inspector visible: {cache_visible})")
    print(
        f"chain50, {count} recorded States over {stop - start:.2f} s, {len(results)} scrubs "
        f"(mouse moves on the timeline), {'cache' if cache else 'stage'} inspector shown, "
        f"load average {load0:.1f} -> {load1:.1f}"
    )
    print(
        f"  move to rendered frame: median {1e3 * median:.1f} ms, 95th percentile "
        f"{1e3 * p95:.1f} ms, max {1e3 * totals[-1]:.1f} ms  (target < 50 ms); "
        f"{sum(t >= 0.05 for t in totals)} of {len(totals)} at 50 ms or more"
    )
    by_kind = list(zip(*cpu, strict=True))
    print(
        "  CPU time per scrub (ms, median / max; what load does not inflate): process "
        + ", ".join(
            f"{name} {1e3 * statistics.median(v):.1f} / {1e3 * max(v):.1f}"
            for name, v in zip(("all threads", "GUI thread", "worker"), by_kind, strict=True)
        )
    )
    labels = sorted({label for _, parts in results for label in parts})
    print("  part                       median ms    max ms   (in the 5 slowest scrubs, ms)")
    slowest = sorted(results, key=lambda r: r[0])[-5:]
    for label in labels:
        values = [parts.get(label, 0.0) for _, parts in results]
        slow = " ".join(f"{1e3 * parts.get(label, 0.0):5.1f}" for _, parts in slowest)
        print(
            f"  {label:26s} {1e3 * statistics.median(values):8.2f} "
            f"{1e3 * max(values):9.2f}   ({slow})"
        )
    print(
        f"  objects the garbage collector tracks: {tracked}, a full collection "
        f"{1e3 * full:.0f} ms (frozen at start-up: {gc.get_freeze_count()})"
    )
    print(f"  frames rendered per scrub: median {statistics.median(frames)}, max {max(frames)}")
    print("  slowest scrubs (ms): " + " ".join(f"{1e3 * t:.1f}" for t, _ in slowest))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scrubs", type=int, default=200)
    parser.add_argument("--record", type=float, default=6.0, help="wall-clock seconds of run")
    parser.add_argument("--cache", action="store_true", help="show the cache inspector")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--no-freeze", action="store_true", help="skip the start-up gc.freeze (app.gc_freeze)"
    )
    parser.add_argument("--screenshot", default="", help="save the window at the end (PNG)")
    parser.add_argument("--profile", action="store_true", help="cProfile the GUI thread")
    args = parser.parse_args()
    run(
        args.scrubs,
        args.record,
        args.cache,
        args.seed,
        not args.no_freeze,
        args.screenshot,
        args.profile,
    )


if __name__ == "__main__":
    main()
