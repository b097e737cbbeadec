"""prescribed_and_springs.json (Simbody 3.7): Motions (Sinusoid at Position, Velocity and
Acceleration level, Steady) and locks (lockAt Position and Velocity), with System.prescribe.

Each sample is rebuilt from the model description with its Motions and locks, the state
before prescribe is loaded, the position motion errors are compared, System.prescribe must
reproduce the stored state, and after realize(Acceleration) every deterministic output is
compared to 1e-10 relative: index lists, kinematics, udot, motion multipliers / forces /
power / errors, M, the free-mobility M^-1 (explicit and times a vector), the bias forces,
the system Jacobian, the mobilizer reactions, and the equation M udot + tau = f - bias.
The per-force spring/damper/gravity parts are in test_forces_springs_reference.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import Motion, Stage
from tests.engine.close import assert_close
from tests.engine.reference_data import (
    decode_transform,
    load_reference,
    reference_available,
    sample_cases,
)
from tests.engine.reference_models import build

pytestmark = pytest.mark.skipif(
    not reference_available("prescribed_and_springs"),
    reason="shared/reference/prescribed_and_springs.json not present",
)


@pytest.fixture(scope="module")
def models():
    built = {}
    for m in load_reference("prescribed_and_springs")["models"]:
        built[m["name"]] = (m, build(m["model"]))
    return built


def _prescribed_state(models, name, k):
    model, built = models[name]
    sample = model["samples"][k]
    state = built.new_state(sample["state_before_prescribe"])
    built.system.realize(state, Stage.Model)
    built.apply_locks(state)
    return model, built.system, built.matter, built.mobods, sample, state


@pytest.mark.parametrize(("name", "k"), sample_cases("prescribed_and_springs"))
def test_prescribe_sets_the_reference_state(models, name, k):
    model, system, matter, mobods, sample, state = _prescribed_state(models, name, k)
    system.realize(state, Stage.Time)
    assert_close(
        matter.calcMotionErrors(state, Stage.Position),
        sample["motion_errors_position_before_prescribe"],
        "motion errors before prescribe",
    )
    system.prescribe(state)
    assert state.getSystemStage() >= Stage.Position
    assert_close(state.getQ(), sample["state"]["q"], "q", tol=1e-14)
    assert_close(state.getU(), sample["state"]["u"], "u", tol=1e-14)
    # System-level free lists are the matter's (the only subsystem with q and u).
    out = sample["outputs"]
    np.testing.assert_array_equal(system.getFreeQIndex(state), out["free_q_index"])
    np.testing.assert_array_equal(system.getFreeUIndex(state), out["free_u_index"])


@pytest.mark.parametrize(("name", "k"), sample_cases("prescribed_and_springs"))
def test_outputs_match_simbody(models, name, k):
    model, system, matter, mobods, sample, state = _prescribed_state(models, name, k)
    system.prescribe(state)
    system.realize(state, Stage.Acceleration)
    out = sample["outputs"]
    nb, nu = len(mobods), state.getNU()

    np.testing.assert_array_equal(matter.getFreeQIndex(state), out["free_q_index"])
    np.testing.assert_array_equal(matter.getFreeUIndex(state), out["free_u_index"])
    np.testing.assert_array_equal(matter.getFreeUDotIndex(state), out["free_udot_index"])
    np.testing.assert_array_equal(matter.getKnownUDotIndex(state), out["known_udot_index"])
    assert_close(matter.packFreeU(state, state.getU()), out["packFreeU_of_u"], "packFreeU")
    assert [int(mb.isLocked(state)) for mb in mobods[1:]] == out["isLocked_per_body_1_to_nb"]
    levels = [Motion.nameOfLevel(mb.getLockLevel(state)) for mb in mobods[1:]]
    assert levels == out["lock_level_per_body_1_to_nb"]

    for b in range(nb):
        R, p = decode_transform(out["X_GB"][b])
        X = mobods[b].getBodyTransform(state)
        assert_close(X.R().asMat33(), R, f"X_GB[{b}].R")
        assert_close(X.p(), p, f"X_GB[{b}].p")
        R, p = decode_transform(out["X_FM"][b])
        X = mobods[b].getMobilizerTransform(state)
        assert_close(X.R().asMat33(), R, f"X_FM[{b}].R")
        assert_close(X.p(), p, f"X_FM[{b}].p")
    assert_close(
        [mb.getBodyVelocity(state) for mb in mobods], np.reshape(out["V_GB"], (nb, 2, 3)), "V_GB"
    )
    assert_close(
        [mb.getMobilizerVelocity(state) for mb in mobods],
        np.reshape(out["V_FM"], (nb, 2, 3)),
        "V_FM",
    )
    assert_close(
        [mb.getBodyAcceleration(state) for mb in mobods],
        np.reshape(out["A_GB"], (nb, 2, 3)),
        "A_GB",
    )
    assert_close(state.getQDot(), out["qdot"], "qdot")
    assert_close(state.getUDot(), out["udot"], "udot")

    assert_close(matter.getMotionMultipliers(state), out["motion_multipliers"], "tau")
    assert_close(matter.findMotionForces(state), out["motion_forces"], "motion forces")
    assert_close(matter.calcMotionPower(state), out["motion_power"], "motion power")
    for stage, key in (
        (Stage.Position, "motion_errors_position"),
        (Stage.Velocity, "motion_errors_velocity"),
        (Stage.Acceleration, "motion_errors_acceleration"),
    ):
        assert_close(matter.calcMotionErrors(state, stage), out[key], key)

    M = matter.calcM(state)
    assert_close(M, out["M"], "M")
    assert_close(matter.calcMInv(state), out["MInv_free_part"], "M^-1 (free part)")
    assert_close(
        matter.multiplyByMInv(state, sample["inputs"]["v_for_MInv"]),
        out["MInv_times_v"],
        "M^-1 v (free part)",
    )
    zero_F = np.zeros((nb, 2, 3))
    bias = matter.calcResidualForceIgnoringConstraints(state, np.zeros(nu), zero_F, np.zeros(nu))
    assert_close(bias, out["bias_mobility_forces"], "bias")
    assert_close(matter.calcSystemJacobian(state), out["system_jacobian"], "J")
    assert_close(
        matter.calcMobilizerReactionForces(state),
        np.reshape(out["mobilizer_reaction_forces_at_M_in_G"], (nb, 2, 3)),
        "reactions",
    )
    assert_close(
        matter.calcMobilizerReactionForcesUsingFreebodyMethod(state),
        np.reshape(out["mobilizer_reaction_forces_at_M_in_G"], (nb, 2, 3)),
        "reactions (free-body method)",
    )

    # M udot + tau = f_applied - bias, f_applied = f + J^T F (the reference's statement).
    f_applied = np.asarray(
        out["applied_mobility_forces"]
    ) + matter.multiplyBySystemJacobianTranspose(
        state, np.reshape(out["applied_body_forces_G"], (nb, 2, 3))
    )
    lhs = M @ np.asarray(out["udot"]) + np.asarray(out["motion_forces"])
    assert_close(
        lhs, f_applied - np.asarray(out["bias_mobility_forces"]), "M udot + tau = f - bias"
    )


@pytest.mark.parametrize(("name", "k"), sample_cases("prescribed_and_springs"))
def test_free_mobility_minv_is_the_inverse_of_the_free_block(models, name, k):
    """calcMInv restricted to free mobilities = inverse of the free-free block of calcM."""
    model, system, matter, mobods, sample, state = _prescribed_state(models, name, k)
    system.prescribe(state)
    free = matter.getFreeUDotIndex(state)
    M = matter.calcM(state)
    expected = np.zeros_like(M)
    expected[np.ix_(free, free)] = np.linalg.inv(M[np.ix_(free, free)])
    assert_close(matter.calcMInv(state), expected, "M_ff^-1", tol=1e-12)
