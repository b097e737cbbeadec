"""Compliant contact speed: realize Dynamics with N spheres resting in a box, and the
ball-drop trajectory of ../shared/reference/contact.json.

Run: ``.venv/bin/python benchmarks/bench_contact.py [--sizes 100,1000] [--repeats 20]``

* ``box N``: N free spheres (radius 5 cm) on a square grid, each resting 1 mm deep in the
  floor of a box of five half spaces (floor and four walls), neighbours 1 mm apart (so the
  broad phase sees every neighbour pair without a contact); the time of one
  ``realize(state, Stage.Dynamics)`` after a change of q (contact detection, force laws,
  body forces), in milliseconds, and the ratio of the largest size to the smallest;
* ``ball_drop``: the reference model's accuracy-1e-8 run (RungeKuttaMerson, 2 s, no
  interpolation, stepTo every 25 ms), process CPU seconds (best of ``--repeats-ball-drop``
  runs after a first one that loads the compiled kernels) and the steps taken.

* ``HuntCrossley box N``: the same box and spheres as one GeneralContactSubsystem contact
  set with a HuntCrossleyForce, the same timing;
* ``hunt_crossley_drop``: the same ball drop with the reference model's surfaces as one
  GeneralContactSubsystem contact set and a HuntCrossleyForce (each surface's material as
  its ``setBodyParameters``), the same run, against Simbody 3.7 Release doing the same.

* ``examples``: CPU seconds per simulated second of the contact examples (bouncing balls,
  Newton's cradle, sliding to rolling, ragdoll; RungeKuttaMerson accuracy 1e-3, a report
  every 1/60 s, over ``--sim-time`` seconds), and of the ragdoll without its clique
  (``ragdoll_no_clique``: its limbs' ellipsoids and its head sphere then touch each other,
  Ellipsoid-Ellipsoid and Sphere-Ellipsoid contacts at the joints).

* ``mesh_drop``: a 192-face mesh cube dropped onto the floor and a Sphere onto a fixed
  192-face mesh slab (HalfSpace-TriangleMesh, Sphere-TriangleMesh: ElasticFoundation), one
  realization to Dynamics in ms once landed, and CPU seconds per simulated second over
  ``--sim-time`` seconds (RungeKuttaMerson accuracy 1e-3, a report every 1/60 s).

* ``elastic_foundation_cube``: the 192-face mesh cube of ``mesh_drop`` (1 kg) on the floor
  half space, as one GeneralContactSubsystem contact set with an ElasticFoundationForce
  (stiffness 1e8 N/m^3, dissipation, friction), tilted, pressed in and sliding: one
  realization to Dynamics after a change of q, in microseconds, fused and stage by stage in
  the same process (the two alternate, best of ``--repeats`` each).

* ``elastic_foundation_cubes``: the same measure for that cube (its springs as above)
  slightly tilted and pressed 3 mm into a 192-face 0.2 m mesh cube fixed to Ground (no
  springs): the element's mesh-mesh springs.

``--stage-by-stage`` runs everything with the fused one-call realization switched off (the
path every contact model took before contact was in the fused kernel), for comparison.
The ball drop against Simbody 3.7 Release is ``simbody_contact_bench.cpp``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import (  # noqa: E402
    Body,
    CompliantContactSubsystem,
    ContactGeometry,
    ContactMaterial,
    ContactSurface,
    ContactTrackerSubsystem,
    ElasticFoundationForce,
    Force,
    GeneralContactSubsystem,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    TimeStepper,
    Transform,
)

RADIUS = 0.05


def box_of_spheres(count: int):
    """(system, state, tracker, ccs) with ``count`` spheres resting in a box."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    material = ContactMaterial(1e6, 0.5, 0.6, 0.4, 0.0)
    side = math.ceil(math.sqrt(count))
    pitch = 2 * RADIUS + 0.001
    half = side * pitch / 2 + 0.01
    ground = matter.Ground().updBody()
    # outward normal +y (floor), then walls facing inward along +-x and +-z
    walls = [
        Transform(Rotation(-math.pi / 2, 2)),
        Transform(Rotation(math.pi, 2), (-half, 0, 0)),
        Transform(Rotation(0.0, 2), (half, 0, 0)),
        Transform(Rotation(math.pi / 2, 1), (0, 0, -half)),
        Transform(Rotation(-math.pi / 2, 1), (0, 0, half)),
    ]
    for X in walls:
        ground.addContactSurface(X, ContactSurface(ContactGeometry.HalfSpace(), material))
    balls = []
    body = Body.Rigid(MassProperties(1.0, (0, 0, 0), Inertia(0.4 * RADIUS**2)))
    for _ in range(count):
        ball = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
        ball.updBody().addContactSurface(
            Transform(), ContactSurface(ContactGeometry.Sphere(RADIUS), material)
        )
        balls.append(ball)
    tracker = ContactTrackerSubsystem(system)
    ccs = CompliantContactSubsystem(system, tracker)
    state = system.realizeTopology()
    for k, ball in enumerate(balls):
        i, j = divmod(k, side)
        x = -half + 0.01 + RADIUS + i * pitch
        z = -half + 0.01 + RADIUS + j * pitch
        ball.setQToFitTranslation(state, (x, RADIUS - 0.001, z))
    system.realize(state, Stage.Dynamics)
    assert ccs.getNumContactForces(state) == count  # each sphere on the floor only
    return system, state, tracker, ccs


STAGE_BY_STAGE = False  # --stage-by-stage: the fused realization switched off


def _unfuse(system) -> None:
    if STAGE_BY_STAGE:
        system._fused_realization = None


def time_dynamics(count: int, repeats: int) -> float:
    system, state, _, _ = box_of_spheres(count)
    _unfuse(system)
    best = math.inf
    for _ in range(repeats):
        state.updQ()  # invalidates Position stage
        t0 = time.perf_counter()
        system.realize(state, Stage.Dynamics)
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def time_ball_drop(track: bool = True, repeats: int = 3) -> tuple[float, int, str, float]:
    """(best CPU seconds of ``repeats`` runs, steps, why not compiled steps, CPU seconds of
    the first run) of the reference ball drop, with the dissipated energy tracked (a z, as
    the reference) or not. The first run (untimed in the best) also loads the compiled
    kernels from numba's cache, or compiles them."""
    first = None
    best = math.inf
    for _ in range(1 + repeats):
        cpu, steps, why = _run_ball_drop(track)
        if first is None:
            first = cpu
        else:
            best = min(best, cpu)
    return best, steps, why, first


def _run_ball_drop(track: bool) -> tuple[float, int, str]:
    """(CPU seconds, steps, why not compiled steps) of one ball-drop run."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.engine.contact_models import build_compliant, contact_model

    model = contact_model("ball_drop")
    run = model["runs"][0]
    spec = dict(model["model"])
    spec["contact"] = dict(spec["contact"], track_dissipated_energy=track)
    built = build_compliant(spec)
    _unfuse(built.ref.system)
    integ = RungeKuttaMersonIntegrator(built.ref.system)
    integ.setAccuracy(run["accuracy"])
    integ.setAllowInterpolation(False)
    stepper = TimeStepper(built.ref.system, integ)
    initial = dict(model["initial_state"])
    if not track:
        initial["z"] = []
    state = built.ref.new_state(initial)
    t0 = time.process_time()  # as simbody_contact_bench.cpp: initialize and the steps
    stepper.initialize(state)
    for report in run["reports"][1:]:
        stepper.stepTo(report["t"])
    return time.process_time() - t0, integ.getNumStepsTaken(), integ.whyNotCompiledSteps()


def hunt_crossley_box(count: int):
    """(system, state): ``box_of_spheres``'s box and spheres as one GeneralContactSubsystem
    contact set with a HuntCrossleyForce (the same stiffness, dissipation and friction)."""
    from engine import GeneralContactSubsystem, HuntCrossleyForce

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    gcs = GeneralContactSubsystem(system)
    contact_set = gcs.createContactSet()
    side = math.ceil(math.sqrt(count))
    pitch = 2 * RADIUS + 0.001
    half = side * pitch / 2 + 0.01
    walls = [
        Transform(Rotation(-math.pi / 2, 2)),
        Transform(Rotation(math.pi, 2), (-half, 0, 0)),
        Transform(Rotation(0.0, 2), (half, 0, 0)),
        Transform(Rotation(math.pi / 2, 1), (0, 0, -half)),
        Transform(Rotation(-math.pi / 2, 1), (0, 0, half)),
    ]
    for X in walls:
        gcs.addBody(contact_set, matter.Ground(), ContactGeometry.HalfSpace(), X)
    balls = []
    body = Body.Rigid(MassProperties(1.0, (0, 0, 0), Inertia(0.4 * RADIUS**2)))
    for _ in range(count):
        ball = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
        gcs.addBody(contact_set, ball, ContactGeometry.Sphere(RADIUS), Transform())
        balls.append(ball)
    element = HuntCrossleyForce(forces, gcs, contact_set)
    for i in range(gcs.getNumBodies(contact_set)):
        element.setBodyParameters(i, 1e6, 0.5, 0.6, 0.4, 0.0)
    state = system.realizeTopology()
    for k, ball in enumerate(balls):
        i, j = divmod(k, side)
        x = -half + 0.01 + RADIUS + i * pitch
        z = -half + 0.01 + RADIUS + j * pitch
        ball.setQToFitTranslation(state, (x, RADIUS - 0.001, z))
    system.realize(state, Stage.Dynamics)
    assert len(gcs.getContacts(state, contact_set)) == count  # each sphere on the floor only
    return system, state


def time_hunt_crossley_dynamics(count: int, repeats: int) -> tuple[float, str]:
    """(best ms of ``realize(state, Stage.Dynamics)`` after a change of q, why not fused)
    of ``hunt_crossley_box(count)``."""
    system, state = hunt_crossley_box(count)
    _unfuse(system)
    best = math.inf
    for _ in range(repeats):
        state.updQ()
        t0 = time.perf_counter()
        system.realize(state, Stage.Dynamics)
        best = min(best, time.perf_counter() - t0)
    return best * 1e3, system.whyNotFused(state)


def time_hunt_crossley_drop(repeats: int = 3) -> tuple[float, int, str, float, list]:
    """(best CPU seconds of ``repeats`` runs, steps, why not compiled steps, CPU seconds of
    the first run, final q) of the ball drop as a HuntCrossleyForce contact set."""
    first = None
    best = math.inf
    for _ in range(1 + repeats):
        cpu, steps, why, q = _run_hunt_crossley_drop()
        if first is None:
            first = cpu
        else:
            best = min(best, cpu)
    return best, steps, why, first, q


def _run_hunt_crossley_drop() -> tuple[float, int, str, list]:
    from engine import GeneralContactSubsystem, HuntCrossleyForce
    from tests.engine.contact_models import contact_model, geometry
    from tests.engine.reference_models import build, transform

    model = contact_model("ball_drop")
    run = model["runs"][0]
    spec = model["model"]
    ref = build(spec)
    gcs = GeneralContactSubsystem(ref.system)
    contact_set = gcs.createContactSet()
    surfaces = spec["contact"]["surfaces"]
    for s in surfaces:
        body = ref.mobods[s["body"]]
        gcs.addBody(contact_set, body, geometry(s["geometry"]), transform(s["X_BS"]))
    element = HuntCrossleyForce(ref.forces, gcs, contact_set)
    for i, s in enumerate(surfaces):
        m = s["material"]
        element.setBodyParameters(
            i,
            m["stiffness"],
            m["dissipation"],
            m["static_friction"],
            m["dynamic_friction"],
            m["viscous_friction"],
        )
    element.setTransitionVelocity(spec["contact"]["transition_velocity"])
    _unfuse(ref.system)
    integ = RungeKuttaMersonIntegrator(ref.system)
    integ.setAccuracy(run["accuracy"])
    integ.setAllowInterpolation(False)
    stepper = TimeStepper(ref.system, integ)
    state = ref.new_state(dict(model["initial_state"], z=[]))
    t0 = time.process_time()
    stepper.initialize(state)
    for report in run["reports"][1:]:
        stepper.stepTo(report["t"])
    cpu = time.process_time() - t0
    q = [float(v) for v in stepper.getState().getQ()]
    return cpu, integ.getNumStepsTaken(), integ.whyNotCompiledSteps(), q


def simbody_ball_drop(track: bool, repeats: int = 3, hunt: bool = False) -> tuple[dict | None, str]:
    """Simbody 3.7 Release on the same ball drop (``simbody_contact_bench.cpp``; ``hunt``:
    as a HuntCrossleyForce contact set): ({"cpu", "wall", "steps", "q"}, "") or (None, why
    not)."""
    import subprocess
    import tempfile

    from benchmarks.common import release_simbody_program
    from tests.engine.contact_models import contact_model

    notes: list[str] = []
    exe = release_simbody_program("simbody_contact_bench", notes)
    if exe is None:
        return None, "; ".join(notes)
    model = contact_model("ball_drop")
    spec, run = model["model"], model["runs"][0]
    body = spec["bodies"][1]
    lines = ["gravity " + " ".join(repr(g) for g in spec["gravity"])]
    lines.append(
        "body "
        + " ".join(repr(x) for x in [body["mass"], *body["mass_center"]])
        + " "
        + " ".join(repr(x) for x in body["inertia_about_body_origin"])
    )
    for surface in spec["contact"]["surfaces"]:
        g, m = surface["geometry"], surface["material"]
        kind = {"HalfSpace": 0, "Sphere": 1}[g["type"]]
        values = [
            *surface["X_BS"]["R"],
            *surface["X_BS"]["p"],
            g.get("radius", 0.0),
            m["stiffness"],
            m["dissipation"],
            m["static_friction"],
            m["dynamic_friction"],
            m["viscous_friction"],
            surface["thickness"],
        ]
        lines.append(f"surface {surface['body']} {kind} " + " ".join(repr(v) for v in values))
    lines.append(f"transition {spec['contact']['transition_velocity']!r}")
    lines.append(f"track {int(track)}")
    lines.append(f"hunt {int(hunt)}")
    lines.append("q " + " ".join(repr(v) for v in model["initial_state"]["q"]))
    lines.append("u " + " ".join(repr(v) for v in model["initial_state"]["u"]))
    lines.append(
        f"run {run['accuracy']!r} {run['report_interval']!r} {run['final_time']!r} {repeats}"
    )
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(lines) + "\n")
    out = subprocess.run([str(exe), f.name], capture_output=True, text=True, check=True).stdout
    result: dict = {}
    for row in out.splitlines():
        key, *vals = row.split()
        if key == "steps":
            result["steps"] = int(vals[0])
        elif key in ("cpu", "wall"):
            result[key] = float(vals[0])
        elif key == "q":
            result["q"] = [float(v) for v in vals]
    return result, ""


EXAMPLES = (
    "bouncing_balls",
    "newtons_cradle",
    "sliding_to_rolling",
    "ragdoll",
    "ragdoll_no_clique",
)
NO_CLIQUE = "_no_clique"


def _load_example(key: str):
    """The document of example ``key``; ``<example>_no_clique``: that example with every
    contact surface taken out of its cliques."""
    import json
    import tempfile

    from app.document import model_io
    from app.document.examples import example_path

    if not key.endswith(NO_CLIQUE):
        return model_io.load(example_path(key))
    data = json.loads(example_path(key[: -len(NO_CLIQUE)]).read_text(encoding="utf-8"))
    for body in data["model"]["bodies"]:
        for surface in body.get("contact_surfaces", []):
            surface["cliques"] = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{key}.mbs.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        return model_io.load(path)


def _run_at_60_hz(system, state, sim_time: float):
    """Step ``state`` with RungeKuttaMerson 1e-3 and a report every 1/60 s for
    ``sim_time`` s after a first untimed report; returns (CPU seconds per simulated second,
    the TimeStepper, the integrator, why the System is not fused)."""
    system.realize(state, Stage.Acceleration)
    why = system.whyNotFused(state)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-3)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    stepper.stepTo(1 / 60)  # compile and warm up
    t, t0 = stepper.getTime(), time.process_time()
    end = t + sim_time
    while t < end - 1e-12:
        t = min(end, t + 1 / 60)
        stepper.stepTo(t)
    return (time.process_time() - t0) / sim_time, stepper, integ, why


def time_example(key: str, sim_time: float) -> tuple[float, str]:
    """(CPU seconds per simulated second, why not fused) of a contact example."""
    from app.document import build

    built = build(_load_example(key))
    _unfuse(built.system)
    rate, _, _, why = _run_at_60_hz(built.system, built.state, sim_time)
    return rate, why


def mesh_drop():
    """A 192-face mesh cube (half side 5 cm, trimesh's box subdivided twice, 1 kg) and a
    Sphere (radius 5 cm) dropped tilted and sliding onto a floor half space beside a
    fixed mesh slab, the sphere onto the slab (the two meshes share a clique);
    ContactMaterial(1e6, 0.5, 0.6, 0.4, 0.1). Returns (system, state)."""
    import trimesh

    def cube(extents, subdivisions):
        box = trimesh.creation.box(extents=extents)
        for _ in range(subdivisions):
            box = box.subdivide()
        return ContactGeometry.TriangleMesh(box)

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    material = ContactMaterial(1e6, 0.5, 0.6, 0.4, 0.1)
    ground = matter.Ground().updBody()
    ground.addContactSurface(
        Transform(Rotation(-math.pi / 2, 2)), ContactSurface(ContactGeometry.HalfSpace(), material)
    )
    meshes_apart = ContactSurface.createNewContactClique()  # no mesh-mesh pair
    slab = ContactSurface(cube((0.3, 0.04, 0.3), 2), material)
    slab.joinClique(meshes_apart)
    ground.addContactSurface(Transform((0.5, 0.0, 0.0)), slab)
    bodies = []
    for shape in (cube((0.1, 0.1, 0.1), 2), ContactGeometry.Sphere(RADIUS)):
        body = Body.Rigid(MassProperties(1.0, (0, 0, 0), Inertia(0.0017)))
        surface = ContactSurface(shape, material)
        if shape.getTypeName() == "TriangleMesh":
            surface.joinClique(meshes_apart)
        body.addContactSurface(Transform(), surface)
        bodies.append(MobilizedBody.Free(matter.Ground(), Transform(), body, Transform()))
    tracker = ContactTrackerSubsystem(system)
    CompliantContactSubsystem(system, tracker)
    state = system.realizeTopology()
    for mobod, p in zip(bodies, ((0.0, 0.1, 0.0), (0.5, 0.1, 0.0)), strict=True):
        mobod.setQToFitTranslation(state, p)
        mobod.setQToFitRotation(state, Rotation(0.3, (1.0, 0.2, 0.5)))
        mobod.setUToFitLinearVelocity(state, (0.3, 0.0, -0.1))
        mobod.setUToFitAngularVelocity(state, (0.5, 1.0, 0.0))
    return system, state


def time_mesh_drop(sim_time: float, repeats: int) -> tuple[float, float, int, str]:
    """(realize Dynamics in ms at the first landing, best of ``repeats``; CPU seconds per
    simulated second of ``mesh_drop`` over ``sim_time`` s with RungeKuttaMerson 1e-3, a
    report every 1/60 s; steps taken; why not fused) ."""
    system, state = mesh_drop()
    _unfuse(system)
    rate, stepper, integ, why = _run_at_60_hz(system, state, sim_time)
    landed = stepper.getState()
    best = math.inf
    for _ in range(repeats):
        landed.updQ()  # invalidates Position stage
        t0 = time.perf_counter()
        system.realize(landed, Stage.Dynamics)
        best = min(best, time.perf_counter() - t0)
    return best * 1e3, rate, integ.getNumStepsTaken(), why


def _subdivided_box(side: float):
    """A closed trimesh cube of edge ``side`` (m), its faces subdivided twice: 192 faces."""
    import trimesh

    box = trimesh.creation.box(extents=(side,) * 3)
    for _ in range(2):
        box = box.subdivide()
    return box


def _elastic_foundation_scene(base, X_G_base, tilt: float, x: float, press: float):
    """A free 0.1 m mesh cube (``_subdivided_box``) on Ground's contact surface ``base``
    (placed at ``X_G_base``), both in one GeneralContactSubsystem contact set with an
    ElasticFoundationForce on the cube (1e8 N/m^3, 0.5 s/m, friction 0.6/0.4/0.1,
    transition velocity 0.05 m/s); the cube tilted ``tilt`` rad about z, at ``x`` (m), its
    lowest vertex ``press`` (m) below y = 0, sliding and spinning. Returns (system, state)."""
    small = _subdivided_box(0.1)
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, (0, -9.81, 0))
    gcs = GeneralContactSubsystem(system)
    cs = gcs.createContactSet()
    gcs.addBody(cs, matter.Ground(), base, X_G_base)
    body = Body.Rigid(MassProperties(1.0, (0, 0, 0), Inertia(0.0017)))
    cube = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
    gcs.addBody(cs, cube, ContactGeometry.TriangleMesh(small), Transform())
    element = ElasticFoundationForce(forces, gcs, cs)
    element.setBodyParameters(1, 1e8, 0.5, 0.6, 0.4, 0.1)
    element.setTransitionVelocity(0.05)
    state = system.realizeTopology()
    R = Rotation(tilt, 2)
    lowest = min(float((R.asMat33() @ v)[1]) for v in small.vertices)
    cube.setQToFitTransform(state, Transform(R, (x, -lowest - press, 0.0)))
    cube.setUToFitLinearVelocity(state, (0.3, -0.05, -0.1))
    cube.setUToFitAngularVelocity(state, (0.5, 1.0, 0.0))
    return system, state


def elastic_foundation_cube():
    """The mesh cube of ``mesh_drop`` on a floor half space (``_elastic_foundation_scene``),
    tilted 0.3 rad and pressed 4 mm into the floor. Returns (system, state)."""
    floor = Transform(Rotation(-math.pi / 2, 2))
    return _elastic_foundation_scene(ContactGeometry.HalfSpace(), floor, 0.3, 0.0, 0.004)


def elastic_foundation_cubes():
    """The cube of ``elastic_foundation_cube`` (its springs) on a 192-face 0.2 m mesh cube
    fixed to Ground (top face at y = 0), one contact set, tilted 0.02 rad and its lowest
    edge pressed 3 mm in (most of its bottom face's springs act), sliding and spinning.
    Returns (system, state)."""
    base = ContactGeometry.TriangleMesh(_subdivided_box(0.2))
    return _elastic_foundation_scene(base, Transform((0.0, -0.1, 0.0)), 0.02, 0.01, 0.003)


def time_elastic_foundation_cube(repeats: int, model=None) -> tuple[float, float, str]:
    """(fused, stage-by-stage) microseconds of one realization to Dynamics of ``model()``
    (``elastic_foundation_cube`` by default) after a change of q (best of ``repeats``
    each, the two alternating), and why the first is not fused ("" if it is)."""
    system, state = (model or elastic_foundation_cube)()
    fused_realization = system._fused_realization
    system.realize(state, Stage.Dynamics)
    why = system.whyNotFused(state)
    best = {True: math.inf, False: math.inf}
    for _ in range(repeats):
        for fused in (True, False):
            system._fused_realization = fused_realization if fused else None
            state.updQ()  # invalidates Position stage
            t0 = time.perf_counter()
            system.realize(state, Stage.Dynamics)
            best[fused] = min(best[fused], time.perf_counter() - t0)
    system._fused_realization = fused_realization
    return best[True] * 1e6, best[False] * 1e6, why


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="100,1000")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--no-trajectory", action="store_true")
    parser.add_argument("--repeats-ball-drop", type=int, default=3)
    parser.add_argument("--stage-by-stage", action="store_true")
    parser.add_argument("--examples", default=",".join(EXAMPLES))
    parser.add_argument("--sim-time", type=float, default=0.5)
    parser.add_argument("--no-mesh", action="store_true")
    parser.add_argument("--no-elastic-foundation", action="store_true")
    args = parser.parse_args()
    global STAGE_BY_STAGE
    STAGE_BY_STAGE = args.stage_by_stage
    sizes = [int(s) for s in args.sizes.split(",")]
    times = {}
    for n in sizes:
        times[n] = time_dynamics(n, args.repeats)
        print(f"box {n:5d} spheres: realize Dynamics {times[n]:9.3f} ms")
    if len(sizes) > 1:
        print(f"ratio {sizes[-1]}/{sizes[0]}: {times[sizes[-1]] / times[sizes[0]]:.2f}x")
    hunt = {}
    for n in sizes:
        hunt[n], why = time_hunt_crossley_dynamics(n, args.repeats)
        print(
            f"HuntCrossley box {n:5d} spheres: realize Dynamics {hunt[n]:9.3f} ms; {why or 'fused'}"
        )
    if len(sizes) > 1:
        print(f"HuntCrossley ratio {sizes[-1]}/{sizes[0]}: {hunt[sizes[-1]] / hunt[sizes[0]]:.2f}x")
    if not args.no_trajectory:
        for track in (True, False):
            cpu, steps, why, first = time_ball_drop(track, args.repeats_ball_drop)
            label = "z tracked" if track else "no z"
            how = why or "compiled steps"
            print(
                f"ball_drop (1e-8, 2 s, {label}): {cpu:.3f} CPU s (best of "
                f"{args.repeats_ball_drop}; first run {first:.3f} s), {steps} steps; {how}"
            )
            simbody, why_not = simbody_ball_drop(track)
            if simbody is None:
                print(f"  Simbody 3.7 Release: {why_not}")
            else:
                print(
                    f"  Simbody 3.7 Release: {simbody['cpu']:.3f} CPU s, {simbody['steps']} "
                    f"steps; ours / Simbody = {cpu / simbody['cpu']:.2f}"
                )
    if not args.no_trajectory:
        cpu, steps, why, first, q = time_hunt_crossley_drop(args.repeats_ball_drop)
        how = why or "compiled steps"
        print(
            f"hunt_crossley_drop (1e-8, 2 s): {cpu:.3f} CPU s (best of "
            f"{args.repeats_ball_drop}; first run {first:.3f} s), {steps} steps; {how}"
        )
        simbody, why_not = simbody_ball_drop(False, hunt=True)
        if simbody is None:
            print(f"  Simbody 3.7 Release: {why_not}")
        else:
            gap = max(abs(a - b) for a, b in zip(q, simbody["q"], strict=True))
            print(
                f"  Simbody 3.7 Release: {simbody['cpu']:.3f} CPU s, {simbody['steps']} "
                f"steps; ours / Simbody = {cpu / simbody['cpu']:.2f}; final q differ by "
                f"{gap:.1e}"
            )
    if not args.no_mesh:
        ms, rate, steps, why = time_mesh_drop(args.sim_time, args.repeats)
        print(
            f"mesh_drop: realize Dynamics {ms:.3f} ms; {rate:.3f} CPU s per simulated s, "
            f"{steps} steps; {why or 'fused'}"
        )
    if not args.no_elastic_foundation:
        fused, slow, why = time_elastic_foundation_cube(args.repeats)
        print(
            f"elastic_foundation_cube: realize Dynamics {fused:.1f} us fused ({why or 'fused'}), "
            f"{slow:.1f} us stage by stage; ratio {slow / fused:.0f}x"
        )
        fused, slow, why = time_elastic_foundation_cube(args.repeats, elastic_foundation_cubes)
        print(
            f"elastic_foundation_cubes: realize Dynamics {fused:.1f} us fused "
            f"({why or 'fused'}), {slow:.1f} us stage by stage; ratio {slow / fused:.0f}x"
        )
    for key in filter(None, args.examples.split(",")):
        rate, why = time_example(key, args.sim_time)
        print(f"{key}: {rate:.3f} CPU s per simulated s; {why or 'fused'}")


if __name__ == "__main__":
    main()
