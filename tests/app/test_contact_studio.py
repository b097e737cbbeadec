"""Contact in the running studio: a ball resting on the ground plane is drawn from its
contact sphere, and View > Teaching overlays > Contact points and forces shows its contact
point and normal force arrow while playing."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.document import ModelDocument, model_io
from app.document.contact_examples import ball, ground_plane
from app.document.examples import gravity
from app.document.specs import ContactMaterialSpec, Hints, ModelData

pytestmark = pytest.mark.gui


def resting_ball(tmp_path):
    radius, mass, stiffness = 0.1, 1.0, 1e7
    # Hertz: m g = 4/3 E* sqrt(R) d^1.5 with the ball and floor stiffnesses in series
    floor = ground_plane().material.stiffness
    k1, k2 = stiffness ** (2 / 3), floor ** (2 / 3)
    effective = (k1 * k2 / (k1 + k2)) ** 1.5
    depth = (mass * 9.81 / (4 / 3 * effective * radius**0.5)) ** (2 / 3)
    material = ContactMaterialSpec(stiffness=stiffness, dissipation=3.0)
    data = ModelData(
        "Resting ball",
        [ball("ball", (0.0, radius - depth, 0.0), radius, mass, material, (0.2, 0.4, 0.9))],
        forces=[gravity()],
        hints=Hints(time_scale=1.0),
        ground_contact_surfaces=[ground_plane()],
    )
    path = tmp_path / "resting_ball.mbs.json"
    model_io.save(ModelDocument(data), path)
    return path


def test_contact_overlay_shows_the_resting_balls_contact_while_playing(
    qtbot, qsettings, tmp_path, read_render_window
):
    from app.main_window import MainWindow
    from tests.app.test_recording_and_overlays import click_overlay

    window = MainWindow(model_path=resting_ball(tmp_path), settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.resize(1000, 700)
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=60000)
    assert not window.simulation.snapshot.error
    assert window.viewport.scene.num_actors() > 0  # the contact sphere is drawn
    before = read_render_window(window.viewport.render_window).astype(int)

    # The resting contact is stiff: at the default accuracy (1e-3) the ball vibrates by about
    # 3e-5 m on its 1.8e-4 m depth and the force by about 25 %. A user who wants to read a
    # steady force tightens the accuracy in the toolbar, as this test does.
    accuracy = window.simulation.accuracy_box
    accuracy.lineEdit().selectAll()
    QTest.keyClicks(accuracy.lineEdit(), "1e-5")
    QTest.keyClick(accuracy.lineEdit(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.simulation.session.settings.accuracy == 1e-5, timeout=5000)

    click_overlay(qtbot, window, "contacts")
    overlay = window.overlays.overlays["contacts"]
    qtbot.waitUntil(lambda: overlay.count >= 1, timeout=10000)
    window.sim_actions["play"].trigger()
    qtbot.waitUntil(lambda: window.simulation.snapshot.time > 0.3, timeout=30000)
    window.sim_actions["pause"].trigger()
    snap = window.simulation.snapshot
    contacts = snap.overlays.contacts
    assert len(contacts.points) >= 1
    assert contacts.points[:, 1].max() < 0.01  # on the floor
    # the normal force holds the ball up: along +y and equal to its weight (at accuracy 1e-5
    # the ball vibrates by under 1e-6 m, which changes the force by under 1 %)
    normal = contacts.normal.sum(axis=0)
    np.testing.assert_allclose(normal[[0, 2]], 0.0, atol=1e-6)
    assert normal[1] == pytest.approx(9.81, rel=0.02), normal
    assert overlay.count >= 1
    qtbot.wait(100)
    after = read_render_window(window.viewport.render_window).astype(int)
    red = (after[..., 0] > 170) & (after[..., 1] < 90) & (after[..., 2] < 90)
    red_before = (before[..., 0] > 170) & (before[..., 1] < 90) & (before[..., 2] < 90)
    assert red.sum() > red_before.sum() + 20  # the normal force arrow
    assert not window.isWindowModified()  # a view, not an edit
    window.model_editor.undo_stack.setClean()
    window.close()
