"""FailureExplainer: a panel above the 3-D view that tells a student, in plain words, why the
run stopped, with one-click remedies and the engine's own text under Details.

``show_explanation(explanation)`` fills it from an ``app.history.explain.Explanation``;
clicking a remedy emits ``remedy_chosen(key)`` (the owner applies it) and hides the panel.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.history.explain import REMEDY_LABELS, Explanation

STYLE = (
    "QFrame#failureExplainer { background: #fdf2e9; border: 1px solid #e67e22; }"
    "QLabel#explainerTitle { font-weight: bold; color: #a04000; }"
)


class FailureExplainer(QFrame):
    """See the module docstring."""

    remedy_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("failureExplainer")
        self.setStyleSheet(STYLE)
        self.title = QLabel()
        self.title.setObjectName("explainerTitle")
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.details_button = QToolButton(self)
        self.details_button.setText("Details")
        self.details_button.setCheckable(True)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setObjectName("explainerDetails")
        self.details.hide()
        self.details_button.toggled.connect(self.details.setVisible)
        self.dismiss = QToolButton()
        self.dismiss.setText("✕")
        self.dismiss.setToolTip("Hide this explanation")
        self.dismiss.clicked.connect(self.hide)
        self.buttons: dict[str, QPushButton] = {}
        self._buttons_row = QHBoxLayout()
        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        header.addWidget(self.dismiss)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addLayout(header)
        layout.addWidget(self.text)
        layout.addLayout(self._buttons_row)
        layout.addWidget(self.details)
        self.hide()

    def show_explanation(self, explanation: Explanation) -> None:
        self.title.setText(explanation.title)
        self.text.setText(explanation.text)
        self.details.setText(explanation.details)
        while self._buttons_row.count():
            widget = self._buttons_row.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        self.buttons = {}
        for key in explanation.remedies:
            button = QPushButton(REMEDY_LABELS[key])
            button.setObjectName(f"remedy_{key}")
            button.clicked.connect(lambda _checked=False, k=key: self._choose(k))
            self._buttons_row.addWidget(button)
            self.buttons[key] = button
        self._buttons_row.addStretch(1)
        self._buttons_row.addWidget(self.details_button)
        self.details_button.setChecked(False)
        self.show()

    def _choose(self, key: str) -> None:
        self.hide()
        self.remedy_chosen.emit(key)
