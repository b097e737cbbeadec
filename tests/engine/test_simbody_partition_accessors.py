"""MobilizedBody's partition utilities and tree queries, used as in Simbody (issue 21:
"the Q/U partition accessors"): getOneFromQPartition / updOneFromQPartition and the U forms,
getMyPartQ/U and updMyPartQ/U, convertQForceToUForce, getLevelInMultibodyTree,
getBaseMobilizedBody, isSameMobilizedBody."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Inertia,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
)


def _chain():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0, -0.5, 0), Inertia(0.1)))
    pin = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform(Vec3(0, 1, 0)))
    ball = MobilizedBody.Ball(pin, Transform(), body, Transform(Vec3(0, 1, 0)))
    slider = MobilizedBody.Prismatic(ball, Transform(), body, Transform())
    state = system.realizeTopology()
    return system, matter, pin, ball, slider, state


def test_partition_accessors_read_and_write_this_mobilizers_entries():
    system, matter, pin, ball, slider, state = _chain()
    q = np.arange(6.0)  # pin 1 q, ball 4 q, slider 1 q
    u = np.arange(5.0)  # pin 1 u, ball 3 u, slider 1 u
    assert ball.getOneFromQPartition(state, 2, q) == 3.0
    assert ball.getOneFromUPartition(state, 0, u) == 1.0
    np.testing.assert_array_equal(ball.getMyPartQ(state, q), [1, 2, 3, 4])
    np.testing.assert_array_equal(slider.getMyPartU(state, u), [4])
    # Simbody: mobod.updOneFromUPartition(s, which, mobilityForces) += f
    forces = np.zeros(5)
    ball.updOneFromUPartition(state, 1, forces)[...] += 2.5
    view = slider.updOneFromUPartition(state, 0, forces)
    view += 1.0
    np.testing.assert_array_equal(forces, [0, 0, 2.5, 0, 1.0])
    ball.updMyPartQ(state, q)[:] = [1, 0, 0, 0]
    pin.updOneFromQPartition(state, 0, q)[...] = -1
    np.testing.assert_array_equal(q, [-1, 1, 0, 0, 0, 5])
    ball.updMyPartU(state, u)[:] = 0.0
    np.testing.assert_array_equal(u, [0, 0, 0, 0, 4])
    with pytest.raises(InvalidArgumentError, match="length 6"):
        ball.getOneFromQPartition(state, 0, np.zeros(5))
    with pytest.raises(InvalidArgumentError, match="numpy array"):
        ball.updOneFromUPartition(state, 0, [0.0] * 5)
    with pytest.raises(Exception, match="out of range"):
        ball.getOneFromUPartition(state, 3, u)


def test_convert_q_force_to_u_force_keeps_the_power():
    system, matter, pin, ball, slider, state = _chain()
    ball.setQ(state, np.array([0.9, 0.3, -0.2, 0.1]) / np.linalg.norm([0.9, 0.3, -0.2, 0.1]))
    ball.setU(state, [0.4, -1.0, 0.7])
    system.realize(state, Stage.Velocity)
    fq = np.array([0.5, -1.5, 2.0, 0.3])
    fu = ball.convertQForceToUForce(state, fq)
    assert fu.shape == (3,)
    assert fq @ ball.getQDot(state) == pytest.approx(fu @ ball.getU(state), abs=1e-14)
    np.testing.assert_array_equal(pin.convertQForceToUForce(state, [1.5]), [1.5])  # qdot = u
    with pytest.raises(InvalidArgumentError, match="4 q's"):
        ball.convertQForceToUForce(state, [1.0, 2.0, 3.0])


def test_tree_queries():
    system, matter, pin, ball, slider, state = _chain()
    ground = matter.Ground()
    assert [m.getLevelInMultibodyTree() for m in (ground, pin, ball, slider)] == [0, 1, 2, 3]
    assert slider.getBaseMobilizedBody().isSameMobilizedBody(pin)
    assert ground.getBaseMobilizedBody().isGround()
    assert slider.isSameMobilizedBody(matter.getMobilizedBody(3))
    assert not slider.isSameMobilizedBody(ball)
    assert slider.isInSubsystem() and slider.isInSameSubsystem(pin)
    other = SimbodyMatterSubsystem(MultibodySystem())
    assert not slider.isInSameSubsystem(other.Ground())
    assert slider.updMatterSubsystem() is matter
    assert MobilizedBody.CartesianCoords is MobilizedBody.Translation
