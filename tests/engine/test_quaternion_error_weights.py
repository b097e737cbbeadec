"""The integrators' q error weights N W_u NInv for quaternions (``n_operators.scale_dq``)
in closed form, and the stepping kernel's kinematics realized once per accepted step:

* a Ball's or Free's closed-form block is the general block through N and NInv to the
  last bit, and for a unit quaternion NInv is N's pseudo-inverse (to 1e-14);
* ``n_reads_only_q`` tells the mobilizer types whose N needs R_FM (LineOrientation,
  FreeLine, reversed mobilizers) from those whose N is a function of q;
* where the norm reads only q (a Ball chain) and where it does not (a reversed Ball), the
  stepping kernel takes bit for bit the steps of the stage-by-stage Python path.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Force,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
)
from engine.multibody.kernels.n_operators import _scale_dq_block, n_reads_only_q, scale_dq
from engine.multibody.mobilizers import (
    ball,
    free,
    free_line,
    gimbal,
    line_orientation,
    pin,
)
from engine.multibody.mobilizers.dispatch import GROUND_TYPE_ID, REVERSED_OFFSET
from tests.engine.test_compiled_merson_attempt import simulate_merson


def _e_matrix(q: np.ndarray) -> np.ndarray:
    w, x, y, z = q
    return np.array([[-x, -y, -z], [w, z, -y], [-z, w, x], [y, -x, w]])


def _blocks(types, rng):
    """Arguments of scale_dq for bodies of ``types`` (after Ground), random non-unit
    quaternions, weights and q errors."""
    nqs = np.array([0] + [7 if t == free.TYPE_ID else 4 for t in types], dtype=np.int64)
    nus = np.array([0] + [6 if t == free.TYPE_ID else 3 for t in types], dtype=np.int64)
    mtype = np.array([GROUND_TYPE_ID, *types], dtype=np.int64)
    qs = np.concatenate([[0], np.cumsum(nqs)[:-1]]).astype(np.int64)
    us = np.concatenate([[0], np.cumsum(nus)[:-1]]).astype(np.int64)
    nb, nq, nu = len(mtype), int(nqs.sum()), int(nus.sum())
    q = rng.normal(size=nq) * rng.uniform(0.5, 2.0, nq)
    w_u = rng.uniform(0.1, 3.0, nu)
    dq = rng.normal(size=nq) * 10.0 ** rng.uniform(-9, -2, nq)
    params = np.zeros((nb, 8))
    R_FM = np.tile(np.eye(3), (nb, 1, 1))
    return mtype, qs, nqs, us, nus, params, R_FM, q, w_u, dq


def _scratch():
    return np.empty((7, 7)), np.empty((7, 7)), np.empty(7)


@pytest.mark.parametrize("seed", range(4))
def test_closed_form_quaternion_weights_are_the_general_blocks_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    types = [ball.TYPE_ID, free.TYPE_ID, ball.TYPE_ID, free.TYPE_ID, ball.TYPE_ID]
    mtype, qs, nqs, us, nus, params, R_FM, q, w_u, dq = _blocks(types, rng)
    fast = np.full(q.size, np.nan)
    scale_dq(mtype, qs, nqs, us, nus, params, False, R_FM, q, w_u, dq, fast, *_scratch())
    general = np.full(q.size, np.nan)
    for b in range(1, len(mtype)):
        q0, n = qs[b], nqs[b]
        _scale_dq_block(
            mtype[b], n, nus[b], q0, us[b], q[q0 : q0 + n], params[b], False, R_FM[b],
            w_u, dq, general, *_scratch(),
        )  # fmt: skip
    np.testing.assert_array_equal(fast, general)
    # and the formula itself: N = E/2, NInv = 2 E^T (the p part of a Free: identities)
    for b in range(1, len(mtype)):
        q0, u0 = qs[b], us[b]
        E = _e_matrix(q[q0 : q0 + 4])
        rot = 0.5 * E @ (w_u[u0 : u0 + 3] * (2.0 * E.T @ dq[q0 : q0 + 4]))
        np.testing.assert_allclose(fast[q0 : q0 + 4], rot, rtol=1e-14, atol=0.0)
        if mtype[b] == free.TYPE_ID:
            np.testing.assert_array_equal(
                fast[q0 + 4 : q0 + 7], dq[q0 + 4 : q0 + 7] * w_u[u0 + 3 : u0 + 6]
            )


def test_for_a_unit_quaternion_ninv_is_the_pseudo_inverse_of_n():
    rng = np.random.default_rng(7)
    for _ in range(20):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        N = 0.5 * _e_matrix(q)
        np.testing.assert_allclose(2.0 * _e_matrix(q).T, np.linalg.pinv(N), atol=1e-14)
        np.testing.assert_allclose(2.0 * _e_matrix(q).T @ N, np.eye(3), atol=1e-14)
        # the weights N W NInv of a unit quaternion's change: dq along q (a norm change)
        # weighs nothing, a change across it as the angular speed it corresponds to
        types = [ball.TYPE_ID]
        mtype, qs, nqs, us, nus, params, R_FM, _, w_u, _ = _blocks(types, rng)
        out = np.empty(4)
        scale_dq(mtype, qs, nqs, us, nus, params, False, R_FM, q, w_u, q * 1e-3, out, *_scratch())
        np.testing.assert_allclose(out, 0.0, atol=1e-17)


def test_n_reads_only_q_names_the_types_whose_n_needs_the_mobilizer_rotation():
    ground = [GROUND_TYPE_ID]
    assert n_reads_only_q(np.array(ground + [ball.TYPE_ID, pin.TYPE_ID, free.TYPE_ID]))
    assert n_reads_only_q(np.array(ground + [gimbal.TYPE_ID]))
    for t in (line_orientation.TYPE_ID, free_line.TYPE_ID, ball.TYPE_ID + REVERSED_OFFSET):
        assert not n_reads_only_q(np.array(ground + [ball.TYPE_ID, t]))


def _ball_chain(reversed_last: bool):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, [0, -1, 0], 9.81)
    body = Body.Rigid(MassProperties(1.0, [0, -0.5, 0], Inertia(0.35, 0.01, 0.35)))
    parent = matter.Ground()
    for k in range(6):
        extra = (MobilizedBody.Reverse,) if reversed_last and k == 5 else ()
        parent = MobilizedBody.Ball(
            parent, Transform([0, -1.0 if k else 0.0, 0]), body, Transform(), *extra
        )
    state = system.realizeTopology()
    rng = np.random.default_rng(4)
    state.setQ(rng.normal(size=state.getNQ()))
    system.realize(state, Stage.Time)
    matter.normalizeQuaternions(state)
    state.setU(rng.uniform(-2.0, 2.0, state.getNU()))
    return system, state


@pytest.mark.parametrize("reversed_last", [False, True])
def test_stepping_kernel_takes_the_python_paths_steps_with_kinematics_once_per_step(
    reversed_last,
):
    system, state = _ball_chain(reversed_last)
    assert n_reads_only_q(system._matter._topo().mtype) is (not reversed_last)
    fast, fast_state, _ = simulate_merson(system, state, "steps", tfinal=0.5, accuracy=1e-5)
    slow, slow_state, _ = simulate_merson(system, state, "python", tfinal=0.5, accuracy=1e-5)
    assert fast.compiledStepsTaken == fast.getNumStepsTaken() > 20
    assert fast.getNumStepsTaken() == slow.getNumStepsTaken()
    assert fast.getNumStepsAttempted() == slow.getNumStepsAttempted()
    assert fast.getNumErrorTestFailures() == slow.getNumErrorTestFailures() > 0
    assert fast.getNumQProjections() == slow.getNumQProjections()
    np.testing.assert_array_equal(fast_state.getY(), slow_state.getY())
    np.testing.assert_array_equal(fast_state.getQDot(), slow_state.getQDot())
    system.realize(fast_state, Stage.Velocity)
    system.realize(slow_state, Stage.Velocity)
    assert system.calcKineticEnergy(fast_state) == system.calcKineticEnergy(slow_state)
