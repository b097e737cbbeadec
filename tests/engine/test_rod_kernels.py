"""The Rod-only kernels of the constraint kernels (``rod_errors``, ``rod_rows``: a set
of Rods written out on scalars) against the per-type kernels they stand in for
(``constraint_errors_into``, ``body_rows_into``): bit-identical errors at every level
and rows of G, with the ancestor Ground and another body."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Constraint, MobilizedBody, Stage, Transform, Vec3
from engine.multibody.constraints.compiled import compiled_constraints
from engine.multibody.kernels.array_table import f2, f3
from engine.multibody.kernels.constraint_kernels import (
    KIN_SIZE,
    OK,
    _kinematics_views,
    body_rows_into,
    constraint_errors_into,
    rod_errors,
    rod_rows,
    rods_only,
)
from engine.multibody.kernels.layout import SLOT
from tests.engine.test_compiled_constraints import _body, _system, model


def _ladder_and_branch():
    """Rods of both kinds: between two Ground-hung chains (ancestor Ground) and between
    two branches of one body (ancestor that body), at generic q and u."""
    system, matter = _system()
    g = matter.Ground()
    a = MobilizedBody.Ball(g, Transform(), _body(), Transform())
    b = MobilizedBody.Pin(a, Transform(Vec3(0.3, -1, 0)), _body(), Transform())
    c = MobilizedBody.Ball(a, Transform(Vec3(-0.3, -1, 0.1)), _body(), Transform())
    d = MobilizedBody.Pin(g, Transform(Vec3(1, 0, 0)), _body(), Transform())
    Constraint.Rod(b, Vec3(0.1, -0.5, 0), c, Vec3(0.2, -0.4, 0.1), 0.7)
    Constraint.Rod(c, Vec3(0, -1, 0.2), d, Vec3(0, -1, 0), 1.2)
    state = system.realizeTopology()
    system.realizeModel(state)
    rng = np.random.default_rng(8)
    state.updQ()[:] = np.array(state.getQ()) + 0.3 * rng.standard_normal(state.getNQ())
    state.updU()[:] = rng.standard_normal(state.getNU())
    return system, matter, state


@pytest.mark.parametrize("kind", ["dp_rod", "dp_rod_twice", "ladder_and_branch"])
def test_the_rod_kernels_are_the_per_type_kernels_bit_for_bit(kind):
    if kind == "ladder_and_branch":
        system, matter, state = _ladder_and_branch()
    else:
        system, matter, state = model(kind)
    system.realize(state, Stage.Acceleration)
    cc = compiled_constraints(matter, state, matter._instance_info(state))
    ci, cf, m = cc.ci, cc.cf, cc.m
    assert rods_only(ci)
    if kind == "ladder_and_branch":
        assert sorted(ci[:, 1]) == [0, 1]  # ancestors Ground and body a
    a, s = system._fused_realization._current_plan(state).args[1:]
    R_GB, p_GB = f3(a, s, SLOT.R_GB), f2(a, s, SLOT.p_GB)
    V_GB, A_GB = f2(a, s, SLOT.V_GB), f2(a, s, SLOT.A_GB)
    x = np.zeros(state.getNU())  # (read by the mobility constraints only)
    blk = np.zeros(KIN_SIZE)
    buf, C = _kinematics_views(blk)
    for level in range(3):
        general, rods = np.full(m, np.nan), np.full(m, np.nan)
        level = np.int64(level)
        assert constraint_errors_into(ci, cf, level, R_GB, p_GB, V_GB, A_GB, x, general, buf) == OK
        assert rod_errors(ci, cf, level, R_GB, p_GB, V_GB, A_GB, rods) == OK
        assert np.array_equal(rods, general), (level, rods - general)
    nb = matter.getNumBodies()
    general, rods = np.full((m, nb, 6), np.nan), np.full((m, nb, 6), np.nan)
    assert body_rows_into(ci, cf, R_GB, p_GB, general, buf, C) == OK
    assert rod_rows(ci, cf, R_GB, p_GB, rods) == OK
    assert np.array_equal(rods, general)
