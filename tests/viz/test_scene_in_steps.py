"""A Scene given a large model's decorations in steps (the studio's 3-D view draws a 20,000-body
chain's 120,000 decorations that way, one step per turn of the event loop) does each step's
work for that step's new decorations only: each decoration is built once and each batched
item placed once, however many steps came before (issue 22: the steps re-placed and re-built
everything drawn so far, so the last steps held the GUI thread half a second). The stepped
Scene draws exactly what a Scene built in one go draws, placed for the poses given, whenever
in the steps they were given."""

from __future__ import annotations

import numpy as np

from tests.viz.test_incremental_scene import THRESHOLD, model
from tests.viz.test_picking import grid_poses
from viz.instancing import GlyphGroup
from viz.line_batch import LineBatch
from viz.scene import Scene

BODIES = 300


def _placements(scene: Scene) -> dict:
    """Each batch's placed points (glyph positions and orientations, line points), by kind."""
    out = {}
    for group in scene._groups:  # noqa: SLF001
        if isinstance(group, GlyphGroup):
            out[("glyph", group.shape)] = np.c_[group._positions, group._quaternions]  # noqa: SLF001
        else:
            out[("lines", len(group))] = group._world.copy()  # noqa: SLF001
    return out


def test_steps_build_and_place_each_decoration_once_and_draw_what_one_go_draws(monkeypatch):
    geometry = model([f"b{i}" for i in range(BODIES)])
    scene = Scene(instancing_threshold=THRESHOLD)
    built: list[int] = []
    real_build = scene._builder.build  # noqa: SLF001
    monkeypatch.setattr(
        scene._builder,  # noqa: SLF001
        "build",
        lambda decorations, **kw: built.append(len(decorations)) or real_build(decorations, **kw),
    )
    placed: list[int] = []  # items placed by each batch update made within set_geometry
    stepping = [True]
    for kind in (GlyphGroup, LineBatch):
        real_update = kind.update

        def update(self, x_gb, start=0, real_update=real_update):
            if stepping[0]:
                placed.append(len(self) - start)
            real_update(self, x_gb, *((start,) if start else ()))

        monkeypatch.setattr(kind, "update", update)

    poses = grid_poses(BODIES, seed=1)
    later = grid_poses(BODIES, seed=2)
    # steps as the view makes them: small, then growing (one more than half of what is drawn)
    ends = [10, 30, 70, 600, 700, 900, len(geometry)]
    drawn = None
    for k, end in enumerate(ends):
        head = geometry.head(end, drawn)
        scene.set_geometry(head)
        drawn = head
        if k == 2:  # a snapshot arrives while the view is drawn: every item placed for it
            stepping[0] = False
            scene.update_poses(poses)
            stepping[0] = True
    assert sum(built) == len(geometry)  # each decoration built once
    batched = sum(len(g) for g in scene._groups)  # noqa: SLF001
    assert sum(placed) == batched  # each batched item placed once by the steps

    fresh = Scene(instancing_threshold=THRESHOLD)
    fresh.set_geometry(geometry)
    fresh.update_poses(poses)
    assert scene.describe() == fresh.describe()
    ours, theirs = _placements(scene), _placements(fresh)
    assert ours.keys() == theirs.keys()
    for key in ours:
        np.testing.assert_allclose(ours[key], theirs[key], atol=1e-12, err_msg=str(key))
    # the next poses move every item, as for a Scene drawn in one go
    scene.update_poses(later)
    fresh.update_poses(later)
    for key, value in _placements(scene).items():
        np.testing.assert_allclose(value, _placements(fresh)[key], atol=1e-12)
