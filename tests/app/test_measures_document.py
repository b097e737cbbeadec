"""Measures in the model document: edits and validation, the versioned file, the engine
Measures the builder makes (values against direct computations), and a live session's plot
samples against the engine's values."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest

from app.document import DocumentError, ElementSpec, ModelDocument, build, model_io
from app.document.examples import double_pendulum, example_path, pendulum
from app.simulation.session import Pacing, Settings, SimulationSession
from engine import RungeKuttaMersonIntegrator, Stage, TimeStepper

PIVOT = 1.5  # the pendulum example's pivot height (m); its link is 1 m long, bob at (0, -1, 0)


def pendulum_with_measures() -> ModelDocument:
    doc = ModelDocument(pendulum())
    for m in (
        ElementSpec("Time", {}, "t"),
        ElementSpec("StationHeight", {"body": "link", "station": (0.0, -1.0, 0.0)}, "bob height"),
        ElementSpec("JointCoordinate", {"body": "link", "which_q": 0}, "angle"),
        ElementSpec("JointSpeed", {"body": "link", "which_u": 0}, "rate"),
        ElementSpec("StationSpeed", {"body": "link", "station": (0.0, -1.0, 0.0)}, "bob speed"),
        ElementSpec("Sinusoid", {"amplitude": 2.0, "frequency": 3.0, "phase": 0.5}, "wave"),
        ElementSpec("Constant", {"value": 0.25}, "quarter"),
        ElementSpec("Plus", {"left": "bob height", "right": "quarter"}, "h+"),
        ElementSpec("Minus", {"left": "bob height", "right": "quarter"}, "h-"),
        ElementSpec("Scale", {"factor": -2.0, "operand": "angle"}, "scaled"),
        ElementSpec("Integrate", {"derivative": "quarter", "initial": 1.0}, "ramp"),
        ElementSpec("Maximum", {"operand": "bob height"}, "highest"),
        ElementSpec("Minimum", {"operand": "bob height"}, "lowest"),
        ElementSpec("Differentiate", {"operand": "wave"}, "wave rate"),
    ):
        doc.add_element("measures", m)
    return doc


# -- document edits -------------------------------------------------------------------------------


def test_measure_edits_are_validated_and_leave_the_document_unchanged_when_refused():
    doc = pendulum_with_measures()
    before = doc.to_dict()
    refused = [
        (ElementSpec("Plus", {"left": "nope", "right": "t"}, "x"), "left"),
        (ElementSpec("Scale", {"factor": 1.0, "operand": "x"}, "x"), "operand"),  # itself
        (ElementSpec("Time", {}, "t"), "name"),  # duplicate name
        (ElementSpec("Time", {}, ""), "name"),  # no name
        (ElementSpec("StationHeight", {"body": "ghost", "station": (0, 0, 0)}, "g"), "body"),
        (ElementSpec("JointSpeed", {"body": "link", "which_u": 1}, "u1"), "which_u"),
        (ElementSpec("Sinusoid", {"amplitude": 1.0, "frequency": "fast", "phase": 0}, "s"), None),
        (ElementSpec("Warp", {}, "w"), "type"),
    ]
    for spec, field in refused:
        with pytest.raises(DocumentError) as info:
            doc.add_element("measures", spec)
        if field is not None:
            assert info.value.field == field, spec
    # an operand must be defined before the measure that uses it (no cycles)
    with pytest.raises(DocumentError, match="before this one"):
        doc.add_element(
            "measures", ElementSpec("Differentiate", {"operand": "wave rate"}, "early"), index=0
        )
    assert doc.to_dict() == before


def test_removing_and_renaming_follow_measure_references():
    doc = pendulum_with_measures()
    # renaming a measure renames it where it is an operand
    doc.set_element("measures", doc.measure_names().index("quarter"), name="q4")
    plus = doc.measures[doc.measure_names().index("h+")]
    assert plus.args == {"left": "bob height", "right": "q4"}
    with pytest.raises(DocumentError, match="already exists"):
        doc.set_element("measures", 0, name="angle")
    # renaming a body renames it in the probes
    doc.rename_body("link", "arm")
    assert doc.measures[doc.measure_names().index("angle")].args["body"] == "arm"
    # removing a measure removes every measure built on it, transitively
    doc.remove_element("measures", doc.measure_names().index("bob height"))
    assert "h+" not in doc.measure_names() and "highest" not in doc.measure_names()
    assert {"t", "angle", "scaled", "ramp", "wave rate"} <= set(doc.measure_names())
    # removing a body removes its probes and what uses them
    doc.remove_body("arm")
    assert doc.measure_names() == ["t", "wave", "q4", "ramp", "wave rate"]


# -- files ----------------------------------------------------------------------------------------


def test_measures_round_trip_through_a_version_2_file(tmp_path):
    doc = pendulum_with_measures()
    path = tmp_path / "m.mbs.json"
    model_io.save(doc, path)
    raw = json.loads(path.read_text())
    assert raw["version"] == 2
    assert [m["name"] for m in raw["model"]["measures"]] == doc.measure_names()
    again = model_io.load(path)
    assert again == doc and again.measures == doc.measures


def test_a_model_without_measures_is_still_a_version_1_file_and_version_1_files_load(tmp_path):
    doc = ModelDocument(double_pendulum())
    text = model_io.dumps(doc)
    raw = json.loads(text)
    assert raw["version"] == 1 and "measures" not in raw["model"]
    assert model_io.loads(text) == doc
    # the bundled examples are version-1 files
    old = model_io.load(example_path("pendulum"))
    assert old.measures == [] and old.bodies
    # a version-1 file cannot hold measures (they came with version 2)
    raw["model"]["measures"] = [{"type": "Time", "name": "t", "args": {}}]
    with pytest.raises(model_io.ModelFileError) as info:
        model_io.loads(json.dumps(raw))
    assert info.value.field == "model.measures"
    raw["version"] = 2
    assert model_io.loads(json.dumps(raw)).measure_names() == ["t"]


def test_an_invalid_measure_in_a_file_is_refused_naming_its_field(tmp_path):
    raw = json.loads(model_io.dumps(pendulum_with_measures()))
    raw["model"]["measures"][7]["args"]["right"] = "missing"
    with pytest.raises(model_io.ModelFileError) as info:
        model_io.loads(json.dumps(raw))
    assert info.value.field == "model.measures[7].args.right"


# -- building -------------------------------------------------------------------------------------


def test_built_measures_match_direct_computations():
    doc = pendulum_with_measures()
    built = build(doc)
    assert list(built.measures) == doc.measure_names()
    state = built.state
    link = built.mobilized_bodies["link"]
    link.setOneU(state, 0, 0.7)
    state.setTime(0.3)
    built.system.realize(state, Stage.Velocity)
    m = {k: v.getValue(state) for k, v in built.measures.items() if k not in ("ramp",)}
    q = math.radians(60)
    assert m["t"] == 0.3
    assert m["angle"] == pytest.approx(q)
    assert m["rate"] == pytest.approx(0.7)
    assert m["bob height"] == pytest.approx(PIVOT - math.cos(q), rel=1e-12)
    assert m["bob speed"] == pytest.approx(0.7 * 1.0, rel=1e-12)
    assert m["wave"] == pytest.approx(2.0 * math.sin(3.0 * 0.3 + 0.5), rel=1e-14)
    assert m["h+"] == pytest.approx(PIVOT - math.cos(q) + 0.25, rel=1e-12)
    assert m["h-"] == pytest.approx(PIVOT - math.cos(q) - 0.25, rel=1e-12)
    assert m["scaled"] == pytest.approx(-2.0 * q)
    assert m["wave rate"] == pytest.approx(6.0 * math.cos(3.0 * 0.3 + 0.5), rel=1e-14)
    # the up direction is the System's: a +X up makes the height the station's x
    doc.set_hints(up="+X")
    b2 = build(doc)
    b2.system.realize(b2.state, Stage.Position)
    assert b2.measures["bob height"].getValue(b2.state) == pytest.approx(math.sin(q), rel=1e-12)


def test_probe_stages_are_checked():
    built = build(pendulum_with_measures())
    state = built.system.realizeTopology()  # a copy: realized through Instance only
    assert state.getSystemStage() == Stage.Instance
    with pytest.raises(Exception, match="realized"):
        built.measures["bob speed"].getValue(state)


# -- a live session -------------------------------------------------------------------------------


def run_session(doc: ModelDocument, until: float) -> SimulationSession:
    session = SimulationSession(
        build(doc), Settings(pacing=Pacing.SAMPLED, report_interval=0.02), sample_capacity=5000
    )
    session.start()
    session.play()
    deadline = time.monotonic() + 30
    while (session.latest() is None or session.latest().time < until) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.01)
    session.pause()
    session.stop()
    return session


def _first_pass_through_the_bottom(doc: ModelDocument) -> float:
    """A time (s) no later than the pendulum's first pass through q = 0, from a run of the
    engine alone (5 ms resolution)."""
    built = build(doc)
    integrator = RungeKuttaMersonIntegrator(built.system)
    integrator.setAccuracy(1e-8)
    stepper = TimeStepper(built.system, integrator)
    stepper.initialize(built.state)
    side = math.copysign(1.0, stepper.getState().getQ()[0])
    t = 0.0
    while math.copysign(1.0, stepper.getState().getQ()[0]) == side:
        t += 0.005
        stepper.stepTo(t)
    return t - 0.005


def test_session_samples_measures_as_the_engine_computes_them():
    doc = pendulum_with_measures()
    # SAMPLED pacing samples every reporting interval whatever the machine's speed (running
    # as fast as possible thins the samples to a few per wall-clock second on a fast machine)
    session = run_session(doc, 1.0)
    samples = session.samples
    names = doc.measure_names()
    assert [c for c in samples.columns if c.startswith("measure ")] == [
        f"measure {n}" for n in names
    ]
    rows = samples.all()
    assert len(rows) > 10
    t = rows[:, 0]
    q = samples.column("q[0] link.q0")
    u = samples.column("u[0] link.u0")
    # each sampled measure equals the engine's value in a State made from the sampled t, q, u
    built = build(doc)
    for k in range(0, len(rows), 5):
        state = built.state.copy()
        state.setTime(t[k])
        state.setQ([q[k]])
        state.setU([u[k]])
        built.system.realize(state, Stage.Velocity)
        for name in ("t", "bob height", "angle", "rate", "bob speed", "wave", "h+", "scaled"):
            expected = built.measures[name].getValue(state)
            got = samples.column(f"measure {name}")[k]
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-12), (name, t[k])
    height = samples.column("measure bob height")
    np.testing.assert_allclose(height, PIVOT - np.cos(q), rtol=1e-12)
    # Running extremes, from the initial state on: the bob starts at its highest. The Maximum
    # and Minimum see every accepted step, the samples only some of them (a busy session thins
    # its plot samples), so between samples they may find a more extreme height than any
    # sample shows. Until the bob first passes the bottom the height only decreases: the
    # maximum is the initial height and the minimum the current one. After it, the bob may
    # climb above its initial height only by the integrator's energy error (accuracy 1e-3).
    h0 = PIVOT - math.cos(math.radians(60))
    falling = t <= _first_pass_through_the_bottom(doc)
    assert falling.sum() >= 5
    highest = samples.column("measure highest")
    sampled_highest = np.maximum.accumulate(np.concatenate(([h0], height)))[1:]
    assert np.all(np.diff(highest) >= 0.0)
    assert np.all(highest >= sampled_highest - 1e-12)
    assert np.all(highest <= h0 + 1e-3)
    np.testing.assert_allclose(highest[falling], h0, rtol=1e-12)
    lowest = samples.column("measure lowest")
    sampled_lowest = np.minimum.accumulate(np.concatenate(([h0], height)))[1:]
    assert np.all(np.diff(lowest) <= 0.0)
    assert np.all(lowest <= sampled_lowest + 1e-12)
    assert np.all(lowest >= PIVOT - 1.0 - 1e-12)
    np.testing.assert_allclose(lowest[falling], height[falling], rtol=1e-12)
    np.testing.assert_allclose(samples.column("measure ramp"), 1.0 + 0.25 * t, rtol=1e-9)


def test_simulate_command_writes_the_measures(tmp_path, capsys):
    from app import cli

    model = tmp_path / "pendulum_measures.mbs.json"
    model_io.save(pendulum_with_measures(), model)
    out = tmp_path / "run.csv"
    rc = cli.main(["simulate", str(model), "--until", "0.2", "--dt", "0.05", "--csv", str(out)])
    assert rc == 0, capsys.readouterr().err
    lines = out.read_text().splitlines()
    header = lines[0].split(",")
    data = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
    names = pendulum_with_measures().measure_names()
    assert header[-len(names) :] == [f"measure:{n}" for n in names]
    col = {h: data[:, k] for k, h in enumerate(header)}
    np.testing.assert_allclose(col["measure:t"], col["t"])
    np.testing.assert_allclose(col["measure:angle"], col["q:link[0]"])
    np.testing.assert_allclose(col["measure:bob height"], PIVOT - np.cos(col["q:link[0]"]))
    np.testing.assert_allclose(col["measure:ramp"], 1.0 + 0.25 * col["t"], rtol=1e-9)
