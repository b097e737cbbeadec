"""Recorded States: capture a State's variables, keep a bounded history of them, save it.

A recording holds variables, never caches: restoring one sets time, q, u, z and the discrete
variables on a State of the same System and leaves every stage to be realized on demand, so
anything computed from a restored State equals what the original State gave. Qt-free.
"""

from app.history.history import History
from app.history.recording_file import RecordingFileError, load_recording, save_recording
from app.history.state_diff import DiffRow, diff_records
from app.history.state_record import StateRecord, capture, restore

__all__ = [
    "DiffRow",
    "History",
    "RecordingFileError",
    "StateRecord",
    "capture",
    "diff_records",
    "load_recording",
    "restore",
    "save_recording",
]
