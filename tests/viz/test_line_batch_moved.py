"""A LineBatch given new body poses places again only the points of the bodies that moved
(all of them once more than a quarter of the bodies moved), and draws exactly what a batch
built afresh and placed at those poses draws."""

from __future__ import annotations

import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy

from tests.viz.test_line_batch import sketch
from tests.viz.test_picking import grid_poses
from viz.line_batch import LineBatch
from viz.scene import Scene

N = 40


def batches(scene: Scene) -> list[LineBatch]:
    return [g for g in scene._groups if isinstance(g, LineBatch)]


def points(batch: LineBatch) -> np.ndarray:
    """The world points VTK draws."""
    return vtk_to_numpy(batch.mapper.GetInput().GetPoints().GetData()).copy()


def scene_at(x_gb) -> Scene:
    scene = Scene(instancing_threshold=4)
    scene.set_geometry(sketch(N))
    scene.update_poses(x_gb)
    return scene


def points_of(batch: LineBatch, bodies) -> int:
    return int(np.isin(batch.body_idx, list(bodies)).sum())


def check_same_as_fresh(scene: Scene, x_gb) -> None:
    fresh = scene_at(x_gb)
    for a, b in zip(batches(scene), batches(fresh), strict=True):
        np.testing.assert_array_equal(points(a), points(b))


def test_only_the_moved_bodies_are_placed_again_and_the_drawing_equals_a_fresh_one():
    x_gb = grid_poses(N, seed=3)
    scene = scene_at(x_gb)
    assert len(batches(scene)) == 2  # thin and thick lines
    moved = x_gb.copy()
    moved[[4, 17, 30], :3, 3] += (0.2, -0.1, 0.3)
    moved[17, :3, :3] = grid_poses(N, seed=9)[17, :3, :3]
    scene.update_poses(moved)
    for batch in batches(scene):
        assert 0 < batch.points_placed == points_of(batch, (4, 17, 30)) < len(batch.body_idx)
    check_same_as_fresh(scene, moved)
    scene.update_poses(moved.copy())  # the same poses again: nothing to place
    assert [b.points_placed for b in batches(scene)] == [0, 0]
    check_same_as_fresh(scene, moved)


def test_more_than_a_quarter_moved_places_every_point():
    x_gb = grid_poses(N, seed=3)
    scene = scene_at(x_gb)
    many = x_gb.copy()
    many[1 : N // 2, :3, 3] += 0.25  # about half the bodies
    scene.update_poses(many)
    for batch in batches(scene):
        assert batch.points_placed == len(batch.body_idx)
    check_same_as_fresh(scene, many)
    few = many.copy()
    few[N, :3, 3] -= 0.5  # then the last body alone
    scene.update_poses(few)
    for batch in batches(scene):
        assert batch.points_placed == points_of(batch, (N,))
    check_same_as_fresh(scene, few)
