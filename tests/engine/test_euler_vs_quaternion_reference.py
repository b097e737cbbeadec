"""euler_vs_quaternion.json (computed by Simbody 3.7) through the full engine: the same state in
quaternion and Euler-angle mode, convertToEulerAngles / convertToQuaternions,
normalizeQuaternions, qErr of unnormalized quaternions, quaternion pool indices, State layout and
every per-mode output (kinematics, N operators, M, udot, energies)."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Stage
from engine.common.exceptions import StageTooLowError
from tests.engine.close import assert_close
from tests.engine.reference_data import load_reference, reference_available
from tests.engine.reference_models import build

pytestmark = pytest.mark.skipif(
    not reference_available("euler_vs_quaternion"), reason="reference data not found"
)

TOL = 1e-10


def build_reference_model(model: dict):
    """(system, matter, mobods) rebuilt from a reference ``model`` entry."""
    built = build(model)
    return built.system, built.matter, built.mobods


def _cases():
    if not reference_available("euler_vs_quaternion"):
        return []
    case = load_reference("euler_vs_quaternion")
    return [(mi, si) for mi, m in enumerate(case["models"]) for si in range(len(m["samples"]))]


@pytest.fixture(scope="module")
def models():
    case = load_reference("euler_vs_quaternion")
    return [(m, build_reference_model(m["model"])) for m in case["models"]]


def _check_mode(system, matter, mobods, state, out, inputs, what: str) -> None:
    """Compare every output of one mode block of a sample (state realized to Acceleration)."""
    nb = matter.getNumBodies()
    assert state.getNQ() == out["state_nq"], what
    assert state.getNU() == out["state_nu"], what
    assert state.getNQErr() == out["state_nqerr"], what
    assert matter.getUseEulerAngles(state) == out["getUseEulerAngles"], what
    assert matter.getNumQuaternionsInUse(state) == out["getNumQuaternionsInUse"], what
    bodies = mobods[1:]
    assert [m.getNumQ(state) for m in bodies] == out["nq_in_use_per_body_1_to_nb"], what
    assert [int(matter._topo().qs[m.getMobilizedBodyIndex()]) for m in bodies] == out[
        "q_start_per_body_1_to_nb"
    ], what
    assert [int(matter.isUsingQuaternion(state, m)) for m in bodies] == out[
        "isUsingQuaternion_per_body_1_to_nb"
    ], what
    assert [matter.getQuaternionPoolIndex(state, m) for m in bodies] == out[
        "quaternion_pool_index_per_body_1_to_nb"
    ], what
    assert_close(state.getQ(), out["q"], f"{what} q")
    assert_close(state.getU(), out["u"], f"{what} u")
    assert_close(state.getQErr(), out["qErr"], f"{what} qErr")
    for b in range(nb):
        X = mobods[b].getBodyTransform(state)
        assert_close(X.R().asMat33().reshape(-1), out["X_GB"][b]["R"], f"{what} X_GB[{b}].R")
        assert_close(X.p(), out["X_GB"][b]["p"], f"{what} X_GB[{b}].p")
        X = mobods[b].getMobilizerTransform(state)
        assert_close(X.R().asMat33().reshape(-1), out["X_FM"][b]["R"], f"{what} X_FM[{b}].R")
        assert_close(X.p(), out["X_FM"][b]["p"], f"{what} X_FM[{b}].p")
        assert_close(
            mobods[b].getBodyVelocity(state).reshape(-1), out["V_GB"][b], f"{what} V_GB[{b}]"
        )
        assert_close(
            mobods[b].getMobilizerVelocity(state).reshape(-1), out["V_FM"][b], f"{what} V_FM[{b}]"
        )
        assert_close(
            mobods[b].getBodyAcceleration(state).reshape(-1), out["A_GB"][b], f"{what} A_GB[{b}]"
        )
    assert_close(state.getQDot(), out["qdot"], f"{what} qdot")
    assert_close(state.getUDot(), out["udot"], f"{what} udot")
    assert_close(state.getQDotDot(), out["qdotdot"], f"{what} qdotdot")
    x_u, y_q = inputs["x_u"], inputs["y_q"]
    assert_close(matter.multiplyByN(state, False, x_u), out["N_times_x_u"], f"{what} N x")
    assert_close(matter.multiplyByN(state, True, y_q), out["NT_times_y_q"], f"{what} N^T y")
    assert_close(matter.multiplyByNInv(state, False, y_q), out["NInv_times_y_q"], f"{what} NInv y")
    assert_close(
        matter.multiplyByNInv(state, True, x_u), out["NInvT_times_x_u"], f"{what} NInv^T x"
    )
    assert_close(matter.multiplyByNDot(state, False, x_u), out["NDot_times_x_u"], f"{what} NDot x")
    assert_close(
        matter.multiplyByNDot(state, True, y_q), out["NDotT_times_y_q"], f"{what} NDot^T y"
    )
    assert_close(matter.calcM(state), out["M"], f"{what} M")
    assert_close(matter.calcKineticEnergy(state), out["kinetic_energy"], f"{what} KE")
    assert_close(system.calcPotentialEnergy(state), out["potential_energy"], f"{what} PE")


def _check_counts(state, counts: dict, what: str) -> None:
    assert state.getNY() == counts["nY"], what
    assert state.getNQ() == counts["nQ"], what
    assert state.getNU() == counts["nU"], what
    assert state.getNZ() == counts["nZ"], what
    assert state.getNYErr() == counts["nYErr"], what
    assert state.getNQErr() == counts["nQErr"], what
    assert state.getNUErr() == counts["nUErr"], what
    assert state.getQErrStart() == counts["qErrStart_in_YErr"], what
    assert state.getUErrStart() == counts["uErrStart_in_YErr"], what


def _realized_sample(system, values: dict):
    """A new quaternion-mode State holding a sample's t, q, u, realized to Acceleration."""
    state = system.realizeTopology()
    system.realizeModel(state)
    state.setTime(values["t"])
    state.setQ(values["q"])
    state.setU(values["u"])
    system.realize(state, Stage.Acceleration)
    return state


@pytest.mark.parametrize(("model_index", "sample_index"), _cases())
def test_quaternion_mode(models, model_index, sample_index):
    entry, (system, matter, mobods) = models[model_index]
    sample = entry["samples"][sample_index]
    state = _realized_sample(system, sample["state"])
    _check_counts(state, entry["system_counts_quaternion_mode"], "quaternion counts")
    _check_mode(
        system, matter, mobods, state, sample["quaternion_mode"], sample["inputs"], "quaternion"
    )


@pytest.mark.parametrize(("model_index", "sample_index"), _cases())
def test_convert_to_euler_angles_and_euler_mode(models, model_index, sample_index):
    entry, (system, matter, mobods) = models[model_index]
    sample = entry["samples"][sample_index]
    state = _realized_sample(system, sample["state"])
    q_before = state.getQ().copy()

    euler = matter.convertToEulerAngles(state)
    raw = sample["after_convertToEulerAngles_raw"]
    assert euler.getSystemStage() == Stage[raw["stage"]]
    assert euler.getTime() == raw["t"]
    assert_close(euler.getQ(), raw["q"], "converted q")
    assert_close(euler.getU(), raw["u"], "converted u (reset to 0)")
    # the input State is untouched
    assert not matter.getUseEulerAngles(state)
    assert np.array_equal(state.getQ(), q_before)

    euler.setU(sample["state"]["u"])  # "u copied from quaternion-mode state"
    system.realize(euler, Stage.Acceleration)
    _check_counts(euler, entry["system_counts_euler_mode"], "Euler counts")
    _check_mode(system, matter, mobods, euler, sample["euler_mode"], sample["inputs"], "Euler")

    back = matter.convertToQuaternions(euler)
    assert not matter.getUseEulerAngles(back)
    assert back.getSystemStage() == Stage.Model
    assert_close(back.getQ(), sample["after_convertToQuaternions"]["q"], "back to quaternions q")
    assert_close(back.getU(), sample["after_convertToQuaternions"]["u"], "back to quaternions u")


@pytest.mark.parametrize(("model_index", "sample_index"), _cases())
def test_unnormalized_quaternions_and_normalize(models, model_index, sample_index):
    entry, (system, matter, mobods) = models[model_index]
    sample = entry["samples"][sample_index]
    out = sample["unnormalized_quaternion_mode"]
    state = system.realizeTopology()
    system.realizeModel(state)
    state.setTime(sample["state"]["t"])
    q = np.array(sample["state"]["q"], dtype=float)
    topo = matter._topo()
    quat_bodies = [b for b in range(1, matter.getNumBodies()) if topo.uses_quaternion[b]]
    for b, factor in zip(quat_bodies, out["quaternion_scale_factors"], strict=True):
        s = int(topo.qs[b])
        q[s : s + 4] *= factor
    assert_close(q, out["q"], "scaled q (test setup)")
    state.setQ(q)
    state.setU(sample["state"]["u"])
    system.realize(state, Stage.Acceleration)
    _check_mode(system, matter, mobods, state, out, sample["inputs"], "unnormalized")

    copied = state.copy()
    assert copied.getSystemStage() == Stage[out["stage_of_copied_state"]]
    assert out["normalizeQuaternions_throws_at_Instance_stage"]
    with pytest.raises(StageTooLowError):
        matter.normalizeQuaternions(copied)
    np.testing.assert_array_equal(copied.getQ(), q)  # nothing changed before the error
    system.realize(copied, Stage.Acceleration)
    matter.normalizeQuaternions(copied)
    assert_close(copied.getQ(), out["q_after_normalizeQuaternions"], "normalized q")
    assert copied.getSystemStage() == Stage[out["stage_after_normalizeQuaternions"]]


def test_conversion_of_an_already_converted_state_is_a_copy(models):
    entry, (system, matter, _) = models[0]
    sample = entry["samples"][0]
    state = system.realizeTopology()
    system.realizeModel(state)
    state.setQ(sample["state"]["q"])
    state.setU(sample["state"]["u"])
    same = matter.convertToQuaternions(state)
    np.testing.assert_array_equal(same.getQ(), state.getQ())
    np.testing.assert_array_equal(same.getU(), state.getU())
    euler = matter.convertToEulerAngles(state)
    again = matter.convertToEulerAngles(euler)
    np.testing.assert_array_equal(again.getQ(), euler.getQ())
    assert matter.getUseEulerAngles(again)


def test_normalize_quaternions_in_euler_mode_changes_nothing(models):
    entry, (system, matter, _) = models[0]
    state = system.realizeTopology()
    matter.setUseEulerAngles(state, True)
    system.realizeModel(state)
    q = np.arange(state.getNQ(), dtype=float) * 0.1
    state.setQ(q)
    system.realize(state, Stage.Time)
    matter.normalizeQuaternions(state)
    np.testing.assert_array_equal(state.getQ(), q)


def test_model_stage_queries_need_model_stage_and_option_drops_to_topology(models):
    entry, (system, matter, mobods) = models[0]
    state = system.realizeTopology()
    system.realizeModel(state)
    assert matter.getQuaternionPoolIndex(state, mobods[3]) == -1  # the Pin has none
    system.realize(state, Stage.Position)
    matter.setUseEulerAngles(state, True)
    assert state.getSystemStage() == Stage.Topology
    with pytest.raises(StageTooLowError):
        matter.getNumQuaternionsInUse(state)
    with pytest.raises(StageTooLowError):
        matter.isUsingQuaternion(state, mobods[1])
    with pytest.raises(StageTooLowError):
        matter.convertToQuaternions(state)
    system.realizeModel(state)
    assert matter.getNumQuaternionsInUse(state) == 0
    system.realize(state, Stage.Instance)
    assert state.getNQ() == 12 and state.getNQErr() == 0


def test_conversion_round_trip_keeps_the_configuration(models):
    """Quaternion -> Euler -> quaternion gives the same body poses (quaternions up to sign)."""
    entry, (system, matter, mobods) = models[1]
    for sample in entry["samples"]:
        state = system.realizeTopology()
        system.realizeModel(state)
        state.setQ(sample["state"]["q"])
        system.realize(state, Stage.Position)
        euler = matter.convertToEulerAngles(state)
        back = matter.convertToQuaternions(euler)
        for s in (euler, back):
            system.realize(s, Stage.Position)
            for m in mobods[1:]:
                assert_close(
                    m.getBodyTransform(s).R().asMat33(),
                    m.getBodyTransform(state).R().asMat33(),
                    "round trip R_GB",
                )
                assert_close(m.getBodyTransform(s).p(), m.getBodyTransform(state).p(), "p_GB")
