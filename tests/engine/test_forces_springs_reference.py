"""prescribed_and_springs.json (Simbody 3.7): per-force contributions of the springs,
dampers and gravity. Motions and locks are not built: each element's forces and energy are
functions of the stored (t, q, u), which already hold the prescribed values."""

from __future__ import annotations

import pytest

from engine import Stage
from tests.engine.close import assert_close
from tests.engine.reference_data import load_reference, reference_available, sample_cases
from tests.engine.reference_models import build

pytestmark = pytest.mark.skipif(
    not reference_available("prescribed_and_springs"),
    reason="shared/reference/prescribed_and_springs.json not present",
)


@pytest.fixture(scope="module")
def models():
    built = {}
    for m in load_reference("prescribed_and_springs")["models"]:
        built[m["name"]] = (m, build(m["model"], motions=False))
    return built


@pytest.mark.parametrize(("name", "k"), sample_cases("prescribed_and_springs"))
def test_per_force_contributions_match_simbody(models, name, k):
    model, ref = models[name]
    system, elements = ref.system, ref.elements
    sample = model["samples"][k]
    state = ref.new_state(sample["state"])
    system.realize(state, Stage.Dynamics)
    out = sample["outputs"]
    for element, ref in zip(elements, out["per_force"], strict=True):
        body, _, mobility = element.calcForceContribution(state)
        assert_close(body.reshape(-1, 6), ref["body_forces_G"])
        assert_close(mobility, ref["mobility_forces"])
        assert_close(element.calcPotentialEnergyContribution(state), ref["potential_energy"])
    assert_close(system.calcPotentialEnergy(state), out["potential_energy"])
    assert_close(system.getMobilityForces(state), out["applied_mobility_forces"])
    assert_close(system.getRigidBodyForces(state).reshape(-1, 6), out["applied_body_forces_G"])
    assert_close(system.calcKineticEnergy(state), out["kinetic_energy"])
