"""StateRecord: the variables of one State at one moment, as plain arrays.

``capture`` copies time, q, u, z, every discrete variable's value (auto-update variables
included) and, when the State is realized far enough to have them, the event trigger values;
``restore`` writes the variables back into a State of the same System through the State's
invalidating setters, so the restored State realizes exactly as the captured one did.

Discrete variables are kept as the exact text of ``value_codec`` (numbers, bools, strings,
arrays and containers of them); a variable holding anything else is refused when captured,
naming the variable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.history.value_codec import ValueCodecError, decode, encode
from engine import Stage, State


class RecordError(ValueError):
    """A State cannot be captured or a record cannot be restored into a State."""


@dataclass(frozen=True, eq=False)
class StateRecord:
    """One State's variables.

    ``discrete`` holds ``(subsystem, index, name, text)`` per discrete variable, the value as
    ``value_codec`` text; ``triggers`` is empty when the State was below
    the stage where the triggers are computed; ``stage`` is the System stage it had.
    """

    t: float
    q: np.ndarray
    u: np.ndarray
    z: np.ndarray
    discrete: tuple[tuple[int, int, str, str], ...]
    triggers: np.ndarray
    stage: int
    #: Characters of the discrete variables' texts, if known (records share them).
    text_bytes: int | None = None

    @property
    def nbytes(self) -> int:
        """Memory the record's arrays take, in bytes."""
        text = self.text_bytes
        if text is None:
            text = sum(len(t) for *_, t in self.discrete)
        return self.q.nbytes + self.u.nbytes + self.z.nbytes + self.triggers.nbytes + text

    def same_values(self, other: StateRecord) -> bool:
        """True if every variable is bit-identical (NaN never occurs in a record)."""
        if self.t != other.t or self.discrete != other.discrete:
            return False
        pairs = [(self.q, other.q), (self.u, other.u), (self.z, other.z)]
        return all(a.shape == b.shape and np.array_equal(a, b) for a, b in pairs)


def _frozen(values) -> np.ndarray:
    array = np.array(values, dtype=np.float64, copy=True)
    array.flags.writeable = False
    return array


_NONE = _frozen(np.zeros(0))


def _discrete_text(name: str, value) -> str:
    try:
        return encode(value)
    except ValueCodecError as exc:
        raise RecordError(f"discrete variable '{name}' cannot be recorded: {exc}") from exc


def _discrete_texts(state: State) -> tuple[tuple[int, int, str, str], ...]:
    return tuple(
        (subsys, dv.index, dv.name, _discrete_text(dv.name, dv.value))
        for subsys in range(state.getNumSubsystems())
        for dv in state.getPerSubsystemInfo(subsys).discrete
    )


class Recorder:
    """``capture`` for a sequence of moments of one (or a few) States: the discrete
    variables' text (and the q/u sizes) are found again only when the State's discrete value
    version or its number of variables changed (they are parameters and switches, which
    rarely change during a run)."""

    def __init__(self) -> None:
        self._state: State | None = None  # kept alive so that its identity stays unique
        self._key: tuple = ()
        self._discrete: tuple[tuple[int, int, str, str], ...] = ()
        self._layout: tuple[int, int, int] = (0, 0, 0)  # nq, nu, characters of the texts

    def capture(self, state: State) -> StateRecord:
        y = state.getY()
        key = (state.getDiscreteValueVersion(), y.size)
        if state is not self._state or key != self._key:
            self._discrete = _discrete_texts(state)
            text = sum(len(t) for *_, t in self._discrete)
            self._layout = (state.getNQ(), state.getNU(), text)
            self._state, self._key = state, key
        nq, nu, text = self._layout
        stage = state.getSystemStage()
        triggers = _frozen(state.getEventTriggers()) if stage >= Stage.Acceleration else _NONE
        y = _frozen(y)  # one copy; q, u and z are read-only views of it
        return StateRecord(
            t=float(state.getTime()),
            q=y[:nq],
            u=y[nq : nq + nu],
            z=y[nq + nu :],
            discrete=self._discrete,
            triggers=triggers,
            stage=int(stage),
            text_bytes=text,
        )


def capture(
    state: State, discrete: tuple[tuple[int, int, str, str], ...] | None = None
) -> StateRecord:
    """Copy the State's variables into a new record (the State is not changed).
    ``discrete``: the discrete variables' texts if already known (see ``Recorder``)."""
    if discrete is None:
        discrete = _discrete_texts(state)
    stage = state.getSystemStage()
    triggers = _frozen(state.getEventTriggers()) if stage >= Stage.Acceleration else _NONE
    y = _frozen(state.getY())  # one copy; q, u and z are read-only views of it
    nq, nu = state.getNQ(), state.getNU()
    return StateRecord(
        t=float(state.getTime()),
        q=y[:nq],
        u=y[nq : nq + nu],
        z=y[nq + nu :],
        discrete=discrete,
        triggers=triggers,
        stage=int(stage),
    )


def restore(record: StateRecord, state: State) -> None:
    """Write the record's variables into ``state`` (a State of the System it came from).

    The layout is checked first, so a record of another System changes nothing.
    """
    sizes = (state.getNQ(), state.getNU(), state.getNZ())
    if sizes != (record.q.size, record.u.size, record.z.size):
        raise RecordError(
            f"the record has nq, nu, nz = {record.q.size}, {record.u.size}, {record.z.size} "
            f"but the State has {sizes[0]}, {sizes[1]}, {sizes[2]}: it belongs to another model"
        )
    for subsys, index, name, _ in record.discrete:
        info = state.getPerSubsystemInfo(subsys) if subsys < state.getNumSubsystems() else None
        if info is None or index >= len(info.discrete) or info.discrete[index].name != name:
            raise RecordError(
                f"the record's discrete variable '{name}' (subsystem {subsys}, index {index}) "
                "does not exist in this State: it belongs to another model"
            )
    state.setTime(record.t)
    state.setQ(record.q)
    state.setU(record.u)
    state.setZ(record.z)
    for subsys, index, _, text in record.discrete:
        if encode(state.getPerSubsystemInfo(subsys).discrete[index].value) != text:
            state.setDiscreteVariable(subsys, index, decode(text))
