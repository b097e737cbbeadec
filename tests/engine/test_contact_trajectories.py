"""Compliant-contact trajectories against ../shared/reference/contact.json (Simbody 3.7):
RungeKuttaMerson with setAllowInterpolation(false), TimeStepper.stepTo at each report.

The runs are cut short to keep the suite fast; each still covers its contact events (the
ball's first rebounds, the slide-to-roll transition, the brick's first impact, the
ellipsoid's first bounces, the two spheres' collision)."""

from __future__ import annotations

import numpy as np

from engine import RungeKuttaMersonIntegrator, Stage, TimeStepper
from tests.engine.contact_models import build_compliant, contact_model


def _run(name: str, run_index: int, t_end: float, accuracy: float | None = None):
    """Yield (reference report, our State realized to Acceleration, built system)."""
    model = contact_model(name)
    run = model["runs"][run_index]
    built = build_compliant(model["model"])
    system = built.ref.system
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(accuracy or run["accuracy"])
    integ.setAllowInterpolation(False)
    stepper = TimeStepper(system, integ)
    stepper.initialize(built.ref.new_state(model["initial_state"]))
    for report in run["reports"][1:]:
        if report["t"] > t_end + 1e-12:
            break
        stepper.stepTo(report["t"])
        state = stepper.getState()
        assert state.getTime() == report["t"]
        system.realize(state, Stage.Acceleration)
        yield report, state, built


def _distance(state, report) -> float:
    return max(
        float(np.max(np.abs(state.getQ() - report["q"]))),
        float(np.max(np.abs(state.getU() - report["u"]))),
        float(np.max(np.abs(state.getZ() - report["z"]))),
    )


def _energy(built, state) -> float:
    system = built.ref.system
    return (
        system.calcKineticEnergy(state)
        + system.calcPotentialEnergy(state)
        + built.ccs.getDissipatedEnergy(state)
    )


def test_ball_drop_rebounds_as_simbody():
    """Accuracy 1e-4 run over 1.2 s (three impacts): the same states within the accuracy,
    contact forces present at the same reports, KE + PE + dissipated conserved."""
    worst = 0.0
    e0 = None
    for report, state, built in _run("ball_drop", 1, 1.2):
        worst = max(worst, _distance(state, report))
        assert built.ccs.getNumContactForces(state) == report["num_contact_forces"]
        e = _energy(built, state)
        e0 = e if e0 is None else e0
        assert abs(e - e0 - report["energy_balance"]) < 1e-3
    assert worst < 1e-4


def test_slide_then_roll_at_five_sevenths():
    """The sphere slides, friction spins it up, it rolls at 5/7 of its launch speed."""
    model = contact_model("slide_roll")
    analysis = model["analysis"]
    n = np.array([0.0, 1.0, 0.0])  # the ground's normal (gravity is along -y)
    for report, state, built in _run("slide_roll", 0, 0.2):
        assert _distance(state, report) < 1e-7
        surface = built.tracker.getContactSurfaceIndex(1, 0)
        center = built.tracker.getContactSurfaceTransform(surface).p()
        v = built.ref.mobods[1].findStationVelocityInGround(state, center)
        speed = float(np.linalg.norm(v - (v @ n) * n))
        assert abs(speed - report["center_tangential_speed"]) < 1e-7
    assert state.getTime() > analysis["predicted_rolling_time"]
    assert abs(speed - analysis["predicted_rolling_speed"]) < 0.01 * analysis["initial_speed"]
    assert abs(speed - 5.0 / 7.0 * analysis["initial_speed"]) < 0.01 * analysis["initial_speed"]


def test_brick_first_impact_as_simbody():
    for report, state, built in _run("brick_settle", 0, 0.1):
        assert _distance(state, report) < 1e-6
        assert built.ccs.getNumContactForces(state) == report["num_contact_forces"]


def test_ellipsoid_bounces_as_simbody():
    """At accuracy 1e-4 (the reference used 1e-8): the same contact pattern and states
    within the looser accuracy's reach."""
    for report, state, built in _run("ellipsoid_settle", 0, 0.2, accuracy=1e-4):
        assert built.ccs.getNumContactForces(state) == report["num_contact_forces"]
        assert _distance(state, report) < 2e-2


def test_two_spheres_collision_conserves_momentum():
    """The oblique collision (accuracy 1e-5): states close to Simbody's 1e-8 run; linear and
    angular momentum (not linear in the state variables, so kept to the integration
    error, ~1e-8 here) and KE + PE + dissipated conserved."""
    model = contact_model("two_spheres")
    first = model["runs"][0]["reports"][0]
    m0 = np.array(first["momentum_about_ground_origin"])
    e0 = None
    touched = False
    for report, state, built in _run("two_spheres", 0, 0.06, accuracy=1e-5):
        assert _distance(state, report) < 1e-3
        touched |= built.ccs.getNumContactForces(state) > 0
        momentum = built.ref.matter.calcSystemMomentumAboutGroundOrigin(state).reshape(6)
        assert np.max(np.abs(momentum[3:] - m0[3:])) < 1e-6
        assert np.max(np.abs(momentum[:3] - m0[:3])) < 1e-6
        e = _energy(built, state)
        e0 = first["kinetic_energy"] if e0 is None else e0
        assert abs(e - e0) < 1e-4 * e0
    assert touched
