"""Physics oracles for the force elements, on the force_zoo tree of forces.json.

- Conservative elements (Gravity, UniformGravity, TwoPointLinearSpring, MobilityLinearSpring,
  MobilityLinearStop without dissipation, LinearBushing without damping, a Force.Custom
  spring): the generalized force f + J^T F equals minus the derivative of the potential
  energy along q(eps) = q + eps N e_i, by central differences.
- Dampers (TwoPointLinearDamper, MobilityLinearDamper, GlobalDamper, a LinearBushing with
  only damping): their power (f + J^T F) . u is <= 0, and the bushing's equals -zdot.
- Integration: KE + PE + the bushing's dissipated energy z stays constant over a short
  fixed-step run with every conservative element and the damped bushing.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import Force, RungeKuttaMersonIntegrator, Stage, TimeStepper
from tests.engine.reference_data import load_reference, model_by_name, reference_available
from tests.engine.reference_models import build

pytestmark = pytest.mark.skipif(
    not reference_available("forces"), reason="shared/reference/forces.json not present"
)

CONSERVATIVE = {0, 1, 2, 5, 8, 12}
DAMPERS = {3, 6, 11, 12}


class PointSpring(Force.Custom.Implementation):
    """A zero-length spring from station s of a body to the Ground point p0."""

    def __init__(self, mobod, station, p0, k):
        self.mobod, self.station, self.p0, self.k = mobod, np.asarray(station), np.asarray(p0), k

    def calcForce(self, state, bodyForces, particleForces, mobilityForces):
        r = self.mobod.findStationLocationInGround(state, self.station) - self.p0
        self.mobod.applyForceToBodyPoint(state, self.station, -self.k * r, bodyForces)

    def calcPotentialEnergy(self, state):
        r = self.mobod.findStationLocationInGround(state, self.station) - self.p0
        return 0.5 * self.k * float(r @ r)

    def dependsOnlyOnPositions(self):
        return True


@pytest.fixture
def zoo():
    case = model_by_name(load_reference("forces"), "force_zoo")
    ref = build(case["model"])
    spring = PointSpring(ref.mobods[6], [0.1, 0.2, -0.1], [0.3, -0.5, 0.2], 7.0)
    ref.elements.append(Force.Custom(ref.forces, spring))
    return case, ref


def _state_with_only(case, ref, keep, k=0):
    state = ref.new_state(case["samples"][k]["state"])
    for i, e in enumerate(ref.elements):
        if i not in keep:
            e.disable(state)
    return state


def _generalized_force(system, matter, state) -> np.ndarray:
    system.realize(state, Stage.Dynamics)
    f = system.getMobilityForces(state)
    F = system.getRigidBodyForces(state)
    return f + matter.multiplyBySystemJacobianTranspose(state, F)


@pytest.mark.parametrize("k", [0, 2, 3])
def test_conservative_forces_are_minus_the_gradient_of_potential_energy(zoo, k):
    case, ref = zoo
    system, matter, elements = ref.system, ref.matter, ref.elements
    keep = CONSERVATIVE | {len(elements) - 1}
    state = _state_with_only(case, ref, keep, k)
    elements[8].setMaterialProperties(state, elements[8].getStiffness(state), 0.0)
    elements[12].setDamping(state, np.zeros(6))
    Q = _generalized_force(system, matter, state)
    q0 = state.getQ().copy()
    eps = 1e-6
    dPE = np.zeros(matter.getNumMobilities())
    for i in range(dPE.size):
        system.realize(state, Stage.Position)
        dq = matter.multiplyByN(state, False, np.eye(dPE.size)[i])
        pe = []
        for sign in (1.0, -1.0):
            state.setQ(q0 + sign * eps * dq)
            system.realize(state, Stage.Dynamics)
            pe.append(system.calcPotentialEnergy(state))
        state.setQ(q0)
        dPE[i] = (pe[0] - pe[1]) / (2 * eps)
    assert np.max(np.abs(Q + dPE)) <= 1e-8 * max(1.0, np.max(np.abs(Q)))
    # Every conservative element contributed (none is silently zero here).
    system.realize(state, Stage.Velocity)
    for i in keep:
        body, _, mobility = elements[i].calcForceContribution(state)
        assert np.any(body) or np.any(mobility), i


@pytest.mark.parametrize("k", [0, 1, 4])
def test_dampers_dissipate_and_the_bushing_reports_its_power(zoo, k):
    case, ref = zoo
    system, matter, elements = ref.system, ref.matter, ref.elements
    state = _state_with_only(case, ref, DAMPERS, k)
    elements[12].setStiffness(state, np.zeros(6))
    system.realize(state, Stage.Acceleration)
    u = state.getU()
    total = 0.0
    for i in DAMPERS:
        body, _, mobility = elements[i].calcForceContribution(state)
        power = float((mobility + matter.multiplyBySystemJacobianTranspose(state, body)) @ u)
        assert power < 0, i
        total += power
        if i == 12:
            zdot = float(state.getZDot()[0])
            assert zdot == pytest.approx(elements[12].getPowerDissipation(state), rel=1e-12)
            assert power == pytest.approx(-zdot, rel=1e-10)
    assert float(_generalized_force(system, matter, state) @ u) == pytest.approx(total, rel=1e-10)


def test_energy_plus_dissipated_energy_is_conserved_in_integration(zoo):
    case, ref = zoo
    system, elements = ref.system, ref.elements
    keep = CONSERVATIVE | {len(elements) - 1}
    keep.discard(8)  # the stop's force has a kink at its bounds
    state = _state_with_only(case, ref, keep, 0)
    state.setU(0.3 * state.getU())
    elements[12].setDissipatedEnergy(state, 0.0)

    integ = RungeKuttaMersonIntegrator(system)
    integ.setFixedStepSize(2e-3)
    stepper = TimeStepper(system, integ)
    stepper.initialize(state)

    def total(s):
        system.realize(s, Stage.Dynamics)
        return system.calcEnergy(s) + elements[12].getDissipatedEnergy(s)

    s = stepper.getState()
    e0, t0 = total(s), s.getTime()
    stepper.stepTo(t0 + 0.1)
    s = stepper.getState()
    assert elements[12].getDissipatedEnergy(s) > 1e-3  # the bushing did dissipate
    assert abs(total(s) - e0) <= 1e-7 * max(1.0, abs(e0))
