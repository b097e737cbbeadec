"""Joint sliders: one slider and spin box per generalized coordinate q, grouped by body.

Moving a slider while the simulation is paused poses the model: it asks the session to set that
q (the worker re-assembles when the model has constraints). While running the sliders follow the
simulation and are disabled. Angles (revolute-like coordinates) range over [-pi, pi]; other
coordinates over [-2, 2] length scales; quaternion components over [-1, 1].
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSlider,
    QVBoxLayout,
    QWidget,
)

STEPS = 1000
ANGULAR = {"Pin", "Gimbal", "Universal", "Ball", "BallEuler", "Bushing", "Planar", "Screw"}


class _CoordinateRow(QWidget):
    changed = Signal(str, int, float)

    def __init__(self, body: str, which: int, lo: float, hi: float) -> None:
        super().__init__()
        self.body, self.which, self.lo, self.hi = body, which, lo, hi
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName(f"slider_{body}_q{which}")
        self.slider.setRange(0, STEPS)
        self.slider.setToolTip(f"{body} q{which}: drag to pose the model (paused only)")
        self.spin = QDoubleSpinBox()
        self.spin.setDecimals(4)
        self.spin.setRange(lo, hi)
        self.spin.setSingleStep((hi - lo) / 100)
        self.spin.setKeyboardTracking(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.spin)
        self._setting = False
        self.slider.valueChanged.connect(self._from_slider)
        self.spin.valueChanged.connect(self._from_spin)

    def value(self) -> float:
        return self.spin.value()

    def show_value(self, value: float) -> None:
        """Display ``value`` without emitting ``changed`` (clamped to the range)."""
        if self.slider.isSliderDown():
            return
        self._setting = True
        v = min(max(value, self.lo), self.hi)
        self.spin.setValue(v)
        self.slider.setValue(round((v - self.lo) / (self.hi - self.lo) * STEPS))
        self._setting = False

    def set_value(self, value: float) -> None:
        """Set the value as a user would (emits ``changed``)."""
        self.spin.setValue(value)

    def _from_slider(self, pos: int) -> None:
        if self._setting:
            return
        value = self.lo + (self.hi - self.lo) * pos / STEPS
        self._setting = True
        self.spin.setValue(value)
        self._setting = False
        self.changed.emit(self.body, self.which, value)

    def _from_spin(self, value: float) -> None:
        if self._setting:
            return
        self._setting = True
        self.slider.setValue(round((value - self.lo) / (self.hi - self.lo) * STEPS))
        self._setting = False
        self.changed.emit(self.body, self.which, value)


class JointSliders(QWidget):
    """See the module docstring. ``set_model(built, state, q_labels)`` then ``update_snapshot``."""

    q_changed = Signal(str, int, float)  # body name, which q of that body, value

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("jointSliders")
        self._inner = QWidget()
        self._layout = QVBoxLayout(self._inner)
        self._layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self._inner)
        self.hint = QLabel("Pause to pose the model with the sliders.")
        self.hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.hint)
        layout.addWidget(scroll)
        self.rows: dict[tuple[str, int], _CoordinateRow] = {}
        self._global_index: dict[tuple[str, int], int] = {}

    def set_model(self, built, q_index: dict[tuple[str, int], int], length_scale: float) -> None:
        """Rebuild the sliders for ``built``; ``q_index`` maps (body, which) to global q index."""
        for row in self.rows.values():
            row.setParent(None)
            row.deleteLater()
        while self._layout.count() > 1:
            item = self._layout.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.rows.clear()
        self._global_index = dict(q_index)
        by_body: dict[str, list[int]] = {}
        for body, which in q_index:
            by_body.setdefault(body, []).append(which)
        for body, whichs in by_body.items():
            mobod = built.mobilized_bodies[body]
            kind = mobod.getMobilizerTypeName()
            box = QGroupBox(f"{body} ({kind})")
            form = QFormLayout(box)
            for which in sorted(whichs):
                lo, hi = self._range(kind, which, len(whichs), length_scale)
                row = _CoordinateRow(body, which, lo, hi)
                row.changed.connect(self.q_changed)
                form.addRow(f"q{which}", row)
                self.rows[(body, which)] = row
            self._layout.insertWidget(self._layout.count() - 1, box)

    @staticmethod
    def _range(kind: str, which: int, nq: int, length_scale: float) -> tuple[float, float]:
        if kind in ("Free", "Ball") and nq in (4, 7) and which < 4:
            return -1.0, 1.0  # quaternion components
        translational = (kind == "Free" and which >= nq - 3) or kind in (
            "Slider",
            "Translation",
            "Cartesian",
            "FreeLine",
        )
        if kind == "Planar" and which > 0:
            translational = True
        if kind == "Cylinder" and which == 1:
            translational = True
        if translational:
            return -2.0 * length_scale, 2.0 * length_scale
        return -math.pi, math.pi

    def update_snapshot(self, snap) -> None:
        paused = not snap.running
        self.hint.setVisible(not paused)
        for key, row in self.rows.items():
            if row.isEnabled() != paused:
                row.setEnabled(paused)
            if not paused and row.visibleRegion().isEmpty():
                continue  # scrolled out of view: refreshed when paused
            i = self._global_index[key]
            if i < len(snap.q):
                row.show_value(float(snap.q[i]))
