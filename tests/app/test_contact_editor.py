"""Editing contact in the studio with real input: tree clicks, typed values, combo keys,
button clicks, Ctrl+Z."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QComboBox, QPushButton

from app.document import GROUND
from app.document.examples import example_path
from app.document.specs import ground_plane_frame

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot, qsettings):
    from app.main_window import MainWindow

    w = MainWindow(model_path=example_path("pendulum"), settings=qsettings)
    w.model_editor.interactive = False
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


def click_row(qtbot, editor, key: str) -> None:
    view = editor.tree.view
    index = editor.tree.model.index_of(key)
    view.scrollTo(index)
    QTest.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(index).center()
    )
    qtbot.waitUntil(lambda: editor.properties.key == key, timeout=2000)


def click(qtbot, editor, cls, name: str) -> None:
    qtbot.waitUntil(lambda: editor.properties.findChild(cls, name) is not None, timeout=2000)
    widget = editor.properties.findChild(cls, name)
    editor.properties.scroll.ensureWidgetVisible(widget)
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton)


def undo_key(qtbot, window) -> None:
    """Ctrl+Z in the active window (the Edit menu's shortcut)."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    window.model_editor.tree.view.setFocus()
    qtbot.keyClick(window.model_editor.tree.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)


def type_into(qtbot, editor, key: str, text: str) -> None:
    qtbot.waitUntil(lambda: key in editor.properties.fields, timeout=2000)
    field = editor.properties.field(key)
    editor.properties.scroll.ensureWidgetVisible(field)
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def test_ground_plane_and_body_surfaces_edited_with_real_input(window, qtbot):
    editor = window.model_editor
    doc = editor.document
    click_row(qtbot, editor, "ground")
    click(qtbot, editor, QPushButton, "add_ground_plane")
    assert [c.shape for c in doc.contact_surfaces_of(GROUND)] == ["halfspace"]
    assert doc.contact_surfaces_of(GROUND)[0].X == ground_plane_frame(doc.hints.up)

    click_row(qtbot, editor, "body:link")
    click(qtbot, editor, QPushButton, "add_contact_surface")  # the shape box says Sphere
    assert [c.shape for c in doc.contact_surfaces_of("link")] == ["sphere"]

    type_into(qtbot, editor, "contact_surfaces[0].radius", "-0.2")
    assert "> 0" in editor.properties.error_label("contact_surfaces[0].radius").text()
    assert doc.contact_surfaces_of("link")[0].params["radius"] == 0.1
    type_into(qtbot, editor, "contact_surfaces[0].radius", "0.25")
    assert doc.contact_surfaces_of("link")[0].params["radius"] == 0.25

    type_into(qtbot, editor, "contact_surfaces[0].stiffness", "0")
    assert "> 0" in editor.properties.error_label("contact_surfaces[0].stiffness").text()
    type_into(qtbot, editor, "contact_surfaces[0].dynamic_friction", "2")
    assert (
        "static friction"
        in editor.properties.error_label("contact_surfaces[0].dynamic_friction").text()
    )
    type_into(qtbot, editor, "contact_surfaces[0].dissipation", "0.7")
    type_into(qtbot, editor, "contact_surfaces[0].cliques", "arm, left")
    surface = doc.contact_surfaces_of("link")[0]
    assert surface.material.dissipation == 0.7
    assert surface.material.stiffness == 1e7
    assert surface.cliques == ("arm", "left")
    type_into(qtbot, editor, "contact_surfaces[0].X.p", "0, -1, 0")
    assert doc.contact_surfaces_of("link")[0].X.p == (0.0, -1.0, 0.0)

    # the shape box: one key Down goes from Sphere to Ellipsoid (with its default radii)
    qtbot.waitUntil(lambda: "contact_surfaces[0].shape" in editor.properties.fields, timeout=2000)
    shape = editor.properties.field("contact_surfaces[0].shape")
    assert isinstance(shape, QComboBox)
    shape.setFocus()
    QTest.keyClick(shape, Qt.Key.Key_Down)
    assert doc.contact_surfaces_of("link")[0].shape == "ellipsoid"
    assert doc.contact_surfaces_of("link")[0].params == {"radii": (0.1, 0.15, 0.1)}

    # Ctrl+Z undoes the shape change, then the position
    undo_key(qtbot, window)
    assert doc.contact_surfaces_of("link")[0].shape == "sphere"
    undo_key(qtbot, window)
    assert doc.contact_surfaces_of("link")[0].X.p == (0.0, 0.0, 0.0)

    click(qtbot, editor, QPushButton, "remove_contact_surfaces[0]")
    assert doc.contact_surfaces_of("link") == []
    undo_key(qtbot, window)
    assert len(doc.contact_surfaces_of("link")) == 1


def test_contact_settings_in_the_hints_form(window, qtbot):
    editor = window.model_editor
    doc = editor.document
    click_row(qtbot, editor, "hints")
    type_into(qtbot, editor, "contact.transition_velocity", "-1")
    assert "> 0" in editor.properties.error_label("contact.transition_velocity").text()
    type_into(qtbot, editor, "contact.transition_velocity", "0.002")
    assert doc.contact.transition_velocity == 0.002
    assert window.isWindowModified()
