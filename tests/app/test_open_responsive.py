"""Opening a large model never freezes the studio (issue 22: reading and building ran on the GUI
thread; a 20,000-body chain took 53 s to open with the window frozen). The file is read and
built in a worker; the event loop keeps running, a progress dialog offers Cancel, and a
cancelled open leaves the open model as it was. The file is opened by clicking File > Open
Recent with the mouse."""

from __future__ import annotations

import gc
import json
import threading
import time

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QPushButton

from app.document import background_load
from app.document.background_load import SHOW_AFTER_MS
from app.document.examples import example_path

BODIES = 600
#: the model whose open is cancelled: large enough that reading and building it outlasts the
#: progress dialog's 0.3 s delay on an idle machine
CANCELLED_BODIES = 4000
MAX_STALL_S = 0.5  # the event loop's longest pause while the file is read and built


def _chain_file(tmp_path, n: int):
    data = json.loads(example_path("chain50").read_text())
    model = data["model"]
    link = model["bodies"][1]
    model["bodies"] = [
        dict(link, name=f"b{i}", parent="Ground" if i == 0 else f"b{i - 1}") for i in range(n)
    ]
    model["name"] = f"{n}-link chain"
    model["hints"]["show_default_geometry"] = True  # Simbody's sketch: 6 decorations a body
    path = tmp_path / f"chain{n}.mbs.json"
    path.write_text(json.dumps(data))
    return path


def _click_recent(qtbot, window, path) -> None:
    """File > Open Recent > ``path`` with the mouse (the click returns while it opens)."""
    bar = window.menuBar()
    file_action = next(a for a in bar.actions() if a.text() == "&File")
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(file_action).center())
    file_menu = file_action.menu()
    qtbot.waitUntil(file_menu.isVisible, timeout=5000)
    recent = window.model_editor.recent_menu
    qtbot.mouseClick(
        file_menu,
        Qt.MouseButton.LeftButton,
        pos=file_menu.actionGeometry(recent.menuAction()).center(),
    )
    qtbot.waitUntil(recent.isVisible, timeout=5000)
    entry = next(a for a in recent.actions() if a.toolTip() == str(path.resolve()))
    # The click opens the file inside the menu's event handling; the test goes on in timers.
    qtbot.mouseClick(recent, Qt.MouseButton.LeftButton, pos=recent.actionGeometry(entry).center())


class _Stalls:
    """Records the event loop's pauses (a 10 ms timer's gaps) and whether the progress dialog
    was seen, until ``stop()``."""

    def __init__(self, window) -> None:
        self.window = window
        self.last = time.perf_counter()
        self.longest = 0.0
        self.dialog_seen = False
        self.timer = QTimer()
        self.timer.setInterval(10)
        self.timer.timeout.connect(self._tick)
        self.actions: list = []  # (seconds after start, callable) run once from the timer
        self.start = self.last
        self.gc_longest = 0.0  # the longest full garbage collection (it holds the interpreter)
        self._gc_start = 0.0
        gc.callbacks.append(self._gc)
        self.timer.start()

    def _gc(self, phase: str, info: dict) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            self.gc_longest = max(self.gc_longest, time.perf_counter() - self._gc_start)

    def _tick(self) -> None:
        now = time.perf_counter()
        self.longest = max(self.longest, now - self.last)
        self.last = now
        dialog = self.window.findChild(QProgressDialog, "openProgress")
        if dialog is not None and dialog.isVisible():
            self.dialog_seen = True
        for item in list(self.actions):
            at, action = item
            if now - self.start >= at and action(dialog):
                self.actions.remove(item)

    def stop(self) -> None:
        self.timer.stop()
        if self._gc in gc.callbacks:
            gc.callbacks.remove(self._gc)


def test_a_large_model_opens_without_freezing_the_window(main_window, qtbot, tmp_path, monkeypatch):
    window = main_window
    worker_seconds = []  # how long the open's worker read and built the file
    work = background_load._work

    def timed_work(*args) -> None:
        start = time.perf_counter()
        work(*args)
        worker_seconds.append(time.perf_counter() - start)

    monkeypatch.setattr(background_load, "_work", timed_work)
    editor = window.model_editor
    # a first, small model: the modules a build imports on first use are loaded
    editor.open_path(_chain_file(tmp_path, 3), modal=False)
    # ... and drawn, with its plots (created, importing pyqtgraph, after the first frame)
    qtbot.waitUntil(lambda: window.simulation._plots is not None, timeout=30000)
    qtbot.wait(200)
    path = _chain_file(tmp_path, BODIES)
    editor.add_recent(path)
    stalls = _Stalls(window)
    replaced = []
    editor.document_replaced.connect(
        lambda _doc: replaced.append((stalls.longest, stalls.gc_longest))
    )
    _click_recent(qtbot, window, path)
    try:
        qtbot.waitUntil(lambda: len(editor.document.bodies) == BODIES, timeout=120000)
    finally:
        stalls.stop()
    assert replaced, "the model was not opened"
    # up to the moment the new document replaced the old one
    longest, collecting = replaced[0]
    # the dialog shows once reading and building have taken SHOW_AFTER_MS
    reading = worker_seconds[-1]
    print(f"read and built {BODIES} bodies in {reading:.2f} s, longest stall {longest:.3f} s")
    if reading > SHOW_AFTER_MS / 1000 + 0.1:
        assert stalls.dialog_seen, (
            f"no progress dialog while the model was read and built ({reading:.2f} s)"
        )
    # no full garbage collection pauses the open: the worker reads and builds with the cyclic
    # collector off (each full collection of the growing heap held every thread ~1 s)
    assert longest < MAX_STALL_S, (
        f"the event loop stalled {longest:.2f} s while opening (longest full garbage "
        f"collection {collecting:.2f} s)"
    )
    qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=30000)
    assert window.simulation.session.is_alive


def test_cancelling_an_open_keeps_the_open_model(main_window, qtbot, tmp_path, monkeypatch):
    window = main_window
    editor = window.model_editor
    editor.open_path(example_path("pendulum"), as_example=True, modal=False)
    before = editor.document
    session = window.simulation.session
    path = _chain_file(tmp_path, CANCELLED_BODIES)
    editor.add_recent(path)
    # The read waits for the click on Cancel: on a fast machine the file is read and built
    # before the progress dialog is clicked, and the open is over before it can be cancelled.
    clicked = threading.Event()
    work = background_load._work

    def work_after_the_click(*args) -> None:
        clicked.wait(60)
        work(*args)

    monkeypatch.setattr(background_load, "_work", work_after_the_click)
    stalls = _Stalls(window)

    cancelled = []

    def cancel(dialog) -> bool:
        if dialog is None or not dialog.isVisible():
            return False
        button = dialog.findChild(QPushButton)
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        cancelled.append(True)
        clicked.set()
        return True

    stalls.actions.append((0.0, cancel))
    _click_recent(qtbot, window, path)
    try:
        qtbot.waitUntil(lambda: bool(cancelled), timeout=60000)
    finally:
        stalls.stop()
    qtbot.wait(50)
    assert editor.document is before
    assert window.simulation.session is session and session.is_alive
    assert "cancelled" in window.statusBar().currentMessage()
    # the cancelled open's worker finishes on its own; the next test starts without it
    qtbot.waitUntil(
        lambda: not any(t.name == "mbstudio-open" for t in threading.enumerate()),
        timeout=180000,
    )


def test_a_small_file_with_an_infinite_inertia_is_refused_without_freezing(
    main_window, qtbot, tmp_path
):
    """A file of under 300 bytes whose inertia overflows to infinity (issue 22: it reached
    ``np.linalg.svd`` on the GUI thread and froze the studio for good) is refused with a
    message naming the field, the event loop never pausing, the open model kept running."""
    window = main_window
    editor = window.model_editor
    editor.open_path(example_path("pendulum"), as_example=True, modal=False)
    qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=30000)
    before, session = editor.document, window.simulation.session
    body = {"name": "b", "parent": "Ground", "mobilizer": "Ball", "mass": 1.0}
    body |= {"com": [0, 0, 0], "inertia": [1e308, 1e308, 1e308, 1e308, -1e308, 1e308]}
    text = json.dumps({"schema": "mbstudio.model", "version": 1, "model": {"bodies": [body]}})
    assert len(text) < 300
    path = tmp_path / "tiny.mbs.json"
    path.write_text(text)
    editor.add_recent(path)
    stalls = _Stalls(window)
    _click_recent(qtbot, window, path)
    try:
        qtbot.waitUntil(lambda: "tiny.mbs.json" in (editor.last_error or ""), timeout=30000)
        box = window.findChild(QMessageBox, "errorBox")
        qtbot.waitUntil(lambda: box is not None and box.isVisible(), timeout=5000)
        ok = box.button(QMessageBox.StandardButton.Ok)
        qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not box.isVisible(), timeout=5000)
        qtbot.wait(100)
    finally:
        stalls.stop()
    assert "model.bodies[0].inertia" in editor.last_error
    assert stalls.longest < MAX_STALL_S, f"the event loop stalled {stalls.longest:.2f} s"
    assert editor.document is before
    assert window.simulation.session is session and session.is_alive
