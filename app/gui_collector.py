"""The GUI thread as the only thread that runs Python's cyclic garbage collector while the
studio has a window open (why: ``app.simulation.collection``).

``window_opened()`` (each MainWindow as it is made) makes the GUI thread own collection and
starts a timer of its event loop that calls ``collection.tick`` every ``TICK_MS``
milliseconds. It returns the window's ``OpenWindow``, whose ``closed()`` (the window closed
or was destroyed; once counts) hands collection back to CPython when the last window is
gone, after a full collection on the GUI thread.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QTimer

from app.simulation import collection

#: Milliseconds between two collection ticks of the GUI thread.
TICK_MS = 50

_timer: QTimer | None = None
_open_windows = 0


class OpenWindow:
    """One studio window counted open; ``closed()`` counts it closed (the first call)."""

    def __init__(self) -> None:
        self.open = True

    def closed(self, *_destroyed) -> None:
        if self.open:
            self.open = False
            _window_closed()


def window_opened() -> OpenWindow:
    """A studio window was made (GUI thread): collection runs on this thread from now on."""
    global _timer, _open_windows
    _open_windows += 1
    if _open_windows > 1:
        return OpenWindow()
    collection.own()
    if _timer is None:
        _timer = QTimer(QCoreApplication.instance())
        _timer.setObjectName("garbageCollectionTick")
        _timer.timeout.connect(collection.tick)
        QCoreApplication.instance().aboutToQuit.connect(_hand_back)
    _timer.start(TICK_MS)
    return OpenWindow()


def _window_closed() -> None:
    """A studio window closed (GUI thread): the last one hands collection back to CPython."""
    global _open_windows
    if _open_windows == 0:
        return
    _open_windows -= 1
    if _open_windows == 0:
        _hand_back()


def _hand_back() -> None:
    if _timer is not None:
        _timer.stop()
    collection.disown()


def open_windows() -> int:
    """How many studio windows are open (made and not closed)."""
    return _open_windows


def hand_back_for_tests() -> None:
    """Count every window closed and hand collection back to CPython (a test's teardown,
    after a test that left a window open)."""
    global _open_windows
    if _open_windows:
        _open_windows = 0
        _hand_back()
