"""prescribed_and_springs.json (Simbody 3.7): per-force contributions of the springs,
dampers and gravity. Motions and locks are not built: each element's forces and energy are
functions of the stored (t, q, u), which already hold the prescribed values."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Stage
from tests.engine.reference_data import load_reference, reference_available
from tests.engine.reference_models import build

pytestmark = pytest.mark.skipif(
    not reference_available("prescribed_and_springs"),
    reason="shared/reference/prescribed_and_springs.json not present",
)


def _close(actual, expected, tol=1e-10):
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    scale = max(1.0, float(np.max(np.abs(expected))) if expected.size else 1.0)
    assert np.max(np.abs(actual - expected), initial=0.0) <= tol * scale, (actual, expected)


def _cases():
    if not reference_available("prescribed_and_springs"):
        return []
    case = load_reference("prescribed_and_springs")
    return [(m["name"], k) for m in case["models"] for k in range(len(m["samples"]))]


@pytest.fixture(scope="module")
def models():
    built = {}
    for m in load_reference("prescribed_and_springs")["models"]:
        built[m["name"]] = (m, build(m["model"], motions=False))
    return built


@pytest.mark.parametrize(("name", "k"), _cases())
def test_per_force_contributions_match_simbody(models, name, k):
    model, ref = models[name]
    system, elements = ref.system, ref.elements
    sample = model["samples"][k]
    state = ref.new_state(sample["state"])
    system.realize(state, Stage.Dynamics)
    out = sample["outputs"]
    for element, ref in zip(elements, out["per_force"], strict=True):
        body, _, mobility = element.calcForceContribution(state)
        _close(body.reshape(-1, 6), ref["body_forces_G"])
        _close(mobility, ref["mobility_forces"])
        _close(element.calcPotentialEnergyContribution(state), ref["potential_energy"])
    _close(system.calcPotentialEnergy(state), out["potential_energy"])
    _close(system.getMobilityForces(state), out["applied_mobility_forces"])
    _close(system.getRigidBodyForces(state).reshape(-1, 6), out["applied_body_forces_G"])
    _close(system.calcKineticEnergy(state), out["kinetic_energy"])
