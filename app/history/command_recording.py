"""The recording ``mbstudio simulate --record FILE.npz`` writes: the model document and the
State at every sample time, saved as a recording file (see ``recording_file``) that the
studio opens and ``mbstudio diff`` / ``mbstudio replay`` read."""

from __future__ import annotations

from app.history.recording_file import RecordingFileError, save_recording
from app.history.state_record import Recorder, RecordError, StateRecord


class CommandRecording:
    """Records States of one run of ``document``'s model; ``save`` writes them."""

    def __init__(self, document) -> None:
        self._document = document
        self._recorder = Recorder()
        self._records: list[StateRecord] = []
        #: Why the recording could not be made or saved ("" if it was).
        self.problem = ""

    @property
    def count(self) -> int:
        return len(self._records)

    def capture(self, state) -> None:
        """Keep ``state``'s variables (a State with a discrete variable that cannot be
        recorded stops the recording, with the reason in ``problem``)."""
        if self.problem:
            return
        try:
            self._records.append(self._recorder.capture(state))
        except RecordError as exc:
            self.problem = f"cannot record: {exc}"

    def save(self, path) -> None:
        """Write the recording to ``path`` (.npz); on failure ``problem`` says why."""
        if self.problem:
            return
        from app.document.model_io import dumps

        try:
            save_recording(path, dumps(self._document), self._records)
        except (RecordingFileError, OSError) as exc:
            self.problem = f"cannot write the recording {path}: {exc}"
