"""system.calcPotentialEnergy on a State realized only to Position stage, as in Simbody: the
reference models' energies (gravity, springs, bushings, stops) from positions alone."""

from __future__ import annotations

import pytest

from engine import Stage, StageTooLowError
from tests.engine.close import assert_close
from tests.engine.reference_data import load_reference, reference_available
from tests.engine.reference_models import build

CASES = ("forces", "prescribed_and_springs", "chain_mixed", "pendulum")


def _models():
    return [
        pytest.param(case, mi, id=f"{case}-{m['name']}")
        for case in CASES
        if reference_available(case)
        for mi, m in enumerate(load_reference(case)["models"])
        if m.get("samples")
    ]


@pytest.mark.parametrize(("case", "mi"), _models())
def test_position_stage_energy_equals_simbody(case, mi):
    model = load_reference(case)["models"][mi]
    built = build(model["model"])
    for sample in model["samples"]:
        state = built.new_state(sample["state"])
        built.apply_locks(state)
        built.system.realize(state, Stage.Position)
        assert state.getSystemStage() == Stage.Position
        pe = built.system.calcPotentialEnergy(state)
        assert_close(pe, sample["outputs"]["potential_energy"], "PE at Position")
        assert state.getSystemStage() == Stage.Position  # asking did not realize further
        built.system.realize(state, Stage.Dynamics)
        assert built.system.calcPotentialEnergy(state) == pytest.approx(pe, rel=1e-14, abs=1e-14)


def test_below_position_is_refused_naming_the_stage():
    model = load_reference("forces")["models"][0]
    built = build(model["model"])
    state = built.new_state(model["samples"][0]["state"])
    built.system.realize(state, Stage.Time)
    with pytest.raises(StageTooLowError, match="Position"):
        built.system.calcPotentialEnergy(state)


def _compliant_samples():
    if not reference_available("contact"):
        return []
    from tests.engine.contact_models import contact_model

    samples = contact_model("compliant_zoo")["samples"]
    return [pytest.param(k, id=s["kind"]) for k, s in enumerate(samples)]


@pytest.mark.parametrize("k", _compliant_samples())
def test_position_stage_energy_with_compliant_contact(k):
    """Gravity (GeneralForceSubsystem) plus CompliantContactSubsystem at Position stage: the
    system total is Simbody's potential_energy_position_stage."""
    from tests.engine.contact_models import build_compliant, contact_model

    case = contact_model("compliant_zoo")
    built = build_compliant(case["model"])
    sample = case["samples"][k]
    state = built.ref.new_state(sample["state"])
    built.ref.system.realize(state, Stage.Position)
    assert_close(
        built.ref.system.calcPotentialEnergy(state),
        sample["outputs"]["potential_energy_position_stage"],
        "PE at Position",
        1e-9,
    )
