"""Properties every mobilizer type must have, checked through the public API of a whole system
(MobilizedBody handles and SimbodyMatterSubsystem operators), for every built-in type (both
modes for quaternion types) and for Custom mobilizers written in Python:

* X_GB = X_PF X_FM(q) X_BM^-1 (body pose from the mobilizer pose);
* qdot = N u, and NInv N = I (normalized quaternions);
* V_FM, V_GB are d/dt of X_FM, X_GB along qdot (central differences);
* A_GB is d/dt V_GB along (qdot, udot, qdotdot);
* setQToFitTransform/Rotation/Translation and setUToFitVelocity/AngularVelocity/
  LinearVelocity reproduce a pose / velocity the mobilizer can reach;
* a Custom twin of a built-in type gives the same kinematics, M and udot.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    Force,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
    Vec3,
)
from engine.common.exceptions import InvalidArgumentError
from engine.multibody.mobilizers.dispatch import MOBILIZER_MODULES
from tests.engine.close import assert_close
from tests.engine.custom_mobilizer_examples import CUSTOM_EXAMPLES

BUILTIN = {m.NAME: m for m in MOBILIZER_MODULES.values()}
OPTIONS = {"Screw": {"pitch": -0.37}, "Ellipsoid": {"radii": [0.3, 0.5, 0.7]}}
SPHERICAL_VARIANTS = [
    {},
    {
        "azimuth_offset": 0.3,
        "azimuth_negated": True,
        "zenith_offset": -0.2,
        "zenith_negated": False,
        "radial_axis": "x",
        "radial_negated": True,
    },
]


def _cases():
    cases = []
    for name, mod in BUILTIN.items():
        for euler in [False, True] if mod.USES_QUATERNION else [False]:
            tag = name + ("-euler" if euler else "")
            cases.append(pytest.param((name, euler, 0), id=tag))
    cases.append(pytest.param(("SphericalCoords", False, 1), id="SphericalCoords-options"))
    for name in CUSTOM_EXAMPLES:
        cases.append(pytest.param((name, False, 0), id=name))
    return cases


CASES = _cases()


def _random_rotation(rng) -> Rotation:
    q = rng.normal(size=4)
    return Rotation(q / np.linalg.norm(q))


def _mobilizer(name: str, variant: int, parent, X_PF, body, X_BM, matter):
    if name in CUSTOM_EXAMPLES:
        impl_cls, _ = CUSTOM_EXAMPLES[name]
        return MobilizedBody.Custom(parent, X_PF, body, X_BM, impl_cls(matter))
    options = dict(OPTIONS.get(name, {}))
    if name == "SphericalCoords":
        options = dict(SPHERICAL_VARIANTS[variant])
    return getattr(MobilizedBody, name)(parent, X_PF, body, X_BM, **options)


class Model:
    """Ground -> Pin parent -> the mobilizer under test -> a Pin child; gravity."""

    def __init__(self, name: str, euler: bool, variant: int, seed: int = 7) -> None:
        rng = np.random.default_rng(seed)
        self.name, self.euler = name, euler
        self.system = MultibodySystem()
        self.matter = SimbodyMatterSubsystem(self.system)
        forces = GeneralForceSubsystem(self.system)
        Force.Gravity(forces, self.matter, Vec3(0.2, -1.0, 0.1), 9.81)

        def body():
            return Body.Rigid(
                MassProperties(
                    rng.uniform(0.5, 2.0),
                    rng.uniform(-0.3, 0.3, size=3),
                    Inertia(0.3, 0.4, 0.5, 0.02, -0.01, 0.03),
                )
            )

        def frame():
            return Transform(_random_rotation(rng), rng.uniform(-0.5, 0.5, size=3))

        self.parent = MobilizedBody.Pin(self.matter.Ground(), frame(), body(), frame())
        self.X_PF, self.X_BM = frame(), frame()
        self.mobod = _mobilizer(
            name, variant, self.parent, self.X_PF, body(), self.X_BM, self.matter
        )
        self.child = MobilizedBody.Pin(self.mobod, frame(), body(), frame())
        self.state = self.system.realizeTopology()
        self.matter.setUseEulerAngles(self.state, euler)
        self.system.realizeModel(self.state)
        self.rng = rng

    def random_q(self) -> np.ndarray:
        """Random q for every body away from singularities (normalized quaternions)."""
        rng = self.rng
        topo = self.matter._topo()
        q = np.zeros(self.state.getNQ())
        q[:] = rng.uniform(-1.0, 1.0, size=q.shape)
        b = self.mobod.getMobilizedBodyIndex()
        s, n = int(topo.qs[b]), int(topo.nqs[b])
        block = rng.uniform(-2.0, 2.0, size=n)
        name = self.name
        if topo.uses_quaternion[b]:
            if self.euler:
                block[1] = rng.uniform(-1.2, 1.2)
                block[3 if n == 4 else 6] = 0.0
            else:
                quat = rng.normal(size=4)
                block[0:4] = quat / np.linalg.norm(quat)
        if name == "CustomBallQuat":
            block /= np.linalg.norm(block)
        if name in ("Gimbal", "Bushing", "CustomBallXYZ"):
            block[1] = rng.uniform(-1.2, 1.2)
        if name == "SphericalCoords":
            block[1] = rng.uniform(0.3, 1.2) * rng.choice([-1, 1])
            block[2] = rng.uniform(0.3, 1.5) * rng.choice([-1, 1])
        if name == "BendStretch":
            block[1] = rng.uniform(0.3, 1.5) * rng.choice([-1, 1])
        q[s : s + n] = block
        return q

    def realized(self, q, u, stage=Stage.Acceleration):
        state = self.state.copy()
        state.setQ(q)
        state.setU(u)
        self.system.realize(state, stage)
        return state

    def random_state(self, stage=Stage.Acceleration):
        q = self.random_q()
        u = self.rng.uniform(-1.5, 1.5, size=self.state.getNU())
        return self.realized(q, u, stage)


def _transform_matrix(X: Transform) -> np.ndarray:
    T = np.eye(4)
    T[0:3, 0:3] = X.R().asMat33()
    T[0:3, 3] = X.p()
    return T


def _angular_from_rdot(Rdot, R):
    W = Rdot @ R.T
    return 0.5 * np.array([W[2, 1] - W[1, 2], W[0, 2] - W[2, 0], W[1, 0] - W[0, 1]])


@pytest.fixture(params=CASES)
def model(request):
    name, euler, variant = request.param
    return Model(name, euler, variant)


def test_body_pose_is_composed_from_mobilizer_pose(model):
    for _ in range(3):
        s = model.random_state(Stage.Position)
        X_GP = _transform_matrix(model.parent.getBodyTransform(s))
        X_FM = _transform_matrix(model.mobod.getMobilizerTransform(s))
        expected = (
            X_GP
            @ _transform_matrix(model.X_PF)
            @ X_FM
            @ np.linalg.inv(_transform_matrix(model.X_BM))
        )
        assert_close(
            _transform_matrix(model.mobod.getBodyTransform(s)), expected, "X_GB", tol=1e-12
        )
        R = X_FM[0:3, 0:3]
        assert_close(R @ R.T, np.eye(3), "R_FM orthonormal", tol=1e-12)
        assert np.linalg.det(R) > 0


def test_qdot_is_n_u_and_ninv_inverts_n(model):
    s = model.random_state(Stage.Velocity)
    matter = model.matter
    u = s.getU()
    qdot = matter.multiplyByN(s, False, u)
    assert_close(s.getQDot(), qdot, "qdot = N u", tol=1e-13)
    assert_close(
        model.mobod.getQDot(s),
        qdot[model.matter._topo().qs[model.mobod.getMobilizedBodyIndex()] :][
            : model.mobod.getNumQ(s)
        ],
        "MobilizedBody.getQDot",
        tol=1e-13,
    )
    assert_close(matter.multiplyByNInv(s, False, qdot), u, "NInv qdot = u", tol=1e-12)
    nu = s.getNU()
    N = np.column_stack([matter.multiplyByN(s, False, e) for e in np.eye(nu)])
    NInv = np.column_stack([matter.multiplyByNInv(s, False, e) for e in np.eye(s.getNQ())])
    assert_close(NInv @ N, np.eye(nu), "NInv N = I", tol=1e-12)
    # transposes agree with the matrices
    y = model.rng.normal(size=s.getNQ())
    assert_close(matter.multiplyByN(s, True, y), N.T @ y, "N^T y", tol=1e-12)
    x = model.rng.normal(size=nu)
    assert_close(matter.multiplyByNInv(s, True, x), NInv.T @ x, "NInv^T x", tol=1e-12)


def test_velocity_is_time_derivative_of_position(model):
    s = model.random_state(Stage.Velocity)
    q, u, qdot = s.getQ().copy(), s.getU().copy(), s.getQDot().copy()
    h = 1e-6
    sp = model.realized(q + h * qdot, u, Stage.Position)
    sm = model.realized(q - h * qdot, u, Stage.Position)
    for mobod, getter, V in (
        (model.mobod, "getMobilizerTransform", model.mobod.getMobilizerVelocity(s)),
        (model.mobod, "getBodyTransform", model.mobod.getBodyVelocity(s)),
        (model.child, "getBodyTransform", model.child.getBodyVelocity(s)),
    ):
        Xp, Xm, X = (
            getattr(mobod, getter)(sp),
            getattr(mobod, getter)(sm),
            getattr(mobod, getter)(s),
        )
        Rdot = (Xp.R().asMat33() - Xm.R().asMat33()) / (2 * h)
        w = _angular_from_rdot(Rdot, X.R().asMat33())
        v = (Xp.p() - Xm.p()) / (2 * h)
        assert_close(V[0], w, f"{getter} angular velocity", tol=1e-7)
        assert_close(V[1], v, f"{getter} linear velocity", tol=1e-7)


def test_acceleration_is_time_derivative_of_velocity(model):
    s = model.random_state(Stage.Acceleration)
    q, u = s.getQ().copy(), s.getU().copy()
    qdot, qdotdot, udot = s.getQDot().copy(), s.getQDotDot().copy(), s.getUDot().copy()
    matter = model.matter
    assert_close(matter.calcQDotDot(s, udot), qdotdot, "calcQDotDot", tol=1e-12)
    h = 1e-5
    sp = model.realized(q + h * qdot + 0.5 * h * h * qdotdot, u + h * udot, Stage.Velocity)
    sm = model.realized(q - h * qdot + 0.5 * h * h * qdotdot, u - h * udot, Stage.Velocity)
    assert_close((sp.getQDot() - sm.getQDot()) / (2 * h), qdotdot, "qdotdot = d/dt qdot", tol=1e-6)
    for mobod in (model.mobod, model.child):
        A_fd = (mobod.getBodyVelocity(sp) - mobod.getBodyVelocity(sm)) / (2 * h)
        assert_close(mobod.getBodyAcceleration(s), A_fd, "A_GB = d/dt V_GB", tol=1e-6)
        station = Vec3(0.1, -0.2, 0.3)
        a_fd = (
            mobod.findStationVelocityInGround(sp, station)
            - mobod.findStationVelocityInGround(sm, station)
        ) / (2 * h)
        assert_close(
            mobod.findStationAccelerationInGround(s, station), a_fd, "station accel", tol=1e-6
        )


def test_fit_q_reproduces_a_reachable_pose(model):
    target = model.random_state(Stage.Position)
    X = model.mobod.getMobilizerTransform(target)
    fresh = model.state.copy()  # default q
    model.mobod.setQToFitTransform(fresh, X)
    model.system.realize(fresh, Stage.Position)
    assert_close(
        _transform_matrix(model.mobod.getMobilizerTransform(fresh)),
        _transform_matrix(X),
        "setQToFitTransform",
        tol=1e-9,
    )
    # rotation-only fit reproduces the rotation; translation fit after it the whole pose
    fresh = model.state.copy()
    model.mobod.setQToFitRotation(fresh, X.R())
    model.system.realize(fresh, Stage.Position)
    assert_close(
        model.mobod.getMobilizerTransform(fresh).R().asMat33(),
        X.R().asMat33(),
        "setQToFitRotation",
        tol=1e-9,
    )
    model.mobod.setQToFitTranslation(fresh, X.p())
    model.system.realize(fresh, Stage.Position)
    assert_close(
        model.mobod.getMobilizerTransform(fresh).p(), X.p(), "setQToFitTranslation", tol=1e-9
    )


def test_fit_u_reproduces_a_reachable_velocity(model):
    target = model.random_state(Stage.Velocity)
    V = model.mobod.getMobilizerVelocity(target)
    other = target.copy()
    other.setU(np.zeros(other.getNU()))
    model.mobod.setUToFitVelocity(other, V)
    model.system.realize(other, Stage.Velocity)
    assert_close(model.mobod.getMobilizerVelocity(other), V, "setUToFitVelocity", tol=1e-9)
    other = target.copy()
    other.setU(np.zeros(other.getNU()))
    model.mobod.setUToFitAngularVelocity(other, V[0])
    model.mobod.setUToFitLinearVelocity(other, V[1])
    model.system.realize(other, Stage.Velocity)
    assert_close(model.mobod.getMobilizerVelocity(other), V, "angular then linear fit", tol=1e-9)


def test_fit_keeps_what_the_mobilizer_cannot_represent():
    m = Model("Pin", False, 0)
    s = m.state.copy()
    m.mobod.setQToFitTransform(s, Transform(Rotation(0.7, Vec3(0, 0, 1)), Vec3(1, 2, 3)))
    m.system.realize(s, Stage.Position)
    X = m.mobod.getMobilizerTransform(s)
    assert_close(X.p(), np.zeros(3), "Pin cannot translate", tol=0)
    assert m.mobod.getOneQ(s, 0) == pytest.approx(0.7)
    # a rotation about another axis: the best pin angle is its z part
    m.mobod.setQToFitRotation(s, Rotation(0.4, Vec3(1, 0, 0)))
    assert m.mobod.getOneQ(s, 0) == pytest.approx(0.0, abs=1e-15)
    m.mobod.setUToFitVelocity(s, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert m.mobod.getOneU(s, 0) == 3.0
    sl = Model("Slider", False, 0)
    s = sl.state.copy()
    sl.mobod.setQToFitTranslation(s, [0.5, 7.0, 8.0])
    sl.mobod.setUToFitLinearVelocity(s, [0.25, 7.0, 8.0])
    assert sl.mobod.getOneQ(s, 0) == 0.5 and sl.mobod.getOneU(s, 0) == 0.25


def test_fit_rejects_bad_input_before_changing_anything():
    m = Model("Ball", False, 0)
    s = m.state.copy()
    q0 = s.getQ().copy()
    with pytest.raises(InvalidArgumentError):
        m.mobod.setUToFitVelocity(s, [1.0, 2.0])
    with pytest.raises(InvalidArgumentError):
        m.mobod.setQToFitTranslation(s, [np.nan, 0.0, 0.0])
    with pytest.raises(InvalidArgumentError):
        m.matter.Ground().setQToFitTransform(s, Transform())
    np.testing.assert_array_equal(s.getQ(), q0)


@pytest.mark.parametrize("custom_name", list(CUSTOM_EXAMPLES))
def test_custom_twin_matches_builtin(custom_name):
    _, builtin = CUSTOM_EXAMPLES[custom_name]
    custom = Model(custom_name, False, 0, seed=3)
    twin = Model(builtin, custom_name == "CustomBallXYZ", 0, seed=3)
    rng = np.random.default_rng(11)
    for _ in range(3):
        qc = custom.random_q()
        qt = twin.random_q()
        # same q meaning, twin Ball has an unused 4th slot
        b = twin.mobod.getMobilizedBodyIndex()
        s = int(twin.matter._topo().qs[b])
        n = custom.mobod._module.NQ_SLOTS
        qt[:] = np.concatenate((qc[:s], qc[s : s + n], [0.0] * (len(qt) - len(qc)), qc[s + n :]))
        u = rng.uniform(-1.5, 1.5, size=custom.state.getNU())
        sc = custom.realized(qc, u)
        st = twin.realized(qt, u)
        for mc, mt in ((custom.mobod, twin.mobod), (custom.child, twin.child)):
            assert_close(
                _transform_matrix(mc.getBodyTransform(sc)),
                _transform_matrix(mt.getBodyTransform(st)),
                "X_GB",
                tol=1e-12,
            )
            assert_close(mc.getBodyVelocity(sc), mt.getBodyVelocity(st), "V_GB", tol=1e-12)
            assert_close(mc.getBodyAcceleration(sc), mt.getBodyAcceleration(st), "A_GB", tol=1e-10)
            assert_close(
                mc.getMobilizerVelocity(sc), mt.getMobilizerVelocity(st), "V_FM", tol=1e-12
            )
        assert_close(custom.matter.calcM(sc), twin.matter.calcM(st), "M", tol=1e-12)
        assert_close(sc.getUDot(), st.getUDot(), "udot", tol=1e-10)
        qdot_t = np.delete(st.getQDot(), s + n) if len(qt) > len(qc) else st.getQDot()
        qdd_t = np.delete(st.getQDotDot(), s + n) if len(qt) > len(qc) else st.getQDotDot()
        assert_close(sc.getQDot(), qdot_t, "qdot", tol=1e-12)
        assert_close(sc.getQDotDot(), qdd_t, "qdotdot", tol=1e-10)
        assert_close(
            custom.matter.calcResidualForceIgnoringConstraints(
                sc, np.zeros(len(u)), np.zeros((4, 2, 3)), sc.getUDot()
            ),
            twin.matter.calcResidualForceIgnoringConstraints(
                st, np.zeros(len(u)), np.zeros((4, 2, 3)), st.getUDot()
            ),
            "inverse dynamics",
            tol=1e-10,
        )


def test_custom_with_nq_not_nu_must_define_n():
    matter = SimbodyMatterSubsystem(MultibodySystem())

    class Incomplete(MobilizedBody.Custom.Implementation):
        def __init__(self):
            super().__init__(matter, 2, 3, 0)

    with pytest.raises(NotImplementedError):
        Incomplete().multiplyByN(None, False, np.zeros(2))
    with pytest.raises(InvalidArgumentError):
        MobilizedBody.Custom.Implementation(matter, 3, 3, 4)  # a quaternion needs nq >= 4
    with pytest.raises(InvalidArgumentError):
        MobilizedBody.Custom(matter.Ground(), Body.Rigid(MassProperties(1, Vec3(0), Inertia(1))))


def test_custom_fit_uses_the_users_method_when_given():
    calls = []

    class PinWithFit(CUSTOM_EXAMPLES["CustomPin"][0]):
        def setQToFitTransform(self, state, X_FM, q):
            calls.append(q.copy())
            q[0] = 0.125  # modify in place

        def setUToFitVelocity(self, state, V_FM, u):
            return [V_FM[0][2] * 2.0]  # or return a new block

    m = Model("CustomPin", False, 0)
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    body = Body.Rigid(MassProperties(1.0, Vec3(0.1, 0, 0), Inertia(1.0)))
    mobod = MobilizedBody.Custom(matter.Ground(), body, PinWithFit(matter))
    assert mobod.getImplementation().getMobilizedBody() is mobod
    state = system.realizeTopology()
    system.realizeModel(state)
    mobod.setQToFitTransform(state, Transform(Rotation(1.0, Vec3(0, 0, 1)), Vec3(0)))
    assert mobod.getOneQ(state, 0) == 0.125 and len(calls) == 1
    mobod.setUToFitVelocity(state, [[0, 0, 1.5], [0, 0, 0]])
    assert mobod.getOneU(state, 0) == 3.0
    assert m.mobod.getMobilizerTypeName() == "Custom"
