"""What a structural edit of a large model makes again, counted (issue 22: adding a body to a
20,000-body chain took the worker seconds, most of it collecting and fingerprinting all
120,000 decorations again): a body added with the tree's "Add body" button, another mobilizer
chosen in the Properties form and the added body removed with the Delete key each build a new
System, whose decorations are those of the bodies the edit changed plus the ones collected
before: the worker makes the decorations of at most one body, at 300 bodies as at 1,200.
Each edit is made through real input in the real window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.simulation import body_decorations
from tests.app.open_in_window import open_in_window, wait_edit_shown
from tests.app.test_large_model_edits import _chain_document
from viz.decoration_keys import KeyedGeometry
from viz.system_decorations import static_decorations


def _made_by_each_edit(window, qtbot, tmp_path, n: int) -> dict[str, tuple[int, int]]:
    """Open an ``n``-body chain, make three structural edits through real input, and return
    for each (bodies whose decorations were made, decorations fingerprinted)."""
    editor, panel = window.model_editor, window.simulation
    open_in_window(qtbot, window, tmp_path / f"chain{n}.mbs.json", _chain_document(n))
    tree, document = editor.tree, editor.document
    made: dict[str, tuple[int, int]] = {}

    def settle(label: str, serial: int) -> None:
        wait_edit_shown(qtbot, panel, document, serial)
        made[label] = (
            body_decorations.LAST_MADE["bodies"],
            body_decorations.LAST_MADE["decorations"],
        )
        # the decorations shown are the new System's own, in its order
        session = panel.session
        own = KeyedGeometry(static_decorations(session.system, session._state))  # noqa: SLF001
        shown = session._geometry  # noqa: SLF001
        assert list(shown.hashes) == list(own.hashes)
        assert list(shown.bodies) == list(own.bodies)

    middle = f"b{n // 2}"
    tree.select_body(middle)
    qtbot.waitUntil(lambda: editor.properties.key == f"body:{middle}", timeout=3000)

    serial = panel.snapshot.model_serial
    qtbot.mouseClick(tree.add_body_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(document.bodies) == n + 1, timeout=5000)
    settle("add", serial)
    added = document.bodies[-1].name
    assert document.body(added).parent == middle

    tree.select_body(middle)
    qtbot.waitUntil(lambda: "mobilizer" in editor.properties.fields, timeout=3000)
    combo = editor.properties.field("mobilizer")
    combo.setFocus()
    serial = panel.snapshot.model_serial
    qtbot.keyClicks(combo, "Pin")
    qtbot.waitUntil(lambda: document.body(middle).mobilizer == "Pin", timeout=5000)
    settle("mobilizer", serial)

    tree.select_body(added)
    tree.view.setFocus()
    qtbot.waitUntil(tree.view.hasFocus, timeout=2000)
    serial = panel.snapshot.model_serial
    qtbot.keyClick(tree.view, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: len(document.bodies) == n, timeout=5000)
    settle("remove", serial)
    return made


@pytest.mark.gui
@pytest.mark.parametrize("n", [300, 1200])
def test_a_structural_edit_makes_only_the_changed_bodies_decorations(
    main_window, qtbot, tmp_path, n
):
    made = _made_by_each_edit(main_window, qtbot, tmp_path, n)
    # the added body's (frame, joint frames, bones, mass centre: a handful of decorations)
    bodies, decorations = made["add"]
    assert bodies == 1 and 0 < decorations <= 12
    # the body whose mobilizer changed (a new System: its own and its sketch made again)
    bodies, decorations = made["mobilizer"]
    assert bodies == 1 and decorations <= 12
    # removing the last body renumbers no other: nothing is made
    assert made["remove"] == (0, 0)
