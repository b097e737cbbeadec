"""Force.Custom (a Python implementation) and the decorations of the two-point forces."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    DecorativeLine,
    Force,
    GeneralForceSubsystem,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    NonPhysicalError,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
)
from engine.math.inertia import Inertia


def _pendulum_chain():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    body = Body.Rigid(MassProperties(1.5, Vec3(0.1, -0.4, 0.05), Inertia(0.2, 0.1, 0.25)))
    pin = MobilizedBody.Pin(matter.Ground(), Transform(Vec3(0, 1, 0)), body, Transform())
    ball = MobilizedBody.Ball(pin, Transform(Vec3(0, -0.8, 0)), body, Transform(Vec3(0, 0.2, 0)))
    return system, matter, forces, pin, ball


class Recorder(Force.Custom.Implementation):
    """A zero-length spring from a body station to a Ground point, recording its calls."""

    def __init__(self, mobod, station, p0, k, positionsOnly=False):
        self.mobod, self.station, self.p0, self.k = mobod, np.asarray(station), np.asarray(p0), k
        self.positionsOnly = positionsOnly
        self.calls: list[str] = []

    def calcForce(self, state, bodyForces, particleForces, mobilityForces):
        self.calls.append("calcForce")
        r = self.mobod.findStationLocationInGround(state, self.station) - self.p0
        self.mobod.applyForceToBodyPoint(state, self.station, -self.k * r, bodyForces)

    def calcPotentialEnergy(self, state):
        r = self.mobod.findStationLocationInGround(state, self.station) - self.p0
        return 0.5 * self.k * float(r @ r)

    def dependsOnlyOnPositions(self):
        return self.positionsOnly

    def realizeTopology(self, state):
        self.calls.append("Topology")

    def realizeModel(self, state):
        self.calls.append("Model")

    def realizeInstance(self, state):
        self.calls.append("Instance")

    def realizeTime(self, state):
        self.calls.append("Time")

    def realizePosition(self, state):
        self.calls.append("Position")

    def realizeVelocity(self, state):
        self.calls.append("Velocity")

    def realizeDynamics(self, state):
        self.calls.append("Dynamics")

    def realizeAcceleration(self, state):
        self.calls.append("Acceleration")

    def realizeReport(self, state):
        self.calls.append("Report")

    def calcDecorativeGeometryAndAppend(self, state, stage, geometry):
        if stage == Stage.Position:
            p = self.mobod.findStationLocationInGround(state, self.station)
            geometry.append(DecorativeLine(p, self.p0).setUserRef("custom"))


def _state(system, pin, ball):
    s = system.realizeTopology()
    pin.setOneQ(s, 0, 0.4)
    ball.setQ(s, [np.cos(0.3), 0.0, np.sin(0.3), 0.0])
    pin.setOneU(s, 0, -0.7)
    ball.setU(s, [0.2, 0.5, -0.3])
    return s


def test_custom_force_equals_the_built_in_it_imitates():
    system, matter, forces, pin, ball = _pendulum_chain()
    station, p0, k = [0.1, 0.3, -0.2], [0.4, -0.2, 0.3], 12.0
    custom = Force.Custom(forces, Recorder(ball, station, p0, k))
    builtin = Force.TwoPointLinearSpring(forces, ball, station, matter.Ground(), p0, k, 0.0)
    s = _state(system, pin, ball)
    system.realize(s, Stage.Acceleration)
    bc, _, mc = custom.calcForceContribution(s)
    bb, _, mb = builtin.calcForceContribution(s)
    assert np.any(bc[ball.getMobilizedBodyIndex()])
    # The built-in also pushes on Ground (body 0); the custom one applies only to the ball.
    np.testing.assert_allclose(bc[1:], bb[1:], rtol=1e-13, atol=1e-13)
    np.testing.assert_array_equal(mc, mb)
    assert custom.calcPotentialEnergyContribution(s) == pytest.approx(
        builtin.calcPotentialEnergyContribution(s), rel=1e-13
    )
    assert system.calcPotentialEnergy(s) == pytest.approx(
        2 * builtin.calcPotentialEnergyContribution(s), rel=1e-13
    )
    assert custom.getImplementation().k == k


def test_custom_realize_hooks_follow_the_stages():
    system, matter, forces, pin, ball = _pendulum_chain()
    impl = Recorder(ball, [0, 0, 0], [0, 0, 0], 1.0)
    custom = Force.Custom(forces, impl)
    s = system.realizeTopology()
    assert impl.calls == ["Topology", "Model"]
    impl.calls.clear()
    system.realize(s, Stage.Report)
    assert impl.calls == [
        "Instance",
        "Time",
        "Position",
        "Velocity",
        "Dynamics",
        "calcForce",
        "Acceleration",
        "Report",
    ]
    impl.calls.clear()
    custom.disable(s)
    system.realize(s, Stage.Report)
    assert impl.calls == []  # a disabled element is not realized


def test_position_only_forces_are_evaluated_once_per_configuration():
    system, matter, forces, pin, ball = _pendulum_chain()
    impl = Recorder(ball, [0.1, 0, 0], [0, 0.5, 0], 3.0, positionsOnly=True)
    Force.Custom(forces, impl)
    s = _state(system, pin, ball)
    system.realize(s, Stage.Acceleration)
    udot = s.getUDot().copy()
    assert impl.calls.count("calcForce") == 1
    ball.setU(s, [1.0, 2.0, 3.0])
    system.realize(s, Stage.Acceleration)
    assert impl.calls.count("calcForce") == 1  # velocities changed, forces reused
    ball.setU(s, [0.2, 0.5, -0.3])
    system.realize(s, Stage.Acceleration)
    np.testing.assert_array_equal(s.getUDot(), udot)
    pin.setOneQ(s, 0, 0.5)
    system.realize(s, Stage.Acceleration)
    assert impl.calls.count("calcForce") == 2


def test_custom_implementation_must_provide_calc_methods_and_finite_values():
    system, matter, forces, pin, ball = _pendulum_chain()

    class NoForce:
        def calcPotentialEnergy(self, state):
            return 0.0

    with pytest.raises(InvalidArgumentError, match="calcForce"):
        Force.Custom(forces, NoForce())
    assert forces.getNumForces() == 0

    class Bad(Force.Custom.Implementation):
        def calcForce(self, state, bodyForces, particleForces, mobilityForces):
            mobilityForces[0] += np.nan

        def calcPotentialEnergy(self, state):
            return 0.0

    Force.Custom(forces, Bad())
    s = _state(system, pin, ball)
    with pytest.raises(NonPhysicalError, match="non-finite force"):
        system.realize(s, Stage.Dynamics)


def test_two_point_forces_and_custom_draw_through_the_system():
    system, matter, forces, pin, ball = _pendulum_chain()
    s1, s2 = Vec3(0.1, 0.2, 0.0), Vec3(0.3, 0.0, -0.2)
    spring = Force.TwoPointLinearSpring(forces, pin, s1, ball, s2, 5.0, 0.1)
    damper = Force.TwoPointLinearDamper(forces, pin, s1, ball, s2, 0.5)
    push = Force.TwoPointConstantForce(forces, pin, s1, ball, s2, 1.0)
    Force.MobilityLinearSpring(forces, pin, 0, 1.0, 0.0)  # draws nothing
    Force.Custom(forces, Recorder(ball, s2, [0, 0, 0], 1.0))
    s = _state(system, pin, ball)
    system.realize(s, Stage.Position)
    p1 = pin.findStationLocationInGround(s, s1)
    p2 = ball.findStationLocationInGround(s, s2)

    def force_lines(state):
        geometry = system.calcDecorativeGeometryAndAppend(state, Stage.Position, [])
        return [
            g
            for g in geometry
            if isinstance(g, DecorativeLine)
            and np.allclose(g.getPoint1(), p1)
            and np.allclose(g.getPoint2(), p2)
        ], [g for g in geometry if g.getUserRef() == "custom"]

    lines, custom = force_lines(s)
    assert len(lines) == 3 and len(custom) == 1
    assert all(g.getBodyId() == 0 for g in lines)
    assert len({tuple(g.getColor()) for g in lines}) == 3
    damper.disable(s)
    system.realize(s, Stage.Position)
    assert len(force_lines(s)[0]) == 2
    # Nothing at other stages (the lines need positions).
    system.realize(s, Stage.Position)
    assert spring.getForceIndex() == 0 and push.getForceIndex() == 2
    geometry = system.calcDecorativeGeometryAndAppend(s, Stage.Topology, [])
    assert not any(
        isinstance(g, DecorativeLine) and np.allclose(g.getPoint1(), p1) for g in geometry
    )
