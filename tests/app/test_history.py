"""Recorded States: capture/restore is exact, the history keeps its budget, files round-trip,
the diff finds what differs and nothing else."""

from __future__ import annotations

import numpy as np
import pytest

from app.document.builder import build
from app.document.examples import BUILDERS
from app.document.model_io import dumps
from app.history import (
    History,
    RecordingFileError,
    capture,
    diff_records,
    load_recording,
    restore,
    save_recording,
)
from app.history.state_record import RecordError
from engine import RungeKuttaMersonIntegrator, Stage, TimeStepper


def _run_double_pendulum(until: float):
    built = build(BUILDERS["double_pendulum"]())
    stepper = TimeStepper(built.system, RungeKuttaMersonIntegrator(built.system))
    stepper.initialize(built.state)
    stepper.stepTo(until)
    return built, stepper.getState()


def test_restore_reproduces_the_state_and_its_realized_caches_exactly():
    built, state = _run_double_pendulum(0.7)
    built.system.realize(state, Stage.Acceleration)
    record = capture(state)
    assert record.t == pytest.approx(0.7) and record.stage == int(Stage.Acceleration)

    fresh = build(BUILDERS["double_pendulum"]())
    restore(record, fresh.state)
    assert fresh.state.getSystemStage() < Stage.Acceleration  # realized on demand
    assert capture(fresh.state).same_values(record)
    fresh.system.realize(fresh.state, Stage.Acceleration)
    assert np.array_equal(fresh.state.getUDot(), state.getUDot())
    for name in ("upper", "lower"):
        pose_a = built.mobilized_bodies[name].getBodyTransform(state)
        pose_b = fresh.mobilized_bodies[name].getBodyTransform(fresh.state)
        assert np.array_equal(pose_a.toMat44(), pose_b.toMat44())


def test_a_record_of_another_model_is_refused_and_changes_nothing():
    _, state = _run_double_pendulum(0.2)
    record = capture(state)
    other = build(BUILDERS["pendulum"]())
    q_before = np.array(other.state.getQ())
    with pytest.raises(RecordError, match="another model"):
        restore(record, other.state)
    assert np.array_equal(other.state.getQ(), q_before) and other.state.getTime() == 0.0


def test_history_drops_the_oldest_records_beyond_its_budget_and_finds_the_nearest():
    built = build(BUILDERS["pendulum"]())
    state = built.state
    record_bytes = capture(state).nbytes
    history = History(budget_bytes=10 * (record_bytes + 600))
    for k in range(25):
        state.setTime(0.1 * k)
        state.updQ()[0] = k
        history.append(capture(state))
    assert len(history) == 10
    assert history[0].t == pytest.approx(1.5) and history[-1].t == pytest.approx(2.4)
    assert history.seconds_held == pytest.approx(0.9)
    assert history.at(1.94).q[0] == 19 and history.at(1.96).q[0] == 20
    assert history.at(-5.0).q[0] == 15 and history.at(99.0).q[0] == 24
    # Going on from an earlier moment starts a new future; the old one is kept as a branch.
    history.budget_bytes *= 10
    state.setTime(2.0)
    state.updQ()[0] = -1
    history.append(capture(state))
    assert history[-1].t == pytest.approx(2.0) and len(history) == 6
    (branch,) = history.branches
    assert branch.fork_time == pytest.approx(2.0) and [r.q[0] for r in branch.records] == [
        20,
        21,
        22,
        23,
        24,
    ]
    # Switching brings the old future back and keeps the new one as a branch.
    history.switch(0)
    assert [r.q[0] for r in history][-5:] == [20, 21, 22, 23, 24] and len(history) == 10
    # The line left keeps its name; the line brought back is called what the branch was.
    assert [b.name for b in history.branches] == ["Main line"]
    assert history.current_name == "Branch 1"
    assert [r.q[0] for r in history.branches[0].records] == [-1]
    # Over the budget, branches go before the current line's records.
    nbytes = history.nbytes
    history.budget_bytes = nbytes
    state.setTime(2.5)
    history.append(capture(state))
    assert history.branches == [] and len(history) == 11


def test_branches_keep_a_bounded_number_of_models_the_oldest_branches_go_first():
    """Each edit after going back in time leaves a branch with the model it was run with (a
    whole System, not counted in the records' budget): past MAX_BRANCH_MODELS such models the
    oldest branches go, whatever the budget."""
    from app.history.history import MAX_BRANCH_MODELS

    built = build(BUILDERS["pendulum"]())
    state = built.state
    history = History()
    models = []
    for edit in range(MAX_BRANCH_MODELS + 3):
        history.model = model = object()  # the model run from here (a BuiltModel in the studio)
        models.append(model)
        for k in range(3):  # run 0.2 s on, go back 0.1 s and edit: the future is a branch
            state.setTime(0.1 * (edit + k))
            history.append(capture(state))
        history.fork_at(0.1 * (edit + 1), f"before edit {edit}")
    kept = [b.model for b in history.branches]
    # the newest branches, in order; the last one was run with the current line's model
    assert kept == models[-MAX_BRANCH_MODELS - 1 :]
    assert history.nbytes == sum(b.nbytes for b in history.branches) + sum(
        capture(state).nbytes + 600 for _ in range(len(history))
    )
    # Switching to the oldest branch left makes the current line's model one to keep: still
    # at most MAX_BRANCH_MODELS models besides the one now run.
    history.switch(0)
    others = {id(b.model) for b in history.branches if b.model is not history.model}
    assert history.model is models[-MAX_BRANCH_MODELS - 1]
    assert len(others) <= MAX_BRANCH_MODELS and id(models[-1]) in others


def test_recording_file_round_trips_bit_for_bit(tmp_path):
    built, state = _run_double_pendulum(0.3)
    history = History()
    history.append(capture(state))
    state.setTime(0.35)
    state.updU()[1] = 0.125
    history.append(capture(state))
    # Going on from 0.3 in another way leaves the State at 0.35 as a branch.
    state.setTime(0.32)
    state.updU()[1] = -0.5
    history.append(capture(state))
    assert [b.name for b in history.branches] == ["Branch 1"]
    path = tmp_path / "run.npz"
    model_json = dumps(built.data)
    save_recording(path, model_json, history, bookmarks=[(0.3, "start")])
    loaded = load_recording(path)
    assert loaded.model_json == model_json and loaded.bookmarks == [(0.3, "start")]
    assert len(loaded.records) == 2
    for a, b in zip(history, loaded.records, strict=True):
        assert a.same_values(b)
    (branch,) = loaded.branches
    assert (branch.name, branch.fork_time) == ("Branch 1", pytest.approx(0.32))
    assert branch.records[0].same_values(history.branches[0].records[0])
    # The branches come back into a history, which numbers its next branch after them.
    again = History()
    for record in loaded.records:
        again.append(record)
    again.adopt_branches(loaded.branches)
    again.switch(0)
    assert again[-1].same_values(branch.records[0])
    assert [b.name for b in again.branches] == ["Main line"]
    assert again.current_name == "Branch 1"
    path_switched = tmp_path / "switched.npz"
    save_recording(path_switched, model_json, again)
    assert load_recording(path_switched).line_name == "Branch 1"
    assert loaded.line_name == "Main line"
    state.setTime(0.31)
    again.append(capture(state))
    assert [b.name for b in again.branches] == ["Main line", "Branch 2"]


def test_recording_file_keeps_plot_samples_event_marks_and_branch_models(tmp_path):
    import zipfile

    from app.history.event_log import EventMark

    built, state = _run_double_pendulum(0.3)
    history = History()
    history.model = "the file's model"
    history.append(capture(state))
    state.setTime(0.35)
    history.append(capture(state))
    state.setTime(0.32)
    history.append(capture(state))
    history.model = "the edited model"  # the line goes on with another model
    (branch,) = history.branches
    assert branch.model == "the file's model"
    columns = ["t", "total energy"]
    rows = np.array([[0.3, 1.5], [0.32, 1.25]])
    branch.samples = np.array([[0.35, 2.0]])
    branch.events = [EventMark(0.34, "handled", "Triggered event handled by Bounce")]
    from dataclasses import replace

    edited = built.data.copy()
    edited.bodies[1] = replace(edited.bodies[1], mass=3.0)
    branch.model = dumps(edited)
    marks = [EventMark(0.31, "reported", "Scheduled event reported by Every tenth")]
    path = tmp_path / "v3.npz"
    model_json = dumps(built.data)
    save_recording(path, model_json, history, samples=(columns, rows), events=marks)
    loaded = load_recording(path)
    assert loaded.sample_columns == columns and np.array_equal(loaded.samples, rows)
    assert loaded.events == marks
    (back,) = loaded.branches
    assert np.array_equal(back.samples, branch.samples) and back.events == branch.events
    assert back.model == dumps(edited)
    # A branch run with the file's own model stores no second copy of it.
    branch.model = model_json
    save_recording(path, model_json, history, samples=(columns, rows))
    assert load_recording(path).branches[0].model is None

    # A version-2 file (no samples, marks or branch models) is still read.
    with np.load(path) as data:
        old = {k: data[k] for k in data.files}
    for key in list(old):
        if "sample" in key or "event_" in key or key == "branch_models":
            del old[key]
    old["version"] = np.array(2)
    v2 = tmp_path / "v2.npz"
    np.savez_compressed(v2, **old)
    loaded = load_recording(v2)
    assert loaded.samples is None and loaded.events == [] and loaded.sample_columns == []
    assert len(loaded.records) == 2 and loaded.branches[0].samples is None
    assert all(a.same_values(b) for a, b in zip(history, loaded.records, strict=True))
    # A version-3 file that lost its samples is refused, naming what is missing.
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(tmp_path / "cut.npz", "w") as cut:
        for item in source.infolist():
            if item.filename != "samples.npy":
                cut.writestr(item, source.read(item))
    with pytest.raises(RecordingFileError, match="no 'samples'"):
        load_recording(tmp_path / "cut.npz")


def test_damaged_or_foreign_files_are_refused_with_a_message(tmp_path):
    built, state = _run_double_pendulum(0.1)
    good = tmp_path / "run.npz"
    save_recording(good, dumps(built.data), [capture(state)])
    truncated = tmp_path / "cut.npz"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, x=np.arange(3))
    text = tmp_path / "text.npz"
    text.write_text("hello")
    for path, what in (
        (truncated, "recording"),
        (foreign, "not a complete mbstudio recording"),
        (text, "not an mbstudio recording"),
        (tmp_path / "missing.npz", "no such file"),
    ):
        with pytest.raises(RecordingFileError, match=what):
            load_recording(path)


def test_diff_finds_a_planted_difference_and_nothing_else():
    _, state = _run_double_pendulum(0.4)
    a = capture(state)
    state.updU()[0] += 0.5
    state.updQ()[1] -= 1e-6
    b = capture(state)
    rows = diff_records(a, b, q_labels=["upper q", "lower q"], u_labels=["upper u", "lower u"])
    assert [r.name for r in rows] == ["upper u", "lower q"]
    assert rows[0].difference == pytest.approx(0.5) and rows[1].difference == pytest.approx(-1e-6)
    assert diff_records(a, a) == []


def test_discrete_values_round_trip_exactly_and_their_changes_show_in_the_diff():
    from app.history.value_codec import decode, encode

    value = {
        "d": np.array([0.0, -1.0, 1 / 3]),
        "g": 9.81,
        "excluded": frozenset({3, 1}),
        "locks": [None, (1, 2.5)],
        "flags": np.array([True, False]),
        "limits": [float("inf"), float("-inf")],
    }
    back = decode(encode(value))
    assert back.keys() == value.keys() and back["excluded"] == value["excluded"]
    assert np.array_equal(back["d"], value["d"]) and back["flags"].dtype == bool
    assert back["locks"] == value["locks"] and back["limits"] == value["limits"]
    assert encode(back) == encode(value)

    built, state = _run_double_pendulum(0.1)
    a = capture(state)
    for subsys in range(state.getNumSubsystems()):
        for dv in state.getPerSubsystemInfo(subsys).discrete:
            if dv.name.startswith("Gravity") and isinstance(dv.value, dict):
                changed = dict(dv.value, g=1.62)
                state.setDiscreteVariable(subsys, dv.index, changed)
                gravity = (subsys, dv.index, dv.name)
    b = capture(state)
    rows = diff_records(a, b)
    assert [(r.name, r.value_a, r.value_b) for r in rows] == [(f"{gravity[2]}.g", 9.81, 1.62)]
    fresh = build(BUILDERS["double_pendulum"]())
    restore(b, fresh.state)
    assert fresh.state.getDiscreteVariable(*gravity[:2])["g"] == 1.62
    assert capture(fresh.state).same_values(b)


def test_diff_command_prints_the_differing_variables_largest_first(tmp_path, capsys):
    from app.cli import main

    built, state = _run_double_pendulum(0.5)
    first = capture(state)
    state.setTime(0.6)
    state.updQ()[0] += 0.25
    state.updU()[1] += 0.01
    path = tmp_path / "run.npz"
    save_recording(path, dumps(built.data), [first, capture(state)])
    assert main(["diff", str(path), "--at", "0.5", "--at", "0.61", "--group", "state"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["quantity", "group"]
    assert [line.split()[0] for line in lines[1:]] == ["q:upper[0]", "t", "u:lower[0]"]
    assert main(["diff", str(path), "--at", "0.5", "--at", "0.61"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("potential energy") for line in lines)
    assert len(lines) > 10  # derived quantities and cache entries too
    assert main(["diff", str(tmp_path / "nothing.npz"), "--at", "0", "--at", "1"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_full_comparison_adds_derived_quantities_and_cache_entries_that_follow_from_the_change():
    from app.history.state_compare import compare_states

    built, state = _run_double_pendulum(0.3)
    a = capture(state)
    state.updU()[0] += 0.5  # a velocity change: poses stay, velocities and energy change
    b = capture(state)
    rows = compare_states(built, built.state, a, b)
    by_name = {r.name: r for r in rows}
    assert by_name["u[0]"].group == "state" and by_name["u[0]"].difference == pytest.approx(0.5)
    derived = {r.name for r in rows if r.group == "derived"}
    assert "kinetic energy" in derived and "total energy" in derived
    assert "upper angular velocity z (Ground)" in derived
    assert not {n for n in derived if "origin" in n and "velocity" not in n}  # poses kept
    assert "potential energy" not in derived
    assert any(r.group not in ("state", "derived") for r in rows)  # cache entries differ too
    sizes = [abs(r.difference) for r in rows if r.difference is not None]
    assert sizes == sorted(sizes, reverse=True)
    assert compare_states(built, built.state, a, a) == []


def test_sample_buffer_drops_the_rows_of_a_future_that_is_run_again():
    from app.simulation.samples import SampleBuffer

    buffer = SampleBuffer(["t", "x"], capacity=8)
    for k in range(12):
        buffer.append(np.array([0.1 * k, k]))
    epoch = buffer.epoch
    assert buffer.drop_from(0.85) == 3  # rows at 0.9, 1.0 and 1.1
    assert buffer.epoch == epoch + 1 and buffer.all()[-1, 1] == 8 and len(buffer) == 5
    buffer.append(np.array([0.9, 90.0]))
    assert buffer.all()[:, 1].tolist() == [4, 5, 6, 7, 8, 90]
    assert buffer.drop_from(5.0) == 0 and buffer.epoch == epoch + 1


def test_failures_are_explained_in_plain_words_with_remedies():
    from app.history.explain import explain

    rod = explain(
        "step failed: projectQ could not satisfy the position constraints to accuracy 0.0001 "
        "(weighted error norm 1 -> 1 after 1 iterations): Constraint.Rod 0 (equation 0) has "
        "weighted error -1"
    )
    assert rod.title == "The constraints cannot be satisfied"
    assert "the Rod constraint #0" in rod.text and "length" in rod.text
    assert rod.remedies == ("assemble", "go_back") and "projectQ" in rod.details
    stiff = explain("step failed: RungeKuttaMerson integrator step failed at t=0.1: size 1e-15")
    assert "stiff" in stiff.text and stiff.remedies[0] == "implicit"
    blown = explain("step failed: non-finite state variable q[3]")
    assert blown.title == "The simulation blew up"
    other = explain("something else")
    assert other.remedies == ("go_back",) and other.details == "something else"


def test_simulate_records_a_file_that_diff_reads_and_that_matches_the_csv(tmp_path, capsys):
    from app.cli import main
    from app.document.examples import example_path

    path, table, plain = tmp_path / "run.npz", tmp_path / "run.csv", tmp_path / "plain.csv"
    model = str(example_path("double_pendulum"))
    args = ["simulate", model, "--until", "0.5", "--dt", "0.05", "--record", str(path)]
    assert main([*args, "--csv", str(table)]) == 0
    assert "11 recorded States" in capsys.readouterr().err
    recording = load_recording(path)
    assert [r.t for r in recording.records] == pytest.approx([0.05 * k for k in range(11)])
    rows = np.loadtxt(table, delimiter=",", skiprows=1)
    # The recorded q are the CSV's q (the CSV writes them with repr: bit for bit).
    assert np.array_equal(np.array([r.q for r in recording.records]), rows[:, 1:3])
    # Recording does not change the run: the CSV of a run without it is the same.
    assert main(["simulate", model, "--until", "0.5", "--dt", "0.05", "--csv", str(plain)]) == 0
    assert plain.read_text() == table.read_text()
    # A restored record (in a model laid out as the studio lays it out, with the mouse's
    # pull force) realizes the energy the run wrote.
    from app.body_puller import ensure_pull_force

    built = build(BUILDERS["double_pendulum"]())
    ensure_pull_force(built)
    restore(recording.records[7], built.state)
    built.system.realize(built.state, Stage.Dynamics)
    assert built.system.calcKineticEnergy(built.state) == rows[7, -3]
    assert main(["diff", str(path), "--at", "0", "--at", "0.5", "--group", "state"]) == 0
    names = [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:]]
    assert set(names) == {"t", "q:upper[0]", "q:lower[0]", "u:upper[0]", "u:lower[0]"}
    # --record alone (no CSV) is enough; a wrong suffix or neither file is refused.
    assert main(["simulate", model, "--until", "0.1", "--record", str(tmp_path / "b.npz")]) == 0
    assert len(load_recording(tmp_path / "b.npz").records) == 11
    assert main(["simulate", model, "--until", "0.1", "--record", str(tmp_path / "b.h5")]) == 2
    assert main(["simulate", model, "--until", "0.1"]) == 2
    assert "--record" in capsys.readouterr().err
