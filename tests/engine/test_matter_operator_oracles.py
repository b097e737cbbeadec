"""Physics oracles for SimbodyMatterSubsystem's task Jacobians, reaction forces, momentum and
lazy realization, on random trees of random mobilizer types; and bad-input errors.

- station/frame Jacobians against finite differences of station positions and orientations;
- J^T consistency (dot(J u, F) == dot(u, J^T F)) and explicit J against the O(n) products;
- biases (JDot u) against finite differences of J(q) u along qdot = N u;
- reaction forces: both methods agree, every body's Newton-Euler equation holds, and the
  reactions projected on each mobilizer's axes are its applied mobility forces;
- momentum: its rate (finite differences) equals the external forces (applied + Ground's
  reaction), and the linear part is the total mass times the mass-center velocity.
"""

from __future__ import annotations

import numpy as np
import pytest

from engine import (
    Body,
    GeneralForceSubsystem,
    Inertia,
    MassProperties,
    MobilizedBody,
    MultibodySystem,
    Rotation,
    SimbodyMatterSubsystem,
    Stage,
    Transform,
)
from engine.common.exceptions import (
    IndexOutOfRangeError,
    InvalidArgumentError,
    StageTooLowError,
)
from tests.engine.chain_mixed_model import ReplayForce

KINEMATIC_TYPES = [
    "Pin", "Slider", "Screw", "Universal", "Cylinder", "BendStretch", "Planar",
    "SphericalCoords", "Gimbal", "Ball", "Ellipsoid", "Translation", "Free", "Bushing",
    "Weld", "LineOrientation", "FreeLine",
]  # fmt: skip
# LineOrientation/FreeLine need bodies without inertia about Mz; left out where M^-1 is used.
DYNAMIC_TYPES = [t for t in KINEMATIC_TYPES if t not in ("LineOrientation", "FreeLine")]
OPTIONS = {"Screw": {"pitch": 0.3}, "Ellipsoid": {"radii": (0.4, 0.5, 0.3)}}


def random_rotation(rng) -> Rotation:
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    R = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )
    return Rotation(R)


def random_body(rng) -> Body:
    m = rng.uniform(0.5, 2.0)
    c = rng.uniform(-0.3, 0.3, 3)
    dx, dy, dz = rng.uniform(0.2, 1.0, 3)  # a box's moments satisfy the triangle inequality
    I_c = m / 12 * np.diag([dy * dy + dz * dz, dx * dx + dz * dz, dx * dx + dy * dy])
    I_o = I_c + m * (c @ c * np.eye(3) - np.outer(c, c))
    return Body.Rigid(MassProperties(m, c, Inertia(I_o)))


def random_tree(seed: int, types, nbodies: int = 9, forces: bool = False):
    """(system, matter, mobods, replay) with random parents, frames and mass properties."""
    rng = np.random.default_rng(seed)
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    force_subsystem = GeneralForceSubsystem(system)
    mobods = [matter.Ground()]
    for k in range(nbodies):
        name = types[k % len(types)] if k < len(types) else types[rng.integers(len(types))]
        parent = mobods[int(rng.integers(len(mobods)))]
        X_PF = Transform(random_rotation(rng), rng.uniform(-0.5, 0.5, 3))
        X_BM = Transform(random_rotation(rng), rng.uniform(-0.5, 0.5, 3))
        cls = getattr(MobilizedBody, name)
        mobods.append(cls(parent, X_PF, random_body(rng), X_BM, **OPTIONS.get(name, {})))
    replay = ReplayForce(force_subsystem) if forces else None
    return system, matter, mobods, replay, rng


def random_state(system, matter, rng, stage=Stage.Velocity):
    state = system.realizeTopology()
    state.setQ(rng.uniform(-0.8, 0.8, state.getNQ()))
    system.realize(state, Stage.Time)
    matter.normalizeQuaternions(state)
    state.setU(rng.uniform(-1.0, 1.0, state.getNU()))
    system.realize(state, stage)
    return state


def moved(system, state, h: float, stage=Stage.Position, udot=None):
    """A copy of the state moved by h along qdot (and udot if given)."""
    s = state.copy()
    s.setQ(np.asarray(state.getQ()) + h * np.asarray(state.getQDot()))
    if udot is not None:
        s.setU(np.asarray(state.getU()) + h * np.asarray(udot))
    system.realize(s, stage)
    return s


def tasks(matter, rng, nt=5):
    bodies = [int(b) for b in rng.integers(0, matter.getNumBodies(), nt)]
    stations = rng.uniform(-0.5, 0.5, (nt, 3))
    return bodies, stations


SEEDS = [1, 2, 3]


@pytest.mark.parametrize("seed", SEEDS)
def test_station_and_frame_jacobians_are_derivatives_of_poses(seed):
    system, matter, mobods, _, rng = random_tree(seed, KINEMATIC_TYPES, nbodies=12)
    state = random_state(system, matter, rng)
    bodies, stations = tasks(matter, rng)
    u = np.asarray(state.getU())
    h = 1e-6
    plus, minus = moved(system, state, h), moved(system, state, -h)

    def pose(s):
        p = np.array(
            [
                mobods[b].findStationLocationInGround(s, st)
                for b, st in zip(bodies, stations, strict=True)
            ]
        )
        R = [mobods[b].getBodyRotation(s).asMat33() for b in bodies]
        return p, R

    (pp, Rp), (pm, Rm) = pose(plus), pose(minus)
    v_fd = (pp - pm) / (2 * h)
    v = matter.multiplyByStationJacobian(state, bodies, stations, u)
    np.testing.assert_allclose(v, v_fd, atol=1e-7)
    V = matter.multiplyByFrameJacobian(state, bodies, stations, u)
    for k in range(len(bodies)):
        W = (Rp[k] - Rm[k]) / (2 * h) @ mobods[bodies[k]].getBodyRotation(state).asMat33().T
        w_fd = np.array([W[2, 1], W[0, 2], W[1, 0]])
        np.testing.assert_allclose(V[k, 0], w_fd, atol=1e-7)
        np.testing.assert_allclose(V[k, 1], v[k], atol=1e-12)
        # the task velocities are the velocities of the stations in the realized state
        np.testing.assert_allclose(
            mobods[bodies[k]].findStationVelocityInGround(state, stations[k]), v[k], atol=1e-12
        )


@pytest.mark.parametrize("seed", SEEDS)
def test_explicit_jacobians_match_products_and_transposes(seed):
    system, matter, _, _, rng = random_tree(seed, KINEMATIC_TYPES, nbodies=12)
    state = random_state(system, matter, rng)
    bodies, stations = tasks(matter, rng)
    nu, nt = state.getNU(), len(bodies)
    x = rng.normal(size=nu)
    f = rng.normal(size=(nt, 3))
    F = rng.normal(size=(nt, 2, 3))
    JS = matter.calcStationJacobian(state, bodies, stations)
    JF = matter.calcFrameJacobian(state, bodies, stations)
    assert JS.shape == (3 * nt, nu) and JF.shape == (6 * nt, nu)
    JSx = matter.multiplyByStationJacobian(state, bodies, stations, x)
    JFx = matter.multiplyByFrameJacobian(state, bodies, stations, x)
    np.testing.assert_allclose(JS @ x, JSx.reshape(-1), atol=1e-12)
    np.testing.assert_allclose(JF @ x, JFx.reshape(-1), atol=1e-12)
    JSt = matter.multiplyByStationJacobianTranspose(state, bodies, stations, f)
    JFt = matter.multiplyByFrameJacobianTranspose(state, bodies, stations, F)
    np.testing.assert_allclose(JS.T @ f.reshape(-1), JSt, atol=1e-12)
    np.testing.assert_allclose(JF.T @ F.reshape(-1), JFt, atol=1e-12)
    assert np.isclose(np.sum(JSx * f), x @ JSt, rtol=1e-12, atol=1e-12)
    assert np.isclose(np.sum(JFx * F), x @ JFt, rtol=1e-12, atol=1e-12)
    # station Jacobian = linear rows of the frame Jacobian; system Jacobian = frames at Bo
    np.testing.assert_array_equal(JS.reshape(nt, 3, nu), JF.reshape(nt, 2, 3, nu)[:, 1])
    nb = matter.getNumBodies()
    J_sys = matter.calcFrameJacobian(state, list(range(nb)), np.zeros((nb, 3)))
    np.testing.assert_allclose(J_sys, matter.calcSystemJacobian(state), atol=1e-13)
    # addInStationForce builds the body forces whose J^T is the station transpose
    body_forces = np.zeros((nb, 2, 3))
    for k in range(nt):
        matter.addInStationForce(state, bodies[k], stations[k], f[k], body_forces)
    np.testing.assert_allclose(
        matter.multiplyBySystemJacobianTranspose(state, body_forces), JSt, atol=1e-12
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_biases_are_time_derivatives_of_jacobian_times_u(seed):
    system, matter, _, _, rng = random_tree(seed, KINEMATIC_TYPES, nbodies=12)
    state = random_state(system, matter, rng)
    bodies, stations = tasks(matter, rng)
    u = np.asarray(state.getU())
    h = 1e-6
    plus, minus = moved(system, state, h), moved(system, state, -h)
    nb = matter.getNumBodies()

    def fd(op, *args):
        return (op(plus, *args, u) - op(minus, *args, u)) / (2 * h)

    np.testing.assert_allclose(
        matter.calcBiasForStationJacobian(state, bodies, stations),
        fd(matter.multiplyByStationJacobian, bodies, stations),
        atol=2e-7,
    )
    np.testing.assert_allclose(
        matter.calcBiasForFrameJacobian(state, bodies, stations),
        fd(matter.multiplyByFrameJacobian, bodies, stations),
        atol=2e-7,
    )
    np.testing.assert_allclose(
        matter.calcBiasForSystemJacobian(state), fd(matter.multiplyBySystemJacobian), atol=2e-7
    )
    # single-task overloads agree with the lists
    for k in range(len(bodies)):
        np.testing.assert_array_equal(
            matter.calcBiasForFrameJacobian(state, bodies[k], stations[k]),
            matter.calcBiasForFrameJacobian(state, [bodies[k]], [stations[k]])[0],
        )
    # body accelerations for udot = 0 are the system bias
    np.testing.assert_allclose(
        matter.calcBodyAccelerationFromUDot(state, []),
        matter.calcBiasForSystemJacobian(state),
        atol=1e-13,
    )
    assert matter.calcBodyAccelerationFromUDot(state, np.zeros(state.getNU())).shape == (nb, 2, 3)


def dynamic_state(seed):
    system, matter, mobods, replay, rng = random_tree(seed, DYNAMIC_TYPES, nbodies=10, forces=True)
    nb = matter.getNumBodies()
    replay.body_forces = rng.normal(size=(nb, 2, 3))
    state = random_state(system, matter, rng, Stage.Instance)
    replay.mobility_forces = rng.normal(size=state.getNU())
    system.realize(state, Stage.Acceleration)
    return system, matter, mobods, replay, state


def spatial_inertia_G(mobod, state):
    mp = mobod.getBody().getDefaultRigidBodyMassProperties()
    R = mobod.getBodyRotation(state).asMat33()
    m, c, I_B = mp.getMass(), R @ mp.getMassCenter(), mp.getInertia().toMat33()
    cx = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
    return np.block([[R @ I_B @ R.T, m * cx], [-m * cx, m * np.eye(3)]])


@pytest.mark.parametrize("seed", SEEDS)
def test_reaction_forces_satisfy_newton_euler(seed):
    system, matter, mobods, replay, state = dynamic_state(seed)
    nb = matter.getNumBodies()
    R_abi = matter.calcMobilizerReactionForces(state)
    R_free = matter.calcMobilizerReactionForcesUsingFreebodyMethod(state)
    np.testing.assert_allclose(R_abi, R_free, atol=1e-10 * max(1.0, np.abs(R_free).max()))
    F_app = system.getRigidBodyForces(state)
    f_app = system.getMobilityForces(state)
    p = [mobods[b].getBodyOriginLocation(state) for b in range(nb)]
    # reactions moved from Mo to Bo
    R_Bo = np.empty_like(R_abi)
    R_Bo[0] = R_abi[0]
    for b in range(1, nb):
        X_GB = mobods[b].getBodyTransform(state)
        p_Mo = X_GB.p() + X_GB.R().asMat33() @ mobods[b].getDefaultOutboardFrame().p()
        T, f = R_abi[b]
        R_Bo[b] = [T + np.cross(p_Mo - p[b], f), f]
    J = matter.calcSystemJacobian(state)
    us = 0
    for b in range(1, nb):
        lhs = spatial_inertia_G(mobods[b], state) @ mobods[b].getBodyAcceleration(state).reshape(
            -1
        ) + matter.getGyroscopicForce(state, mobods[b]).reshape(-1)
        rhs = F_app[b].reshape(-1) + R_Bo[b].reshape(-1)
        for c in range(b + 1, nb):
            if mobods[c].getParentMobilizedBody().getMobilizedBodyIndex() == b:
                T, f = R_Bo[c]
                rhs -= np.r_[T + np.cross(p[c] - p[b], f), f]
        np.testing.assert_allclose(lhs, rhs, atol=1e-10 * max(1.0, np.abs(rhs).max()))
        nu = mobods[b].getNumU(state)
        H = J[6 * b : 6 * b + 6, us : us + nu]
        np.testing.assert_allclose(H.T @ R_Bo[b].reshape(-1), f_app[us : us + nu], atol=1e-10)
        us += nu
    # Ground: children's reactions about the origin minus the force applied to Ground
    total = -F_app[0].reshape(-1)
    for c in range(1, nb):
        if mobods[c].getParentMobilizedBody().getMobilizedBodyIndex() == 0:
            T, f = R_Bo[c]
            total += np.r_[T + np.cross(p[c], f), f]
    np.testing.assert_allclose(R_abi[0].reshape(-1), total, atol=1e-10)


def reactions_at_origins(matter, mobods, state, R):
    """Reactions moved from each Mo to its body origin Bo (torque about Bo)."""
    R_Bo = R.copy()
    for b in range(1, matter.getNumBodies()):
        X_GB = mobods[b].getBodyTransform(state)
        p_Mo = X_GB.p() + X_GB.R().asMat33() @ mobods[b].getDefaultOutboardFrame().p()
        T, f = R[b]
        R_Bo[b, 0] = T + np.cross(p_Mo - X_GB.p(), f)
    return R_Bo


@pytest.mark.parametrize("seed", SEEDS)
def test_reaction_forces_with_a_loop_constraint(seed):
    """A Ball constraint closes a loop: the constraint forces are not reactions, so each
    body's Newton-Euler balance needs applied + constraint forces + reactions."""
    from engine import Constraint

    system, matter, mobods, replay, rng = random_tree(seed, DYNAMIC_TYPES, nbodies=8, forces=True)
    a, b = mobods[3], mobods[7]
    Constraint.Ball(a, rng.uniform(-0.3, 0.3, 3), b, rng.uniform(-0.3, 0.3, 3))
    nb = matter.getNumBodies()
    replay.body_forces = rng.normal(size=(nb, 2, 3))
    state = random_state(system, matter, rng, Stage.Instance)
    replay.mobility_forces = rng.normal(size=state.getNU())
    system.realize(state, Stage.Acceleration)
    assert np.any(matter.getConstraintMultipliers(state))
    R = matter.calcMobilizerReactionForces(state)
    np.testing.assert_allclose(
        R,
        matter.calcMobilizerReactionForcesUsingFreebodyMethod(state),
        atol=1e-10 * max(1.0, np.abs(R).max()),
    )
    F_con, f_con = matter.findConstraintForces(state)  # what the constraints need (M udot + ...)
    F = system.getRigidBodyForces(state) - F_con
    R_Bo = reactions_at_origins(matter, mobods, state, R)
    p = [m.getBodyOriginLocation(state) for m in mobods]
    for k in range(1, nb):
        lhs = spatial_inertia_G(mobods[k], state) @ mobods[k].getBodyAcceleration(state).reshape(
            -1
        ) + matter.getGyroscopicForce(state, mobods[k]).reshape(-1)
        rhs = (F[k] + R_Bo[k]).reshape(-1)
        for c in range(k + 1, nb):
            if mobods[c].getParentMobilizedBody().getMobilizedBodyIndex() == k:
                T, f = R_Bo[c]
                rhs -= np.r_[T + np.cross(p[c] - p[k], f), f]
        np.testing.assert_allclose(lhs, rhs, atol=1e-9 * max(1.0, np.abs(rhs).max()))


@pytest.mark.parametrize("seed", SEEDS)
def test_momentum_rate_equals_external_forces(seed):
    system, matter, mobods, _, state = dynamic_state(seed)
    nb = matter.getNumBodies()
    h = 1e-6
    udot = np.asarray(state.getUDot())
    plus = moved(system, state, h, Stage.Velocity, udot)
    minus = moved(system, state, -h, Stage.Velocity, udot)
    rate = (
        matter.calcSystemMomentumAboutGroundOrigin(plus)
        - matter.calcSystemMomentumAboutGroundOrigin(minus)
    ) / (2 * h)
    F_app = system.getRigidBodyForces(state)
    external = matter.calcMobilizerReactionForces(state)[0].copy()
    for b in range(nb):
        T, f = F_app[b]
        external += [T + np.cross(mobods[b].getBodyOriginLocation(state), f), f]
    np.testing.assert_allclose(rate, external, atol=1e-6 * max(1.0, np.abs(external).max()))
    m = matter.calcSystemMass(state)
    np.testing.assert_allclose(
        m * matter.calcSystemMassCenterAccelerationInGround(state), external[1], atol=1e-9
    )
    com_rate = (
        matter.calcSystemMassCenterLocationInGround(plus)
        - matter.calcSystemMassCenterLocationInGround(minus)
    ) / (2 * h)
    v_C = matter.calcSystemMassCenterVelocityInGround(state)
    np.testing.assert_allclose(v_C, com_rate, atol=1e-7)
    H = matter.calcSystemMomentumAboutGroundOrigin(state)
    np.testing.assert_allclose(H[1], m * v_C, atol=1e-12)
    central = matter.calcSystemCentralMomentum(state)
    p_C = matter.calcSystemMassCenterLocationInGround(state)
    np.testing.assert_allclose(central[0], H[0] - np.cross(p_C, H[1]), atol=1e-12)
    # the central inertia is the inertia about the origin shifted to the mass center
    I_O = matter.calcSystemMassPropertiesInGround(state).getInertia().toMat33()
    I_C = matter.calcSystemCentralInertiaInGround(state).toMat33()
    np.testing.assert_allclose(
        I_O - I_C, m * (p_C @ p_C * np.eye(3) - np.outer(p_C, p_C)), atol=1e-12
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_forward_dynamics_operators_agree(seed):
    system, matter, mobods, _, state = dynamic_state(seed)
    nb, nu = matter.getNumBodies(), state.getNU()
    rng = np.random.default_rng(seed + 100)
    f = rng.normal(size=nu)
    F = rng.normal(size=(nb, 2, 3))
    udot, A = matter.calcAcceleration(state, f, F)
    M = matter.calcM(state)
    np.testing.assert_allclose(
        M @ udot, f + matter.calcTreeEquivalentMobilityForces(state, F), atol=1e-10
    )
    np.testing.assert_allclose(A, matter.calcBodyAccelerationFromUDot(state, udot), atol=1e-12)
    np.testing.assert_allclose(matter.calcResidualForce(state, f, F, udot, []), 0.0, atol=1e-10)
    # the realized accelerations are those of the state's own forces
    A_state = np.array([m.getBodyAcceleration(state) for m in mobods])
    np.testing.assert_allclose(
        matter.calcBodyAccelerationFromUDot(state, state.getUDot()), A_state, atol=1e-12
    )
    # (deprecated) mobilizer centrifugal forces: P a + b with the articulated body inertia
    assert matter.getGround() is mobods[0]
    assert not matter.getMobilizerCentrifugalForces(state, 0).any()
    for b in range(1, nb):
        P = matter.getArticulatedBodyInertia(state, b).toSpatialMat()
        a = matter.getMobilizerCoriolisAcceleration(state, mobods[b]).reshape(-1)
        np.testing.assert_allclose(
            matter.getMobilizerCentrifugalForces(state, b).reshape(-1),
            P @ a + matter.getGyroscopicForce(state, mobods[b]).reshape(-1),
            atol=1e-12,
        )
    # centrifugal forces: spatial inertia times total Coriolis acceleration plus gyroscopic
    for b in range(1, nb):
        expected = spatial_inertia_G(mobods[b], state) @ matter.getTotalCoriolisAcceleration(
            state, mobods[b]
        ).reshape(-1) + matter.getGyroscopicForce(state, mobods[b]).reshape(-1)
        np.testing.assert_allclose(
            matter.getTotalCentrifugalForces(state, mobods[b]).reshape(-1), expected, atol=1e-12
        )


def test_lazy_realization_flags_and_values():
    system, matter, mobods, _, rng = random_tree(7, DYNAMIC_TYPES, nbodies=6, forces=False)
    state = system.realizeTopology()
    state.setQ(rng.uniform(-0.8, 0.8, state.getNQ()))
    state.setU(rng.uniform(-1, 1, state.getNU()))
    system.realize(state, Stage.Instance)
    ref = state.copy()
    system.realize(ref, Stage.Acceleration)
    checks = (
        matter.isPositionKinematicsRealized,
        matter.isVelocityKinematicsRealized,
        matter.isCompositeBodyInertiasRealized,
        matter.isArticulatedBodyInertiasRealized,
        matter.isArticulatedBodyVelocityRealized,
    )

    def flags():
        return [c(state) for c in checks]

    assert flags() == [False] * 5
    with pytest.raises(StageTooLowError):
        matter.getCompositeBodyInertia(state, 1)
    with pytest.raises(StageTooLowError):
        matter.realizeVelocityKinematics(state)
    matter.realizePositionKinematics(state)
    assert flags() == [True, False, False, False, False]
    assert state.getSubsystemStage(matter.getMySubsystemIndex()) == Stage.Instance
    for b in range(1, matter.getNumBodies()):
        cbi = matter.getCompositeBodyInertia(state, b)
        np.testing.assert_allclose(
            cbi.toSpatialMat(), matter.calcCompositeBodyInertias(ref)[b].toSpatialMat(), atol=1e-13
        )
    assert flags() == [True, False, True, False, False]
    with pytest.raises(StageTooLowError):
        matter.realizeArticulatedBodyVelocity(state)
    matter.realizeArticulatedBodyInertias(state)
    matter.realizeVelocityKinematics(state)
    assert flags() == [True, True, True, True, False]
    matter.realizeArticulatedBodyVelocity(state)
    assert flags() == [True] * 5
    for b in range(1, matter.getNumBodies()):
        np.testing.assert_allclose(
            matter.getArticulatedBodyInertia(state, b).toSpatialMat(),
            matter.getArticulatedBodyInertia(ref, b).toSpatialMat(),
            atol=1e-12,
        )
    matter.invalidateCompositeBodyInertias(state)
    assert flags() == [True, True, False, True, True]
    matter.invalidateArticulatedBodyInertias(state)
    assert flags() == [True, True, False, False, False]
    # a change of u leaves positions alone; a change of q makes everything stale
    state.setU(rng.uniform(-1, 1, state.getNU()))
    assert flags() == [True, False, False, False, False]
    state.setQ(state.getQ())
    assert flags() == [False] * 5
    # ordinary realization: Position and Velocity stages realize the kinematics;
    # Acceleration the articulated pieces; composite inertias only on request
    system.realize(state, Stage.Velocity)
    assert flags() == [True, True, False, False, False]
    system.realize(state, Stage.Acceleration)
    assert flags() == [True, True, False, True, True]
    matter.invalidateArticulatedBodyVelocity(state)
    assert state.getSubsystemStage(matter.getMySubsystemIndex()) < Stage.Acceleration
    assert flags() == [True, True, False, True, False]
    matter.invalidateVelocityKinematics(state)
    assert state.getSubsystemStage(matter.getMySubsystemIndex()) < Stage.Velocity
    assert not matter.isVelocityKinematicsRealized(state)
    matter.invalidatePositionKinematics(state)
    assert state.getSubsystemStage(matter.getMySubsystemIndex()) < Stage.Position
    assert flags() == [False] * 5
    # Ground's inertias are infinite without any NaN
    for g in (matter.getCompositeBodyInertia(ref, 0), matter.calcCompositeBodyInertias(ref)[0]):
        assert g.getMass() == np.inf and not np.any(np.isnan(g.toSpatialMat()))
    abi0 = matter.getArticulatedBodyInertia(ref, 0).toSpatialMat()
    assert np.all(np.diag(abi0) == np.inf) and not np.any(np.isnan(abi0))


def test_operators_check_stage_and_arguments_first():
    system, matter, mobods, _, rng = random_tree(11, DYNAMIC_TYPES, nbodies=5)
    nb = matter.getNumBodies()
    state = system.realizeTopology()
    system.realize(state, Stage.Time)
    nu = state.getNU()
    u = np.zeros(nu)
    s = np.zeros(3)
    position = [
        lambda: matter.multiplyByStationJacobian(state, [1], [s], u),
        lambda: matter.multiplyByStationJacobianTranspose(state, 1, s, s),
        lambda: matter.calcStationJacobian(state, 1, s),
        lambda: matter.multiplyByFrameJacobian(state, 1, s, u),
        lambda: matter.multiplyByFrameJacobianTranspose(state, 1, s, np.zeros((2, 3))),
        lambda: matter.calcFrameJacobian(state, [1, 2], [s, s]),
        lambda: matter.calcSystemCentralInertiaInGround(state),
        lambda: matter.addInStationForce(state, 1, s, s, np.zeros((nb, 2, 3))),
        lambda: matter.calcCompositeBodyInertias(state),
    ]
    velocity = [
        lambda: matter.calcBiasForStationJacobian(state, 1, s),
        lambda: matter.calcBiasForFrameJacobian(state, 1, s),
        lambda: matter.calcBiasForSystemJacobian(state),
        lambda: matter.calcSystemMomentumAboutGroundOrigin(state),
        lambda: matter.calcSystemCentralMomentum(state),
        lambda: matter.calcSystemMassCenterVelocityInGround(state),
        lambda: matter.calcBodyAccelerationFromUDot(state, u),
        lambda: matter.calcResidualForce(state, [], [], [], []),
        lambda: matter.getTotalCentrifugalForces(state, 1),
        lambda: matter.getGyroscopicForce(state, 1),
        lambda: matter.getTotalCoriolisAcceleration(state, 1),
        lambda: matter.getMobilizerCoriolisAcceleration(state, mobods[1]),
        lambda: matter.getMobilizerCentrifugalForces(state, 1),
    ]
    dynamics = [
        lambda: matter.calcAcceleration(state, u, np.zeros((nb, 2, 3))),
        lambda: matter.calcTreeEquivalentMobilityForces(state, np.zeros((nb, 2, 3))),
    ]
    acceleration = [
        lambda: matter.calcMobilizerReactionForces(state),
        lambda: matter.calcMobilizerReactionForcesUsingFreebodyMethod(state),
        lambda: matter.calcSystemMassCenterAccelerationInGround(state),
    ]
    for stage, group in (
        (Stage.Time, position + velocity + dynamics + acceleration),
        (Stage.Position, velocity + dynamics + acceleration),
        (Stage.Velocity, dynamics + acceleration),
        (Stage.Dynamics, acceleration),
    ):
        system.realize(state, stage)
        for op in group:
            with pytest.raises(StageTooLowError):
                op()
    system.realize(state, Stage.Acceleration)
    bad = [
        (IndexOutOfRangeError, lambda: matter.calcStationJacobian(state, nb, s)),
        (IndexOutOfRangeError, lambda: matter.calcFrameJacobian(state, [1, -1], [s, s])),
        (InvalidArgumentError, lambda: matter.calcStationJacobian(state, "1", s)),
        (InvalidArgumentError, lambda: matter.calcStationJacobian(state, [1, 2], [s])),
        (InvalidArgumentError, lambda: matter.calcStationJacobian(state, 1, [0, 0])),
        (InvalidArgumentError, lambda: matter.calcStationJacobian(state, 1, [0, np.nan, 0])),
        (InvalidArgumentError, lambda: matter.multiplyByStationJacobian(state, 1, s, u[:-1])),
        (
            InvalidArgumentError,
            lambda: matter.multiplyByFrameJacobian(state, [1], [s], [np.inf] * nu),
        ),
        (
            InvalidArgumentError,
            lambda: matter.multiplyByStationJacobianTranspose(state, [1, 2], [s, s], [s]),
        ),
        (InvalidArgumentError, lambda: matter.multiplyByFrameJacobianTranspose(state, 1, s, s)),
        (InvalidArgumentError, lambda: matter.calcAcceleration(state, u[:-1], [])),
        (InvalidArgumentError, lambda: matter.calcAcceleration(state, u, np.zeros((nb - 1, 2, 3)))),
        (InvalidArgumentError, lambda: matter.calcResidualForce(state, [], [], [], [1.0])),
        (InvalidArgumentError, lambda: matter.calcResidualForce(state, [], [], u[:-1], [])),
        (InvalidArgumentError, lambda: matter.calcTreeEquivalentMobilityForces(state, np.zeros(5))),
        (InvalidArgumentError, lambda: matter.calcBodyAccelerationFromUDot(state, u[:-1])),
        (IndexOutOfRangeError, lambda: matter.getTotalCentrifugalForces(state, nb)),
        (IndexOutOfRangeError, lambda: matter.getGyroscopicForce(state, nb)),
        (InvalidArgumentError, lambda: matter.getTotalCoriolisAcceleration(state, 1.0)),
        (IndexOutOfRangeError, lambda: matter.getMobilizerCoriolisAcceleration(state, -2)),
        (IndexOutOfRangeError, lambda: matter.getCompositeBodyInertia(state, nb)),
        (IndexOutOfRangeError, lambda: matter.getArticulatedBodyInertia(state, -1)),
        (InvalidArgumentError, lambda: matter.addInStationForce(state, 1, s, s, np.zeros((nb, 6)))),
        (
            InvalidArgumentError,
            lambda: matter.addInBodyTorque(state, 1, s, np.zeros((nb + 1, 2, 3))),
        ),
        (IndexOutOfRangeError, lambda: matter.addInMobilityForce(state, 1, 99, 1.0, np.zeros(nu))),
        (
            InvalidArgumentError,
            lambda: matter.addInMobilityForce(state, 1, 0, 1.0, np.zeros(nu + 1)),
        ),
    ]
    for error, op in bad:
        with pytest.raises(error):
            op()
    # the getters hand out copies: writing to one leaves the State alone
    gyro = matter.getGyroscopicForce(state, 1)
    gyro[...] = 1e9
    assert not np.array_equal(matter.getGyroscopicForce(state, mobods[1]), gyro)
    # a refused call changes nothing
    forces = np.zeros((nb, 2, 3))
    with pytest.raises(InvalidArgumentError):
        matter.addInStationForce(state, 1, s, [1.0, np.nan, 0.0], forces)
    assert not forces.any()


def test_force_array_helpers():
    system, matter, mobods, _, rng = random_tree(5, DYNAMIC_TYPES, nbodies=4)
    state = random_state(system, matter, rng, Stage.Position)
    nb, nu = matter.getNumBodies(), state.getNU()
    forces = np.zeros((nb, 2, 3))
    station, f, t = np.array([0.1, -0.2, 0.3]), np.array([1.0, 2.0, -0.5]), np.array([0.3, 0, 1])
    matter.addInStationForce(state, mobods[2], station, f, forces)
    matter.addInBodyTorque(state, 2, t, forces)
    r = mobods[2].getBodyRotation(state).asMat33() @ station
    np.testing.assert_allclose(forces[2], [np.cross(r, f) + t, f], atol=1e-15)
    assert not np.delete(forces, 2, axis=0).any()
    mobility = np.zeros(nu)
    b = next(m for m in mobods[1:] if m.getNumU(state) > 1)
    matter.addInMobilityForce(state, b, 1, 2.5, mobility)
    matter.addInMobilityForce(state, b.getMobilizedBodyIndex(), 1, 0.5, mobility)
    expected = np.zeros(nu)
    b.applyOneMobilityForce(state, 1, 3.0, expected)
    np.testing.assert_array_equal(mobility, expected)


def test_ground_only_system_and_empty_task_lists():
    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    GeneralForceSubsystem(system)
    state = system.realizeTopology()
    system.realize(state, Stage.Acceleration)
    assert matter.calcStationJacobian(state, 0, [1, 2, 3]).shape == (3, 0)
    assert matter.calcFrameJacobian(state, [0, 0], np.ones((2, 3))).shape == (12, 0)
    assert matter.calcStationJacobian(state, [], []).shape == (0, 0)
    assert matter.calcBiasForFrameJacobian(state, [], []).shape == (0, 2, 3)
    assert matter.multiplyByStationJacobianTranspose(state, [], [], np.zeros((0, 3))).shape == (0,)
    np.testing.assert_array_equal(matter.calcMobilizerReactionForces(state), np.zeros((1, 2, 3)))
    np.testing.assert_array_equal(matter.calcSystemCentralMomentum(state), np.zeros((2, 3)))
    udot, A = matter.calcAcceleration(state, [], [])
    assert udot.shape == (0,) and A.shape == (1, 2, 3)
    assert matter.calcCompositeBodyInertias(state)[0].getMass() == np.inf
    with pytest.raises(InvalidArgumentError, match="no mass"):
        matter.calcSystemMassCenterVelocityInGround(state)
