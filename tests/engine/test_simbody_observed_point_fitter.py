"""Simbody's ObservedPointFitter (issue 21): findBestFit recovers the configuration that
produced the observed points, respects the System's constraints, and weighs points."""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Constraint,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    ObservedPointFitter,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
)


def _chain():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0), Inertia(0.1)))
    a = MobilizedBody.Pin(matter.Ground(), Transform(), body, Transform(Vec3(0, 1, 0)))
    b = MobilizedBody.Universal(a, Transform(Vec3(0, -1, 0)), body, Transform(Vec3(0, 1, 0)))
    c = MobilizedBody.Slider(b, Transform(Vec3(0, -1, 0)), body, Transform())
    return system, matter, [a, b, c]


def _observe(system, state, bodies, stations):
    system.realize(state, Stage.Position)
    return [
        [mobod.findStationLocationInGround(state, p) for p in pts]
        for mobod, pts in zip(bodies, stations, strict=True)
    ]


STATIONS = [
    [Vec3(0.2, 0, 0), Vec3(0, 0, 0.3)],
    [Vec3(0.1, 0.2, 0), Vec3(0, -0.3, 0.2)],
    [Vec3(0.4, 0, 0), Vec3(0, 0.1, -0.2)],
]


def test_find_best_fit_recovers_the_observed_configuration():
    system, matter, bodies = _chain()
    state = system.realizeTopology()
    q_true = np.array([0.4, -0.3, 0.5, 0.25])
    state.updQ()[:] = q_true
    targets = _observe(system, state, bodies, STATIONS)
    state.updQ()[:] = 0.0
    indices = [m.getMobilizedBodyIndex() for m in bodies]
    rms = ObservedPointFitter.findBestFit(system, state, indices, STATIONS, targets, 1e-8)
    assert rms < 1e-6
    np.testing.assert_allclose(state.getQ(), q_true, atol=1e-5)


def test_weights_and_constraints():
    system, matter, bodies = _chain()
    # the slider is held at 0.1 by a constraint: the fit must respect it
    Constraint.ConstantCoordinate(bodies[2], 0, 0.1)
    state = system.realizeTopology()
    state.updQ()[:] = [0.4, -0.3, 0.5, 0.25]  # slider at 0.25: unreachable now
    targets = _observe(system, state, bodies, STATIONS)
    state.updQ()[:] = 0.0
    rms = ObservedPointFitter.findBestFit(system, state, bodies, STATIONS, targets)
    assert bodies[2].getOneQ(state, 0) == pytest.approx(0.1, abs=1e-6)
    assert 0 < rms < 0.2
    # weighting only the first two bodies' points: those are matched exactly again
    weights = [[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]]
    state.updQ()[:] = 0.0
    rms_w = ObservedPointFitter.findBestFit(system, state, bodies, STATIONS, targets, weights, 1e-8)
    assert rms_w < 1e-6
    np.testing.assert_allclose(state.getQ()[:3], [0.4, -0.3, 0.5], atol=1e-5)
