"""Mobilizer kinematics kernels: every type against Simbody 3.7's reference data, and finite
differences of the kernels against each other (X_FM vs H, H vs hdot_u, N vs NDot, NInv N).

Reference checks (chain_mixed.json, euler_vs_quaternion.json) slice each body's q and u with
the JSON's q_start/u_start and the type's NQ_SLOTS/NU and compare X_FM, V_FM = H u, qdot = N u
and every N/NInv/NDot operator product the file has. The kernels' hdot_u is checked against
Simbody through the body accelerations A_GB, rebuilt here by a plain numpy forward recursion
from X_PF, X_BM and the kernels' X_FM, H and hdot_u.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from engine.multibody.mobilizers import dispatch
from engine.multibody.mobilizers import params as mparams
from engine.multibody.mobilizers.rotation_kernels import quat_e_matrix
from tests.engine.close import assert_close
from tests.engine.reference_data import (
    decode_transform,
    load_reference,
    reference_available,
    sample_index_cases,
)

MODULES = dict(sorted(dispatch.MOBILIZER_MODULES.items()))
BY_NAME = dispatch.MOBILIZER_BY_NAME
QUATERNION_TYPES = [m.NAME for m in MODULES.values() if m.USES_QUATERNION]
# Number of leading u's that are rotational (quaternion-mode NInv N = |q|^2 on those).
ROT_U = {"Ball": 3, "Free": 3, "Ellipsoid": 3, "LineOrientation": 2, "FreeLine": 2}
# Simbody 3.7's NDot is not the exact derivative of N for these in quaternion mode.
INEXACT_QUAT_NDOT = {"LineOrientation", "FreeLine"}


EXPECTED_IDS = {
    "Weld": 1,
    "Pin": 2,
    "Slider": 3,
    "Ball": 4,
    "Free": 5,
    "Screw": 6,
    "Universal": 7,
    "Cylinder": 8,
    "BendStretch": 9,
    "Planar": 10,
    "SphericalCoords": 11,
    "Gimbal": 12,
    "Bushing": 13,
    "Ellipsoid": 14,
    "Translation": 15,
    "LineOrientation": 16,
    "FreeLine": 17,
}


def skew(a):
    return np.array([[0.0, -a[2], a[1]], [a[2], 0.0, -a[0]], [-a[1], a[0], 0.0]])


# --------------------------------------------------------------------------------------------
# Kernel evaluation helpers
# --------------------------------------------------------------------------------------------


class Kin:
    """Every kernel output of one mobilizer at (q, u), through dispatch or the module."""

    def __init__(self, mod, q, u, params, euler, qdot=None, via_dispatch=False):
        self.mod = mod
        self.q = np.ascontiguousarray(q, dtype=np.float64)
        self.u = np.ascontiguousarray(u, dtype=np.float64)
        self.params = np.ascontiguousarray(params, dtype=np.float64)
        self.euler = bool(euler)
        nq, nu = mod.NQ_SLOTS, mod.NU
        assert self.q.shape == (nq,) and self.u.shape == (nu,)
        R = np.zeros((3, 3))
        p = np.zeros(3)
        H = np.zeros((6, nu))
        hd = np.zeros(6)
        N = np.zeros((nq, nu))
        NInv = np.zeros((nu, nq))
        NDot = np.zeros((nq, nu))
        q, u, prm, e = self.q, self.u, self.params, self.euler
        if via_dispatch:
            t = mod.TYPE_ID
            dispatch.x_fm_any(t, q, prm, e, R, p)
            dispatch.h_fm_any(t, q, prm, e, R, p, H)
            dispatch.hdot_u_any(t, q, u, prm, e, R, p, hd)
            dispatch.n_matrix_any(t, q, prm, e, R, N)
            dispatch.ninv_matrix_any(t, q, prm, e, R, NInv)
            self.qdot_from_u = N @ u
            qd = self.qdot_from_u if qdot is None else np.ascontiguousarray(qdot, dtype=float)
            dispatch.ndot_matrix_any(t, q, qd, prm, e, R, NDot)
        else:
            mod.x_fm(q, prm, e, R, p)
            mod.h_fm(q, prm, e, R, p, H)
            mod.hdot_u(q, u, prm, e, R, p, hd)
            mod.n_matrix(q, prm, e, R, N)
            mod.ninv_matrix(q, prm, e, R, NInv)
            self.qdot_from_u = N @ u
            qd = self.qdot_from_u if qdot is None else np.ascontiguousarray(qdot, dtype=float)
            mod.ndot_matrix(q, qd, prm, e, R, NDot)
        self.qdot = qd
        self.R, self.p, self.H, self.hdot_u = R, p, H, hd
        self.N, self.NInv, self.NDot = N, NInv, NDot
        self.V = H @ u


def body_params(body) -> np.ndarray:
    return mparams.params_for(body["mobilizer"], body.get("mobilizer_params") or {})


def mobilized_bodies(model):
    return [b for b in model["model"]["bodies"] if b["index"] != 0]


def forward_kinematics(model, kins, udot_blocks):
    """X_GB, V_GB, A_GB per body (Ground first) from X_PF, X_BM and the kernels' outputs."""
    bodies = model["model"]["bodies"]
    nb = len(bodies)
    RG = [np.eye(3) for _ in range(nb)]
    pG = [np.zeros(3) for _ in range(nb)]
    w = [np.zeros(3) for _ in range(nb)]
    v = [np.zeros(3) for _ in range(nb)]
    b_ = [np.zeros(3) for _ in range(nb)]
    a = [np.zeros(3) for _ in range(nb)]
    for body in bodies:
        i = body["index"]
        if i == 0:
            continue
        P = body["parent"]
        assert 0 <= P < i
        R_PF, p_PF = decode_transform(body["X_PF"])
        R_BM, p_BM = decode_transform(body["X_BM"])
        k = kins[i]
        R_GF = RG[P] @ R_PF
        p_GF = pG[P] + RG[P] @ p_PF
        R_GM = R_GF @ k.R
        p_GM = p_GF + R_GF @ k.p
        R_GB = R_GM @ R_BM.T
        p_GB = p_GM - R_GB @ p_BM
        RG[i], pG[i] = R_GB, p_GB
        # velocities
        r_PF = p_GF - pG[P]
        r_FM = R_GF @ k.p
        r_MB = p_GB - p_GM
        wFM, vFM = R_GF @ k.V[:3], R_GF @ k.V[3:]
        v_GF = v[P] + np.cross(w[P], r_PF)
        w_GM = w[P] + wFM
        v_GM = v_GF + np.cross(w[P], r_FM) + vFM
        w[i] = w_GM
        v[i] = v_GM + np.cross(w_GM, r_MB)
        # accelerations: A_FM = H udot + hdot_u (in F)
        A_FM = k.H @ udot_blocks[i] + k.hdot_u
        bFM, aFM = R_GF @ A_FM[:3], R_GF @ A_FM[3:]
        a_GF = a[P] + np.cross(b_[P], r_PF) + np.cross(w[P], np.cross(w[P], r_PF))
        b_GM = b_[P] + bFM + np.cross(w[P], wFM)
        a_GM = (
            a_GF
            + np.cross(b_[P], r_FM)
            + np.cross(w[P], np.cross(w[P], r_FM))
            + 2.0 * np.cross(w[P], vFM)
            + aFM
        )
        b_[i] = b_GM
        a[i] = a_GM + np.cross(b_GM, r_MB) + np.cross(w_GM, np.cross(w_GM, r_MB))
    return (
        RG,
        pG,
        [np.concatenate(x) for x in zip(w, v, strict=True)],
        [np.concatenate(x) for x in zip(b_, a, strict=True)],
    )


def check_state_against_reference(model, q, u, out, x_u, y_q, euler, label, udot_test=None):
    """All per-mobilizer comparisons for one state block of a reference file."""
    q = np.asarray(q, dtype=float)
    u = np.asarray(u, dtype=float)
    x_u = np.asarray(x_u, dtype=float)
    y_q = np.asarray(y_q, dtype=float)
    udot = np.asarray(out["udot"], dtype=float)
    assert q.shape == np.asarray(out["qdot"]).shape
    kins = {}
    udot_blocks = {}
    # Products assembled block by block, then compared as whole vectors too.
    full = {
        "qdot": np.zeros(q.size),
        "N_times_x_u": np.zeros(q.size),
        "NT_times_y_q": np.zeros(u.size),
        "NInv_times_y_q": np.zeros(u.size),
        "NInvT_times_x_u": np.zeros(q.size),
        "NDot_times_x_u": np.zeros(q.size),
        "NDotT_times_y_q": np.zeros(u.size),
        "qdotdot": np.zeros(q.size),
    }
    covered_q = np.zeros(q.size, dtype=bool)
    covered_u = np.zeros(u.size, dtype=bool)
    types_seen = set()
    for body in mobilized_bodies(model):
        i = body["index"]
        mod = BY_NAME[body["mobilizer"]]
        types_seen.add(mod.NAME)
        qs, us = body["q_start"], body["u_start"]
        assert body["nu"] == mod.NU
        nq_in_use = body["nq"]
        assert nq_in_use <= mod.NQ_SLOTS
        qsl = slice(qs, qs + mod.NQ_SLOTS)
        usl = slice(us, us + mod.NU)
        covered_q[qsl] = True
        covered_u[usl] = True
        where = f"{label} body {i} ({mod.NAME})"
        k = Kin(mod, q[qsl], u[usl], body_params(body), euler, via_dispatch=True)
        kins[i] = k
        udot_blocks[i] = udot[usl]

        R_ref, p_ref = decode_transform(out["X_FM"][i])
        assert_close(k.R, R_ref, f"{where} R_FM")
        assert_close(k.p, p_ref, f"{where} p_FM")
        assert_close(k.V, out["V_FM"][i], f"{where} V_FM = H u")
        assert_close(k.N @ u[usl], np.asarray(out["qdot"])[qsl], f"{where} qdot = N u")
        # NDot along the state's own qdot (reference qdot, not ours, to keep checks separate)
        qdot_ref = np.ascontiguousarray(np.asarray(out["qdot"])[qsl])
        kd = Kin(mod, q[qsl], u[usl], body_params(body), euler, qdot=qdot_ref, via_dispatch=True)
        NDot = kd.NDot
        prods = {
            "qdot": k.N @ u[usl],
            "N_times_x_u": k.N @ x_u[usl],
            "NT_times_y_q": k.N.T @ y_q[qsl],
            "NInv_times_y_q": k.NInv @ y_q[qsl],
            "NInvT_times_x_u": k.NInv.T @ x_u[usl],
            "NDot_times_x_u": NDot @ x_u[usl],
            "NDotT_times_y_q": NDot.T @ y_q[qsl],
            "qdotdot": k.N @ udot[usl] + NDot @ u[usl],
        }
        for name, val in prods.items():
            sl = qsl if full[name].size == q.size else usl
            full[name][sl] = val
            if name in out:
                assert_close(val, np.asarray(out[name], dtype=float)[sl], f"{where} {name}")
        if "calcQDot_of_x_u" in out:
            ref = np.asarray(out["calcQDot_of_x_u"])[qsl]
            assert_close(k.N @ x_u[usl], ref, f"{where} calcQDot(x_u)")
        if udot_test is not None and "calcQDotDot_of_udot_test" in out:
            ref = np.asarray(out["calcQDotDot_of_udot_test"])[qsl]
            val = k.N @ udot_test[usl] + NDot @ u[usl]
            assert_close(val, ref, f"{where} calcQDotDot(udot_test)")
    assert covered_q.all() and covered_u.all(), f"{label}: some q/u slots not owned by a body"
    for name, val in full.items():
        if name in out:
            assert_close(val, out[name], f"{label} whole {name}")
    # hdot_u (and everything else) through Simbody's body kinematics
    RG, pG, VG, AG = forward_kinematics(model, kins, udot_blocks)
    for body in mobilized_bodies(model):
        i = body["index"]
        where = f"{label} body {i} ({body['mobilizer']})"
        R_ref, p_ref = decode_transform(out["X_GB"][i])
        assert_close(RG[i], R_ref, f"{where} R_GB")
        assert_close(pG[i], p_ref, f"{where} p_GB")
        assert_close(VG[i], out["V_GB"][i], f"{where} V_GB")
        assert_close(AG[i], out["A_GB"][i], f"{where} A_GB (hdot_u)")
    return types_seen


# --------------------------------------------------------------------------------------------
# Reference data
# --------------------------------------------------------------------------------------------

needs_chain = pytest.mark.skipif(
    not reference_available("chain_mixed"), reason="reference data not found"
)
needs_evq = pytest.mark.skipif(
    not reference_available("euler_vs_quaternion"), reason="reference data not found"
)


def _chain_cases():
    return sample_index_cases("chain_mixed")


@needs_chain
@pytest.mark.parametrize(("model_index", "sample_index"), _chain_cases())
def test_chain_mixed_against_simbody(model_index, sample_index):
    case = load_reference("chain_mixed")
    model = case["models"][model_index]
    sample = model["samples"][sample_index]
    st = sample["state"]
    assert not st["use_euler_angles"]
    check_state_against_reference(
        model,
        st["q"],
        st["u"],
        sample["outputs"],
        sample["inputs"]["x_u"],
        sample["inputs"]["y_q"],
        euler=False,
        label=f"{model['name']}[{sample_index}]",
        udot_test=np.asarray(sample["inputs"]["udot_test"], dtype=float),
    )


@needs_chain
def test_chain_mixed_body_acceleration_from_udot_test():
    """A_GB for udot_test (Simbody's calcBodyAccelerationFromUDot) through hdot_u."""
    case = load_reference("chain_mixed")
    for model in case["models"]:
        for si, sample in enumerate(model["samples"]):
            st = sample["state"]
            q, u = np.asarray(st["q"]), np.asarray(st["u"])
            udot = np.asarray(sample["inputs"]["udot_test"])
            kins, blocks = {}, {}
            for body in mobilized_bodies(model):
                mod = BY_NAME[body["mobilizer"]]
                qsl = slice(body["q_start"], body["q_start"] + mod.NQ_SLOTS)
                usl = slice(body["u_start"], body["u_start"] + mod.NU)
                kins[body["index"]] = Kin(mod, q[qsl], u[usl], body_params(body), False)
                blocks[body["index"]] = udot[usl]
            _, _, _, AG = forward_kinematics(model, kins, blocks)
            ref = sample["outputs"]["body_acceleration_from_udot_test"]
            for body in mobilized_bodies(model):
                i = body["index"]
                assert_close(AG[i], ref[i], f"{model['name']}[{si}] body {i} A_GB(udot_test)")


@needs_chain
def test_chain_mixed_covers_every_non_ground_type():
    case = load_reference("chain_mixed")
    seen = {b["mobilizer"] for m in case["models"] for b in mobilized_bodies(m)}
    assert seen == set(BY_NAME), f"types without reference data: {set(BY_NAME) - seen}"


def _evq_cases():
    if not reference_available("euler_vs_quaternion"):
        return []
    case = load_reference("euler_vs_quaternion")
    return [
        pytest.param(mi, si, mode, id=f"{m['name']}-{si}-{mode}")
        for mi, m in enumerate(case["models"])
        for si in range(len(m["samples"]))
        for mode in ("quaternion_mode", "euler_mode", "unnormalized_quaternion_mode")
    ]


@needs_evq
@pytest.mark.parametrize(("model_index", "sample_index", "mode"), _evq_cases())
def test_euler_vs_quaternion_against_simbody(model_index, sample_index, mode):
    case = load_reference("euler_vs_quaternion")
    model = case["models"][model_index]
    sample = model["samples"][sample_index]
    out = sample[mode]
    euler = mode == "euler_mode"
    assert bool(out["getUseEulerAngles"]) == euler
    # The q-slot layout is the same in both modes.
    starts = [b["q_start"] for b in mobilized_bodies(model)]
    assert out["q_start_per_body_1_to_nb"] == starts
    for body, nq in zip(mobilized_bodies(model), out["nq_in_use_per_body_1_to_nb"], strict=True):
        mod = BY_NAME[body["mobilizer"]]
        expected = mod.NQ_SLOTS - 1 if (euler and mod.USES_QUATERNION) else mod.NQ_SLOTS
        assert nq == expected, f"body {body['index']} nq in use"
    check_state_against_reference(
        model,
        out["q"],
        out["u"],
        out,
        sample["inputs"]["x_u"],
        sample["inputs"]["y_q"],
        euler=euler,
        label=f"{model['name']}[{sample_index}] {mode}",
    )


# --------------------------------------------------------------------------------------------
# Random states per type, for finite-difference checks
# --------------------------------------------------------------------------------------------

SPHERICAL_VARIANTS = [
    {},
    {
        "azimuth_offset": 0.6,
        "azimuth_negated": True,
        "zenith_offset": -0.1,
        "zenith_negated": False,
        "radial_axis": "x",
        "radial_negated": True,
    },
    {
        "azimuth_offset": -1.1,
        "azimuth_negated": False,
        "zenith_offset": 0.4,
        "zenith_negated": True,
        "radial_axis": "z",
        "radial_negated": True,
    },
]


def random_params(name, rng, variant=0):
    if name == "Screw":
        return mparams.screw_params(rng.uniform(-0.5, 0.5))
    if name == "SphericalCoords":
        return mparams.params_for(name, SPHERICAL_VARIANTS[variant % len(SPHERICAL_VARIANTS)])
    if name == "Ellipsoid":
        return mparams.ellipsoid_params(rng.uniform(0.2, 1.5, size=3))
    return mparams.empty_params()


def random_q(mod, rng, euler):
    """Random q slots away from singularities (quaternions deliberately unnormalized)."""
    q = np.zeros(mod.NQ_SLOTS)
    if mod.USES_QUATERNION:
        if euler:
            q[0] = rng.uniform(-3.0, 3.0)
            q[1] = rng.uniform(-1.2, 1.2)
            q[2] = rng.uniform(-3.0, 3.0)
            q[3:] = rng.uniform(-1.0, 1.0, size=mod.NQ_SLOTS - 3)
            if mod.NQ_SLOTS == 7:
                q[6] = 0.0
            else:
                q[3] = rng.uniform(-1, 1)  # unused slot: must be ignored
        else:
            qq = rng.normal(size=4)
            scale = rng.uniform(1.05, 1.4) if rng.random() < 0.5 else rng.uniform(0.7, 0.95)
            q[:4] = qq / np.linalg.norm(qq) * scale
            q[4:] = rng.uniform(-1.0, 1.0, size=mod.NQ_SLOTS - 4)
        return q
    q[:] = rng.uniform(-2.5, 2.5, size=mod.NQ_SLOTS)
    if mod.NAME in ("Gimbal", "Bushing"):
        q[1] = rng.uniform(-1.2, 1.2)
    if mod.NAME in ("SphericalCoords", "BendStretch"):
        q[-1] = rng.uniform(-1.5, 1.5)
    return q


def fd_cases():
    cases = []
    for mod in MODULES.values():
        modes = [False, True] if mod.USES_QUATERNION else [False]
        for euler in modes:
            for seed in range(4):
                tag = f"{mod.NAME}-{'euler' if euler else 'quat' if mod.USES_QUATERNION else ''}"
                cases.append(pytest.param(mod.NAME, euler, seed, id=f"{tag}-{seed}"))
    return cases


def make_random(name, euler, seed):
    mod = BY_NAME[name]
    rng = np.random.default_rng(1000 * mod.TYPE_ID + 10 * seed + int(euler))
    prm = random_params(name, rng, variant=seed)
    q = random_q(mod, rng, euler)
    u = rng.uniform(-2.0, 2.0, size=mod.NU)
    return mod, rng, prm, q, u


H_STEP = 1e-6
FD_TOL = 2e-7


@pytest.mark.parametrize(("name", "euler", "seed"), fd_cases())
def test_velocity_is_derivative_of_transform(name, euler, seed):
    """d/dt X_FM along qdot = N u equals (w_FM, v_FM) = H u."""
    mod, _, prm, q, u = make_random(name, euler, seed)
    k = Kin(mod, q, u, prm, euler)
    qdot = k.qdot_from_u
    kp = Kin(mod, q + H_STEP * qdot, u, prm, euler)
    km = Kin(mod, q - H_STEP * qdot, u, prm, euler)
    Rdot = (kp.R - km.R) / (2 * H_STEP)
    Wx = Rdot @ k.R.T
    assert_close(Wx + Wx.T, np.zeros((3, 3)), f"{name} Rdot R^T skew", tol=FD_TOL)
    w_fd = np.array([Wx[2, 1] - Wx[1, 2], Wx[0, 2] - Wx[2, 0], Wx[1, 0] - Wx[0, 1]]) / 2
    v_fd = (kp.p - km.p) / (2 * H_STEP)
    assert_close(k.V[:3], w_fd, f"{name} w_FM vs d/dt R_FM", tol=FD_TOL)
    assert_close(k.V[3:], v_fd, f"{name} v_FM vs d/dt p_FM", tol=FD_TOL)


@pytest.mark.parametrize(("name", "euler", "seed"), fd_cases())
def test_hdot_u_is_derivative_of_h_u(name, euler, seed):
    """d/dt (H u) with u held fixed, along qdot = N u, equals hdot_u."""
    mod, _, prm, q, u = make_random(name, euler, seed)
    k = Kin(mod, q, u, prm, euler)
    qdot = k.qdot_from_u
    kp = Kin(mod, q + H_STEP * qdot, u, prm, euler)
    km = Kin(mod, q - H_STEP * qdot, u, prm, euler)
    fd = (kp.H @ u - km.H @ u) / (2 * H_STEP)
    assert_close(k.hdot_u, fd, f"{name} hdot_u", tol=FD_TOL)


@pytest.mark.parametrize(("name", "euler", "seed"), fd_cases())
def test_ninv_inverts_n(name, euler, seed):
    """NInv N = I (|q|^2 on the rotational u's of an unnormalized quaternion)."""
    mod, _, prm, q, u = make_random(name, euler, seed)
    k = Kin(mod, q, u, prm, euler)
    expected = np.eye(mod.NU)
    if mod.USES_QUATERNION and not euler:
        n = ROT_U[name]
        norm2 = float(q[:4] @ q[:4])
        assert abs(norm2 - 1.0) > 0.05  # random_q makes quaternions unnormalized
        expected[:n, :n] *= norm2
    assert_close(k.NInv @ k.N, expected, f"{name} NInv N")
    # and NInv maps a q-rate made by N back to u
    assert_close(k.NInv @ (k.N @ u), expected @ u, f"{name} NInv N u")


@pytest.mark.parametrize(("name", "euler", "seed"), fd_cases())
def test_unused_slots_are_ignored(name, euler, seed):
    """Slots a mode does not use (4th rotational slot in Euler mode) have zero N rows and
    NInv columns, and their value does not affect anything."""
    mod, rng, prm, q, u = make_random(name, euler, seed)
    k = Kin(mod, q, u, prm, euler)
    if mod.USES_QUATERNION and euler:
        unused = 6 if mod.NQ_SLOTS == 7 else 3
        assert np.all(k.N[unused] == 0.0)
        assert np.all(k.NInv[:, unused] == 0.0)
        assert np.all(k.NDot[unused] == 0.0)
        q2 = q.copy()
        q2[unused] = 123.0
        k2 = Kin(mod, q2, u, prm, euler)
        for attr in ("R", "p", "H", "hdot_u", "N", "NInv", "NDot"):
            np.testing.assert_array_equal(getattr(k2, attr), getattr(k, attr), attr)


def _quat_w(q, qdot):
    """Angular velocity (in F) of the rotation of normalized q(t) for a rate qdot."""
    E = np.zeros((4, 3))
    quat_e_matrix(np.ascontiguousarray(q[:4]), E)
    return 2.0 * E.T @ qdot[:4] / float(q[:4] @ q[:4])


@pytest.mark.parametrize(("name", "euler", "seed"), fd_cases())
def test_ndot_is_derivative_of_n(name, euler, seed):
    """NDot(q, qdot) = d/dt N along qdot, for an arbitrary qdot; except LineOrientation and
    FreeLine in quaternion mode, where Simbody 3.7 (and so the kernel) drops the term
    0.5 E(q) [w]x R_FM[:, 0:2] coming from the rotation of M (CONVENTIONS.md §4)."""
    mod, rng, prm, q, u = make_random(name, euler, seed)
    qdot = rng.uniform(-1.5, 1.5, size=mod.NQ_SLOTS)
    if mod.USES_QUATERNION and euler:
        qdot[6 if mod.NQ_SLOTS == 7 else 3] = 0.0
    k = Kin(mod, q, u, prm, euler, qdot=qdot)
    kp = Kin(mod, q + H_STEP * qdot, u, prm, euler)
    km = Kin(mod, q - H_STEP * qdot, u, prm, euler)
    fd = (kp.N - km.N) / (2 * H_STEP)
    if name in INEXACT_QUAT_NDOT and not euler:
        w = _quat_w(q, qdot)
        E = np.zeros((4, 3))
        quat_e_matrix(np.ascontiguousarray(q[:4]), E)
        missing = 0.5 * E @ skew(w) @ k.R[:, :2]
        expected = k.NDot.copy()
        expected[:4, :2] += missing
        assert_close(expected, fd, f"{name} NDot + omitted term", tol=FD_TOL)
        # The kernel really is Simbody's inexact form (the omitted term is not negligible).
        assert np.max(np.abs(missing)) > 1e-3
        E_qd = np.zeros((4, 3))
        quat_e_matrix(np.ascontiguousarray(qdot[:4]), E_qd)
        assert_close(k.NDot[:4, :2], 0.5 * E_qd @ k.R[:, :2], f"{name} Simbody NDot")
    else:
        assert_close(k.NDot, fd, f"{name} NDot", tol=FD_TOL)


# --------------------------------------------------------------------------------------------
# Constants, dispatch, params
# --------------------------------------------------------------------------------------------


def test_type_ids_and_constants():
    assert {m.NAME: tid for tid, m in MODULES.items()} == EXPECTED_IDS
    assert dispatch.GROUND_TYPE_ID == 0
    for tid, mod in MODULES.items():
        assert mod.TYPE_ID == tid
        assert mod.DEFAULT_Q.shape == (mod.NQ_SLOTS,)
        assert mod.NU <= 6
        if mod.USES_QUATERNION:
            assert mod.DEFAULT_Q[0] == 1.0 and np.all(mod.DEFAULT_Q[1:] == 0.0)
        else:
            assert mod.NQ_SLOTS == mod.NU and np.all(mod.DEFAULT_Q == 0.0)


@pytest.mark.parametrize("name", list(BY_NAME))
def test_default_q_is_reference_configuration(name):
    """At DEFAULT_Q (default options) M coincides with F, except Ellipsoid's Mo = (0, 0, c)."""
    mod = BY_NAME[name]
    prm = mparams.ellipsoid_params([0.3, 0.4, 0.5]) if name == "Ellipsoid" else None
    if name == "Screw":
        prm = mparams.screw_params(0.2)
    prm = mparams.empty_params() if prm is None else prm
    for euler in [False, True] if mod.USES_QUATERNION else [False]:
        q = mod.DEFAULT_Q.copy()
        if euler:
            q[:4] = 0.0
        k = Kin(mod, q, np.zeros(mod.NU), prm, euler)
        assert_close(k.R, np.eye(3), f"{name} R at default q")
        assert_close(k.p, [0, 0, 0.5] if name == "Ellipsoid" else np.zeros(3), f"{name} p")


@pytest.mark.parametrize(("name", "euler", "seed"), [c for c in fd_cases() if c.values[2] < 2])
def test_dispatch_matches_module(name, euler, seed):
    mod, rng, prm, q, u = make_random(name, euler, seed)
    qdot = rng.uniform(-1, 1, size=mod.NQ_SLOTS)
    a = Kin(mod, q, u, prm, euler, qdot=qdot)
    b = Kin(mod, q, u, prm, euler, qdot=qdot, via_dispatch=True)
    for attr in ("R", "p", "H", "hdot_u", "N", "NInv", "NDot"):
        np.testing.assert_array_equal(getattr(b, attr), getattr(a, attr), attr)


def test_params_layouts():
    np.testing.assert_array_equal(mparams.empty_params(), np.zeros(mparams.NUM_PARAMS))
    assert mparams.params_for("Screw", {"pitch": -0.25})[0] == -0.25
    np.testing.assert_array_equal(
        mparams.params_for("Ellipsoid", {"radii": [1, 2, 3]}), [1, 2, 3, 0, 0, 0, 0, 0]
    )
    np.testing.assert_array_equal(
        mparams.params_for(
            "SphericalCoords",
            {
                "azimuth_offset": 0.5,
                "azimuth_negated": True,
                "zenith_offset": -0.25,
                "zenith_negated": False,
                "radial_axis": "x",
                "radial_negated": True,
            },
        ),
        [0.5, 1, -0.25, 0, 1, 1, 0, 0],
    )
    np.testing.assert_array_equal(mparams.params_for("SphericalCoords", {}), np.zeros(8))
    np.testing.assert_array_equal(mparams.spherical_coords_params(radial_axis="ZAxis"), np.zeros(8))
    np.testing.assert_array_equal(mparams.params_for("Pin", {}), np.zeros(8))
    # Simbody's MobilizedBody::Ellipsoid default semi-axes when no radii are given
    np.testing.assert_array_equal(mparams.params_for("Ellipsoid", {})[:3], [0.5, 1.0 / 3.0, 0.25])
    for bad in (
        lambda: mparams.params_for("Screw", {}),
        lambda: mparams.params_for("Pin", {"pitch": 1.0}),
        lambda: mparams.spherical_coords_params(radial_axis="y"),
        lambda: mparams.ellipsoid_params([1.0, 2.0]),
    ):
        with pytest.raises(ValueError):
            bad()


def test_spherical_coords_options_match_their_definition():
    """Offsets, negations and the radial axis, from CONVENTIONS.md §3 directly."""
    prm = mparams.spherical_coords_params(0.3, True, -0.7, True, "x", True)
    q = np.array([0.4, 1.1, 0.9])
    k = Kin(BY_NAME["SphericalCoords"], q, np.zeros(3), prm, False)
    az, ze, t = -0.4 + 0.3, -1.1 - 0.7, -0.9
    ca, sa, ce, se = np.cos(az), np.sin(az), np.cos(ze), np.sin(ze)
    R = np.array([[ca, -sa, 0], [sa, ca, 0], [0, 0, 1]]) @ np.array(
        [[ce, 0, se], [0, 1, 0], [-se, 0, ce]]
    )
    assert_close(k.R, R, "R")
    assert_close(k.p, t * R[:, 0], "p along Mx")


# --------------------------------------------------------------------------------------------
# Pure-Python execution (NUMBA_DISABLE_JIT=1) gives the compiled results
# --------------------------------------------------------------------------------------------

_NOJIT_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    from engine.multibody.mobilizers import dispatch
    cases = json.load(sys.stdin)
    results = []
    for c in cases:
        mod = dispatch.MOBILIZER_MODULES[c["t"]]
        q, u, prm, qd = (np.array(c[k], dtype=float) for k in ("q", "u", "params", "qdot"))
        e = c["euler"]
        R, p = np.zeros((3, 3)), np.zeros(3)
        H, hd = np.zeros((6, mod.NU)), np.zeros(6)
        N = np.zeros((mod.NQ_SLOTS, mod.NU))
        NI = np.zeros((mod.NU, mod.NQ_SLOTS))
        ND = np.zeros((mod.NQ_SLOTS, mod.NU))
        dispatch.x_fm_any(c["t"], q, prm, e, R, p)
        dispatch.h_fm_any(c["t"], q, prm, e, R, p, H)
        dispatch.hdot_u_any(c["t"], q, u, prm, e, R, p, hd)
        dispatch.n_matrix_any(c["t"], q, prm, e, R, N)
        dispatch.ninv_matrix_any(c["t"], q, prm, e, R, NI)
        dispatch.ndot_matrix_any(c["t"], q, qd, prm, e, R, ND)
        results.append([a.tolist() for a in (R, p, H, hd, N, NI, ND)])
    json.dump(results, sys.stdout)
    """
)


@pytest.mark.slow
def test_kernels_run_without_jit():
    cases, expected = [], []
    for c in fd_cases():
        name, euler, seed = c.values
        if seed > 0:
            continue
        mod, rng, prm, q, u = make_random(name, euler, seed)
        qdot = rng.uniform(-1, 1, size=mod.NQ_SLOTS)
        k = Kin(mod, q, u, prm, euler, qdot=qdot, via_dispatch=True)
        cases.append(
            {
                "t": mod.TYPE_ID,
                "q": q.tolist(),
                "u": u.tolist(),
                "params": prm.tolist(),
                "qdot": qdot.tolist(),
                "euler": euler,
            }
        )
        expected.append((k.R, k.p, k.H, k.hdot_u, k.N, k.NInv, k.NDot))
    repo = Path(__file__).resolve().parents[2]
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    proc = subprocess.run(
        [sys.executable, "-c", _NOJIT_SCRIPT],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        cwd=repo,
        env=env,
        timeout=240,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    assert len(results) == len(expected)
    for case, got, exp in zip(cases, results, expected, strict=True):
        for g, e in zip(got, exp, strict=True):
            assert_close(np.array(g).reshape(e.shape), e, f"type {case['t']} no-JIT", tol=1e-13)
