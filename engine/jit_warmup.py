"""warm_jit(): compile (or load from numba's on-disk cache) every multibody kernel.

The numba kernels are compiled on their first call and cached on disk (``cache=True``).
``warm_jit`` makes those first calls on a tiny model that holds one body of every
built-in mobilizer type, realized with quaternions and with Euler angles, and calls
each matter operator once, so that a later program (the studio, the tests) finds the
cache warm and does not pause to compile. With a warm cache it takes about as long as
loading the cached machine code (a second or two). A cache made from other sources (after
an update or an edit) is deleted first (``forget_stale_kernels``), because numba would
keep a kernel whose callee in another file changed.

The work is split into ``TASKS``, each naming the tasks whose kernels it calls
(``after``). Several processes can share it (``warm_jit(team=directory)``, one per core,
as the set-up runs it): a task starts once those it comes after are finished, so each
kernel is compiled by one process and loaded from the cache by the others. numba compiles
a kernel separately for each distinct set of argument types, and a literal constant
(``False``, a module-level int) passed from one kernel to another is a type of its own:
callers pass run-time values (``np.int64(...)``, ``np.bool_(...)``) and arrays of the
same layout and writability, so that one machine code serves them all.

Operators the engine does not provide (yet) are skipped; an operator that fails is
reported in the returned summary instead of aborting, so that setting up a checkout never
fails because one operator is broken (the tests are where that shows).
"""

from __future__ import annotations

import fcntl
import hashlib
import math
import os
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np

#: the engine package, whose kernels numba caches beside their sources
ENGINE_ROOT = Path(__file__).resolve().parent

#: where forget_stale_kernels keeps the fingerprint of the sources the cache was made from
_STAMP = Path("__pycache__") / "numba_sources.sha256"

#: Constructor arguments after X_BM that a type requires.
_EXTRA_ARGS = {"Screw": (0.1,), "Ellipsoid": ((0.5, 0.4, 0.3),)}


def _mobilizer_modules():
    from engine.multibody.mobilizers.dispatch import MOBILIZER_MODULES

    return MOBILIZER_MODULES.values()


def _tiny_model():
    """A chain with one body of every built-in mobilizer type, under gravity."""
    from engine.forces.force import Force
    from engine.forces.general_force_subsystem import GeneralForceSubsystem
    from engine.math.coordinate_axis import YAxis
    from engine.math.inertia import Inertia
    from engine.math.mass_properties import MassProperties
    from engine.math.transform import Transform
    from engine.math.vec import Vec3
    from engine.multibody.body import Body
    from engine.multibody.mobilized_body import MobilizedBody
    from engine.multibody.mobilizers.dispatch import MOBILIZER_MODULES
    from engine.multibody.multibody_system import MultibodySystem
    from engine.multibody.simbody_matter_subsystem import SimbodyMatterSubsystem

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0.1, -0.4, 0.05), Inertia(0.2, 0.1, 0.15)))
    parent = matter.Ground()
    names = []
    for module in MOBILIZER_MODULES.values():
        constructor = getattr(MobilizedBody, module.NAME)
        extra = _EXTRA_ARGS.get(module.NAME, ())
        parent = constructor(parent, Transform(Vec3(0.1, -1.0, 0.0)), body, Transform(), *extra)
        names.append(module.NAME)
    return system, matter, names


def _operators(matter, state, nu: int, nb: int) -> list[tuple[str, Callable[[], object]]]:
    """(name, call) for every matter operator that runs a kernel."""
    rng = np.random.default_rng(1)
    v = rng.standard_normal(nu)
    F = rng.standard_normal((nb, 2, 3))
    nq = state.getNQ()
    qv = rng.standard_normal(nq)
    tasks, stations = [nb - 1, 1], rng.standard_normal((2, 3))

    def call(name: str, *args):
        method = getattr(matter, name, None)
        return None if method is None else (lambda: method(state, *args))

    candidates = [
        ("calcM", call("calcM")),
        ("calcMInv", call("calcMInv")),
        ("multiplyByM", call("multiplyByM", v)),
        ("multiplyByMInv", call("multiplyByMInv", v)),
        ("calcCompositeBodyInertias", call("calcCompositeBodyInertias")),
        ("multiplyBySystemJacobian", call("multiplyBySystemJacobian", v)),
        ("multiplyBySystemJacobianTranspose", call("multiplyBySystemJacobianTranspose", F)),
        ("calcSystemJacobian", call("calcSystemJacobian")),
        ("multiplyByN", call("multiplyByN", False, v)),
        ("multiplyByNTranspose", call("multiplyByN", True, qv)),
        ("multiplyByNInv", call("multiplyByNInv", False, qv)),
        ("multiplyByNDot", call("multiplyByNDot", False, v)),
        ("calcQDotDot", call("calcQDotDot", v)),
        (
            "calcResidualForceIgnoringConstraints",
            call("calcResidualForceIgnoringConstraints", v, F, v),
        ),
        ("calcAccelerationIgnoringConstraints", call("calcAccelerationIgnoringConstraints", v, F)),
        ("calcResidualForce", call("calcResidualForce", v, F, v, np.zeros(0))),
        ("calcBodyAccelerationFromUDot", call("calcBodyAccelerationFromUDot", v)),
        ("calcTreeEquivalentMobilityForces", call("calcTreeEquivalentMobilityForces", F)),
        ("calcMobilizerReactionForces", call("calcMobilizerReactionForces")),
        ("calcSystemMassPropertiesInGround", call("calcSystemMassPropertiesInGround")),
        (
            "calcMobilizerReactionForcesUsingFreebodyMethod",
            call("calcMobilizerReactionForcesUsingFreebodyMethod"),
        ),
        ("calcSystemMomentumAboutGroundOrigin", call("calcSystemMomentumAboutGroundOrigin")),
        (
            "calcSystemMassCenterAccelerationInGround",
            call("calcSystemMassCenterAccelerationInGround"),
        ),
        ("calcStationJacobian", call("calcStationJacobian", tasks, stations)),
        ("multiplyByStationJacobian", call("multiplyByStationJacobian", tasks, stations, v)),
        (
            "multiplyByFrameJacobianTranspose",
            call("multiplyByFrameJacobianTranspose", tasks, stations, F[:2]),
        ),
        ("calcBiasForFrameJacobian", call("calcBiasForFrameJacobian", tasks, stations)),
    ]
    return [(name, fn) for name, fn in candidates if fn is not None]


def sources_fingerprint(root: Path) -> str:
    """sha256 over the path and bytes of every ``.py`` file under ``root``."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def forget_stale_kernels(root: Path = ENGINE_ROOT) -> int:
    """Delete numba's cached machine code (``*.nbi``, ``*.nbc``) under ``root`` if any
    source file there changed since the cache was made; returns how many files went.

    numba checks a cached kernel against its own file only: a kernel whose callee in
    another file changed (an update of mbstudio, a local edit) would otherwise keep
    running the old callee's code."""
    fingerprint = sources_fingerprint(root)
    stamp = root / _STAMP
    if stamp.is_file() and stamp.read_text().strip() == fingerprint:
        return 0
    removed = 0
    try:
        for pattern in ("*.nbi", "*.nbc"):
            for path in root.rglob(pattern):
                path.unlink(missing_ok=True)
                removed += 1
        stamp.parent.mkdir(exist_ok=True)
        stamp.write_text(fingerprint + "\n")
    except OSError:  # a read-only installation: numba cannot cache there either
        pass
    return removed


@dataclass(frozen=True)
class WarmTask:
    """One piece of the warm-up: ``run(done, failed)`` calls the engine so that numba
    compiles (or loads) some kernels, appending what it exercised to ``done`` and failures
    to ``failed``. ``after`` names the tasks that compile kernels it calls as well (with
    the same argument types): in a team warm-up it starts only once they have finished,
    so that it loads their machine code from the cache instead of compiling it again."""

    name: str
    run: Callable[[list, dict], None]
    after: tuple[str, ...] = ()


def warm_jit(tasks: Iterable[str] | None = None, team: str | os.PathLike | None = None) -> dict:
    """Compile or load every kernel (the ``TASKS``, or those named in ``tasks``), after
    forgetting a cache made from other sources (``forget_stale_kernels``); returns
    ``{"mobilizers": [...], "operators": [...], "failed": {operator: message}, "tasks":
    {task: seconds}}`` describing what was exercised (by this process).

    ``team``: a directory that several processes running ``warm_jit(team=...)`` at once
    share (the set-up runs one per core): each takes the next task whose ``after`` tasks
    have finished and that no other has taken, so that each kernel is compiled once, by
    one of them, and the work is spread over all of them."""
    chosen = list(TASKS)
    if tasks is not None:
        wanted = set(tasks)
        unknown = wanted - {task.name for task in TASKS}
        if unknown:
            raise ValueError(f"warm_jit: no such task(s) {sorted(unknown)}")
        chosen = [task for task in TASKS if task.name in wanted]
    done: list[str] = []
    failed: dict[str, str] = {}
    seconds: dict[str, float] = {}

    def run(task: WarmTask) -> None:
        start = time.perf_counter()
        try:
            task.run(done, failed)
        except Exception as exc:  # noqa: BLE001  (summarised, see module docstring)
            failed[task.name] = f"{type(exc).__name__}: {exc}"
        seconds[task.name] = time.perf_counter() - start

    if team is None:
        forget_stale_kernels()
        for task in chosen:
            run(task)
    else:
        _work_in_team(Path(team), chosen, run)
    names = [module.NAME for module in _mobilizer_modules()]
    return {"mobilizers": names, "operators": done, "failed": failed, "tasks": seconds}


def _work_in_team(team: Path, tasks: list[WarmTask], run: Callable[[WarmTask], None]) -> None:
    """Run, one at a time, the tasks this process takes in ``team`` (see ``warm_jit``):
    the first in ``tasks`` order whose ``after`` tasks are finished and that no other
    process has taken (``<task>.taken``, made exclusively, holds the taker's pid;
    ``<task>.finished`` is written when it is done). A task whose taker died counts as
    finished (its callees are then compiled by whoever needs them)."""
    team.mkdir(parents=True, exist_ok=True)
    with open(team / "forget.lock", "w") as lock:  # one process forgets a stale cache
        fcntl.flock(lock, fcntl.LOCK_EX)
        forget_stale_kernels()
    known = {task.name for task in TASKS}
    pending = list(tasks)
    while pending:
        ready = [
            task
            for task in pending
            if all(_finished(team, name) for name in task.after if name in known)
        ]
        if not ready:
            time.sleep(_TEAM_POLL)
            continue
        for task in ready:
            pending.remove(task)
            if _take(team, task.name):
                try:
                    run(task)
                finally:
                    _file(team, task.name, "finished").write_text("")
                break


#: seconds between looks at the team directory while every task left waits for another
_TEAM_POLL = 0.05


def _file(team: Path, task: str, kind: str) -> Path:
    return team / (re.sub(r"[^A-Za-z0-9]+", "_", task) + "." + kind)


def _take(team: Path, task: str) -> bool:
    """Take ``task`` for this process; False if another one already has."""
    try:
        fd = os.open(_file(team, task, "taken"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as handle:
        handle.write(str(os.getpid()))
    return True


def _finished(team: Path, task: str) -> bool:
    """Whether ``task`` is finished, or was taken by a process that has died since."""
    if _file(team, task, "finished").exists():
        return True
    try:
        pid = int(_file(team, task, "taken").read_text())
    except (OSError, ValueError):  # not taken yet, or its pid not written yet
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    try:  # a zombie (exited, not yet reaped by the set-up) is dead too
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except (OSError, IndexError):
        return False


def _moved_state(system, matter, use_euler: bool):
    """A State of the tiny model with every q and u moved off zero (seeded)."""
    state = system.realizeTopology()
    matter.setUseEulerAngles(state, use_euler)
    system.realizeModel(state)
    rng = np.random.default_rng(0)
    state.updQ()[:] += 0.1 * rng.standard_normal(state.getNQ())
    state.updU()[:] = 0.3 * rng.standard_normal(state.getNU())
    return state


def _attempt(name: str, call: Callable[[], object], done: list, failed: dict) -> None:
    """Run ``call``; record ``name`` as done or its failure (see the module docstring)."""
    try:
        call()
    except Exception as exc:  # noqa: BLE001  (summarised, see module docstring)
        failed[name] = f"{type(exc).__name__}: {exc}"
    else:
        if name not in done:
            done.append(name)


def _warm_fused(done: list, failed: dict) -> None:
    """The fused one-call realization, with quaternions and with Euler angles."""
    from engine.common.stage import Stage

    system, matter, _ = _tiny_model()
    for use_euler in (False, True):
        state = _moved_state(system, matter, use_euler)
        system.realize(state, Stage.Report)  # Position..Acceleration in one fused kernel


def _warm_prescribed(done: list, failed: dict) -> None:
    """Prescribed motion: the hybrid free/prescribed articulated-body kernels (a lock)."""
    from engine.common.stage import Stage

    system, matter, _ = _tiny_model()
    state = system.realizeTopology()
    system.realizeModel(state)
    matter.getMobilizedBody(1).lock(state)

    def prescribed() -> None:
        system.realize(state, Stage.Acceleration)
        matter.multiplyByMInv(state, np.ones(state.getNU()))

    _attempt("prescribed motion", prescribed, done, failed)


def _integrator_steps(name: str, integrator_class: str, one_step_per_call: bool):
    """A task: a few steps of the tiny model with ``integrator_class`` (a name in
    engine.integrators), all in one stepping-kernel call where the integrator has one, or
    one step per call."""

    def task(done: list, failed: dict) -> None:
        from engine.integrators.runge_kutta_feldberg import RungeKuttaFeldbergIntegrator
        from engine.integrators.runge_kutta_merson import RungeKuttaMersonIntegrator
        from engine.integrators.time_stepper import TimeStepper

        classes = {
            "RungeKuttaMerson": RungeKuttaMersonIntegrator,
            "RungeKuttaFeldberg": RungeKuttaFeldbergIntegrator,
        }
        system, _, _ = _tiny_model()

        def steps() -> None:
            integrator = classes[integrator_class](system)
            integrator.setAccuracy(1e-3)
            integrator.setReturnEveryInternalStep(one_step_per_call)
            stepper = TimeStepper(system, integrator)
            stepper.initialize(system.realizeTopology())
            stepper.stepTo(0.01)

        _attempt(name, steps, done, failed)

    return task


def _contact_model(shapes, track: bool = False):
    """A System of free bodies over a floor half space (normal +y), one body per contact
    geometry in ``shapes`` (made by ``ContactGeometry``), each resting 1 mm deep, with
    gravity, a ContactTrackerSubsystem and a CompliantContactSubsystem (tracking the
    dissipated energy, a z, if ``track``)."""
    from engine.contact.compliant_contact_subsystem import CompliantContactSubsystem
    from engine.contact.contact_geometry import ContactGeometry
    from engine.contact.contact_material import ContactMaterial
    from engine.contact.contact_surface import ContactSurface
    from engine.contact.contact_tracker_subsystem import ContactTrackerSubsystem
    from engine.forces.force import Force
    from engine.forces.general_force_subsystem import GeneralForceSubsystem
    from engine.math.inertia import Inertia
    from engine.math.mass_properties import MassProperties
    from engine.math.rotation import Rotation
    from engine.math.transform import Transform
    from engine.multibody.body import Body
    from engine.multibody.mobilized_body import MobilizedBody
    from engine.multibody.multibody_system import MultibodySystem
    from engine.multibody.simbody_matter_subsystem import SimbodyMatterSubsystem

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0.0, -9.81, 0.0))
    ccs = CompliantContactSubsystem(system, ContactTrackerSubsystem(system))
    ccs.setTrackDissipatedEnergy(track)
    material = ContactMaterial(1e6, 0.5, 0.6, 0.4, 0.1)
    floor = ContactSurface(ContactGeometry.HalfSpace(), material)
    matter.Ground().updBody().addContactSurface(Transform(Rotation(-math.pi / 2, 2)), floor)
    bodies = []
    for k, geometry in enumerate(shapes):
        body = Body.Rigid(MassProperties(1.0, (0.0, 0.0, 0.0), Inertia(0.01)))
        body.addContactSurface(Transform(), ContactSurface(geometry, material))
        bodies.append((MobilizedBody.Free(matter.Ground(), body), 0.3 * k, geometry))
    state = system.realizeTopology()
    for mobod, x, geometry in bodies:
        low = {
            "Sphere": lambda g: g.getRadius(),
            "Ellipsoid": lambda g: g.getRadii()[1],
            "TriangleMesh": lambda g: -float(g.vertices()[:, 1].min()),
        }
        height = low.get(geometry.getTypeName(), lambda g: g.getHalfLengths()[1])(geometry)
        mobod.setQToFitTranslation(state, (x, height - 0.001, 0.0))
    return system, state


def _box_mesh(half: float):
    """A ContactGeometry.TriangleMesh cube of half side ``half`` (12 faces)."""
    from engine.contact.contact_geometry import ContactGeometry

    corners = [(x, y, z) for x in (-half, half) for y in (-half, half) for z in (-half, half)]
    faces = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1)]
    faces += [(2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
    return ContactGeometry.TriangleMesh(corners, faces)


def _warm_contact(done: list, failed: dict) -> None:
    """Compliant contact: realization and RungeKuttaMerson steps of spheres on a floor and
    against each other, and of an ellipsoid and a brick on it (the shapes of the contact
    examples), of spheres with the dissipated energy tracked (y = [q, u, z]), and of two
    mesh cubes and a sphere (the mesh kernels: half space-mesh, sphere-mesh, mesh-mesh)."""
    from engine.common.stage import Stage
    from engine.contact.contact_geometry import ContactGeometry
    from engine.integrators.runge_kutta_merson import RungeKuttaMersonIntegrator
    from engine.integrators.time_stepper import TimeStepper

    models = {
        "contact: spheres": lambda: (
            ContactGeometry.Sphere(0.1),
            ContactGeometry.Sphere(0.1),
            ContactGeometry.Sphere(0.2),
        ),
        "contact: ellipsoid and brick": lambda: (
            ContactGeometry.Ellipsoid((0.1, 0.05, 0.08)),
            ContactGeometry.Brick((0.1, 0.05, 0.1)),
            ContactGeometry.Sphere(0.05),  # a Sphere-Ellipsoid pair: the implicit-pair kernel
        ),
        "contact: spheres, dissipated energy tracked": lambda: (
            ContactGeometry.Sphere(0.1),
            ContactGeometry.Sphere(0.2),
        ),
        "contact: mesh": lambda: (
            _box_mesh(0.05),
            ContactGeometry.Sphere(0.05),
            _box_mesh(0.04),  # mesh-mesh pairs: the mesh-mesh kernel, compiled at first call
        ),
    }
    from engine.contact.broad_phase import sweep_and_prune_array

    centers = np.random.default_rng(2).standard_normal((4, 3))
    sweep = partial(sweep_and_prune_array, centers, np.ones(4))
    _attempt("contact: broad phase", sweep, done, failed)
    for name, shapes in models.items():

        def steps(shapes=shapes, track="tracked" in name) -> None:
            system, state = _contact_model(shapes(), track)
            system.realize(state, Stage.Acceleration)
            integrator = RungeKuttaMersonIntegrator(system)
            integrator.setAccuracy(1e-3)
            stepper = TimeStepper(system, integrator)
            stepper.initialize(state)
            stepper.stepTo(0.01)

        _attempt(name, steps, done, failed)
    from engine.contact.general_contact_warmup import warm_hunt_crossley

    _attempt("contact: HuntCrossleyForce", warm_hunt_crossley, done, failed)


def _stage_by_stage_states(system, matter):
    """The tiny model realized stage by stage (the fused call switched off), with
    quaternions and with Euler angles: yields each State realized through Report."""
    from engine.common.stage import Stage

    fused, system._fused_realization = system._fused_realization, None
    try:
        for use_euler in (False, True):
            state = _moved_state(system, matter, use_euler)
            system.realize(state, Stage.Report)
            yield state
    finally:
        system._fused_realization = fused


def _warm_stages(done: list, failed: dict) -> None:
    """The stage-by-stage kernels (the fused call cannot replace them everywhere)."""
    system, matter, _ = _tiny_model()
    for _ in _stage_by_stage_states(system, matter):
        pass


def _warm_operators(done: list, failed: dict) -> None:
    """Every matter operator on States realized stage by stage."""
    system, matter, _ = _tiny_model()
    for state in _stage_by_stage_states(system, matter):
        nu, nb = state.getNU(), matter.getNumBodies()
        for name, fn in _operators(matter, state, nu, nb):
            _attempt(name, fn, done, failed)
        scale = partial(system._scaleDQ, state, np.ones(nu), np.ones(state.getNQ()))
        _attempt("scaleDQ", scale, done, failed)  # the integrators' q error scaling


def _warm_ensemble(done: list, failed: dict) -> None:
    """The ensemble kernels (engine.integrators.ensemble): stepping, dense output, a pass
    through many report times."""
    from engine.integrators.ensemble import EnsembleIntegrator

    system, _, _ = _tiny_model()

    def ensemble() -> None:
        start = system.realizeTopology()
        ensemble = EnsembleIntegrator(system, [start, start], accuracy=1e-3, interpolate=True)
        ensemble.advanceTo(0.005)
        ensemble.advanceThrough([0.01])
        ensemble.getAdvancedY()

    _attempt("ensemble", ensemble, done, failed)


def _warm_constraints(done: list, failed: dict) -> None:
    """The compiled constraints (engine.multibody.kernels.constraint_kernels): a Rod, a
    Ball, a Weld, a PointInPlane and a ConstantAngle realized fused and stage by stage, P
    for the projection, and RungeKuttaMerson steps of a double pendulum with a Rod (the
    constrained stepping kernel, merson_compiled.constrained_steps, with the compiled
    projection, engine.multibody.kernels.constraint_projection)."""
    from engine.common.stage import Stage
    from engine.forces.force import Force
    from engine.forces.general_force_subsystem import GeneralForceSubsystem
    from engine.integrators.runge_kutta_merson import RungeKuttaMersonIntegrator
    from engine.integrators.time_stepper import TimeStepper
    from engine.math.coordinate_axis import YAxis
    from engine.math.inertia import Inertia
    from engine.math.mass_properties import MassProperties
    from engine.math.transform import Transform
    from engine.math.vec import Vec3
    from engine.multibody.body import Body
    from engine.multibody.constraints import Constraint
    from engine.multibody.mobilized_body import MobilizedBody
    from engine.multibody.multibody_system import MultibodySystem
    from engine.multibody.simbody_matter_subsystem import SimbodyMatterSubsystem

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    Force.Gravity(GeneralForceSubsystem(system), matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0, -0.5, 0), Inertia(1)))
    g = matter.Ground()
    upper = MobilizedBody.Pin(g, Transform(), body, Transform())
    lower = MobilizedBody.Pin(upper, Transform(Vec3(0, -1, 0)), body, Transform())
    Constraint.Rod(upper, Vec3(0), lower, Vec3(0), 1.0)
    ball = MobilizedBody.Ball(g, Transform(Vec3(2, 0, 0)), body, Transform())
    free = MobilizedBody.Free(g, Transform(Vec3(2, -1, 0)), body, Transform())
    Constraint.Ball(ball, Vec3(0, -1, 0), free, Vec3(0))
    Constraint.PointInPlane(g, Vec3(0, 0, 1), 0.0, free, Vec3(0, -0.5, 0))
    Constraint.ConstantAngle(ball, Vec3(1, 0, 0), free, Vec3(0, 1, 0))
    welded = MobilizedBody.Free(g, Transform(Vec3(-2, 0, 0)), body, Transform())
    Constraint.Weld(g, Transform(Vec3(-2, 0, 0)), welded, Transform())

    def realize() -> None:
        for fused in (system._fused_realization, None):
            saved, system._fused_realization = system._fused_realization, fused
            try:
                state = system.realizeTopology()
                system.realize(state, Stage.Acceleration)
                matter.calcPq(state)
            finally:
                system._fused_realization = saved
        # the projections' minimum-norm solve beyond LARGE_M rows, called from Python
        # (matter.projection) with an interrupt request's address
        from engine.multibody.kernels.constraint_projection import min_norm_solve

        min_norm_solve(np.ones((1, 2)), np.ones(1), np.empty(2), 0)

    _attempt("constraints", realize, done, failed)

    def steps() -> None:
        system = MultibodySystem()
        matter = SimbodyMatterSubsystem(system)
        Force.Gravity(GeneralForceSubsystem(system), matter, -YAxis, 9.81)
        upper = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform())
        lower = MobilizedBody.Pin(upper, Transform(Vec3(0, -1, 0)), body, Transform())
        Constraint.Rod(upper, Vec3(0), lower, Vec3(0), 1.0)
        state = system.realizeTopology()
        upper.setOneQ(state, 0, 0.5)
        integrator = RungeKuttaMersonIntegrator(system)
        integrator.setAccuracy(1e-3)
        stepper = TimeStepper(system, integrator)
        stepper.initialize(state)
        stepper.stepTo(0.01)

    _attempt("constraints: RungeKuttaMerson steps", steps, done, failed)


#: The warm-up's tasks, in the order a process takes them (in a team, the first whose
#: ``after`` tasks have finished): the longest chain first (the fused realization, the
#: Merson stepping kernel that calls it, the ensemble kernel that calls that), and beside
#: it the stage-by-stage kernels and everything that only they lead to. A new kernel
#: goes into the task that first calls it (or a new task, ``after`` the tasks whose
#: kernels it calls), called with the argument types its users pass.
TASKS: tuple[WarmTask, ...] = (
    WarmTask("fused realization", _warm_fused),
    WarmTask("stage-by-stage realization", _warm_stages),
    WarmTask(
        "RungeKuttaMerson steps",
        _integrator_steps("RungeKuttaMerson steps", "RungeKuttaMerson", False),
        after=("fused realization",),
    ),
    # the constrained stepping kernels (the longest task) start as soon as the fused
    # realization they call is compiled, beside the Merson steps; the operators wait for the
    # fused realization too, so that the process done with the stage kernels takes the
    # constraints first rather than after the operators
    WarmTask(
        "constraints",
        _warm_constraints,
        after=("fused realization", "stage-by-stage realization"),
    ),
    WarmTask(
        "operators",
        _warm_operators,
        after=("stage-by-stage realization", "fused realization"),
    ),
    WarmTask("prescribed motion", _warm_prescribed, after=("operators",)),
    WarmTask("ensemble", _warm_ensemble, after=("RungeKuttaMerson steps",)),
    WarmTask(
        "RungeKuttaMerson single steps",
        _integrator_steps("RungeKuttaMerson single steps", "RungeKuttaMerson", True),
        after=("RungeKuttaMerson steps",),
    ),
    WarmTask(
        "RungeKuttaFeldberg steps",
        _integrator_steps("RungeKuttaFeldberg steps", "RungeKuttaFeldberg", False),
        after=("RungeKuttaMerson steps",),
    ),
    WarmTask("contact", _warm_contact, after=("RungeKuttaMerson steps",)),
)
