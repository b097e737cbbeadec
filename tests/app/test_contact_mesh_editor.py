"""A mesh contact surface edited in the body's contact form with real input: the shape box by
keys, the add button clicked, file names typed (a missing file and an open mesh refused beside
the field), "use convex hull" ticked with the space bar, Ctrl+Z."""

from __future__ import annotations

import pytest
import trimesh
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QCheckBox, QComboBox, QPushButton

from tests.app.test_contact_editor import click, click_row, type_into, undo_key, window  # noqa: F401

pytestmark = pytest.mark.gui


def test_mesh_contact_surface_through_the_form(window, qtbot, tmp_path):  # noqa: F811
    box = trimesh.creation.box(extents=(0.2, 0.2, 0.2))
    trimesh.Trimesh(box.vertices, box.faces[:-2], process=False).export(str(tmp_path / "open.stl"))
    editor = window.model_editor
    doc = editor.document
    click_row(qtbot, editor, "body:link")

    qtbot.waitUntil(
        lambda: editor.properties.findChild(QComboBox, "new_contact_shape") is not None,
        timeout=2000,
    )
    shapes = editor.properties.findChild(QComboBox, "new_contact_shape")
    shapes.setFocus()
    for _ in range(3):  # Sphere -> Ellipsoid -> Brick -> Mesh
        QTest.keyClick(shapes, Qt.Key.Key_Down)
    assert shapes.currentText() == "Mesh"
    click(qtbot, editor, QPushButton, "add_contact_surface")
    (surface,) = doc.contact_surfaces_of("link")
    assert surface.shape == "mesh" and surface.params["file"] == ""

    type_into(qtbot, editor, "contact_surfaces[0].file", str(tmp_path / "nowhere.stl"))
    assert "no such file" in editor.properties.error_label("contact_surfaces[0].file").text()
    assert doc.contact_surfaces_of("link")[0].params["file"] == ""

    open_mesh = str(tmp_path / "open.stl")
    type_into(qtbot, editor, "contact_surfaces[0].file", open_mesh)
    error = editor.properties.error_label("contact_surfaces[0].file").text()
    assert "not closed; use its convex hull" in error
    assert doc.contact_surfaces_of("link")[0].params["file"] == ""

    hull = editor.properties.field("contact_surfaces[0].convex_hull")
    assert isinstance(hull, QCheckBox) and not hull.isChecked()
    editor.properties.scroll.ensureWidgetVisible(hull)
    hull.setFocus()
    QTest.keyClick(hull, Qt.Key.Key_Space)
    params = doc.contact_surfaces_of("link")[0].params
    assert params["file"] == open_mesh and params["convex_hull"] is True

    type_into(qtbot, editor, "contact_surfaces[0].scale", "2, 2, 2")
    assert doc.contact_surfaces_of("link")[0].params["scale"] == (2.0, 2.0, 2.0)

    undo_key(qtbot, window)
    assert doc.contact_surfaces_of("link")[0].params["scale"] == (1.0, 1.0, 1.0)
    undo_key(qtbot, window)
    params = doc.contact_surfaces_of("link")[0].params
    assert params["file"] == "" and params["convex_hull"] is False
