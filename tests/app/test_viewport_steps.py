"""The 3-D view draws a large model in steps (issue 22: never the whole drawing in one turn of
the event loop); a model drawn in steps that replaces a larger one takes its poses at once,
before its first step (the previous drawing, with bodies the new poses lack, is gone), and
ends up drawing what a Scene built in one go draws."""

from __future__ import annotations

import pytest

from app import viewport
from tests.viz.test_incremental_scene import model
from tests.viz.test_picking import grid_poses
from viz.scene import Scene

pytestmark = pytest.mark.gui


def test_a_model_drawn_in_steps_replacing_a_larger_one(qtbot, monkeypatch):
    monkeypatch.setattr(viewport, "DRAW_IN_STEPS_ABOVE", 50)
    monkeypatch.setattr(viewport, "DRAW_STEP", 20)
    monkeypatch.setattr(viewport, "DRAW_STEP_BOUNDS", (20, 40))
    view = viewport.ViewportWidget()
    qtbot.addWidget(view)
    view.resize(320, 240)
    view.show()
    qtbot.waitExposed(view)
    try:
        view.show_model(model([f"b{i}" for i in range(40)]))
        view.update_frame(grid_poses(40))
        qtbot.waitUntil(lambda: not view.drawing_in_steps(), timeout=10000)
        view.expect_new_model()
        smaller = model([f"c{i}" for i in range(20)])
        view.show_model(smaller)
        assert view.drawing_in_steps() and view.draw_progress.maximum() == len(smaller)
        view.update_frame(grid_poses(20))  # before its first step
        steps = []
        qtbot.waitUntil(lambda: steps.append(1) or not view.drawing_in_steps(), timeout=10000)
        assert len(steps) > 1  # the event loop ran between the steps
        fresh = Scene(instancing_threshold=view.scene.instancing_threshold)
        fresh.set_geometry(smaller)
        assert view.scene.describe() == fresh.describe()
        fresh.close()
    finally:
        view.close_view()
