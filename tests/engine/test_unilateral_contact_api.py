"""The unilateral-contact API: the matter subsystem's adopt/get/upd methods, the contacts'
accessors (perr, verr, aerr against closed forms), calcEffectiveCOR, the stepper's settings,
StateLimitedFriction (MobilityFriction) physics, and bad input refused with typed errors."""

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
    IndexOutOfRangeError,
    InvalidArgumentError,
    MassProperties,
    MobilityFriction,
    MobilizedBody,
    MultibodySystem,
    PointPlaneContact,
    Rope,
    SemiExplicitEulerTimeStepper,
    SimbodyMatterSubsystem,
    SpherePlaneContact,
    SphereSphereContact,
    Stage,
    StageTooLowError,
    Transform,
    UnilateralContact,
)
from engine.math.inertia import Inertia

G = 9.81


def _model():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, [0, -G, 0])
    body = Body.Rigid(MassProperties(2.0, [0, 0, 0], Inertia(0.01, 0.01, 0.01)))
    ball = MobilizedBody.Translation(matter.Ground(), Transform(), body, Transform())
    slider = MobilizedBody.Slider(matter.Ground(), Transform(), body, Transform())
    return system, matter, forces, ball, slider


def test_matter_owns_contacts_and_frictions_by_index():
    _system, matter, _f, ball, slider = _model()
    assert matter.getNumUnilateralContacts() == 0
    c0 = PointPlaneContact(matter.Ground(), [0, 1, 0], 0.0, ball, [0, 0, 0], 0.5, 0.5, 0.3, 0.0)
    c1 = HardStopUpper(slider, 0, 1.0, 0.0)
    assert matter.adoptUnilateralContact(c0) == 0
    assert matter.adoptUnilateralContact(c1) == 1
    assert matter.getNumUnilateralContacts() == 2
    assert matter.getUnilateralContact(1) is c1 and matter.updUnilateralContact(0) is c0
    assert c1.getMyIndex() == 1
    f = MobilityFriction(slider, 0, 5.0, 0.3, 0.2, 0.0)
    assert matter.adoptStateLimitedFriction(f) == 0
    assert matter.getNumStateLimitedFrictions() == 1
    assert matter.getStateLimitedFriction(0) is f is matter.updStateLimitedFriction(0)
    with pytest.raises(IndexOutOfRangeError, match="no index 2"):
        matter.getUnilateralContact(2)
    with pytest.raises(IndexOutOfRangeError):
        matter.updStateLimitedFriction(-1)
    with pytest.raises(InvalidArgumentError, match="already adopted"):
        matter.adoptUnilateralContact(c0)
    with pytest.raises(InvalidArgumentError, match="UnilateralContact"):
        matter.adoptUnilateralContact(f)
    other = SimbodyMatterSubsystem(MultibodySystem())
    with pytest.raises(InvalidArgumentError, match="another matter subsystem"):
        other.adoptUnilateralContact(Rope(matter.Ground(), [0, 0, 0], ball, [0, 0, 0], 1, 0))


def test_errors_of_a_free_falling_ball_above_a_plane():
    system, matter, _f, ball, _slider = _model()
    sphere = SpherePlaneContact(
        matter.Ground(), Transform(), ball, [0, 0, 0], 0.1, 0.5, 0.6, 0.4, 0.1
    )  # plane z = 0, normal +z: use the z coordinate
    matter.adoptUnilateralContact(sphere)
    state = system.realizeTopology()
    ball.setOneQ(state, 2, 0.7)
    ball.setOneU(state, 2, -1.5)
    ball.setOneU(state, 0, 0.25)
    with pytest.raises(StageTooLowError):
        sphere.getPerr(state)
    system.realize(state, Stage.Acceleration)
    assert sphere.getPerr(state) == pytest.approx(0.6, abs=1e-14)
    assert sphere.getVerr(state) == pytest.approx(-1.5, abs=1e-14)
    assert sphere.getAerr(state) == pytest.approx(0.0, abs=1e-6)  # gravity is along -y
    np.testing.assert_allclose(np.abs(sphere.getSlipVelocity(state)), [0.25, 0.0], atol=1e-14)
    np.testing.assert_allclose(sphere.whereToDisplay(state), [0, 0, 0.6], atol=1e-14)
    assert not sphere.isEnabled(state)
    sphere.enable(state)
    assert sphere.isEnabled(state)
    sphere.disable(state)
    assert not sphere.isEnabled(state)
    system.realize(state, Stage.Position)  # switching is an Instance-stage change
    assert sphere.isProximal(state, 0.7) and not sphere.isProximal(state, 0.5)
    assert sphere.hasFriction() and sphere.getMinCOR() == 0.5
    assert sphere.getFrictionCoefficient(0.001, 0.01) == 0.6
    assert sphere.getFrictionCoefficient(2.0, 0.01) == pytest.approx(0.4 + 0.1 * 2.0)


def test_aerr_of_a_pendulum_hard_stop_is_its_angular_acceleration():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, [0, -G, 0])
    arm = Body.Rigid(MassProperties(1.0, [1, 0, 0], Inertia(0.01, 1.01, 1.01)))
    pin = MobilizedBody.Pin(matter.Ground(), Transform(), arm, Transform())
    stop = HardStopUpper(pin, 0, 0.8, 0.0)
    matter.adoptUnilateralContact(stop)
    state = system.realizeTopology()
    pin.setOneQ(state, 0, 0.3)
    pin.setOneU(state, 0, 2.0)
    system.realize(state, Stage.Acceleration)
    assert stop.getPerr(state) == pytest.approx(0.5, abs=1e-14)
    assert stop.getVerr(state) == pytest.approx(-2.0, abs=1e-14)
    alpha = -G * math.cos(0.3) / 1.01
    assert stop.getAerr(state) == pytest.approx(-alpha, rel=1e-6)
    assert stop.getDefaultUpperLimit() == 0.8


def test_calc_effective_cor_curve():
    f = UnilateralContact.calcEffectiveCOR
    assert f(0.4, 0.01, 1.0, 0.005) == 0.0
    assert f(0.4, 0.01, 1.0, 0.01) == 0.0
    assert f(0.4, 0.01, 1.0, 0.5) == pytest.approx(1 - 0.6 * 0.5)
    assert f(0.4, 0.01, 1.0, 1.0) == 0.4
    assert f(0.4, 0.01, 1.0, 7.0) == 0.4
    with pytest.raises(InvalidArgumentError, match=r"\[0, 1\]"):
        f(1.5, 0.01, 1.0, 1.0)
    with pytest.raises(InvalidArgumentError):
        f(0.5, 2.0, 1.0, 1.0)


def test_bad_input_is_refused():
    system, matter, _f, ball, slider = _model()
    ground = matter.Ground()
    with pytest.raises(InvalidArgumentError, match="radius"):
        SpherePlaneContact(ground, Transform(), ball, [0, 0, 0], -0.1, 0.5, 0, 0, 0)
    with pytest.raises(InvalidArgumentError, match="radius1"):
        SphereSphereContact(ball, [0, 0, 0], 0.0, slider, [0, 0, 0], 0.1, 0.5, 0, 0, 0)
    with pytest.raises(InvalidArgumentError, match="restitution"):
        PointPlaneContact(ground, [0, 1, 0], 0, ball, [0, 0, 0], 1.2, 0, 0, 0)
    with pytest.raises(InvalidArgumentError, match="restitution"):
        HardStopLower(slider, 0, 0.0, -0.1)
    with pytest.raises(InvalidArgumentError, match="mu_s must be >= 0"):
        PointPlaneContact(ground, [0, 1, 0], 0, ball, [0, 0, 0], 0.5, -0.1, 0, 0)
    with pytest.raises(InvalidArgumentError, match="exceeds the static"):
        PointPlaneContact(ground, [0, 1, 0], 0, ball, [0, 0, 0], 0.5, 0.2, 0.3, 0)
    with pytest.raises(InvalidArgumentError, match="normal must not be zero"):
        PointPlaneContact(ground, [0, 0, 0], 0, ball, [0, 0, 0], 0.5, 0, 0, 0)
    with pytest.raises(InvalidArgumentError, match="finite"):
        Rope(ground, [0, 0, 0], ball, [0, 0, 0], math.nan, 0.0)
    with pytest.raises(InvalidArgumentError, match="positive"):
        Rope(ground, [0, 0, 0], ball, [0, 0, 0], 0.0, 0.0)
    with pytest.raises(InvalidArgumentError, match="different bodies"):
        Rope(ball, [0, 0, 0], ball, [1, 0, 0], 1.0, 0.0)
    with pytest.raises(InvalidArgumentError, match="MobilizedBody"):
        HardStopUpper("slider", 0, 1.0, 0.0)
    with pytest.raises(InvalidArgumentError, match="normalForce"):
        MobilityFriction(slider, 0, -1.0, 0.3, 0.2, 0.0)
    bad_q = HardStopUpper(slider, 3, 1.0, 0.0)
    matter.adoptUnilateralContact(bad_q)
    state = system.realizeTopology()
    system.realize(state, Stage.Position)
    with pytest.raises(IndexOutOfRangeError, match="q 3 does not exist"):
        bad_q.getPerr(state)
    with pytest.raises(InvalidArgumentError, match="not adopted"):
        HardStopLower(slider, 0, 0.0, 0.0).getPerr(state)


def test_stepper_settings_and_refusals():
    system, *_rest = _model()
    ts = SemiExplicitEulerTimeStepper(system)
    assert ts.getRestitutionModel() == SemiExplicitEulerTimeStepper.Poisson
    assert ts.getInducedImpactModel() == SemiExplicitEulerTimeStepper.Mixed
    assert ts.getPositionProjectionMethod() == SemiExplicitEulerTimeStepper.Bilateral
    assert ts.getImpulseSolverType() == SemiExplicitEulerTimeStepper.PGS
    ts.setRestitutionModel(SemiExplicitEulerTimeStepper.Newton)
    ts.setInducedImpactModel(SemiExplicitEulerTimeStepper.Simultaneous)
    ts.setPositionProjectionMethod(SemiExplicitEulerTimeStepper.Unilateral)
    ts.setMaxInducedImpactsPerStep(3)
    ts.setAccuracy(1e-3)
    ts.setConstraintTol(1e-4)
    ts.setDefaultImpactCaptureVelocity(0.05)
    ts.setDefaultImpactMinCORVelocity(2.0)
    ts.setDefaultFrictionTransitionVelocity(0.02)
    assert ts.getRestitutionModel() == SemiExplicitEulerTimeStepper.Newton
    assert ts.getInducedImpactModel() == SemiExplicitEulerTimeStepper.Simultaneous
    assert ts.getMaxInducedImpactsPerStep() == 3
    assert (ts.getAccuracy(), ts.getConstraintTol()) == (1e-3, 1e-4)
    assert ts.getImpactCaptureVelocityInUse() == 0.05
    assert ts.getImpactMinCORVelocityInUse() == 2.0
    assert ts.getFrictionTransitionVelocityInUse() == 0.02
    with pytest.raises(InvalidArgumentError, match="PLUS"):
        ts.setImpulseSolverType(SemiExplicitEulerTimeStepper.PLUS)
    with pytest.raises(InvalidArgumentError, match="Poisson"):
        ts.setRestitutionModel(7)
    with pytest.raises(InvalidArgumentError):
        ts.setConstraintTol(-1)
    with pytest.raises(InvalidArgumentError, match="below the capture"):
        ts.setDefaultImpactMinCORVelocity(0.01)
    with pytest.raises(StageTooLowError, match="initialize"):
        ts.stepTo(0.1)
    with pytest.raises(InvalidArgumentError, match="MultibodySystem"):
        SemiExplicitEulerTimeStepper(object())
    state = system.realizeTopology()
    ts.initialize(state)
    ts.stepTo(0.01)
    assert ts.getTime() == pytest.approx(0.01) and ts.getNumSteps() == 1
    with pytest.raises(InvalidArgumentError, match="later than"):
        ts.stepTo(0.005)


@pytest.mark.parametrize("push, sticks", [(4.0, True), (8.0, False)])
def test_mobility_friction_sticks_below_its_limit_and_slides_above(push, sticks):
    """A slider (mass 2, no gravity along it) pushed by ``push`` N against a friction
    with normal force 20 N: limit mu_s N = 6 N, sliding friction mu_d N = 4 N."""
    system, matter, forces, _ball, slider = _model()
    Force.MobilityConstantForce(forces, slider, 0, push)
    matter.adoptStateLimitedFriction(MobilityFriction(slider, 0, 20.0, 0.3, 0.2, 0.0))
    state = system.realizeTopology()
    ts = SemiExplicitEulerTimeStepper(system)
    ts.setDefaultFrictionTransitionVelocity(0.0105)
    ts.initialize(state)
    h = 1e-3
    for i in range(100):
        ts.stepTo((i + 1) * h)
    u = ts.getState().getU()
    slide = u[3]
    if sticks:
        assert abs(slide) < 1e-12
    else:
        # Static friction (a = 1 m/s^2) while the slip speed at the start of a step is at
        # most the transition velocity: 11 steps; dynamic (a = 2 m/s^2) for the other 89.
        expected = ((push - 6.0) * 11 * h + (push - 4.0) * 89 * h) / 2.0
        assert slide == pytest.approx(expected, rel=1e-9)


def test_the_enabled_switches_are_state_variables_that_copies_keep():
    from engine import (
        Body,
        HardStopUpper,
        Inertia,
        MassProperties,
        MobilizedBody,
        MultibodySystem,
        SimbodyMatterSubsystem,
        Stage,
        Transform,
        Vec3,
    )

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, [0, 0, 0], Inertia(0.1, 0.1, 0.1)))
    pin = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform(Vec3(0, 1, 0)))
    stop = HardStopUpper(pin, 0, 0.5, 0.3)
    matter.adoptUnilateralContact(stop)
    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)
    assert not stop.isEnabled(state)
    stop.enable(state)
    assert stop.isEnabled(state)
    assert state.getSystemStage() < Stage.Instance  # an Instance-stage change, as in Simbody
    copy = state.copy()
    assert stop.isEnabled(copy)  # the switch travels with the State
    stop.disable(copy)
    assert stop.isEnabled(state) and not stop.isEnabled(copy)
