"""Cross-checks of the O(n) operators on seeded random trees of random mobilizer types
(built-in types, in quaternion or Euler-angle mode, and Custom mobilizers written in Python):

* forward dynamics of inverse dynamics returns the input udot;
* calcM equals the columns of inverse dynamics (zero velocity, no forces) and of multiplyByM;
* multiplyByM(multiplyByMInv(v)) = v and calcMInv calcM = I;
* J u equals the body velocities, J^T is its transpose, and J u is d/dt X_GB (differences);
* a fixed-step RungeKuttaMerson integration of the gravity-only system conserves energy.
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
    RungeKuttaMersonIntegrator,
    SimbodyMatterSubsystem,
    Stage,
    TimeStepper,
    Transform,
)
from engine.multibody.mobilizers.dispatch import MOBILIZER_MODULES
from tests.engine.close import assert_close
from tests.engine.custom_mobilizer_examples import CUSTOM_EXAMPLES

BUILTIN = sorted(m.NAME for m in MOBILIZER_MODULES.values())
TYPES = BUILTIN + sorted(CUSTOM_EXAMPLES)
# (seed, number of bodies, Euler-angle mode)
TREES = [(0, 7, False), (1, 8, False), (2, 6, True), (3, 8, False), (4, 7, True), (5, 9, False)]


def _rotation(rng) -> Rotation:
    q = rng.normal(size=4)
    return Rotation(q / np.linalg.norm(q))


def _mass_properties(rng) -> MassProperties:
    """Random mass, mass centre and a physical inertia about Bo (central inertia shifted)."""
    m = rng.uniform(0.5, 3.0)
    c = rng.uniform(-0.4, 0.4, size=3)
    moments = rng.uniform(0.05, 0.3, size=3)
    moments[2] = rng.uniform(abs(moments[0] - moments[1]) + 0.01, moments[0] + moments[1])
    R = _rotation(rng).asMat33()
    I_c = R @ np.diag(moments) @ R.T
    I_o = I_c + m * (c @ c * np.eye(3) - np.outer(c, c))
    return MassProperties(m, c, Inertia(I_o))


class Tree:
    """A random tree with gravity."""

    def __init__(self, seed: int, n: int, euler: bool) -> None:
        rng = np.random.default_rng(100 + seed)
        self.rng, self.euler = rng, euler
        self.system = MultibodySystem()
        self.matter = SimbodyMatterSubsystem(self.system)
        forces = GeneralForceSubsystem(self.system)
        down = rng.normal(size=3)
        Force.Gravity(forces, self.matter, down / np.linalg.norm(down), 9.81)
        self.mobods = [self.matter.Ground()]
        self.types = [TYPES[(seed * 7 + 3 * k) % len(TYPES)] for k in range(n)]
        for name in self.types:
            parent = self.mobods[int(rng.integers(0, len(self.mobods)))]
            X_PF = Transform(_rotation(rng), rng.uniform(-0.6, 0.6, size=3))
            X_BM = Transform(_rotation(rng), rng.uniform(-0.6, 0.6, size=3))
            body = Body.Rigid(_mass_properties(rng))
            if name in CUSTOM_EXAMPLES:
                impl = CUSTOM_EXAMPLES[name][0](self.matter)
                mobod = MobilizedBody.Custom(parent, X_PF, body, X_BM, impl)
            elif name == "Screw":
                mobod = MobilizedBody.Screw(parent, X_PF, body, X_BM, rng.uniform(-0.5, 0.5))
            elif name == "Ellipsoid":
                radii = rng.uniform(0.2, 0.8, size=3)
                mobod = MobilizedBody.Ellipsoid(parent, X_PF, body, X_BM, radii)
            else:
                mobod = getattr(MobilizedBody, name)(parent, X_PF, body, X_BM)
            self.mobods.append(mobod)
        self.state = self.system.realizeTopology()
        self.matter.setUseEulerAngles(self.state, euler)
        self.system.realizeModel(self.state)
        self.nb = len(self.mobods)
        self.nu = self.state.getNU()

    def random_q(self) -> np.ndarray:
        rng, topo = self.rng, self.matter._topo()
        q = np.zeros(self.state.getNQ())
        for b in range(1, self.nb):
            s, n = int(topo.qs[b]), int(topo.nqs[b])
            block = rng.uniform(-1.0, 1.0, size=n)
            name = self.types[b - 1]
            if topo.uses_quaternion[b]:
                if self.euler:
                    block[3 if n == 4 else 6] = 0.0
                else:
                    quat = rng.normal(size=4)
                    block[0:4] = quat / np.linalg.norm(quat)
            if name == "CustomBallQuat":
                block /= np.linalg.norm(block)
            if name in ("SphericalCoords", "BendStretch"):
                block[-1] = rng.uniform(0.3, 1.0)
            q[s : s + n] = block
        return q

    def realized(self, q, u, stage=Stage.Acceleration):
        state = self.state.copy()
        state.setQ(q)
        state.setU(u)
        self.system.realize(state, stage)
        return state

    def random_state(self, stage=Stage.Acceleration):
        return self.realized(self.random_q(), self.rng.uniform(-1.0, 1.0, self.nu), stage)


@pytest.fixture(
    params=TREES, ids=[f"seed{t[0]}-{t[1]}bodies{'-euler' if t[2] else ''}" for t in TREES]
)
def tree(request):
    return Tree(*request.param)


def test_trees_cover_every_mobilizer_type():
    used = set()
    for seed, n, _euler in TREES:
        used.update(TYPES[(seed * 7 + 3 * k) % len(TYPES)] for k in range(n))
    assert used == set(TYPES)


def test_forward_dynamics_of_inverse_dynamics_is_identity(tree):
    s = tree.random_state(Stage.Velocity)
    rng = tree.rng
    udot = rng.normal(size=tree.nu)
    f = rng.normal(size=tree.nu)
    F = rng.normal(size=(tree.nb, 2, 3))
    F[0] = 0.0
    tau = tree.matter.calcResidualForceIgnoringConstraints(s, f, F, udot)
    udot_back, A = tree.matter.calcAccelerationIgnoringConstraints(s, f + tau, F)
    assert_close(udot_back, udot, "forward(inverse(udot))", tol=1e-9)
    assert A.shape == (tree.nb, 2, 3)
    # and the realized forward dynamics agree with the operator given the applied forces
    tree.system.realize(s, Stage.Acceleration)
    body, mobility = tree.system.getAppliedForces(s)
    udot_op, A_op = tree.matter.calcAccelerationIgnoringConstraints(
        s, mobility, body.reshape(tree.nb, 2, 3)
    )
    assert_close(s.getUDot(), udot_op, "realize(Acceleration) vs operator", tol=1e-10)
    for b in range(1, tree.nb):
        assert_close(tree.mobods[b].getBodyAcceleration(s), A_op[b], f"A_GB[{b}]", tol=1e-10)


def test_mass_matrix_equals_inverse_dynamics_columns(tree):
    s = tree.realized(tree.random_q(), np.zeros(tree.nu), Stage.Velocity)
    M = tree.matter.calcM(s)
    zero_f, zero_F = np.zeros(tree.nu), np.zeros((tree.nb, 2, 3))
    eye = np.eye(tree.nu)
    M_id = np.column_stack(
        [tree.matter.calcResidualForceIgnoringConstraints(s, zero_f, zero_F, e) for e in eye]
    )
    assert_close(M, M_id, "calcM vs inverse dynamics", tol=1e-11)
    assert_close(M, M.T, "M symmetric", tol=1e-12)
    assert np.all(np.linalg.eigvalsh(M) > 0)
    M_op = np.column_stack([tree.matter.multiplyByM(s, e) for e in eye])
    assert_close(M, M_op, "calcM vs multiplyByM", tol=1e-11)


def test_m_times_minv_is_identity(tree):
    s = tree.random_state(Stage.Position)
    v = tree.rng.normal(size=tree.nu)
    assert_close(
        tree.matter.multiplyByM(s, tree.matter.multiplyByMInv(s, v)), v, "M MInv v", tol=1e-10
    )
    assert_close(
        tree.matter.multiplyByMInv(s, tree.matter.multiplyByM(s, v)), v, "MInv M v", tol=1e-10
    )
    assert_close(
        tree.matter.calcMInv(s) @ tree.matter.calcM(s), np.eye(tree.nu), "MInv M", tol=1e-10
    )


def test_jacobian_times_u_is_body_velocity_and_derivative_of_pose(tree):
    s = tree.random_state(Stage.Velocity)
    matter, u = tree.matter, s.getU().copy()
    Ju = matter.multiplyBySystemJacobian(s, u)
    for b in range(tree.nb):
        assert_close(Ju[b], tree.mobods[b].getBodyVelocity(s), f"J u body {b}", tol=1e-12)
    F = tree.rng.normal(size=(tree.nb, 2, 3))
    x = tree.rng.normal(size=tree.nu)
    lhs = float(np.sum(matter.multiplyBySystemJacobian(s, x) * F))
    rhs = float(x @ matter.multiplyBySystemJacobianTranspose(s, F))
    assert abs(lhs - rhs) <= 1e-11 * max(1.0, abs(lhs))
    J = matter.calcSystemJacobian(s)
    assert_close(J @ u, Ju.reshape(-1), "calcSystemJacobian u", tol=1e-12)
    # finite differences of X_GB along qdot
    q, qdot, h = s.getQ().copy(), s.getQDot().copy(), 1e-6
    sp = tree.realized(q + h * qdot, u, Stage.Position)
    sm = tree.realized(q - h * qdot, u, Stage.Position)
    for b in range(1, tree.nb):
        Xp, Xm = tree.mobods[b].getBodyTransform(sp), tree.mobods[b].getBodyTransform(sm)
        R = tree.mobods[b].getBodyRotation(s).asMat33()
        W = (Xp.R().asMat33() - Xm.R().asMat33()) / (2 * h) @ R.T
        w = 0.5 * np.array([W[2, 1] - W[1, 2], W[0, 2] - W[2, 0], W[1, 0] - W[0, 1]])
        v = (Xp.p() - Xm.p()) / (2 * h)
        assert_close(Ju[b][0], w, f"w of body {b} vs differences", tol=1e-7)
        assert_close(Ju[b][1], v, f"v of body {b} vs differences", tol=1e-7)


def test_energy_is_conserved_by_fixed_step_integration(tree):
    s = tree.random_state(Stage.Acceleration)
    s.setU(0.5 * s.getU())
    integ = RungeKuttaMersonIntegrator(tree.system)
    integ.setFixedStepSize(2e-3)
    stepper = TimeStepper(tree.system, integ)
    stepper.initialize(s)

    def energy(state):
        tree.system.realize(state, Stage.Dynamics)
        return tree.system.calcEnergy(state)

    e0 = energy(stepper.getState())
    ke0 = tree.system.calcKineticEnergy(stepper.getState())
    stepper.stepTo(0.2)
    s1 = stepper.getState()
    assert s1.getTime() == pytest.approx(0.2)
    drift = abs(energy(s1) - e0)
    # the system moved: kinetic energy changed by far more than the drift
    assert abs(tree.system.calcKineticEnergy(s1) - ke0) > 1e3 * drift
    assert drift <= 1e-7 * max(1.0, abs(e0), ke0)
