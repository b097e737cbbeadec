"""assembler.json (Simbody 3.7's Assembler) through our Assembler, loops closed by
user-written assembly conditions (numerical Jacobians).

Assembly is not unique, so each run is checked by its properties (README.md of the
reference): requirements met to tolerance, goals stationary on the constraint manifold
(projected gradient ~ 0, computed here independently by finite differences), the goal
value, and q_final where the solution is unambiguous or on the same branch.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import AssembleFailedError, Stage
from engine.assembler import Assembler, Markers, QValue
from tests.engine.assembler_fixtures import (
    Evaluator,
    loop_errors,
    projected_gradient,
    station_G,
    user_loop_condition,
)
from tests.engine.reference_data import load_reference
from tests.engine.reference_models import add_constraint, build_tree

CASE = load_reference("assembler")
RUNS = [(m["name"], r["label"]) for m in CASE["models"] for r in m["runs"]]

# Runs whose answer is unique near the start (1-dof loop; or every dof fixed by the
# requirements / goals): q must equal Simbody's q_final.
SAME_POINT = {
    ("fourbar_rod", label)
    for label in (
        "i_loop_only",
        "i_loop_only_default_settings",
        "ii_qvalue_requirement_adoptAssemblyError",
        "ii_qvalue_requirement_weight_infinity",
        "ii_lock_mobilizer",
        "iii_qvalue_goal_weight_1",
        "iv_conflicting_goals",
        "iv_conflicting_goals_weighted",
    )
} | {("rusr_ball_moving_base", "v_markers_goal")}


def _model(name):
    return next(m for m in CASE["models"] if m["name"] == name)


def _run(model, label):
    return next(r for r in model["runs"] if r["label"] == label)


def _setup(name, label, loop="user condition"):
    """Build the run's model and Assembler; the loop is closed by a user-written
    assembly condition or (``loop="constraint"``) by the System's own Constraint, which
    the Assembler then treats as a requirement by itself."""
    model = _model(name)
    run = _run(model, label)
    system, matter, mobods = build_tree(model["model"])
    constraint = model["model"]["constraints"][0]
    if loop == "constraint":
        add_constraint(matter, mobods, constraint)
    asm = Assembler(system)
    asm.setAccuracy(run["accuracy_in_use"]).setErrorTolerance(run["error_tolerance_in_use"])
    if loop != "constraint":
        asm.adoptAssemblyError(user_loop_condition(constraint))
    qvalues = []
    for qv in run["qvalue_conditions"]:
        c = QValue(qv["body"], qv["mobilizer_q_index"], qv["value"])
        if qv["adopted_as"] == "adoptAssemblyError":
            asm.adoptAssemblyError(c)
        else:
            asm.adoptAssemblyGoal(c, qv["weight"])
        qvalues.append((c, qv))
    markers = None
    if run["markers"]:
        markers = Markers()
        for m in run["markers"]["list"]:
            markers.addMarker(m["body"], m["station"], m["weight"])
        asm.adoptAssemblyGoal(markers, run["markers"]["weight"])
        for ox, m in enumerate(run["markers"]["list"]):
            markers.moveOneObservation(ox, m["observation_G"])
    for b in run["locked_mobilizers"]:
        asm.lockMobilizer(b)
    state = system.realizeTopology()
    state.setQ(run["q_start"])
    return model, run, system, matter, asm, state, constraint, qvalues, markers


def _independent_goal(ev, matter, run):
    """The run's goal from the reference's own formulas, as a function of q."""

    def goal(q):
        s = ev.at(q)
        total = 0.0
        for qv in run["qvalue_conditions"]:
            if qv["weight"] != math.inf:
                b = matter.getMobilizedBody(qv["body"])
                e = b.getOneQ(s, qv["mobilizer_q_index"]) - qv["value"]
                total += qv["weight"] * e * e / 2
        if run["markers"]:
            ms = run["markers"]["list"]
            w = np.array([m["weight"] for m in ms])
            d2 = [
                np.sum((station_G(matter, s, m["body"], m["station"]) - m["observation_G"]) ** 2)
                for m in ms
            ]
            total += run["markers"]["weight"] * float(w @ d2) / (2 * w.sum())
        return total

    return goal


def _independent_requirements(ev, matter, run, constraint):
    def req(q):
        s = ev.at(q)
        errs = [loop_errors(matter, s, constraint)]
        for qv in run["qvalue_conditions"]:
            if qv["weight"] == math.inf:
                b = matter.getMobilizedBody(qv["body"])
                errs.append([b.getOneQ(s, qv["mobilizer_q_index"]) - qv["value"]])
        return np.concatenate(errs)

    return req


@pytest.mark.parametrize("loop", ["user condition", "constraint"])
@pytest.mark.parametrize(("name", "label"), RUNS)
def test_assembler_run_matches_simbody_properties(name, label, loop):
    model, run, system, matter, asm, state, constraint, qvalues, markers = _setup(name, label, loop)
    if loop == "constraint":
        system.realize(state, Stage.Position)
        np.testing.assert_allclose(state.getQErr(), run["qErr_start"], atol=1e-12)
    returned = asm.assemble(state)
    q = np.array(state.getQ())
    tol = run["error_tolerance_in_use"]
    ev = Evaluator(system, matter)
    req = _independent_requirements(ev, matter, run, constraint)

    # (a, b) requirements (loop closure and QValue requirements) met to tolerance.
    assert np.max(np.abs(req(q))) <= tol
    assert asm.calcCurrentErrorNorm() <= tol
    # Locked mobilizers did not move.
    for b in run["locked_mobilizers"]:
        qs = model["model"]["bodies"][b]["q_start"]
        assert q[qs] == run["q_start"][qs]
    # The returned value is the goal at the result; it agrees with Simbody's.
    goal = _independent_goal(ev, matter, run)
    assert returned == pytest.approx(goal(q), rel=1e-9, abs=1e-20)
    assert asm.calcCurrentGoal() == pytest.approx(returned, rel=1e-12, abs=1e-30)
    assert returned == pytest.approx(run["assemble_return_value"], rel=1e-7, abs=1e-18)
    # (c) goals stationary on the constraint manifold (over the free q).
    locked = {model["model"]["bodies"][b]["q_start"] for b in run["locked_mobilizers"]}
    free = [i for i in range(q.size) if i not in locked]
    assert asm.getNumFreeQs() == run["num_free_q"] == len(free)
    pg = projected_gradient(goal, req, q, free)
    assert np.max(np.abs(pg), initial=0.0) <= 1e-7
    # (d) the same point as Simbody where the answer is unambiguous ...
    if (name, label) in SAME_POINT:
        np.testing.assert_allclose(q, run["q_final"], atol=1e-7, rtol=0)
    elif loop == "constraint":
        # Newton on Simbody's own Pq (not the exact derivative of the Ball's errors away
        # from assembly) follows Simbody's path: the same point to within its tolerance.
        np.testing.assert_allclose(q, run["q_final"], atol=1e-5, rtol=0)
    else:  # ... otherwise no farther from the start than Simbody's answer.
        ours = np.linalg.norm(q - run["q_start"])
        theirs = np.linalg.norm(np.array(run["q_final"]) - run["q_start"])
        assert ours <= 1.01 * theirs
    # QValue conditions report what the reference reports at the result.
    for (c, qv), expected in zip(qvalues, run["qvalue_final"], strict=True):
        status, err = c.calcErrors(asm.getInternalState())
        assert status == 0
        assert err[0] == pytest.approx(expected["calcErrors"][0], abs=1e-8)
        assert c.calcGoal(asm.getInternalState())[1] == pytest.approx(
            expected["calcGoal"], rel=1e-6, abs=1e-18
        )
        assert c.getValue() == qv["value"]
    if markers is not None:
        np.testing.assert_allclose(
            [markers.findCurrentMarkerError(i) for i in range(markers.getNumMarkers())],
            run["marker_errors_final"],
            rtol=1e-7,
        )
        assert markers.calcGoal(asm.getInternalState())[1] == pytest.approx(
            run["markers_calcGoal_final"], rel=1e-8
        )
    if loop == "constraint":  # the System's own view of the result
        system.realize(state, Stage.Position)
        assert np.max(np.abs(state.getQErr())) <= tol
        np.testing.assert_allclose(matter.calcPq(state), run["Pq_at_final"], atol=1e-4)
    # One assembly step; the evaluation counters moved.
    assert asm.getNumAssemblySteps() == 1
    assert asm.getNumErrorEvals() > 0 and asm.getNumGoalEvals() > 0


@pytest.mark.parametrize("loop", ["user condition", "constraint"])
def test_same_branch_runs_of_the_spatial_loop_agree_with_simbody(loop):
    """QValue(crank) as a requirement and as a goal of weight 1 both pin the crank and
    leave one dof; starting from the same pose we land on Simbody's point."""
    for label in ("ii_qvalue_requirement_weight_infinity", "iii_qvalue_goal_weight_1"):
        _, run, _, _, asm, state, *_ = _setup("rusr_ball_moving_base", label, loop)
        asm.assemble(state)
        np.testing.assert_allclose(state.getQ(), run["q_final"], atol=1e-6)


def test_system_constraint_jacobian_is_the_analytic_pq():
    """With real constraints the Assembler's requirement Jacobian (BuiltInConstraints,
    from calcPq) equals central differences of the State's qErr on the constraint
    manifold (at an assembled pose; away from it Simbody's Pq of a Ball is not the exact
    derivative of its errors)."""
    from engine.assembler.assembly_solver import AssemblySolver

    for name in ("fourbar_rod", "rusr_ball_moving_base"):
        model = _model(name)
        run = model["runs"][0]
        system, matter, mobods = build_tree(model["model"])
        add_constraint(matter, mobods, model["model"]["constraints"][0])
        asm = Assembler(system)
        state = system.realizeTopology()
        state.setQ(run["q_final"])
        asm.initialize(state)
        solver = AssemblySolver(asm)
        x = solver.get_x()
        analytic = solver.jacobian(x)
        asm.setForceNumericalJacobian(True)
        numeric = solver.jacobian(x)
        np.testing.assert_allclose(analytic, numeric, atol=1e-8)
        assert asm.getAssemblyCondition(0).calcErrorJacobian(asm.getInternalState())[0] == 0


def test_failure_names_the_violated_constraint_and_the_conflicting_qvalues():
    """Crank and rocker angles that the rod cannot join: AssembleFailed names the System
    constraints with the Rod (index, bodies, error) and both QValue requirements."""
    model, run, system, matter, asm, state, *_ = _setup("fourbar_rod", "i_loop_only", "constraint")
    asm.adoptAssemblyError(QValue(1, 0, 1.5))
    asm.adoptAssemblyError(QValue(2, 0, 0.3))
    before = np.array(state.getQ())
    with pytest.raises(AssembleFailedError) as info:
        asm.assemble(state)
    msg = str(info.value)
    assert "condition 0 'System constraints'" in msg
    assert "Constraint.Rod 0 (bodies [1, 2]): position errors [" in msg
    assert "(q 0 of body 1 = 1.5)" in msg and "(q 0 of body 2 = 0.3)" in msg
    np.testing.assert_array_equal(state.getQ(), before)


@pytest.mark.parametrize("loop", ["user condition", "constraint"])
@pytest.mark.parametrize("name", ["fourbar_rod", "rusr_ball_moving_base"])
def test_assembles_from_random_starting_poses(name, loop):
    rng = np.random.default_rng(11)
    model, run, system, matter, asm, state, constraint, *_ = _setup(name, "i_loop_only", loop)
    ev = Evaluator(system, matter)
    for _ in range(8):
        q0 = rng.uniform(-np.pi, np.pi, size=len(run["q_start"]))
        state.setQ(q0)
        asm.assemble(state)
        assert np.max(np.abs(loop_errors(matter, ev.at(state.getQ()), constraint))) <= 1e-12
