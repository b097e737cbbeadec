"""Edit benchmark (not a test): what each kind of model edit costs on the studio's GUI thread
for a large chain, and how long loading and building that chain take.

In a real window (run under ``xvfb-run -a`` when there is no display) the script opens an
N-link Ball chain (the chain50 example's link repeated) and then applies, through the model
editor as the GUI does, one edit of each kind to a body in the middle of the chain: mass,
rename, add body, remove body, change parent, change mobilizer type, then undo and redo.

For every edit it reports:

- ``edit``: seconds the edit itself held the GUI thread (document update and validation, the
  model tree, the property form refreshed after it, the rebuild queued for the worker);
- ``show``: seconds the GUI thread spent showing the first snapshot of the rebuilt model (3-D
  view, joint sliders, plots, inspectors);
- ``view``: the part of ``show`` spent in the 3-D view (``ViewportWidget.show_model``: 0 when
  the edit left the drawing alone);
- ``stall``: the event loop's longest pause (gaps of a 5 ms timer) from the edit until the
  rebuilt model is shown;
- ``total``: wall-clock seconds from the edit until the rebuilt model is shown (the worker's
  rebuild of the System included);
- ``edit_cpu`` and ``gui_cpu``: the GUI thread's CPU seconds in the edit itself and until
  the rebuilt model is shown (less inflated than wall-clock time by other jobs on the
  machine);
- ``renders``: renders of the 3-D view from the edit until ``SETTLE`` seconds after the
  rebuilt model is shown (the render that shows it comes after it is shown), and
  ``settled_cpu``: the GUI thread's CPU seconds over the same span;
- ``faults``: the process's minor page faults (every thread's) from the edit until the
  rebuilt model is shown: pages of fresh memory written for the first time; ``gui_faults``:
  the GUI thread's part of them (the rest: the worker's rebuild, the renderer's threads).

Before the edits it reports the open itself: wall-clock seconds from ``open_path`` until the
model is shown with its plots, and until its 3-D view is drawn in full (a large model's is
drawn in steps), the GUI thread's CPU seconds meanwhile, and the event loop's longest pause.

With ``--load`` it also times, outside the window, reading the model file
(``model_io.load``: parse, validate, specs) and building its System (``build``), and the
first realizations (``realizeTopology`` / ``realizeModel``).

``--only WORD ...`` makes only the edits whose label starts with one of the words (mass rename
add remove change undo redo); each finds its body whether or not the others ran (without the
rename the middle body keeps its name; without the add the leaf removed is the chain's last
link), and undo and redo, which need the edits they undo, are refused without them.

With ``--idle SECONDS`` the window idles that long before each edit, as a user pauses
between edits (work the studio leaves for idle moments then happens there, not in the edit).

Run: ``python benchmarks/bench_edits.py --bodies 1000 [--bodies 20000] [--load] [--idle 2]``
(``BENCH_ROOT=<checkout>``: measure that checkout's studio, e.g. a worktree of the base).
Like the studio's start, it raises glibc malloc's thresholds first
(``app.simulation.malloc_tuning``); ``--default-malloc`` leaves them as they are.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pathlib
import resource
import sys
import tempfile
import threading
import time

#: The checkout to measure (BENCH_ROOT: another one, e.g. a worktree of the base commit).
ROOT = pathlib.Path(os.environ.get("BENCH_ROOT") or pathlib.Path(__file__).resolve().parents[1])
sys.path.insert(0, str(ROOT))

#: Seconds after the edited model is shown over which ``renders`` and ``settled_cpu`` are
#: counted (its render, and anything the shown snapshot sets off).
SETTLE = 0.5


def thread_minor_faults() -> int:
    """The calling thread's minor page faults so far (Linux: /proc; elsewhere 0)."""
    try:
        stat = pathlib.Path(f"/proc/self/task/{threading.get_native_id()}/stat").read_text()
    except OSError:
        return 0
    return int(stat.rsplit(")", 1)[1].split()[7])  # minflt: field 10 of stat(5)


def chain_file(directory: pathlib.Path, n: int) -> pathlib.Path:
    from app.document.examples import example_path

    data = json.loads(example_path("chain50").read_text())
    model = data["model"]
    link = model["bodies"][1]
    model["bodies"] = [
        dict(link, name=f"b{i}", parent="Ground" if i == 0 else f"b{i - 1}") for i in range(n)
    ]
    model["name"] = f"{n}-link chain"
    model["hints"]["show_default_geometry"] = True  # Simbody's sketch: 6 decorations a body
    path = directory / f"chain{n}.mbs.json"
    path.write_text(json.dumps(data))
    return path


def time_load(path: pathlib.Path) -> dict[str, float]:
    """Seconds to read the file and to build its System (garbage collector off, as the
    studio's open does); ``load_cpu``: the process's CPU seconds while reading (less
    sensitive than wall-clock time to other jobs on a shared machine)."""
    from app.document import build, model_io
    from app.simulation import collection
    from engine import Stage, State

    gc.collect()
    with collection.paused():
        c0 = time.process_time()
        t0 = time.perf_counter()
        document = model_io.load(path)
        t1 = time.perf_counter()
        c1 = time.process_time()
        built = build(document)
        t2 = time.perf_counter()
        state = State(built.state)
        built.system.realize(state, Stage.Position)
        t3 = time.perf_counter()
    return {
        "load": t1 - t0,
        "load_cpu": c1 - c0,
        "build": t2 - t1,
        "realize_position": t3 - t2,
    }


class Stalls:
    """The event loop's longest pause since ``reset()`` (gaps of a 5 ms timer)."""

    def __init__(self) -> None:
        from PySide6.QtCore import QTimer

        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.reset()
        self.timer.start()

    def reset(self) -> None:
        self.last = time.perf_counter()
        self.longest = 0.0

    def _tick(self) -> None:
        now = time.perf_counter()
        self.longest = max(self.longest, now - self.last)
        self.last = now


def run_edits(
    path: pathlib.Path,
    n: int,
    only: set[str] | None = None,
    profile: str | None = None,
    idle: float = 0.0,
) -> list[tuple[str, dict[str, float]]]:
    from PySide6.QtCore import QEventLoop, QSettings
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    from app.main_window import MainWindow
    from app.tree.tree_model import body_key

    settings_dir = tempfile.mkdtemp()
    settings = QSettings(f"{settings_dir}/bench.ini", QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, restore_layout=False)
    window.show()
    editor = window.model_editor
    editor.interactive = False
    panel = window.simulation

    def wait(cond, timeout=600.0) -> None:
        end = time.perf_counter() + timeout
        while not cond():
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
            if time.perf_counter() > end:
                raise TimeoutError("the studio did not get there in time")
            time.sleep(0.001)

    profiles: dict[str, object] = {}

    def profiled(label: str):
        """A cProfile profiler of the GUI thread for ``label`` (a no-op without --profile)."""
        import contextlib

        if profile is None:
            return contextlib.nullcontext()
        import cProfile

        profiler = cProfile.Profile()
        profiles[label] = profiler
        return profiler

    stalls = Stalls()
    cpu0 = time.thread_time()
    t0 = time.perf_counter()
    with profiled("open"):
        assert editor.open_path(path, modal=False)
        wait(lambda: panel.snapshot is not None and len(panel.snapshot.model.body_names) > n)
        wait(lambda: panel._plots is not None)  # noqa: SLF001
        opened = time.perf_counter() - t0
        # a large model's 3-D view is drawn in steps after it is shown
        stepping = getattr(window.viewport, "drawing_in_steps", lambda: False)
        wait(lambda: not stepping())
    drawn = time.perf_counter() - t0
    gui_cpu = time.thread_time() - cpu0
    print(
        f"  open in the window: {opened:.1f} s, drawn {drawn:.1f} s (GUI thread CPU "
        f"{gui_cpu:.1f} s, longest event-loop pause {stalls.longest:.2f} s)",
        flush=True,
    )
    shows: list[float] = []
    real_show = panel.show_snapshot

    def timed_show(snap) -> None:
        start = time.perf_counter()
        real_show(snap)
        if shows and shows[-1] < 0:  # the first snapshot of the edited model
            shows[-1] = time.perf_counter() - start

    panel.show_snapshot = timed_show
    views: list[float] = []  # seconds in the 3-D view's show_model (part of ``show``)
    real_view = window.viewport.show_model

    def timed_view(*args, **kwargs) -> None:
        start = time.perf_counter()
        real_view(*args, **kwargs)
        views.append(time.perf_counter() - start)

    window.viewport.show_model = timed_view
    stalls.reset()
    mid = f"b{n // 2}"
    results: list[tuple[str, dict[str, float]]] = [
        ("open (window)", {"total": opened, "gui_cpu": gui_cpu, "stall": stalls.longest})
    ]

    def measure(label: str, action) -> None:
        if only and label.split(" ")[0] not in only:
            return
        idle_until = time.perf_counter() + idle  # a user's pause before the edit
        while time.perf_counter() < idle_until:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
            time.sleep(0.005)
        app.processEvents()
        serial = panel.snapshot.model_serial
        shows.append(-1.0)
        views.clear()
        stalls.reset()
        frames = window.viewport.frames_rendered
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        gui_faults = thread_minor_faults()
        start = time.perf_counter()
        cpu = time.thread_time()
        with profiled(label):
            action()
            edit = time.perf_counter() - start
            edit_cpu = time.thread_time() - cpu
            wait(lambda: panel.snapshot.model_serial != serial and shows[-1] >= 0)
        total = time.perf_counter() - start
        gui_cpu = time.thread_time() - cpu
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
        gui_faults = thread_minor_faults() - gui_faults
        settle_until = time.perf_counter() + SETTLE
        while time.perf_counter() < settle_until:
            app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 5)
            time.sleep(0.002)
        renders = window.viewport.frames_rendered - frames
        settled_cpu = time.thread_time() - cpu
        results.append(
            (
                label,
                {
                    "edit": edit,
                    "show": shows[-1],
                    "view": sum(views),
                    "stall": stalls.longest,
                    "total": total,
                    "edit_cpu": edit_cpu,
                    "gui_cpu": gui_cpu,
                    "renders": renders,
                    "settled_cpu": settled_cpu,
                    "faults": faults,
                    "gui_faults": gui_faults,
                },
            )
        )
        print(
            f"  {label:28s} "
            + "  ".join(
                f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                for k, v in results[-1][1].items()
            ),
            flush=True,
        )

    doc = lambda: editor.document  # noqa: E731
    editor.tree.select_key(body_key(mid))
    app.processEvents()
    inertia = tuple(2.0 * v for v in doc().body(mid).inertia)
    measure(
        "mass",
        lambda: editor.edit("mass", lambda d: d.set_body(mid, mass=0.2, inertia=inertia)),
    )
    measure("rename", lambda: editor.rename_body(mid, "middle"))
    # the middle body is called "middle" only if the rename was made
    middle = "middle" if "middle" in doc().body_names() else mid
    before = set(doc().body_names())
    measure("add body", lambda: editor.add_body(middle))
    # the body just added, else the chain's last link (a leaf too)
    added = next(iter(set(doc().body_names()) - before), f"b{n - 1}")
    measure("remove body (leaf)", lambda: editor.edit("rm", lambda d: d.remove_body(added)))
    measure(
        "change parent",
        lambda: editor.edit("rp", lambda d: d.set_body(f"b{n // 2 + 10}", parent="b3")),
    )
    measure(
        "change mobilizer",
        lambda: editor.edit("mob", lambda d: d.set_body(middle, mobilizer="Pin")),
    )
    measure("undo (mobilizer)", editor.undo_stack.undo)
    measure("redo (mobilizer)", editor.undo_stack.redo)
    measure(
        "remove subtree",
        lambda: editor.edit("rm", lambda d: d.remove_body(f"b{n - n // 10}")),
    )
    measure("undo (remove subtree)", editor.undo_stack.undo)
    stalls.timer.stop()
    for label, profiler in profiles.items():
        name = "".join(c if c.isalnum() else "_" for c in label)
        profiler.dump_stats(f"{profile}_{n}_{name}.prof")
    editor.interactive = False
    editor.undo_stack.setClean()
    window.close()
    app.processEvents()
    return results


#: The first words --only takes, and the words each needs with it: an undo undoes the
#: change of mobilizer and the removal of a subtree, a redo redoes that undo.
EDIT_WORDS = ("mass", "rename", "add", "remove", "change", "undo", "redo")
EDIT_NEEDS = {"undo": ("change", "remove"), "redo": ("change", "remove", "undo")}


def keep_freed_memory_as_the_studio() -> None:
    """Set glibc malloc's parameters as the studio's start-up does
    (``app.simulation.malloc_tuning``; a checkout without that module: nothing to set)."""
    try:
        from app.simulation.malloc_tuning import keep_freed_memory
    except ImportError:
        return
    keep_freed_memory()


def check_only(words) -> str:
    """Why the --only ``words`` cannot be run ("" if they can)."""
    unknown = [w for w in words if w not in EDIT_WORDS]
    if unknown:
        return f"unknown edits {unknown}; --only takes {' '.join(EDIT_WORDS)}"
    for word in words:
        missing = [w for w in EDIT_NEEDS.get(word, ()) if w not in words]
        if missing:
            return (
                f"'{word}' undoes or redoes the edits of {' '.join(EDIT_NEEDS[word])}: add "
                f"{' '.join(missing)} to --only"
            )
    return ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bodies", type=int, action="append", default=None)
    parser.add_argument("--load", action="store_true", help="time reading and building too")
    parser.add_argument("--no-edits", action="store_true", help="skip the window's edits")
    parser.add_argument(
        "--only", nargs="*", help="edits to make (first words: mass rename add remove ...)"
    )
    parser.add_argument(
        "--profile",
        metavar="PREFIX",
        help="profile the GUI thread (cProfile) in the open and each edit: PREFIX_N_LABEL.prof",
    )
    parser.add_argument(
        "--idle",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="let the window idle this long before each edit (as a user pauses between edits)",
    )
    parser.add_argument(
        "--default-malloc",
        action="store_true",
        help="leave glibc malloc's thresholds at their defaults (the studio's start raises them)",
    )
    args = parser.parse_args()
    if not args.default_malloc:
        keep_freed_memory_as_the_studio()
    why = check_only(args.only or ())
    if why:
        parser.error(why)
    sizes = args.bodies or [1000]
    directory = pathlib.Path(tempfile.mkdtemp())
    for n in sizes:
        path = chain_file(directory, n)
        print(f"{n} bodies", flush=True)
        if args.load:
            times = time_load(path)
            print("  " + "  ".join(f"{k} {v:.2f} s" for k, v in times.items()), flush=True)
        if not args.no_edits:
            run_edits(path, n, set(args.only or ()), args.profile, args.idle)


if __name__ == "__main__":
    main()
