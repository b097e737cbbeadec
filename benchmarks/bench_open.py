"""Open benchmark (not a test): how long the GUI thread is held while a large model opens.

In a real window (run under ``xvfb-run -a`` when there is no display) the script opens an
N-link Ball chain (the chain50 example's link repeated, as ``bench_edits.py`` makes it) with
File > Open's path (``ModelEditor.open_path``), after the chain50 example as the studio
opens it when it starts (``--cold``: as the first model; ``--replace``: in place of the same
chain opened before, a large model replacing a large one), and keeps the window running ``--after``
seconds after its 3-D view is drawn in full (the heap is settled in that time). A 5 ms timer
on the GUI thread records every gap between its ticks: the event loop's pauses, whatever held
it (the GUI thread's own work, or another thread holding the interpreter).

A sampler thread looks at the GUI thread's stack every 2 ms; for each pause longer than
``--report`` seconds the script prints its length, when it ended (seconds from the open) and
the functions of this project the GUI thread was seen in during it (``interpreter held``:
the sampler itself could not run: a C call of another thread, or a full collection, held
the interpreter; the other threads' last frames are printed then).

It also prints: wall-clock seconds until the model is shown and until its view is drawn, the
number of drawing steps and the longest one, the largest pause overall, and the number of
pauses over 0.1 s.

Run: ``python benchmarks/bench_open.py --bodies 20000 [--after 10] [--report 0.08]``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import tempfile
import threading
import time

#: The checkout to measure (BENCH_ROOT: another one, e.g. a worktree of the base commit).
ROOT = pathlib.Path(os.environ.get("BENCH_ROOT") or pathlib.Path(__file__).resolve().parents[1])
sys.path.insert(0, str(ROOT))


def chain_file(directory: pathlib.Path, n: int) -> pathlib.Path:
    """An N-link Ball chain file (the chain50 example's link repeated)."""
    data = json.loads((ROOT / "resources" / "examples" / "chain50.mbs.json").read_text())
    model = data["model"]
    link = model["bodies"][1]
    model["bodies"] = [
        dict(link, name=f"b{i}", parent="Ground" if i == 0 else f"b{i - 1}") for i in range(n)
    ]
    model["name"] = f"{n}-link chain"
    path = directory / f"chain{n}.mbs.json"
    path.write_text(json.dumps(data))
    return path


def _frames_of(frame, depth: int = 40) -> list[str]:
    """The project's functions on a stack, innermost first (file:function)."""
    out = []
    while frame is not None and len(out) < depth:
        path = frame.f_code.co_filename
        if str(ROOT) in path and "benchmarks" not in path:
            out.append(f"{pathlib.Path(path).name}:{frame.f_code.co_name}")
        frame = frame.f_back
    return out


class Sampler(threading.Thread):
    """Samples the GUI thread's stack (and the others') every ``period`` seconds."""

    def __init__(self, gui_ident: int, period: float = 0.002) -> None:
        super().__init__(daemon=True, name="bench-sampler")
        self.gui = gui_ident
        self.period = period
        self.samples: list[tuple[float, list[str], dict]] = []
        self.running = True

    def run(self) -> None:
        while self.running:
            now = time.perf_counter()
            frames = sys._current_frames()  # noqa: SLF001
            gui = _frames_of(frames.get(self.gui))
            others = {
                t.name: _frames_of(frames.get(t.ident))[:3]
                for t in threading.enumerate()
                if t.ident in frames and t.ident not in (self.gui, self.ident)
            }
            self.samples.append((now, gui, others))
            time.sleep(self.period)


def explain(sampler: Sampler, start: float, end: float) -> str:
    """What the GUI thread was seen doing between ``start`` and ``end``."""
    inside = [s for s in sampler.samples if start <= s[0] <= end]
    before = [s for s in sampler.samples if s[0] < start][-1:]
    counts: dict[str, int] = {}
    for _t, gui, _o in inside:
        key = " < ".join(gui[:3]) if gui else "(event loop)"
        counts[key] = counts.get(key, 0) + 1
    times = [start] + [s[0] for s in inside] + [end]
    starved = max(b - a for a, b in zip(times[:-1], times[1:], strict=True))
    parts = [f"{n}x {k}" for k, n in sorted(counts.items(), key=lambda kv: -kv[1])[:3]]
    if starved > 0.05:
        last = (inside[:1] or before)[-1:] if (inside or before) else []
        others = last[0][2] if last else {}
        busy = {k: v for k, v in others.items() if v}
        parts.append(f"interpreter held {starved:.2f} s (others before: {busy})")
    return "; ".join(parts)


def run_open(
    path: pathlib.Path, n: int, after: float, report: float, warm: bool, replace: bool = False
) -> dict:
    from PySide6.QtCore import QEventLoop, QSettings, QTimer
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from app.main_window import MainWindow

    settings = QSettings(f"{tempfile.mkdtemp()}/bench.ini", QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, restore_layout=False)
    window.show()
    editor = window.model_editor
    editor.interactive = False
    panel = window.simulation
    viewport = window.viewport

    def wait(cond, timeout=600.0) -> None:
        end = time.perf_counter() + timeout
        while not cond():
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
            if time.perf_counter() > end:
                raise TimeoutError("the studio did not get there in time")
            time.sleep(0.001)

    if warm:  # as the studio starts: the default example first (plots and kernels loaded)
        assert editor.open_path(ROOT / "resources" / "examples" / "chain50.mbs.json", modal=False)
        wait(lambda: panel.snapshot is not None and panel._plots is not None)  # noqa: SLF001
        end = time.perf_counter() + 1.0
        while time.perf_counter() < end:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
    if replace:  # the chain first, so the one measured replaces a model as large
        assert editor.open_path(path, modal=False)
        wait(lambda: panel.snapshot is not None and len(panel.snapshot.model.body_names) > n)
        wait(lambda: not viewport.drawing_in_steps())
        end = time.perf_counter() + 10.0  # (its heap settled)
        while time.perf_counter() < end:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
        path = path.with_name("again-" + path.name)
        path.write_bytes(path.with_name(path.name[len("again-") :]).read_bytes())
    steps: list[float] = []
    real_step = viewport._draw_step  # noqa: SLF001

    def timed_step() -> None:
        t = time.perf_counter()
        if os.environ.get("BENCH_PROFILE_STEP") == str(len(steps)):
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.runcall(real_step)
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
        else:
            real_step()
        steps.append(time.perf_counter() - t)

    viewport._draw_step = timed_step  # noqa: SLF001
    try:  # (the timer holds the bound method it was connected to)
        viewport._step_timer.timeout.disconnect()  # noqa: SLF001
        viewport._step_timer.timeout.connect(timed_step)  # noqa: SLF001
    except (RuntimeError, TypeError):
        pass
    gaps: list[tuple[float, float]] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        if now - last[0] > 0.02:
            gaps.append((last[0], now))
        last[0] = now

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)
    sampler = Sampler(threading.get_ident())
    sampler.start()
    t0 = time.perf_counter()
    last[0] = t0
    timer.start()
    before = panel.snapshot.model if panel.snapshot is not None else None
    assert editor.open_path(path, modal=False)
    wait(
        lambda: (
            panel.snapshot is not None
            and panel.snapshot.model is not before
            and len(panel.snapshot.model.body_names) > n
        )
    )
    shown = time.perf_counter() - t0
    wait(lambda: not viewport.drawing_in_steps())
    drawn = time.perf_counter() - t0
    end = time.perf_counter() + after
    while time.perf_counter() < end:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
        time.sleep(0.001)
    timer.stop()
    sampler.running = False
    sampler.join()
    print(f"  shown {shown:.2f} s, drawn {drawn:.2f} s after the open", flush=True)
    for a, b in gaps:
        if b - a >= report:
            print(f"  pause {b - a:.3f} s ending at {b - t0:6.2f} s: {explain(sampler, a, b)}")
    longest = max((b - a for a, b in gaps), default=0.0)
    over = sum(1 for a, b in gaps if b - a > 0.1)
    print(
        f"  draw steps {len(steps)}, longest {max(steps, default=0):.3f} s, "
        f"over 0.1 s {sum(s > 0.1 for s in steps)}; longest pause {longest:.3f} s, "
        f"pauses over 0.1 s {over}",
        flush=True,
    )
    print("  first steps " + " ".join(f"{d:.3f}" for d in steps[:6]), flush=True)
    editor.undo_stack.setClean()
    window.close()
    app.processEvents()
    return {"shown": shown, "drawn": drawn, "longest": longest, "over": over}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bodies", type=int, default=20000)
    parser.add_argument("--after", type=float, default=10.0, help="seconds to run after drawn")
    parser.add_argument("--report", type=float, default=0.08, help="pauses to explain (s)")
    parser.add_argument(
        "--cold", action="store_true", help="open the chain first (no example opened before)"
    )
    parser.add_argument(
        "--replace", action="store_true", help="measure the chain opened in place of itself"
    )
    args = parser.parse_args()
    directory = pathlib.Path(tempfile.mkdtemp())
    path = chain_file(directory, args.bodies)
    print(f"{args.bodies} bodies ({path.stat().st_size / 1e6:.1f} MB file)", flush=True)
    run_open(path, args.bodies, args.after, args.report, not args.cold, args.replace)


if __name__ == "__main__":
    main()
