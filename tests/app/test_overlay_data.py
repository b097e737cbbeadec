"""Overlay data computed by the worker: physics checks of the forces and mass centres drawn by
the teaching overlays, and the snapshot's body poses."""

from __future__ import annotations

import numpy as np

from app.document import build, model_io
from app.document.examples import example_path
from app.simulation.overlay_data import compute_overlay_data
from app.simulation.snapshot import body_poses
from engine import Stage
from tests.app.test_recording_and_overlays import spring_model

ALL = {"mass_centers", "forces", "springs"}


def built_example(name: str):
    return build(model_io.load(example_path(name)))


def test_hanging_pendulum_weight_and_pin_reaction_balance():
    built = built_example("pendulum")
    state = built.state.copy()
    link = built.mobilized_bodies["link"]
    link.setQ(state, np.zeros(1))
    link.setU(state, np.zeros(1))
    data = compute_overlay_data(built, state, ALL)
    assert not data.error
    mass = link.getBody().getDefaultRigidBodyMassProperties().getMass()
    gravity = data.forces["gravity"]
    np.testing.assert_allclose(gravity.forces, [[0.0, -9.81 * mass, 0.0]], atol=1e-12)
    np.testing.assert_allclose(gravity.points[0], data.mass_centers[1], atol=1e-12)
    reaction = data.forces["reaction"]  # hanging at rest: the pin holds the weight up
    np.testing.assert_allclose(reaction.forces, [[0.0, 9.81 * mass, 0.0]], atol=1e-9)
    np.testing.assert_allclose(reaction.points[0], [0.0, 1.5, 0.0], atol=1e-12)  # the pivot
    assert data.reference_force == 9.81 * mass
    assert len(data.forces["constraint"].forces) == 0 and len(data.springs) == 0


def test_spring_arrows_are_equal_opposite_and_follow_hookes_law(tmp_path):
    built = build(model_io.load(spring_model(tmp_path)))
    state = built.state.copy()
    data = compute_overlay_data(built, state, ALL)
    assert data.springs.shape == (1, 2, 3)
    p1, p2 = data.springs[0]
    np.testing.assert_allclose(p1, [1.0, 1.5, 0.0], atol=1e-12)
    spring = data.forces["spring"]
    f1, f2 = spring.forces
    np.testing.assert_allclose(f1, -f2, atol=1e-12)
    stretch = np.linalg.norm(p2 - p1) - 0.5
    np.testing.assert_allclose(np.linalg.norm(f2), 30.0 * stretch, rtol=1e-12)
    assert np.dot(f2, p1 - p2) > 0  # stretched: it pulls the bob toward the anchor


def test_four_bar_constraint_forces_and_system_mass_centre():
    built = built_example("four_bar")
    state = built.state.copy()
    data = compute_overlay_data(built, state, ALL)
    assert not data.error
    constraint = data.forces["constraint"]
    assert len(constraint.forces) == 2  # the loop-closure ball joins coupler and rocker
    np.testing.assert_allclose(constraint.forces.sum(axis=0), 0.0, atol=1e-9)
    assert np.linalg.norm(constraint.forces, axis=1).min() > 1e-3
    m = data.masses
    expected = (m[1:, None] * data.mass_centers[1:]).sum(axis=0) / m[1:].sum()
    np.testing.assert_allclose(data.system_mass_center, expected, atol=1e-12)


def test_only_the_requested_kinds_are_computed():
    built = built_example("double_pendulum")
    data = compute_overlay_data(built, built.state.copy(), {"mass_centers"})
    assert data.kinds == frozenset({"mass_centers"}) and not data.forces
    assert data.mass_centers.shape == (3, 3)


def test_snapshot_body_poses_match_get_body_transform():
    built = built_example("chain50")
    state = built.state.copy()
    built.system.realize(state, Stage.Position)
    fast = body_poses(built.matter, state)
    for b in (0, 1, 25, 50):
        expected = built.matter.getMobilizedBody(b).getBodyTransform(state).toMat44()
        np.testing.assert_array_equal(fast[b], expected)
