"""ElasticFoundationForce inside the fused one-call realization: its half space-mesh and
sphere-mesh springs as a compiled force term (ELASTIC_FOUNDATION) give the stage-by-stage
accelerations, body forces and energy; the frictionless springs' force is minus the
gradient of their energy; RungeKuttaMerson's compiled steps take the Python loop's steps;
the mesh-mesh springs (springs on one mesh or both) are compiled too, equal and opposite."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from engine import (
    Body,
    ContactGeometry,
    ElasticFoundationForce,
    Force,
    GeneralContactSubsystem,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
)
from tests.engine.test_compiled_merson_attempt import simulate_merson

FLOOR = Transform(Rotation(-math.pi / 2, 2))  # half space y < 0, outward normal +y
HALF = 0.1  # the mesh cube's half side


def _box(extents, subdivisions: int) -> ContactGeometry.TriangleMesh:
    box = trimesh.creation.box(extents=extents)
    for _ in range(subdivisions):
        box = box.subdivide()
    return ContactGeometry.TriangleMesh(box)


def _free(matter, mass: float = 2.0):
    body = Body.Rigid(MassProperties(mass, (0, 0, 0), Inertia(0.01)))
    return MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())


def _world(gravity: bool = True):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    if gravity:
        Force.UniformGravity(forces, matter, (0, -9.81, 0))
    gcs = GeneralContactSubsystem(system)
    return system, matter, forces, gcs, gcs.createContactSet()


def _cube_on_floor(friction: bool = True, gravity: bool = True):
    """A 192-face mesh cube (free) over a floor half space, its springs from
    ElasticFoundationForce; with ``friction`` also dissipation and Hollars friction."""
    system, matter, forces, gcs, cs = _world(gravity)
    gcs.addBody(cs, matter.Ground(), ContactGeometry.HalfSpace(), FLOOR)
    cube = _free(matter)
    gcs.addBody(cs, cube, _box((2 * HALF,) * 3, 2), Transform((0.01, -0.005, 0.0)))
    element = ElasticFoundationForce(forces, gcs, cs)
    if friction:
        element.setBodyParameters(1, 1e7, 0.5, 0.8, 0.5, 0.05)
        element.setTransitionVelocity(0.05)
    else:
        element.setBodyParameters(1, 1e6, 0.0, 0.0, 0.0, 0.0)
    return system, cube, element


def _sphere_on_slab():
    """A Sphere (free body) pressed on a mesh slab (free body, 0.4 x 0.04 x 0.4 m, 1536
    faces) whose springs are ElasticFoundationForce's; a second Sphere on the slab's own
    body (never a partner of its faces) and a floor half space under the slab."""
    system, matter, forces, gcs, cs = _world()
    gcs.addBody(cs, matter.Ground(), ContactGeometry.HalfSpace(), FLOOR)
    slab, ball = _free(matter, 5.0), _free(matter, 1.0)
    gcs.addBody(cs, ball, ContactGeometry.Sphere(0.1), Transform())
    gcs.addBody(cs, slab, _box((0.4, 0.04, 0.4), 3), Transform(Rotation(0.1, 1), (0, 0.02, 0)))
    gcs.addBody(cs, slab, ContactGeometry.Sphere(0.05), Transform())
    element = ElasticFoundationForce(forces, gcs, cs)
    element.setBodyParameters(2, 3e7, 0.3, 0.6, 0.4, 0.02)
    return system, slab, ball, element


def _place(state, body, p, R, v=(0, 0, 0), w=(0, 0, 0)) -> None:
    body.setQToFitTransform(state, Transform(R, p))
    body.setUToFitLinearVelocity(state, v)
    body.setUToFitAngularVelocity(state, w)


def _stage_by_stage(system, state):
    """``state`` realized to Acceleration without the fused realization."""
    fused = system._fused_realization
    system._fused_realization = None
    try:
        system.realize(state, Stage.Acceleration)
    finally:
        system._fused_realization = fused
    return state


def _fused_and_slow(system, state):
    """(``state`` realized to Acceleration in one call, a copy realized stage by stage)."""
    slow = state.copy()
    system.realize(state, Stage.Acceleration)
    assert system.whyNotFused(state) == ""
    return state, _stage_by_stage(system, slow)


def _assert_same(system, fast, slow) -> None:
    scale = max(1.0, float(np.max(np.abs(slow.getUDot()))))
    np.testing.assert_allclose(fast.getUDot(), slow.getUDot(), rtol=0, atol=1e-12 * scale)
    forces, forces2 = system.getRigidBodyForces(fast), system.getRigidBodyForces(slow)
    fscale = max(1.0, float(np.max(np.abs(forces2))))
    np.testing.assert_allclose(forces, forces2, rtol=0, atol=1e-12 * fscale)
    assert system.calcPotentialEnergy(fast) == pytest.approx(
        system.calcPotentialEnergy(slow), rel=1e-12, abs=1e-15
    )


#: cube poses: (position, rotation, linear velocity, angular velocity)
CUBE_CASES = {
    "flat, at rest": ((0, HALF - 1e-4, 0), Rotation(), (0, 0, 0), (0, 0, 0)),
    "on an edge, leaving slowly": (
        (0.0, 0.12, 0.0),
        Rotation(math.pi / 4, 2),
        (0, 1.0, 0),
        (0, 0, 4),
    ),
    "tilted, sliding and spinning": (
        (0.01, 0.09, 0.0),
        Rotation(0.2, 0) * Rotation(0.1, 2),
        (0.3, -0.2, 0.1),
        (1.0, 2.0, 0.5),
    ),
    "on a corner, landing": (
        (-0.02, 0.14, 0.03),
        Rotation(0.6, 0) * Rotation(0.7, 2),
        (-0.5, -1.0, 0.2),
        (0.3, -2.0, 1.0),
    ),
}


def _cube_case(case: str = "tilted, sliding and spinning"):
    """(system, state) of the mesh cube on the floor at pose ``case`` of CUBE_CASES."""
    system, cube, _ = _cube_on_floor()
    state = system.realizeTopology()
    _place(state, cube, *CUBE_CASES[case])
    return system, state


@pytest.mark.parametrize("case", list(CUBE_CASES))
def test_mesh_cube_on_a_half_space_in_one_call_with_the_stage_by_stage_forces(case):
    system, cube, element = _cube_on_floor()
    state = system.realizeTopology()
    _place(state, cube, *CUBE_CASES[case])
    fast, slow = _fused_and_slow(system, state)
    _assert_same(system, fast, slow)
    springs = system.getRigidBodyForces(fast)[cube.getMobilizedBodyIndex()][1]
    assert springs[1] > 0.0  # the floor pushes, more than the weight
    assert element.calcPotentialEnergy(fast) > 0.0


@pytest.mark.parametrize("case", ["separated", "pulled out faster than 1/c"])
def test_a_cube_feels_only_gravity_when_separated_or_pulled_out_fast(case):
    """No spring pushes: none is inside the floor, or every one has f = k A d (1 + c vn)
    <= 0 (its energy is still counted, as Simbody 3.7 counts it)."""
    system, cube, element = _cube_on_floor()
    state = system.realizeTopology()
    if case == "separated":
        _place(state, cube, (0, 0.3, 0), Rotation(0.4, 0), (0, -1, 0), (1, 0, 0))
    else:
        _place(state, cube, (0, 0.12, 0), Rotation(math.pi / 4, 2), (0.1, 3.0, 0), (0, 0, 1))
    fast, slow = _fused_and_slow(system, state)
    _assert_same(system, fast, slow)
    gravity = np.array([[0.0, 0.0, 0.0], [0.0, -9.81 * 2.0, 0.0]])
    np.testing.assert_array_equal(system.getRigidBodyForces(fast)[1], gravity)
    assert (element.calcPotentialEnergy(fast) > 0.0) == (case != "separated")


#: (slab pose, ball pose) as (position, rotation, linear velocity, angular velocity)
SLAB_CASES = {
    "ball pressed in, both at rest": (
        ((0, 0, 0), Rotation(), (0, 0, 0), (0, 0, 0)),
        ((0.013, 0.128, -0.021), Rotation(), (0, 0, 0), (0, 0, 0)),
    ),
    "ball rolling, slab tilted and moving": (
        ((0.02, -0.01, 0), Rotation(0.15, 0) * Rotation(-0.1, 2), (0.1, 0.2, 0), (0.5, 0, 1)),
        ((0.05, 0.115, 0.02), Rotation(0.3, 1), (1.0, -0.4, 0.3), (3.0, 0.0, -10.0)),
    ),
    "ball deep near the rim": (
        ((0, 0, 0), Rotation(0.05, 0), (0, 0, 0), (0, 1, 0)),
        ((0.17, 0.1, 0.12), Rotation(), (0.2, -2.0, 0), (0, 0, 0)),
    ),
}


@pytest.mark.parametrize("case", list(SLAB_CASES))
def test_sphere_on_a_mesh_slab_in_one_call_with_the_stage_by_stage_forces(case):
    system, slab, ball, element = _sphere_on_slab()
    state = system.realizeTopology()
    slab_pose, ball_pose = SLAB_CASES[case]
    _place(state, slab, *slab_pose)
    _place(state, ball, *ball_pose)
    fast, slow = _fused_and_slow(system, state)
    _assert_same(system, fast, slow)
    pushed = system.getRigidBodyForces(fast)[ball.getMobilizedBodyIndex()][1]
    assert pushed[1] > 0.0  # the slab holds the ball up, more than its weight
    assert element.calcPotentialEnergy(fast) > 0.0


@pytest.mark.parametrize("case", ["cube on a floor", "slab under a ball"])
def test_frictionless_springs_force_is_minus_the_gradient_of_their_energy(case):
    """At rest (no dissipation or friction force) the compiled springs' force and moment on
    the mesh's body (about its origin, in G) are minus the derivatives of the element's
    energy along translations and rotations about that origin (central differences): the
    mesh cube in the floor, and the slab pressed against a Sphere (and the floor)."""
    if case == "cube on a floor":
        system, mesh_body, element = _cube_on_floor(friction=False, gravity=False)
        state = system.realizeTopology()
        R, p, weight = Rotation(0.3, 0) * Rotation(0.2, 2), np.array((0.01, 0.095, -0.02)), 0.0
    else:
        system, mesh_body, ball, element = _sphere_on_slab()
        state = system.realizeTopology()
        _place(state, ball, (0.013, 0.128, -0.021), Rotation())
        R, p, weight = Rotation(0.04, 0) * Rotation(-0.03, 2), np.array((0.0, 0.003, 0.0)), 49.05

    def energy(point, rotation):
        _place(state, mesh_body, point, rotation)
        system.realize(state, Stage.Dynamics)
        return element.calcPotentialEnergy(state)

    _place(state, mesh_body, p, R)
    system.realize(state, Stage.Dynamics)
    assert system.whyNotFused(state) == ""
    torque, force = system.getRigidBodyForces(state)[mesh_body.getMobilizedBodyIndex()]
    force = force + (0.0, weight, 0.0)  # the springs' part (gravity acts at the origin)
    h = 1e-7
    grad_p = [(energy(p + h * e, R) - energy(p - h * e, R)) / (2 * h) for e in np.eye(3)]
    grad_w = [
        (energy(p, Rotation(h, k) * R) - energy(p, Rotation(-h, k) * R)) / (2 * h) for k in range(3)
    ]
    scale = float(np.max(np.abs(force)))
    assert scale > 10.0
    np.testing.assert_allclose(force, -np.array(grad_p), rtol=0, atol=1e-6 * scale)
    np.testing.assert_allclose(torque, -np.array(grad_w), rtol=0, atol=1e-6 * scale)


def test_compiled_merson_steps_follow_the_python_loop_on_a_cube_drop():
    system, cube, _ = _cube_on_floor()
    state = system.realizeTopology()
    _place(state, cube, (0, 0.15, 0), Rotation(0.3, 2), (0.4, -0.5, 0), (0, 0, 1.0))
    system.realize(state, Stage.Acceleration)
    assert system.whyNotFused(state) == ""
    fast, fast_state, _ = simulate_merson(system, state, "steps", tfinal=0.12, accuracy=1e-4)
    slow, slow_state, _ = simulate_merson(system, state, "python", tfinal=0.12, accuracy=1e-4)
    assert fast.compiledStepsTaken > 0.9 * fast.getNumStepsTaken()
    assert fast.getNumStepsTaken() == slow.getNumStepsTaken() > 20
    np.testing.assert_allclose(fast_state.getQ(), slow_state.getQ(), rtol=0, atol=1e-10)
    np.testing.assert_allclose(fast_state.getU(), slow_state.getU(), rtol=0, atol=1e-10)
    assert fast_state.getQ()[5] > 0.05  # landed on the floor, not through it


def _two_cubes(both: bool, floor: bool = True):
    """A 192-face mesh cube A (0.2 m, free) and a 48-face mesh cube B (0.1 m, free) in one
    set, with a floor and gravity when ``floor``; springs on B, and on A too when
    ``both`` (then each face's area is halved)."""
    system, matter, forces, gcs, cs = _world(gravity=floor)
    if floor:
        gcs.addBody(cs, matter.Ground(), ContactGeometry.HalfSpace(), FLOOR)
    a, b = _free(matter), _free(matter, 1.0)
    first = gcs.getNumBodies(cs)
    gcs.addBody(cs, a, _box((0.2, 0.2, 0.2), 2), Transform((0.003, 0.0, -0.002)))
    gcs.addBody(cs, b, _box((0.1, 0.1, 0.1), 1), Transform())
    element = ElasticFoundationForce(forces, gcs, cs)
    element.setBodyParameters(first + 1, 1e7, 0.4, 0.6, 0.4, 0.02)
    if both:
        element.setBodyParameters(first, 3e7, 0.2, 0.5, 0.3, 0.0)
    element.setTransitionVelocity(0.05)
    return system, a, b, element


#: (cube A pose, cube B pose) as (position, rotation, linear velocity, angular velocity)
CUBES_CASES = {
    "touching, sliding": (
        ((0, 0.0995, 0), Rotation(), (0.1, 0, 0), (0, 1.0, 0)),
        ((0.01, 0.2485, 0.02), Rotation(0.2, 0), (0.3, -0.2, 0.1), (1.0, 0.0, 2.0)),
    ),
    "deep, on an edge": (
        ((0.02, 0.099, -0.01), Rotation(0.05, 2), (0, 0, 0), (0, 0, 0)),
        ((0.0, 0.21, 0.0), Rotation(math.pi / 4, 2) * Rotation(0.1, 0), (0, -1.0, 0), (0, 2, 0)),
    ),
    "apart": (
        ((0, 0.0995, 0), Rotation(), (0, 0, 0), (0, 0, 0)),
        ((0.0, 0.4, 0.0), Rotation(0.3, 1), (0, -0.5, 0), (0, 0, 1)),
    ),
}


def _cubes_case(case: str = "deep, on an edge", both: bool = True):
    """(system, state) of the two mesh cubes at pose ``case`` of CUBES_CASES."""
    system, a, b, _ = _two_cubes(both)
    state = system.realizeTopology()
    for body, pose in zip((a, b), CUBES_CASES[case], strict=True):
        _place(state, body, *pose)
    return system, state


@pytest.mark.parametrize("both", [False, True], ids=["springs on one", "springs on both"])
@pytest.mark.parametrize("case", list(CUBES_CASES))
def test_mesh_cube_on_a_mesh_cube_in_one_call_with_the_stage_by_stage_forces(case, both):
    """A mesh-mesh pair with springs on one or both meshes (and a floor under them): the
    element has a compiled term, the model realizes in one call, and the accelerations,
    body forces and energy are the stage-by-stage ones."""
    system, a, b, element = _two_cubes(both)
    state = system.realizeTopology()
    for body, pose in zip((a, b), CUBES_CASES[case], strict=True):
        _place(state, body, *pose)
    fast, slow = _fused_and_slow(system, state)
    _assert_same(system, fast, slow)
    on_b = system.getRigidBodyForces(fast)[b.getMobilizedBodyIndex()][1]
    if case == "apart":
        np.testing.assert_array_equal(on_b, [0.0, -9.81, 0.0])  # its weight (1 kg) alone
    else:
        assert on_b[1] > -9.81  # A pushes B up
    assert (element.calcPotentialEnergy(fast) > 0.0) == (case != "apart" or both)


@pytest.mark.parametrize("both", [False, True], ids=["springs on one", "springs on both"])
def test_mesh_mesh_springs_obey_newtons_third_law(both):
    """Without gravity or floor the two cubes' body forces from the fused realization are
    equal and opposite: the forces sum to zero and so do the moments about G's origin."""
    system, a, b, _ = _two_cubes(both, floor=False)
    state = system.realizeTopology()
    for body, pose in zip((a, b), CUBES_CASES["deep, on an edge"], strict=True):
        _place(state, body, *pose)
    fast, _ = _fused_and_slow(system, state)
    forces = np.asarray(system.getRigidBodyForces(fast))
    ia, ib = a.getMobilizedBodyIndex(), b.getMobilizedBodyIndex()
    scale = float(np.abs(forces).max())
    assert scale > 1.0
    np.testing.assert_allclose(forces[ia, 1] + forces[ib, 1], 0.0, atol=1e-12 * scale)
    p_a = np.asarray(a.getBodyOriginLocation(fast))
    p_b = np.asarray(b.getBodyOriginLocation(fast))
    moment = (
        forces[ia, 0] + np.cross(p_a, forces[ia, 1]) + forces[ib, 0] + np.cross(p_b, forces[ib, 1])
    )
    np.testing.assert_allclose(moment, 0.0, atol=1e-12 * scale)
