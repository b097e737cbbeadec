"""HuntCrossleyForce on a GeneralContactSubsystem contact set against contact.json (Simbody
3.7, model hunt_crossley), and physics oracles: Newton's third law per contact, force equal
to minus the gradient of the energy for frictionless elastic contact, nothing when apart."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import (
    Body,
    ContactGeometry,
    GeneralContactSubsystem,
    GeneralForceSubsystem,
    HuntCrossleyForce,
    IndexOutOfRangeError,
    Inertia,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    NonPhysicalError,
    SimbodyMatterSubsystem,
    Stage,
    StageTooLowError,
    Transform,
)
from tests.engine.close import assert_close
from tests.engine.contact_hc_models import build_contact_model
from tests.engine.reference_data import load_reference, model_by_name, reference_available

NAME = "hunt_crossley"
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
def hc():
    case = model_by_name(load_reference("contact"), NAME)
    return case, build_contact_model(case["model"])


def _pair_key(c) -> tuple[int, int]:
    return tuple(sorted((int(c.getSurface1()), int(c.getSurface2()))))


@needs_reference
def test_layout(hc):
    case, built = hc
    model = case["model"]
    assert built.gcs.getMySubsystemIndex() == model["contact"]["general_contact_subsystem_index"]
    assert built.gcs.getNumContactSets() == 1
    assert built.gcs.getNumBodies(built.contact_set) == len(model["contact"]["surfaces"])
    for s in model["contact"]["surfaces"]:
        i = s["index"]
        assert built.gcs.getBody(built.contact_set, i).getMobilizedBodyIndex() == s["body"]
        assert (
            built.gcs.getBodyGeometry(built.contact_set, i).getTypeName() == (s["geometry"]["type"])
        )
    state = built.system.realizeTopology()
    assert state.getNQ() == case["system_counts"]["nQ"]
    assert built.system.getNumSubsystems() == case["system_counts"]["getNumSubsystems"]


@needs_reference
@pytest.mark.parametrize("k", _samples())
def test_contacts_match_simbody(hc, k):
    """Same pairs, halfway points, normals (oriented from surface 1 to 2), depths and
    effective radii as Simbody's GeneralContactSubsystem, in Simbody's order of pairs."""
    case, built = hc
    sample = case["samples"][k]
    state = built.new_state(sample["state"])
    built.system.realize(state, Stage.Position)
    contacts = built.gcs.getContacts(state, built.contact_set)
    expected = sample["outputs"]["contacts"]
    assert [_pair_key(c) for c in contacts] == [
        tuple(sorted((e["surface1"], e["surface2"]))) for e in expected
    ]
    for c, e in zip(contacts, expected, strict=True):
        sign = 1.0 if int(c.getSurface1()) == e["surface1"] else -1.0
        assert_close(c.getLocation(), e["location_G"], "location", TOL)
        assert_close(sign * np.asarray(c.getNormal()), e["normal_G"], "normal", TOL)
        assert_close(c.getDepth(), e["depth"], "depth", TOL)
        assert_close(c.getEffectiveRadius(), e["effective_radius"], "radius", TOL)


@needs_reference
@pytest.mark.parametrize("k", _samples())
def test_each_element_matches_simbody(hc, k):
    case, built = hc
    sample = case["samples"][k]
    state = built.new_state(sample["state"])
    built.system.realize(state, Stage.Acceleration)
    for element, ref in zip(built.elements, sample["outputs"]["per_force"], strict=True):
        body, _, mobility = element.calcForceContribution(state)
        assert_close(body.reshape(-1, 6), ref["body_forces_G"], "body forces", TOL)
        assert_close(mobility, ref["mobility_forces"], "mobility forces", TOL)
        assert_close(
            element.calcPotentialEnergyContribution(state), ref["potential_energy"], "PE", TOL
        )


@needs_reference
@pytest.mark.parametrize("k", _samples())
def test_totals_and_udot_match_simbody(hc, k):
    case, built = hc
    sample = case["samples"][k]
    out = sample["outputs"]
    system = built.system
    state = built.new_state(sample["state"])
    system.realize(state, Stage.Acceleration)
    assert_close(system.getRigidBodyForces(state).reshape(-1, 6), out["applied_body_forces_G"])
    assert_close(system.calcPotentialEnergy(state), out["potential_energy"], tol=TOL)
    assert_close(state.getUDot(), out["udot"], "udot", TOL)
    contact_gen = built.matter.multiplyBySystemJacobianTranspose(
        state, built.elements[0].calcForceContribution(state)[0]
    )
    assert_close(contact_gen, out["contact_generalized_forces"], "generalized", TOL)


@needs_reference
def test_energy_gradient_check_of_simbody(hc):
    """Simbody's check: with u = 0 the contact energy's rate along qdot = N w equals minus the
    power of the contact forces; we reproduce both numbers."""
    case, built = hc
    for sample in case["samples"]:
        check = sample["outputs"].get("energy_gradient_check")
        if check is None:
            continue
        element = built.elements[0]
        state = built.new_state(sample["state"])
        state.setU(np.zeros(state.getNU()))
        built.system.realize(state, Stage.Dynamics)
        w = np.asarray(check["w"])
        body = element.calcForceContribution(state)[0]
        power = float(built.matter.multiplyBySystemJacobianTranspose(state, body) @ w)
        assert_close(power, check["contact_power_at_w"], tol=1e-9)
        qdot = built.matter.multiplyByN(state, False, w)
        pe = []
        for sign in (1.0, -1.0):
            s2 = state.copy()
            s2.setU(np.zeros(s2.getNU()))
            s2.setQ(state.getQ() + sign * check["h"] * qdot)
            built.system.realize(s2, Stage.Dynamics)
            pe.append(element.calcPotentialEnergy(s2))
        rate = (pe[0] - pe[1]) / (2 * check["h"])
        assert rate == pytest.approx(-power, rel=1e-6)


@needs_reference
def test_yanking_stops_the_walk(hc):
    """In 'yanking' the contact separates faster than 2/(3c): no force at all, but its energy
    is still counted (Simbody 3.7's early return)."""
    case, built = hc
    sample = next(s for s in case["samples"] if s["kind"] == "yanking")
    state = built.new_state(sample["state"])
    built.system.realize(state, Stage.Dynamics)
    element = built.elements[0]
    body, _, _ = element.calcForceContribution(state)
    assert not np.any(body)
    assert element.calcPotentialEnergy(state) > 0


@needs_reference
def test_potential_energy_needs_dynamics(hc):
    """The element's energy depends on velocities (the early return): below Dynamics the
    system's calcPotentialEnergy refuses with a stage error naming Dynamics."""
    case, built = hc
    sample = case["samples"][1]
    state = built.new_state(sample["state"])
    built.system.realize(state, Stage.Velocity)
    with pytest.raises(StageTooLowError, match="Dynamics"):
        built.system.calcPotentialEnergy(state)
    with pytest.raises(StageTooLowError, match="Dynamics"):
        built.elements[0].calcPotentialEnergy(state)
    built.system.realize(state, Stage.Dynamics)
    assert_close(built.system.calcPotentialEnergy(state), sample["outputs"]["potential_energy"])


# ------------------------------------------------------------------ models of our own
def _balls(positions, radii, *, dissipation=0.0, friction=(0.0, 0.0, 0.0), floor=True):
    """Free balls at ``positions`` over a floor half space (normal +Y) in one contact set;
    returns (system, matter, gcs, set, element, balls)."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    gcs = GeneralContactSubsystem(system)
    contact_set = gcs.createContactSet()
    surfaces = 0
    if floor:
        # the half space is x > 0 of S: rotate S's x to -Y so the floor's outward normal is +Y
        X = Transform(np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]), [0, 0, 0])
        gcs.addBody(contact_set, matter.Ground(), ContactGeometry.HalfSpace(), X)
        surfaces += 1
    balls = []
    for r in radii:
        ball = MobilizedBody.Free(
            matter.Ground(), Body.Rigid(MassProperties(1.0, [0, 0, 0], Inertia(0.4 * r * r)))
        )
        gcs.addBody(contact_set, ball, ContactGeometry.Sphere(r), Transform())
        balls.append(ball)
        surfaces += 1
    element = HuntCrossleyForce(forces, gcs, contact_set)
    for s in range(surfaces):
        element.setBodyParameters(s, 1e7 * (1 + s), dissipation, *friction)
    state = system.realizeTopology()
    for ball, p in zip(balls, positions, strict=True):
        ball.setQToFitTranslation(state, p)
    return system, matter, gcs, contact_set, element, balls, state


def test_no_force_when_separated():
    system, _, gcs, cs, element, _, state = _balls([[0, 0.2, 0], [0.5, 0.2, 0]], [0.1, 0.1])
    system.realize(state, Stage.Dynamics)
    assert gcs.getContacts(state, cs) == ()
    body, _, mobility = element.calcForceContribution(state)
    assert not np.any(body) and not np.any(mobility)
    assert element.calcPotentialEnergy(state) == 0.0


def test_third_law_per_contact():
    """Two touching balls, one resting in the floor, with friction and sliding: every pair of
    bodies gets equal and opposite forces whose moments cancel (one point of action)."""
    system, _, gcs, cs, element, balls, state = _balls(
        [[0, 0.099, 0], [0.195, 0.1, 0.02]], [0.1, 0.1], dissipation=0.3, friction=(0.8, 0.5, 0.1)
    )
    balls[0].setUToFitLinearVelocity(state, [0.3, 0.0, 0.1])
    balls[1].setUToFitAngularVelocity(state, [0.0, 2.0, 1.0])
    system.realize(state, Stage.Dynamics)
    contacts = gcs.getContacts(state, cs)
    assert len(contacts) == 2
    body, _, _ = element.calcForceContribution(state)
    assert_close(body[:, 1].sum(axis=0), np.zeros(3), tol=1e-12)
    origins = np.array([np.zeros(3)] + [b.getBodyOriginLocation(state) for b in balls])
    moment = body[:, 0].sum(axis=0) + np.cross(origins, body[:, 1]).sum(axis=0)
    assert_close(moment, np.zeros(3), tol=1e-12)
    assert body[0, 1][1] < 0  # ball 1 pushes the floor down


def test_force_is_minus_energy_gradient():
    """Frictionless, without dissipation: the generalized contact forces equal -dPE/dq
    (central differences on the ball positions)."""
    system, matter, _, _, element, balls, state = _balls(
        [[0, 0.098, 0], [0.19, 0.1, 0.03]], [0.1, 0.12]
    )
    system.realize(state, Stage.Dynamics)
    body, _, _ = element.calcForceContribution(state)
    h = 1e-7
    for b, ball in enumerate(balls, start=1):
        for axis in range(3):
            values = []
            for sign in (1.0, -1.0):
                s = system.realizeTopology()
                for other, start in zip(balls, ([0, 0.098, 0], [0.19, 0.1, 0.03]), strict=True):
                    p = np.array(start, dtype=float)
                    if other is ball:
                        p[axis] += sign * h
                    other.setQToFitTranslation(s, p)
                system.realize(s, Stage.Dynamics)
                values.append(element.calcPotentialEnergy(s))
            gradient = (values[0] - values[1]) / (2 * h)
            assert body[b, 1][axis] == pytest.approx(-gradient, rel=1e-5, abs=1e-6)


def test_parameters_stored_and_refused():
    _, _, _, _, element, _, _ = _balls([[0, 0.2, 0]], [0.1])
    element.setBodyParameters(1, 2e6, 0.5, 0.9, 0.6, 0.05)
    assert element.getBodyParameters(1) == (2e6, 0.5, 0.9, 0.6, 0.05)
    element.setTransitionVelocity(0.02)
    assert element.getTransitionVelocity() == 0.02
    with pytest.raises(NonPhysicalError, match="stiffness"):
        element.setBodyParameters(1, 0.0, 0.5, 0.9, 0.6, 0.05)
    with pytest.raises(NonPhysicalError, match="stiffness"):
        element.setBodyParameters(1, -1e6, 0.5, 0.9, 0.6, 0.05)
    with pytest.raises(InvalidArgumentError, match="dissipation"):
        element.setBodyParameters(1, 1e6, math.nan, 0.9, 0.6, 0.05)
    with pytest.raises(NonPhysicalError, match="static friction"):
        element.setBodyParameters(1, 1e6, 0.5, -0.9, 0.6, 0.05)
    with pytest.raises(IndexOutOfRangeError, match="body index 2"):
        element.setBodyParameters(2, 1e6, 0.5, 0.9, 0.6, 0.05)
    with pytest.raises(NonPhysicalError, match="transition velocity"):
        element.setTransitionVelocity(0.0)
    assert element.getBodyParameters(1) == (2e6, 0.5, 0.9, 0.6, 0.05)
    assert element.getTransitionVelocity() == 0.02
    # a surface is an int or an index type (numpy's too), never a float or a bool
    assert element.getBodyParameters(np.int64(1)) == (2e6, 0.5, 0.9, 0.6, 0.05)
    for bad in (1.0, True, "1"):
        with pytest.raises(InvalidArgumentError, match="must be an int"):
            element.setBodyParameters(bad, 1e6, 0.5, 0.9, 0.6, 0.05)
    assert element.getBodyParameters(1) == (2e6, 0.5, 0.9, 0.6, 0.05)


def test_general_contact_subsystem_refusals():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    gcs = GeneralContactSubsystem(system)
    with pytest.raises(IndexOutOfRangeError, match="no contact set 0"):
        gcs.addBody(0, matter.Ground(), ContactGeometry.HalfSpace(), Transform())
    cs = gcs.createContactSet()
    with pytest.raises(InvalidArgumentError, match="ContactGeometry"):
        gcs.addBody(cs, matter.Ground(), "sphere", Transform())
    with pytest.raises(InvalidArgumentError, match="MobilizedBody"):
        gcs.addBody(cs, 0, ContactGeometry.HalfSpace(), Transform())
    with pytest.raises(InvalidArgumentError, match="Transform"):
        gcs.addBody(cs, matter.Ground(), ContactGeometry.HalfSpace(), [0, 0, 0])
    with pytest.raises(IndexOutOfRangeError):
        HuntCrossleyForce(forces, gcs, 3)
    with pytest.raises(InvalidArgumentError, match="GeneralContactSubsystem"):
        HuntCrossleyForce(forces, matter, cs)
    with pytest.raises(IndexOutOfRangeError, match="index 0"):
        gcs.getBody(cs, 0)
    state = system.realizeTopology()
    with pytest.raises(StageTooLowError, match="Position"):
        gcs.getContacts(state, cs)


def test_sweep_and_prune_finds_exactly_the_touching_pairs():
    """A row of 40 balls where only neighbours 2k, 2k+1 overlap: the broad phase finds those
    pairs and no others (checked against all pairs by brute force)."""
    n = 40
    centres = []
    for k in range(n // 2):
        x = 1.0 * k
        centres += [[x, 0.5, 0.3 * k], [x + 0.15, 0.52, 0.3 * k]]
    system, _, gcs, cs, _, _, state = _balls(centres, [0.08] * n, floor=False)
    system.realize(state, Stage.Position)
    found = sorted(_pair_key(c) for c in gcs.getContacts(state, cs))
    c = np.array(centres)
    brute = [
        (i, j) for i in range(n) for j in range(i + 1, n) if np.linalg.norm(c[i] - c[j]) < 0.16
    ]
    assert found == brute and len(found) == n // 2


def test_frictionless_elastic_bounce_conserves_energy():
    """A ball dropped onto the floor without dissipation or friction (and no gravity) bounces
    back with its speed, KE + PE constant through the impact."""
    from engine import RungeKuttaMersonIntegrator, TimeStepper

    system, _, gcs, cs, element, balls, state = _balls([[0, 0.101, 0]], [0.1])
    balls[0].setUToFitLinearVelocity(state, [0.2, -0.5, 0.0])
    system.realize(state, Stage.Dynamics)
    e0 = system.calcEnergy(state)
    integrator = RungeKuttaMersonIntegrator(system)
    integrator.setAccuracy(1e-8)
    stepper = TimeStepper(system, integrator)
    stepper.initialize(state)
    touched = False
    for k in range(1, 9):
        stepper.stepTo(0.002 * k)
        s = integrator.getState()
        system.realize(s, Stage.Dynamics)
        touched = touched or len(gcs.getContacts(s, cs)) > 0
        assert system.calcEnergy(s) == pytest.approx(e0, rel=1e-6)
    assert touched
    v = balls[0].getBodyOriginVelocity(s)
    assert v[1] == pytest.approx(0.5, rel=1e-4) and v[0] == pytest.approx(0.2, rel=1e-9)


def test_surfaces_are_drawn_on_their_bodies():
    system, _, _, _, _, balls, state = _balls([[0, 0.3, 0]], [0.1])
    drawn = system.calcDecorativeGeometryAndAppend(state, Stage.Topology, [])
    kinds = sorted((type(d).__name__, d.getBodyId()) for d in drawn)
    assert ("DecorativeSphere", balls[0].getMobilizedBodyIndex()) in kinds
    assert any(name == "DecorativeBrick" and body == 0 for name, body in kinds)
    spheres = [d for d in drawn if type(d).__name__ == "DecorativeSphere"]
    assert any(d.getRadius() == 0.1 and d.getBodyId() == 1 for d in spheres)
