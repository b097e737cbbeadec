"""forces.json (Simbody 3.7, model force_zoo): every force element, one by one and summed."""

from __future__ import annotations

import pytest

from engine import Stage
from tests.engine.close import assert_close
from tests.engine.reference_data import load_reference, model_by_name, reference_available
from tests.engine.reference_models import build

pytestmark = pytest.mark.skipif(
    not reference_available("forces"), reason="shared/reference/forces.json not present"
)


@pytest.fixture(scope="module")
def zoo():
    model = model_by_name(load_reference("forces"), "force_zoo")
    return model, build(model["model"])


def _samples():
    if not reference_available("forces"):
        return []
    return list(range(len(model_by_name(load_reference("forces"), "force_zoo")["samples"])))


def test_layout_matches_reference(zoo):
    model, built = zoo
    system, forces = built.system, built.forces
    counts = model["system_counts"]
    state = system.realizeTopology()
    system.realizeModel(state)
    assert state.getNQ() == counts["nQ"]
    assert state.getNU() == counts["nU"]
    assert state.getNZ() == counts["nZ"]
    sub = counts["subsystems"][3]
    assert forces.getMySubsystemIndex() == sub["index"]
    assert forces.getNZ(state) == sub["nz"]
    assert_close(state.getZ(), model["model"]["default_state"]["z"])


@pytest.mark.parametrize("k", _samples())
def test_each_force_element_matches_simbody(zoo, k):
    model, built = zoo
    sample = model["samples"][k]
    state = built.new_state(sample["state"])
    built.system.realize(state, Stage.Acceleration)
    out = sample["outputs"]
    for element, ref in zip(built.elements, out["per_force"], strict=True):
        assert element.getForceIndex() == ref["force_index"]
        body, particles, mobility = element.calcForceContribution(state)
        assert particles.shape == (0, 3)
        assert_close(body.reshape(-1, 6), ref["body_forces_G"])
        assert_close(mobility, ref["mobility_forces"])
        assert_close(element.calcPotentialEnergyContribution(state), ref["potential_energy"])


@pytest.mark.parametrize("k", _samples())
def test_totals_zdot_and_udot_match_simbody(zoo, k):
    model, built = zoo
    system = built.system
    sample = model["samples"][k]
    state = built.new_state(sample["state"])
    system.realize(state, Stage.Acceleration)
    out = sample["outputs"]
    assert_close(system.getMobilityForces(state), out["applied_mobility_forces"])
    assert_close(system.getRigidBodyForces(state).reshape(-1, 6), out["applied_body_forces_G"])
    assert_close(system.calcPotentialEnergy(state), out["potential_energy"])
    assert_close(system.calcKineticEnergy(state), out["kinetic_energy"])
    assert_close(system.calcEnergy(state), out["potential_energy"] + out["kinetic_energy"])
    assert_close(state.getZDot(), out["zdot"])
    assert_close(state.getUDot(), out["udot"])
    assert_close(state.getQDot(), out["qdot"])


def test_linear_stop_samples_cover_below_inside_and_above(zoo):
    """The reference samples put the stop's q below, inside and above its range; each
    regime's force sign and energy follow from the formulas and match Simbody."""
    model, built = zoo
    spec = model["model"]["forces"][8]
    stop = built.elements[8]
    regimes = set()
    for sample in model["samples"]:
        state = built.new_state(sample["state"])
        built.system.realize(state, Stage.Velocity)
        q = built.mobods[spec["body"]].getOneQ(state, spec["which_q"])
        _, _, f = stop.calcForceContribution(state)
        u_index = int(built.matter._topo().us[spec["body"]])
        if q > spec["q_high"]:
            regimes.add("above")
            assert f[u_index] <= 0
        elif q < spec["q_low"]:
            regimes.add("below")
            assert f[u_index] >= 0
        else:
            regimes.add("inside")
            assert f[u_index] == 0 and stop.calcPotentialEnergyContribution(state) == 0
    assert regimes == {"below", "inside", "above"}
