"""Rigid (unilateral) contact with the SemiExplicitEulerTimeStepper: physics oracles.

Oracles: Newton restitution (rebound speed = COR x impact speed, COR from Simbody's
calcEffectiveCOR curve), a perfectly plastic ball stays down, no penetration drift over
many bounces and no energy gained, a hard stop holds and the pendulum comes to rest on it,
a rope never exceeds its length, the Coulomb cone (friction impulse <= mu x normal impulse;
stick below mu_s m g, slide above with acceleration (F - mu_d m g)/m, deceleration mu_d g
when launched), momentum in a head-on sphere-sphere collision and the velocity swap of equal
masses at COR 1, sequential induced impacts in a three-ball Newton's cradle.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import (
    Body,
    Force,
    GeneralForceSubsystem,
    HardStopLower,
    HardStopUpper,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    PointPlaneContact,
    Rope,
    Rotation,
    SemiExplicitEulerTimeStepper,
    SimbodyMatterSubsystem,
    SpherePlaneContact,
    SphereSphereContact,
    Stage,
    Transform,
    Vec3,
    XAxis,
)
from engine.math.inertia import Inertia

G = 9.81
TOL = 1e-3  # the stepper's default constraint tolerance


def _world(gravity=(0.0, -G, 0.0)):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    if gravity is not None:
        Force.UniformGravity(forces, matter, list(gravity))
    return system, matter, forces


def _ball_body(mass=2.0, radius=0.1):
    i = 0.4 * mass * radius**2
    return Body.Rigid(MassProperties(mass, [0, 0, 0], Inertia(i, i, i)))


# The ground plane y = 0: frame P's z axis along Ground +y.
X_GP = Transform(Rotation(-math.pi / 2, XAxis), Vec3(0, 0, 0))


def _dropped_ball(kind: str, cor: float, height: float, mu=(0.0, 0.0, 0.0), mass=2.0):
    """A ball (radius 0.1) on a Translation mobilizer above the floor y = 0."""
    system, matter, forces = _world()
    ball = MobilizedBody.Translation(matter.Ground(), Transform(), _ball_body(mass), Transform())
    if kind == "sphere":
        contact = SpherePlaneContact(matter.Ground(), X_GP, ball, [0, 0, 0], 0.1, cor, *mu)
    else:
        contact = PointPlaneContact(matter.Ground(), [0, 1, 0], 0.0, ball, [0, -0.1, 0], cor, *mu)
    ix = matter.adoptUnilateralContact(contact)
    state = system.realizeTopology()
    ball.setOneQ(state, 1, height + 0.1)
    system.realize(state, Stage.Velocity)
    return system, matter, ball, contact, ix, state


def _stepper(system, state, model=SemiExplicitEulerTimeStepper.Newton):
    ts = SemiExplicitEulerTimeStepper(system)
    ts.setRestitutionModel(model)
    ts.initialize(state)
    return ts


@pytest.mark.parametrize("kind", ["sphere", "point"])
def test_newton_restitution_rebound_speed_is_cor_times_impact_speed(kind):
    cor, h, mass = 0.6, 1e-3, 2.0
    system, _matter, _ball, contact, ix, state = _dropped_ball(kind, cor, 0.5, mass=mass)
    ts = _stepper(system, state)
    impacts = []
    for i in range(700):
        v_before = ts.getState().getU()[1]
        ts.stepTo((i + 1) * h)
        if ts.getLastImpactImpulses():
            impacts.append((v_before, ts.getState().getU()[1], ts.getLastImpactImpulses()[ix][0]))
    assert len(impacts) >= 2
    for v_minus, u_after, impulse in impacts[:2]:
        v_plus = u_after + G * h  # the step's gravity acts after the impact
        speed = -v_minus
        e = contact.calcEffectiveCOR(cor, 1e-2, 1.0, speed)
        assert e == pytest.approx(cor if speed >= 1.0 else 1 - (1 - cor) * speed, rel=1e-12)
        assert v_plus == pytest.approx(e * speed, rel=1e-9)
        assert impulse == pytest.approx(mass * (1 + e) * speed, rel=1e-9)
    # The first impact is at the free-fall speed from 0.5 m (within one step of gravity).
    assert -impacts[0][0] == pytest.approx(math.sqrt(2 * G * 0.5), abs=2 * G * h)


def test_poisson_equals_newton_for_a_single_frictionless_contact():
    h = 1e-3
    results = []
    for model in (SemiExplicitEulerTimeStepper.Poisson, SemiExplicitEulerTimeStepper.Newton):
        system, *_rest, state = _dropped_ball("sphere", 0.5, 0.2)
        ts = _stepper(system, state, model)
        for i in range(400):
            ts.stepTo((i + 1) * h)
        results.append(ts.getState().getQ().copy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "projection",
    [SemiExplicitEulerTimeStepper.Bilateral, SemiExplicitEulerTimeStepper.Unilateral],
)
def test_plastic_ball_stays_down(projection):
    h = 1e-3
    system, _m, _ball, contact, ix, state = _dropped_ball("sphere", 0.0, 0.3)
    ts = _stepper(system, state)
    ts.setPositionProjectionMethod(projection)
    landed = None
    for i in range(600):
        ts.stepTo((i + 1) * h)
        s = ts.getState()
        if landed is None and ts.getLastImpactImpulses():
            landed = i
        assert contact.getPerr(s) >= -1e-9
        if landed is not None and i > landed + 50:
            assert abs(contact.getPerr(s)) <= 1e-9
            assert abs(s.getU()[1]) <= 1e-9
            assert contact.isEnabled(s)
    assert landed is not None
    # Resting: each step's contact impulse carries the weight, m g h.
    assert ts.getLastContactImpulses()[ix][0] == pytest.approx(2.0 * G * h, rel=1e-9)


def test_no_penetration_drift_and_no_energy_gain_over_many_bounces():
    h = 2e-3
    system, _m, ball, contact, _ix, state = _dropped_ball("sphere", 0.9, 0.4)
    ts = _stepper(system, state)
    e0 = system.calcEnergy(ts.getState())
    bounces, was_up, worst = 0, False, 0.0
    for i in range(1000):
        ts.stepTo((i + 1) * h)
        s = ts.getState()
        worst = min(worst, contact.getPerr(s))
        system.realize(s, Stage.Dynamics)
        assert system.calcEnergy(s) <= e0 + 1e-9
        up = s.getU()[1] > 0
        bounces += up and not was_up
        was_up = up
    assert bounces >= 4
    assert worst >= -1e-9


def test_hard_stop_holds_and_pendulum_rests_on_it():
    """A horizontal pendulum (Pin about z, arm along x) falls onto a lower stop at -0.5 rad."""
    system, matter, _forces = _world()
    # Inertia about the body origin (the pin): I_zz = 0.01 + m L^2.
    arm = Body.Rigid(MassProperties(1.0, [1, 0, 0], Inertia(0.01, 1.01, 1.01)))
    pin = MobilizedBody.Pin(matter.Ground(), Transform(), arm, Transform())
    lower = HardStopLower(pin, 0, -0.5, 0.2)
    upper = HardStopUpper(pin, 0, 0.5, 0.5)
    assert matter.adoptUnilateralContact(lower) == 0
    assert matter.adoptUnilateralContact(upper) == 1
    state = system.realizeTopology()
    pin.setOneU(state, 0, 5.0)  # swings up into the upper stop first
    system.realize(state, Stage.Velocity)
    ts = _stepper(system, state)
    ts.setDefaultImpactCaptureVelocity(0.3)  # slower impacts are plastic, faster ones
    ts.setDefaultImpactMinCORVelocity(0.3)  # use minCOR: it settles within the test
    h, hit_upper, hit_lower = 1e-3, False, False
    for i in range(1500):
        ts.stepTo((i + 1) * h)
        s = ts.getState()
        q = s.getQ()[0]
        assert -0.5 - TOL <= q <= 0.5 + TOL
        hit_upper |= 1 in ts.getLastImpactImpulses()
        hit_lower |= 0 in ts.getLastImpactImpulses()
    assert hit_upper and hit_lower
    assert s.getQ()[0] == pytest.approx(-0.5, abs=1e-9)
    assert abs(s.getU()[0]) < 1e-9
    assert lower.getPerr(s) == pytest.approx(0.0, abs=1e-9)
    assert upper.getPerr(s) == pytest.approx(1.0, abs=1e-9)


def test_rope_holds_its_length_limit():
    system, matter, _forces = _world()
    bob = MobilizedBody.Translation(matter.Ground(), Transform(), _ball_body(), Transform())
    rope = Rope(matter.Ground(), [0, 0, 0], bob, [0, 0, 0], 1.0, 0.0)
    matter.adoptUnilateralContact(rope)
    state = system.realizeTopology()
    bob.setOneQ(state, 0, 0.3)
    bob.setOneU(state, 0, 2.0)
    system.realize(state, Stage.Velocity)
    ts = _stepper(system, state)
    h, taut = 2e-3, 0
    for i in range(700):
        ts.stepTo((i + 1) * h)
        s = ts.getState()
        dist = np.linalg.norm(s.getQ())
        assert dist <= 1.0 + TOL
        taut += dist > 0.999
    assert taut > 300  # it swings on the taut rope
    assert rope.getPerr(s) == pytest.approx(1.0 - np.linalg.norm(s.getQ()), abs=1e-12)


def _block(mu_s, mu_d, push=0.0, v0=0.0, mass=1.0):
    system, matter, forces = _world()
    box = MobilizedBody.Translation(matter.Ground(), Transform(), _ball_body(mass), Transform())
    contact = PointPlaneContact(matter.Ground(), [0, 1, 0], 0.0, box, [0, 0, 0], 0.0, mu_s, mu_d, 0)
    ix = matter.adoptUnilateralContact(contact)
    if push:
        Force.ConstantForce(forces, box, [0, 0, 0], [push, 0, 0])
    state = system.realizeTopology()
    box.setOneU(state, 0, v0)
    system.realize(state, Stage.Velocity)
    return system, box, contact, ix, state


@pytest.mark.parametrize("ratio", [0.5, 0.99])
def test_block_sticks_below_the_static_limit(ratio):
    mu_s, mu_d, h = 0.6, 0.4, 1e-3
    system, _box, _c, ix, state = _block(mu_s, mu_d, push=ratio * mu_s * G)
    ts = _stepper(system, state)
    for i in range(300):
        ts.stepTo((i + 1) * h)
        imp = ts.getLastContactImpulses()[ix]
        assert math.hypot(imp[1], imp[2]) <= mu_s * imp[0] * (1 + 1e-9)
    s = ts.getState()
    assert abs(s.getU()[0]) < 1e-9 and abs(s.getQ()[0]) < 1e-9
    assert imp[0] == pytest.approx(G * h, rel=1e-9)
    assert math.hypot(imp[1], imp[2]) == pytest.approx(ratio * mu_s * G * h, rel=1e-6)


def test_block_slides_above_the_static_limit_with_dynamic_friction():
    mu_s, mu_d, h = 0.6, 0.4, 1e-3
    push = 1.2 * mu_s * G
    system, _box, _c, ix, state = _block(mu_s, mu_d, push=push)
    ts = _stepper(system, state)
    for i in range(400):
        ts.stepTo((i + 1) * h)
        imp = ts.getLastContactImpulses()[ix]
        assert math.hypot(imp[1], imp[2]) <= mu_s * imp[0] * (1 + 1e-9)
    u1 = ts.getState().getU()[0]
    ts.stepTo(401 * h)
    accel = (ts.getState().getU()[0] - u1) / h
    assert accel == pytest.approx(push - mu_d * G, rel=1e-6)
    imp = ts.getLastContactImpulses()[ix]
    assert math.hypot(imp[1], imp[2]) == pytest.approx(mu_d * imp[0], rel=1e-9)


def test_launched_block_decelerates_at_mu_d_g_then_stops():
    mu_s, mu_d, h, v0 = 0.6, 0.4, 1e-3, 1.0
    system, _box, _c, _ix, state = _block(mu_s, mu_d, v0=v0)
    ts = _stepper(system, state)
    for i in range(200):
        ts.stepTo((i + 1) * h)
    assert ts.getState().getU()[0] == pytest.approx(v0 - mu_d * G * 0.2, rel=1e-9)
    for i in range(200, 300):
        ts.stepTo((i + 1) * h)
    s = ts.getState()
    assert abs(s.getU()[0]) < 1e-9
    assert s.getQ()[0] == pytest.approx(v0**2 / (2 * mu_d * G), rel=1e-2)


def _two_spheres(m1, m2, v1, v2, cor):
    system, matter, _forces = _world(gravity=None)
    b1 = MobilizedBody.Translation(matter.Ground(), Transform(), _ball_body(m1), Transform())
    b2 = MobilizedBody.Translation(matter.Ground(), Transform(), _ball_body(m2), Transform())
    matter.adoptUnilateralContact(
        SphereSphereContact(b1, [0, 0, 0], 0.1, b2, [0, 0, 0], 0.1, cor, 0, 0, 0)
    )
    state = system.realizeTopology()
    b1.setOneQ(state, 0, -0.5)
    b2.setOneQ(state, 0, 0.5)
    b1.setOneU(state, 0, v1)
    b2.setOneU(state, 0, v2)
    system.realize(state, Stage.Velocity)
    ts = _stepper(system, state)
    for i in range(300):
        ts.stepTo((i + 1) * 1e-3)
    u = ts.getState().getU()
    return u[0], u[3]


def test_equal_spheres_swap_velocities_at_cor_one():
    w1, w2 = _two_spheres(1.0, 1.0, 3.0, -1.0, 1.0)
    assert w1 == pytest.approx(-1.0, rel=1e-9)
    assert w2 == pytest.approx(3.0, rel=1e-9)


def test_sphere_collision_conserves_momentum_with_restitution():
    m1, m2, v1, v2, cor = 1.0, 3.0, 3.0, -1.0, 0.3
    w1, w2 = _two_spheres(m1, m2, v1, v2, cor)
    assert m1 * w1 + m2 * w2 == pytest.approx(m1 * v1 + m2 * v2, rel=1e-12)
    assert w2 - w1 == pytest.approx(cor * (v1 - v2), rel=1e-9)


@pytest.mark.parametrize(
    "model",
    [
        SemiExplicitEulerTimeStepper.Simultaneous,
        SemiExplicitEulerTimeStepper.Sequential,
        SemiExplicitEulerTimeStepper.Mixed,
    ],
)
def test_every_induced_impact_model_conserves_momentum(model):
    u = _cradle(model, cor=0.7)
    assert u[0] + u[3] + u[6] == pytest.approx(2.0, rel=1e-12)
    assert u[0] <= u[3] + 1e-12 <= u[6] + 2e-12  # the balls separate, none passes another


def test_sequential_induced_impacts_make_a_newtons_cradle():
    u = _cradle(SemiExplicitEulerTimeStepper.Sequential, cor=1.0)
    np.testing.assert_allclose([u[0], u[3], u[6]], [0.0, 0.0, 2.0], atol=1e-9)


def _cradle(model, cor):
    """Three equal balls in a row along x, the last two touching; the first hits at 2 m/s."""
    system, matter, _forces = _world(gravity=None)
    balls = [
        MobilizedBody.Translation(matter.Ground(), Transform(), _ball_body(1.0), Transform())
        for _ in range(3)
    ]
    for a, b in zip(balls[:-1], balls[1:], strict=True):
        matter.adoptUnilateralContact(
            SphereSphereContact(a, [0, 0, 0], 0.1, b, [0, 0, 0], 0.1, cor, 0, 0, 0)
        )
    state = system.realizeTopology()
    for k, x in enumerate([-0.2, 0.2, 0.4]):
        balls[k].setOneQ(state, 0, x)
    balls[0].setOneU(state, 0, 2.0)
    system.realize(state, Stage.Velocity)
    ts = _stepper(system, state)
    ts.setInducedImpactModel(model)
    for i in range(150):
        ts.stepTo((i + 1) * 1e-3)
    return ts.getState().getU()


def test_sliding_sphere_starts_rolling_at_five_sevenths_of_its_speed():
    """A solid sphere (Free mobilizer: quaternions) launched sliding with v0 and no spin:
    friction brings it to rolling at 5/7 v0 (angular momentum about the contact point)."""
    system, matter, _forces = _world()
    m, r, v0 = 2.0, 0.1, 1.0
    i = 0.4 * m * r**2
    body = Body.Rigid(MassProperties(m, [0, 0, 0], Inertia(i, i, i)))
    ball = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
    contact = SpherePlaneContact(matter.Ground(), X_GP, ball, [0, 0, 0], r, 0.0, 0.5, 0.3, 0.0)
    ix = matter.adoptUnilateralContact(contact)
    state = system.realizeTopology()
    ball.setOneQ(state, 5, r)
    ball.setOneU(state, 3, v0)
    system.realize(state, Stage.Velocity)
    ts = _stepper(system, state)
    h = 1e-3
    for k in range(150):
        ts.stepTo((k + 1) * h)
        imp = ts.getLastContactImpulses()[ix]
        assert math.hypot(imp[1], imp[2]) <= 0.5 * imp[0] * (1 + 1e-9)
        if k == 20:  # still slipping: kinetic friction decelerates the centre at mu_d g
            assert ts.getState().getU()[3] == pytest.approx(v0 - 0.3 * G * 21 * h, rel=1e-9)
    s = ts.getState()
    u = s.getU()
    assert u[3] == pytest.approx(5 / 7 * v0, rel=1e-9)
    assert u[2] == pytest.approx(-u[3] / r, rel=1e-9)  # rolling: w_z = -v_x / r
    np.testing.assert_allclose(contact.getSlipVelocity(s), [0, 0], atol=1e-12)
    assert contact.getPerr(s) == pytest.approx(0.0, abs=1e-12)
    assert np.linalg.norm(s.getQ()[:4]) == pytest.approx(1.0, abs=TOL)


def test_contacts_with_a_bilateral_rod_keep_the_rod_length():
    """A dumbbell (two balls on Translation mobilizers joined by a Rod constraint) falls
    tilted onto the floor: impulses respect the rod, which stays within the tolerance."""
    from engine import Constraint

    system, matter, _forces = _world()
    b1 = MobilizedBody.Translation(matter.Ground(), Transform(), _ball_body(1.0), Transform())
    b2 = MobilizedBody.Translation(matter.Ground(), Transform(), _ball_body(1.0), Transform())
    Constraint.Rod(b1, [0, 0, 0], b2, [0, 0, 0], 1.0)
    contacts = [
        SpherePlaneContact(matter.Ground(), X_GP, b, [0, 0, 0], 0.1, 0.0, 0, 0, 0) for b in (b1, b2)
    ]
    for c in contacts:
        matter.adoptUnilateralContact(c)
    state = system.realizeTopology()
    state.updQ()[:] = [0, 0.15, 0, 0.97, 0.35, 0]
    system.project(state, 1e-12)
    ts = _stepper(system, state)
    landed = set()
    for k in range(300):
        ts.stepTo((k + 1) * 1e-3)
        s = ts.getState()
        q = s.getQ()
        assert abs(np.linalg.norm(q[3:] - q[:3]) - 1.0) <= TOL
        assert min(c.getPerr(s) for c in contacts) >= -1e-9
        landed |= set(ts.getLastImpactImpulses())
        if landed == {0, 1}:
            break
    assert landed == {0, 1}
