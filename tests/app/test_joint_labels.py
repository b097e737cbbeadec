"""The Joints panel names each coordinate by what it is, with its unit: a translation's x, y,
z, a rotation by its axis ("z angle" for a Pin), as Simbody's MobilizedBody docs do; the q
index is in the row's tooltip."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QFormLayout, QLabel

from app.widgets.coordinate_units import q_label


def test_translation_coordinates_are_named_by_their_axis():
    assert [q_label("Free", 7, k) for k in range(4, 7)] == ["x (m)", "y (m)", "z (m)"]
    assert [q_label("Free", 6, k) for k in range(3, 6)] == ["x (m)", "y (m)", "z (m)"]
    assert [q_label("Translation", 3, k) for k in range(3)] == ["x (m)", "y (m)", "z (m)"]
    assert [q_label("Planar", 3, k) for k in range(3)] == ["z angle (deg)", "x (m)", "y (m)"]
    assert q_label("Slider", 1, 0) == "x (m)"
    assert q_label("Pin", 1, 0) == "z angle (deg)"
    assert [q_label("Universal", 2, k) for k in range(2)] == ["x angle (deg)", "y angle (deg)"]
    assert [q_label("Cylinder", 2, k) for k in range(2)] == ["z angle (deg)", "z (m)"]
    assert [q_label("SphericalCoords", 3, k) for k in range(3)] == [
        "azimuth (deg)", "zenith (deg)", "radius (m)"
    ]  # fmt: skip
    assert q_label("Unknown", 2, 1) == "q1 (deg)"  # no name known: its index


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
