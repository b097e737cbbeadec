"""Many body-fixed frame triads and lines are drawn by one LineBatch actor: the same pixels as
separate actors, moving with their bodies, and picking still names the body."""

from __future__ import annotations

import numpy as np

from engine.common.decorative_geometry import DecorativeFrame, DecorativeLine
from tests.viz.test_picking import grid_poses


def sketch(n):
    """Per body: a frame triad (axis colours), a coloured line, and a second, thick frame."""
    out = []
    for i in range(n):
        b = i + 1
        out.append(DecorativeFrame(0.3).setBodyId(b).setIndexOnBody(0).setUserRef(f"f{b}"))
        line = DecorativeLine((0.0, 0.0, 0.0), (0.0, -0.35, 0.1)).setBodyId(b).setIndexOnBody(1)
        out.append(line.setColor((0.9, 0.2, 0.7)))
        out.append(DecorativeFrame(0.15).setBodyId(b).setIndexOnBody(2).setLineThickness(4))
    return out


def draw(make_scene, threshold, x_gb, n):
    scene = make_scene(320, 240, instancing_threshold=threshold)
    scene.set_geometry(sketch(n))
    scene.update_poses(x_gb)
    scene.set_camera(position=(0, 1.2, 7), focal_point=(0, 1.2, 0), view_up=(0, 1, 0))
    return scene


def test_batched_lines_draw_like_separate_actors_and_move(make_scene):
    n = 12
    x_gb = grid_poses(n, seed=3)
    separate = draw(make_scene, 1000, x_gb, n)
    batched = draw(make_scene, 4, x_gb, n)
    assert separate.num_actors() == 3 * n
    assert batched.num_actors() == 2  # thin lines and thick frames: one batch per width
    a, b = separate.capture(), batched.capture()
    drawn = (a.astype(int).sum(axis=2) < 3 * 250).sum()
    assert drawn > 500  # something was drawn
    differ = (np.abs(a.astype(int) - b.astype(int)).max(axis=2) > 60).sum()
    assert differ < 0.02 * drawn
    # the batch follows the bodies
    moved = grid_poses(n, seed=4)
    moved[1:, 0, 3] += 0.3
    separate.update_poses(moved)
    batched.update_poses(moved)
    a2, b2 = separate.capture(), batched.capture()
    assert (np.abs(a2.astype(int) - a.astype(int)).max(axis=2) > 60).sum() > 200
    assert (np.abs(a2.astype(int) - b2.astype(int)).max(axis=2) > 60).sum() < 0.02 * drawn


def test_picking_a_batched_line_names_its_body(make_scene):
    n = 12
    x_gb = grid_poses(n, seed=5)
    scene = draw(make_scene, 4, x_gb, n)
    scene.render()
    for b in range(1, n + 1):
        # a point a little along the body's thin frame's y axis (the thick frame is shorter)
        p = x_gb[b, :3, 3] + 0.25 * x_gb[b, :3, 1]
        hit = scene.pick(*scene.world_to_display(p))
        if hit is None:  # a 1-pixel line can be missed by a pixel; try the x axis
            p = x_gb[b, :3, 3] + 0.25 * x_gb[b, :3, 0]
            hit = scene.pick(*scene.world_to_display(p))
        assert hit is not None and hit.body_id == b, (b, hit)
