"""Moving the selection in the view makes and places only the selection's decorations (its
triad and highlight shells): the bodies stay where the snapshot shown placed them, so a click
on a body of a large model does not place every decoration again. The next snapshot places
the bodies as before, unless its poses equal those placed (an edit that moves no body)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from app.main_window import MainWindow
from tests.app.sim_models import chain

pytestmark = pytest.mark.gui


def test_a_click_on_a_body_places_only_the_selection(qtbot, qsettings, monkeypatch):
    window = MainWindow(settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    try:
        panel = window.simulation
        panel.load_built(chain(3, q0=0.4))
        qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=10000)
        scene = window.viewport.scene
        qtbot.waitUntil(lambda: scene._poses is panel.snapshot.x_gb, timeout=5000)  # noqa: SLF001
        placed: list = []
        real = type(scene).update_poses
        monkeypatch.setattr(
            type(scene), "update_poses", lambda self, x: (placed.append(x), real(self, x))[1]
        )
        widget = window.viewport.interactor_widget

        def click_body(b: int) -> None:
            x, y = scene.world_to_display(panel.snapshot.x_gb[b][:3, 3])
            at = QPoint(round(x), widget.height() - 1 - round(y))
            QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)

        def selection_bodies() -> set[int]:
            return {it.body_id for it in scene._dynamic}  # noqa: SLF001

        click_body(3)
        assert panel.selected_body == "link3"
        assert selection_bodies() == {3}
        click_body(1)
        assert panel.selected_body == "link1"
        assert selection_bodies() == {1}
        assert placed == []
        # the triad is placed on the selected body as the snapshot shown places it
        triad = scene._dynamic[0]  # noqa: SLF001
        assert triad.body_id == 1
        # a new snapshot (a step, by its shortcut) places the bodies, the selection with them
        before = panel.snapshot.time
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow, timeout=3000)
        QTest.keySequence(window, window.sim_actions["step"].shortcut())
        qtbot.waitUntil(lambda: panel.snapshot.time > before, timeout=5000)
        assert placed and placed[-1] is panel.snapshot.x_gb
        assert selection_bodies() == {1}
        assert np.array_equal(scene._poses[1], panel.snapshot.x_gb[1])  # noqa: SLF001
    finally:
        window.close()


def test_a_snapshot_at_the_poses_shown_places_nothing(main_window, qtbot, tmp_path, monkeypatch):
    """A mass typed in the Properties form (an edit that moves no body: the worker sets it
    in place and publishes the same poses in a new array) places no decoration again; a
    joint frame typed in, which moves the bodies, places them."""
    from tests.app.open_in_window import open_in_window
    from tests.app.test_large_model_edits import _chain_document

    window = main_window
    editor, panel = window.model_editor, window.simulation
    open_in_window(qtbot, window, tmp_path / "chain.mbs.json", _chain_document(30), timeout=30000)
    form = editor.properties
    editor.tree.select_body("b10")
    qtbot.waitUntil(lambda: "mass" in form.fields, timeout=3000)
    scene = window.viewport.scene
    qtbot.waitUntil(lambda: scene._poses is panel.snapshot.x_gb, timeout=5000)  # noqa: SLF001
    qtbot.wait(300)
    placed: list = []
    real = type(scene).update_poses
    monkeypatch.setattr(
        type(scene), "update_poses", lambda self, x: (placed.append(x), real(self, x))[1]
    )
    serial, shown = panel.snapshot.model_serial, panel.snapshot.x_gb
    field = form.field("mass")
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, "0.5")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.snapshot.model_serial != serial, timeout=10000)
    qtbot.wait(300)
    assert panel.snapshot.x_gb is not shown and np.array_equal(panel.snapshot.x_gb, shown)
    assert placed == []
    serial = panel.snapshot.model_serial
    field = form.field("X_PF.p")
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, "0, -0.2, 0")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.snapshot.model_serial != serial, timeout=10000)
    qtbot.waitUntil(lambda: bool(placed), timeout=5000)
    assert placed[-1] is panel.snapshot.x_gb
    assert not np.array_equal(panel.snapshot.x_gb, shown)
