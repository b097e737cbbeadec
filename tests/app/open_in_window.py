"""Helpers for GUI tests that open a model file in a real studio window and edit it: open a
document as File > Open does (not modal) and wait until its model is shown; wait until an
edited model is shown."""

from __future__ import annotations

from app.document import model_io


def open_in_window(
    qtbot, window, path, document, *, timeout=60000, plots=False, active=True
) -> None:
    """Save ``document`` to ``path`` and open it in ``window``'s model editor (made not
    interactive: no dialogs), then wait until the simulation shows all of its bodies; with
    ``plots`` also until the Plots dock is filled, with ``active`` until the window is the
    active one (shortcuts need it)."""
    editor, panel = window.model_editor, window.simulation
    editor.interactive = False
    model_io.save(document, path)
    assert editor.open_path(path, modal=False)
    n = len(document.data.bodies)
    qtbot.waitUntil(
        lambda: panel.snapshot is not None and len(panel.snapshot.model.body_names) > n,
        timeout=timeout,
    )
    if plots:
        qtbot.waitUntil(lambda: panel._plots is not None, timeout=30000)  # noqa: SLF001
    if active:
        window.activateWindow()
        qtbot.waitUntil(window.isActiveWindow, timeout=3000)


def wait_edit_shown(qtbot, panel, document, serial: int) -> None:
    """Until the simulation shows a model other than the one of ``serial`` whose bodies are
    the edited ``document``'s."""
    qtbot.waitUntil(
        lambda: (
            panel.snapshot.model_serial != serial
            and list(panel.snapshot.model.body_names)[1:] == document.body_names()
        ),
        timeout=30000,
    )
