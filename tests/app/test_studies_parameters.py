"""--set / --perturb parsing, parameter paths into the model document and the run plan."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from app.studies.parameters import (
    ParameterError,
    ParameterPath,
    Perturbation,
    Sweep,
    apply_values,
    fill_default_state,
    parse_values,
    plan_runs,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


@pytest.fixture
def model() -> dict:
    raw = json.loads((EXAMPLES / "double_pendulum.mbs.json").read_text())["model"]
    return raw


def test_values_ranges_lists_and_single_values():
    assert parse_values("1:5:9") == tuple(np.linspace(1, 5, 9))
    assert parse_values("1:5:9")[-1] == 5.0
    assert parse_values("0.1,0.2") == (0.1, 0.2)
    assert parse_values("-3") == (-3.0,)
    assert parse_values("2:7:1") == (2.0,)
    for bad, words in [
        ("", "no values"),
        ("1:2", "START:STOP:COUNT"),
        ("1:2:x", "whole number"),
        ("1:2:0", "at least 1"),
        ("a,b", "'a' is not a number"),
        ("nan", "finite"),
    ]:
        with pytest.raises(ParameterError, match=words):
            parse_values(bad)


def test_sweep_and_perturbation_texts():
    s = Sweep.parse("upper.mass=1:5:9")
    assert s.path.text == "upper.mass" and len(s.values) == 9
    p = Perturbation.parse("lower.q0~normal(0,1e-6)")
    assert (p.path.text, p.distribution, p.args) == ("lower.q0", "normal", (0.0, 1e-6))
    u = Perturbation.parse("gravity.magnitude~uniform(-0.1, 0.1)")
    assert u.distribution == "uniform" and u.args == (-0.1, 0.1)
    with pytest.raises(ParameterError, match="PATH=VALUES"):
        Sweep.parse("upper.mass")
    with pytest.raises(ParameterError, match="normal\\(MEAN,STD\\)"):
        Perturbation.parse("lower.q0~gauss(0,1)")
    with pytest.raises(ParameterError, match="two numbers"):
        Perturbation.parse("lower.q0~normal(0)")
    with pytest.raises(ParameterError, match="standard deviation"):
        Perturbation.parse("lower.q0~normal(0,-1)")
    with pytest.raises(ParameterError, match="LOW <= HIGH"):
        Perturbation.parse("lower.q0~uniform(1,0)")
    with pytest.raises(ParameterError, match="BODY.FIELD"):
        ParameterPath.parse("mass")


def test_paths_name_bodies_elements_and_json_keys(model):
    def resolve(text):
        return ParameterPath.parse(text).resolve(model)

    lower = [b["name"] for b in model["bodies"]].index("lower")
    assert resolve("upper.mass") == ("bodies", 0, "mass")
    assert resolve("lower.q0") == ("bodies", lower, "q", 0)
    assert resolve("lower.q[0]") == ("bodies", lower, "q", 0)
    assert resolve("upper.com1") == ("bodies", 0, "com", 1)
    assert resolve("lower.X_PF.p[1]") == ("bodies", lower, "X_PF", "p", 1)
    assert resolve("gravity.magnitude") == ("forces", 0, "args", "magnitude")
    assert resolve("forces[0].args.magnitude") == ("forces", 0, "args", "magnitude")
    assert resolve("hints.time_scale") == ("hints", "time_scale")


def test_bad_paths_say_what_exists(model):
    cases = [
        ("middle.mass", "no body or named element 'middle'.*bodies: upper, lower"),
        ("upper.weight", "does not exist.*there is: name, parent"),
        ("upper.com", "not a number"),
        ("upper.com[3]", "out of range"),
        ("upper.q5", "out of range"),
        ("upper.name", "not a number"),
        ("lower.u0", "does not exist"),  # the file leaves u to the mobilizer's default
    ]
    for text, words in cases:
        with pytest.raises(ParameterError, match=words):
            ParameterPath.parse(text).resolve(model)
    filled = fill_default_state(model, {"lower": ([-0.5], [0.0])})
    assert ParameterPath.parse("lower.u0").resolve(filled)[-2:] == ("u", 0)
    assert "u" not in model["bodies"][1]  # fill_default_state copies


def test_plan_is_the_cartesian_product_first_set_slowest(model):
    runs = plan_runs(
        model, [Sweep.parse("upper.mass=1:3:3"), Sweep.parse("lower.q0=0.1,0.2")], [], 1, 0
    )
    assert [r.run for r in runs] == list(range(6))
    assert [(r.values["upper.mass"], r.values["lower.q0"]) for r in runs] == [
        (1.0, 0.1),
        (1.0, 0.2),
        (2.0, 0.1),
        (2.0, 0.2),
        (3.0, 0.1),
        (3.0, 0.2),
    ]
    changed = apply_values(model, runs[3].values)
    assert changed["bodies"][0]["mass"] == 2.0 and changed["bodies"][1]["q"] == [0.2]
    assert model["bodies"][0]["mass"] == 1.0  # the base model is unchanged


def test_monte_carlo_draws_depend_on_seed_and_run_index_only(model):
    sweeps = [Sweep.parse("gravity.magnitude=9,10")]
    perturb = [Perturbation.parse("lower.q0~normal(0,1e-6)")]
    runs = plan_runs(model, sweeps, perturb, samples=50, seed=42)
    assert len(runs) == 100
    assert [(r.point, r.replicate) for r in runs[49:51]] == [(0, 49), (1, 0)]
    base = model["bodies"][1]["q"][0]
    deltas = np.array([r.deltas["lower.q0"] for r in runs])
    values = np.array([r.values["lower.q0"] for r in runs])
    assert np.array_equal(values, base + deltas)
    assert 0.3e-6 < deltas.std() < 3e-6 and len(set(deltas)) == 100
    again = plan_runs(model, sweeps, perturb, samples=50, seed=42)
    assert [r.values for r in again] == [r.values for r in runs]
    # a run's draw is the same when the study is smaller (it depends on seed and index only)
    small = plan_runs(model, sweeps[:0], perturb, samples=3, seed=42)
    assert [r.deltas for r in small] == [r.deltas for r in runs[:3]]
    other = plan_runs(model, sweeps, perturb, samples=50, seed=43)
    assert other[0].deltas != runs[0].deltas


def test_plan_refuses_repeated_sets_and_unknown_paths(model):
    with pytest.raises(ParameterError, match="given twice"):
        plan_runs(model, [Sweep.parse("upper.mass=1"), Sweep.parse("upper.mass=2")], [])
    with pytest.raises(ParameterError, match="no body or named element 'nobody'"):
        plan_runs(model, [], [Perturbation.parse("nobody.mass~normal(0,1)")])
