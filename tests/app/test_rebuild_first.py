"""A document edit reaches the simulation's worker before the model tree and the forms
update on the GUI thread: the worker rebuilds the System while the tree changes its rows
(a structural edit of a large model then is shown sooner). The edit is made with the Delete
key in the real window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.document import model_io
from app.tree.tree_model import body_key
from tests.app.test_large_model_edits import _chain_document


@pytest.mark.gui
def test_a_removal_is_handed_to_the_worker_before_the_tree_drops_its_row(
    main_window, qtbot, tmp_path
):
    window = main_window
    editor, panel = window.model_editor, window.simulation
    editor.interactive = False
    path = tmp_path / "chain8.mbs.json"
    model_io.save(_chain_document(8), path)
    assert editor.open_path(path, modal=False)
    qtbot.waitUntil(
        lambda: panel.snapshot is not None and len(panel.snapshot.model.body_names) > 8,
        timeout=30000,
    )
    tree = editor.tree
    session = panel.session
    rows_at_rebuild: list[bool] = []
    real = session.rebuild

    def recording(model, kind="topology") -> None:
        rows_at_rebuild.append(tree.model.index_of(body_key("b7")).isValid())
        real(model, kind)

    session.rebuild = recording
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    tree.select_body("b7")
    tree.view.setFocus()
    qtbot.waitUntil(tree.view.hasFocus, timeout=2000)
    serial = panel.snapshot.model_serial
    qtbot.keyClick(tree.view, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: "b7" not in editor.document.body_names(), timeout=5000)
    assert rows_at_rebuild == [True]  # the tree still had the row when the worker got it
    assert not tree.model.index_of(body_key("b7")).isValid()
    qtbot.waitUntil(lambda: panel.snapshot.model_serial != serial, timeout=30000)
    assert "b7" not in list(panel.snapshot.model.body_names)
