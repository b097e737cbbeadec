"""load_and_build(path, parent): read and build a model file in a worker thread while the GUI's
event loop keeps running (the 3-D view, the running simulation and the timers carry on), with
a progress dialog and its Cancel button once it takes longer than ``SHOW_AFTER_MS``.

Returns ``(document, built, build_error)``: the ModelDocument, its BuiltModel (None if it cannot
be built, ``build_error`` then says why: the document still opens for editing), or None if the
user cancelled. A file that cannot be read raises what ``model_io.load`` raises. The worker is
a daemon thread that touches neither Qt nor VTK; a cancelled one finishes on its own and its
result is dropped.

``run_in_worker(work, label, parent)`` runs any other long, Qt-free job (the simulation session
of a large model set up) the same way, with a progress dialog that cannot cancel it."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication, QProgressDialog, QWidget

from app.simulation import collection

SHOW_AFTER_MS = 300
POLL_MS = 15


def _work(path: Path, result: dict, done: threading.Event) -> None:
    # No cyclic garbage collection while the model's objects are made: each full collection
    # of a growing heap holds the interpreter (every thread, the GUI's too) for up to a
    # second, and a large model's build would set off several.
    with collection.paused():
        try:
            _read_and_build(path, result, done)
        finally:
            _freeze_if_large(result)


def _freeze_if_large(result: dict) -> None:
    """With the collector still off: freeze what a large model's making left in the young
    generations (``model_heap.freeze_new``) unless the open was cancelled meanwhile; else
    turning the collector on would set off collections walking its millions of objects."""
    from app.simulation import model_heap

    built = result.get("built")
    if built is None or not model_heap.is_large(built.matter.getNumBodies()):
        return
    with result["lock"]:
        if not result.get("cancelled"):
            model_heap.freeze_new()
            result["frozen"] = True


def _read_and_build(path: Path, result: dict, done: threading.Event) -> None:
    from app.document import build, model_io

    try:
        document = model_io.load(path)
    except BaseException as exc:  # noqa: BLE001  (handed to the GUI thread, raised there)
        result["load_error"] = exc
        done.set()
        return
    result["document"] = document
    try:
        result["built"] = build(document)
    except Exception as exc:  # noqa: BLE001  (the model opens for editing; the reason is shown)
        result["build_error"] = exc
    done.set()


def load_and_build(path, parent: QWidget | None = None):
    """See the module docstring."""
    path = Path(path)
    result: dict = {"lock": threading.Lock()}
    done = threading.Event()
    worker = threading.Thread(
        target=_work, args=(path, result, done), name="mbstudio-open", daemon=True
    )
    worker.start()
    if not done.wait(0.05):  # a small file is read before any dialog is worth showing
        cancelled = _wait_with_progress(path, parent, done)
        if cancelled:
            with result["lock"]:
                result["cancelled"] = True
                if result.get("frozen"):  # the dropped model must not stay frozen
                    from app.simulation import model_heap

                    model_heap.release()
            return None
    worker.join()
    if "load_error" in result:
        raise result["load_error"]
    return result["document"], result.get("built"), result.get("build_error")


def run_in_worker(work, label: str, parent: QWidget | None = None, large: bool = False):
    """``work()`` run in a daemon thread (no cyclic garbage collection meanwhile, see
    ``_work``) while the event loop keeps running; returns its result or raises what it
    raised. ``large``: what it makes belongs to a large model (``model_heap.is_large``) and
    is frozen when it ends (see ``_freeze_if_large``)."""
    result: dict = {}
    done = threading.Event()

    def job() -> None:
        try:
            with collection.paused():
                try:
                    result["value"] = work()
                except BaseException as exc:  # noqa: BLE001  (raised on the GUI thread)
                    result["error"] = exc
                finally:
                    if large and "value" in result:
                        from app.simulation import model_heap

                        model_heap.freeze_new()
        finally:
            done.set()

    worker = threading.Thread(target=job, name="mbstudio-prepare", daemon=True)
    worker.start()
    if not done.wait(0.05):
        _wait_with_progress(label, parent, done, cancellable=False)
    worker.join()
    if "error" in result:
        raise result["error"]
    return result["value"]


def _wait_with_progress(
    path: Path | str, parent: QWidget | None, done: threading.Event, cancellable: bool = True
) -> bool:
    """Run the event loop until ``done`` is set (False) or the user cancels (True).
    ``path``: the file being opened, or the text to show."""
    label = f"Opening {path.name}…" if isinstance(path, Path) else path
    dialog = QProgressDialog(label, "Cancel" if cancellable else "", 0, 0, parent)
    if not cancellable:
        dialog.setCancelButton(None)
        # nothing to press in it: the keyboard stays with the window that had it
        dialog.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
    dialog.setObjectName("openProgress")
    dialog.setWindowTitle("mbstudio")
    dialog.setWindowModality(Qt.WindowModality.WindowModal)  # no second open meanwhile
    dialog.setMinimumDuration(SHOW_AFTER_MS)
    dialog.setAutoReset(False)
    dialog.setAutoClose(False)
    previous = QApplication.activeWindow()
    loop = QEventLoop()
    cancelled = []
    dialog.canceled.connect(lambda: (cancelled.append(True), loop.quit()))
    poll = QTimer(dialog)
    poll.setInterval(POLL_MS)
    poll.timeout.connect(lambda: loop.quit() if done.is_set() else None)
    poll.start()
    show = QTimer(dialog)
    show.setSingleShot(True)
    show.timeout.connect(lambda: None if done.is_set() else dialog.show())
    show.start(SHOW_AFTER_MS)
    if not done.is_set():
        loop.exec()
    poll.stop()
    show.stop()
    dialog.reset()  # stops the dialog's own minimum-duration timer, which would show it later
    shown = dialog.isVisible()
    dialog.hide()
    dialog.deleteLater()
    if shown and previous is not None and previous.isVisible():
        # the window that had the keyboard gets it back (a window manager would do this;
        # without one, keys such as Space would go nowhere after the dialog closed)
        previous.activateWindow()
    return bool(cancelled) and not done.is_set()
