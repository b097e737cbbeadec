"""Switching branches of the recorded history from the timeline, as the user expects it of
the model being edited.

Each branch keeps the model it was run with. A switch to a branch run with other parameters
therefore changes the model document too (the model tree and Properties show that branch's
parameters), and so it is an undoable command on the editor's undo stack, "Switch to Branch
1": Undo switches back to the line left (with its parameters), Redo switches again; neither
forks the history or makes a branch. A switch between lines of the same model changes no
document and is not on the undo stack (like scrubbing, it only changes what is shown).
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QUndoCommand


@dataclass
class BranchSwitch:
    """A request to the simulation session (``SimulationSession.switch_to_branch``):
    ``branch`` is the history.Branch to bring back (the worker replaces it by the branch the
    replaced future is kept as); ``model`` is what the worker simulates if that branch is no
    longer held (the document's content the switch shows, see ModelVersion)."""

    branch: object
    model: object = None


@dataclass(frozen=True)
class ModelVersion:
    """One version of a model document's content as ``app.document.build`` takes it."""

    data: object
    base_dir: object = None


class BranchSwitchCommand(QUndoCommand):
    """Switch to a branch run with another model (redo), or back to the line left (undo).

    ``panel`` is the window's SimulationPanel (its session and document); ``before`` and
    ``after`` are the document's content on the line left and on the branch."""

    def __init__(self, panel, branch, name: str, before, after) -> None:
        super().__init__(f"Switch to {name}")
        self.panel = panel
        self.session = panel.session
        base_dir = getattr(panel.document, "base_dir", None)
        self.before = ModelVersion(before, base_dir)
        self.after = ModelVersion(after, base_dir)
        self.switch = BranchSwitch(branch)

    def redo(self) -> None:
        self._switch(self.after)

    def undo(self) -> None:
        self._switch(self.before)

    def _switch(self, version: ModelVersion) -> None:
        panel = self.panel
        if panel.session is not self.session or panel.document is None:
            return  # another model is simulated now: its undo stack was cleared anyway
        self.switch.model = version
        show_model_quietly(panel, version.data)
        self.session.switch_to_branch(self.switch)


def show_model_quietly(panel, data) -> None:
    """Show ``data`` in the panel's document (model tree, Properties) without the rebuild a
    document edit sends the simulation: the session runs that model already (or is about to,
    the switch being queued before any later edit)."""
    document = panel.document
    if document is None or document.data == data:
        return
    listener = panel._document_changed
    document.remove_listener(listener)
    try:
        document.restore(data, kind="parameters")
    finally:
        document.add_listener(listener)
