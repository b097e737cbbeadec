"""The Joints panel names a translation's coordinates x, y, z (with their unit), as the
Properties form and Simbody's MobilizedBody docs do, instead of their q index."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QFormLayout, QLabel

from app.widgets.coordinate_units import q_label


def test_translation_coordinates_are_named_by_their_axis():
    assert [q_label("Free", 7, k) for k in range(4, 7)] == ["x (m)", "y (m)", "z (m)"]
    assert [q_label("Free", 6, k) for k in range(3, 6)] == ["x (m)", "y (m)", "z (m)"]
    assert [q_label("Translation", 3, k) for k in range(3)] == ["x (m)", "y (m)", "z (m)"]
    assert [q_label("Planar", 3, k) for k in range(3)] == ["q0 (deg)", "x (m)", "y (m)"]
    assert q_label("Slider", 1, 0) == "q0 (m)"
    assert q_label("Pin", 1, 0) == "q0 (deg)"


@pytest.mark.gui
def test_the_ragdolls_free_pelvis_shows_x_y_z_rows(open_example):
    box = open_example("ragdoll").simulation.sliders._boxes["pelvis"]
    form = box.layout()
    assert isinstance(form, QFormLayout)
    labels = [
        form.itemAt(r, QFormLayout.ItemRole.LabelRole).widget().text()
        for r in range(form.rowCount())
        if isinstance(form.itemAt(r, QFormLayout.ItemRole.LabelRole).widget(), QLabel)
    ]
    assert labels == [
        "x angle (deg)", "y angle (deg)", "z angle (deg)", "x (m)", "y (m)", "z (m)"
    ]  # fmt: skip
