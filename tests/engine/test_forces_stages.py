"""Which stage each force-element change invalidates.

The Force:: steps of stages.json (Simbody 3.7) are replayed on the reference model's tree and
force elements (its constraint, measure and event handler do not affect these steps); the
other elements' setters are checked against CONVENTIONS.md section 11: State parameters of
force elements invalidate Dynamics (the State falls back to Velocity), enable/disable is an
Instance change (back to Model), the LinearBushing's frames and coefficients are Instance
parameters, its dissipated energy is a z (back to Velocity), and every setDefault... is a
Topology change.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import Force, Rotation, Stage, Transform
from tests.engine.reference_data import load_reference, model_by_name, reference_available
from tests.engine.reference_models import build

pytestmark = pytest.mark.skipif(
    not reference_available("stages"), reason="shared/reference/stages.json not present"
)


def _stage_model():
    return model_by_name(load_reference("stages"), "stage_model")


FORCE_STEPS = {
    "Force::MobilityLinearSpring::setStiffness(s, 5)": lambda e, m, s: e[1].setStiffness(s, 5),
    "Force::MobilityLinearSpring::setQZero(s, 0.2)": lambda e, m, s: e[1].setQZero(s, 0.2),
    "Force::Gravity::setMagnitude(s, 9)": lambda e, m, s: e[0].setMagnitude(s, 9),
    "Force::DiscreteForces::setOneMobilityForce(s, pin, 0, 1)": lambda e, m, s: e[
        2
    ].setOneMobilityForce(s, m[1], 0, 1),
    "Force::disable(s) (spring)": lambda e, m, s: e[1].disable(s),
    "Force::enable(s) (spring)": lambda e, m, s: e[1].enable(s),
}


def test_force_steps_of_stages_json():
    model = _stage_model()
    built = build(model["model"], constraints=False)
    system, mobods, elements = built.system, built.mobods, built.elements
    s = system.realizeTopology()
    steps = [st for st in model["script"] if st["op"].startswith("Force::")]
    assert {st["op"] for st in steps} == set(FORCE_STEPS)
    for step in steps:
        assert step["realize_first"]
        system.realize(s, Stage.Acceleration)
        FORCE_STEPS[step["op"]](elements, mobods, s)
        assert s.getSystemStage() == Stage[step["stage"]], step["op"]
    # The values really changed in the State (and only there).
    assert elements[1].getStiffness(s) == 5 and elements[1].getDefaultStiffness() != 5
    assert elements[1].getQZero(s) == 0.2
    assert elements[0].getMagnitude(s) == 9 and elements[0].getDefaultMagnitude() == 9.81
    assert elements[2].getOneMobilityForce(s, mobods[1], 0) == 1
    assert not elements[1].isDisabled(s)


@pytest.fixture
def zoo():
    model = model_by_name(load_reference("forces"), "force_zoo")["model"]
    built = build(model)
    return built.system, built.mobods, built.elements


def _realized(system, state):
    system.realize(state, Stage.Acceleration)
    return state


DYNAMICS_SETTERS = [
    (0, lambda e, m, s: e.setZeroHeight(s, 0.1)),
    (0, lambda e, m, s: e.setDownDirection(s, [1, 0, 0])),
    (0, lambda e, m, s: e.setGravityVector(s, [0, 0, -3])),
    (0, lambda e, m, s: e.setBodyIsExcluded(s, m[2], True)),
    (2, lambda e, m, s: e.setStiffness(s, 3.0)),
    (2, lambda e, m, s: e.setRestLength(s, 0.1)),
    (3, lambda e, m, s: e.setDamping(s, 0.5)),
    (4, lambda e, m, s: e.setForce(s, 1.5)),
    (6, lambda e, m, s: e.setDamping(s, 0.5)),
    (7, lambda e, m, s: e.setForce(s, 2.0)),
    (8, lambda e, m, s: e.setBounds(s, -1.0, 1.0)),
    (8, lambda e, m, s: e.setMaterialProperties(s, 10.0, 0.2)),
    (9, lambda e, m, s: e.setForce(s, [1, 2, 3])),
    (9, lambda e, m, s: e.setStation(s, [0, 0, 1])),
    (10, lambda e, m, s: e.setTorque(s, [1, 2, 3])),
    (11, lambda e, m, s: e.setDamping(s, 0.7)),
    (13, lambda e, m, s: e.setMobilityForce(s, 0.3)),
    (14, lambda e, m, s: e.setOneBodyForce(s, m[3], [[1, 0, 0], [0, 1, 0]])),
    (14, lambda e, m, s: e.addForceToBodyPoint(s, m[3], [0, 0, 1], [0, 1, 0])),
    (14, lambda e, m, s: e.setAllMobilityForces(s, np.ones(16))),
    (14, lambda e, m, s: e.setAllBodyForces(s, np.ones((7, 2, 3)))),
    (14, lambda e, m, s: e.clearAllForces(s)),
]


@pytest.mark.parametrize(("index", "setter"), DYNAMICS_SETTERS)
def test_state_parameters_invalidate_dynamics(zoo, index, setter):
    system, mobods, elements = zoo
    s = _realized(system, system.realizeTopology())
    setter(elements[index], mobods, s)
    assert s.getSystemStage() == Stage.Velocity


def test_bushing_parameters_are_instance_changes_and_its_energy_is_a_z(zoo):
    system, mobods, elements = zoo
    bushing = elements[12]
    s = system.realizeTopology()
    for setter in (
        lambda: bushing.setStiffness(s, np.ones(6)),
        lambda: bushing.setDamping(s, np.ones(6)),
        lambda: bushing.setFrameOnBody1(s, Transform(Rotation(0.3, [0, 0, 1]), [0, 0, 0.1])),
        lambda: bushing.setFrameOnBody2(s, Transform([0.1, 0, 0])),
    ):
        _realized(system, s)
        setter()
        assert s.getSystemStage() == Stage.Model
    _realized(system, s)
    bushing.setDissipatedEnergy(s, 2.5)
    assert s.getSystemStage() == Stage.Velocity
    assert bushing.getDissipatedEnergy(s) == 2.5
    np.testing.assert_array_equal(bushing.getStiffness(s), np.ones(6))


def test_default_setters_are_topology_changes(zoo):
    system, mobods, elements = zoo
    changes = [
        lambda: elements[0].setDefaultMagnitude(3.0),
        lambda: elements[1].setGravity([0, -1, 0]),
        lambda: elements[2].setDefaultStiffness(1.0),
        lambda: elements[5].setDefaultQZero(0.0),
        lambda: elements[8].setDefaultBounds(-2, 2),
        lambda: elements[12].setDefaultDamping(np.zeros(6)),
        lambda: elements[13].setDefaultMobilityForce(4.0),
        lambda: elements[14].setDisabledByDefault(True),
    ]
    for change in changes:
        system.realizeTopology()
        assert system.systemTopologyHasBeenRealized()
        change()
        assert not system.systemTopologyHasBeenRealized()
    s = system.realizeTopology()
    assert elements[0].getMagnitude(s) == 3.0
    assert elements[13].getMobilityForce(s) == 4.0
    assert elements[14].isDisabled(s)
    np.testing.assert_array_equal(elements[1].getGravity(), [0, -1, 0])


def test_enable_disable_every_element_is_a_model_stage_change(zoo):
    system, mobods, elements = zoo
    s = system.realizeTopology()
    for e in elements:
        _realized(system, s)
        e.disable(s)
        assert s.getSystemStage() == Stage.Model and e.isDisabled(s)
    _realized(system, s)
    assert system.calcPotentialEnergy(s) == 0.0
    assert not np.any(system.getMobilityForces(s))
    assert not np.any(system.getRigidBodyForces(s))
    assert not np.any(s.getZDot())
    for e in elements:
        e.enable(s)
        assert not e.isDisabled(s)
    assert isinstance(elements[0], Force)
