"""Force.MobilityLinearStop in the one-call realization: on a coordinate whose rate is its u
(Pin, Slider, Screw, ...) it is a compiled term giving what its calcForce gives, above,
below and within its bounds, with either sign of u; on a Gimbal's q (qdot != u) it keeps
the stage-by-stage path and says why."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Force, Stage
from tests.engine.test_fused_realization import _outputs, _stage_by_stage
from tests.engine.test_matter_operator_oracles import DYNAMIC_TYPES, random_tree


def _stopped_tree(seed: int):
    """A random tree (Pin, Slider, Screw first) under gravity with a stop on each of those."""
    system, matter, mobods, _, rng = random_tree(seed, DYNAMIC_TYPES, nbodies=10)
    forces = system._force_subsystems[0]
    Force.Gravity(forces, matter, [0.1, -1.0, 0.2], 9.81)
    pin, slider, screw = mobods[1:4]
    stops = [
        Force.MobilityLinearStop(forces, pin, 0, 50.0, 0.3, -0.1, 0.1),
        Force.MobilityLinearStop(forces, slider, 0, 80.0, 0.7, -0.2, 0.3),
        Force.MobilityLinearStop(forces, screw, 0, 20.0, 0.0, -0.5, 0.5),
    ]
    return system, matter, mobods, system.realizeTopology(), rng, stops


@pytest.mark.parametrize(
    ("q_pin", "q_slider", "q_screw", "u_sign"),
    [(0.4, -0.6, 0.0, 1.0), (-0.3, 0.5, 0.2, -1.0), (0.05, 0.0, 0.9, 1.0)],
)
def test_a_stop_is_realized_in_the_fused_call_as_stage_by_stage(q_pin, q_slider, q_screw, u_sign):
    system, matter, mobods, state, rng, stops = _stopped_tree(3)
    state.setQ(rng.uniform(-0.8, 0.8, state.getNQ()))
    system.realize(state, Stage.Time)
    matter.normalizeQuaternions(state)
    for mobod, q in zip(mobods[1:4], (q_pin, q_slider, q_screw), strict=True):
        mobod.setOneQ(state, 0, q)
    state.setU(u_sign * rng.uniform(0.2, 1.5, state.getNU()))
    assert system._fused_realization.whyNotFused(state) == ""
    reference = state.copy()
    system.realize(state, Stage.Acceleration)
    _stage_by_stage(system, reference)
    fused, staged = _outputs(system, matter, state), _outputs(system, matter, reference)
    for key, value in fused.items():
        np.testing.assert_allclose(value, staged[key], rtol=1e-13, atol=1e-13, err_msg=key)
    # each stop's own generalized force: the oracle its calcForce gives
    for stop, mobod in zip(stops, mobods[1:4], strict=True):
        q, u = mobod.getOneQ(state, 0), mobod.getOneU(state, 0)
        k, d = stop.getStiffness(state), stop.getDissipation(state)
        lo, hi = stop.getLowerBound(state), stop.getUpperBound(state)
        if q > hi:
            want = min(0.0, -k * (q - hi) * (1 + d * u))
        elif q < lo:
            want = max(0.0, -k * (q - lo) * (1 - d * u))
        else:
            want = 0.0
        _, _, mobility = stop.calcForceContribution(state)
        iu = mobod._u_range(state)[0]
        assert mobility[iu] == pytest.approx(want, rel=1e-14, abs=1e-14)


def test_a_stop_on_a_gimbal_angle_keeps_the_stage_by_stage_path_and_says_why():
    system, matter, mobods, _, rng = random_tree(4, DYNAMIC_TYPES, nbodies=10)
    forces = system._force_subsystems[0]
    gimbal = next(m for m in mobods[1:] if type(m).__name__ == "Gimbal")
    Force.MobilityLinearStop(forces, gimbal, 1, 50.0, 0.3, -0.1, 0.1)
    state = system.realizeTopology()
    system.realize(state, Stage.Time)
    why = system._fused_realization.whyNotFused(state)
    assert "MobilityLinearStop" in why and "Gimbal q, whose rate is not its u" in why, why
