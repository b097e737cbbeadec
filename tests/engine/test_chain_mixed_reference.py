"""chain_mixed.json (Simbody 3.7) through SimbodyMatterSubsystem's public operators.

Every output of every sample of both models (tree_basic, more_mobilizers) is compared to
1e-10 relative. The operator tests replay Simbody's applied forces (chain_mixed_model.py) so
that they test the matter subsystem alone; one test builds the models' own force elements
(potential energy, end to end). ``mobilizer_coriolis_acceleration``, which the README calls
informative only, agrees too and is compared. pendulum.json adds the reaction
forces as felt by the parent at Fo.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import Stage
from tests.engine.chain_mixed_model import build_replayed
from tests.engine.close import assert_close
from tests.engine.reference_data import load_reference, reference_available, sample_index_cases
from tests.engine.reference_models import build

pytestmark = pytest.mark.skipif(
    not reference_available("chain_mixed"), reason="reference data not found"
)


def _cases():
    return sample_index_cases("chain_mixed")


_BUILT: dict = {}


def realized(model_index: int, sample_index: int):
    """(matter, mobods, system, state realized to Acceleration, sample, tasks)."""
    model = load_reference("chain_mixed")["models"][model_index]
    if model_index not in _BUILT:
        _BUILT[model_index] = build_replayed(model["model"])
    built, replay = _BUILT[model_index]
    sample = model["samples"][sample_index]
    replay.replay(sample["outputs"])
    state = built.new_state(sample["state"])
    built.system.realize(state, Stage.Acceleration)
    return built.matter, built.mobods, built.system, state, sample, model["tasks"]


@pytest.mark.parametrize(("mi", "si"), _cases())
def test_kinematics_and_state_derivatives(mi, si):
    matter, mobods, system, state, sample, _ = realized(mi, si)
    out = sample["outputs"]
    nb = matter.getNumBodies()
    for b in range(nb):
        X = mobods[b].getBodyTransform(state)
        assert_close(X.R().asMat33().reshape(-1), out["X_GB"][b]["R"], f"X_GB[{b}].R", reshape=True)
        assert_close(X.p(), out["X_GB"][b]["p"], f"X_GB[{b}].p", reshape=True)
        X = mobods[b].getMobilizerTransform(state)
        assert_close(X.R().asMat33().reshape(-1), out["X_FM"][b]["R"], f"X_FM[{b}].R", reshape=True)
        assert_close(X.p(), out["X_FM"][b]["p"], f"X_FM[{b}].p", reshape=True)
    assert_close(
        [mobods[b].getBodyVelocity(state) for b in range(nb)], out["V_GB"], "V_GB", reshape=True
    )
    assert_close(
        [mobods[b].getMobilizerVelocity(state) for b in range(nb)],
        out["V_FM"],
        "V_FM",
        reshape=True,
    )
    assert_close(
        [mobods[b].getBodyAcceleration(state) for b in range(nb)], out["A_GB"], "A_GB", reshape=True
    )
    assert_close(
        system.getRigidBodyForces(state),
        out["applied_body_forces_G"],
        "applied body forces",
        reshape=True,
    )
    assert_close(
        system.getMobilityForces(state),
        out["applied_mobility_forces"],
        "mobility forces",
        reshape=True,
    )
    assert_close(state.getUDot(), out["udot"], "udot", reshape=True)
    assert_close(state.getQDot(), out["qdot"], "qdot", reshape=True)
    assert_close(state.getQDotDot(), out["qdotdot"], "qdotdot", reshape=True)
    assert_close(
        matter.calcKineticEnergy(state), out["kinetic_energy"], "kinetic energy", reshape=True
    )


@pytest.mark.parametrize(("mi", "si"), _cases())
def test_n_operators(mi, si):
    matter, _, _, state, sample, _ = realized(mi, si)
    out, inp = sample["outputs"], sample["inputs"]
    x_u, y_q = inp["x_u"], inp["y_q"]
    assert_close(matter.calcQDot(state, x_u), out["calcQDot_of_x_u"], "calcQDot", reshape=True)
    assert_close(
        matter.calcQDotDot(state, inp["udot_test"]),
        out["calcQDotDot_of_udot_test"],
        "qdd",
        reshape=True,
    )
    assert_close(matter.multiplyByN(state, False, x_u), out["N_times_x_u"], "N x", reshape=True)
    assert_close(matter.multiplyByN(state, True, y_q), out["NT_times_y_q"], "N^T y", reshape=True)
    assert_close(
        matter.multiplyByNInv(state, False, y_q), out["NInv_times_y_q"], "NInv y", reshape=True
    )
    assert_close(
        matter.multiplyByNInv(state, True, x_u), out["NInvT_times_x_u"], "NInv^T x", reshape=True
    )
    assert_close(
        matter.multiplyByNDot(state, False, x_u), out["NDot_times_x_u"], "NDot x", reshape=True
    )
    assert_close(
        matter.multiplyByNDot(state, True, y_q), out["NDotT_times_y_q"], "NDot^T y", reshape=True
    )


@pytest.mark.parametrize(("mi", "si"), _cases())
def test_mass_matrix_operators(mi, si):
    matter, _, _, state, sample, _ = realized(mi, si)
    out, inp = sample["outputs"], sample["inputs"]
    assert_close(matter.calcM(state), out["M"], "M", reshape=True)
    assert_close(matter.calcMInv(state), out["MInv"], "MInv", reshape=True)
    assert_close(matter.multiplyByM(state, inp["a_for_M"]), out["M_times_a"], "M a", reshape=True)
    assert_close(
        matter.multiplyByMInv(state, inp["v_for_MInv"]), out["MInv_times_v"], "MInv v", reshape=True
    )


@pytest.mark.parametrize(("mi", "si"), _cases())
def test_system_station_and_frame_jacobians(mi, si):
    matter, _, _, state, sample, tasks = realized(mi, si)
    out, inp = sample["outputs"], sample["inputs"]
    nb = matter.getNumBodies()
    x_u = inp["x_u"]
    assert_close(matter.calcSystemJacobian(state), out["system_jacobian"], "J", reshape=True)
    assert_close(
        matter.calcBiasForSystemJacobian(state), out["system_jacobian_bias"], "JDot u", reshape=True
    )
    assert_close(
        matter.multiplyBySystemJacobian(state, x_u),
        out["system_jacobian_times_x_u"],
        "J x",
        reshape=True,
    )
    F = np.array(inp["body_forces_test_G"], dtype=float).reshape(nb, 2, 3)
    assert_close(
        matter.multiplyBySystemJacobianTranspose(state, F),
        out["system_jacobian_transpose_times_body_forces_test"],
        "J^T F",
        reshape=True,
    )
    sb, ss = tasks["station_bodies"], tasks["stations_B"]
    assert_close(
        matter.calcStationJacobian(state, sb, ss), out["station_jacobian"], "JS", reshape=True
    )
    assert_close(
        matter.calcBiasForStationJacobian(state, sb, ss),
        out["station_jacobian_bias"],
        "JSDu",
        reshape=True,
    )
    assert_close(
        matter.multiplyByStationJacobian(state, sb, ss, x_u),
        out["station_jacobian_times_x_u"],
        "JS x",
        reshape=True,
    )
    assert_close(
        matter.multiplyByStationJacobianTranspose(state, sb, ss, inp["station_forces_test_G"]),
        out["station_jacobian_transpose_times_station_forces_test"],
        "JS^T f",
        reshape=True,
    )
    fb, fo = tasks["frame_bodies"], tasks["frame_origins_B"]
    assert_close(matter.calcFrameJacobian(state, fb, fo), out["frame_jacobian"], "JF", reshape=True)
    assert_close(
        matter.calcBiasForFrameJacobian(state, fb, fo),
        out["frame_jacobian_bias"],
        "JFDot u",
        reshape=True,
    )
    assert_close(
        matter.multiplyByFrameJacobian(state, fb, fo, x_u),
        out["frame_jacobian_times_x_u"],
        "JF x",
        reshape=True,
    )
    F_tasks = np.array(inp["frame_forces_test_G"], dtype=float).reshape(-1, 2, 3)
    assert_close(
        matter.multiplyByFrameJacobianTranspose(state, fb, fo, F_tasks),
        out["frame_jacobian_transpose_times_frame_forces_test"],
        "JF^T F",
        reshape=True,
    )
    # the single-task overloads give the same rows
    for k, (b, s) in enumerate(zip(sb, ss, strict=True)):
        assert_close(
            matter.calcStationJacobian(state, b, s),
            out["station_jacobian"][3 * k : 3 * k + 3],
            "",
            reshape=True,
        )
        assert_close(
            matter.calcBiasForStationJacobian(state, b, s),
            out["station_jacobian_bias"][k],
            "",
            reshape=True,
        )
        assert_close(
            matter.multiplyByStationJacobian(state, b, s, x_u),
            out["station_jacobian_times_x_u"][k],
            "",
            reshape=True,
        )
    for k, (b, s) in enumerate(zip(fb, fo, strict=True)):
        assert_close(
            matter.calcFrameJacobian(state, b, s),
            out["frame_jacobian"][6 * k : 6 * k + 6],
            "",
            reshape=True,
        )
        assert_close(
            matter.calcBiasForFrameJacobian(state, b, s),
            out["frame_jacobian_bias"][k],
            "",
            reshape=True,
        )
        assert_close(
            matter.multiplyByFrameJacobian(state, b, s, x_u),
            out["frame_jacobian_times_x_u"][k],
            "",
            reshape=True,
        )


@pytest.mark.parametrize(("mi", "si"), _cases())
def test_inverse_and_forward_dynamics(mi, si):
    matter, _, system, state, sample, _ = realized(mi, si)
    out, inp = sample["outputs"], sample["inputs"]
    nb = matter.getNumBodies()
    f_app = system.getMobilityForces(state)
    F_app = system.getRigidBodyForces(state)
    udot_test = inp["udot_test"]
    # Simbody's residual output is for the state's applied forces and udot_test
    assert_close(
        matter.calcResidualForceIgnoringConstraints(state, f_app, F_app, udot_test),
        out["residual_force_for_udot_test"],
        "residual",
        reshape=True,
    )
    assert_close(
        matter.calcResidualForce(state, f_app, F_app, udot_test, []),
        out["residual_force_for_udot_test"],
        "calcResidualForce",
        reshape=True,
    )
    assert_close(
        matter.calcResidualForce(state, [], [], [], []),
        out["residual_force_zero_udot_no_applied"],
        "bias",
        reshape=True,
    )
    assert_close(
        matter.calcResidualForce(state, [], [], [], []),
        out["bias_mobility_forces"],
        "bias",
        reshape=True,
    )
    f = inp["mobility_forces_test"]
    F = np.array(inp["body_forces_test_G"], dtype=float).reshape(nb, 2, 3)
    udot, A = matter.calcAcceleration(state, f, F)
    assert_close(
        udot, out["calcAcceleration_udot_for_test_forces"], "calcAcceleration udot", reshape=True
    )
    assert_close(
        A, out["calcAcceleration_A_GB_for_test_forces"], "calcAcceleration A_GB", reshape=True
    )
    udot_ic, _ = matter.calcAccelerationIgnoringConstraints(state, f, F)
    assert_close(
        udot_ic,
        out["calcAccelerationIgnoringConstraints_udot_for_test_forces"],
        "ignoring",
        reshape=True,
    )
    assert_close(
        matter.calcTreeEquivalentMobilityForces(state, F),
        out["tree_equivalent_mobility_forces_for_body_forces_test"],
        "tree-equivalent forces",
        reshape=True,
    )
    assert_close(
        matter.calcBodyAccelerationFromUDot(state, udot_test),
        out["body_acceleration_from_udot_test"],
        "A from udot",
        reshape=True,
    )


@pytest.mark.parametrize(("mi", "si"), _cases())
def test_inertias_and_velocity_terms(mi, si):
    matter, _, _, state, sample, _ = realized(mi, si)
    out = sample["outputs"]
    nb = matter.getNumBodies()
    cbis = matter.calcCompositeBodyInertias(state)
    for b in range(nb):
        ref = out["composite_body_inertias"][b]
        for got in (cbis[b], matter.getCompositeBodyInertia(state, b)):
            if b == 0:  # infinite; Simbody's products and couplings are inf*0 = NaN, ours 0
                assert got.getMass() == ref["mass"] == np.inf
                assert np.all(got.calcInertia().getMoments() == np.inf)
                assert np.all(np.diag(got.toSpatialMat()) == np.diag(ref["spatial_inertia_matrix"]))
                assert np.all(np.isfinite(got.toSpatialMat()[~np.eye(6, dtype=bool)]))
                assert_close(
                    got.getMassCenter(),
                    ref["mass_center_from_body_origin_G"],
                    "G com",
                    reshape=True,
                )
                continue
            assert_close(got.getMass(), ref["mass"], f"CBI[{b}] mass", reshape=True)
            assert_close(
                got.getMassCenter(),
                ref["mass_center_from_body_origin_G"],
                f"CBI[{b}] com",
                reshape=True,
            )
            inertia = got.calcInertia()
            assert_close(
                np.r_[inertia.getMoments(), inertia.getProducts()],
                ref["inertia_about_body_origin_G"],
                f"CBI[{b}] inertia",
                reshape=True,
            )
            assert_close(
                got.toSpatialMat(), ref["spatial_inertia_matrix"], f"CBI[{b}] matrix", reshape=True
            )
        if b == 0:
            assert out["articulated_body_inertias"][0] is None
            continue
        assert_close(
            matter.getArticulatedBodyInertia(state, b).toSpatialMat(),
            out["articulated_body_inertias"][b],
            f"ABI[{b}]",
            reshape=True,
        )
        assert_close(
            matter.getTotalCoriolisAcceleration(state, matter.getMobilizedBody(b)),
            out["total_coriolis_acceleration"][b],
            f"total Coriolis[{b}]",
            reshape=True,
        )
        assert_close(
            matter.getGyroscopicForce(state, matter.getMobilizedBody(b)),
            out["gyroscopic_force"][b],
            f"gyroscopic[{b}]",
            reshape=True,
        )
        assert_close(
            matter.getTotalCentrifugalForces(state, b),
            out["total_centrifugal_forces"][b],
            f"centrifugal[{b}]",
            reshape=True,
        )
    # README: "informative only" (not cross-checked by the generator); ours agrees anyway
    mobilizer = [matter.getMobilizerCoriolisAcceleration(state, m) for m in matter._mobods]
    assert_close(
        mobilizer, out["mobilizer_coriolis_acceleration"], "mobilizer Coriolis", reshape=True
    )


@pytest.mark.parametrize(("mi", "si"), _cases())
def test_reaction_forces(mi, si):
    matter, _, _, state, sample, _ = realized(mi, si)
    out = sample["outputs"]
    ref = out["mobilizer_reaction_forces_at_M_in_G"]
    assert_close(matter.calcMobilizerReactionForces(state), ref, "reactions (ABI)", reshape=True)
    assert_close(
        matter.calcMobilizerReactionForcesUsingFreebodyMethod(state),
        ref,
        "reactions (free)",
        reshape=True,
    )


@pytest.mark.parametrize(("mi", "si"), _cases())
def test_mass_properties_and_momentum(mi, si):
    matter, _, _, state, sample, _ = realized(mi, si)
    out = sample["outputs"]
    assert_close(matter.calcSystemMass(state), out["system_mass"], "mass", reshape=True)
    assert_close(
        matter.calcSystemMassCenterLocationInGround(state),
        out["system_mass_center_G"],
        "com",
        reshape=True,
    )
    mp = matter.calcSystemMassPropertiesInGround(state)
    ref = out["system_mass_properties_G"]
    assert_close(mp.getMass(), ref["mass"], "system mass", reshape=True)
    assert_close(mp.getMassCenter(), ref["mass_center"], "system com", reshape=True)
    inertia = mp.getInertia()
    assert_close(
        np.r_[inertia.getMoments(), inertia.getProducts()],
        ref["inertia_about_ground_origin"],
        "I_O",
        reshape=True,
    )
    central = matter.calcSystemCentralInertiaInGround(state)
    assert_close(
        np.r_[central.getMoments(), central.getProducts()],
        out["system_central_inertia_G"],
        "I_C",
        reshape=True,
    )
    assert_close(
        matter.calcSystemMassCenterVelocityInGround(state),
        out["system_mass_center_velocity_G"],
        "v_C",
        reshape=True,
    )
    assert_close(
        matter.calcSystemMassCenterAccelerationInGround(state),
        out["system_mass_center_acceleration_G"],
        "a_C",
        reshape=True,
    )
    assert_close(
        matter.calcSystemMomentumAboutGroundOrigin(state),
        out["system_momentum_about_ground_origin"],
        "momentum about O",
        reshape=True,
    )
    assert_close(
        matter.calcSystemCentralMomentum(state),
        out["system_central_momentum"],
        "central momentum",
        reshape=True,
    )


TESTED_OUTPUTS = {
    "X_GB", "X_FM", "V_GB", "V_FM", "A_GB", "applied_mobility_forces", "applied_body_forces_G",
    "udot", "qdot", "qdotdot", "calcQDot_of_x_u", "calcQDotDot_of_udot_test", "N_times_x_u",
    "NT_times_y_q", "NInv_times_y_q", "NInvT_times_x_u", "NDot_times_x_u", "NDotT_times_y_q",
    "M", "MInv", "M_times_a", "MInv_times_v", "system_jacobian", "system_jacobian_bias",
    "system_jacobian_times_x_u", "system_jacobian_transpose_times_body_forces_test",
    "station_jacobian", "station_jacobian_bias", "station_jacobian_times_x_u",
    "station_jacobian_transpose_times_station_forces_test", "frame_jacobian",
    "frame_jacobian_bias", "frame_jacobian_times_x_u",
    "frame_jacobian_transpose_times_frame_forces_test", "residual_force_for_udot_test",
    "residual_force_zero_udot_no_applied", "bias_mobility_forces",
    "calcAcceleration_udot_for_test_forces", "calcAcceleration_A_GB_for_test_forces",
    "calcAccelerationIgnoringConstraints_udot_for_test_forces", "composite_body_inertias",
    "articulated_body_inertias", "total_coriolis_acceleration", "gyroscopic_force",
    "total_centrifugal_forces", "mobilizer_reaction_forces_at_M_in_G", "system_mass",
    "mobilizer_coriolis_acceleration", "potential_energy",
    "system_mass_center_G", "system_mass_properties_G", "system_central_inertia_G",
    "system_mass_center_velocity_G", "system_mass_center_acceleration_G",
    "system_momentum_about_ground_origin", "system_central_momentum", "kinetic_energy",
    "tree_equivalent_mobility_forces_for_body_forces_test", "body_acceleration_from_udot_test",
}  # fmt: skip


def test_every_output_is_compared():
    case = load_reference("chain_mixed")
    for model in case["models"]:
        for sample in model["samples"]:
            names = set(sample["outputs"])
            assert names == TESTED_OUTPUTS, names ^ TESTED_OUTPUTS


@pytest.mark.parametrize(("mi", "si"), _cases())
def test_with_the_models_own_force_elements(mi, si):
    """End to end: the model's force elements (not replayed forces) give Simbody's applied
    forces, potential energy, accelerations and reactions."""
    model = load_reference("chain_mixed")["models"][mi]
    key = ("real", mi)
    if key not in _BUILT:
        _BUILT[key] = build(model["model"])
    built = _BUILT[key]
    system, matter = built.system, built.matter
    sample = model["samples"][si]
    out = sample["outputs"]
    state = built.new_state(sample["state"])
    system.realize(state, Stage.Acceleration)
    assert_close(
        system.getRigidBodyForces(state), out["applied_body_forces_G"], "body forces", reshape=True
    )
    assert_close(
        system.getMobilityForces(state),
        out["applied_mobility_forces"],
        "mobility forces",
        reshape=True,
    )
    assert_close(
        system.calcPotentialEnergy(state), out["potential_energy"], "potential energy", reshape=True
    )
    assert_close(state.getUDot(), out["udot"], "udot", reshape=True)
    assert_close(
        matter.calcMobilizerReactionForces(state),
        out["mobilizer_reaction_forces_at_M_in_G"],
        "reactions",
        reshape=True,
    )


# ---------------------------------------------------------------- pendulum.json
def test_pendulum_reaction_forces_at_M_and_on_parent_at_F():
    case = load_reference("pendulum")
    model = case["models"][0]
    built, replay = build_replayed(model["model"])
    system, matter, mobods = built.system, built.matter, built.mobods
    for sample in model["samples"]:
        replay.replay(sample["outputs"])
        state = built.new_state(sample["state"])
        system.realize(state, Stage.Acceleration)
        out = sample["outputs"]
        for method in (
            matter.calcMobilizerReactionForces,
            matter.calcMobilizerReactionForcesUsingFreebodyMethod,
        ):
            R = method(state)
            assert_close(
                R, out["mobilizer_reaction_forces_at_M_in_G"], method.__name__, reshape=True
            )
            on_parent = np.empty_like(R)
            for b, mobod in enumerate(mobods):
                X_GB = mobod.getBodyTransform(state)
                p_Mo = X_GB.p() + X_GB.R().asMat33() @ mobod.getDefaultOutboardFrame().p()
                if b == 0:
                    p_Fo = p_Mo
                else:
                    X_GP = mobod.getParentMobilizedBody().getBodyTransform(state)
                    p_Fo = X_GP.p() + X_GP.R().asMat33() @ mobod.getDefaultInboardFrame().p()
                T, f = R[b]
                on_parent[b] = -np.array([T + np.cross(p_Mo - p_Fo, f), f])
            assert_close(
                on_parent,
                out["mobilizer_reaction_on_parent_at_F_in_G"],
                "on parent at F",
                reshape=True,
            )
