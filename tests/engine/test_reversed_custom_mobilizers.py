"""Reversed Custom and FunctionBased mobilizers (Simbody's ``MobilizedBody::Reverse`` direction
argument on ``MobilizedBody::Custom`` and ``MobilizedBody::FunctionBased``).

In Simbody a reversed Custom mobilizer's Implementation still gives X(q) and H u, but for the
joint from the body's M to the parent's F: X(q) = X_MF, H u = V_MF (in M), and the body moves
with X_FM = ~X_MF. Oracles, as for the built-in reversed mobilizers: a reversed Custom twin
of a built-in type (and a FunctionBased twin) moves exactly as the reversed built-in does; a
reversed Custom's X_FM, V_FM are the inverse and reversed velocity of the forward one at the
same q, u; body accelerations are the time derivative of the velocities; M matches the O(n)
operators; a reversed nonlinear FunctionBased chain conserves energy; the fits reproduce the
pose and velocity.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Force,
    Function,
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
from tests.engine.custom_mobilizer_examples import (
    CustomBallQuat,
    CustomPin,
    CustomUniversal,
)

C0 = Function.Constant(0, 0)
LINEAR = Function.Linear([1.0, 0.0])
X_PF = Transform(Rotation(0.3, XAxis), Vec3(0.1, 0.2, 0.3))
X_BM = Transform(Rotation(-0.4, YAxis), Vec3(0.0, 0.5, -0.1))


def _body() -> Body:
    return Body.Rigid(
        MassProperties(2.0, Vec3(0.1, -0.7, 0.2), Inertia(0.3, 0.4, 0.5, 0.01, 0.02, 0.03))
    )


def _knee(p, X, b, Y, *direction):
    """A nonlinear coupled FunctionBased mobilizer: angle q0 about z, translations along x
    and y that follow it, and a slide q1 along a tilted axis."""
    curve = Function.Custom(lambda x: 0.1 * np.sin(x[0]), 1)
    lift = Function.Polynomial([0.05, -0.02, 0.0])
    axes = [Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1), Vec3(1, 0, 0), Vec3(0, 1, 0)]
    axes.append(Vec3(0, 1, 1))
    functions = [C0, C0, LINEAR, curve, lift, LINEAR]
    coords = [[], [], [0], [0], [0], [1]]
    return MobilizedBody.FunctionBased(p, X, b, Y, 2, functions, coords, axes, *direction)


# name -> (reversed builder, reversed built-in twin or None)
REVERSED = {
    "CustomPin": (
        lambda p, X, b, Y: MobilizedBody.Custom(
            p, X, b, Y, CustomPin(p.getMatterSubsystem()), MobilizedBody.Reverse
        ),
        "Pin",
    ),
    "CustomUniversal": (
        lambda p, X, b, Y: MobilizedBody.Custom(
            p, X, b, Y, CustomUniversal(p.getMatterSubsystem()), direction=MobilizedBody.Reverse
        ),
        "Universal",
    ),
    "CustomBallQuat": (
        lambda p, X, b, Y: MobilizedBody.Custom(
            p, X, b, Y, CustomBallQuat(p.getMatterSubsystem()), MobilizedBody.Reverse
        ),
        "Ball",
    ),
    "FunctionBasedScrew": (
        lambda p, X, b, Y: MobilizedBody.FunctionBased(
            p,
            X,
            b,
            Y,
            1,
            [C0, C0, LINEAR, C0, C0, Function.Linear([0.3, 0.0])],
            [[], [], [0], [], [], [0]],
            MobilizedBody.Reverse,
        ),
        "Screw",
    ),
    "FunctionBasedGimbal": (
        lambda p, X, b, Y: MobilizedBody.FunctionBased(
            p,
            X,
            b,
            Y,
            3,
            [LINEAR, LINEAR, LINEAR, C0, C0, C0],
            [[0], [1], [2], [], [], []],
            MobilizedBody.Reverse,
        ),
        "Gimbal",
    ),
    "FunctionBasedPlanar": (
        lambda p, X, b, Y: MobilizedBody.FunctionBased(
            p,
            X,
            b,
            Y,
            3,
            [C0, C0, LINEAR, LINEAR, LINEAR, C0],
            [[], [], [0], [1], [2], []],
            direction=MobilizedBody.Reverse,
        ),
        "Planar",
    ),
    "FunctionBasedKnee": (
        lambda p, X, b, Y: _knee(p, X, b, Y, MobilizedBody.Reverse),
        None,
    ),
}

BUILTIN_EXTRA = {"Screw": (0.3,)}


def _model(make):
    """Ground - <make> - body - Pin - body, with gravity."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, Vec3(0, -9.8, 0))
    mobod = make(matter.Ground(), X_PF, _body(), X_BM)
    tip = MobilizedBody.Pin(mobod, Transform(Vec3(0.2, -0.3, 0.1)), _body(), Transform())
    state = system.realizeTopology()
    system.realizeModel(state)
    return system, matter, mobod, tip, state


def _builtin(typ: str, direction):
    extra = BUILTIN_EXTRA.get(typ, ())
    return lambda p, X, b, Y: getattr(MobilizedBody, typ)(p, X, b, Y, *extra, direction)


def _set_state(mobod, tip, state, seed: int) -> None:
    rng = np.random.default_rng(seed)
    nq, nu = mobod.getNumQ(state), mobod.getNumU(state)
    q = 0.5 * rng.standard_normal(nq)
    if nq == 4:  # a quaternion
        q = q + np.array([1.0, 0, 0, 0])
        q /= np.linalg.norm(q)
    mobod.setQ(state, q)
    mobod.setU(state, rng.standard_normal(nu))
    tip.setOneQ(state, 0, 0.3)
    tip.setOneU(state, 0, -0.8)


def _motion(system, matter, state):
    system.realize(state, Stage.Acceleration)
    out = []
    for b in (1, 2):
        mb = matter.getMobilizedBody(b)
        out.append(mb.getBodyTransform(state).toMat44())
        out.append(mb.getBodyVelocity(state))
        out.append(mb.getBodyAcceleration(state))
    out.append(np.array(state.getUDot()))
    out.append(np.array(state.getQDot()))
    return out


@pytest.mark.parametrize("name", [n for n, (_, twin) in REVERSED.items() if twin])
def test_reversed_custom_moves_as_the_reversed_builtin(name):
    make, twin = REVERSED[name]
    csys, cmatter, cmob, ctip, cstate = _model(make)
    bsys, bmatter, bmob, btip, bstate = _model(_builtin(twin, MobilizedBody.Reverse))
    assert cmob.isReversed() and bmob.isReversed()
    _set_state(cmob, ctip, cstate, 5)
    bstate.updQ()[:] = cstate.getQ()
    bstate.updU()[:] = cstate.getU()
    for a, b in zip(_motion(csys, cmatter, cstate), _motion(bsys, bmatter, bstate), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-11)
    np.testing.assert_allclose(
        cmob.getMobilizerTransform(cstate).toMat44(),
        bmob.getMobilizerTransform(bstate).toMat44(),
        atol=1e-12,
    )
    np.testing.assert_allclose(
        cmob.getMobilizerVelocity(cstate), bmob.getMobilizerVelocity(bstate), atol=1e-12
    )


@pytest.mark.parametrize("impl_class", [CustomPin, CustomUniversal, CustomBallQuat])
def test_reversed_custom_is_the_inverse_of_the_forward_custom(impl_class):
    def make(direction):
        return lambda p, X, b, Y: MobilizedBody.Custom(
            p, X, b, Y, impl_class(p.getMatterSubsystem()), direction
        )

    fsys, fmatter, fwd, ftip, fstate = _model(make(MobilizedBody.Forward))
    rsys, rmatter, rev, rtip, rstate = _model(make(MobilizedBody.Reverse))
    assert rev.isReversed() and not fwd.isReversed()
    _set_state(fwd, ftip, fstate, 7)
    _set_state(rev, rtip, rstate, 7)
    fsys.realize(fstate, Stage.Velocity)
    rsys.realize(rstate, Stage.Velocity)
    X_MF = fwd.getMobilizerTransform(fstate)  # the implementation's X(q)
    X_FM = rev.getMobilizerTransform(rstate)
    np.testing.assert_allclose(X_FM.toMat44(), (~X_MF).toMat44(), atol=1e-12)
    np.testing.assert_allclose(
        rev.getMobilizerVelocity(rstate),
        reverseRelativeVelocity(X_MF, fwd.getMobilizerVelocity(fstate)),
        atol=1e-12,
    )
    np.testing.assert_allclose(
        rev.getBodyTransform(rstate).toMat44(), (X_PF * X_FM * ~X_BM).toMat44(), atol=1e-12
    )
    np.testing.assert_allclose(rev.getQDot(rstate), fwd.getQDot(fstate), atol=1e-12)
    # Inside the implementation getMobilizerTransform is the realized X_FM (as Simbody's).
    np.testing.assert_allclose(
        rev.getImplementation().getMobilizerTransform(rstate).toMat44(),
        X_FM.toMat44(),
        atol=1e-15,
    )


@pytest.mark.parametrize("name", list(REVERSED))
def test_reversed_custom_accelerations_are_the_derivative_of_the_velocities(name):
    system, matter, mobod, tip, state = _model(REVERSED[name][0])
    _set_state(mobod, tip, state, 11)
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


@pytest.mark.parametrize("name", ["CustomBallQuat", "FunctionBasedKnee"])
def test_reversed_custom_mass_matrix_matches_the_operators(name):
    system, matter, mobod, tip, state = _model(REVERSED[name][0])
    _set_state(mobod, tip, state, 3)
    system.realize(state, Stage.Position)
    M = matter.calcM(state)
    n = M.shape[0]
    cols = np.column_stack([matter.multiplyByM(state, np.eye(n)[k]) for k in range(n)])
    np.testing.assert_allclose(M, cols, atol=1e-12)
    np.testing.assert_allclose(matter.calcMInv(state) @ M, np.eye(n), atol=1e-10)
    # Inverse dynamics of the forward solution leaves no residual force.
    system.realize(state, Stage.Acceleration)
    residual = matter.calcResidualForceIgnoringConstraints(
        state,
        system.getMobilityForces(state),
        system.getRigidBodyForces(state),
        np.array(state.getUDot()),
    )
    np.testing.assert_allclose(residual, np.zeros(n), atol=1e-10)


def test_reversed_function_based_chain_conserves_energy():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.UniformGravity(forces, matter, Vec3(0, -9.8, 0))
    knee = _knee(matter.Ground(), X_PF, _body(), X_BM, MobilizedBody.Reverse)
    arm = MobilizedBody.Custom(
        knee,
        Transform(Vec3(0, -0.5, 0)),
        _body(),
        X_BM,
        CustomBallQuat(matter),
        MobilizedBody.Reverse,
    )
    state = system.realizeTopology()
    knee.setU(state, [1.5, -0.5])
    arm.setQ(state, [0.9, 0.3, -0.2, 0.1])
    arm.setU(state, [0.5, -1.0, 2.0])
    system.realize(state, Stage.Velocity)
    e0 = system.calcEnergy(state)
    integ = RungeKuttaMersonIntegrator(system)
    integ.setAccuracy(1e-7)
    ts = TimeStepper(system, integ)
    ts.initialize(state)
    ts.stepTo(0.2)
    final = integ.getState()
    system.realize(final, Stage.Velocity)
    assert np.abs(np.array(final.getQ()) - np.array(state.getQ())).max() > 0.1
    assert abs(system.calcEnergy(final) - e0) < 1e-6 * max(1.0, abs(e0))


@pytest.mark.parametrize("name", ["CustomUniversal", "FunctionBasedPlanar", "CustomBallQuat"])
def test_reversed_custom_fits_reproduce_the_pose_and_velocity(name):
    system, matter, mobod, tip, state = _model(REVERSED[name][0])
    _set_state(mobod, tip, state, 5)
    system.realize(state, Stage.Velocity)
    X_FM = mobod.getMobilizerTransform(state)
    V_FM = mobod.getMobilizerVelocity(state)
    q, u = np.array(mobod.getQ(state)), np.array(mobod.getU(state))
    mobod.setQ(state, q + 0.05)  # start the numerical fit near, not at, the answer
    mobod.setQToFitTransform(state, X_FM)
    fitted = np.array(mobod.getQ(state))
    if q.size == 4:  # CustomBallQuat's quaternion is not normalized by the fit
        fitted /= np.linalg.norm(fitted)
    np.testing.assert_allclose(fitted, q, atol=1e-8)
    mobod.setQ(state, q + 0.05 * np.array([0.0, *([1.0] * (q.size - 1))]))
    mobod.setQToFitRotation(state, X_FM.R())
    mobod.setQToFitTranslation(state, X_FM.p())
    system.realize(state, Stage.Position)
    np.testing.assert_allclose(
        mobod.getMobilizerTransform(state).toMat44(), X_FM.toMat44(), atol=1e-8
    )
    mobod.setQ(state, q)
    mobod.setU(state, np.zeros(u.size))
    mobod.setUToFitVelocity(state, V_FM)
    np.testing.assert_allclose(mobod.getU(state), u, atol=1e-10)
    mobod.setU(state, np.zeros(u.size))
    mobod.setUToFitAngularVelocity(state, V_FM[0])
    mobod.setUToFitLinearVelocity(state, V_FM[1])
    np.testing.assert_allclose(mobod.getU(state), u, atol=1e-10)


def test_function_based_constructor_forms_take_the_direction():
    """Simbody's four FunctionBased constructors, each with an optional Direction."""
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    funcs = [C0, C0, LINEAR, C0, C0, C0]
    ix = [[], [], [0], [], [], []]
    axes = [Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)] * 2
    g = matter.Ground()
    a = MobilizedBody.FunctionBased(g, _body(), 1, funcs, ix)
    b = MobilizedBody.FunctionBased(a, _body(), 1, funcs, ix, MobilizedBody.Reverse)
    c = MobilizedBody.FunctionBased(  # (axes given as CoordinateAxis too)
        b, _body(), 1, funcs, ix, [XAxis, YAxis, ZAxis, XAxis, YAxis, -ZAxis], MobilizedBody.Reverse
    )
    d = MobilizedBody.FunctionBased(c, X_PF, _body(), X_BM, 1, funcs, ix, axes)
    e = MobilizedBody.FunctionBased(d, X_PF, _body(), X_BM, 1, funcs, ix, MobilizedBody.Forward)
    assert [m.isReversed() for m in (a, b, c, d, e)] == [False, True, True, False, False]
    with pytest.raises(InvalidArgumentError, match="direction"):
        MobilizedBody.FunctionBased(e, _body(), 1, funcs, ix, direction="backwards")
    with pytest.raises(InvalidArgumentError, match="direction"):
        MobilizedBody.Custom(g, _body(), CustomPin(matter), direction=3)
    state = system.realizeTopology()
    b.setOneQ(state, 0, 0.4)
    system.realize(state, Stage.Position)
    # A reversed rotation about z by q is the forward one by -q.
    np.testing.assert_allclose(
        b.getMobilizerTransform(state).R().asMat33(),
        np.asarray(Rotation(-0.4, Vec3(0, 0, 1)).asMat33()),
        atol=1e-14,
    )


@pytest.mark.parametrize("euler", [False, True])
def test_reversed_quaternion_custom_is_the_reversed_ball(euler):
    """A Custom mobilizer with a quaternion (nAngles = 4), reversed, in quaternion and in
    Euler-angle mode: the same motion and mobilizer reaction as the reversed Ball."""
    from tests.engine.test_simbody_custom_quaternion import QuaternionBall

    results = []
    for custom in (False, True):

        def make(p, X, b, Y, custom=custom):
            if custom:
                impl = QuaternionBall(p.getMatterSubsystem())
                return MobilizedBody.Custom(p, X, b, Y, impl, MobilizedBody.Reverse)
            return MobilizedBody.Ball(p, X, b, Y, MobilizedBody.Reverse)

        system, matter, mobod, tip, state = _model(make)
        matter.setUseEulerAngles(state, euler)
        system.realizeModel(state)
        q = np.array([0.9, 0.3, -0.2, 0.1])
        mobod.setQ(state, [0.3, -0.2, 0.5] if euler else q / np.linalg.norm(q))
        mobod.setU(state, [0.5, -1.0, 2.0])
        tip.setOneU(state, 0, 0.7)
        results.append(_motion(system, matter, state))
        results[-1].append(mobod.findMobilizerReactionOnBodyAtMInGround(state))
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-12)
