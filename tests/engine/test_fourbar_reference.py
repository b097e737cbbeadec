"""Constraints against ../shared/reference/fourbar.json (Simbody 3.7).

Four models (Rod four-bar, RUSR loop whose Ball has a moving ancestor, a Rod +
ConstantSpeed + ConstantAcceleration chain, and a zoo of the other constraint types),
each at assembled and at raw (constraint-violating) states. Every deterministic
output must match to 1e-10 relative to the size of the quantity; System.project is
iterative and is checked by the properties of its result.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import Stage
from tests.engine.close import assert_close
from tests.engine.reference_data import load_reference, model_by_name, sample_cases
from tests.engine.reference_models import build

REF = load_reference("fourbar")

CASES = sample_cases("fourbar")

_BUILT: dict = {}


def _model(name: str):
    return model_by_name(REF, name)


def _system(name: str):
    if name not in _BUILT:
        built = build(_model(name)["model"])
        _BUILT[name] = (built.system, built.matter, built.constraints)
    return _BUILT[name]


def _state(name: str, i: int, stage=Stage.Acceleration):
    system, matter, constraints = _system(name)
    sample = _model(name)["samples"][i]
    state = system.realizeTopology()
    system.realizeModel(state)
    state.setTime(sample["state"]["t"])
    state.setQ(sample["state"]["q"])
    state.setU(sample["state"]["u"])
    system.realize(state, stage)
    return system, matter, constraints, state, sample


@pytest.mark.parametrize(("name", "i"), CASES)
def test_counts_and_error_vectors(name, i):
    _, matter, constraints, state, sample = _state(name, i)
    out = sample["outputs"]
    counts = out["counts"]
    assert state.getNQErr() == counts["nqerr"]
    assert state.getNUErr() == counts["nuerr"]
    assert state.getNUDotErr() == counts["nudoterr"]
    assert state.getNMultipliers() == counts["nmultipliers"]
    assert matter.getNumQuaternionsInUse(state) == counts["getNumQuaternionsInUse"]
    assert matter.getNumPositionConstraintEquationsInUse(state) == counts["mp"]
    assert matter.getNumVelocityConstraintEquationsInUse(state) == counts["mv"]
    assert matter.getNumAccelerationConstraintEquationsInUse(state) == counts["ma"]
    for c, want in zip(constraints, counts["per_constraint_mp_mv_ma"], strict=True):
        assert list(c.getNumConstraintEquationsInUse(state)) == want
    desc = _model(name)["model"]["constraints"]
    for c, d in zip(constraints, desc, strict=True):
        assert list(c.getIndexOfMultipliersInUse(state)) == d["multiplier_start_p_v_a"]
        bodies = [
            c.getMobilizedBodyFromConstrainedBody(k).getMobilizedBodyIndex()
            for k in range(c.getNumConstrainedBodies())
        ]
        assert bodies == d["constrained_bodies"]
        mobilizers = [
            c.getMobilizedBodyFromConstrainedMobilizer(k).getMobilizedBodyIndex()
            for k in range(c.getNumConstrainedMobilizers())
        ]
        assert mobilizers == d["constrained_mobilizers"]
        if d["ancestor_body"] is not None:
            assert c.getAncestorMobilizedBody().getMobilizedBodyIndex() == d["ancestor_body"]
    assert_close(state.getQErr(), out["qErr"], "qErr", reshape=True)
    assert_close(state.getUErr(), out["uErr"], "uErr", reshape=True)
    assert_close(state.getUDotErr(), out["udotErr"], "udotErr", reshape=True)
    assert_close(state.getUDot(), out["udot"], "udot", reshape=True)
    assert_close(state.getQDot(), out["qdot"], "qdot", reshape=True)
    assert_close(state.getMultipliers(), out["multipliers"], "multipliers", reshape=True)
    assert_close(
        matter.getConstraintMultipliers(state), out["multipliers"], "multipliers", reshape=True
    )
    bodies = [matter.getMobilizedBody(b) for b in range(matter.getNumBodies())]
    A = np.array([mb.getBodyAcceleration(state) for mb in bodies])
    assert_close(A.reshape(-1, 6), out["A_GB"], "A_GB", reshape=True)


@pytest.mark.parametrize(("name", "i"), CASES)
def test_constraint_matrices_and_operators(name, i):
    _, matter, _, state, sample = _state(name, i)
    out, inp = sample["outputs"], sample["inputs"]
    mp = out["counts"]["mp"]
    assert_close(matter.calcG(state), out["G"], "G", reshape=True)
    assert_close(matter.calcGTranspose(state), np.asarray(out["G"]).T, "G^T", reshape=True)
    assert_close(matter.calcP(state), out["P"], "P", reshape=True)
    assert_close(matter.calcPt(state), np.asarray(out["P"]).T, "P^T", reshape=True)
    assert_close(matter.calcPq(state), out["Pq"], "Pq", reshape=True)
    assert_close(matter.calcPqTranspose(state), np.asarray(out["Pq"]).T, "Pq^T", reshape=True)
    W = matter.calcProjectedMInv(state)
    assert_close(W, out["projected_MInv_G_MInv_GT"], "G M^-1 G^T", reshape=True)
    bG = matter.calcBiasForMultiplyByG(state)
    assert_close(bG, out["bias_for_multiply_by_G"], "bias for multiplyByG", reshape=True)
    assert_close(
        matter.calcBiasForAccelerationConstraints(state),
        out["bias_for_acceleration_constraints"],
        "bias for acceleration constraints",
        reshape=True,
    )
    bPq = matter.calcBiasForMultiplyByPq(state)
    assert_close(bPq, out["bias_for_multiply_by_Pq"], "bias for multiplyByPq", reshape=True)
    assert_close(matter.multiplyByG(state, inp["x_u"]), out["G_times_x_u"], "G x", reshape=True)
    assert_close(
        matter.multiplyByG(state, inp["x_u"], bG), out["G_times_x_u"], "G x (bias)", reshape=True
    )
    assert_close(
        matter.multiplyByGTranspose(state, inp["lambda_test"]),
        out["GT_times_lambda_test"],
        "G^T lambda",
        reshape=True,
    )
    assert_close(matter.multiplyByPq(state, inp["y_q"]), out["Pq_times_y_q"], "Pq y", reshape=True)
    assert_close(
        matter.multiplyByPq(state, inp["y_q"], bPq),
        out["Pq_times_y_q"],
        "Pq y (bias)",
        reshape=True,
    )
    assert_close(
        matter.multiplyByPqTranspose(state, inp["lambda_test"][:mp]),
        out["PqT_times_lambda_test_first_mp"],
        "Pq^T lambda_p",
        reshape=True,
    )
    assert_close(
        matter.calcConstraintAccelerationErrors(state, inp["udot_test"]),
        out["constraint_acceleration_errors_for_udot_test"],
        "acceleration errors",
        reshape=True,
    )
    assert_close(
        matter.solveForConstraintImpulses(state, inp["deltaV_test"]),
        out["constraint_impulses_for_deltaV_test"],
        "constraint impulses",
        reshape=True,
    )
    F, f = matter.calcConstraintForcesFromMultipliers(state, inp["lambda_test"])
    assert F.shape == (matter.getNumBodies(), 2, 3)
    assert_close(
        F.reshape(-1, 6), out["constraint_body_forces_G_for_lambda_test"], "F(lambda)", reshape=True
    )
    assert_close(f, out["constraint_mobility_forces_for_lambda_test"], "f(lambda)", reshape=True)


@pytest.mark.parametrize(("name", "i"), CASES)
def test_forward_and_inverse_dynamics_with_constraints(name, i):
    _, matter, _, state, sample = _state(name, i)
    out, inp = sample["outputs"], sample["inputs"]
    F = np.reshape(inp["body_forces_test_G"], (-1, 2, 3))
    f = inp["mobility_forces_test"]
    residual = matter.calcResidualForce(state, f, F, inp["udot_test"], inp["lambda_test"])
    assert_close(residual, out["residual_force_for_test_inputs"], "calcResidualForce", reshape=True)
    udot, A = matter.calcAcceleration(state, f, F)
    assert_close(
        udot, out["calcAcceleration_udot_for_test_forces"], "calcAcceleration", reshape=True
    )
    # The constrained accelerations satisfy the acceleration constraints.
    assert np.max(np.abs(matter.calcConstraintAccelerationErrors(state, udot))) < 1e-9
    assert_close(
        A.reshape(-1, 6),
        matter.calcBodyAccelerationFromUDot(state, udot).reshape(-1, 6),
        "A",
        reshape=True,
    )
    udot0, _ = matter.calcAccelerationIgnoringConstraints(state, f, F)
    assert_close(
        udot0,
        out["calcAccelerationIgnoringConstraints_udot_for_test_forces"],
        "unconstrained",
        reshape=True,
    )
    reactions = matter.calcMobilizerReactionForces(state)
    assert_close(
        reactions.reshape(-1, 6),
        out["mobilizer_reaction_forces_at_M_in_G"],
        "reactions",
        reshape=True,
    )


@pytest.mark.parametrize(("name", "i"), CASES)
def test_constraint_forces_power_and_per_constraint_outputs(name, i):
    _, matter, constraints, state, sample = _state(name, i)
    out = sample["outputs"]
    F, f = matter.findConstraintForces(state)
    assert_close(
        F.reshape(-1, 6), out["constraint_body_forces_G"], "findConstraintForces F", reshape=True
    )
    assert_close(f, out["constraint_mobility_forces"], "findConstraintForces f", reshape=True)
    assert_close(
        matter.calcConstraintPower(state), out["constraint_power"], "constraint power", reshape=True
    )
    # Sign convention: J^T F + f = G^T lambda.
    lam = matter.getConstraintMultipliers(state)
    assert_close(
        matter.multiplyBySystemJacobianTranspose(state, F) + f,
        matter.multiplyByGTranspose(state, lam),
        "J^T F + f = G^T lambda",
        reshape=True,
    )
    for pc in out["per_constraint"]:
        c = constraints[pc["index"]]
        what = f"constraint {pc['index']} ({c.TYPE_NAME})"
        assert_close(
            c.getPositionErrorsAsVector(state), pc["position_errors"], what + " perr", reshape=True
        )
        assert_close(
            c.getVelocityErrorsAsVector(state), pc["velocity_errors"], what + " verr", reshape=True
        )
        assert_close(
            c.getAccelerationErrorsAsVector(state),
            pc["acceleration_errors"],
            what + " aerr",
            reshape=True,
        )
        assert_close(
            c.getMultipliersAsVector(state), pc["multipliers"], what + " multipliers", reshape=True
        )
        Fc, fc = c.getConstraintForcesAsVectors(state)
        want = np.reshape(pc["constrained_body_forces_G"], (-1, 6))
        assert_close(Fc.reshape(-1, 6), want, what + " body forces", reshape=True)
        assert_close(fc, pc["constrained_mobility_forces"], what + " mobility forces", reshape=True)
        assert_close(c.calcPower(state), pc["power"], what + " power", reshape=True)


@pytest.mark.parametrize(("name", "i"), CASES)
def test_disabling_all_constraints(name, i):
    system, matter, constraints, state, sample = _state(name, i)
    want = sample["all_constraints_disabled"]
    for c in constraints:
        c.disable(state)
    assert state.getSystemStage().getName() == sample["stage_after_setConstraintIsDisabled"]
    assert all(c.isDisabled(state) for c in constraints)
    system.realize(state, Stage.Acceleration)
    counts = want["counts"]
    assert state.getNQErr() == counts["nqerr"]
    assert state.getNUErr() == counts["nuerr"]
    assert state.getNMultipliers() == counts["nmultipliers"]
    for c, n in zip(constraints, counts["per_constraint_mp_mv_ma"], strict=True):
        assert list(c.getNumConstraintEquationsInUse(state)) == n
        assert c.getMultipliersAsVector(state).size == 0
    assert_close(state.getUDot(), want["udot"], "udot, constraints disabled", reshape=True)
    assert_close(state.getQErr(), want["qErr"], "qErr, constraints disabled", reshape=True)
    assert_close(state.getMultipliers(), want["multipliers"], "multipliers, disabled", reshape=True)
    # Re-enabling restores the constrained solution.
    for c in constraints:
        c.enable(state)
    system.realize(state, Stage.Acceleration)
    assert_close(state.getUDot(), sample["outputs"]["udot"], "udot, re-enabled", reshape=True)


PROJECT_CASES = [
    pytest.param(m["name"], i, id=f"{m['name']}-{i}")
    for m in REF["models"]
    for i, s in enumerate(m["samples"])
    if "project" in s
]


@pytest.mark.parametrize(("name", "i"), PROJECT_CASES)
def test_project_from_perturbed_state(name, i):
    system, matter, _, _, sample = _state(name, i)
    p = sample["project"]
    state = system.realizeTopology()
    system.realizeModel(state)
    state.setTime(sample["state"]["t"])
    state.setQ(p["q_before"])
    state.setU(p["u_before"])
    system.realize(state, Stage.Velocity)
    mp = len(p["qErr_before"]) - matter.getNumQuaternionsInUse(state)
    assert_close(state.getQErr()[:mp], p["qErr_before"][:mp], "qErr before", reshape=True)
    assert_close(state.getUErr(), p["uErr_before"], "uErr before", reshape=True)
    nq_calls, nu_calls = system.getNumProjectQCalls(), system.getNumProjectUCalls()
    system.project(state, p["accuracy"])
    assert system.getNumProjectQCalls() == nq_calls + 1
    assert system.getNumProjectUCalls() == nu_calls + 1
    assert state.getSystemStage() >= Stage.Velocity
    assert np.sqrt(np.mean(state.getQErr() ** 2)) <= p["accuracy"]
    assert np.sqrt(np.mean(state.getUErr() ** 2)) <= p["accuracy"]
    # The weighted least-squares q change lands where Simbody's did when there are no
    # quaternions (whose q weights are implementation specific).
    if matter.getNumQuaternionsInUse(state) == 0:
        assert np.max(np.abs(state.getQ() - p["q_after"])) < 1e-8
