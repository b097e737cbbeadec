"""Every public engine method that takes a stage refuses a bad one (a string, a float, a bool,
None, an array, an integer naming no stage) with StageOutOfRangeError naming the method and
the argument, before anything in the State changes; and takes a Stage member, a Python int
and a numpy integer alike (issue 22).

The methods are found from the engine's classes by their parameter names (``STAGE_PARAMS``);
each needs a call in ``CALLS`` or a reason in ``EXEMPT``, so a new method taking a stage fails
``test_every_stage_method_has_a_call`` until it is listed here. Methods taking the stage
through ``*args`` (or ``**kwargs``) cannot be found that way and are listed in
``VARARG_CALLS``."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import engine
from engine import (
    Body,
    Constraint,
    DecorationSubsystem,
    Force,
    GeneralForceSubsystem,
    HandleEventsResults,
    MassProperties,
    Measure,
    MobilizedBody,
    MultibodySystem,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    SmoothSphereHalfSpaceForce,
    Stage,
    StageOutOfRangeError,
    Transform,
    TriggeredEventHandler,
    TriggeredEventReporter,
    UnitInertia,
    Vec3,
)

#: parameter names that hold a stage
STAGE_PARAMS = {
    "stage",
    "invalidates",
    "invalidated",
    "dependsOn",
    "updateDependsOn",
    "earliest",
    "latest",
    "requiredStage",
}

#: methods with a stage parameter that are not checked here, with the reason
EXEMPT = {
    "Impl": "System-protocol hooks, called by the System with a Stage it checked",
    "PerSubsystemInfo.": "a State's bookkeeping, given stages by the State's checked methods",
    "SharedStage.": "a State's bookkeeping, given stages by the State's checked methods",
    "CustomImplementation.": "the user's hook; Force.Custom checks the stage before calling it",
    "CacheEntryInfo.": "a State's record, made by the State's checked allocation methods",
    "DiscreteVarInfo.": "a State's record, made by the State's checked allocation methods",
}

BAD_VALUES = {
    "string": "Position",
    "float": 2.5,
    "integral_float": 5.0,
    "numpy_float": np.float64(5.0),
    "bool": True,
    "None": None,
    "array": np.array([1, 2]),
    "array_0d": np.array(5),
    "too_large": 99,
    "negative": -1,
    "numpy_too_large": np.int64(11),
}


class _Generator:
    def __call__(self, state, geometry) -> None:
        pass


class _Handler(TriggeredEventHandler):
    pass


class _NoForce(Force.Custom.Implementation):
    def calcForce(self, state, bodyForces, particleForces, mobilityForces) -> None:
        pass

    def calcPotentialEnergy(self, state) -> float:
        return 0.0


def _model():
    """A pendulum of two Pin links and three Free bodies held by a Rod, a Ball and a Weld,
    with a spring, a smooth sphere contact force, a Custom force, a DecorationSubsystem, a
    Measure.Result and a Measure.Variable; and its State realized to Acceleration."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    deco = DecorationSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0, -0.5, 0), UnitInertia(0.1, 0.02, 0.1)))
    link1 = MobilizedBody.Pin(matter.Ground(), Transform(Vec3(0, 1, 0)), body, Transform())
    link2 = MobilizedBody.Pin(link1, Transform(Vec3(0, -1, 0)), body, Transform())
    free = [
        MobilizedBody.Free(matter.Ground(), Transform(Vec3(2.0 * k, 0, 0)), body, Transform())
        for k in range(1, 4)
    ]
    rod = Constraint.Rod(link1, free[0], 2.0)
    ball = Constraint.Ball(link2, Vec3(0, 0, 0), free[1], Vec3(0, 0, 0))
    weld = Constraint.Weld(matter.Ground(), Transform(Vec3(6, 0, 0)), free[2], Transform())
    spring = Force.TwoPointLinearSpring(forces, link1, Vec3(0), free[0], Vec3(0), 10.0, 1.0)
    sphere = SmoothSphereHalfSpaceForce(forces)
    sphere.setContactSphereBody(free[0])
    sphere.setContactSphereRadius(0.1)
    sphere.setContactHalfSpaceBody(matter.Ground())
    custom = Force.Custom(forces, _NoForce())
    result = Measure.Result(matter, Stage.Time, Stage.Position)
    variable = Measure.Variable(matter, Stage.Dynamics, 0.0)
    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)
    return {
        "system": system,
        "matter": matter,
        "forces": forces,
        "deco": deco,
        "rod": rod,
        "ball": ball,
        "weld": weld,
        "spring": spring,
        "sphere": sphere,
        "custom": custom,
        "result": result,
        "variable": variable,
        "state": state,
        "integrator": RungeKuttaMersonIntegrator(system),
        "results": HandleEventsResults(),
    }


P = Stage.Position

#: (Class.method, parameter) -> (the object the method is called on, the arguments after
#: it) for the stage value ``v``; the method called is the one the class defines
CALLS = {
    ("System.realize", "stage"): lambda m, v: (m["system"], (m["state"], v)),
    ("System.getSubsystemRealizationOrder", "stage"): lambda m, v: (m["system"], (v,)),
    ("System.getNumRealizationsOfThisStage", "stage"): lambda m, v: (m["system"], (v,)),
    ("System.getNumHandlerCallsThatChangedStage", "stage"): lambda m, v: (m["system"], (v,)),
    ("System.calcDecorativeGeometryAndAppend", "stage"): lambda m, v: (
        m["system"],
        (m["state"], v, []),
    ),
    ("MultibodySystem.getRigidBodyForces", "stage"): lambda m, v: (m["system"], (m["state"], v)),
    ("MultibodySystem.getMobilityForces", "stage"): lambda m, v: (m["system"], (m["state"], v)),
    ("State.getLastInvalidationCause", "stage"): lambda m, v: (m["state"], (v,)),
    ("State.advanceSubsystemToStage", "stage"): lambda m, v: (m["state"], (0, v)),
    ("State.advanceSystemToStage", "stage"): lambda m, v: (m["state"], (v,)),
    ("State.invalidateAll", "stage"): lambda m, v: (m["state"], (v,)),
    ("State.invalidateAllCacheAtOrAbove", "stage"): lambda m, v: (m["state"], (v,)),
    ("State.allocateEventTrigger", "stage"): lambda m, v: (m["state"], (0, v, 1)),
    ("State.allocateDiscreteVariable", "invalidates"): lambda m, v: (m["state"], (0, v, 0.0)),
    ("State.allocateAutoUpdateDiscreteVariable", "invalidates"): lambda m, v: (
        m["state"],
        (0, v, 0.0, P),
    ),
    ("State.allocateAutoUpdateDiscreteVariable", "updateDependsOn"): lambda m, v: (
        m["state"],
        (0, Stage.Dynamics, 0.0, v),
    ),
    ("State.allocateLazyCacheEntry", "earliest"): lambda m, v: (m["state"], (0, v, 0.0)),
    ("State.allocateCacheEntryWithPrerequisites", "earliest"): lambda m, v: (
        m["state"],
        (0, v, Stage.Dynamics, True, False, False, (), (), 0.0),
    ),
    ("State.allocateCacheEntryWithPrerequisites", "latest"): lambda m, v: (
        m["state"],
        (0, P, v, True, False, False, (), (), 0.0),
    ),
    ("Subsystem.allocateEventTriggersByStage", "stage"): lambda m, v: (
        m["matter"],
        (m["state"], v, 1),
    ),
    ("Subsystem.allocateDiscreteVariable", "invalidates"): lambda m, v: (
        m["matter"],
        (m["state"], v, 0.0),
    ),
    ("Subsystem.allocateAutoUpdateDiscreteVariable", "invalidates"): lambda m, v: (
        m["matter"],
        (m["state"], v, 0.0, P),
    ),
    ("Subsystem.allocateAutoUpdateDiscreteVariable", "updateDependsOn"): lambda m, v: (
        m["matter"],
        (m["state"], Stage.Dynamics, 0.0, v),
    ),
    ("Subsystem.allocateLazyCacheEntry", "earliest"): lambda m, v: (
        m["matter"],
        (m["state"], v, 0.0),
    ),
    ("Subsystem.getEventTriggersByStage", "stage"): lambda m, v: (m["matter"], (m["state"], v)),
    ("Subsystem.updEventTriggersByStage", "stage"): lambda m, v: (m["matter"], (m["state"], v)),
    ("Subsystem.getEventTriggerStartByStage", "stage"): lambda m, v: (
        m["matter"],
        (m["state"], v),
    ),
    ("Subsystem.getNEventTriggersByStage", "stage"): lambda m, v: (m["matter"], (m["state"], v)),
    ("Subsystem.advanceToStage", "stage"): lambda m, v: (m["matter"], (m["state"], v)),
    ("MatterPrescribedMotionMixin.calcMotionErrors", "stage"): lambda m, v: (
        m["matter"],
        (m["state"], v),
    ),
    ("DecorationSubsystem.addDecorationGenerator", "stage"): lambda m, v: (
        m["deco"],
        (v, _Generator()),
    ),
    ("HandleEventsResults.setLowestModifiedStage", "stage"): lambda m, v: (m["results"], (v,)),
    ("TriggeredEventHandler.__init__", "requiredStage"): lambda m, v: (
        _Handler.__new__(_Handler),
        (v,),
    ),
    ("TriggeredEventReporter.__init__", "requiredStage"): lambda m, v: (
        TriggeredEventReporter.__new__(TriggeredEventReporter),
        (v,),
    ),
    ("Integrator.reinitialize", "stage"): lambda m, v: (m["integrator"], (v, False)),
    ("Result.setDependsOnStage", "dependsOn"): lambda m, v: (m["result"], (v,)),
    ("Result.setInvalidatedStage", "invalidated"): lambda m, v: (m["result"], (v,)),
    ("Variable.setInvalidatedStage", "invalidates"): lambda m, v: (m["variable"], (v,)),
    ("Force.calcDecorativeGeometryAndAppend", "stage"): lambda m, v: (
        m["spring"],
        (m["state"], v, []),
    ),
    ("Custom.calcDecorativeGeometryAndAppend", "stage"): lambda m, v: (
        m["custom"],
        (m["state"], v, []),
    ),
    ("TwoPointForce.calcDecorativeGeometryAndAppend", "stage"): lambda m, v: (
        m["spring"],
        (m["state"], v, []),
    ),
    ("SmoothSphereHalfSpaceForce.calcDecorativeGeometryAndAppend", "stage"): lambda m, v: (
        m["sphere"],
        (m["state"], v, []),
    ),
    ("Constraint.calcDecorativeGeometryAndAppend", "stage"): lambda m, v: (
        m["rod"],
        (m["state"], v, []),
    ),
    ("Rod.calcDecorativeGeometryAndAppend", "stage"): lambda m, v: (
        m["rod"],
        (m["state"], v, []),
    ),
    ("Ball.calcDecorativeGeometryAndAppend", "stage"): lambda m, v: (
        m["ball"],
        (m["state"], v, []),
    ),
    ("Weld.calcDecorativeGeometryAndAppend", "stage"): lambda m, v: (
        m["weld"],
        (m["state"], v, []),
    ),
}

#: methods taking a stage through *args or **kwargs: (Class.method, parameter) -> call, as
#: in CALLS; the parameter is the name the refusal gives (with a trailing space for the
#: ``(subsys, stage)`` form of the State's event trigger accessors, to keep the keys apart)
VARARG_CALLS = {
    ("State.getNEventTriggersByStage", "stage"): lambda m, v: (m["state"], (v,)),
    ("State.getNEventTriggersByStage", "stage "): lambda m, v: (m["state"], (0, v)),
    ("State.getEventTriggerStartByStage", "stage"): lambda m, v: (m["state"], (v,)),
    ("State.getEventTriggerStartByStage", "stage "): lambda m, v: (m["state"], (0, v)),
    ("State.getEventTriggersByStage", "stage"): lambda m, v: (m["state"], (v,)),
    ("State.getEventTriggersByStage", "stage "): lambda m, v: (m["state"], (0, v)),
    ("State.updEventTriggersByStage", "stage"): lambda m, v: (m["state"], (v,)),
    ("State.updEventTriggersByStage", "stage "): lambda m, v: (m["state"], (0, v)),
    ("State.allocateCacheEntry", "stage"): lambda m, v: (m["state"], (0, v, 0.0)),
    ("State.allocateCacheEntry", "earliest"): lambda m, v: (m["state"], (0, v, P, 0.0)),
    ("State.allocateCacheEntry", "latest"): lambda m, v: (m["state"], (0, P, v, 0.0)),
    ("Result.__init__", "dependsOn"): lambda m, v: (
        Measure.Result.__new__(Measure.Result),
        (m["matter"], v, Stage.Infinity),
    ),
    ("Result.__init__", "invalidated"): lambda m, v: (
        Measure.Result.__new__(Measure.Result),
        (m["matter"], Stage.Time, v),
    ),
    ("Variable.__init__", "invalidates"): lambda m, v: (
        Measure.Variable.__new__(Measure.Variable),
        (m["matter"], v, 0.0),
    ),
}

ALL_CALLS = {**CALLS, **VARARG_CALLS}


def _engine_classes() -> list[type]:
    classes = {}
    for info in pkgutil.walk_packages(engine.__path__, "engine."):
        if ".kernels" in info.name or info.name.endswith("_warmup"):
            continue
        module = importlib.import_module(info.name)
        for obj in vars(module).values():
            if inspect.isclass(obj) and obj.__module__ == info.name:
                classes[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return list(classes.values())


def _stage_methods() -> set[tuple[str, str]]:
    """(Class.method, parameter) of every public method (and constructor) of the engine's
    classes with a parameter in STAGE_PARAMS, named by the class that defines it."""
    found = set()
    for cls in _engine_classes():
        for name, fn in vars(cls).items():
            if name.startswith("_") and name != "__init__":
                continue
            if isinstance(fn, (staticmethod, classmethod)):
                fn = fn.__func__
            if not inspect.isfunction(fn):
                continue
            for p in inspect.signature(fn).parameters:
                if p in STAGE_PARAMS:  # (by the class that wrote it: some classes copy
                    found.add((fn.__qualname__, p))  # their base's functions in)
    return found


def _exempt(method: str) -> bool:
    return any(part in method for part in EXEMPT)


FOUND = _stage_methods()


def test_every_stage_method_has_a_call():
    unlisted = {key for key in FOUND if not _exempt(key[0]) and key not in CALLS}
    assert not unlisted, f"add these to CALLS (or EXEMPT, with the reason): {sorted(unlisted)}"
    stale = set(CALLS) - FOUND
    assert not stale, f"no longer found (renamed?): {sorted(stale)}"
    for name in ("System.realize", "State.invalidateAll", "Integrator.reinitialize"):
        assert (name, "stage") in CALLS
    assert len(CALLS) + len(VARARG_CALLS) >= 55


def _class_of(method: str, obj) -> type:
    cls_name = method.rsplit(".", 1)[0]
    for cls in type(obj).__mro__:
        if cls.__qualname__ == cls_name:
            return cls
    raise AssertionError(f"{method}: {type(obj).__name__} is not a {cls_name}")


def _call(model: dict, key: tuple[str, str], value):
    method = key[0]
    obj, args = ALL_CALLS[key](model, value)
    fn = vars(_class_of(method, obj))[method.rsplit(".", 1)[1]]
    return fn(obj, *args)


def _fingerprint(model: dict) -> tuple:
    """What a refused call must leave as it was: the State's stages, their versions and
    invalidation causes, the variables, each subsystem's allocations (discrete variables,
    cache entries, event triggers); and the stages kept by the objects the calls change."""
    state = model["state"]
    subs = [state.getPerSubsystemInfo(i) for i in range(state.getNumSubsystems())]
    return (
        state.getSystemStage(),
        tuple(state.getSystemStageVersions()),
        tuple(state.getLastInvalidationCause(s) for s in Stage),
        tuple(sub.stage for sub in subs),
        tuple(tuple(sub.stage_versions) for sub in subs),
        tuple((len(sub.discrete), len(sub.cache)) for sub in subs),
        tuple(tuple(len(r) for r in sub.trigger_requests) for sub in subs),
        tuple(
            tuple(getattr(entry, "realized_version", None) for entry in sub.cache) for sub in subs
        ),
        state.getY().tobytes(),
        model["result"].getDependsOnStage(),
        model["result"].getInvalidatedStage(),
        model["variable"].getInvalidatedStage(),
        model["deco"].getNumDecorationGenerators(),
        model["results"].getLowestModifiedStage(),
    )


@pytest.fixture(scope="module")
def model():
    return _model()


@pytest.fixture(scope="module")
def at_time():
    """The same model with its State at Time stage (so realize has work to do)."""
    built = _model()
    built["state"].invalidateAll(Stage.Position)
    assert built["state"].getSystemStage() == Stage.Time
    return built


BAD_CASES = [(key, bad) for key in ALL_CALLS for bad in BAD_VALUES]


@pytest.mark.parametrize(("key", "bad"), BAD_CASES, ids=lambda c: str(c))
def test_a_bad_stage_is_refused_with_a_typed_error_before_anything_changes(
    model, at_time, key, bad
):
    built = at_time if key[0] == "System.realize" else model
    before = _fingerprint(built)
    with pytest.raises(StageOutOfRangeError) as info:
        _call(built, key, BAD_VALUES[bad])
    message = str(info.value)
    method = key[0].rsplit(".", 1)
    name = method[0] if method[1] == "__init__" else method[1]
    assert name in message, message
    assert f"{key[1].strip()}:" in message, message
    assert "expected a Stage from" in message, message
    assert repr(BAD_VALUES[bad]) in message, message
    assert _fingerprint(built) == before


def _outcome(model: dict, key, value) -> str:
    try:
        result = _call(model, key, value)
    except Exception as exc:  # noqa: BLE001 (compared across the forms of one stage)
        return f"raised {type(exc).__name__}"
    return f"returned {type(result).__name__}"


@pytest.mark.parametrize("key", list(ALL_CALLS), ids=str)
def test_a_stage_given_as_an_int_or_numpy_integer_acts_as_the_stage(key):
    """Each form of the same stage, on a fresh model, does the same (the same kind of
    result, or the same kind of refusal for a stage the method does not take there), and
    a valid call is never refused for the form of its stage."""
    outcomes = {}
    for form in (P, int(P), np.int64(P), np.int32(P)):
        outcomes[type(form).__name__] = _outcome(_model(), key, form)
    assert len(set(outcomes.values())) == 1, outcomes
    assert "StageOutOfRangeError" not in outcomes["int"] or key[0] in {
        "State.advanceSubsystemToStage",
        "State.advanceSystemToStage",
        "Subsystem.advanceToStage",
    }, outcomes


def test_the_issue_examples(at_time):
    system, state = at_time["system"], at_time["state"]
    for bad in ("Position", np.array([1, 2]), 2.5, None, 99):
        with pytest.raises(StageOutOfRangeError, match=r"realize: stage: .*Infinity \(10\)"):
            system.realize(state, bad)
    with pytest.raises(StageOutOfRangeError, match="calcDecorativeGeometryAndAppend: stage"):
        system.calcDecorativeGeometryAndAppend(state, "Position")
    for bad in (2.5, True):
        with pytest.raises(StageOutOfRangeError, match="invalidateAll: stage"):
            state.invalidateAll(bad)
    assert state.getSystemStage() == Stage.Time
    system.realize(state, np.int64(Stage.Position))
    assert state.getSystemStage() == Stage.Position
    system.realize(state, int(Stage.Velocity))
    assert state.getSystemStage() == Stage.Velocity
