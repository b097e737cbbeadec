"""Reversed mobilizers (Simbody's ``MobilizedBody::Reverse`` direction argument).

Simbody keeps F on the parent and M on the child of a reversed mobilizer, but q and u mean what
they mean for the mobilizer defined from the child to the parent: the type's kinematics give
X_MF(q) and V_MF(u), and the body moves with X_FM = ~X_MF. The reference data has no reversed
cases (CONVENTIONS.md), so these are physics oracles: a reversed mobilizer's X_FM and V_FM are the
inverse and the reversed relative velocity of the forward one at the same q and u, its body
accelerations are the time derivative of its velocities, a reversed Pin at q is the forward Pin
at -q, M matches the O(n) operators and a reversed chain conserves energy.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Force,
    GeneralForceSubsystem,
    Inertia,
    InvalidArgumentError,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    TimeStepper,
    Transform,
    Vec3,
    XAxis,
    YAxis,
    ZAxis,
)
from engine.math import reverseRelativeVelocity

# (type, extra constructor arguments)
TYPES = [
    ("Pin", ()),
    ("Slider", ()),
    ("Screw", (0.3,)),
    ("Universal", ()),
    ("Cylinder", ()),
    ("BendStretch", ()),
    ("Planar", ()),
    ("Gimbal", ()),
    ("Bushing", ()),
    ("Ball", ()),
    ("Free", ()),
    ("Translation", ()),
    ("Ellipsoid", (Vec3(0.5, 0.4, 0.3),)),
    ("LineOrientation", ()),
    ("FreeLine", ()),
    ("SphericalCoords", ()),
]

X_PF = Transform(Rotation(0.3, XAxis), Vec3(0.1, 0.2, 0.3))
X_BM = Transform(Rotation(-0.4, YAxis), Vec3(0.0, 0.5, -0.1))


def _body() -> Body:
    return Body.Rigid(
        MassProperties(2.0, Vec3(0.1, -0.7, 0.2), Inertia(0.3, 0.4, 0.5, 0.01, 0.02, 0.03))
    )


def _model(typ: str, extra: tuple, reversed_: bool, euler: bool = False):
    """Ground - <typ, maybe reversed> - body - Pin - body, with gravity."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, Vec3(0, -9.8, 0))
    args = (matter.Ground(), X_PF, _body(), X_BM, *extra)
    if reversed_:
        args = (*args, MobilizedBody.Reverse)
    mobod = getattr(MobilizedBody, typ)(*args)
    tip = MobilizedBody.Pin(mobod, Transform(Vec3(0.2, -0.3, 0.1)), _body(), Transform())
    state = system.realizeTopology()
    matter.setUseEulerAngles(state, euler)
    system.realizeModel(state)
    return system, matter, mobod, tip, state


def _set_state(mobod, tip, state, seed: int) -> None:
    rng = np.random.default_rng(seed)
    nq, nu = mobod.getNumQ(state), mobod.getNumU(state)
    q = 0.4 * rng.standard_normal(nq)
    if nq == 4 or nq == 7:  # a quaternion first
        q[:4] = q[:4] + np.array([1.0, 0, 0, 0])
        q[:4] /= np.linalg.norm(q[:4])
    mobod.setQ(state, q)
    mobod.setU(state, rng.standard_normal(nu))
    tip.setOneQ(state, 0, 0.3)
    tip.setOneU(state, 0, -0.8)


@pytest.mark.parametrize("euler", [False, True])
@pytest.mark.parametrize(("typ", "extra"), TYPES)
def test_reversed_is_the_inverse_of_the_forward_mobilizer(typ, extra, euler):
    fsys, fmatter, fwd, ftip, fstate = _model(typ, extra, False, euler)
    rsys, rmatter, rev, rtip, rstate = _model(typ, extra, True, euler)
    assert rev.isReversed() and not fwd.isReversed()
    for mobod, tip, state in ((fwd, ftip, fstate), (rev, rtip, rstate)):
        _set_state(mobod, tip, state, 7)
    fsys.realize(fstate, Stage.Velocity)
    rsys.realize(rstate, Stage.Velocity)
    X_MF = fwd.getMobilizerTransform(fstate)  # the type's X(q): X_MF of the reversed one
    X_FM = rev.getMobilizerTransform(rstate)
    np.testing.assert_allclose(X_FM.toMat44(), (~X_MF).toMat44(), atol=1e-12)
    V_MF = fwd.getMobilizerVelocity(fstate)
    V_FM = rev.getMobilizerVelocity(rstate)
    np.testing.assert_allclose(V_FM, reverseRelativeVelocity(X_MF, V_MF), atol=1e-12)
    # The body frame follows from the frames as given: X_GB = X_PF X_FM ~X_BM.
    X_GB = X_PF * X_FM * ~X_BM
    np.testing.assert_allclose(rev.getBodyTransform(rstate).toMat44(), X_GB.toMat44(), atol=1e-12)
    # qdot = N u is the forward type's.
    np.testing.assert_allclose(rev.getQDot(rstate), fwd.getQDot(fstate), atol=1e-12)


@pytest.mark.parametrize(("typ", "extra"), TYPES)
def test_reversed_accelerations_are_the_derivative_of_the_velocities(typ, extra):
    system, matter, rev, tip, state = _model(typ, extra, True)
    _set_state(rev, tip, state, 11)
    system.realize(state, Stage.Acceleration)
    A = np.array([matter.getMobilizedBody(b).getBodyAcceleration(state) for b in (1, 2)])
    q0, u0 = np.array(state.getQ()), np.array(state.getU())
    qdot, udot = np.array(state.getQDot()), np.array(state.getUDot())

    def velocities(h):
        s = state.copy()
        s.updQ()[:] = q0 + h * qdot
        s.updU()[:] = u0 + h * udot
        system.realize(s, Stage.Velocity)
        return np.array([matter.getMobilizedBody(b).getBodyVelocity(s) for b in (1, 2)])

    h = 1e-6
    numeric = (velocities(h) - velocities(-h)) / (2 * h)
    np.testing.assert_allclose(A, numeric, atol=2e-6 * max(1.0, np.abs(A).max()))


@pytest.mark.parametrize(
    ("typ", "extra"), [("Free", ()), ("Gimbal", ()), ("Ellipsoid", TYPES[12][1])]
)
def test_reversed_mass_matrix_matches_the_operators(typ, extra):
    system, matter, rev, tip, state = _model(typ, extra, True)
    _set_state(rev, tip, state, 3)
    system.realize(state, Stage.Position)
    M = matter.calcM(state)
    n = M.shape[0]
    cols = np.column_stack([matter.multiplyByM(state, np.eye(n)[k]) for k in range(n)])
    np.testing.assert_allclose(M, cols, atol=1e-12)
    np.testing.assert_allclose(matter.calcMInv(state) @ M, np.eye(n), atol=1e-10)


def test_reversed_pin_is_the_forward_pin_at_minus_q():
    fsys, fmatter, fwd, ftip, fstate = _model("Pin", (), False)
    rsys, rmatter, rev, rtip, rstate = _model("Pin", (), True)
    fwd.setOneQ(fstate, 0, -0.7)
    fwd.setOneU(fstate, 0, -1.3)
    rev.setOneQ(rstate, 0, 0.7)
    rev.setOneU(rstate, 0, 1.3)
    for s, st in ((fsys, fstate), (rsys, rstate)):
        s.realize(st, Stage.Acceleration)
    for b in (1, 2):
        fb, rb = fmatter.getMobilizedBody(b), rmatter.getMobilizedBody(b)
        np.testing.assert_allclose(
            rb.getBodyTransform(rstate).toMat44(), fb.getBodyTransform(fstate).toMat44(), atol=1e-13
        )
        np.testing.assert_allclose(
            rb.getBodyVelocity(rstate), fb.getBodyVelocity(fstate), atol=1e-13
        )
        np.testing.assert_allclose(
            rb.getBodyAcceleration(rstate), fb.getBodyAcceleration(fstate), atol=1e-12
        )
    np.testing.assert_allclose(rev.getUDot(rstate), -fwd.getUDot(fstate), atol=1e-12)


def test_reversed_free_ball_chain_conserves_energy():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, Vec3(0, -9.8, 0))
    a = MobilizedBody.Ball(
        matter.Ground(), Transform(), _body(), Transform(Vec3(0, 1, 0)), MobilizedBody.Reverse
    )
    b = MobilizedBody.Universal(
        a, Transform(Vec3(0, -0.5, 0)), _body(), X_BM, direction=MobilizedBody.Reverse
    )
    state = system.realizeTopology()
    a.setQ(state, [0.9, 0.3, -0.2, 0.1])
    a.setU(state, [0.5, -1.0, 2.0])
    b.setU(state, [1.0, -0.5])
    system.realize(state, Stage.Velocity)
    e0 = system.calcEnergy(state)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-8)
    ts = TimeStepper(system, integ)
    ts.initialize(state)
    ts.stepTo(1.0)
    final = integ.getState()
    system.realize(final, Stage.Velocity)
    assert abs(system.calcEnergy(final) - e0) < 1e-5 * max(1.0, abs(e0))


def test_direction_arguments():
    assert MobilizedBody.Direction.Reverse == MobilizedBody.Reverse
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    pin = MobilizedBody.Pin(matter.Ground(), _body(), MobilizedBody.Reverse)
    fwd = MobilizedBody.Pin(pin, _body(), MobilizedBody.Forward)
    screw = MobilizedBody.Screw(fwd, Transform(), _body(), Transform(), 0.2, MobilizedBody.Reverse)
    assert pin.isReversed() and not fwd.isReversed() and screw.isReversed()
    assert MobilizedBody.Pin(pin, _body(), direction=True).isReversed()
    with pytest.raises(InvalidArgumentError, match="direction"):
        MobilizedBody.Pin(pin, _body(), direction="backwards")
    assert ZAxis is not None


@pytest.mark.parametrize(("typ", "extra"), [("Free", ()), ("Bushing", ()), ("Pin", ())])
def test_reversed_fits_reproduce_the_pose_and_velocity(typ, extra):
    system, matter, rev, tip, state = _model(typ, extra, True)
    _set_state(rev, tip, state, 5)
    system.realize(state, Stage.Velocity)
    X_FM = rev.getMobilizerTransform(state)
    V_FM = rev.getMobilizerVelocity(state)
    q, u = np.array(rev.getQ(state)), np.array(rev.getU(state))
    rev.setQ(state, rev.getDefaultQ())
    rev.setQToFitTransform(state, X_FM)
    np.testing.assert_allclose(rev.getQ(state), q, atol=1e-10)
    rev.setU(state, np.zeros(u.size))
    rev.setUToFitVelocity(state, V_FM)
    np.testing.assert_allclose(rev.getU(state), u, atol=1e-10)
    rev.setU(state, np.zeros(u.size))
    rev.setUToFitAngularVelocity(state, V_FM[0])
    rev.setUToFitLinearVelocity(state, V_FM[1])
    np.testing.assert_allclose(rev.getU(state), u, atol=1e-10)


def test_custom_and_function_based_take_the_direction_argument():
    """Simbody's Custom and FunctionBased constructors take a Direction too (positional or
    ``direction=``); test_reversed_custom_mobilizers.py checks the reversed kinematics."""
    from engine import Function

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    linear = Function.Linear([1.0, 0.0])
    zero = Function.Constant(0.0, 1)
    functions = [zero, zero, linear, zero, zero, zero]
    coords = [[0]] * 6
    args = (matter.Ground(), Transform(), _body(), Transform(), 1, functions, coords)
    fb = MobilizedBody.FunctionBased(*args, MobilizedBody.Forward)
    assert not fb.isReversed()
    assert MobilizedBody.FunctionBased(*args, MobilizedBody.Reverse).isReversed()
    assert MobilizedBody.FunctionBased(*args, direction=MobilizedBody.Reverse).isReversed()
    impl = fb.getImplementation()
    with pytest.raises(InvalidArgumentError, match="already has a MobilizedBody"):
        MobilizedBody.Custom(matter.Ground(), _body(), impl, MobilizedBody.Reverse)
