"""Constraints beyond the reference cases: simulation with projection, redundant and
disabled constraints, projection failures and error estimates, Custom constraints,
decorations, Functions and bad input.

Oracles: constraint errors stay below the integrator's constraint tolerance; a
duplicated Rod shares the load equally and leaves the motion unchanged; a planar loop
closed by a (partly redundant) Ball moves exactly as the same loop closed by two
PointInPlane constraints; a Python Custom rod reproduces Constraint.Rod; Function
derivatives agree with finite differences.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import (
    Body,
    Constraint,
    DecorativeLine,
    Force,
    Function,
    GeneralForceSubsystem,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    NonPhysicalError,
    ProjectionFailedError,
    ProjectOptions,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    StageTooLowError,
    TimeStepper,
    Transform,
)
from engine.common.decorative_geometry import DecorativeSphere
from engine.math.inertia import Inertia
from tests.engine.reference_data import load_reference
from tests.engine.reference_models import build

FOURBAR = load_reference("fourbar")["models"][0]


def _rod_body(mass: float, length: float) -> Body:
    """A slender rod along +x from the body origin."""
    I = mass * length**2 / 3
    return Body.Rigid(MassProperties(mass, [length / 2, 0, 0], Inertia(1e-4, I, I)))


def _planar_fourbar(closure: str):
    """Crank and rocker on Pins to Ground plus a coupler on a Pin at the crank tip; the
    coupler tip is closed onto the rocker tip by ``closure`` ('rod2' duplicates a Rod
    between crank and rocker instead of using a coupler body)."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, [0, -1, 0], 9.81, 0.0)
    ground = matter.Ground()
    crank = MobilizedBody.Pin(ground, Transform(), _rod_body(1.0, 1.0), Transform())
    rocker = MobilizedBody.Pin(ground, Transform([2.0, 0, 0]), _rod_body(1.5, 1.5), Transform())
    if closure in ("rod", "rod2"):
        rods = [Constraint.Rod(crank, [1.0, 0, 0], rocker, [1.5, 0, 0], 2.0)]
        if closure == "rod2":
            rods.append(Constraint.Rod(crank, [1.0, 0, 0], rocker, [1.5, 0, 0], 2.0))
        return system, matter, (crank, rocker), rods
    coupler = MobilizedBody.Pin(crank, Transform([1.0, 0, 0]), _rod_body(0.5, 2.0), Transform())
    if closure == "ball":
        cons = [Constraint.Ball(coupler, [2.0, 0, 0], rocker, [1.5, 0, 0])]
    else:  # two in-plane point constraints: the same closure without redundancy
        cons = [
            Constraint.PointInPlane(rocker, [1, 0, 0], 1.5, coupler, [2.0, 0, 0]),
            Constraint.PointInPlane(rocker, [0, 1, 0], 0.0, coupler, [2.0, 0, 0]),
        ]
    return system, matter, (crank, rocker, coupler), cons


def _assembled(system, matter, bodies, u0=0.7):
    state = system.realizeTopology()
    system.realizeModel(state)
    bodies[0].setOneQ(state, 0, 1.1)
    bodies[1].setOneQ(state, 0, 1.9)
    if len(bodies) > 2:
        bodies[2].setOneQ(state, 0, -1.2)
    bodies[0].setOneU(state, 0, u0)
    system.project(state, 1e-12)
    system.realize(state, Stage.Acceleration)
    return state


# ------------------------------------------------------------------ simulation
def _simulate(system, state, t_end=10.0, tol=1e-6):
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-4)
    integ.setConstraintTolerance(tol)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)
    worst = 0.0
    for t in np.linspace(1.0, t_end, 10):
        stepper.stepTo(t)
        s = integ.getState()
        worst = max(worst, float(np.max(np.abs(s.getQErr()))), float(np.max(np.abs(s.getUErr()))))
    assert integ.getTime() == pytest.approx(t_end)
    return integ, worst


def test_fourbar_drifts_less_than_the_constraint_tolerance_over_10s():
    system = build(FOURBAR["model"]).system
    state = system.realizeTopology()
    system.realizeModel(state)
    sample = FOURBAR["samples"][0]["state"]
    state.setQ(sample["q"])
    state.setU(sample["u"])
    system.realize(state, Stage.Dynamics)
    e0 = system.calcEnergy(state)
    integ, worst = _simulate(system, state)
    assert worst < 1e-6
    assert integ.getNumQProjections() > 0
    final = integ.getState()
    system.realize(final, Stage.Dynamics)
    assert abs(system.calcEnergy(final) - e0) < 1e-2 * abs(e0)


def test_slider_crank_drifts_less_than_the_constraint_tolerance_over_10s():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, [0, -1, 0], 9.81, 0.0)
    r, L = 0.3, 1.0
    crank = MobilizedBody.Pin(matter.Ground(), Transform(), _rod_body(2.0, r), Transform())
    slider = MobilizedBody.Slider(
        matter.Ground(),
        Transform(),
        Body.Rigid(MassProperties(0.5, [0, 0, 0], Inertia(0.01, 0.01, 0.01))),
        Transform(),
    )
    rod = Constraint.Rod(crank, [r, 0, 0], slider, [0, 0, 0], L)
    state = system.realizeTopology()
    system.realizeModel(state)
    theta = 0.4
    crank.setOneQ(state, 0, theta)
    slider.setOneQ(state, 0, r * math.cos(theta) + math.sqrt(L**2 - (r * math.sin(theta)) ** 2))
    crank.setOneU(state, 0, 6.0)
    system.project(state, 1e-10)
    system.realize(state, Stage.Acceleration)
    assert abs(rod.getPositionErrorsAsVector(state)[0]) < 1e-10
    integ, worst = _simulate(system, state)
    assert worst < 1e-6
    final = integ.getState()
    # The rod really stays at its length: measure it from the body poses.
    p1 = crank.findStationLocationInGround(final, [r, 0, 0])
    p2 = slider.getBodyOriginLocation(final)
    assert abs(np.linalg.norm(p2 - p1) - L) < 1e-6


# ---------------------------------------------------------- redundant constraints
def test_duplicated_rod_shares_the_load_and_changes_nothing_else():
    sys1, m1, b1, _ = _planar_fourbar("rod")
    sys2, m2, b2, rods = _planar_fourbar("rod2")
    s1 = _assembled(sys1, m1, b1)
    s2 = _assembled(sys2, m2, b2)
    np.testing.assert_allclose(s2.getQ(), s1.getQ(), atol=1e-12)
    np.testing.assert_allclose(s2.getUDot(), s1.getUDot(), rtol=1e-9, atol=1e-9)
    lam1 = s1.getMultipliers()[0]
    lam2 = s2.getMultipliers()
    np.testing.assert_allclose(lam2, [lam1 / 2, lam1 / 2], rtol=1e-8)
    assert np.max(np.abs(s2.getUDotErr())) < 1e-9
    W = m2.calcProjectedMInv(s2)
    assert np.linalg.matrix_rank(W, tol=1e-10 * np.max(np.abs(W))) == 1
    # Impulses for a consistent velocity change are shared the same way.
    imp = m2.solveForConstraintImpulses(s2, [0.3, 0.3])
    np.testing.assert_allclose(imp[0], imp[1], rtol=1e-9)
    assert rods[0].getMultipliersAsVector(s2)[0] == pytest.approx(lam1 / 2, rel=1e-8)


def test_planar_loop_closed_by_a_ball_matches_the_nonredundant_closure():
    sb, mb, bb, (ball,) = _planar_fourbar("ball")
    sp, mpl, bp, _ = _planar_fourbar("planes")
    state_b = _assembled(sb, mb, bb)
    state_p = sp.realizeTopology()
    sp.realizeModel(state_p)
    state_p.setQ(state_b.getQ())
    state_p.setU(state_b.getU())
    sp.realize(state_p, Stage.Acceleration)
    assert np.max(np.abs(state_p.getQErr())) < 1e-10
    assert np.max(np.abs(state_p.getUErr())) < 1e-10
    np.testing.assert_allclose(state_b.getUDot(), state_p.getUDot(), rtol=1e-8, atol=1e-8)
    # The out-of-plane equation is redundant: its multiplier is zero (minimum norm).
    lam = ball.getMultipliersAsVector(state_b)
    assert abs(lam[2]) < 1e-9 * np.max(np.abs(lam))
    assert np.max(np.abs(state_b.getUDotErr())) < 1e-9
    # The constraint reactions agree too.
    Fb, _ = mb.findConstraintForces(state_b)
    Fp, _ = mpl.findConstraintForces(state_p)
    np.testing.assert_allclose(Fb, Fp, rtol=1e-7, atol=1e-8)


# ------------------------------------------------------------ disabled constraint
def test_disabled_constraint_is_an_instance_stage_change_and_removes_its_equations():
    system, matter, bodies, (rod,) = _planar_fourbar("rod")
    state = _assembled(system, matter, bodies)
    assert state.getNMultipliers() == 1
    rod.disable(state)
    assert state.getSystemStage() == Stage.Model
    assert rod.isDisabled(state) and matter.isConstraintDisabled(state, rod)
    system.realize(state, Stage.Acceleration)
    assert state.getNQErr() == 0 and state.getNMultipliers() == 0
    assert rod.getNumConstraintEquationsInUse(state) == (0, 0, 0)
    assert rod.getIndexOfMultipliersInUse(state) == (-1, -1, -1)
    F, f = system.getAppliedForces(state)
    udot_free, _ = matter.calcAccelerationIgnoringConstraints(state, f, np.reshape(F, (-1, 2, 3)))
    np.testing.assert_allclose(state.getUDot(), udot_free, rtol=1e-12)
    F, f = matter.findConstraintForces(state)
    assert not F.any() and not f.any()
    rod.enable(state)
    system.realize(state, Stage.Acceleration)
    assert state.getNMultipliers() == 1
    assert abs(state.getUDotErr()[0]) < 1e-10


def test_disabled_by_default():
    system, matter, bodies, (rod,) = _planar_fourbar("rod")
    rod.setDisabledByDefault(True)
    state = system.realizeTopology()
    system.realize(state, Stage.Instance)
    assert rod.isDisabledByDefault() and rod.isDisabled(state)
    assert state.getNMultipliers() == 0


# ------------------------------------------------------------------- projection
def test_projection_failure_names_the_constraint_and_its_error():
    system, matter, bodies, (rod,) = _planar_fourbar("rod")
    state = _assembled(system, matter, bodies)
    rod.setRodLength(state, 10.0)  # unreachable: the pivots are 2 apart, the links 2.5
    assert state.getSystemStage() == Stage.Time
    failed = system.getNumFailedProjectQCalls()
    with pytest.raises(ProjectionFailedError, match=r"Constraint\.Rod 0 .*weighted error"):
        system.project(state, 1e-8)
    assert system.getNumFailedProjectQCalls() == failed + 1
    # With DontThrow the results say what happened.
    system.realize(state, Stage.Position)
    opts = ProjectOptions(1e-8).setOption(ProjectOptions.DontThrow)
    _, results = system.projectQ(state, np.zeros(0), opts)
    assert results.getExitStatus() != results.Succeeded
    assert "Constraint.Rod 0" in results.getMessage()


def test_local_projection_refuses_errors_beyond_the_projection_limit():
    system, matter, bodies, (rod,) = _planar_fourbar("rod")
    state = _assembled(system, matter, bodies)
    bodies[0].setOneQ(state, 0, 2.5)
    system.realize(state, Stage.Position)
    q_before = np.array(state.getQ())
    opts = ProjectOptions(1e-8).setOption(ProjectOptions.LocalOnly).setProjectionLimit(1e-3)
    opts.setOption(ProjectOptions.DontThrow)
    _, results = system.projectQ(state, np.zeros(0), opts)
    assert results.getProjectionLimitExceeded()
    np.testing.assert_array_equal(state.getQ(), q_before)


def test_error_estimate_projection_removes_the_constraint_normal_part():
    system, matter, bodies, _ = _planar_fourbar("planes")
    state = _assembled(system, matter, bodies)
    rng = np.random.default_rng(3)
    q_est = rng.normal(size=state.getNQ())
    u_est = rng.normal(size=state.getNU())
    opts = ProjectOptions(1e-10)
    q_out, _ = system.projectQ(state, q_est, opts)
    assert q_out is q_est
    assert np.max(np.abs(matter.calcPq(state) @ q_est)) < 1e-12
    system.realize(state, Stage.Velocity)
    system.projectU(state, u_est, opts)
    assert np.max(np.abs(matter.calcP(state) @ u_est)) < 1e-12


def test_projection_normalizes_quaternions_and_uses_the_weights():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, [0, 0, 0], Inertia(1, 1, 1)))
    ball = MobilizedBody.Ball(matter.Ground(), Transform(), body, Transform([0, -1, 0]))
    free = MobilizedBody.Free(matter.Ground(), Transform([3, 0, 0]), body, Transform())
    rod = Constraint.Rod(ball, [0, 0, 0], free, [0, 0, 0], 2.5)
    state = system.realizeTopology()
    system.realizeModel(state)
    q = np.array(state.getQ())
    q[0:4] = [1.3, 0.2, 0.1, 0.0]
    q[4:8] = [0.7, 0.0, 0.3, 0.1]
    q[8:11] = [-1.2, 0.3, 0.0]  # the ball body alone can reach the rod length
    state.setQ(q)
    system.realize(state, Stage.Position)
    assert state.getNQErr() == 3  # one rod + two quaternions
    system.projectQ(state, 1e-12)
    assert np.max(np.abs(state.getQErr())) < 1e-12
    assert abs(rod.getPositionErrorsAsVector(state)[0]) < 1e-12
    # Weight the free body's translation far more heavily: it then barely moves.
    state2 = system.realizeTopology()
    system.realizeModel(state2)
    state2.setQ(q)
    system.realize(state2, Stage.Instance)
    state2.updUWeights()[3 + 3 :] = 1e6
    system.projectQ(state2, 1e-12)
    assert np.max(np.abs(state2.getQ()[8:11] - q[8:11])) < 1e-4
    assert abs(rod.getPositionErrorsAsVector(state2)[0]) < 1e-12


# ------------------------------------------------------------------ custom
class _PythonRod(Constraint.Custom.Implementation):
    """|p2 - p1| - L written by hand."""

    def __init__(self, b1, s1, b2, s2, length):
        super().__init__(b1.getMatterSubsystem(), 1, 0, 0)
        self.k1 = self.addConstrainedBody(b1)
        self.k2 = self.addConstrainedBody(b2)
        self.s1, self.s2, self.L = np.array(s1, float), np.array(s2, float), length

    def _d(self, k):
        return k.station(self.k2, self.s2) - k.station(self.k1, self.s1)

    def calcPositionErrors(self, k):
        return [np.linalg.norm(self._d(k)) - self.L]

    def calcPositionDotErrors(self, k):
        d = self._d(k)
        v = k.station_velocity(self.k2, self.s2) - k.station_velocity(self.k1, self.s1)
        return [d @ v / np.linalg.norm(d)]

    def calcPositionDotDotErrors(self, k):
        d = self._d(k)
        r = np.linalg.norm(d)
        v = k.station_velocity(self.k2, self.s2) - k.station_velocity(self.k1, self.s1)
        a = k.station_acceleration(self.k2, self.s2) - k.station_acceleration(self.k1, self.s1)
        return [d @ a / r + (v @ v - (d @ v / r) ** 2) / r]

    def addInPositionConstraintForces(self, k, multipliers, forces):
        d = self._d(k)
        f = multipliers[0] * d / np.linalg.norm(d)
        forces.station_force(self.k2, self.s2, f)
        forces.station_force(self.k1, self.s1, -f)


def test_custom_constraint_reproduces_rod():
    sys1, m1, b1, _ = _planar_fourbar("rod")
    s1 = _assembled(sys1, m1, b1)
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, [0, -1, 0], 9.81, 0.0)
    crank = MobilizedBody.Pin(matter.Ground(), Transform(), _rod_body(1.0, 1.0), Transform())
    rocker = MobilizedBody.Pin(
        matter.Ground(), Transform([2.0, 0, 0]), _rod_body(1.5, 1.5), Transform()
    )
    custom = Constraint.Custom(_PythonRod(crank, [1, 0, 0], rocker, [1.5, 0, 0], 2.0))
    state = system.realizeTopology()
    system.realizeModel(state)
    state.setQ(s1.getQ())
    state.setU(s1.getU())
    system.realize(state, Stage.Acceleration)
    np.testing.assert_allclose(state.getUDot(), s1.getUDot(), rtol=1e-12)
    np.testing.assert_allclose(state.getMultipliers(), s1.getMultipliers(), rtol=1e-12)
    np.testing.assert_allclose(matter.calcG(state), m1.calcG(s1), rtol=1e-12)
    assert custom.getNumConstraintEquationsInUse(state) == (1, 0, 0)


# ----------------------------------------------------------------- decorations
def test_rod_draws_a_line_between_its_points():
    system, matter, bodies, (rod,) = _planar_fourbar("rod")
    state = _assembled(system, matter, bodies)
    geometry = system.calcDecorativeGeometryAndAppend(state, Stage.Position)
    lines = [g for g in geometry if isinstance(g, DecorativeLine)]
    assert len(lines) == 1
    p1 = bodies[0].findStationLocationInGround(state, [1.0, 0, 0])
    p2 = bodies[1].findStationLocationInGround(state, [1.5, 0, 0])
    np.testing.assert_allclose(lines[0].getPoint1(), p1, atol=1e-12)
    np.testing.assert_allclose(lines[0].getPoint2(), p2, atol=1e-12)
    assert sum(isinstance(g, DecorativeSphere) for g in geometry) >= 2
    rod.disable(state)
    system.realize(state, Stage.Position)
    geometry = system.calcDecorativeGeometryAndAppend(state, Stage.Position)
    assert not [g for g in geometry if isinstance(g, DecorativeLine)]


# ------------------------------------------------------------------- functions
@pytest.mark.parametrize(
    "f",
    [
        Function.Constant(2.5, 2),
        Function.Linear([1.5, -2.0, 0.25]),
        Function.Polynomial([0.5, -1.0, 2.0, 3.0]),
        Function.Sinusoid(1.3, 2.1, 0.4),
        Function.Step(1.0, 3.0, -0.5, 1.5),
        Function.Custom(lambda x: math.exp(x[0]) * x[1], 2),
    ],
    ids=["Constant", "Linear", "Polynomial", "Sinusoid", "Step", "Custom"],
)
def test_function_derivatives_match_finite_differences(f):
    rng = np.random.default_rng(7)
    n = f.getArgumentSize()
    x = rng.uniform(-0.4, 0.9, size=n)
    h = 1e-5
    for i in range(n):
        e = np.zeros(n)
        e[i] = h
        fd = (f.calcValue(x + e) - f.calcValue(x - e)) / (2 * h)
        assert f.calcDerivative([i], x) == pytest.approx(fd, rel=1e-6, abs=1e-7)
        for j in range(n):
            e2 = np.zeros(n)
            e2[j] = h
            fd2 = (f.calcDerivative([i], x + e2) - f.calcDerivative([i], x - e2)) / (2 * h)
            assert f.calcDerivative([i, j], x) == pytest.approx(fd2, rel=1e-5, abs=1e-5)
    with pytest.raises(InvalidArgumentError):
        f.calcValue(np.zeros(n + 1))


# -------------------------------------------------------------------- bad input
def test_bad_input_gives_clear_errors():
    system, matter, bodies, _ = _planar_fourbar("rod")
    crank, rocker = bodies
    n = matter.getNumConstraints()
    with pytest.raises(InvalidArgumentError, match="between a body and itself"):
        Constraint.Rod(crank, [0, 0, 0], crank, [1, 0, 0], 1.0)
    with pytest.raises(InvalidArgumentError, match="between a body and itself"):
        Constraint.Ball(rocker, rocker)
    with pytest.raises(InvalidArgumentError, match="zero-length rod"):
        Constraint.Rod(crank, [0, 0, 0], rocker, [0, 0, 0], 0.0)
    with pytest.raises(InvalidArgumentError, match="positive"):
        Constraint.Rod(crank, rocker, -1.0)
    with pytest.raises(InvalidArgumentError, match="zero vector"):
        Constraint.PointInPlane(crank, [0, 0, 0], 0.0, rocker, [0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="out of range"):
        Constraint.ConstantSpeed(crank, 3, 1.0)
    with pytest.raises(InvalidArgumentError, match="Ground has no"):
        Constraint.ConstantSpeed(matter.Ground(), 1.0)
    with pytest.raises(InvalidArgumentError, match="same length"):
        Constraint.CoordinateCoupler(matter, Function.Linear([1, 0]), [crank, rocker], [0])
    with pytest.raises(InvalidArgumentError, match="one argument"):
        Constraint.PrescribedMotion(matter, Function.Linear([1, 1, 0]), crank, 0)
    other = SimbodyMatterSubsystem(MultibodySystem())
    stranger = MobilizedBody.Pin(other.Ground(), _rod_body(1.0, 1.0))
    with pytest.raises(InvalidArgumentError, match="same SimbodyMatterSubsystem"):
        Constraint.Rod(crank, stranger, 1.0)
    body = Body.Rigid(MassProperties(1.0, [0, 0, 0], Inertia(1, 1, 1)))
    ballmob = MobilizedBody.Ball(matter.Ground(), body)
    with pytest.raises(InvalidArgumentError, match="no coordinate 4"):
        Constraint.ConstantCoordinate(ballmob, 4, 0.0)
    assert matter.getNumConstraints() == n  # nothing was added by the failed calls
    # Coincident rod points at run time are a NonPhysicalError, not a NaN.
    rod = Constraint.Rod(crank, [1, 0, 0], rocker, [-1, 0, 0], 1.0)
    state = system.realizeTopology()
    system.realizeModel(state)
    system.realize(state, Stage.Position)  # at q = 0 the points coincide; perr is fine
    assert rod.getPositionErrorsAsVector(state)[0] == pytest.approx(-1.0)
    with pytest.raises(NonPhysicalError, match="coincide"):
        system.realize(state, Stage.Velocity)  # pverr needs the rod direction
    assert rod.getConstraintIndex() == n


def test_operators_check_stage_and_sizes():
    system, matter, bodies, _ = _planar_fourbar("rod")
    state = system.realizeTopology()
    system.realizeModel(state)
    with pytest.raises(StageTooLowError):
        matter.calcG(state)
    with pytest.raises(StageTooLowError):
        matter.getConstraintMultipliers(state)
    system.realize(state, Stage.Velocity)
    with pytest.raises(InvalidArgumentError, match="length 2"):
        matter.multiplyByG(state, [1.0, 2.0, 3.0])
    with pytest.raises(InvalidArgumentError, match="length 1"):
        matter.multiplyByGTranspose(state, [1.0, 2.0])
    with pytest.raises(StageTooLowError):
        matter.findConstraintForces(state)


def test_function_values_follow_simbody_definitions():
    step = Function.Step(1.0, 3.0, -0.5, 1.5)
    assert step.calcValue([-1.0]) == 1.0 and step.calcValue([2.0]) == 3.0
    assert step.calcValue([0.5]) == pytest.approx(2.0)  # midway
    assert step.calcDerivative([0], [-0.5]) == 0.0 and step.calcDerivative([0, 0], [1.5]) == 0.0
    assert Function.Polynomial([2.0, 0.0, -1.0]).calcValue([3.0]) == pytest.approx(17.0)
    assert Function.Linear([2.0, -1.0, 0.5]).calcValue([1.0, 4.0]) == pytest.approx(-1.5)
    sine = Function.Sinusoid(2.0, 3.0, 0.5)
    assert sine.calcValue([0.7]) == pytest.approx(2.0 * math.sin(3.0 * 0.7 + 0.5))
    assert sine.calcDerivative([0, 0], [0.7]) == pytest.approx(-18.0 * math.sin(2.6))
    assert Function.Constant(4.0).calcDerivative([0], [1.0]) == 0.0


class _PythonSpeed(Constraint.Custom.Implementation):
    """u - speed as a Custom nonholonomic constraint (mv = 1)."""

    def __init__(self, mobod, speed):
        super().__init__(mobod.getMatterSubsystem(), 0, 1, 0)
        self.i = self.addConstrainedMobilizer(mobod, 0)
        self.speed = speed

    def calcVelocityErrors(self, k):
        return [k.u[self.getConstrainedUIndex(self.i)] - self.speed]

    def calcVelocityDotErrors(self, k):
        return [k.udot[self.getConstrainedUIndex(self.i)]]

    def addInVelocityConstraintForces(self, k, multipliers, forces):
        forces.f[self.i] += multipliers[0]


def test_custom_nonholonomic_constraint_reproduces_constant_speed():
    results = []
    for kind in ("builtin", "custom"):
        system, matter, bodies, _ = _planar_fourbar("rod")
        if kind == "builtin":
            c = Constraint.ConstantSpeed(bodies[0], 0, 0.7)
        else:
            c = Constraint.Custom(_PythonSpeed(bodies[0], 0.7))
        state = _assembled(system, matter, bodies, u0=0.5)
        assert c.getNumConstraintEquationsInUse(state) == (0, 1, 0)
        assert abs(c.getVelocityErrorsAsVector(state)[0]) < 1e-10  # projection fixed u
        results.append((np.array(state.getUDot()), np.array(state.getMultipliers())))
        assert c.calcPower(state) == pytest.approx(-c.getMultipliersAsVector(state)[0] * 0.7)
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-12)


@pytest.mark.parametrize("i", [1, 3])
def test_error_derivatives_match_finite_differences_in_time(i):
    """On the raw (constraint-violating) zoo states: the velocity errors are the time
    derivatives of the position errors and the acceleration errors those of the velocity
    errors, by central differences along the motion (q, u advanced with qdot, udot).
    (The Weld's translational rows use the point of body 1 coincident with the body-2
    origin; here body 1 is the Weld's ancestor, so that is the exact derivative too.)"""
    model = load_reference("fourbar")["models"][3]
    built = build(model["model"])
    system, matter = built.system, built.matter
    sample = model["samples"][i]["state"]

    def state_at(h):
        s = system.realizeTopology()
        system.realizeModel(s)
        s.setTime(sample["t"])
        s.setQ(sample["q"])
        s.setU(sample["u"])
        system.realize(s, Stage.Acceleration)
        if h:
            qdot, qdotdot = np.array(s.getQDot()), np.array(s.getQDotDot())
            udot = np.array(s.getUDot())
            q = np.array(s.getQ()) + h * qdot + 0.5 * h * h * qdotdot
            u = np.array(s.getU()) + h * udot
            s.setTime(sample["t"] + h)
            s.setQ(q)
            s.setU(u)
            system.realize(s, Stage.Velocity)
        return s

    s0 = state_at(0.0)
    h = 1e-6
    sp, sm = state_at(h), state_at(-h)
    mp = matter.getNumPositionConstraintEquationsInUse(s0)
    assert np.max(np.abs(s0.getQErr()[:mp])) > 0.1  # really violated
    dperr = (sp.getQErr()[:mp] - sm.getQErr()[:mp]) / (2 * h)
    np.testing.assert_allclose(dperr, s0.getUErr()[:mp], atol=1e-6)
    duerr = (np.array(sp.getUErr()) - np.array(sm.getUErr())) / (2 * h)
    aerr = matter.calcConstraintAccelerationErrors(s0, s0.getUDot())
    np.testing.assert_allclose(duerr, aerr[: duerr.size], atol=1e-5)


def test_euler_angle_mode_has_the_same_constraint_errors_without_quaternion_entries():
    model = load_reference("fourbar")["models"][3]
    built = build(model["model"])
    system, matter = built.system, built.matter
    sample = model["samples"][1]["state"]
    s = system.realizeTopology()
    system.realizeModel(s)
    s.setTime(sample["t"])
    s.setQ(sample["q"])
    s.setU(sample["u"])
    system.realize(s, Stage.Position)
    matter.normalizeQuaternions(s)
    system.realize(s, Stage.Acceleration)
    e = matter.convertToEulerAngles(s)
    e.setTime(sample["t"])
    e.setU(s.getU())  # the conversion resets u (as Simbody); u means the same in both modes
    system.realize(e, Stage.Acceleration)
    mp = matter.getNumPositionConstraintEquationsInUse(s)
    assert matter.getNumQuaternionsInUse(e) == 0
    assert e.getNQErr() == mp and s.getNQErr() == mp + 4
    np.testing.assert_allclose(e.getQErr(), s.getQErr()[:mp], atol=1e-12)
    np.testing.assert_allclose(e.getUErr(), s.getUErr(), atol=1e-12)
    np.testing.assert_allclose(e.getMultipliers(), s.getMultipliers(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(e.getUDot(), s.getUDot(), rtol=1e-9, atol=1e-9)
