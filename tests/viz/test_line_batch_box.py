"""The world box of a line batch's points on bodies (the view's out-of-view check, every few
seconds and after each edit) equals the box of those points picked out, wherever Ground's
items are in the batch, and is found without copying the batch's points (a 20,000-body
chain's batch holds 280,000 points)."""

from __future__ import annotations

import tracemalloc

import pytest

from engine.common.decorative_geometry import DecorativeFrame
from tests.viz.test_line_batch import sketch
from tests.viz.test_picking import grid_poses
from viz.line_batch import LineBatch
from viz.scene import Scene

N = 1500


def _scene(ground_at: list[int]) -> Scene:
    """A Scene of ``sketch(N)`` with a Ground frame inserted before each decoration index of
    ``ground_at``, placed at spread-out poses."""
    geometry = sketch(N)
    for at in sorted(ground_at, reverse=True):
        geometry.insert(at, DecorativeFrame(50.0).setBodyId(0))
    scene = Scene(instancing_threshold=4)
    scene.set_geometry(geometry)
    scene.update_poses(grid_poses(N, seed=4))
    return scene


def _batch(scene: Scene) -> LineBatch:
    return max((g for g in scene._groups if isinstance(g, LineBatch)), key=len)  # noqa: SLF001


@pytest.mark.parametrize("ground_at", [[], [0], [0, 2, 4], [3 * N // 2], [3 * N], [1, 3 * N - 1]])
def test_the_box_of_the_points_on_bodies_is_that_of_those_points(ground_at):
    scene = _scene(ground_at)
    batch = _batch(scene)
    points = batch._world[batch.body_idx > 0]  # noqa: SLF001
    lo, hi = points.min(axis=0), points.max(axis=0)
    want = (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
    if ground_at:  # (Ground's frame reaches far out: a box that took it in would differ)
        every = batch._world  # noqa: SLF001
        assert every.max() > hi.max()
    assert want in scene.body_boxes()


def test_the_box_copies_no_points():
    scene = _scene([0, 2])
    batch = _batch(scene)
    size = batch._world.nbytes  # noqa: SLF001
    scene.body_boxes()
    tracemalloc.start()
    try:
        scene.body_boxes()
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < size / 10
