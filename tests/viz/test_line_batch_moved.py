"""A LineBatch given new body poses places again only the points of the bodies that moved
(all of them once more than a quarter of the bodies moved), also after an edit that removed
or inserted a body and so renumbered the bodies after it, and draws exactly what a batch
built afresh and placed at those poses draws."""

from __future__ import annotations

import numpy as np
from vtkmodules.util.numpy_support import vtk_to_numpy

from tests.viz.test_line_batch import sketch
from tests.viz.test_picking import grid_poses
from viz.decoration_keys import KeyedGeometry
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


def named_sketch(names: list[str]) -> KeyedGeometry:
    """``sketch``'s decorations for bodies ``names`` (index = position + 1), followed by name
    (an edit that removes or inserts a body renumbers the bodies after it)."""
    out = []
    for i, name in enumerate(names):
        for d in sketch(1):
            out.append(d.setBodyId(i + 1).setUserRef(name))
    return KeyedGeometry(out, ["Ground", *names])


def test_an_edit_that_renumbers_bodies_places_only_the_new_and_moved_ones():
    names = [f"b{i}" for i in range(N)]
    x_gb = grid_poses(N, seed=3)
    scene = Scene(instancing_threshold=4)
    scene.set_geometry(named_sketch(names))
    scene.update_poses(x_gb)

    # b10 removed: the bodies after it take the index before theirs, at the same poses
    names.remove("b10")
    x_gb = np.delete(x_gb, 11, axis=0)
    scene.set_geometry(named_sketch(names))
    scene.update_poses(x_gb)
    assert [b.points_placed for b in batches(scene)] == [0, 0]
    check_same(scene, named_sketch(names), x_gb)

    # a body inserted at index 6 (b5's place): the bodies after it take the next index;
    # only the new body's points are placed, and those of b20, which moved meanwhile
    names.insert(5, "new")
    x_gb = np.insert(x_gb, 6, grid_poses(N, seed=5)[6], axis=0)
    x_gb[names.index("b20") + 1, :3, 3] += 0.3
    scene.set_geometry(named_sketch(names))
    scene.update_poses(x_gb)
    for batch in batches(scene):
        assert batch.points_placed == points_of(batch, (6, names.index("b20") + 1))
    check_same(scene, named_sketch(names), x_gb)


def check_same(scene: Scene, geometry, x_gb) -> None:
    """``scene`` draws the points a Scene given ``geometry`` afresh draws at ``x_gb`` (in
    another order: the items an edit added come last in their batch)."""
    fresh = Scene(instancing_threshold=4)
    fresh.set_geometry(geometry)
    fresh.update_poses(x_gb)

    def rows(batch: LineBatch) -> np.ndarray:
        p = points(batch)
        return p[np.lexsort(p.T[::-1])]

    for a, b in zip(batches(scene), batches(fresh), strict=True):
        np.testing.assert_array_equal(rows(a), rows(b))


def batch_arrays(batch: LineBatch) -> dict:
    """What a batch draws and keeps: its world points, segments, colours and items."""
    poly = batch.mapper.GetInput()
    lines = poly.GetLines()
    return {
        "points": points(batch),
        "connectivity": vtk_to_numpy(lines.GetConnectivityArray()).copy(),
        "offsets": vtk_to_numpy(lines.GetOffsetsArray()).copy(),
        "colors": vtk_to_numpy(poly.GetCellData().GetScalars()).copy(),
        "items": [id(it) for it in batch.items],
        "item_body": batch.item_body.tolist(),
        "body_idx": batch.body_idx.tolist(),
        "placed": batch.placed,
    }


def test_removing_items_in_few_or_many_runs_leaves_what_a_batch_of_the_rest_draws():
    """Items removed in a few runs (copied as the runs kept between them) or in many (past
    COPY_RUNS_UP_TO: picked with a mask) leave the batch equal to one made of the items
    kept, placed at the same poses."""
    from viz import line_batch

    x_gb = grid_poses(N, seed=5)
    for drop in (
        [0],  # the first item
        [5, 6, 7, 30],  # two runs
        list(range(2, 3 * N, 2))[: line_batch.COPY_RUNS_UP_TO + 3],  # many runs
        [3 * N - 1],  # the last item
    ):
        scene = scene_at(x_gb)
        batch = max(batches(scene), key=len)
        items = list(batch.items)
        gone = [items[k] for k in drop if k < len(items)]
        kept = [it for it in items if all(it is not g for g in gone)]
        batch.remove(gone)
        assert batch.placed == len(kept)
        fresh = LineBatch(kept, batch.default_color)
        fresh.update(x_gb)
        ours, theirs = batch_arrays(batch), batch_arrays(fresh)
        for key in ours:
            np.testing.assert_array_equal(ours[key], theirs[key], err_msg=f"{drop}: {key}")
