"""Making a studio window the active one under Xvfb, where no window manager does it."""

from __future__ import annotations

import warnings

from PySide6.QtWidgets import QApplication


def activate(qtbot, window) -> None:
    """Make ``window`` the active window, as a user's click on its title bar would (there is
    no window manager under Xvfb to do it), and wait until Qt agrees."""
    window.raise_()
    window.activateWindow()
    if QApplication.activeWindow() is not window:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            QApplication.setActiveWindow(window)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
