"""The matter subsystem's Instance stage (the prescribed-motion layout) looks only at the
bodies that are locked or have a Motion, not at every body of a large tree (issue 22: it
runs at every edit's realization of a 20,000-body chain), and finds the same layout."""

from __future__ import annotations

import numpy as np

from engine import (
    Body,
    Inertia,
    MassProperties,
    MobilizedBody,
    Motion,
    MultibodySystem,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
)


class _CountingList(list):
    """A list that counts the items read from it one by one and the walks over it."""

    reads = 0
    walks = 0

    def __getitem__(self, index):
        _CountingList.reads += 1
        return super().__getitem__(index)

    def __iter__(self):
        _CountingList.walks += 1
        return super().__iter__()


def _chain(n: int):
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0.5, 0, 0), Inertia(0.1, 0.1, 0.1)))
    mobods = [matter.Ground()]
    for k in range(n):
        X_PF = Transform() if k == 0 else Transform(Vec3(1.0, 0, 0))
        mobods.append(MobilizedBody.Pin(mobods[-1], X_PF, body, Transform()))
    return system, matter, mobods


def test_the_instance_stage_reads_only_the_locked_and_prescribed_bodies():
    system, matter, mobods = _chain(400)
    Motion.Steady(mobods[7], 1.25)
    mobods[300].lockByDefault(Motion.Position)
    state = system.realizeTopology()
    reference = system.realizeTopology()
    system.realize(reference, Stage.Instance)
    matter._mobods = _CountingList(matter._mobods)  # noqa: SLF001
    _CountingList.reads = _CountingList.walks = 0
    system.realize(state, Stage.Instance)
    assert _CountingList.walks == 0 and _CountingList.reads <= 2  # bodies 7 and 300
    assert mobods[7].getUMotionMethod(state) == Motion.Prescribed
    assert mobods[300].getQMotionMethod(state) == Motion.Discrete
    assert mobods[8].getQMotionMethod(state) == Motion.Free
    np.testing.assert_array_equal(matter.getFreeUIndex(state), matter.getFreeUIndex(reference))
    free = np.ones(400, dtype=bool)
    free[[6, 299]] = False
    np.testing.assert_array_equal(matter.getFreeUIndex(state), np.flatnonzero(free))
    # a lock set in the State is found too, and released again
    mobods[50].lockAt(state, 0.2, Motion.Position)
    system.realize(state, Stage.Instance)
    assert mobods[50].getQMotionMethod(state) == Motion.Discrete
    mobods[50].unlock(state)
    system.realize(state, Stage.Instance)
    assert mobods[50].getQMotionMethod(state) == Motion.Free


def test_the_custom_bodies_are_found_from_the_topology_arrays():
    """The list of Custom-mobilizer bodies (made once per topology, read at every stage's
    realization) comes from the topology's type ids, not from a walk over every body."""
    system, matter, _ = _chain(400)
    system.realizeTopology()
    matter._custom_topology = None  # noqa: SLF001  (made again below)
    matter._mobods = _CountingList(matter._mobods)  # noqa: SLF001
    _CountingList.reads = _CountingList.walks = 0
    assert matter._custom_bodies() == []  # noqa: SLF001
    assert _CountingList.walks == 0 and _CountingList.reads == 0
