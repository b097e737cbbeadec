# ruff: noqa: N806  (monogram names: X_GB, M, I_C)
"""URDF import checked against Pinocchio loading the same published robot descriptions
(example-robot-data): link poses in the world at random configurations, the mass matrix and
forward dynamics under gravity (fixed base); link poses, kinetic and potential energy
(floating base). Coordinates are matched by joint name (URDF joint -> body of its child link).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin  # the test extra's `pin`
import pytest

from app.document import build
from app.importers.urdf import import_urdf
from tests.importers.robots import KINOVA, PANDA, SOLO12, TALOS, UR5, Z1, robot

N_CONFIGS = 3


def _models(relative: str, floating: bool):
    path = robot(relative)
    result = import_urdf(path, floating=floating)
    data = result.data.copy()
    data.constraints = []  # Pinocchio's model has no mimic coupling: compare the open tree
    data.bodies = [  # meshes play no part in the dynamics: do not load them
        type(b)(**{**b.__dict__, "geometry": ()}) for b in data.bodies
    ]
    built = build(data)
    if floating:
        model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    else:
        model = pin.buildModelFromUrdf(str(path))
    return result, built, model


def _joint_bodies(built, model, result):
    """(pin joint id, our MobilizedBody) for every moving pin joint."""
    links = {}
    for b in result.data.bodies:
        links[b.name] = b
    out = []
    for jid in range(1, model.njoints):
        name = model.names[jid]
        if name == "root_joint":
            root = next(b for b in result.data.bodies if b.parent == "Ground")
            out.append((jid, built.mobilized_bodies[root.name]))
            continue
        child = _child_of_joint(result, name)
        out.append((jid, built.mobilized_bodies[child]))
    return out


def _child_of_joint(result, joint_name: str) -> str:
    return result.joint_bodies[joint_name]


def _set_config(built, model, pairs, rng, floating: bool):
    """A random configuration and velocity, set in our State; returns pin's (q, v)."""
    state = built.state.copy()
    q = pin.neutral(model)
    v = np.zeros(model.nv)
    for jid, mb in pairs:
        j = model.joints[jid]
        iq, iv = j.idx_q, j.idx_v
        if j.nq == 7:  # free flyer: pin (p, quaternion xyzw, v_local, w_local)
            p = rng.uniform(-0.5, 0.5, 3)
            quat = rng.normal(size=4)
            quat /= np.linalg.norm(quat)  # (w, x, y, z)
            q[iq : iq + 3] = p
            q[iq + 3 : iq + 7] = (*quat[1:], quat[0])
            w, vel = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3)
            R = pin.Quaternion(quat[0], *quat[1:]).toRotationMatrix()
            v[iv : iv + 3] = R.T @ vel
            v[iv + 3 : iv + 6] = R.T @ w
            mb.setQ(state, np.array([*quat, *p]))
            mb.setU(state, np.array([*w, *vel]))
            continue
        if j.nq == 2 and j.nv == 1:  # continuous: pin holds (cos, sin) of the angle
            angle = rng.uniform(-3.0, 3.0)
            q[iq : iq + 2] = np.cos(angle), np.sin(angle)
            v[iv] = rng.uniform(-1.0, 1.0)
            mb.setQ(state, np.array([angle]))
            mb.setU(state, np.array([v[iv]]))
            continue
        assert j.nq == 1 and j.nv == 1, f"{model.names[jid]}: nq={j.nq}"
        lo, hi = model.lowerPositionLimit[iq], model.upperPositionLimit[iq]
        lo, hi = (lo, hi) if np.isfinite(lo) and np.isfinite(hi) and lo < hi else (-3.0, 3.0)
        q[iq] = rng.uniform(lo, hi)
        v[iv] = rng.uniform(-1.0, 1.0)
        mb.setQ(state, np.array([q[iq]]))
        mb.setU(state, np.array([v[iv]]))
    return state, q, v


def _u_index(built, state, pairs, model):
    """Our u index of each pin v index."""
    index = np.empty(model.nv, dtype=int)
    for jid, mb in pairs:
        j = model.joints[jid]
        first = mb.getFirstUIndex(state)
        for k in range(j.nv):
            index[j.idx_v + k] = first + k
    return index


@pytest.mark.parametrize("relative", [UR5, PANDA, Z1, KINOVA])
def test_fixed_base_poses_mass_matrix_and_dynamics_match_pinocchio(relative):
    result, built, model = _models(relative, floating=False)
    data = model.createData()
    pairs = _joint_bodies(built, model, result)
    assert len(pairs) == model.njoints - 1
    rng = np.random.default_rng(7)
    system, matter = built.system, built.matter
    for _ in range(N_CONFIGS):
        state, q, v = _set_config(built, model, pairs, rng, floating=False)
        system.realize(state)  # through Acceleration
        # link poses
        pin.forwardKinematics(model, data, q)
        pin.updateFramePlacements(model, data)
        for b in result.data.bodies:
            fid = model.getFrameId(b.name, pin.FrameType.BODY)
            assert fid < model.nframes, b.name
            X_ours = built.mobilized_bodies[b.name].getBodyTransform(state).toMat44()
            X_pin = data.oMf[fid].homogeneous
            assert np.abs(X_ours[:3, 3] - X_pin[:3, 3]).max() < 1e-10, b.name
            assert np.abs(X_ours[:3, :3] - X_pin[:3, :3]).max() < 1e-10, b.name
        iu = _u_index(built, state, pairs, model)
        # mass matrix
        M_pin = pin.crba(model, data, q)
        M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
        M_ours = matter.calcM(state)[np.ix_(iu, iu)]
        assert np.linalg.norm(M_ours - M_pin) <= 1e-8 * np.linalg.norm(M_pin)
        # forward dynamics under gravity, with the URDF joint damping as joint torques
        tau = -model.damping * v
        a_pin = pin.aba(model, data, q, v, tau)
        a_ours = np.asarray(state.getUDot())[iu]
        assert np.abs(a_ours - a_pin).max() <= 1e-8 * max(1.0, np.abs(a_pin).max())


@pytest.mark.parametrize("relative", [SOLO12, TALOS])
def test_floating_base_poses_and_energies_match_pinocchio(relative):
    result, built, model = _models(relative, floating=True)
    data = model.createData()
    pairs = _joint_bodies(built, model, result)
    rng = np.random.default_rng(11)
    system = built.system
    for _ in range(N_CONFIGS):
        state, q, v = _set_config(built, model, pairs, rng, floating=True)
        system.realize(state)
        pin.forwardKinematics(model, data, q, v)
        pin.updateFramePlacements(model, data)
        for b in result.data.bodies:
            X_ours = built.mobilized_bodies[b.name].getBodyTransform(state).toMat44()
            X_pin = data.oMf[model.getFrameId(b.name, pin.FrameType.BODY)].homogeneous
            assert np.abs(X_ours - X_pin).max() < 1e-10, b.name
        ke_pin = pin.computeKineticEnergy(model, data, q, v)
        pe_pin = pin.computePotentialEnergy(model, data, q)
        assert system.calcKineticEnergy(state) == pytest.approx(ke_pin, rel=1e-10, abs=1e-12)
        assert system.calcPotentialEnergy(state) == pytest.approx(pe_pin, rel=1e-10, abs=1e-12)
