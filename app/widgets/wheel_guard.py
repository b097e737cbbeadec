"""Keep the mouse wheel from editing values by accident.

A combo box or spin box inside a scrolled form changes its value when the wheel turns over it,
even when the user only means to scroll the form past it. ``guard_wheel(widget)`` makes every
QComboBox and QAbstractSpinBox under ``widget`` take wheel events only while it has keyboard
focus (clicked or tabbed into); otherwise the scroll area around it gets the wheel and
scrolls (or, outside any scroll area, the parent widget).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QWidget,
)

GUARDED = (QComboBox, QAbstractSpinBox)


class WheelGuard(QObject):
    """Event filter: an unfocused combo or spin box does not take the wheel; the scroll area
    around it scrolls instead."""

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802  (Qt's name)
        if event.type() != QEvent.Type.Wheel or not isinstance(obj, GUARDED) or obj.hasFocus():
            return False
        area = _scroll_area_of(obj)
        if area is None:
            event.ignore()  # not accepted: QApplication passes it on to the parent widget
            return True
        vertical = abs(event.angleDelta().y()) >= abs(event.angleDelta().x())
        bar = area.verticalScrollBar() if vertical else area.horizontalScrollBar()
        QApplication.sendEvent(bar, event.clone())
        event.accept()
        return True


def _scroll_area_of(widget: QWidget) -> QAbstractScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea) and not isinstance(parent, GUARDED):
            return parent
        parent = parent.parentWidget()
    return None


_GUARD: WheelGuard | None = None


def wheel_guard() -> WheelGuard:
    """The one shared filter object (it holds no per-widget state)."""
    global _GUARD
    if _GUARD is None:
        _GUARD = WheelGuard()
    return _GUARD


def guard_widget(box: QWidget) -> None:
    """Guard one combo or spin box: it takes focus by click or Tab only, never by the wheel."""
    box.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    box.installEventFilter(wheel_guard())


def guard_wheel(widget: QWidget) -> None:
    """Guard ``widget`` itself (if it is a combo or spin box) and every one under it."""
    if isinstance(widget, GUARDED):
        guard_widget(widget)
    for cls in GUARDED:
        for box in widget.findChildren(cls):
            guard_widget(box)
