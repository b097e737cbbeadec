"""After a change of u alone (``setU`` then ``realize(Acceleration)``, the benchmarks'
``fd_u``) the one-call realization runs Velocity..Acceleration only: it does no Position
stage work, keeps the articulated-body inertias it computed for this q (as Simbody does),
and gives the same numbers, bit for bit, as a State realized from scratch at the same q
and u, and as the stage-by-stage path."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.common import build_ours, chain_links, humanoid_links
from engine import Stage

MODELS = {
    "pin chain": lambda: chain_links(12, "pin"),
    "ball chain": lambda: chain_links(6, "ball"),
    "humanoid": humanoid_links,
}


def _realized(links, seed: int):
    system, matter = build_ours(links)
    state = system.realizeTopology()
    rng = np.random.default_rng(seed)
    state.setQ(state.getQ() + 0.3 * rng.normal(size=state.getNQ()))
    system.realize(state, Stage.Time)
    matter.normalizeQuaternions(state)
    state.setU(rng.normal(size=state.getNU()))
    system.realize(state, Stage.Acceleration)
    return system, matter, state, rng


def _results(matter, state) -> dict:
    nb = matter.getNumBodies()
    return {
        "udot": np.array(state.getUDot()),
        "qdot": np.array(state.getQDot()),
        "qdotdot": np.array(state.getQDotDot()),
        "A_GB": np.array(
            [matter.getMobilizedBody(b).getBodyAcceleration(state) for b in range(nb)]
        ),
        "V_GB": np.array([matter.getMobilizedBody(b).getBodyVelocity(state) for b in range(nb)]),
        "ke": np.array([matter.calcKineticEnergy(state)]),
    }


def _assert_identical(a: dict, b: dict) -> None:
    for key, value in a.items():
        np.testing.assert_array_equal(value, b[key], err_msg=key)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_change_of_u_gives_a_fresh_realization_bit_for_bit(name):
    system, matter, state, rng = _realized(MODELS[name](), 5)
    assert system._fused_realization.whyNotFused(state) == ""
    for _ in range(3):
        u = rng.normal(size=state.getNU())
        state.setU(u)
        system.realize(state, Stage.Acceleration)
        fresh = system.realizeTopology()  # nothing cached: every stage from Position on
        fresh.setQ(state.getQ())
        fresh.setU(u)
        system.realize(fresh, Stage.Acceleration)
        _assert_identical(_results(matter, state), _results(matter, fresh))
        by_stage = fresh.copy()
        by_stage.setU(u)
        fused, system._fused_realization = system._fused_realization, None
        try:
            system.realize(by_stage, Stage.Acceleration)
        finally:
            system._fused_realization = fused
        _assert_identical(_results(matter, state), _results(matter, by_stage))


@pytest.mark.parametrize("name", ["pin chain", "humanoid"])
def test_a_change_of_u_does_no_position_or_inertia_work(name):
    system, matter, state, rng = _realized(MODELS[name](), 6)
    positions = system.getNumRealizationsOfThisStage(Stage.Position)
    velocities = system.getNumRealizationsOfThisStage(Stage.Velocity)
    assert matter.isArticulatedBodyInertiasRealized(state)
    ctx = matter._context(state)
    P, D_inv, U = ctx.abi
    kept = P.copy(), D_inv.copy(), U.copy()
    # planted values: a recomputation would overwrite them, a kept cache entry keeps them
    P *= 2.0
    D_inv *= 0.5
    U *= 2.0
    planted = P.copy(), D_inv.copy(), U.copy()
    pose = np.array(ctx.pc.p_GB), np.array(ctx.pc.H_G)
    u = rng.normal(size=state.getNU())
    state.setU(u)
    system.realize(state, Stage.Acceleration)
    assert system.getNumRealizationsOfThisStage(Stage.Position) == positions
    assert system.getNumRealizationsOfThisStage(Stage.Velocity) == velocities + 1
    assert matter.isArticulatedBodyInertiasRealized(state)
    for now, before in zip(ctx.abi, planted, strict=True):
        np.testing.assert_array_equal(now, before)  # not recomputed
    np.testing.assert_array_equal(ctx.pc.p_GB, pose[0])
    np.testing.assert_array_equal(ctx.pc.H_G, pose[1])
    # (P, D^-1, U) = (2P, D^-1/2, 2U) gives udot = D^-1/2 (eps - 2 U^T a): not the true one
    fresh = system.realizeTopology()
    fresh.setQ(state.getQ())
    fresh.setU(u)
    system.realize(fresh, Stage.Acceleration)
    assert not np.array_equal(state.getUDot(), fresh.getUDot())
    positions = system.getNumRealizationsOfThisStage(Stage.Position)
    # a change of q makes them stale: recomputed, and the answer is right again
    state.setQ(state.getQ())
    assert not matter.isArticulatedBodyInertiasRealized(state)
    system.realize(state, Stage.Acceleration)
    assert system.getNumRealizationsOfThisStage(Stage.Position) == positions + 1
    for now, before in zip(ctx.abi, kept, strict=True):
        np.testing.assert_array_equal(now, before)
    np.testing.assert_array_equal(state.getUDot(), fresh.getUDot())
