"""qErr of the matter subsystem is [position constraint errors | quaternion norm errors]
(the quaternion part written by the Position stage after the constraint part), and the
layout follows Instance-stage changes of the same State (a constraint disabled or
enabled, Euler angles switched on), which the realizations look up once per Instance."""

from __future__ import annotations

import numpy as np

from engine import (
    Body,
    Constraint,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
)


def _ball_pendulum_with_rod():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0, -0.5, 0), Inertia(0.1)))
    ball = MobilizedBody.Ball(matter.Ground(), Transform(), body, Transform(Vec3(0, 1, 0)))
    rod = Constraint.Rod(matter.Ground(), Vec3(2, 0, 0), ball, Vec3(0, 0, 0), 1.5)
    return system, matter, ball, rod


def _expected(q, with_rod: bool):
    """[rod length error | |q| - 1] for the ball's origin, computed here from q."""
    w, x, y, z = q / np.linalg.norm(q)
    R = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )
    p_GB = -R @ np.array([0.0, 1.0, 0.0])
    rod_err = np.linalg.norm(p_GB - np.array([2.0, 0, 0])) - 1.5
    quat_err = np.linalg.norm(q) - 1.0
    return [rod_err, quat_err] if with_rod else [quat_err]


def test_qerr_layout_follows_instance_changes_of_one_state():
    system, matter, ball, rod = _ball_pendulum_with_rod()
    state = system.realizeTopology()
    q = np.array([0.9, 0.2, -0.1, 0.3])  # not unit: a nonzero norm error
    state.updQ()[:] = q
    system.realize(state, Stage.Position)
    np.testing.assert_allclose(state.getQErr(), _expected(q, True), rtol=1e-12)
    rod.disable(state)
    system.realize(state, Stage.Position)
    np.testing.assert_allclose(state.getQErr(), _expected(q, False), rtol=1e-12)
    rod.enable(state)
    q2 = np.array([1.1, 0.0, 0.4, 0.0])
    state.updQ()[:] = q2
    system.realize(state, Stage.Position)
    np.testing.assert_allclose(state.getQErr(), _expected(q2, True), rtol=1e-12)
    # a copy realizes its own qErr
    c = state.copy()
    c.updQ()[:] = q
    system.realize(c, Stage.Position)
    np.testing.assert_allclose(c.getQErr(), _expected(q, True), rtol=1e-12)
    np.testing.assert_allclose(state.getQErr(), _expected(q2, True), rtol=1e-12)
    # Euler angles: no quaternion entries
    matter.setUseEulerAngles(state, True)
    system.realizeModel(state)
    system.realize(state, Stage.Position)
    assert state.getNQErr() == 1
