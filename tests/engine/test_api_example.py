"""The exact shape of the user code issue 3 promises (a Simbody C++ example, line for line)."""

from __future__ import annotations

import numpy as np


def test_the_issue_example_runs_as_written():
    from engine import (
        Body,
        Force,
        GeneralForceSubsystem,
        Inertia,
        MassProperties,
        MobilizedBody,
        MultibodySystem,
        Rotation,
        SimbodyMatterSubsystem,
        Stage,
        Transform,
        Vec3,
        YAxis,
    )

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, -YAxis, 9.81)
    body = Body.Rigid(MassProperties(1.0, Vec3(0, -0.5, 0), Inertia(0.1, 0.01, 0.1)))
    link = MobilizedBody.Pin(
        matter.Ground(), Transform(Vec3(0, 1, 0)), body, Transform(Vec3(0, 0.5, 0))
    )
    state = system.realizeTopology()
    link.setOneQ(state, 0, 0.3)
    system.realize(state, Stage.Acceleration)
    udot = state.getUDot()
    M = matter.calcM(state)

    assert isinstance(Rotation(), Rotation)
    assert udot.shape == (1,) and M.shape == (1, 1)
    # a pin about z through Mo: the mass centre sits 1 m below the joint (p_MC = (0, -1, 0)),
    # so M = Izz about Mo = 0.1 + m (1^2 - 0.5^2) and gravity's torque is -m g sin(q) * 1
    izz_about_joint = 0.1 + 1.0 * (1.0**2 - 0.5**2)
    np.testing.assert_allclose(M, [[izz_about_joint]], rtol=1e-12)
    np.testing.assert_allclose(udot, [-9.81 * np.sin(0.3) / izz_about_joint], rtol=1e-12)
