"""warm_jit(): compile (or load from numba's on-disk cache) every multibody kernel.

The numba kernels are compiled on their first call and cached on disk (``cache=True``).
``warm_jit`` makes those first calls on a tiny model that holds one body of every
built-in mobilizer type, realized with quaternions and with Euler angles, and calls
each matter operator once, so that a later program (the studio, the tests) finds the
cache warm and does not pause to compile. With a warm cache it takes about as long as
loading the cached machine code (a second or two). A cache made from other sources (after
an update or an edit) is deleted first (``forget_stale_kernels``), because numba would
keep a kernel whose callee in another file changed.

Operators the engine does not provide (yet) are skipped; an operator that fails is
reported in the returned summary instead of aborting, so that setting up a checkout never
fails because one operator is broken (the tests are where that shows).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from pathlib import Path

import numpy as np

#: the engine package, whose kernels numba caches beside their sources
ENGINE_ROOT = Path(__file__).resolve().parent

#: where forget_stale_kernels keeps the fingerprint of the sources the cache was made from
_STAMP = Path("__pycache__") / "numba_sources.sha256"

#: Constructor arguments after X_BM that a type requires.
_EXTRA_ARGS = {"Screw": (0.1,), "Ellipsoid": ((0.5, 0.4, 0.3),)}


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


#: warm_jit's parts: separate processes can run them at once (the set-up runs one process per
#: part); each compiles different kernels, so together they take about half the time
PARTS = ("realization", "operators")


def warm_jit(part: str | None = None) -> dict:
    """Compile or load every kernel (or those of one of ``PARTS``), after forgetting a cache
    made from other sources (``forget_stale_kernels``); returns ``{"mobilizers": [...],
    "operators": [...], "failed": {operator: message}}`` describing what was exercised.

    "realization": the fused one-call realization (with quaternions and with Euler angles),
    prescribed motion, the single-run integrators and compliant contact; "operators": the
    stage-by-stage kernels, every matter operator and the ensemble integrator."""
    if part is not None and part not in PARTS:
        raise ValueError(f"warm_jit: part must be one of {PARTS} or None, got {part!r}")
    forget_stale_kernels()
    system, matter, names = _tiny_model()
    done: list[str] = []
    failed: dict[str, str] = {}
    if part in (None, "realization"):
        _warm_realization(system, matter, done, failed)
        _warm_contact(done, failed)
        _warm_constraints(done, failed)
    if part in (None, "operators"):
        _warm_operators(system, matter, done, failed)
    return {"mobilizers": names, "operators": done, "failed": failed}


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


def _warm_realization(system, matter, done: list, failed: dict) -> None:
    """The fused one-call realization, prescribed motion and the single-run integrators."""
    from engine.common.stage import Stage

    for use_euler in (False, True):
        state = _moved_state(system, matter, use_euler)
        system.realize(state, Stage.Report)  # Position..Acceleration in one fused kernel
    # prescribed motion: the hybrid free/prescribed articulated-body kernels (a lock)
    state = system.realizeTopology()
    system.realizeModel(state)
    matter.getMobilizedBody(1).lock(state)

    def prescribed() -> None:
        system.realize(state, Stage.Acceleration)
        matter.multiplyByMInv(state, np.ones(state.getNU()))

    _attempt("prescribed motion", prescribed, done, failed)
    # the integrators' kernels: a few RungeKuttaMerson steps, in one stepping-kernel call
    # and then one step per call (its compiled attempts: trial stages, error norm and
    # quaternion projection), and a few RungeKuttaFeldberg steps (the same pieces called
    # one by one through the State, as every other integrator does)
    from engine.integrators.runge_kutta_feldberg import RungeKuttaFeldbergIntegrator
    from engine.integrators.runge_kutta_merson import RungeKuttaMersonIntegrator
    from engine.integrators.time_stepper import TimeStepper

    for name, integrator_class, one_step_per_call in (
        ("RungeKuttaMerson steps", RungeKuttaMersonIntegrator, False),
        ("RungeKuttaMerson single steps", RungeKuttaMersonIntegrator, True),
        ("RungeKuttaFeldberg steps", RungeKuttaFeldbergIntegrator, False),
    ):

        def steps(integrator_class=integrator_class, one_step_per_call=one_step_per_call):
            integrator = integrator_class(system)
            integrator.setAccuracy(1e-3)
            integrator.setReturnEveryInternalStep(one_step_per_call)
            stepper = TimeStepper(system, integrator)
            stepper.initialize(system.realizeTopology())
            stepper.stepTo(0.01)

        _attempt(name, steps, done, failed)


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
        low = {"Sphere": lambda g: g.getRadius(), "Ellipsoid": lambda g: g.getRadii()[1]}
        height = low.get(geometry.getTypeName(), lambda g: g.getHalfLengths()[1])(geometry)
        mobod.setQToFitTranslation(state, (x, height - 0.001, 0.0))
    return system, state


def _warm_contact(done: list, failed: dict) -> None:
    """Compliant contact: realization and RungeKuttaMerson steps of spheres on a floor and
    against each other, and of an ellipsoid and a brick on it (the shapes of the contact
    examples), and of spheres with the dissipated energy tracked (y = [q, u, z])."""
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
    }
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


def _warm_operators(system, matter, done: list, failed: dict) -> None:
    """The stage-by-stage kernels (the fused call cannot replace them everywhere), every
    matter operator on States realized that way, and the ensemble integrator."""
    from engine.common.stage import Stage

    fused, system._fused_realization = system._fused_realization, None
    try:
        for use_euler in (False, True):
            state = _moved_state(system, matter, use_euler)
            system.realize(state, Stage.Report)
            nu, nb = state.getNU(), matter.getNumBodies()
            for name, fn in _operators(matter, state, nu, nb):
                _attempt(name, fn, done, failed)
    finally:
        system._fused_realization = fused
    # the ensemble kernels (engine.integrators.ensemble): stepping, dense output, a pass
    # through many report times
    from engine.integrators.ensemble import EnsembleIntegrator

    def ensemble() -> None:
        start = system.realizeTopology()
        ensemble = EnsembleIntegrator(system, [start, start], accuracy=1e-3, interpolate=True)
        ensemble.advanceTo(0.005)
        ensemble.advanceThrough([0.01])

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
