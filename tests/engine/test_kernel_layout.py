"""The declared kernel layout (engine.multibody.kernels.layout): one declaration gives the
table, the slot names and the arrays' homes, and a mix-up of two arrays is caught."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from engine import Force, Stage
from engine.integrators.merson_compiled.constrained_steps import CONS_SLOT, CONS_SPEC
from engine.multibody.kernels import layout
from engine.multibody.kernels.array_table import ArrayTable
from engine.multibody.kernels.constraint_kernels import WORK_SLOT, WORK_SPEC
from engine.multibody.kernels.fused_stages import ACCELERATION, POSITION, realize_stages_from_table
from tests.engine.test_matter_operator_oracles import DYNAMIC_TYPES, random_tree

ENGINE = Path(__file__).resolve().parents[2] / "engine"
#: the tables besides the State's kernel table whose kernels read them by slot name:
#: name of the slots' namedtuple -> (the namedtuple, its declaration)
SIDE_TABLES = {
    "CONS_SLOT": (CONS_SLOT, CONS_SPEC),
    "WORK_SLOT": (WORK_SLOT, WORK_SPEC),
}
ACCESSORS = {"f1": ("f", 1), "f2": ("f", 2), "f3": ("f", 3), "i1": ("i", 1), "i2": ("i", 2)}


def _chain(seed: int = 3):
    """A random tree of every mobilizer type with dynamics, under gravity, with random q
    and u, realized to Instance stage."""
    system, matter, _, _, rng = random_tree(seed, DYNAMIC_TYPES, nbodies=8)
    Force.Gravity(system._force_subsystems[0], matter, [0.1, -1.0, 0.2], 9.81)
    state = system.realizeTopology()
    system.realizeModel(state)
    state.setQ(rng.uniform(-0.8, 0.8, state.getNQ()))
    system.realize(state, Stage.Time)
    matter.normalizeQuaternions(state)
    state.setU(rng.uniform(-1.0, 1.0, state.getNU()))
    system.realize(state, Stage.Instance)
    return system, matter, state


def _accessor_uses():
    """(file, line, accessor, table, slot name) for every table read in the engine's
    source: ``f2(a, s, SLOT.V_GB)``, also through module constants such as
    ``_Q = SLOT.q``, and reads of the declared side tables (``SIDE_TABLES``) such as
    ``f2(wa, ws, WORK_SLOT.G)``; table and slot are None for a read by number."""
    for path in sorted(ENGINE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        aliases = {}
        for node in tree.body:  # _Q, _U = SLOT.q, SLOT.u
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
                pairs = (
                    zip(target.elts, value.elts, strict=False)
                    if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple)
                    else [(target, value)]
                )
                for t, v in pairs:
                    if (
                        isinstance(t, ast.Name)
                        and isinstance(v, ast.Attribute)
                        and isinstance(v.value, ast.Name)
                        and v.value.id == "SLOT"
                    ):
                        aliases[t.id] = v.attr
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            name = node.func.id.removeprefix("table_")
            if name not in ACCESSORS or len(node.args) != 3:
                continue
            slot = node.args[2]
            table = getattr(slot.value, "id", "") if isinstance(slot, ast.Attribute) else ""
            if table == "SLOT" or table in SIDE_TABLES:
                yield path.name, node.lineno, name, table, slot.attr
            elif isinstance(slot, ast.Name) and slot.id in aliases:
                yield path.name, node.lineno, name, "SLOT", aliases[slot.id]
            else:
                yield path.name, node.lineno, name, None, None


def test_every_table_read_names_its_slot_with_the_declared_kind_and_dimensions():
    uses = list(_accessor_uses())
    assert len(uses) > 60  # the stage kernels, the fused kernel, the Merson kernels
    for file, line, accessor, table, slot in uses:
        assert slot is not None, f"{file}:{line}: a table read by number, not by a slot name"
        if table == "SLOT":
            decl = layout.BY_NAME[slot]
            declared = (decl.kind, len(decl.shape))
        else:
            declared = {name: (kind, ndim) for name, kind, ndim in SIDE_TABLES[table][1]}[slot]
        assert ACCESSORS[accessor] == declared, (
            f"{file}:{line}: {accessor} reads {table}.{slot}, declared {declared}"
        )
    assert {table for _, _, _, table, _ in uses} == {"SLOT", *SIDE_TABLES}


@pytest.mark.parametrize("table", sorted(SIDE_TABLES))
def test_a_side_tables_slots_follow_its_declaration(table):
    slots, spec = SIDE_TABLES[table]
    assert slots._fields == tuple(name for name, _, _ in spec)
    assert list(slots) == list(range(len(spec)))


def test_the_constraints_table_refuses_an_array_of_another_kind_or_dimension():
    """Two arrays of the constraints' table swapped (ci and cf, qerr and P) are refused
    when the table is made, before any kernel reads them."""
    good = [
        np.zeros((2, 3), np.int64) if kind == "i" and ndim == 2
        else np.zeros(3, np.int64) if kind == "i"
        else np.zeros((2,) * ndim)
        for _, kind, ndim in CONS_SPEC
    ]  # fmt: skip
    ArrayTable(CONS_SPEC, tuple(good))
    for a, b in ((CONS_SLOT.ci, CONS_SLOT.cf), (CONS_SLOT.qerr, CONS_SLOT.P)):
        swapped = list(good)
        swapped[a], swapped[b] = good[b], good[a]
        with pytest.raises(ValueError, match="must be a C-contiguous"):
            ArrayTable(CONS_SPEC, tuple(swapped))


def test_the_slots_spec_and_declaration_agree():
    assert layout.SLOT._fields == tuple(d.name for d in layout.LAYOUT)
    assert list(layout.SLOT) == list(range(len(layout.LAYOUT)))
    assert [name for name, _, _ in layout.SPEC] == list(layout.SLOT._fields)
    assert len(set(layout.SLOT._fields)) == len(layout.LAYOUT)


def test_each_slot_of_a_states_table_is_the_array_its_home_holds_under_that_name():
    system, matter, state = _chain()
    system.realize(state, Stage.Acceleration)
    ctx = matter._context(state)
    table = ctx.table
    homes = matter._kernel_homes(ctx)
    for decl in layout.LAYOUT:
        k = getattr(layout.SLOT, decl.name)
        if decl.home not in homes:
            assert table.arrays[k].size == 0, decl.name  # a placeholder
            continue
        holder = homes[decl.home]
        home_array = holder[decl.name] if isinstance(holder, dict) else getattr(holder, decl.name)
        assert table.arrays[k] is home_array, decl.name
        assert table.addresses[k] == home_array.ctypes.data, decl.name
    # the homes' arrays are the ones the public API reads
    pc = state.getCacheEntry(matter.getMySubsystemIndex(), matter._ix.position)
    assert table.arrays[layout.SLOT.p_GB] is pc.p_GB
    np.testing.assert_array_equal(table.arrays[layout.SLOT.udot], state.getUDot())


def test_an_array_that_breaks_its_shape_rule_is_refused_by_name():
    system, matter, state = _chain()
    ctx = matter._context(state)
    homes = matter._kernel_homes(ctx)
    homes[layout.VELOCITY] = {
        **{d.name: getattr(ctx.vc, d.name) for d in layout.LAYOUT if d.home == layout.VELOCITY},
        "coriolis": np.zeros((ctx.nb, 3)),
    }
    with pytest.raises(ValueError, match="coriolis"):
        layout.build_table(homes, matter._kernel_dims(ctx))
    arrays = list(ctx.table.arrays)
    arrays[layout.SLOT.V_GB] = np.zeros((ctx.nb, 6, 1))  # the wrong number of dimensions
    with pytest.raises(ValueError, match="V_GB"):
        ArrayTable(layout.SPEC, tuple(arrays))
    arrays[layout.SLOT.V_GB] = np.zeros((ctx.nb, 6), dtype=np.int64)  # the wrong kind
    with pytest.raises(ValueError, match="V_GB"):
        ArrayTable(layout.SPEC, tuple(arrays))


def _swapped(table: ArrayTable, first: str, second: str) -> ArrayTable:
    """``table`` with the arrays of two slots exchanged (what a hand-written list in the
    wrong order would have built)."""
    arrays = list(table.arrays)
    i, j = getattr(layout.SLOT, first), getattr(layout.SLOT, second)
    arrays[i], arrays[j] = arrays[j], arrays[i]
    return ArrayTable(layout.SPEC, tuple(arrays))


@pytest.mark.parametrize(
    "first, second",
    [("coriolis", "gyroscopic"), ("p_PF", "p_BM"), ("R_PF", "R_BM"), ("D_inv", "U_cols")],
)
def test_two_same_shape_arrays_swapped_in_the_table_are_caught(first, second):
    """Each pair has the same shape, so only the names tell them apart: the layout's check
    names the slots of a table with the two exchanged, and the fused kernel run on it
    does not reproduce the State's results (the kernels read each slot in its declared
    role)."""
    system, matter, state = _chain()
    system.realize(state, Stage.Acceleration)
    expected = np.array(state.getUDot())
    plan = system._fused_realization._current_plan(state)
    assert plan.args is not None
    euler, table = plan.args[0], plan.table
    ctx = matter._context(state)
    homes = matter._kernel_homes(ctx)
    homes[layout.INSTANCE] = {
        d.name: table.arrays[getattr(layout.SLOT, d.name)]
        for d in layout.LAYOUT
        if d.home == layout.INSTANCE
    }
    layout.verify_table(table, homes)  # the real table passes

    # the same table, recomputed from scratch, gives the same accelerations
    udot = table.arrays[layout.SLOT.udot]
    udot[:] = 0.0
    realize_stages_from_table(POSITION, ACCELERATION, True, euler, table.addresses, table.shapes)
    np.testing.assert_allclose(udot, expected, rtol=1e-13, atol=1e-13)

    correct = {name: table.arrays[getattr(layout.SLOT, name)].copy() for name in (first, second)}
    bad = _swapped(table, first, second)
    with pytest.raises(ValueError, match=f"{first}|{second}"):
        layout.verify_table(bad, homes)
    udot[:] = 0.0
    realize_stages_from_table(POSITION, ACCELERATION, True, euler, bad.addresses, bad.shapes)
    # an input read in the wrong role changes the accelerations; two outputs written in
    # each other's place leave the wrong values where the State's readers look
    wrong = not np.allclose(udot, expected, rtol=1e-6, atol=1e-9) or any(
        not np.allclose(table.arrays[getattr(layout.SLOT, name)], values)
        for name, values in correct.items()
    )
    assert wrong


def test_the_layout_allocates_each_homes_arrays_as_declared():
    arrays = layout.allocate(layout.POSITION, {"nb": 4})
    assert set(arrays) == {d.name for d in layout.LAYOUT if d.home == layout.POSITION}
    assert arrays["H_G"].shape == (4, 6, 6)
    np.testing.assert_array_equal(arrays["R_GB"][0], np.eye(3))  # Ground's pose
    scratch = layout.allocate(layout.SCRATCH, {"nb": 4, "nu": 5})
    assert scratch["eps"].shape == (5,) and scratch["known"].dtype == np.int64
