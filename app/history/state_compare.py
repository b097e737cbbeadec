"""Compare two recorded States in full: their variables, what the System computes from them
(body poses and velocities in Ground, energies, constraint errors) and their cache entries.

Each record is restored into a private copy of a State of the System and realized to
Acceleration, so the comparison uses the engine exactly as a run does. Engine calls only:
the studio runs this on its worker thread.
"""

from __future__ import annotations

import numpy as np

from app.history.state_diff import DiffRow, _size, diff_records, value_rows
from app.history.state_record import StateRecord, restore
from engine import Stage, State
from engine.common.exceptions import SimTKError

DERIVED = "derived"


def _realized(system, base: State, record: StateRecord) -> tuple[State, str]:
    state = State(base)
    restore(record, state)
    try:
        system.realize(state, Stage.Acceleration)
    except SimTKError as exc:
        return state, str(exc)
    return state, ""


def _derived(built, state: State) -> dict[str, float]:
    """Named scalars computed from a State realized to Acceleration."""
    system, matter = built.system, built.matter
    out: dict[str, float] = {}
    for b in range(1, matter.getNumBodies()):
        name = built.body_name_of_index[b]
        mobod = matter.getMobilizedBody(b)
        p = mobod.getBodyOriginLocation(state)
        v = mobod.getBodyVelocity(state)
        for k, axis in enumerate("xyz"):
            out[f"{name} origin {axis} (Ground)"] = float(p[k])
        for k, axis in enumerate("xyz"):
            out[f"{name} angular velocity {axis} (Ground)"] = float(v[0][k])
        for k, axis in enumerate("xyz"):
            out[f"{name} origin velocity {axis} (Ground)"] = float(v[1][k])
    ke = float(system.calcKineticEnergy(state))
    pe = float(system.calcPotentialEnergy(state))
    out.update({"kinetic energy": ke, "potential energy": pe, "total energy": ke + pe})
    out["position constraint error |qErr|"] = float(np.linalg.norm(state.getQErr()))
    out["velocity constraint error |uErr|"] = float(np.linalg.norm(state.getUErr()))
    return out


def _cache_values(state: State) -> dict[tuple[str, str], object]:
    out = {}
    for i in range(state.getNumSubsystems()):
        owner = state.getSubsystemName(i)
        for ce in state.getPerSubsystemInfo(i).cache:
            if state.isCacheValueRealized(i, ce.index):
                out[(owner, ce.name)] = ce.value
    return out


def compare_states(
    built, base: State, a: StateRecord, b: StateRecord, q_labels=None, u_labels=None
) -> list[DiffRow]:
    """Every variable, derived quantity and realized cache entry that differs between the
    States of records ``a`` and ``b`` (of ``built``'s System; ``base`` is any State of it),
    largest difference first. A record that cannot be realized gives one "derived" row
    saying why, instead of its derived quantities and cache entries."""
    names = {i: base.getSubsystemName(i) for i in range(base.getNumSubsystems())}
    rows = diff_records(a, b, q_labels, u_labels, names)
    state_a, problem_a = _realized(built.system, base, a)
    state_b, problem_b = _realized(built.system, base, b)
    if problem_a or problem_b:
        rows.append(DiffRow("cannot realize", problem_a or "ok", problem_b or "ok", DERIVED))
        rows.sort(key=_size, reverse=True)
        return rows
    derived_a, derived_b = _derived(built, state_a), _derived(built, state_b)
    rows += [
        DiffRow(name, value, derived_b[name], DERIVED)
        for name, value in derived_a.items()
        if value != derived_b[name]
    ]
    cache_a, cache_b = _cache_values(state_a), _cache_values(state_b)
    for (owner, entry), value in cache_a.items():
        if (owner, entry) in cache_b:
            rows += value_rows(entry, value, cache_b[(owner, entry)], owner)
    rows.sort(key=_size, reverse=True)
    return rows
