"""The compiled q error scaling (MultibodySystem._scaleDQ) and quaternion projection
kernels agree with the operator definitions they replace."""

from __future__ import annotations

import numpy as np

from engine import ProjectOptions, Stage
from engine.integrators.error_norm import scaleDQ
from tests.engine.test_matter_operator_oracles import DYNAMIC_TYPES, random_state, random_tree


def test_scale_dq_is_n_times_weights_times_pinv_n():
    system, matter, _, _, rng = random_tree(11, DYNAMIC_TYPES, nbodies=14)
    state = random_state(system, matter, rng, Stage.Position)
    dq = rng.normal(size=state.getNQ())
    w = rng.uniform(0.5, 2.0, state.getNU())
    expected = system.multiplyByN(state, system.multiplyByNPInv(state, dq) * w)
    compiled = system._scaleDQ(state, w, dq)
    assert compiled is not None
    np.testing.assert_allclose(compiled, expected, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(scaleDQ(system, state, w, dq), expected, rtol=1e-14, atol=1e-15)


def test_quaternion_projection_normalizes_and_clears_the_norm_part_of_the_estimate():
    system, matter, _, _, rng = random_tree(12, ["Ball", "Free", "Pin"], nbodies=6)
    state = random_state(system, matter, rng, Stage.Position)
    q = np.array(state.getQ())
    q *= 1.01  # every quaternion 1% too long
    state.setQ(q)
    system.realize(state, Stage.Position)
    est = rng.normal(size=state.getNQ()) * 1e-3
    system.projectQ(state, est, ProjectOptions(1e-10))
    q = np.array(state.getQ())
    starts = matter._context(state).quat_starts
    assert starts.size >= 2  # the Ball and the Free at least
    for s in starts:
        n = q[s : s + 4]
        assert abs(np.linalg.norm(n) - 1.0) < 1e-14
        assert abs(est[s : s + 4] @ n) < 1e-15  # no part along the quaternion
