"""A body renamed in a running session shows exactly what a session opened afresh on the
renamed model shows (sample columns, q/u labels, quantity names, q index, the ModelInfo the
GUI reads), and makes only the renamed bodies' names: every other column, label, lower-case
quantity name and joint entry is the very object of the model before, and the sample rows
are taken over, not copied."""

from __future__ import annotations

import numpy as np

from app.document import BodySpec, ElementSpec, FrameSpec, ModelData, ModelDocument, build
from app.simulation.session import SimulationSession

MOBILIZERS = ("Ball", "Pin", "Free", "Slider", "Ball", "Pin", "Ball", "Free")


def _document() -> ModelDocument:
    """A chain of mixed joints (Ball, Pin, Free, Slider...), b3 with two children."""
    bodies = [
        BodySpec(
            f"b{i}",
            parent="Ground" if i == 0 else ("b3" if i == 8 else f"b{i - 1}"),
            mobilizer=MOBILIZERS[i % len(MOBILIZERS)],
            X_PF=FrameSpec((0.0, -0.2, 0.0)),
            com=(0.0, -0.1, 0.0),
            inertia=(0.02, 0.01, 0.02, 0.0, 0.0, 0.0),
        )
        for i in range(10)
    ]
    gravity = ElementSpec("Gravity", {"down": (0.0, -1.0, 0.0), "magnitude": 9.81})
    return ModelDocument(ModelData(bodies=bodies, forces=[gravity]))


class _Version:
    """One version of the document's content, as the studio hands it to the worker."""

    def __init__(self, document) -> None:
        self.data = document.data
        self.base_dir = None


def _rebuild(session: SimulationSession, document: ModelDocument) -> None:
    """Apply the document's content as the worker applies a rebuild command."""
    with session._state.getStateLock():
        session._cmd_rebuild(_Version(document), frozenset({"parameters"}))
    assert not session._error


def _shown(session: SimulationSession) -> dict:
    """What the GUI is given of the model's names."""
    info, quantities = session.model_info, session.samples.quantities
    return {
        "columns": session.samples.columns,
        "q_labels": list(session._q_labels),
        "u_labels": list(session._u_labels),
        "q_index": list(session._q_index.items()),
        "names": quantities.names,
        "lower": quantities.lower,
        "index": quantities.index,
        "info_q_index": list(info.q_index.items()),
        "info_q_labels": info.q_labels,
        "body_names": info.body_names,
        "mobilizer_types": list(info.mobilizer_types.items()),
        "joint_layout": list(info.joint_layout.items()),
        "measure_names": info.measure_names,
    }


def test_a_rename_shows_what_a_fresh_open_shows_and_makes_only_the_renamed_names():
    document = _document()
    session = SimulationSession(build(document.data, True))
    width = len(session.samples.columns)
    rows = np.arange(3 * width, dtype=float).reshape(3, width)
    for row in rows:
        session.samples.append(row)
    before_samples, before_info = session.samples, session.model_info
    held = before_samples.all()
    before_columns = list(before_samples.columns)
    before_lower = list(before_samples.quantities.lower)
    system = session.system

    document.rename_body("b3", "elbow")  # a Slider with two children (b4 and b8)
    document.rename_body("b6", "wrist")
    _rebuild(session, document)  # (the second edit's content: both renames at once)

    assert session.system is system
    fresh = SimulationSession(build(document.data, True))
    assert _shown(session) == _shown(fresh)
    # only the renamed bodies' names were made: q, u, udot of b3 (1 each), of b6 (4, 3, 3)
    columns = session.samples.columns
    new_columns = [i for i, c in enumerate(columns) if c is not before_columns[i]]
    assert len(new_columns) == 3 + 10
    assert all(("elbow." in columns[i]) != ("wrist." in columns[i]) for i in new_columns)
    lower = session.samples.quantities.lower
    assert sum(a is not b for a, b in zip(lower, before_lower, strict=True)) == len(new_columns)
    layout, old_layout = session.model_info.joint_layout, before_info.joint_layout
    kept = [n for n in layout if n not in ("elbow", "wrist")]
    assert all(layout[n] is old_layout[n] for n in kept)
    assert layout["elbow"] is old_layout["b3"] and layout["wrist"] is old_layout["b6"]
    # the rows are the buffer's before (not a copy), under the new names
    assert session.samples is not before_samples
    assert session.samples._rows is before_samples._rows
    np.testing.assert_array_equal(session.samples.all(), held)
    np.testing.assert_array_equal(held[-3:], rows)


def test_a_renamed_buffer_and_the_one_before_read_the_same_rows():
    """The buffer a reader still holds (the model before the rename) reads what the renamed
    one appends and drops."""
    document = _document()
    session = SimulationSession(build(document.data, True))
    before = session.samples
    width = len(before.columns)
    before.append(np.full(width, 0.25))
    document.rename_body("b1", "one")
    _rebuild(session, document)
    after = session.samples
    held = len(before)
    after.append(np.ones(width))
    assert len(before) == len(after) == held + 1 and before.total == after.total
    np.testing.assert_array_equal(before.all(), after.all())
    epoch = before.epoch
    assert after.drop_from(0.5) == 1 and before.epoch == after.epoch == epoch + 1
    assert len(before) == held and before.all()[-1, 0] == 0.25


def test_renames_back_and_forth_stay_equal_to_a_fresh_open():
    document = _document()
    session = SimulationSession(build(document.data, True))
    for old, new in [("b0", "base"), ("b9", "tip"), ("base", "b0"), ("b5", "b9x")]:
        document.rename_body(old, new)
        _rebuild(session, document)
        assert _shown(session) == _shown(SimulationSession(build(document.data, True)))


def test_a_rename_through_the_worker_copies_no_state_and_keeps_the_sample(monkeypatch):
    """A model not run yet: its one sample (the State shown) is taken again after an edit
    that changes a value; a rename changes none, so the worker copies no State for it."""
    import time

    from engine import State

    document = _document()
    session = SimulationSession(build(document.data, True))
    session.start()
    row = session.samples.all().copy()
    assert len(row) == 1
    copies: list = []
    real = State._copy_into
    monkeypatch.setattr(State, "_copy_into", lambda s, dst: (copies.append(s), real(s, dst))[1])
    serial = session.latest().model_serial
    document.rename_body("b4", "knee")
    session.rebuild(_Version(document), "parameters")
    end = time.monotonic() + 20.0
    while session.latest().model_serial == serial:
        assert time.monotonic() < end, "the worker did not show the renamed model"
        time.sleep(0.005)
    assert copies == [] and not session.latest().error
    assert "knee" in session.latest().model.body_names
    np.testing.assert_array_equal(session.samples.all(), row)
    session.stop()


def test_names_swapped_by_several_edits_are_built_anew_and_shown_as_a_fresh_open(monkeypatch):
    """b1 and b2 swap names in three renames handed over at once: not told apart from a
    rename pair by pair, the worker builds the model and shows what a fresh open shows."""
    import app.document as document_module

    document = _document()
    session = SimulationSession(build(document.data, True))
    builds: list = []
    real_build = document_module.build
    monkeypatch.setattr(document_module, "build", lambda *a: (builds.append(a), real_build(*a))[1])
    document.rename_body("b1", "tmp")
    document.rename_body("b2", "b1")
    document.rename_body("tmp", "b2")
    _rebuild(session, document)
    assert len(builds) == 1
    assert _shown(session) == _shown(SimulationSession(build(document.data, True)))
    document.rename_body("b7", "seven")  # a rename alone again: no build
    _rebuild(session, document)
    assert len(builds) == 1
    assert _shown(session) == _shown(SimulationSession(build(document.data, True)))
