"""Multibody dynamics speed: mbstudio's engine against Simbody 3.7, OpenSim, Pinocchio, MuJoCo.

Run: ``.venv/bin/python benchmarks/bench_dynamics.py [--models pin10,pin50,...]
[--ops fd_u,multiplyByMInv,...] [--quick] [--no-warm] [--results]`` (``--results`` writes
the table into benchmarks/RESULTS.md; ``--no-warm`` skips ``engine.warm_jit()``, which
deletes numba's whole on-disk cache after any engine source edit: the kernels then
compile, or load from the cache, on their first untimed call)

The same models go through every engine:

* ``pin10``, ``pin50``, ``pin200``: planar chains of Pin joints (links 1 m, 1 kg);
* ``ball50``: the same chain with Ball joints (quaternions);
* ``tree255``: a binary tree of 255 bodies on Pin joints;
* ``humanoid``: a free-floating 32-dof humanoid (Free pelvis, Ball/Pin limbs);

each under gravity (-9.81 m/s^2 along y), in one random state. For each engine and model the
script checks that udot agrees with ours (converted between the engines' coordinate
conventions: Pinocchio and MuJoCo give ball/free angular rates in the child frame), then prints
microseconds per call, from one run, of

* ``fd_u``: forward dynamics after a change of u (set u, realize Acceleration; Simbody and we
  keep the position-dependent articulated inertias; MuJoCo ``mj_forwardSkip`` from velocity;
  Pinocchio's ``aba`` always starts from q);
* ``fd_q``: the same after a change of q (``mj_forward``, ``aba``);
* ``calcM``: the mass matrix of a position-realized State (Pinocchio ``crba`` from q; MuJoCo
  ``mj_fullM`` of the matrix its position stage keeps);
* ``inverse_dynamics``: calcResidualForceIgnoringConstraints (``rnea``, ``mj_inverse``);
* ``multiplyByMInv``: M^-1 v (Pinocchio ``aba`` with v = 0 and no gravity; ``mj_solveM``);
* ``system_jacobian``: calcSystemJacobian (``computeJointJacobians``; MuJoCo ``mj_jacBody``
  for every body);
* ``multiplyByM``: M v (ours and Simbody only);
* ``jacobian_product``, ``jacobian_transpose_product``: multiplyBySystemJacobian (J v) and
  multiplyBySystemJacobianTranspose (J^T F) (ours and Simbody only);

and the ratios ours / theirs. Each of our operators that returns a new array (calcM,
inverse_dynamics, multiplyByMInv, system_jacobian, multiplyByM and the two Jacobian products)
is timed twice: its row is the allocating call, and the row ``<op> (out=)`` below it the same
call writing into an output array the caller reuses (``out=``). Simbody's signatures take the
output by reference, so its figure, repeated in the ``(out=)`` row (and only Simbody's), is
always the reused-output call: the ``(out=)`` ratio compares like with like. Python engines
are timed through their Python APIs (the call overhead is part of what a Python user pays,
as it is for ours); Simbody through a small C++ program (``simbody_bench.cpp``) built here
against Debian's libsimbody-dev.

Caveat printed beside every Simbody ratio: Debian's libsimbody is built with its debug
assertions on and runs about 1.5-3x slower than Simbody's own Release build, so a ratio
against it flatters us by that factor; the real aim is the ratio against a Release build
(about twice as strict). ``simbody_rel`` is the same program built against a Release build of
the same Simbody 3.7, when ``build_simbody_release.sh`` has installed one: that ratio, with no
asterisk, is the real aim measured rather than estimated.

Optional engines are skipped with a note when they are not installed (``pip install
'.[bench]'`` installs pin, mujoco and opensim; ``apt-get install libsimbody-dev g++`` for
Simbody). Timing: CPU (process) time of batches of at least ~20 ms, best of 5 batches, in
every engine. A Python engine's operation is timed as a call of a lambda (or a small
function) in a loop; the cost of that call itself, an empty lambda timed the same way (about
30-40 ns), is subtracted (``time_call``), since a program calling the API pays only the API
call and the C++ runner's loop costs about a nanosecond. Not a test: numbers vary with the
machine and its load.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.common import (  # noqa: E402  (after the path set-up above)
    GRAVITY,
    RESULTS_FILE,
    SIMBODY_CAVEAT,
    SIMBODY_RELEASE_NOTE,
    Link,
    build_ours,
    build_simbody_program,
    chain_links,
    humanoid_links,
    machine_line,
    make_link,
    release_simbody_program,
    run_simbody_program,
    simbody_model_lines,
    write_results_section,
)

OPS = (
    "fd_u",
    "fd_q",
    "calcM",
    "inverse_dynamics",
    "multiplyByMInv",
    "system_jacobian",
    "multiplyByM",
    "jacobian_product",
    "jacobian_transpose_product",
)

#: the operations our engine also times writing into a reused output array (``out=``),
#: each in a row named ``<op> (out=)``; Simbody's figure in that row is its row's
OUT_OPS = tuple(op for op in OPS if not op.startswith("fd_"))  # (the matter operators)

#: the engines whose call for an OUT_OPS operation already reuses its output
REUSED_OUTPUT_ENGINES = ("simbody", "simbody_rel")


def out_row(op: str) -> str:
    """The name of the row of ``op`` timed with a reused output array."""
    return f"{op} (out=)"


# --------------------------------------------------------------------------- models
@dataclass
class Model:
    name: str
    links: list[Link]
    # per-joint state in Simbody's conventions
    R_FM: list[np.ndarray] = field(default_factory=list)
    angle: list[float] = field(default_factory=list)
    p_FM: list[np.ndarray] = field(default_factory=list)
    w_F: list[np.ndarray] = field(default_factory=list)
    v_F: list[np.ndarray] = field(default_factory=list)
    rate: list[float] = field(default_factory=list)

    @property
    def nb(self) -> int:
        return len(self.links) + 1

    def randomize(self, seed: int) -> None:
        rng = np.random.default_rng(seed)
        for link in self.links:
            rv = rng.normal(scale=0.4, size=3)
            self.R_FM.append(_rotvec_to_matrix(rv))
            self.angle.append(float(rng.uniform(-1.0, 1.0)))
            self.p_FM.append(rng.normal(scale=0.2, size=3) if link.joint == "free" else np.zeros(3))
            self.w_F.append(rng.normal(scale=0.5, size=3))
            self.v_F.append(rng.normal(scale=0.5, size=3))
            self.rate.append(float(rng.normal(scale=0.5)))

    # Simbody's q and u
    def simbody_qu(self) -> tuple[np.ndarray, np.ndarray]:
        q, u = [], []
        for k, link in enumerate(self.links):
            if link.joint == "pin":
                q.append([self.angle[k]])
                u.append([self.rate[k]])
            elif link.joint == "ball":
                q.append(_matrix_to_quat_wxyz(self.R_FM[k]))
                u.append(self.w_F[k])
            else:
                q.append(np.r_[_matrix_to_quat_wxyz(self.R_FM[k]), self.p_FM[k]])
                u.append(np.r_[self.w_F[k], self.v_F[k]])
        return np.concatenate(q), np.concatenate(u)


def _rotvec_to_matrix(rv: np.ndarray) -> np.ndarray:
    th = np.linalg.norm(rv)
    if th < 1e-12:
        return np.eye(3)
    k = rv / th
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(th) * K + (1 - np.cos(th)) * K @ K


def _matrix_to_quat_wxyz(R: np.ndarray) -> np.ndarray:
    w = np.sqrt(max(0.0, 1.0 + np.trace(R))) / 2.0
    x = np.copysign(np.sqrt(max(0.0, 1 + R[0, 0] - R[1, 1] - R[2, 2])) / 2, R[2, 1] - R[1, 2])
    y = np.copysign(np.sqrt(max(0.0, 1 - R[0, 0] + R[1, 1] - R[2, 2])) / 2, R[0, 2] - R[2, 0])
    z = np.copysign(np.sqrt(max(0.0, 1 - R[0, 0] - R[1, 1] + R[2, 2])) / 2, R[1, 0] - R[0, 1])
    q = np.array([w, x, y, z])
    return q / np.linalg.norm(q)


def chain(name: str, n: int, joint: str) -> Model:
    return Model(name, chain_links(n, joint))


def binary_tree(name: str, n: int) -> Model:
    links = []
    for k in range(1, n + 1):
        parent = k // 2
        side = 0.0 if k == 1 else (0.5 if k % 2 == 0 else -0.5)
        links.append(make_link(parent, "pin", (side, 0 if k == 1 else -1.0, 0)))
    return Model(name, links)


def humanoid(name: str) -> Model:
    return Model(name, humanoid_links())


def make_models(names: list[str]) -> list[Model]:
    makers = {
        "pin10": lambda: chain("pin10", 10, "pin"),
        "pin50": lambda: chain("pin50", 50, "pin"),
        "pin200": lambda: chain("pin200", 200, "pin"),
        "ball50": lambda: chain("ball50", 50, "ball"),
        "tree255": lambda: binary_tree("tree255", 255),
        "humanoid": lambda: humanoid("humanoid"),
    }
    models = []
    for name in names:
        model = makers[name]()
        model.randomize(seed=7)
        models.append(model)
    return models


# --------------------------------------------------------------------------- timing
def _batch_seconds(f: Callable[[], object], quick: bool) -> float:
    """CPU seconds per call of ``f``, harness included: batches of >= ~20 ms (5 ms quick),
    best of 5 (3 quick). One call first, untimed: a first call may load compiled code (an
    operator's entry point from numba's cache, ~0.1 s), which would end the batch sizing
    at one call per batch, too short for the clock's resolution."""
    clock = time.process_time
    target = 0.005 if quick else 0.02
    f()
    n = 1
    while True:
        t0 = clock()
        for _ in range(n):
            f()
        dt = clock() - t0
        if dt > target or n >= 1 << 22:
            break
        n *= 2
    best = float("inf")
    for _ in range(3 if quick else 5):
        t0 = clock()
        for _ in range(n):
            f()
        best = min(best, (clock() - t0) / n)
    return best


@functools.cache
def harness_seconds() -> float:
    """CPU seconds per call that the Python harness itself costs: one turn of the timing
    loop calling an empty lambda (about 30-40 ns), timed as ``time_call`` times an
    operation, best of three such measurements."""
    return min(_batch_seconds(lambda: None, False) for _ in range(3))


def time_call(f: Callable[[], object], quick: bool = False) -> float:
    """CPU microseconds per call of the operation ``f`` runs, measured in process time
    (less disturbed by other processes on a shared machine than wall time) by
    ``_batch_seconds``, less ``harness_seconds()``: the timing loop's own call of ``f``,
    which a program calling the engine's API directly does not pay and which
    ``simbody_bench.cpp``'s C++ loop does not have (its call through a std::function costs
    about a nanosecond)."""
    return max(_batch_seconds(f, quick) - harness_seconds(), 0.0) * 1e6


@dataclass
class Result:
    udot: np.ndarray | None  # in Simbody's conventions
    times: dict[str, float]
    note: str = ""


# --------------------------------------------------------------------------- our engine
def _timed(ops: dict[str, Callable[[], object]], wanted, quick: bool) -> dict[str, float]:
    """CPU microseconds per call of each operation in ``ops`` that ``wanted`` names (all
    if ``wanted`` is None)."""
    return {op: time_call(f, quick) for op, f in ops.items() if wanted is None or op in wanted}


def run_ours(model: Model, quick: bool, wanted=None) -> Result:
    from engine import Stage

    system, matter = build_ours(model.links)
    state = system.realizeTopology()
    q, u = model.simbody_qu()
    state.setQ(q)
    state.setU(u)
    system.realize(state, Stage.Acceleration)
    udot = np.array(state.getUDot())
    nu, nb = state.getNU(), matter.getNumBodies()
    f0, F0 = np.zeros(nu), np.zeros((nb, 2, 3))
    v = 1.0 + 0.01 * np.arange(nu)
    b = np.arange(nb, dtype=np.float64)
    F1 = np.zeros((nb, 2, 3))  # the same body forces as simbody_bench.cpp
    F1[:, 0, 0], F1[:, 0, 1] = 0.1 * b, 1.0
    F1[:, 1, 0], F1[:, 1, 1], F1[:, 1, 2] = 1.0, -0.2 * b, 0.5

    def fd_u():
        state.setU(u)
        system.realize(state, Stage.Acceleration)

    def fd_q():
        state.setQ(q)
        system.realize(state, Stage.Acceleration)

    ops = {
        "fd_u": fd_u,
        "fd_q": fd_q,
        "calcM": lambda: matter.calcM(state),
        "inverse_dynamics": lambda: matter.calcResidualForceIgnoringConstraints(
            state, f0, F0, udot
        ),
        "multiplyByMInv": lambda: matter.multiplyByMInv(state, v),
        "system_jacobian": lambda: matter.calcSystemJacobian(state),
        "multiplyByM": lambda: matter.multiplyByM(state, v),
        "jacobian_product": lambda: matter.multiplyBySystemJacobian(state, v),
        "jacobian_transpose_product": lambda: matter.multiplyBySystemJacobianTranspose(state, F1),
    }
    M_out, J_out = np.empty((nu, nu)), np.empty((6 * nb, nu))
    f_out, V_out = np.empty(nu), np.empty((nb, 2, 3))
    reused = {
        "calcM": lambda: matter.calcM(state, out=M_out),
        "inverse_dynamics": lambda: matter.calcResidualForceIgnoringConstraints(
            state, f0, F0, udot, out=f_out
        ),
        "multiplyByMInv": lambda: matter.multiplyByMInv(state, v, out=f_out),
        "system_jacobian": lambda: matter.calcSystemJacobian(state, out=J_out),
        "multiplyByM": lambda: matter.multiplyByM(state, v, out=f_out),
        "jacobian_product": lambda: matter.multiplyBySystemJacobian(state, v, out=V_out),
        "jacobian_transpose_product": lambda: matter.multiplyBySystemJacobianTranspose(
            state, F1, out=f_out
        ),
    }
    times = _timed(ops, wanted, quick)
    for op, f in reused.items():
        if wanted is None or op in wanted:
            times[out_row(op)] = time_call(f, quick)
    return Result(udot, times)


# --------------------------------------------------------------------------- Simbody C++
def run_simbody(model: Model, exe: Path, note: str = "debug-assert build") -> Result:
    q, u = model.simbody_qu()
    out = run_simbody_program(exe, simbody_model_lines(model.links, q, u))
    udot, times = None, {}
    for line in out.splitlines():
        parts = line.split()
        if parts[0] == "udot":
            udot = np.array([float(x) for x in parts[1:]])
        elif parts[0] == "time":
            times[parts[1]] = float(parts[2])
    return Result(udot, times, note)


# --------------------------------------------------------------------------- Pinocchio
def run_pinocchio(model: Model, quick: bool) -> Result:
    import pinocchio as pin

    pm = pin.Model()
    pm.gravity.linear = np.array([0.0, -GRAVITY, 0.0])
    joints = {
        "pin": pin.JointModelRZ,
        "ball": pin.JointModelSpherical,
        "free": pin.JointModelFreeFlyer,
    }
    ids = [0]
    for k, link in enumerate(model.links):
        jid = pm.addJoint(
            ids[link.parent], joints[link.joint](), pin.SE3(np.eye(3), link.p_PF), f"j{k}"
        )
        pm.appendBodyToJoint(jid, pin.Inertia(link.mass, link.com, link.I_com), pin.SE3.Identity())
        ids.append(jid)
    data = pm.createData()
    # q, v in Pinocchio's conventions (child-frame angular rates)
    q, v = [], []
    for k, link in enumerate(model.links):
        R = model.R_FM[k]
        if link.joint == "pin":
            q.append([model.angle[k]])
            v.append([model.rate[k]])
        else:
            wxyz = _matrix_to_quat_wxyz(R)
            xyzw = np.r_[wxyz[1:], wxyz[0]]
            w_M = R.T @ model.w_F[k]
            if link.joint == "ball":
                q.append(xyzw)
                v.append(w_M)
            else:
                q.append(np.r_[model.p_FM[k], xyzw])
                v.append(np.r_[R.T @ model.v_F[k], w_M])
    q, v = np.concatenate(q), np.concatenate(v)
    tau0 = np.zeros(pm.nv)
    a = pin.aba(pm, data, q, v, tau0).copy()
    # back to Simbody's conventions
    udot, i = [], 0
    for k, link in enumerate(model.links):
        R = model.R_FM[k]
        if link.joint == "pin":
            udot.append(a[i : i + 1])
            i += 1
        elif link.joint == "ball":
            udot.append(R @ a[i : i + 3])
            i += 3
        else:
            v_M, w_M = v[i : i + 3], v[i + 3 : i + 6]
            udot.append(np.r_[R @ a[i + 3 : i + 6], R @ (a[i : i + 3] + np.cross(w_M, v_M))])
            i += 6
    udot = np.concatenate(udot)
    free_model = pm.copy()
    free_model.gravity.linear = np.zeros(3)
    free_data = free_model.createData()
    zero_v = np.zeros(pm.nv)
    vv = 1.0 + 0.01 * np.arange(pm.nv)
    times = {
        "fd_u": time_call(lambda: pin.aba(pm, data, q, v, tau0), quick),
        "calcM": time_call(lambda: pin.crba(pm, data, q), quick),
        "inverse_dynamics": time_call(lambda: pin.rnea(pm, data, q, v, a), quick),
        "multiplyByMInv": time_call(lambda: pin.aba(free_model, free_data, q, zero_v, vv), quick),
        "system_jacobian": time_call(lambda: pin.computeJointJacobians(pm, data, q), quick),
    }
    times["fd_q"] = times["fd_u"]
    return Result(udot, times, "aba/crba start from q")


# --------------------------------------------------------------------------- MuJoCo
def _mjcf(model: Model) -> str:
    children: dict[int, list[int]] = {}
    for k, link in enumerate(model.links, start=1):
        children.setdefault(link.parent, []).append(k)

    def body_xml(k: int, indent: str) -> str:
        link = model.links[k - 1]
        pos = " ".join(repr(float(x)) for x in link.p_PF)
        joint = {
            "pin": '<joint type="hinge" axis="0 0 1"/>',
            "ball": '<joint type="ball"/>',
            "free": "<freejoint/>",
        }[link.joint]
        inertial = (
            f'<inertial pos="{" ".join(repr(float(x)) for x in link.com)}" mass="{link.mass!r}" '
            f'diaginertia="{" ".join(repr(float(x)) for x in np.diag(link.I_com))}"/>'
        )
        inner = "".join(body_xml(c, indent + " ") for c in children.get(k, []))
        return f'{indent}<body name="b{k}" pos="{pos}">{joint}{inertial}\n{inner}{indent}</body>\n'

    bodies = "".join(body_xml(c, "  ") for c in children.get(0, []))
    return (
        f'<mujoco><option gravity="0 {-GRAVITY!r} 0"/>\n<worldbody>\n{bodies}</worldbody></mujoco>'
    )


def run_mujoco(model: Model, quick: bool) -> Result:
    import mujoco

    m = mujoco.MjModel.from_xml_string(_mjcf(model))
    d = mujoco.MjData(m)
    # MuJoCo numbers bodies depth-first as they appear in the XML: address by body name
    qadr, dadr = [], []
    for k in range(1, model.nb):
        joint = m.body_jntadr[m.body(f"b{k}").id]
        qadr.append(int(m.jnt_qposadr[joint]))
        dadr.append(int(m.jnt_dofadr[joint]))
    qpos, qvel = np.zeros(m.nq), np.zeros(m.nv)
    for k, link in enumerate(model.links):
        R = model.R_FM[k]
        qa, da = qadr[k], dadr[k]
        if link.joint == "pin":
            qpos[qa] = model.angle[k]
            qvel[da] = model.rate[k]
        elif link.joint == "ball":
            qpos[qa : qa + 4] = _matrix_to_quat_wxyz(R)
            qvel[da : da + 3] = R.T @ model.w_F[k]
        else:
            qpos[qa : qa + 7] = np.r_[model.p_FM[k], _matrix_to_quat_wxyz(R)]
            qvel[da : da + 6] = np.r_[model.v_F[k], R.T @ model.w_F[k]]
    d.qpos[:] = qpos
    d.qvel[:] = qvel
    mujoco.mj_forward(m, d)
    acc = d.qacc.copy()
    udot = []
    for k, link in enumerate(model.links):
        R = model.R_FM[k]
        i = dadr[k]
        if link.joint == "pin":
            udot.append(acc[i : i + 1])
        elif link.joint == "ball":
            udot.append(R @ acc[i : i + 3])
        else:
            udot.append(np.r_[R @ acc[i + 3 : i + 6], acc[i : i + 3]])
    udot = np.concatenate(udot)
    M = np.zeros((m.nv, m.nv))
    vv = (1.0 + 0.01 * np.arange(m.nv)).reshape(1, m.nv)
    x = np.zeros((1, m.nv))
    jacp, jacr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
    skip_pos = mujoco.mjtStage.mjSTAGE_POS

    def fd_u():
        d.qvel[:] = qvel
        mujoco.mj_forwardSkip(m, d, skip_pos, 0)

    def fd_q():
        d.qpos[:] = qpos
        mujoco.mj_forward(m, d)

    def jac():
        for b in range(1, m.nbody):
            mujoco.mj_jacBody(m, d, jacp, jacr, b)

    def inverse():
        d.qacc[:] = acc
        mujoco.mj_inverse(m, d)

    times = {
        "fd_u": time_call(fd_u, quick),
        "fd_q": time_call(fd_q, quick),
        "calcM": time_call(lambda: mujoco.mj_fullM(m, d, M), quick),
        "inverse_dynamics": time_call(inverse, quick),
        "multiplyByMInv": time_call(lambda: mujoco.mj_solveM(m, d, x, vv), quick),
        "system_jacobian": time_call(jac, quick),
    }
    return Result(udot, times, "jacobian = mj_jacBody per body")


# --------------------------------------------------------------------------- OpenSim
def _euler_xyz(R: np.ndarray) -> np.ndarray:
    """Body-fixed x-y-z angles of R (Simbody's convention for Euler-angle Ball/Free)."""
    b = np.arcsin(np.clip(R[0, 2], -1.0, 1.0))
    a = np.arctan2(-R[1, 2], R[2, 2])
    c = np.arctan2(-R[0, 1], R[0, 0])
    return np.array([a, b, c])


def run_opensim(model: Model, quick: bool) -> Result:
    import opensim as osim

    om = osim.Model()
    om.setGravity(osim.Vec3(0, -GRAVITY, 0))
    frames = [om.getGround()]
    for k, link in enumerate(model.links):
        I = link.I_com
        body = osim.Body(
            f"b{k}", link.mass, osim.Vec3(*link.com), osim.Inertia(I[0, 0], I[1, 1], I[2, 2])
        )
        om.addBody(body)
        args = (f"j{k}", frames[link.parent], osim.Vec3(*link.p_PF), osim.Vec3(0, 0, 0))
        args += (body, osim.Vec3(0, 0, 0), osim.Vec3(0, 0, 0))
        joint = {"pin": osim.PinJoint, "ball": osim.BallJoint, "free": osim.FreeJoint}[link.joint]
        om.addJoint(joint(*args))
        frames.append(body)
    state = om.initSystem()
    matter = om.getMatterSubsystem()
    nq, nu = state.getNQ(), state.getNU()
    q_sb, u_sb = model.simbody_qu()
    euler = nq == nu  # Ball/Free with Euler angles (q count = u count)
    if euler:
        q = []
        for k, link in enumerate(model.links):
            if link.joint == "pin":
                q.append([model.angle[k]])
            elif link.joint == "ball":
                q.append(_euler_xyz(model.R_FM[k]))
            else:
                q.append(np.r_[_euler_xyz(model.R_FM[k]), model.p_FM[k]])
        q_vals = np.concatenate(q)
    else:
        q_vals = q_sb
    # OpenSim numbers mobilized bodies in the order of its multibody graph; it matches ours
    # for these models (parents before children, in creation order), which the udot check
    # confirms.
    qv, uv = osim.Vector(nq, 0.0), osim.Vector(nu, 0.0)
    for i in range(nq):
        qv.set(i, float(q_vals[i]))
    for i in range(nu):
        uv.set(i, float(u_sb[i]))
    state.setQ(qv)
    state.setU(uv)
    om.realizeAcceleration(state)
    udot_v = state.getUDot()
    udot = np.array([udot_v.get(i) for i in range(nu)])
    nb = model.nb
    M = osim.Matrix(nu, nu)
    f0 = osim.Vector(nu, 0.0)
    F0 = osim.VectorOfSpatialVec(nb, osim.SpatialVec(osim.Vec3(0), osim.Vec3(0)))
    known = osim.Vector(nu, 0.0)
    for i in range(nu):
        known.set(i, float(udot[i]))
    res = osim.Vector(nu, 0.0)
    vv = osim.Vector(nu, 0.0)
    for i in range(nu):
        vv.set(i, 1.0 + 0.01 * i)
    out = osim.Vector(nu, 0.0)
    J = osim.MatrixOfSpatialVec(nb, nu)

    def fd_u():
        state.setU(uv)
        om.realizeAcceleration(state)

    def fd_q():
        state.setQ(qv)
        om.realizeAcceleration(state)

    times = {
        "fd_u": time_call(fd_u, quick),
        "fd_q": time_call(fd_q, quick),
        "calcM": time_call(lambda: matter.calcM(state, M), quick),
        "inverse_dynamics": time_call(
            lambda: matter.calcResidualForceIgnoringConstraints(state, f0, F0, known, res), quick
        ),
        "multiplyByMInv": time_call(lambda: matter.multiplyByMInv(state, vv, out), quick),
    }
    try:
        times["system_jacobian"] = time_call(lambda: matter.calcSystemJacobian(state, J), quick)
    except (TypeError, RuntimeError, AttributeError):
        pass
    if any(link.joint != "pin" for link in model.links):
        # OpenSim orders the mobilizers of its multibody graph its own way and gives Ball and
        # Free joints its own coordinates; only all-Pin models are compared value by value.
        return Result(None, times, "udot not compared (OpenSim's Ball/Free coordinate layout)")
    return Result(udot, times)


# --------------------------------------------------------------------------- report
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default="pin10,pin50,pin200,ball50,tree255,humanoid")
    parser.add_argument("--engines", default="ours,simbody,simbody_rel,opensim,pinocchio,mujoco")
    parser.add_argument(
        "--ops",
        default=",".join(OPS),
        help="the operations to print (comma-separated; default all); ours times only "
        "these, the other engines time all of theirs",
    )
    parser.add_argument("--quick", action="store_true", help="shorter timing batches")
    parser.add_argument(
        "--no-warm",
        action="store_true",
        help="skip engine.warm_jit() (which deletes numba's whole on-disk cache after any "
        "engine source edit and compiles every kernel again): kernels compile, or load "
        "from the cache, on their first untimed call instead",
    )
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table too")
    parser.add_argument(
        "--results",
        nargs="?",
        const=str(RESULTS_FILE),
        metavar="FILE",
        help=f"write the table into FILE's dynamics section (default {RESULTS_FILE.name})",
    )
    args = parser.parse_args(argv)
    models = make_models(args.models.split(","))
    engines = args.engines.split(",")
    wanted = args.ops.split(",")
    unknown = sorted(set(wanted) - set(OPS))
    if unknown:
        parser.error(f"unknown operation(s) {', '.join(unknown)}; known: {', '.join(OPS)}")
    notes: list[str] = []

    import engine

    if not args.no_warm:
        engine.warm_jit()
    exe = None
    if "simbody" in engines:
        exe, why = build_simbody_program("simbody_bench")
        if exe is None:
            notes.append(f"Simbody C++ skipped: {why}")
    exe_rel = None
    if "simbody_rel" in engines:
        exe_rel = release_simbody_program("simbody_bench", notes)
    runners: dict[str, Callable[[Model], Result]] = {
        "ours": lambda m: run_ours(m, args.quick, wanted)
    }
    if exe is not None:
        runners["simbody"] = lambda m: run_simbody(m, exe)
    if exe_rel is not None:
        runners["simbody_rel"] = lambda m: run_simbody(m, exe_rel, "Release build")
    optional = {
        "opensim": ("opensim", run_opensim),
        "pinocchio": ("pinocchio", run_pinocchio),
        "mujoco": ("mujoco", run_mujoco),
    }
    for name, (module, fn) in optional.items():
        if name not in engines:
            continue
        try:
            __import__(module)
        except Exception as exc:  # noqa: BLE001  (any import failure means: not available)
            notes.append(f"{name} skipped: {type(exc).__name__}: {exc}")
            continue
        runners[name] = lambda m, fn=fn: fn(m, args.quick)

    machine = machine_line()
    harness = f"the Python harness's own call, {harness_seconds() * 1e9:.0f} ns, subtracted"
    print(f"Machine: {machine}")
    print(f"Note: {SIMBODY_CAVEAT}.")
    print(f"Note: Python engines' times are per API call, {harness} (see time_call).")
    rows = []
    for model in models:
        results: dict[str, Result] = {}
        for name, run in runners.items():
            try:
                results[name] = run(model)
            except Exception as exc:  # noqa: BLE001  (one engine failing must not stop the run)
                notes.append(f"{name} failed on {model.name}: {type(exc).__name__}: {exc}")
        ours = results.get("ours")
        print(f"\n== {model.name}: {model.nb - 1} bodies ==")
        for name, res in results.items():
            agree = ""
            if ours is not None and name != "ours" and res.udot is not None:
                err = np.abs(res.udot - ours.udot).max() / max(1.0, np.abs(ours.udot).max())
                agree = f"udot rel. diff {err:.1e}" + (" OK" if err < 1e-6 else " MISMATCH")
            print(f"  {name:10s} {agree} {res.note}")
        header = f"  {'op':34s}" + "".join(f"{n:>12s}" for n in results)
        header += "".join(f"{'ours/' + n:>16s}" for n in results if n != "ours")
        print(header + "   (us per call)")
        for op in (op for op in OPS if op in wanted):
            names = [op] + ([out_row(op)] if op in OUT_OPS else [])
            for row in names:
                times = {
                    n: r.times.get(op if n in REUSED_OUTPUT_ENGINES else row)
                    for n, r in results.items()
                }
                line = f"  {row:34s}"
                for t in times.values():
                    line += f"{t:12.2f}" if t is not None else f"{'-':>12s}"
                mine = times.get("ours")
                for name, t in times.items():
                    if name == "ours":
                        continue
                    ratio = f"{mine / t:.2f}x" if (t and mine) else "-"
                    line += f"{ratio + ('*' if name == 'simbody' else ''):>16s}"
                print(line)
                rows.append((model.name, row, times))
    print(f"\n* {SIMBODY_CAVEAT}; against Simbody's Release build expect ratios ~2x higher.")
    if exe_rel is not None:
        print(f"{SIMBODY_RELEASE_NOTE}: no asterisk, the real aim.")
    for note in notes:
        print(f"Note: {note}")
    table = markdown_table(rows, list(runners))
    if args.markdown:
        print("\n" + "\n".join(table))
    if args.results:
        command = "benchmarks/bench_dynamics.py " + " ".join(argv or sys.argv[1:])
        lines = [
            f"Machine: {machine}. Command: `{command.strip()}`. Microseconds per call, best of "
            f"5 batches ({harness} from the Python engines' times); figures vary by about "
            "10% from run to run on an idle machine, more under load. \\* marks ratios "
            "against Debian's debug-assert build of Simbody (about 1.5-3x slower than its "
            "Release build, `simbody_rel`).",
            "",
            *table,
            "",
            *(f"Note: {note}" for note in notes),
        ]
        write_results_section(Path(args.results), "dynamics", lines)
        print(f"\nwrote the dynamics section of {args.results}")
    return 0


def markdown_table(rows, engines: list[str]) -> list[str]:
    """The rows as a Markdown table: times per engine, then ratios ours/engine."""
    head = "| model | operation | " + " | ".join(f"{e} (µs)" for e in engines)
    if len(engines) > 1:
        head += " | " + " | ".join(f"ours/{e}" for e in engines if e != "ours")
    lines = [head + " |", "|" + "---|" * (2 + len(engines) + len(engines) - 1)]
    for model, op, times in rows:
        cells = [f"{times[e]:.1f}" if times.get(e) else "–" for e in engines]
        mine = times.get("ours")
        ratios = []
        for e in engines:
            if e == "ours":
                continue
            t = times.get(e)
            mark = "*" if e == "simbody" else ""
            ratios.append(f"{mine / t:.2f}{mark}" if t and mine else "–")
        row = f"| {model} | {op} | " + " | ".join(cells)
        lines.append(row + (" | " + " | ".join(ratios) if ratios else "") + " |")
    return lines


if __name__ == "__main__":
    sys.exit(main())
