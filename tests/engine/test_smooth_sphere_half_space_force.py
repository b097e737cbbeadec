"""SmoothSphereHalfSpaceForce against contact.json (Simbody 3.7, model smooth_sphere_halfspace),
its physics (Newton's third law, a force even when apart) and its argument checks."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import (
    Body,
    GeneralForceSubsystem,
    Inertia,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    NonPhysicalError,
    Rotation,
    SimbodyMatterSubsystem,
    SmoothSphereHalfSpaceForce,
    Stage,
    StageTooLowError,
    Transform,
    ZAxis,
)
from tests.engine.close import assert_close
from tests.engine.contact_hc_models import build_contact_model
from tests.engine.reference_data import load_reference, model_by_name, reference_available

NAME = "smooth_sphere_halfspace"
TOL = 1e-9

needs_reference = pytest.mark.skipif(
    not reference_available("contact"), reason="shared/reference/contact.json not present"
)


def _samples():
    if not reference_available("contact"):
        return []
    case = model_by_name(load_reference("contact"), NAME)
    return [pytest.param(k, id=s["kind"]) for k, s in enumerate(case["samples"])]


@pytest.fixture(scope="module")
def smooth():
    case = model_by_name(load_reference("contact"), NAME)
    return case, build_contact_model(case["model"])


@needs_reference
@pytest.mark.parametrize("k", _samples())
def test_each_element_matches_simbody(smooth, k):
    case, built = smooth
    sample = case["samples"][k]
    state = built.new_state(sample["state"])
    built.system.realize(state, Stage.Acceleration)
    for element, ref in zip(built.elements, sample["outputs"]["per_force"], strict=True):
        assert element.getForceIndex() == ref["force_index"]
        body, _, mobility = element.calcForceContribution(state)
        assert_close(body.reshape(-1, 6), ref["body_forces_G"], "body forces", TOL)
        assert_close(mobility, ref["mobility_forces"], "mobility forces", TOL)
        assert_close(
            element.calcPotentialEnergyContribution(state), ref["potential_energy"], "PE", TOL
        )


@needs_reference
@pytest.mark.parametrize("k", _samples())
def test_totals_and_udot_match_simbody(smooth, k):
    case, built = smooth
    sample = case["samples"][k]
    out = sample["outputs"]
    system = built.system
    state = built.new_state(sample["state"])
    system.realize(state, Stage.Acceleration)
    assert_close(system.getRigidBodyForces(state).reshape(-1, 6), out["applied_body_forces_G"])
    assert_close(system.getMobilityForces(state), out["applied_mobility_forces"], tol=TOL)
    assert_close(system.calcPotentialEnergy(state), out["potential_energy"], tol=TOL)
    assert_close(system.calcKineticEnergy(state), out["kinetic_energy"], tol=TOL)
    assert_close(state.getUDot(), out["udot"], "udot", TOL)
    assert_close(state.getQDot(), out["qdot"], "qdot", TOL)


@needs_reference
def test_potential_energy_at_position_stage_equals_dynamics(smooth):
    """The element's energy depends only on q: Position stage is enough, and equals the
    value Simbody reports at Dynamics."""
    case, built = smooth
    for sample in case["samples"]:
        state = built.new_state(sample["state"])
        built.system.realize(state, Stage.Position)
        assert_close(built.system.calcPotentialEnergy(state), sample["outputs"]["potential_energy"])
        for element, ref in zip(built.elements, sample["outputs"]["per_force"], strict=True):
            assert_close(element.calcPotentialEnergy(state), ref["potential_energy"], tol=TOL)


@needs_reference
def test_samples_cover_contact_and_separation(smooth):
    """The heel's indentation is negative in 'separated' and positive when penetrating; the
    force stays nonzero when apart (the smooth model never switches off) and only a fast
    separation (vn far below -2/(3c)) drives the Hunt-Crossley factor to zero."""
    case, built = smooth
    heel = built.elements[0]
    depths, forces = {}, {}
    for sample in case["samples"]:
        state = built.new_state(sample["state"])
        built.system.realize(state, Stage.Velocity)
        depths[sample["kind"]] = heel._geometry(state)[2]
        forces[sample["kind"]] = np.linalg.norm(heel.calcContactForce(state)[0])
    assert depths["separated"] < 0 < depths["penetrating_at_rest"]
    assert forces["separated"] > 0 and forces["penetrating_at_rest"] > forces["separated"]
    assert forces["fast_separation"] < 1e-12 * forces["penetrating_at_rest"]


# ----------------------------------------------------------------- a small model of our own
def _ball_on_floor(height: float, velocity=(0.0, 0.0, 0.0), spin=(0.0, 0.0, 0.0)):
    """A free ball (radius 0.1) over a Ground half space whose normal is +Y (Simbody's
    documented frame: Rotation(-pi/2, Z)); returns (system, element, ball, state at Velocity)."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    ball = MobilizedBody.Free(
        matter.Ground(), Body.Rigid(MassProperties(1.0, [0, 0, 0], Inertia(0.004)))
    )
    contact = SmoothSphereHalfSpaceForce(forces)
    contact.setParameters(1e6, 0.5, 0.8, 0.6, 0.1, 0.01, 1e-5, 300, 50)
    contact.setContactSphereBody(ball)
    contact.setContactSphereRadius(0.1)
    contact.setContactHalfSpaceBody(matter.Ground())
    contact.setContactHalfSpaceFrame(Transform(Rotation(-0.5 * math.pi, ZAxis), [0, 0, 0]))
    state = system.realizeTopology()
    ball.setQToFitTranslation(state, [0.0, height, 0.0])
    ball.setUToFitLinearVelocity(state, list(velocity))
    ball.setUToFitAngularVelocity(state, list(spin))
    system.realize(state, Stage.Velocity)
    return system, contact, ball, state


def test_third_law_and_direction():
    """The two bodies get equal and opposite forces at one point; the normal force pushes the
    ball up (+Y) and friction opposes the sliding."""
    _, contact, ball, state = _ball_on_floor(0.099, velocity=(0.5, 0.0, 0.0))
    body, _, _ = contact.calcForceContribution(state)
    force, P = contact.calcContactForce(state)
    assert_close(body[0, 1] + body[1, 1], np.zeros(3))
    p_ball = ball.getBodyOriginLocation(state)
    # the net moment (about Ground's origin) vanishes: both forces act at the same point P
    assert_close(body[0, 0] + body[1, 0] + np.cross(p_ball, body[1, 1]), np.zeros(3), tol=1e-12)
    assert_close(body[1, 0], np.cross(P - p_ball, body[1, 1]), tol=1e-12)
    assert body[1, 1][1] > 0  # up on the ball
    assert body[1, 1][0] < 0  # friction against +x sliding
    assert_close(P, [0.0, -0.0005, 0.0], tol=1e-12)


def test_force_is_smooth_and_positive_when_apart():
    """With the ball 5 mm above the floor the force is small but not zero (tanh tail), and it
    grows monotonically as the ball sinks."""
    magnitudes = []
    for h in (0.105, 0.1, 0.099, 0.098):
        _, contact, _, state = _ball_on_floor(h)
        magnitudes.append(np.linalg.norm(contact.calcContactForce(state)[0]))
    assert 0 < magnitudes[0] < magnitudes[1] < magnitudes[2] < magnitudes[3]


def test_potential_energy_formula():
    """PE = (2/5) fh x with Simbody's smoothed Hertz force."""
    _, contact, _, state = _ball_on_floor(0.098)
    x = 0.002
    k = 0.5 * 1e6 ** (2 / 3)
    fh = 4 / 3 * k * math.sqrt(0.1 * k) * (x * x + 1e-5) ** 0.75 * (0.5 + 0.5 * math.tanh(300 * x))
    assert_close(contact.calcPotentialEnergy(state), 0.4 * fh * x, tol=1e-12)


def test_stage_errors():
    system, contact, _, state = _ball_on_floor(0.098)
    state.setQ(state.getQ())  # back to Time stage
    with pytest.raises(StageTooLowError, match="Position"):
        contact.calcPotentialEnergy(state)


def test_bad_input_is_refused():
    system, contact, ball, _ = _ball_on_floor(0.2)
    before = contact.getStiffness()
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(InvalidArgumentError):
            contact.setStiffness(bad)
    with pytest.raises(NonPhysicalError, match="stiffness"):
        contact.setParameters(0, 0.5, 0.8, 0.6, 0.1, 0.01, 1e-5, 300, 50)
    with pytest.raises(NonPhysicalError, match="dissipation"):
        contact.setParameters(1e6, -0.5, 0.8, 0.6, 0.1, 0.01, 1e-5, 300, 50)
    assert contact.getStiffness() == before and contact.getDissipation() == 0.5
    with pytest.raises(NonPhysicalError, match="radius"):
        contact.setContactSphereRadius(-0.1)
    with pytest.raises(InvalidArgumentError, match="radius"):
        contact.setContactSphereRadius(math.nan)
    with pytest.raises(NonPhysicalError, match="transition velocity"):
        contact.setTransitionVelocity(0.0)
    with pytest.raises(InvalidArgumentError, match="Transform"):
        contact.setContactHalfSpaceFrame([0, 0, 0])
    with pytest.raises(InvalidArgumentError, match="MobilizedBody"):
        contact.setContactSphereBody(3)
    with pytest.raises(InvalidArgumentError, match="sphere location"):
        contact.setContactSphereLocationInBody([0, math.nan, 0])
    assert contact.getContactSphereRadius() == 0.1


def test_incomplete_element_refused_at_topology():
    system = MultibodySystem()
    SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    SmoothSphereHalfSpaceForce(forces)
    with pytest.raises(InvalidArgumentError, match="setContactSphereBody"):
        system.realizeTopology()


def test_setters_round_trip():
    _, contact, ball, _ = _ball_on_floor(0.2)
    contact.setHertzSmoothing(100)
    contact.setHuntCrossleySmoothing(20)
    contact.setConstantContactForce(1e-6)
    contact.setContactSphereLocationInBody([0.01, 0, 0])
    assert contact.getHertzSmoothing() == 100
    assert contact.getHuntCrossleySmoothing() == 20
    assert contact.getConstantContactForce() == 1e-6
    assert_close(contact.getContactSphereLocationInBody(), [0.01, 0, 0])
    assert contact.getBodySphere() is ball
    assert contact.getBodyHalfSpace().getMobilizedBodyIndex() == 0
    assert_close(contact.getContactHalfSpaceTransform().x(), [0, -1, 0], tol=1e-15)


@needs_reference
def test_fused_realization_uses_the_compiled_term(smooth):
    """The element has a compiled force term: a model with it realizes Position..Acceleration
    in the one kernel call, gives Simbody's udot there, and agrees with the stage-by-stage
    path (the element's own calcForce)."""
    case, built = smooth
    system = built.system
    fused = system._fused_realization
    for sample in case["samples"]:
        state = built.new_state(sample["state"])
        system.realize(state, Stage.Time)
        assert fused.whyNotFused(state) == ""
        assert fused.whyNoCompiledDerivatives(state) == ""
        reference = state.copy()
        system.realize(state, Stage.Acceleration)
        assert_close(state.getUDot(), sample["outputs"]["udot"], "udot", TOL)
        system._fused_realization = None
        try:
            system.realize(reference, Stage.Acceleration)
        finally:
            system._fused_realization = fused
        np.testing.assert_allclose(
            system.getRigidBodyForces(state), system.getRigidBodyForces(reference), rtol=1e-12
        )
        np.testing.assert_allclose(state.getUDot(), reference.getUDot(), rtol=1e-12)
