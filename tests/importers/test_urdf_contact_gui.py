"""File > Import URDF… with "Contact surfaces from the collision geometry" ticked by a click."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QDialogButtonBox

from app.document import GROUND
from tests.importers.test_urdf_gui import _click_menu_item, arm_urdf, window  # noqa: F401

pytestmark = pytest.mark.gui


def test_import_dialog_contact_box_adds_contact_surfaces(qtbot, window, arm_urdf):  # noqa: F811
    importer = window.urdf_import
    _click_menu_item(qtbot, window, "File", importer.action)
    qtbot.waitUntil(lambda: importer.dialog is not None and importer.dialog.isVisible())
    dialog = importer.dialog
    box = dialog.findChild(QCheckBox, "contactFromCollisionCheck")
    assert box is not None and not box.isChecked()  # off by default
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton)
    assert box.isChecked()
    dialog.selectFile(str(arm_urdf))
    buttons = dialog.findChild(QDialogButtonBox)
    open_button = buttons.button(QDialogButtonBox.StandardButton.Open)
    qtbot.waitUntil(open_button.isEnabled)
    qtbot.mouseClick(open_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.model_editor.document.name == "bot", timeout=10000)
    doc = window.model_editor.document
    assert [c.shape for c in doc.contact_surfaces_of(GROUND)] == ["halfspace"]
    (sphere,) = doc.contact_surfaces_of("base")  # the ARM's one collision: a sphere
    assert sphere.shape == "sphere" and sphere.params == {"radius": 0.3}
    assert sphere.cliques == ("robot",)
