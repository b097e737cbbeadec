"""The integrator accuracy box: an editable combo that takes only a relative accuracy in
[MIN_ACCURACY, MAX_ACCURACY].

Keys that cannot lead to a number ("abc") are refused as they are typed; a number out of range
("5") is refused when it is committed (Enter or leaving the box), and the box goes back to the
last accepted value. Either way ``refused`` carries a message saying what is accepted, and the
box shows it in its tooltip; nothing falls back silently to a default.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QValidator
from PySide6.QtWidgets import QComboBox, QToolTip

MIN_ACCURACY = 1e-12
MAX_ACCURACY = 0.1
ERROR_STYLE = "QComboBox { border: 2px solid #c0392b; }"


def format_accuracy(value: float) -> str:
    return f"{value:.0e}".replace("e-0", "e-") if value == float(f"{value:.0e}") else f"{value:g}"


def parse_accuracy(text: str) -> float | None:
    """The accuracy ``text`` gives, or None if it is not a number in range."""
    try:
        value = float(text.strip())
    except ValueError:
        return None
    if not math.isfinite(value) or not MIN_ACCURACY <= value <= MAX_ACCURACY:
        return None
    return value


def range_message(text: str) -> str:
    return (
        f"Accuracy must be a number from {MIN_ACCURACY:g} to {MAX_ACCURACY:g} "
        f"(like 1e-3); {text.strip()!r} is not."
    )


class AccuracyValidator(QValidator):
    """Acceptable: a number in range. Intermediate: text that may still become one ("1e-",
    "5" before "e-3"). Invalid: anything else (the keystroke is refused)."""

    def validate(self, text: str, pos: int):
        t = text.strip()
        if parse_accuracy(t) is not None:
            return QValidator.State.Acceptable, text, pos
        if all(c in "0123456789.eE+-" for c in t):
            return QValidator.State.Intermediate, text, pos
        return QValidator.State.Invalid, text, pos


class AccuracyBox(QComboBox):
    """See the module docstring. ``accuracy()`` is the last accepted value."""

    accuracy_changed = Signal(float)
    refused = Signal(str)

    def __init__(self, choices, default: float, parent=None) -> None:
        super().__init__(parent)
        self.setEditable(True)
        self.addItems(list(choices))
        self._value = default
        self._tip = "Relative accuracy of error-controlled integrators"
        self.setToolTip(self._tip)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setValidator(AccuracyValidator(self))
        self.setCurrentText(format_accuracy(default))
        self.lineEdit().inputRejected.connect(self._keystroke_refused)
        self.lineEdit().installEventFilter(self)
        self.activated.connect(lambda _i: self.commit())

    def accuracy(self) -> float:
        return self._value

    def set_accuracy(self, value: float) -> None:
        """Show and accept ``value`` (refused like typed text when out of range)."""
        self.setCurrentText(format_accuracy(value) if isinstance(value, float) else str(value))
        self.commit()

    def commit(self) -> bool:
        """Accept the text shown, or refuse it (message, back to the last accepted value)."""
        text = self.currentText()
        value = parse_accuracy(text)
        if value is None:
            self._refuse(range_message(text))
            self.setCurrentText(format_accuracy(self._value))
            return False
        self._clear_message()
        if value != self._value:
            self._value = value
            self.accuracy_changed.emit(value)
        return True

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802  (Qt's name)
        if event.type() == QEvent.Type.KeyPress and event.key() in (
            Qt.Key.Key_Return,
            Qt.Key.Key_Enter,
        ):
            self.commit()
            return True
        if event.type() == QEvent.Type.FocusOut:
            self.commit()
        return False

    def _keystroke_refused(self) -> None:
        self._refuse(
            f"Accuracy takes a number from {MIN_ACCURACY:g} to {MAX_ACCURACY:g} (like 1e-3): "
            "digits, '.', 'e' and '-' only."
        )

    def _refuse(self, message: str) -> None:
        self.message = message
        self.setStyleSheet(ERROR_STYLE)
        self.setToolTip(f"{message}\n{self._tip}")
        if self.isVisible():
            QToolTip.showText(self.mapToGlobal(self.rect().bottomLeft()), message, self)
        self.refused.emit(message)

    def _clear_message(self) -> None:
        self.message = ""
        self.setStyleSheet("")
        self.setToolTip(self._tip)

    message = ""
