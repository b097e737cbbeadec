"""stages.json (Simbody 3.7) reproduced with framework-only test subsystems.

The reference model needs the multibody layer; here the `script` steps that are pure
State/System operations, the `counters` sequence and the `layouts` are reproduced with
custom subsystems that allocate the same numbers of variables, constraint slots and event
triggers. Steps that name multibody API (MobilizedBody, Force, Constraint, matter) are listed in
MULTIBODY_STEPS, so that a new step in the file makes this test fail until someone decides
where it belongs. At the end of this file the lock/unlock steps, the layout in "pin locked"
mode and then the whole script, in order, are replayed on the reference model itself.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine.common.stage import Stage
from engine.common.state import State
from engine.common.system import System
from engine.multibody.motions import Motion
from tests.engine.framework_fixtures import (
    HOOK_STAGES,
    HarmonicOscillator,
    IntegrateMeasure,
    LayoutMatter,
    RecordingSubsystem,
    ThresholdWitness,
)
from tests.engine.reference_data import load_reference, model_by_name, reference_available
from tests.engine.reference_models import build

pytestmark = pytest.mark.skipif(
    not reference_available("stages"), reason="shared/reference/stages.json not present"
)


def _model():
    return model_by_name(load_reference("stages"), "stage_model")


# -------------------------------------------------------------------- script


def _script_system():
    """Oscillator with a violated constraint (so project() has work to do), as the
    reference model's Rod constraint is violated when project() is called."""
    system = System("stage script")
    osc = HarmonicOscillator(n=3, constrained=True, qTarget=0.0)
    system.adoptSubsystem(osc)
    return system, osc


FRAMEWORK_STEPS = {
    "State s = system.realizeTopology()": None,  # handled specially: creates s
    "system.realizeModel(s)": lambda sy, s, c: sy.realizeModel(s),
    "system.realize(s, Instance)": lambda sy, s, c: sy.realize(s, Stage.Instance),
    "system.realize(s, Time)": lambda sy, s, c: sy.realize(s, Stage.Time),
    "system.realize(s, Acceleration)": lambda sy, s, c: sy.realize(s, Stage.Acceleration),
    "system.realize(s, Report)": lambda sy, s, c: sy.realize(s, Stage.Report),
    "s.setTime(0.5)": lambda sy, s, c: s.setTime(0.5),
    "s.updTime() (no write)": lambda sy, s, c: s.updTime(),
    "s.setQ(q)": lambda sy, s, c: s.setQ([0.3, -0.2, 0.1]),
    "s.updQ() (no write)": lambda sy, s, c: s.updQ(),
    "s.updQ()[0] += 0.01": lambda sy, s, c: s.updQ().__setitem__(0, s.getQ()[0] + 0.01),
    "s.setU(u)": lambda sy, s, c: s.setU([0.4, 0.5, 0.6]),
    "s.updU() (no write)": lambda sy, s, c: s.updU(),
    "s.setZ(z)": lambda sy, s, c: s.setZ([0.7]),
    "s.updZ() (no write)": lambda sy, s, c: s.updZ(),
    "system.realizeModel(s); realize(Acceleration)": lambda sy, s, c: (
        sy.realizeModel(s),
        sy.realize(s, Stage.Acceleration),
    ),
    "s.invalidateAll(Stage::Position)": lambda sy, s, c: s.invalidateAll(Stage.Position),
    "system.realize(s, Position)": lambda sy, s, c: sy.realize(s, Stage.Position),
    "s.invalidateAllCacheAtOrAbove(Stage::Dynamics)": lambda sy, s, c: (
        s.invalidateAllCacheAtOrAbove(Stage.Dynamics)
    ),
    "State copy = s (stage of the COPY)": lambda sy, s, c: c.append(State(s)),
    "system.project(s, 1e-10)": lambda sy, s, c: sy.project(s, 1e-10),
    "system.prescribe(s)": lambda sy, s, c: sy.prescribe(s),
}

MULTIBODY_STEPS = {
    "MobilizedBody::setOneQ(s, 0, 0.3)",
    "MobilizedBody::setOneU(s, 0, 0.4)",
    "MobilizedBody::setQToFitRotation(s, R)",
    # The Force:: steps are replayed on the reference model in test_forces_stages.py.
    "Force::MobilityLinearSpring::setStiffness(s, 5)",
    "Force::MobilityLinearSpring::setQZero(s, 0.2)",
    "Force::Gravity::setMagnitude(s, 9)",
    "Force::DiscreteForces::setOneMobilityForce(s, pin, 0, 1)",
    "Force::disable(s) (spring)",
    "Force::enable(s) (spring)",
    "Constraint::Rod::setRodLength(s, 0.75)",
    "matter.setConstraintIsDisabled(s, rod, true)",
    "matter.setConstraintIsDisabled(s, rod, false)",
    # The lock steps are replayed on the reference model in test_lock_steps_of_stages_json.
    "MobilizedBody::lock(s, Motion::Position) (pin)",
    "MobilizedBody::unlock(s) (pin)",
    "matter.setUseEulerAngles(s, true)",
    "matter.normalizeQuaternions(s) (Euler mode: nothing to do)",
}


def test_every_script_step_is_classified():
    ops = [step["op"] for step in _model()["script"]]
    unknown = [op for op in ops if op not in FRAMEWORK_STEPS and op not in MULTIBODY_STEPS]
    assert unknown == []


def test_script_stages_of_framework_operations():
    system, osc = _script_system()
    s = None
    copies: list[State] = []
    checked = 0
    for step in _model()["script"]:
        op, expected = step["op"], Stage[step["stage"]]
        if op in MULTIBODY_STEPS:
            continue
        if op == "State s = system.realizeTopology()":
            s = system.realizeTopology()
            got = s.getSystemStage()
        else:
            if step["realize_first"]:
                system.realize(s, Stage.Acceleration)
            FRAMEWORK_STEPS[op](system, s, copies)
            got = copies[-1].getSystemStage() if "COPY" in op else s.getSystemStage()
        assert got == expected, op
        checked += 1
    assert checked == len(FRAMEWORK_STEPS)


# ------------------------------------------------------------------ counters

COUNTER_STEPS = {
    "system.resetAllCountersToZero()": lambda sy, s: sy.resetAllCountersToZero(),
    "system.realize(s, Acceleration) [first time: Model..Acceleration]": lambda sy, s: sy.realize(
        s, Stage.Acceleration
    ),
    "system.realize(s, Acceleration) again (nothing to do)": lambda sy, s: sy.realize(
        s, Stage.Acceleration
    ),
    "s.setU(u); system.realize(s, Acceleration)": lambda sy, s: (
        s.setU([0.4, 0.5, 0.6]),
        sy.realize(s, Stage.Acceleration),
    ),
    "s.setQ(q); system.realize(s, Velocity)": lambda sy, s: (
        s.setQ([0.3, -0.2, 0.1]),
        sy.realize(s, Stage.Velocity),
    ),
    "s.setTime(1); system.realize(s, Report)": lambda sy, s: (
        s.setTime(1.0),
        sy.realize(s, Stage.Report),
    ),
    "system.realize(s, Position) (already there)": lambda sy, s: sy.realize(s, Stage.Position),
    "s.setZ(z); system.realize(s, Acceleration)": lambda sy, s: (
        s.setZ([0.7]),
        sy.realize(s, Stage.Acceleration),
    ),
    "system.realizeModel(s) (already realized)": lambda sy, s: sy.realizeModel(s),
    "system.project(s, 1e-10)": lambda sy, s: sy.project(s, 1e-10),
    "system.prescribe(s)": lambda sy, s: sy.prescribe(s),
}


def test_counters_sequence():
    system, osc = _script_system()
    s = None
    for entry in _model()["counters"]:
        after = entry["after"]
        if after == "State s = system.realizeTopology()":
            s = system.realizeTopology()
        else:
            COUNTER_STEPS[after](system, s)
        for name, expected in entry["getNumRealizationsOfThisStage"].items():
            assert system.getNumRealizationsOfThisStage(Stage[name]) == expected, (after, name)
        for counter in (
            "getNumPrescribeQCalls",
            "getNumPrescribeUCalls",
            "getNumProjectQCalls",
            "getNumProjectUCalls",
        ):
            assert getattr(system, counter)() == entry[counter], (after, counter)
        # Simbody 3.7 reports getNumRealizeCalls() == 0 throughout (a bug in Simbody: the
        # counter is never incremented). System.txt says it counts every call to
        # realizeTopology/realizeModel/realize; test_system_core checks that behaviour.
        assert entry["getNumRealizeCalls"] == 0


# ------------------------------------------------------------------- layouts


def _layout_system():
    system = System("layout")
    system.getDefaultSubsystem().adoptMeasure(IntegrateMeasure())  # Measure::Integrate's z
    system.adoptSubsystem(RecordingSubsystem("MultibodySystemGlobalSubsystem"))
    matter = LayoutMatter()
    system.adoptSubsystem(matter)
    system.adoptSubsystem(RecordingSubsystem("GeneralForceSubsystem"))
    system.addEventHandler(ThresholdWitness(matter))  # one Position-stage witness
    return system, matter


def _apply_variant(system, matter, s, variant):
    if variant == "Euler-angle mode":
        matter.setDiscreteVariable(s, matter.dv_euler, True)
        assert s.getSystemStage() == Stage.Topology
        system.realizeModel(s)
    elif variant == "quaternion mode, rod disabled":
        matter.setDiscreteVariable(s, matter.dv_rod_off, True)
        assert s.getSystemStage() == Stage.Model
    elif variant not in ("quaternion mode", "quaternion mode, pin locked"):
        raise AssertionError(f"unknown layout variant {variant!r}")


def _variants() -> list[str]:
    if not reference_available("stages"):
        return []
    return [v["variant"] for v in _model()["layouts"]]


@pytest.mark.parametrize("variant", _variants())
def test_layouts(variant):
    counts = next(v["counts"] for v in _model()["layouts"] if v["variant"] == variant)
    system, matter = _layout_system()
    s = system.realizeTopology()
    system.realize(s, Stage.Instance)  # realized once in the default mode first
    _apply_variant(system, matter, s, variant)
    system.realize(s, Stage[counts["system_stage"]])

    assert s.getSystemStage() == Stage[counts["system_stage"]]
    assert s.getNumSubsystems() == counts["getNumSubsystems"]
    assert (s.getNY(), s.getNQ(), s.getNU(), s.getNZ()) == (
        counts["nY"],
        counts["nQ"],
        counts["nU"],
        counts["nZ"],
    )
    assert (s.getNYErr(), s.getNQErr(), s.getNUErr(), s.getNUDotErr()) == (
        counts["nYErr"],
        counts["nQErr"],
        counts["nUErr"],
        counts["nUDotErr"],
    )
    assert s.getNMultipliers() == counts["nMultipliers"]
    assert s.getNEventTriggers() == counts["nEventTriggers"]
    for name, n in counts["nEventTriggersByStage"].items():
        assert s.getNEventTriggersByStage(Stage[name]) == n, name
    assert (s.getQStart(), s.getUStart(), s.getZStart()) == (
        counts["qStart_in_Y"],
        counts["uStart_in_Y"],
        counts["zStart_in_Y"],
    )
    assert (s.getQErrStart(), s.getUErrStart()) == (
        counts["qErrStart_in_YErr"],
        counts["uErrStart_in_YErr"],
    )
    for sub in counts["subsystems"]:
        i = sub["index"]
        assert s.getSubsystemName(i) == sub["name"]
        assert s.getSubsystemStage(i) == Stage[sub["stage"]]
        got = {
            "qStart": s.getQStart(i),
            "nq": s.getNQ(i),
            "uStart": s.getUStart(i),
            "nu": s.getNU(i),
            "zStart": s.getZStart(i),
            "nz": s.getNZ(i),
            "qErrStart": s.getQErrStart(i),
            "nqerr": s.getNQErr(i),
            "uErrStart": s.getUErrStart(i),
            "nuerr": s.getNUErr(i),
            "udotErrStart": s.getUDotErrStart(i),
            "nudoterr": s.getNUDotErr(i),
            "multipliersStart": s.getMultipliersStart(i),
            "nmultipliers": s.getNMultipliers(i),
            "nEventTriggers": sum(s.getNEventTriggersByStage(i, g) for g in HOOK_STAGES),
        }
        assert got == {k: sub[k] for k in got}, sub["name"]


def test_layout_variants_return_to_default():
    """Switching a Model- or Instance-stage option back restores the default layout: the
    allocations made for the other mode were forgotten, not accumulated."""
    system, matter = _layout_system()
    s = system.realizeTopology()
    system.realize(s, Stage.Instance)
    default = (s.getNQErr(), s.getNUErr(), s.getNUDotErr())
    for dv in (matter.dv_euler, matter.dv_rod_off):
        matter.setDiscreteVariable(s, dv, True)
        system.realizeModel(s)
        system.realize(s, Stage.Instance)
        assert (s.getNQErr(), s.getNUErr(), s.getNUDotErr()) != default
        matter.setDiscreteVariable(s, dv, False)
        system.realizeModel(s)
        system.realize(s, Stage.Instance)
        assert (s.getNQErr(), s.getNUErr(), s.getNUDotErr()) == default
    np.testing.assert_array_equal(s.getQErrWeights(), np.ones(2))


# ------------------------------------------------- lock steps on the reference model


def _stage_multibody():
    """The reference model's tree, force elements and Rod (its Measure::Integrate and
    event handler do not take part in the lock steps or the matter's layout)."""
    built = build(_model()["model"])
    return built.system, built.matter, built.mobods


LOCK_STEPS = {
    "MobilizedBody::lock(s, Motion::Position) (pin)": lambda m, s: m[1].lock(s, Motion.Position),
    "MobilizedBody::unlock(s) (pin)": lambda m, s: m[1].unlock(s),
}


def test_lock_steps_of_stages_json():
    """Locking and unlocking are Instance-stage changes (the State falls back to Model)."""
    system, matter, mobods = _stage_multibody()
    s = system.realizeTopology()
    steps = [
        st
        for st in _model()["script"]
        if st["op"].startswith("MobilizedBody::") and "lock" in st["op"]
    ]
    assert {st["op"] for st in steps} == set(LOCK_STEPS)
    for step in steps:
        assert step["realize_first"]
        system.realize(s, Stage.Acceleration)
        LOCK_STEPS[step["op"]](mobods, s)
        assert s.getSystemStage() == Stage[step["stage"]], step["op"]
    assert not mobods[1].isLocked(s)


def test_locked_layout_of_the_matter_subsystem():
    """A lock does not change the State layout: motion multipliers are not State
    multipliers (the "pin locked" layout equals the default one)."""
    layouts = {v["variant"]: v["counts"] for v in _model()["layouts"]}
    for variant in ("quaternion mode", "quaternion mode, pin locked"):
        counts = layouts[variant]
        system, matter, mobods = _stage_multibody()
        s = system.realizeTopology()
        system.realize(s, Stage.Instance)
        if variant.endswith("pin locked"):
            mobods[1].lock(s)
            assert s.getSystemStage() == Stage.Model
            system.realize(s, Stage.Instance)
            assert mobods[1].isLocked(s)
            np.testing.assert_array_equal(matter.getKnownUDotIndex(s), [0])
        got = (
            s.getNQ(),
            s.getNU(),
            s.getNQErr(),
            s.getNUErr(),
            s.getNUDotErr(),
            s.getNMultipliers(),
        )
        assert got == tuple(
            counts[k] for k in ("nQ", "nU", "nQErr", "nUErr", "nUDotErr", "nMultipliers")
        )
        sub = next(x for x in counts["subsystems"] if x["name"] == "SimbodyMatterSubsystem")
        ix = matter.getMySubsystemIndex()
        assert (s.getNQ(ix), s.getNU(ix), s.getNQErr(ix), s.getNUErr(ix), s.getNUDotErr(ix)) == (
            sub["nq"],
            sub["nu"],
            sub["nqerr"],
            sub["nuerr"],
            sub["nudoterr"],
        )
        assert s.getNMultipliers(ix) == sub["nmultipliers"]


# ------------------------------------------------- the whole script on the reference model


def _whole_reference_model():
    """stage_model as stages.json describes it: the tree, force elements and Rod, plus its
    Measure::Integrate (zdot = 2, one z in the default subsystem) and a TriggeredEventHandler
    at Position stage whose witness is q_pin - 0.5."""
    from engine import Measure, TriggeredEventHandler

    built = build(_model()["model"])
    system = built.system
    ds = system.updDefaultSubsystem()
    Measure.Integrate(ds, Measure.Constant(ds, 2.0), Measure.Zero(ds))

    class PinPassesHalf(TriggeredEventHandler):
        def __init__(self) -> None:
            super().__init__(Stage.Position)

        def getValue(self, state) -> float:
            return built.mobods[1].getOneQ(state, 0) - 0.5

        def handleEvent(self, state, accuracy, shouldTerminate) -> None:
            pass

    system.addEventHandler(PinPassesHalf())
    return built


def test_whole_script_replayed_in_order_on_the_reference_model():
    """Every step of stages.json, in its order, on the real multibody model: the System
    stage after each step is the one Simbody 3.7 recorded (later steps run on whatever
    the earlier ones left, e.g. Euler-angle mode after setUseEulerAngles)."""
    built = _whole_reference_model()
    system, matter, mobods = built.system, built.matter, built.mobods
    spring, gravity, discrete = built.elements[1], built.elements[0], built.elements[2]
    rod = built.constraints[0]
    copies: list[State] = []
    R = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])

    steps = {
        "MobilizedBody::setOneQ(s, 0, 0.3)": lambda s: mobods[1].setOneQ(s, 0, 0.3),
        "MobilizedBody::setOneU(s, 0, 0.4)": lambda s: mobods[1].setOneU(s, 0, 0.4),
        "MobilizedBody::setQToFitRotation(s, R)": lambda s: mobods[2].setQToFitRotation(s, R),
        "Force::MobilityLinearSpring::setStiffness(s, 5)": lambda s: spring.setStiffness(s, 5),
        "Force::MobilityLinearSpring::setQZero(s, 0.2)": lambda s: spring.setQZero(s, 0.2),
        "Force::Gravity::setMagnitude(s, 9)": lambda s: gravity.setMagnitude(s, 9),
        "Force::DiscreteForces::setOneMobilityForce(s, pin, 0, 1)": lambda s: (
            discrete.setOneMobilityForce(s, mobods[1], 0, 1)
        ),
        "Force::disable(s) (spring)": lambda s: spring.disable(s),
        "Force::enable(s) (spring)": lambda s: spring.enable(s),
        "Constraint::Rod::setRodLength(s, 0.75)": lambda s: rod.setRodLength(s, 0.75),
        "matter.setConstraintIsDisabled(s, rod, true)": lambda s: matter.setConstraintIsDisabled(
            s, rod.getConstraintIndex(), True
        ),
        "matter.setConstraintIsDisabled(s, rod, false)": lambda s: matter.setConstraintIsDisabled(
            s, rod.getConstraintIndex(), False
        ),
        "MobilizedBody::lock(s, Motion::Position) (pin)": lambda s: mobods[1].lock(
            s, Motion.Position
        ),
        "MobilizedBody::unlock(s) (pin)": lambda s: mobods[1].unlock(s),
        "matter.setUseEulerAngles(s, true)": lambda s: matter.setUseEulerAngles(s, True),
        "matter.normalizeQuaternions(s) (Euler mode: nothing to do)": lambda s: (
            matter.normalizeQuaternions(s)
        ),
        "s.setQ(q)": lambda s: s.setQ(s.getQ().copy()),
        "s.setU(u)": lambda s: s.setU(s.getU().copy()),
        "s.setZ(z)": lambda s: s.setZ(s.getZ().copy()),
    }
    s = None
    for step in _model()["script"]:
        op, expected = step["op"], Stage[step["stage"]]
        if op == "State s = system.realizeTopology()":
            s = system.realizeTopology()
            got = s.getSystemStage()
        else:
            if step["realize_first"]:
                system.realize(s, Stage.Acceleration)
            if op in steps:
                steps[op](s)
            else:
                FRAMEWORK_STEPS[op](system, s, copies)
            got = copies[-1].getSystemStage() if "COPY" in op else s.getSystemStage()
        assert got == expected, op
    assert matter.getUseEulerAngles(s)  # the script ends in Euler-angle mode
