"""Undoable document edits.

``run_edit(stack, document, text, fn)`` calls ``fn(document)`` (which edits through the
document's methods and may raise DocumentError, changing nothing) and, if the document
changed, pushes a ``SnapshotCommand`` holding the content before and after. Undo and redo
restore those snapshots, notifying listeners with the kind of the original edit, so the
simulation rebuilds exactly as it did for the edit.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QUndoCommand, QUndoStack

from app.document import ModelDocument
from app.document.specs import ModelData

# Stronger kinds need more work downstream; a command reports the strongest of its changes.
_KIND_ORDER = ("hints", "initial_state", "parameters", "topology")


def strongest(kinds: list[str]) -> str:
    return max(kinds, key=_KIND_ORDER.index)


class SnapshotCommand(QUndoCommand):
    """One edit: the document content before and after it."""

    def __init__(
        self,
        document: ModelDocument,
        text: str,
        before: ModelData,
        after: ModelData,
        kind: str,
        target: str,
    ) -> None:
        super().__init__(text)
        self.document = document
        self.before = before
        self.after = after
        self.kind = kind
        self.target = target
        self._done = True  # pushed after the edit was applied

    def redo(self) -> None:
        if self._done:
            self._done = False
            return
        self.document.restore(self.after, self.kind, self.target)

    def undo(self) -> None:
        self.document.restore(self.before, self.kind, self.target)


def run_edit(
    stack: QUndoStack, document: ModelDocument, text: str, fn: Callable[[ModelDocument], object]
):
    """Apply ``fn(document)`` as one undoable command; returns fn's result. DocumentError
    propagates (nothing changed, nothing pushed)."""
    before = document.snapshot()
    changes = []
    document.add_listener(changes.append)
    try:
        result = fn(document)
    finally:
        document.remove_listener(changes.append)
    if changes:
        kind = strongest([c.kind for c in changes])
        stack.push(
            SnapshotCommand(document, text, before, document.snapshot(), kind, changes[-1].target)
        )
    return result
