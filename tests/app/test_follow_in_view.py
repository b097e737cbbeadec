"""A followed body is in the view: sliding_to_rolling opens following its ball from close up,
where the selected ball's axes reach out of the view; while it plays, the status bar never
says that bodies left the view (its origin, not the middle of its axes, is what counts)."""

from __future__ import annotations

import time

import pytest

from app.document.examples import example_path
from tests.app.test_newcomer_pass3 import click, click_action, studio  # noqa: F401

pytestmark = pytest.mark.gui


def test_the_followed_ball_never_counts_as_out_of_the_view(studio, qtbot):  # noqa: F811
    window = studio(example_path("sliding_to_rolling"))
    viewport, panel = window.viewport, window.simulation
    follow = window.view_controls.actions["follow"]
    qtbot.waitUntil(follow.isChecked, timeout=10000)
    view = viewport.interactor_widget
    click(qtbot, view)  # the ball, drawn in the middle of the view: selected, axes shown
    qtbot.waitUntil(lambda: window.model_editor.tree.selected_bodies() == ["ball"], timeout=5000)
    click_action(qtbot, window, window.sim_actions["play"])
    shown, end = [], time.monotonic() + 3.0
    while time.monotonic() < end:
        qtbot.wait(20)
        shown.append(viewport.out_of_view.isVisible())
    click_action(qtbot, window, window.sim_actions["pause"])
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    assert panel.snapshot.time > 1.0  # the ball rolled on, the camera after it
    assert viewport.scene.bodies_in_view()
    assert not any(shown), "Bodies left the view shown while the camera follows the ball"
