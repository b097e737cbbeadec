"""The compiled mobility constraints (LINEAR_COORDINATES in
engine/multibody/kernels/constraint_kernels.py: a CoordinateCoupler with a Function.Linear,
a ConstantCoordinate, on mobilizers with qdot = u) against the constraints' Python
methods: the same accelerations, multipliers, constraint errors, projections and motion;
the couplers without such a form keep the Python path and say why."""

from __future__ import annotations

import numpy as np
import pytest

import engine.multibody.fused_realization as fused_realization
import engine.multibody.matter.constraints as matter_constraints
from engine import (
    Constraint,
    MobilizedBody,
    RungeKuttaMersonIntegrator,
    Stage,
    TimeStepper,
    Transform,
    Vec3,
)
from engine.math.function import Function
from engine.multibody.constraints.compiled import compiled_constraints
from tests.engine.test_compiled_constraints import _body, _realized, _system


def model(kind: str, fused: bool = True):
    """A small System with mobility constraints and a State with generic q and u (the
    constraints need not be satisfied); ``fused`` False: realized stage by stage."""
    system, matter = _system()
    if not fused:
        system._fused_realization = None
    g = matter.Ground()
    if kind == "two_pins":
        # the follower pin turns at twice the leader's angle plus 0.1 (a URDF mimic)
        leader = MobilizedBody.Pin(g, Transform(), _body(), Transform())
        follower = MobilizedBody.Pin(leader, Transform(Vec3(0, -1, 0)), _body(), Transform())
        Constraint.CoordinateCoupler(
            matter, Function.Linear([2.0, -1.0, 0.1]), [leader, follower], [0, 0]
        )
    elif kind == "mixed":
        # a Ball first (its 4 q and 3 u: q and u indices differ after it), a coupler of
        # three coordinates on a Pin, a Slider and a Universal, a ConstantCoordinate, a Rod
        ball = MobilizedBody.Ball(g, Transform(), _body(), Transform())
        pin = MobilizedBody.Pin(ball, Transform(Vec3(0, -1, 0)), _body(), Transform())
        slider = MobilizedBody.Slider(pin, Transform(Vec3(0.2, -1, 0)), _body(), Transform())
        universal = MobilizedBody.Universal(g, Transform(Vec3(1, 0, 0)), _body(), Transform())
        cylinder = MobilizedBody.Cylinder(
            universal, Transform(Vec3(0, -1, 0)), _body(), Transform()
        )
        Constraint.CoordinateCoupler(
            matter,
            Function.Linear([0.5, -1.5, 0.75, 0.2]),
            [pin, slider, universal],
            [0, 0, 1],
        )
        Constraint.ConstantCoordinate(cylinder, 1, 0.3)
        Constraint.Rod(slider, Vec3(0, -0.5, 0), cylinder, Vec3(0, -0.5, 0), 1.2)
    else:  # pragma: no cover
        raise ValueError(kind)
    state = system.realizeTopology()
    system.realizeModel(state)
    rng = np.random.default_rng(11)
    q = np.array(state.getQ())
    state.updQ()[:] = q + 0.3 * rng.standard_normal(q.shape)
    state.updU()[:] = rng.standard_normal(state.getNU())
    system.realize(state, Stage.Position)
    return system, matter, state


def _python_path(monkeypatch):
    """Every constraint realized by its class's Python methods, stage by stage."""
    monkeypatch.setattr(matter_constraints, "compiled_constraints", lambda *args: None)
    monkeypatch.setattr(fused_realization, "compiled_constraints", lambda *args: None)


def _with_error_getters(system, matter, state):
    out = _realized(system, state)
    for i in range(matter.getNumConstraints()):
        c = matter.getConstraint(i)
        out[f"perr {i}"] = np.array(c.getPositionErrorsAsVector(state))
        out[f"pverr {i}"] = np.array(c.getVelocityErrorsAsVector(state))
        out[f"paerr {i}"] = np.array(c.getAccelerationErrorsAsVector(state))
        out[f"lambda {i}"] = np.array(c.getMultipliersAsVector(state))
        body_forces, mobility_forces = c.getConstraintForcesAsVectors(state)
        out[f"body forces {i}"] = np.array(body_forces)
        out[f"mobility forces {i}"] = np.array(mobility_forces)
    return out


def _assert_same(compiled: dict, python: dict) -> None:
    assert compiled.keys() == python.keys()
    scale = 1.0 + np.max(np.abs(python["udot"])) + np.max(np.abs(python["lambda"]))
    for name, value in python.items():
        np.testing.assert_allclose(compiled[name], value, rtol=0, atol=1e-12 * scale, err_msg=name)


@pytest.mark.parametrize("fused", [True, False])
@pytest.mark.parametrize("kind", ["two_pins", "mixed"])
def test_compiled_and_python_paths_agree(kind, fused, monkeypatch):
    system, matter, state = model(kind, fused)
    assert compiled_constraints(matter, state, matter._instance_info(state)) is not None
    if fused:
        assert system._fused_realization.whyNotFused(state) == ""
    compiled = _with_error_getters(system, matter, state)
    assert abs(compiled["lambda"]).max() > 0.1  # the constraints do work on this State
    _python_path(monkeypatch)
    system2, matter2, state2 = model(kind)
    assert "compiled form" in system2._fused_realization.whyNotFused(state2)
    _assert_same(compiled, _with_error_getters(system2, matter2, state2))


def _projected(system, state):
    state = state.copy()
    system.projectQ(state, 1e-10)
    system.projectU(state, 1e-10)
    return np.array(state.getQ()), np.array(state.getU())


def test_projections_agree_and_satisfy_the_coupler(monkeypatch):
    system, matter, state = model("mixed")
    assert compiled_constraints(matter, state, matter._instance_info(state)) is not None
    q, u = _projected(system, state)
    check = state.copy()
    check.setQ(q)
    check.setU(u)
    system.realize(check, Stage.Velocity)
    assert abs(np.asarray(check.getQErr())).max() < 1e-9
    assert abs(np.asarray(check.getUErr())).max() < 1e-9
    _python_path(monkeypatch)
    system2, _, state2 = model("mixed")
    q2, u2 = _projected(system2, state2)
    np.testing.assert_allclose(q, q2, rtol=0, atol=1e-12)
    np.testing.assert_allclose(u, u2, rtol=0, atol=1e-12)


def _trajectory(system, state, python_loop: bool = False, until: float = 0.3):
    """(final State, integrator, internal steps taken by the compiled stepping kernel) of
    RungeKuttaMerson at 1e-8 from ``state`` projected; ``python_loop``: one step at a time
    through the State."""
    system.projectQ(state, 1e-12)
    system.projectU(state, 1e-12)
    integrator = RungeKuttaMersonIntegrator(system)
    integrator.setAccuracy(1e-8)
    compiled_steps = integrator._takeCompiledSteps
    taken = [0]

    def counted(*args) -> int:
        n = 0 if python_loop else compiled_steps(*args)
        taken[0] += n
        return n

    integrator._takeCompiledSteps = counted
    stepper = TimeStepper(system, integrator)
    stepper.initialize(state)
    assert integrator.whyNotCompiledSteps() == ""
    stepper.stepTo(until)
    return stepper.getState(), integrator, taken[0]


def test_a_trajectory_of_the_coupled_pins_matches_the_python_path(monkeypatch):
    system, matter, state = model("two_pins")
    c, ci, taken = _trajectory(system, state)
    assert taken == ci.getNumStepsTaken() > 5  # every step in the compiled kernel
    q, u = np.array(c.getQ()), np.array(c.getU())
    assert q[1] == pytest.approx(2.0 * q[0] + 0.1, abs=1e-7)  # the mimic holds
    # the Python loop on the same compiled constraints: the same steps
    system, matter, state = model("two_pins")
    p, pi, taken = _trajectory(system, state, python_loop=True)
    assert taken == 0
    for stat in ("StepsTaken", "StepsAttempted", "Realizations", "QProjections", "UProjections"):
        assert getattr(ci, f"getNum{stat}")() == getattr(pi, f"getNum{stat}")(), stat
    np.testing.assert_allclose(q, p.getQ(), rtol=0, atol=1e-10)
    np.testing.assert_allclose(u, p.getU(), rtol=0, atol=1e-10)
    # the constraints' Python methods: the same motion within the integration accuracy
    _python_path(monkeypatch)
    system2, _, state2 = model("two_pins")
    system2.projectQ(state2, 1e-12)
    system2.projectU(state2, 1e-12)
    integrator = RungeKuttaMersonIntegrator(system2)
    integrator.setAccuracy(1e-8)
    stepper = TimeStepper(system2, integrator)
    stepper.initialize(state2)
    assert "compiled form" in integrator.whyNotCompiledSteps()
    stepper.stepTo(0.3)
    np.testing.assert_allclose(q, stepper.getState().getQ(), rtol=0, atol=1e-6)
    np.testing.assert_allclose(u, stepper.getState().getU(), rtol=0, atol=1e-5)


def test_couplers_without_a_compiled_form_keep_the_python_path_and_say_why():
    system, matter = _system()
    g = matter.Ground()
    a = MobilizedBody.Pin(g, Transform(), _body(), Transform())
    MobilizedBody.Pin(a, Transform(Vec3(0, -1, 0)), _body(), Transform())
    Constraint.CoordinateCoupler(matter, Function.Sinusoid(1.0, 2.0, 0.0), [a], [0])
    state = system.realizeTopology()
    system.realize(state, Stage.Instance)
    assert system._fused_realization.whyNotFused(state) == (
        "constraints without a compiled form are enabled (constraint 0, a CoordinateCoupler: "
        "its function is not a Function.Linear)"
    )

    system, matter = _system()
    g = matter.Ground()
    ball = MobilizedBody.Ball(g, Transform(), _body(), Transform())
    pin = MobilizedBody.Pin(ball, Transform(Vec3(0, -1, 0)), _body(), Transform())
    Constraint.CoordinateCoupler(matter, Function.Linear([1.0, -1.0, 0.0]), [ball, pin], [1, 0])
    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)  # the Python path realizes it
    assert system._fused_realization.whyNotFused(state) == (
        "constraints without a compiled form are enabled (constraint 0, a CoordinateCoupler: "
        "a coordinate's mobilizer (Ball) does not have qdot = u)"
    )


def test_a_new_constant_coordinate_value_reaches_the_compiled_errors():
    system, matter, state = model("mixed")
    held = matter.getConstraint(1)  # the ConstantCoordinate on the Cylinder's coordinate 1
    cylinder = held.getMobilizedBody()
    for value in (0.3, -0.45):
        held.setValue(state, value)
        system.realize(state, Stage.Position)
        assert compiled_constraints(matter, state, matter._instance_info(state)) is not None
        q = cylinder.getOneQ(state, 1)
        assert held.getPositionErrorsAsVector(state)[0] == pytest.approx(q - value, abs=1e-15)
