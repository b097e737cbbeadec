"""Recorded States: capture a State's variables, keep a bounded history of them, save it.

A recording holds variables, never caches: restoring one sets time, q, u, z and the discrete
variables on a State of the same System and leaves every stage to be realized on demand, so
anything computed from a restored State equals what the original State gave. Qt-free.

The names below are loaded on first use, so that ``mbstudio --help`` (which imports the
``diff`` and ``replay`` commands of this package) does not import the engine.
"""

from __future__ import annotations

import importlib

_WHERE = {
    "History": "app.history.history",
    "RecordingFileError": "app.history.recording_file",
    "load_recording": "app.history.recording_file",
    "save_recording": "app.history.recording_file",
    "DiffRow": "app.history.state_diff",
    "diff_records": "app.history.state_diff",
    "StateRecord": "app.history.state_record",
    "capture": "app.history.state_record",
    "restore": "app.history.state_record",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'app.history' has no attribute {name!r}")
    return getattr(importlib.import_module(_WHERE[name]), name)
