"""Headless subcommands: ``mbstudio render`` and ``mbstudio simulate``.

- ``mbstudio render MODEL --time T --out FILE.png``: simulate MODEL to time T, then draw it
  offscreen (VTK, no display needed) into a PNG;
- ``mbstudio simulate MODEL --until T --csv FILE.csv [--video FILE.mp4]``: simulate to T with
  Runge-Kutta-Merson under a TimeStepper, writing t, every q and u, and the energies every
  ``--dt`` to a CSV, optionally rendering a video (or PNG frames) at ``--fps``.

Both print a progress bar on stderr. Only argparse-level code runs at import (``mbstudio
--help`` stays fast); the engine and VTK are imported when a command runs.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import math
import os
import signal
import sys
import time as _time
from pathlib import Path
from typing import NoReturn

from app.cli import PROG, nonnegative_float, positive_float, register_command

EXIT_USAGE = 2
EXIT_FAILED = 1

#: the most internal integrator steps between returns to this loop (progress, checks)
STEP_BATCH = 50
#: fewer steps than STEP_BATCH are taken between returns where steps cost so much that
#: STEP_BATCH of them would take longer than this (s of wall time)
BATCH_SECONDS = 0.2
#: a run whose mean step size would need more steps than this to finish is stalled ...
MAX_PROJECTED_STEPS = 3e7
#: ... measured over windows of this much wall time (s)
STALL_SECONDS = 3.0
#: written rows reach the file at least this often (s of wall time)
FLUSH_SECONDS = 0.5


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived during a headless command (a BaseException, so that no
    ``except Exception`` in the engine swallows it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        self.name = signal.Signals(signum).name


class SimulationStoppedError(Exception):
    """The run cannot go on: non-finite values in the State, or the step size has collapsed
    (a stiff model). The message says which and what to try."""


@contextlib.contextmanager
def interruptible():
    """While inside, SIGINT and SIGTERM raise Interrupted in the main thread (the engine
    returns to Python every few steps, so this takes effect within a fraction of a second)."""

    from engine.common.numba_internals import deliver_after_return, in_compiled_callback

    def handler(signum, frame):
        # remembered too: where the exception cannot propagate (a callback inside the JIT
        # compiler swallows it) the caller still learns that a signal came
        interruptible.received = signum
        if in_compiled_callback(frame):  # raising here would crash the calling kernel
            deliver_after_return(signum)
            return
        raise Interrupted(signum)

    interruptible.received = None

    previous = {}
    try:
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, handler)
    except ValueError:  # not the main thread: leave the handlers alone
        pass
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)


def exit_after_signal(code: int) -> NoReturn:
    """End the process now (the CSV is closed and the message printed): a process told to
    stop by a signal skips the interpreter's teardown of the JIT and numeric libraries,
    which can take seconds, so that it is gone within a second."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def check_state(built, state) -> None:
    """Raise SimulationStoppedError if the State's q or u hold NaN or infinity."""
    import numpy as np

    for kind, values in (("q", built.matter.getQ(state)), ("u", built.matter.getU(state))):
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise SimulationStoppedError(
                f"the state became non-finite at t = {state.getTime():.6g} s ({kind}[{bad[0]}] "
                f"= {values[bad[0]]}); the model diverged: check very large forces, stiffnesses "
                "or frame offsets, or tighten --accuracy"
            )


class StallWatch:
    """Notices a run whose integrator steps have become so small that reaching the end would
    take more than MAX_PROJECTED_STEPS steps: the mean step size over each STALL_SECONDS of
    wall time is what counts (a single step's size swings too much to judge by)."""

    def __init__(self, integrator, until: float, method: str) -> None:
        self.integrator = integrator
        self.until = until
        self.method = method
        self.window: tuple[float, float, int] | None = None  # (wall time, t, steps) at its start

    def check(self) -> None:
        integ = self.integrator
        now, t, n = _time.monotonic(), integ.getTime(), integ.getNumStepsTaken()
        if self.window is None:
            self.window = (now, t, n)
            return
        w0, t0, n0 = self.window
        if now - w0 < STALL_SECONDS:
            return
        self.window = (now, t, n)
        if n <= n0:
            return  # no step taken: the caller's own idle check handles that
        h = (t - t0) / (n - n0)
        if h * MAX_PROJECTED_STEPS < self.until - t:
            steps = (self.until - t) / h if h > 0 else math.inf
            raise SimulationStoppedError(
                f"the simulation cannot advance in practice: at t = {t:.6g} s the {self.method} "
                f"integrator's mean step size is {h:.3g} s, so reaching {self.until:g} s would "
                f"take about {steps:.2g} more steps. The model is probably too stiff for an "
                "explicit method (a very stiff spring or contact); lower the stiffness, add "
                "damping, or loosen --accuracy"
            )


class BatchSizer:
    """Sets an integrator's internal step limit so that each ``stepTo`` returns within about
    BATCH_SECONDS of wall time: STEP_BATCH steps, or fewer at the wall time per step measured
    over the previous call (models whose steps are expensive: many constraints, contact)."""

    def __init__(self, integrator) -> None:
        self.integrator = integrator
        self.limit = STEP_BATCH
        self._start = (0.0, 0)

    def start(self) -> None:
        self._start = (_time.perf_counter(), self.integrator.getNumStepsTaken())

    def stop(self) -> None:
        t0, n0 = self._start
        steps = self.integrator.getNumStepsTaken() - n0
        if steps <= 0:
            return
        per_step = (_time.perf_counter() - t0) / steps
        limit = max(1, min(STEP_BATCH, int(BATCH_SECONDS / max(per_step, 1e-9))))
        if limit != self.limit:
            self.limit = limit
            self.integrator.setInternalStepLimit(limit)


class Progress:
    """Progress of a long command on a stream (stderr). On a terminal: one line redrawn in
    place (carriage return) at most ~20 times a second. Elsewhere (a log file, a pipe, CI):
    a plain line at every 10% and at the end, so the log stays readable."""

    def __init__(self, label: str, total: float, stream=None, width: int = 30) -> None:
        self.label = label
        self.total = float(total)
        self.stream = sys.stderr if stream is None else stream
        self.width = width
        isatty = getattr(self.stream, "isatty", None)
        self.interactive = bool(isatty and isatty())
        self._last = -1.0
        self._start = _time.monotonic()
        self._shown = -1
        self.last = 0.0  # the last value shown

    def update(self, value: float, force: bool = False) -> None:
        """Show ``value`` (s) of ``total``; ``force`` shows it even if little changed."""
        now = _time.monotonic()
        self.last = value
        fraction = 1.0 if self.total <= 0 else min(max(value / self.total, 0.0), 1.0)
        percent = int(fraction * 100)
        if self.interactive:
            if not force and percent == self._shown and now - self._last < 0.05:
                return
        elif percent == self._shown or (not force and percent // 10 == self._shown // 10):
            return
        self._last, self._shown = now, percent
        filled = int(round(fraction * self.width))
        bar = "#" * filled + "-" * (self.width - filled)
        elapsed = now - self._start
        line = f"{self.label} [{bar}] {percent:3d}%  t = {value:.4g} s  ({elapsed:.1f} s)"
        self.stream.write(f"\r{line}" if self.interactive else f"{line}\n")
        self.stream.flush()

    def finish(self, value: float) -> None:
        """Show the final value and end the line."""
        self.update(value, force=True)
        if self.interactive:
            self.stream.write("\n")
            self.stream.flush()


def _error(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


#: What ``--video`` can write: an MP4 file, or PNG frames into a directory or a %d pattern.
VIDEO_FORMATS = "FILE.mp4 (H.264 video), a directory or a pattern with %d such as frames/f_%05d.png"


def _missing_directory(path: Path) -> str | None:
    """Why ``path`` cannot be created as a file (its directory does not exist), else None."""
    parent = path.parent
    if parent.is_dir():
        return None
    return f"the directory {parent} of {path} does not exist (create it first)"


def _video_problem(path: Path) -> str | None:
    """Why ``--video path`` cannot be written, else None (see VIDEO_FORMATS)."""
    text = str(path)
    if path.suffix.lower() == ".mp4":
        return _missing_directory(path)
    if "%" in text:
        if path.suffix.lower() != ".png":
            return f"--video pattern {text} must end in .png (PNG frames)"
        return _missing_directory(path)
    if path.suffix and not path.is_dir():
        return f"--video {text}: unsupported format {path.suffix!r}; supported: {VIDEO_FORMATS}"
    return None if path.is_dir() else _missing_directory(path)


def resolve_model_path(path: Path) -> Path:
    """``path``, or the bundled example of that name when no such file exists (``mbstudio
    render ragdoll``)."""
    if path.exists() or path.suffix or len(path.parts) != 1:
        return path
    from app.document.examples import examples

    for e in examples():
        if e.key == str(path):
            return e.path
    return path


def _load_and_build(path: Path):
    """(document, built model) or an error message."""
    from app.document import BuildError, build
    from app.document.model_io import ModelFileError, load

    path = resolve_model_path(path)
    try:
        document = load(path)
    except ModelFileError as exc:
        return None, None, f"cannot open {exc.path}: {exc.field}: {exc.message}"
    try:
        built = build(document)
    except BuildError as exc:
        return None, None, f"cannot build {path}: {exc}"
    return document, built, None


def make_stepper(built, accuracy: float):
    """A TimeStepper with a Runge-Kutta-Merson integrator, initialized at the built state."""
    try:
        from engine import RungeKuttaMersonIntegrator, TimeStepper
    except ImportError:  # engine/__init__ without the integrators yet
        from engine.integrators import RungeKuttaMersonIntegrator, TimeStepper

    integrator = RungeKuttaMersonIntegrator(built.system)
    integrator.setAccuracy(accuracy)
    stepper = TimeStepper(built.system, integrator)
    stepper.initialize(built.state)
    return stepper


def sample_times(until: float, dt: float) -> list[float]:
    """0, dt, 2 dt, ... up to and including ``until`` (which is always the last time)."""
    n = int(math.floor(until / dt + 1e-9))
    times = [k * dt for k in range(n + 1)]
    if until - times[-1] > 1e-12 * max(1.0, until):
        times.append(until)
    return times


class FrameRenderer:
    """Draws successive States of a built model offscreen with one reused VTK Scene."""

    def __init__(self, built, width: int, height: int, camera=None) -> None:
        from app.document.builder import model_geometry
        from engine import Stage
        from viz.offscreen import apply_camera, system_hints
        from viz.scene import Scene

        self._built = built
        self._camera = camera
        #: Why ``capture(..., frame=True)`` could not frame the bodies ("" when it did).
        self.framing_problem = ""
        self._model_geometry = model_geometry
        self._stage = Stage
        self.scene = Scene()
        self.scene.attach_offscreen(width, height)
        self.scene.set_hints(**system_hints(built.system))
        state = built.state.copy()
        built.system.realize(state, Stage.Position)
        self.scene.set_geometry(model_geometry(built, state, Stage.Topology, Stage.Time))
        self._update(state)
        apply_camera(self.scene, camera)

    def _update(self, state) -> None:
        from app.document.builder import body_poses

        self.scene.set_dynamic_geometry(
            self._model_geometry(self._built, state, self._stage.Position, self._stage.Position)
        )
        self.scene.update_poses(body_poses(self._built, state))

    def capture(self, state, overlay: str | None = None, frame: bool = False):
        """Draw ``state``; ``frame`` first aims the camera (as constructed) at the bodies
        where they are in ``state`` (see ``frame_bodies``)."""
        self._built.system.realize(state, self._stage.Position)
        self._update(state)
        if frame:
            self.frame_bodies(state)
        if overlay is not None:
            self.scene.set_overlay_text(text=overlay)
        return self.scene.capture()

    def _moving_bounds(self):
        """Bounds of the visible decorations on bodies other than Ground, or None."""
        import numpy as np

        from viz import camera as cam

        boxes = []
        for prop, owner in self.scene._prop_owner.items():  # noqa: SLF001  (viz's own table)
            bodies = np.atleast_1d(getattr(owner, "body_idx", getattr(owner, "body_id", 0)))
            if prop.GetVisibility() and np.any(bodies > 0):
                boxes.append(prop.GetBounds())
        return cam.union_bounds(boxes)

    def frame_bodies(self, state) -> None:
        """Aim the camera (as constructed: a preset or the default raised front view) so the
        moving bodies' decorations in ``state`` fill the view; sets ``framing_problem`` when
        that cannot be done (poses not finite, nothing drawn on the bodies)."""
        import numpy as np

        from app.document.builder import body_poses
        from viz import camera as cam
        from viz.offscreen import apply_camera

        apply_camera(self.scene, self._camera)
        if not isinstance(self._camera, (str, type(None))):
            return  # an explicit camera is kept as given
        poses = np.asarray(body_poses(self._built, state), dtype=float)
        bounds = self._moving_bounds()
        if not np.all(np.isfinite(poses)):
            self.framing_problem = "the bodies' poses are not finite; the view is not framed"
        elif bounds is None or not np.all(np.isfinite(bounds)):
            self.framing_problem = "the bodies draw nothing to frame; the whole scene is shown"
        else:
            self.framing_problem = ""
            b = np.array(bounds).reshape(3, 2)
            half = np.maximum((b[:, 1] - b[:, 0]) / 2.0, 0.25 * self.scene.environment.length_scale)
            centre = b.mean(axis=1)
            cam.zoom_to_fit(
                self.scene.renderer, np.column_stack([centre - half, centre + half]).reshape(-1)
            )

    def close(self) -> None:
        self.scene.close()


# -- render ---------------------------------------------------------------------------------------
def configure_render(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        type=Path,
        metavar="MODEL",
        help="model file (.mbs.json) or a bundled example's name (ragdoll)",
    )
    parser.add_argument(
        "--time",
        type=nonnegative_float,
        default=0.0,
        metavar="T",
        help="simulate to T seconds first (default 0)",
    )
    parser.add_argument(
        "--out", type=Path, required=True, metavar="FILE.png", help="PNG file to write"
    )
    parser.add_argument(
        "--width", type=int, default=800, help="image width in pixels (default 800)"
    )
    parser.add_argument(
        "--height", type=int, default=600, help="image height in pixels (default 600)"
    )
    parser.add_argument(
        "--accuracy", type=positive_float, default=1e-4, help="integrator accuracy (default 1e-4)"
    )
    parser.add_argument(
        "--camera",
        default=None,
        choices=("front", "back", "left", "right", "top", "bottom"),
        help="camera preset (default: front, raised)",
    )


def simulate_to(
    built,
    until: float,
    accuracy: float,
    progress: Progress | None,
    on_sample=None,
    times=None,
    on_batch=None,
):
    """Step the built model to ``until``; calls ``on_sample(state)`` at each of ``times``, and
    ``on_batch()`` each time the integrator returns (several times a second).

    The integrator returns every STEP_BATCH internal steps, or fewer where those would take
    longer than BATCH_SECONDS, so progress is shown and the run is checked
    (SimulationStoppedError: non-finite State, collapsed step size) several times a second
    even between far-apart sample times; signals are handled between the integrator's compiled
    calls, which return to Python several times a second."""
    stepper = make_stepper(built, accuracy)
    integ = stepper.getIntegrator()
    integ.setInternalStepLimit(STEP_BATCH)
    stepper.setReportAllSignificantStates(True)  # return at every step limit too
    watch = StallWatch(integ, until, integ.getMethodName())
    batch = BatchSizer(integ)
    times = [until] if times is None else times
    for t in times:
        idle = 0
        while t > stepper.getTime():
            before = stepper.getTime()
            batch.start()
            stepper.stepTo(t)
            batch.stop()
            if on_batch is not None:
                on_batch()
            check_state(built, stepper.getState())
            watch.check()
            if progress is not None:
                progress.update(stepper.getTime())
            idle = idle + 1 if stepper.getTime() <= before else 0
            if integ.isSimulationOver() or idle > 1000:
                raise SimulationStoppedError(
                    f"the integrator stopped advancing at t = {stepper.getTime():.6g} s"
                )
        if on_sample is not None:
            on_sample(stepper.getState())
        if progress is not None:
            progress.update(stepper.getTime())
    return stepper.getState()


def run_render(args: argparse.Namespace) -> int:
    if args.width <= 0 or args.height <= 0:
        _error("--width and --height must be positive")
        return EXIT_USAGE
    if args.out.suffix.lower() != ".png":
        _error(f"--out must name a .png file, got {args.out}")
        return EXIT_USAGE
    problem = _missing_directory(args.out)
    if problem:
        _error(problem)
        return EXIT_USAGE
    _, built, problem = _load_and_build(args.model)
    if problem:
        _error(problem)
        return EXIT_USAGE
    from engine.common.exceptions import SimTKError

    progress = Progress("simulating", args.time)
    try:
        with interruptible():
            state = simulate_to(
                built,
                args.time,
                args.accuracy,
                progress,
                times=sample_times(args.time, max(args.time / 100, 1e-9))
                if args.time > 0
                else [0.0],
            )
    except Interrupted as exc:
        progress.finish(progress.last)
        _error(f"interrupted by {exc.name}: stopped; nothing was rendered")
        if "pytest" not in sys.modules:  # a real process (tests call run_render in-process)
            exit_after_signal(128 + exc.signum)
        return 128 + exc.signum
    except SimTKError as exc:
        progress.finish(args.time)
        _error(f"the simulation failed: {exc}")
        return EXIT_FAILED
    progress.finish(state.getTime())
    renderer = FrameRenderer(built, args.width, args.height, args.camera)
    try:
        image = renderer.capture(state.copy(), frame=True)
    finally:
        renderer.close()
    if renderer.framing_problem:
        _error(f"warning: {renderer.framing_problem}")
    from viz.offscreen import write_png

    try:
        write_png(image, args.out)
    except OSError as exc:
        _error(str(exc))
        return EXIT_FAILED
    print(f"{PROG}: rendered t = {state.getTime():.6g} s to {args.out}", file=sys.stderr)
    return 0


# -- simulate -------------------------------------------------------------------------------------
def configure_simulate(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        type=Path,
        metavar="MODEL",
        help="model file (.mbs.json) or a bundled example's name (ragdoll)",
    )
    parser.add_argument(
        "--until", type=positive_float, required=True, metavar="T", help="final time in seconds"
    )
    parser.add_argument(
        "--csv",
        type=Path,
        default=None,
        metavar="FILE.csv",
        help="CSV file to write (t, q, u, energies); --csv or --record is needed",
    )
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="FILE.npz",
        help="also write a recording (the model and the State at every --dt), which the "
        f"studio opens and `{PROG} diff` / `{PROG} replay` read",
    )
    parser.add_argument(
        "--dt",
        type=positive_float,
        default=0.01,
        help="CSV sampling interval in seconds (default 0.01)",
    )
    parser.add_argument(
        "--video",
        type=Path,
        default=None,
        metavar="FILE.mp4",
        help="also render a video: FILE.mp4, or PNG frames into a directory or a pattern "
        "with %%d (other formats are refused)",
    )
    parser.add_argument(
        "--fps",
        type=positive_float,
        default=30.0,
        help="video frames per second of simulated time (default 30)",
    )
    parser.add_argument("--width", type=int, default=640, help="video width (default 640)")
    parser.add_argument("--height", type=int, default=480, help="video height (default 480)")
    parser.add_argument(
        "--accuracy", type=positive_float, default=1e-4, help="integrator accuracy (default 1e-4)"
    )


def csv_header(built) -> list[str]:
    from engine import Stage

    state = built.state.copy()
    built.system.realize(state, Stage.Position)
    cols = ["t"]
    for kind in ("q", "u"):
        for name in built.body_name_of_index[1:]:
            mb = built.mobilized_bodies[name]
            n = mb.getNumQ(state) if kind == "q" else mb.getNumU(state)
            cols += [f"{kind}:{name}[{i}]" for i in range(n)]
    cols += ["kinetic_energy", "potential_energy", "total_energy"]
    return cols + [f"measure:{name}" for name in getattr(built, "measures", {})]


def csv_row(built, state) -> list[float]:
    import numpy as np

    from engine import Stage

    measures = getattr(built, "measures", {})
    needed = Stage.Acceleration if measures else Stage.Dynamics  # any measure can be read
    if state.getSystemStage() < needed:
        built.system.realize(state, needed)
    ke = built.system.calcKineticEnergy(state)
    pe = built.system.calcPotentialEnergy(state)
    row = [state.getTime()]
    row += [float(v) for v in built.matter.getQ(state)]
    row += [float(v) for v in built.matter.getU(state)]
    row += [ke, pe, ke + pe]
    return row + [float(np.ravel(m.getValue(state))[0]) for m in measures.values()]


def _merge_times(*lists: list[float]) -> list[float]:
    out: list[float] = []
    for t in sorted(t for lst in lists for t in lst):
        if not out or t - out[-1] > 1e-12:
            out.append(t)
    return out


def _open_csv(path: Path | None):
    """The CSV file to write, or (no --csv) a sink that keeps nothing."""
    if path is None:
        return io.StringIO()
    return open(path, "w", newline="", encoding="utf-8")  # noqa: SIM115 - a with-block closes it


def run_simulate(args: argparse.Namespace) -> int:
    if args.width <= 0 or args.height <= 0:
        _error("--width and --height must be positive")
        return EXIT_USAGE
    if args.csv is None and args.record is None:
        _error("give --csv FILE.csv or --record FILE.npz (or both)")
        return EXIT_USAGE
    if args.record is not None and args.record.suffix != ".npz":
        _error(f"--record must name a .npz file, got {args.record}")
        return EXIT_USAGE
    problem = (
        (_missing_directory(args.csv) if args.csv is not None else None)
        or (_missing_directory(args.record) if args.record is not None else None)
        or (_video_problem(args.video) if args.video is not None else None)
    )
    if problem:
        _error(problem)
        return EXIT_USAGE
    document, built, problem = _load_and_build(args.model)
    if problem:
        _error(problem)
        return EXIT_USAGE
    recorder = None
    if args.record is not None:
        from app.body_puller import ensure_pull_force
        from app.history.command_recording import CommandRecording

        # The States are recorded with the layout the studio gives the model (its mouse
        # pull force, which exerts nothing here), so that the studio can open them.
        ensure_pull_force(built)
        recorder = CommandRecording(document)
    from engine.common.exceptions import SimTKError

    writer = renderer = None
    if args.video is not None:
        from viz.offscreen import FrameWriter

        try:
            writer = FrameWriter(args.video, fps=args.fps)
        except RuntimeError as exc:  # MP4 without imageio-ffmpeg
            _error(str(exc))
            return EXIT_USAGE
        renderer = FrameRenderer(built, args.width, args.height)

    csv_times = sample_times(args.until, args.dt)
    frame_times = sample_times(args.until, 1.0 / args.fps) if writer is not None else []
    csv_set = {round(t, 12) for t in csv_times}
    frame_set = {round(t, 12) for t in frame_times}
    progress = Progress("simulating", args.until)
    rows = unflushed = 0
    last_flush = _time.monotonic()
    try:
        with interruptible(), _open_csv(args.csv) as f:
            out = csv.writer(f)
            out.writerow(csv_header(built))
            f.flush()

            def flush_now() -> None:
                """Rows written since the last flush reach the file once FLUSH_SECONDS have
                passed since it, even while no new sample comes (a slow or stiff run)."""
                nonlocal last_flush, unflushed
                now = _time.monotonic()
                if unflushed and now - last_flush >= FLUSH_SECONDS:
                    f.flush()
                    last_flush, unflushed = now, 0

            def sample(state) -> None:
                nonlocal rows, unflushed
                key = round(state.getTime(), 12)
                if key in csv_set and recorder is not None:
                    recorder.capture(state)
                if key in csv_set:
                    values = csv_row(built, state)
                    if not all(math.isfinite(v) for v in values):
                        raise SimulationStoppedError(
                            f"non-finite values (NaN or infinity) at t = {state.getTime():.6g} s "
                            "(energies or measures); the model diverged"
                        )
                    out.writerow([repr(float(v)) for v in values])
                    rows += 1
                    unflushed += 1
                    flush_now()
                if key in frame_set and renderer is not None:
                    writer.write(
                        renderer.capture(state.copy(), overlay=f"t = {state.getTime():.2f} s")
                    )

            simulate_to(
                built,
                args.until,
                args.accuracy,
                progress,
                sample,
                _merge_times(csv_times, frame_times),
                on_batch=flush_now,
            )
    except Interrupted as exc:
        progress.finish(progress.last)
        _error(
            f"interrupted by {exc.name}: stopped; the {rows} rows written so far are in {args.csv}"
        )
        if "pytest" not in sys.modules:  # a real process (tests call run_simulate in-process)
            exit_after_signal(128 + exc.signum)
        return 128 + exc.signum
    except SimulationStoppedError as exc:
        progress.finish(progress.last)
        _error(f"the simulation stopped: {exc} (the CSV holds the {rows} samples before that)")
        return EXIT_FAILED
    except SimTKError as exc:
        progress.finish(progress.last)
        _error(f"the simulation failed: {exc} (the CSV holds the samples before the failure)")
        return EXIT_FAILED
    except OSError as exc:
        _error(f"cannot write: {exc}")
        return EXIT_FAILED
    except Exception as exc:  # noqa: BLE001  (a message, never a traceback)
        progress.finish(progress.last)
        signum = getattr(interruptible, "received", None)
        if signum is not None:
            _error(
                f"interrupted by {signal.Signals(signum).name}: stopped; the {rows} rows "
                f"written so far are in {args.csv}"
            )
            if "pytest" not in sys.modules:
                exit_after_signal(128 + signum)
            return 128 + signum
        _error(
            f"the simulation failed: {type(exc).__name__}: {exc} (the CSV holds the {rows} "
            "samples before the failure)"
        )
        return EXIT_FAILED
    finally:
        if writer is not None:
            writer.close()
        if renderer is not None:
            renderer.close()
        if recorder is not None:
            recorder.save(args.record)  # what was recorded before a failure is kept too
    if recorder is not None and recorder.problem:
        _error(recorder.problem)
        return EXIT_FAILED
    progress.finish(args.until)
    done = f"{PROG}: {rows} rows to {args.csv}" if args.csv is not None else f"{PROG}: done"
    if recorder is not None:
        done += f", {recorder.count} recorded States to {args.record}"
    if writer is not None:
        done += f", {writer.count} frames to {writer.path}"
    print(done, file=sys.stderr)
    return 0


register_command(
    "render",
    "simulate a model to a time and render it to a PNG (no display needed)",
    configure_render,
    run_render,
)
register_command(
    "simulate",
    "simulate a model headless, writing a CSV (and optionally a video)",
    configure_simulate,
    run_simulate,
)
