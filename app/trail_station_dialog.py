# ruff: noqa: N803, N806  (Simbody monogram names: p_BS, X_GB)
"""View > Teaching overlays > Trail station…: choose the point whose path the trail draws.

Either the mass centre of the selected body (the default, the last body when none is
selected) or a station S fixed on a chosen body B, given by p_BS (B's frame, model length
units). "Use the point last clicked" fills in the body and the station from the last left
click on a body in the 3-D view (the surface point under the mouse, taken into the body's frame
at the pose then shown). A view setting, not a model edit.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from app.widgets.wheel_guard import guard_wheel


def station_in_body(X_GB: np.ndarray, p_GS: np.ndarray) -> np.ndarray:
    """p_BS: the ground point p_GS in the frame of a body whose pose in ground is X_GB (4x4)."""
    R_GB, p_GB = X_GB[:3, :3], X_GB[:3, 3]
    return R_GB.T @ (np.asarray(p_GS, dtype=np.float64) - p_GB)


def station_in_ground(X_GB: np.ndarray, p_BS: np.ndarray) -> np.ndarray:
    """p_GS: the station p_BS of a body whose pose in ground is X_GB (4x4)."""
    return X_GB[:3, :3] @ np.asarray(p_BS, dtype=np.float64) + X_GB[:3, 3]


class TrailStationDialog(QDialog):
    """See the module docstring. ``bodies``: the model's body names (Ground excluded);
    ``current``: (body name, p_BS) or None (the selected body's mass centre); ``clicked``:
    (body name, p_BS) of the last click on a body, or None; ``unit``: the length unit shown.
    After ``accepted``, ``station()`` is the choice."""

    def __init__(
        self,
        bodies: list[str],
        current: tuple[str, np.ndarray] | None,
        clicked: tuple[str, np.ndarray] | None,
        unit: str = "m",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("trailStationDialog")
        self.setWindowTitle("Trail station")
        self._clicked = clicked
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("The trail draws the path of:"))
        self.mass_centre = QRadioButton("the &mass centre of the selected body")
        self.mass_centre.setObjectName("trailMassCentre")
        self.fixed = QRadioButton("a &station fixed on a body:")
        self.fixed.setObjectName("trailFixedStation")
        group = QButtonGroup(self)
        group.addButton(self.mass_centre)
        group.addButton(self.fixed)
        layout.addWidget(self.mass_centre)
        layout.addWidget(self.fixed)

        form = QFormLayout()
        self.body = QComboBox()
        self.body.setObjectName("trailBody")
        self.body.addItems(bodies)
        form.addRow("&Body", self.body)
        self.coords: list[QDoubleSpinBox] = []
        row = QHBoxLayout()
        for axis in "xyz":
            box = QDoubleSpinBox()
            box.setObjectName(f"trailStation{axis.upper()}")
            box.setRange(-1e6, 1e6)
            box.setDecimals(4)
            box.setSingleStep(0.01)
            box.setSuffix(f" {unit}")
            box.setToolTip(f"{axis} of the station in the body's frame ({unit})")
            row.addWidget(box)
            self.coords.append(box)
        form.addRow("p_BS (&x, y, z in the body's frame)", row)
        self.use_click = QPushButton("Use the point last &clicked in the view")
        self.use_click.setObjectName("trailUseClick")
        self.use_click.setEnabled(clicked is not None)
        self.use_click.setToolTip(
            "Left-click a body in the 3-D view first: the point under the mouse on its surface"
            if clicked is None
            else f"{clicked[0]} at ({', '.join(f'{v:.4g}' for v in clicked[1])}) {unit}"
        )
        self.use_click.clicked.connect(self._use_click)
        self.details = QWidget()
        self.details.setLayout(form)
        layout.addWidget(self.details)
        layout.addWidget(self.use_click)  # usable whichever choice is on: it picks the station

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.buttons = buttons
        layout.addWidget(buttons)
        guard_wheel(self)

        self.fixed.toggled.connect(self.details.setEnabled)
        if current is not None and current[0] in bodies:
            self.fixed.setChecked(True)
            self._show_station(*current)
        else:
            self.mass_centre.setChecked(True)
            self.details.setEnabled(False)
            if clicked is not None and clicked[0] in bodies:
                self.body.setCurrentText(clicked[0])

    def _show_station(self, body: str, p_BS) -> None:
        self.body.setCurrentText(body)
        for box, value in zip(self.coords, p_BS, strict=True):
            box.setValue(float(value))

    def _use_click(self) -> None:
        if self._clicked is not None:
            self.fixed.setChecked(True)
            self._show_station(*self._clicked)

    def station(self) -> tuple[str, np.ndarray] | None:
        """(body name, p_BS) for a fixed station, or None for the selected mass centre."""
        if not self.fixed.isChecked() or not self.body.currentText():
            return None
        return self.body.currentText(), np.array([box.value() for box in self.coords])
