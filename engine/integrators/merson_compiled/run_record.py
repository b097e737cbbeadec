"""The run record of ``merson_compiled.steps.merson_steps``: what a call of the compiled
stepping loop reads (the state of the step-size control carried between calls) and
writes (that state after its steps, and what the steps did), as one numpy structured
dtype declared once, ``RUN_DTYPE``.

Python reads and writes a record by field name (``run["time"]``); the kernels take a
one-record array (``new_run_records(1)``, or one member's slice ``runs[m : m + 1]`` of an
ensemble's array) and use the same names as attributes (``r = run[0]; r.time``). Times
and step sizes are in seconds; counts are int64.
"""

from __future__ import annotations

import numpy as np

#: (field, dtype, meaning) of each entry of the run record
RUN_FIELDS: tuple[tuple[str, str, str], ...] = (
    ("time", "f8", "in: time of the advanced state; out: after the steps"),
    ("previous_time", "f8", "out: start of the last step taken"),
    ("step_size", "f8", "in and out: the step size to try next"),
    ("last_step_size", "f8", "out: size of the last step taken"),
    ("first_step_size", "f8", "in and out: the first step size taken (NaN if none yet)"),
    ("tiny_steps", "i8", "in and out: consecutive steps too short to resolve"),
    ("worst_state", "i8", "out: index in y of the worst error entry of the last step"),
    ("kinetic_energy", "f8", "out: kinetic energy at the last step's end (J)"),
    ("steps", "i8", "out: steps taken"),
    ("attempts", "i8", "out: step attempts"),
    ("error_test_failures", "i8", "out: attempts that failed the error test"),
    ("projections", "i8", "out: attempts that ran the quaternion projection"),
    ("normalizations", "i8", "out: attempts that normalized quaternions"),
    ("derivative_realizations", "i8", "out: derivative realizations at step starts"),
)

#: the run record's structured dtype
RUN_DTYPE = np.dtype([(name, kind) for name, kind, _ in RUN_FIELDS])


def new_run_records(count: int) -> np.ndarray:
    """``count`` zeroed run records (an ensemble's one per member; 1 for an integrator)."""
    return np.zeros(count, dtype=RUN_DTYPE)
