"""The pendulum case of ../shared/reference (computed by Simbody 3.7) through our engine."""

from __future__ import annotations

import numpy as np
import pytest

from engine import Stage
from tests.engine.close import assert_close
from tests.engine.reference_data import load_reference
from tests.engine.reference_models import build


def _build(model: dict):
    built = build(model)
    return built.system, built.matter, built.mobods


@pytest.fixture(scope="module")
def pendulum():
    return load_reference("pendulum")["models"][0]


def test_pendulum_matches_simbody(pendulum):
    built = build(pendulum["model"])
    system, matter, mobods = built.system, built.matter, built.mobods
    for sample in pendulum["samples"]:
        state = built.new_state(sample["state"])
        system.realize(state, Stage.Acceleration)
        out = sample["outputs"]
        for b, X in enumerate(out["X_GB"]):
            Xb = mobods[b].getBodyTransform(state)
            assert_close(Xb.R().asMat33().reshape(-1), X["R"])
            assert_close(Xb.p(), X["p"])
        for b, X in enumerate(out["X_FM"]):
            assert_close(mobods[b].getMobilizerTransform(state).p(), X["p"])
        assert_close([mobods[b].getBodyVelocity(state).reshape(-1) for b in range(2)], out["V_GB"])
        assert_close(
            [mobods[b].getMobilizerVelocity(state).reshape(-1) for b in range(2)], out["V_FM"]
        )
        assert_close(
            [mobods[b].getBodyAcceleration(state).reshape(-1) for b in range(2)], out["A_GB"]
        )
        assert_close(state.getQDot(), out["qdot"])
        assert_close(state.getUDot(), out["udot"])
        assert_close(state.getQDotDot(), out["qdotdot"])
        assert_close(matter.calcM(state), out["M"])
        assert_close(matter.calcSystemJacobian(state), out["system_jacobian"])
        assert_close(system.calcKineticEnergy(state), out["kinetic_energy"])
        assert_close(system.calcPotentialEnergy(state), out["potential_energy"])
        assert_close(system.getRigidBodyForces(state).reshape(2, 6), out["applied_body_forces_G"])


def test_forward_dynamics_inverts_inverse_dynamics(pendulum):
    system, matter, mobods = _build(pendulum["model"])
    state = system.realizeTopology()
    state.setQ([0.7])
    state.setU([-1.3])
    system.realize(state, Stage.Acceleration)
    f = system.getMobilityForces(state)
    F = system.getRigidBodyForces(state)
    residual = matter.calcResidualForceIgnoringConstraints(state, f, F, state.getUDot())
    assert_close(residual, np.zeros(1), tol=1e-12)
    assert_close(matter.multiplyByM(state, matter.multiplyByMInv(state, [2.5])), [2.5], tol=1e-12)


def test_asking_too_early_names_the_stages(pendulum):
    system, matter, mobods = _build(pendulum["model"])
    state = system.realizeTopology()
    with pytest.raises(Exception, match="Position.*Model|Model.*Position"):
        mobods[1].getBodyTransform(state)
