"""Markers and OrientationSensors: bookkeeping, goal formulas, analytic gradients against
finite differences (including quaternion coordinates), and pose recovery."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import (
    Body,
    IndexOutOfRangeError,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Transform,
)
from engine.assembler import Assembler, Markers, OrientationSensors
from engine.assembler.orientation_sensors import rotation_vector


def _free_and_pin():
    """Ground -Free- b1 -Pin- b2: 7 + 1 q (one quaternion)."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, [0, 0, 0], [0.1, 0.1, 0.1]))
    b1 = MobilizedBody.Free(matter.Ground(), Transform(), body, Transform())
    b2 = MobilizedBody.Pin(b1, Transform([0.5, 0, 0]), body, Transform([-0.2, 0, 0]))
    return system, matter, b1, b2


def _pose(q_rot, p, angle):
    q = np.zeros(8)
    q[0:4] = q_rot / np.linalg.norm(q_rot)
    q[4:7] = p
    q[7] = angle
    return q


STATIONS = [
    (1, [0.1, 0.2, 0.0]),
    (1, [0.0, -0.1, 0.3]),
    (1, [-0.2, 0.05, 0.1]),
    (2, [0.3, 0.0, 0.1]),
    (2, [0.1, -0.2, 0.0]),
]


def _observations_at(system, matter, q):
    s = system.realizeTopology()
    s.setQ(q)
    system.realize(s)
    return [matter.getMobilizedBody(b).findStationLocationInGround(s, st) for b, st in STATIONS]


def test_marker_bookkeeping():
    m = Markers()
    assert m.getName() == "Markers"
    a = m.addMarker("hip", 1, [0, 0, 1], 2.0)
    b = m.addMarker(2, [1, 0, 0])
    assert (a, b) == (0, 1) and m.getNumMarkers() == 2
    assert m.getMarkerName(b) == "_UNNAMED_1" and m.getMarkerIx("hip") == 0
    assert m.getMarkerIx("knee") == -1
    assert m.getMarkerWeight("hip") == 2.0 and m.getMarkerBody(1) == 2
    np.testing.assert_array_equal(m.getMarkerStation(0), [0, 0, 1])
    m.changeMarkerWeight(0, 0.5)
    assert m.getMarkerWeight(0) == 0.5
    # Default observation order is marker order, every observation NaN.
    assert m.getNumObservations() == 2
    assert m.getObservationIxForMarker(1) == 1 and m.getMarkerIxForObservation(0) == 0
    assert np.all(np.isnan(m.getAllObservations()))
    # A custom order by names (an ignored slot included).
    m.defineObservationOrder(["_UNNAMED_1", "", "hip"])
    assert m.getNumObservations() == 3
    assert m.getMarkerIxForObservation(0) == 1 and m.getMarkerIxForObservation(1) == -1
    assert m.getObservationIxForMarker("hip") == 2 and m.hasObservation(0)
    m.moveOneObservation(2, [1, 2, 3])
    np.testing.assert_array_equal(m.getObservation(2), [1, 2, 3])
    m.moveAllObservations(np.ones((3, 3)))
    np.testing.assert_array_equal(m.getAllObservations(), np.ones((3, 3)))
    m.defineObservationOrder([0])
    assert not m.hasObservation(1)
    # Bad input.
    with pytest.raises(InvalidArgumentError, match="already a marker named"):
        m.addMarker("hip", 1, [0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="weight"):
        m.addMarker(1, [0, 0, 0], -1.0)
    with pytest.raises(InvalidArgumentError, match="3 numbers"):
        m.addMarker(1, [0, 0])
    with pytest.raises(IndexOutOfRangeError):
        m.getMarkerName(7)
    with pytest.raises(IndexOutOfRangeError, match="no marker named"):
        m.getMarkerWeight("elbow")
    with pytest.raises(InvalidArgumentError, match="at most once"):
        m.defineObservationOrder([0, 0])
    with pytest.raises(IndexOutOfRangeError):
        m.moveOneObservation(4, [0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="shape"):
        m.moveAllObservations(np.ones((2, 3)))


def test_marker_on_a_missing_body_is_refused_at_adoption():
    system, matter, b1, b2 = _free_and_pin()
    m = Markers()
    m.addMarker(5, [0, 0, 0])
    with pytest.raises(IndexOutOfRangeError, match="body 5"):
        Assembler(system).adoptAssemblyGoal(m)


def test_markers_goal_formula_and_analytic_gradient_match_finite_differences():
    system, matter, b1, b2 = _free_and_pin()
    asm = Assembler(system)
    m = Markers()
    for k, (b, st) in enumerate(STATIONS):
        m.addMarker(f"m{k}", b, st, 0.5 + k)
    asm.adoptAssemblyGoal(m)
    rng = np.random.default_rng(7)
    for k in range(len(STATIONS) - 1):  # the last marker stays unobserved (NaN)
        m.moveOneObservation(k, rng.normal(size=3))
    state = system.realizeTopology()
    state.setQ(_pose([0.9, 0.2, -0.3, 0.1], [0.1, 0.2, 0.3], 0.4))
    asm.initialize(state)
    s = asm.getInternalState()
    _, goal = m.calcGoal(s)
    d2 = [m.findCurrentMarkerErrorSquared(k) for k in range(5)]
    assert d2[4] == 0.0
    w = np.array([0.5, 1.5, 2.5, 3.5])
    assert goal == pytest.approx(float(w @ d2[:4]) / (2 * w.sum()), rel=1e-13)
    assert m.findCurrentMarkerError(1) == pytest.approx(math.sqrt(d2[1]))
    # Analytic gradient vs central differences of the goal through the Assembler's own
    # q-update (quaternion renormalized, as during assembly).
    _, grad = m.calcGoalGradient(s)
    asm.setForceNumericalGradient(True)
    from engine.assembler.assembly_solver import AssemblySolver

    solver = AssemblySolver(asm)
    x = solver.get_x()
    numeric = solver.gradient(x)
    np.testing.assert_allclose(grad, numeric, atol=1e-8)
    assert grad.size == 8
    # Errors: 3 per active observation.
    assert m.getNumErrors(s) == 12 and m.calcErrors(s)[1].shape == (12,)
    # Zero weight removes a marker from the goal.
    m.changeMarkerWeight(0, 0.0)
    w0 = np.array([1.5, 2.5, 3.5])
    assert m.calcGoal(s)[1] == pytest.approx(float(w0 @ d2[1:4]) / (2 * w0.sum()), rel=1e-13)


def test_markers_recover_a_pose_of_a_free_body_with_a_quaternion():
    system, matter, b1, b2 = _free_and_pin()
    true_q = _pose([0.3, -0.5, 0.7, 0.2], [0.4, -0.1, 0.25], -0.6)
    asm = Assembler(system).setAccuracy(1e-10).setErrorTolerance(1e-12)
    m = Markers()
    for b, st in STATIONS:
        m.addMarker(b, st)
    asm.adoptAssemblyGoal(m)
    m.moveAllObservations(_observations_at(system, matter, true_q))
    state = system.realizeTopology()
    state.setQ(_pose([1, 0.1, 0.2, 0.1], [0.3, 0, 0.2], -0.3))
    goal = asm.assemble(state)
    q = np.array(state.getQ())
    assert goal < 1e-20
    assert np.linalg.norm(q[0:4]) == pytest.approx(1.0, abs=1e-14)
    if q[0] * true_q[0] < 0:  # q and -q are the same orientation
        q[0:4] *= -1
    np.testing.assert_allclose(q, true_q, atol=1e-8)
    assert asm.getNumFreeQs() == 8
    # Tracking a moving observation set follows it.
    for t in (0.05, 0.1):
        moved = true_q.copy()
        moved[4] += t
        moved[7] += t
        m.moveAllObservations(_observations_at(system, matter, moved))
        assert asm.track() < 1e-18
        np.testing.assert_allclose(matter.getQ(asm.getInternalState())[4:], moved[4:], atol=1e-8)


def test_rotation_vector_covers_small_generic_and_half_turn_angles():
    for angle in (0.0, 1e-9, 0.3, 2.0, math.pi - 1e-9, math.pi):
        axis = np.array([0.2, -0.7, 0.4]) / np.linalg.norm([0.2, -0.7, 0.4])
        R = Rotation().setRotationFromAngleAboutUnitVector(angle, axis).asMat33()
        v = rotation_vector(R)
        assert np.linalg.norm(v) == pytest.approx(angle, abs=1e-8)
        if angle > 1e-6:
            assert abs(abs(v @ axis) - angle) < 1e-7


def test_orientation_sensors_bookkeeping_gradient_and_recovery():
    system, matter, b1, b2 = _free_and_pin()
    os_ = OrientationSensors()
    R1 = Rotation().setRotationFromAngleAboutX(0.3)
    R2 = Rotation().setRotationFromAngleAboutY(-0.4)
    a = os_.addOSensor("imu1", 1, R1, 2.0)
    b = os_.addOSensor(2, R2)
    assert (a, b) == (0, 1) and os_.getNumOSensors() == 2
    assert os_.getOSensorName(1) == "_UNNAMED_1" and os_.getOSensorIx("imu1") == 0
    assert os_.getOSensorWeight(0) == 2.0 and os_.getOSensorBody(1) == 2
    np.testing.assert_allclose(os_.getOSensorStation(0).asMat33(), R1.asMat33())
    with pytest.raises(InvalidArgumentError, match="already a sensor"):
        os_.addOSensor("imu1", 1, R1)
    with pytest.raises(InvalidArgumentError, match="3x3"):
        os_.addOSensor(1, np.eye(2))
    true_q = _pose([0.8, 0.3, -0.2, 0.4], [0, 0, 0], 0.7)
    s = system.realizeTopology()
    s.setQ(true_q)
    system.realize(s)
    obs = [
        b1.getBodyRotation(s).asMat33() @ R1.asMat33(),
        b2.getBodyRotation(s).asMat33() @ R2.asMat33(),
    ]
    asm = Assembler(system).setAccuracy(1e-10).setErrorTolerance(1e-12)
    asm.adoptAssemblyGoal(os_)
    os_.moveOneObservation(0, Rotation(obs[0]))
    os_.moveOneObservation(1, obs[1])
    assert os_.hasObservation(1) and os_.getOSensorIxForObservation(1) == 1
    # Orientation only: fix the translation.
    asm.lockQ(1, 4).lockQ(1, 5).lockQ(1, 6)
    state = system.realizeTopology()
    state.setQ(_pose([1, 0, 0, 0], [0, 0, 0], 0.0))
    asm.initialize(state)
    s0 = asm.getInternalState()
    # Goal formula and gradient vs finite differences at the start.
    th = [os_.findCurrentOSensorError(k) for k in range(2)]
    assert os_.calcGoal(s0)[1] == pytest.approx((2 * th[0] ** 2 + th[1] ** 2) / 6, rel=1e-12)
    _, grad = os_.calcGoalGradient(s0)
    from engine.assembler.assembly_solver import AssemblySolver

    asm.setForceNumericalGradient(True)
    solver = AssemblySolver(asm)
    np.testing.assert_allclose(grad, solver.gradient(solver.get_x()), atol=1e-8)
    asm.setForceNumericalGradient(False)
    goal = asm.assemble(state)
    assert goal < 1e-20
    q = np.array(state.getQ())
    if q[0] * true_q[0] < 0:
        q[0:4] *= -1
    np.testing.assert_allclose(q, true_q, atol=1e-8)
    assert os_.findCurrentOSensorError(0) < 1e-9
    np.testing.assert_allclose(os_.findCurrentOSensorOrientation(1).asMat33(), obs[1], atol=1e-9)
