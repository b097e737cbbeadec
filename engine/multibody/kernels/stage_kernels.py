"""Allocation-free O(n) kernels, one call per realization stage or operator: the one
implementation of the tree recursions (position and velocity kinematics, articulated-body
inertias and solve, including the hybrid free/prescribed variant, Newton-Euler residual,
system Jacobian), with scalar loops over preallocated arrays so that nothing is allocated
per body. The matter subsystem's realize hooks, its O(n) operators, the lazy-realization
API and prescribed motion call these; they release the GIL (``nogil``). Spatial vectors
are rows [angular, linear] about each body origin Bo, in Ground; ``H_G[b]`` is 6 x 6
with the first ``nus[b]`` columns used; ``Phi_G[b]`` is the body's spatial inertia
about Bo in G. Scratch arrays (``Nbuf`` (7, 6), ``hd`` (6,), ``work`` (6, 12),
``z`` (nb, 6), ``eps`` (nu,)) are owned by the caller. The stage kernels
(``position_stage``, ``velocity_stage``, ``acceleration_stage``) read their arrays by
name from a State's kernel table (``engine.multibody.kernels.layout``); the operators
take theirs as arguments, since their callers hand them different arrays.
"""

from __future__ import annotations

import numpy as np

from engine.common.numba_internals import f1, f2, f3, i1, kernel_jit
from engine.multibody.kernels.layout import SLOT
from engine.multibody.mobilizers import ball, free, pin, slider, translation, weld
from engine.multibody.mobilizers.dispatch import (
    h_fm_any,
    hdot_u_any,
    n_matrix_any,
    ndot_matrix_any,
    x_fm_any,
)

# Types whose N is the identity, NDot zero and H_FM constant (so (d/dt H) u = 0): their
# qdot, qdotdot and velocity terms are written directly, without the per-type dispatch.
_PIN, _SLIDER, _TRANSLATION = pin.TYPE_ID, slider.TYPE_ID, translation.TYPE_ID
# Types with constant H_FM but a q-dependent N.
_BALL, _WELD, _FREE = ball.TYPE_ID, weld.TYPE_ID, free.TYPE_ID


@kernel_jit
def _identity_n(t):
    return t == _PIN or t == _SLIDER or t == _TRANSLATION


@kernel_jit
def _constant_h(t):
    return t == _PIN or t == _SLIDER or t == _TRANSLATION or t == _BALL or t == _WELD


@kernel_jit
def _quaternion_n(t, euler):
    """Ball or Free in quaternion mode: qdot = [0.5 E(q) w; v] (Free: then p' = v)."""
    return not euler and (t == _BALL or t == _FREE)


@kernel_jit
def _add_quat_rate(q, q0, w, w0, out, o0, scale):
    """out[o0:o0+4] += scale * 0.5 E(q[q0:q0+4]) w[w0:w0+3] (docs/conventions.md §4)."""
    qw, qx, qy, qz = q[q0], q[q0 + 1], q[q0 + 2], q[q0 + 3]
    w_0, w_1, w_2 = w[w0], w[w0 + 1], w[w0 + 2]
    h = 0.5 * scale
    out[o0] += h * (-qx * w_0 - qy * w_1 - qz * w_2)
    out[o0 + 1] += h * (qw * w_0 + qz * w_1 - qy * w_2)
    out[o0 + 2] += h * (-qz * w_0 + qw * w_1 + qx * w_2)
    out[o0 + 3] += h * (qy * w_0 - qx * w_1 + qw * w_2)


# ----------------------------------------------------------------- Position stage
@kernel_jit
def position_stage(euler, custom_type, a, s):
    """The Position stage from the table (a, s) (``layout.SLOT``): body poses, mobilizer
    transforms, H_G and spatial inertias from q, Ground outward. For bodies of type
    ``custom_type`` (Python kinematics) R_FM, p_FM and H_FM are inputs."""
    mtype, parent, qs = i1(a, s, SLOT.mtype), i1(a, s, SLOT.parent), i1(a, s, SLOT.qs)
    nqs, nus, params = i1(a, s, SLOT.nqs), i1(a, s, SLOT.nus), f2(a, s, SLOT.params)
    R_PF, p_PF = f3(a, s, SLOT.R_PF), f2(a, s, SLOT.p_PF)
    R_BM, p_BM = f3(a, s, SLOT.R_BM), f2(a, s, SLOT.p_BM)
    mass, com_B, I_B = f1(a, s, SLOT.mass), f2(a, s, SLOT.com_B), f3(a, s, SLOT.I_B)
    q = f1(a, s, SLOT.q)
    R_FM, p_FM, H_FM = f3(a, s, SLOT.R_FM), f2(a, s, SLOT.p_FM), f3(a, s, SLOT.H_FM)
    R_GF, p_MB_G = f3(a, s, SLOT.R_GF), f2(a, s, SLOT.p_MB_G)
    R_GB, p_GB, H_G = f3(a, s, SLOT.R_GB), f2(a, s, SLOT.p_GB), f3(a, s, SLOT.H_G)
    Phi_G, com_G = f3(a, s, SLOT.Phi_G), f2(a, s, SLOT.com_G)
    work = f2(a, s, SLOT.work)
    nb = parent.shape[0]
    for b in range(1, nb):
        P = parent[b]
        nu = nus[b]
        qb = q[qs[b] : qs[b] + nqs[b]]
        Rfm = R_FM[b]
        pfm = p_FM[b]
        t = mtype[b]
        custom = t == custom_type
        if t == _PIN:  # the commonest type, without the dispatch: R_FM = Rz(q), p_FM = 0
            c, s_ = np.cos(qb[0]), np.sin(qb[0])
            Rfm[0, 0], Rfm[0, 1], Rfm[0, 2] = c, -s_, 0.0
            Rfm[1, 0], Rfm[1, 1], Rfm[1, 2] = s_, c, 0.0
            Rfm[2, 0], Rfm[2, 1], Rfm[2, 2] = 0.0, 0.0, 1.0
            pfm[0] = pfm[1] = pfm[2] = 0.0
        elif not custom:
            x_fm_any(t, qb, params[b], euler, Rfm, pfm)
        RGP = R_GB[P]
        Rpf = R_PF[b]
        Rgf = R_GF[b]
        # R_GF = R_GP R_PF ; p_GF = p_GP + R_GP p_PF
        for i in range(3):
            for j in range(3):
                Rgf[i, j] = RGP[i, 0] * Rpf[0, j] + RGP[i, 1] * Rpf[1, j] + RGP[i, 2] * Rpf[2, j]
        pGF0 = p_GB[P, 0] + RGP[0, 0] * p_PF[b, 0] + RGP[0, 1] * p_PF[b, 1] + RGP[0, 2] * p_PF[b, 2]
        pGF1 = p_GB[P, 1] + RGP[1, 0] * p_PF[b, 0] + RGP[1, 1] * p_PF[b, 1] + RGP[1, 2] * p_PF[b, 2]
        pGF2 = p_GB[P, 2] + RGP[2, 0] * p_PF[b, 0] + RGP[2, 1] * p_PF[b, 1] + RGP[2, 2] * p_PF[b, 2]
        # R_GM = R_GF R_FM (in work[0:3, 0:3]); p_GM = p_GF + R_GF p_FM
        for i in range(3):
            for j in range(3):
                work[i, j] = Rgf[i, 0] * Rfm[0, j] + Rgf[i, 1] * Rfm[1, j] + Rgf[i, 2] * Rfm[2, j]
        pGM0 = pGF0 + Rgf[0, 0] * pfm[0] + Rgf[0, 1] * pfm[1] + Rgf[0, 2] * pfm[2]
        pGM1 = pGF1 + Rgf[1, 0] * pfm[0] + Rgf[1, 1] * pfm[1] + Rgf[1, 2] * pfm[2]
        pGM2 = pGF2 + Rgf[2, 0] * pfm[0] + Rgf[2, 1] * pfm[1] + Rgf[2, 2] * pfm[2]
        # R_GB = R_GM R_BM^T ; p_GB = p_GM - R_GB p_BM
        Rbm = R_BM[b]
        Rgb = R_GB[b]
        for i in range(3):
            for j in range(3):
                Rgb[i, j] = work[i, 0] * Rbm[j, 0] + work[i, 1] * Rbm[j, 1] + work[i, 2] * Rbm[j, 2]
        pbm = p_BM[b]
        p_GB[b, 0] = pGM0 - (Rgb[0, 0] * pbm[0] + Rgb[0, 1] * pbm[1] + Rgb[0, 2] * pbm[2])
        p_GB[b, 1] = pGM1 - (Rgb[1, 0] * pbm[0] + Rgb[1, 1] * pbm[1] + Rgb[1, 2] * pbm[2])
        p_GB[b, 2] = pGM2 - (Rgb[2, 0] * pbm[0] + Rgb[2, 1] * pbm[1] + Rgb[2, 2] * pbm[2])
        pm0 = p_GB[b, 0] - pGM0
        pm1 = p_GB[b, 1] - pGM1
        pm2 = p_GB[b, 2] - pGM2
        p_MB_G[b, 0], p_MB_G[b, 1], p_MB_G[b, 2] = pm0, pm1, pm2
        Hfm = H_FM[b]
        if t == _PIN:  # H_FM = [z; 0]
            for i in range(6):
                Hfm[i, 0] = 0.0
            Hfm[2, 0] = 1.0
        elif not custom:
            Hfm[:, :] = 0.0
            h_fm_any(t, qb, params[b], euler, Rfm, pfm, Hfm)
        Hg = H_G[b]
        for k in range(nu):
            hw0 = Rgf[0, 0] * Hfm[0, k] + Rgf[0, 1] * Hfm[1, k] + Rgf[0, 2] * Hfm[2, k]
            hw1 = Rgf[1, 0] * Hfm[0, k] + Rgf[1, 1] * Hfm[1, k] + Rgf[1, 2] * Hfm[2, k]
            hw2 = Rgf[2, 0] * Hfm[0, k] + Rgf[2, 1] * Hfm[1, k] + Rgf[2, 2] * Hfm[2, k]
            hv0 = Rgf[0, 0] * Hfm[3, k] + Rgf[0, 1] * Hfm[4, k] + Rgf[0, 2] * Hfm[5, k]
            hv1 = Rgf[1, 0] * Hfm[3, k] + Rgf[1, 1] * Hfm[4, k] + Rgf[1, 2] * Hfm[5, k]
            hv2 = Rgf[2, 0] * Hfm[3, k] + Rgf[2, 1] * Hfm[4, k] + Rgf[2, 2] * Hfm[5, k]
            Hg[0, k] = hw0
            Hg[1, k] = hw1
            Hg[2, k] = hw2
            Hg[3, k] = hv0 + hw1 * pm2 - hw2 * pm1
            Hg[4, k] = hv1 + hw2 * pm0 - hw0 * pm2
            Hg[5, k] = hv2 + hw0 * pm1 - hw1 * pm0
        for k in range(nu, 6):
            for i in range(6):
                Hg[i, k] = 0.0
        # c_G = R_GB c_B ; I_G = R_GB I_B R_GB^T (work[0:3, 3:6] = R_GB I_B)
        cB = com_B[b]
        c0 = Rgb[0, 0] * cB[0] + Rgb[0, 1] * cB[1] + Rgb[0, 2] * cB[2]
        c1 = Rgb[1, 0] * cB[0] + Rgb[1, 1] * cB[1] + Rgb[1, 2] * cB[2]
        c2 = Rgb[2, 0] * cB[0] + Rgb[2, 1] * cB[1] + Rgb[2, 2] * cB[2]
        com_G[b, 0], com_G[b, 1], com_G[b, 2] = c0, c1, c2
        IB = I_B[b]
        for i in range(3):
            for j in range(3):
                work[i, 3 + j] = Rgb[i, 0] * IB[0, j] + Rgb[i, 1] * IB[1, j] + Rgb[i, 2] * IB[2, j]
        Phi = Phi_G[b]
        for i in range(3):
            for j in range(3):
                Phi[i, j] = work[i, 3] * Rgb[j, 0] + work[i, 4] * Rgb[j, 1] + work[i, 5] * Rgb[j, 2]
                Phi[i, 3 + j] = 0.0
                Phi[3 + i, j] = 0.0
                Phi[3 + i, 3 + j] = mass[b] if i == j else 0.0
        m = mass[b]
        mc0, mc1, mc2 = m * c0, m * c1, m * c2
        Phi[0, 4], Phi[0, 5] = -mc2, mc1
        Phi[1, 3], Phi[1, 5] = mc2, -mc0
        Phi[2, 3], Phi[2, 4] = -mc1, mc0
        Phi[4, 0], Phi[5, 0] = -mc2, mc1
        Phi[3, 1], Phi[5, 1] = mc2, -mc0
        Phi[3, 2], Phi[4, 2] = -mc1, mc0


@kernel_jit
def quaternion_errors(q, quat_starts, qerr, offset):
    """qerr[offset + k] = |q[s:s+4]| - 1 for the k-th quaternion, starting at quat_starts[k]."""
    for k in range(quat_starts.shape[0]):
        s = quat_starts[k]
        qerr[offset + k] = (
            np.sqrt(q[s] * q[s] + q[s + 1] * q[s + 1] + q[s + 2] * q[s + 2] + q[s + 3] * q[s + 3])
            - 1.0
        )


# ----------------------------------------------------------------- Velocity stage
@kernel_jit
def velocity_stage(euler, a, s):
    """The Velocity stage from the table (a, s) (``layout.SLOT``): body and mobilizer
    velocities, qdot = N u, Coriolis terms and gyroscopic forces; returns the kinetic
    energy."""
    mtype, parent, qs = i1(a, s, SLOT.mtype), i1(a, s, SLOT.parent), i1(a, s, SLOT.qs)
    nqs, us, nus = i1(a, s, SLOT.nqs), i1(a, s, SLOT.us), i1(a, s, SLOT.nus)
    params, mass = f2(a, s, SLOT.params), f1(a, s, SLOT.mass)
    q, u, qdot = f1(a, s, SLOT.q), f1(a, s, SLOT.u), f1(a, s, SLOT.qdot)
    R_FM, p_FM, H_FM = f3(a, s, SLOT.R_FM), f2(a, s, SLOT.p_FM), f3(a, s, SLOT.H_FM)
    R_GF, p_MB_G, p_GB = f3(a, s, SLOT.R_GF), f2(a, s, SLOT.p_MB_G), f2(a, s, SLOT.p_GB)
    H_G, Phi_G, com_G = f3(a, s, SLOT.H_G), f3(a, s, SLOT.Phi_G), f2(a, s, SLOT.com_G)
    V_GB, V_FM = f2(a, s, SLOT.V_GB), f2(a, s, SLOT.V_FM)
    coriolis, total_coriolis = f2(a, s, SLOT.coriolis), f2(a, s, SLOT.total_coriolis)
    gyro = f2(a, s, SLOT.gyroscopic)
    Nbuf, hd = f2(a, s, SLOT.Nbuf), f1(a, s, SLOT.hd)
    nb = parent.shape[0]
    ke = 0.0
    for b in range(1, nb):
        P = parent[b]
        nu = nus[b]
        nq = nqs[b]
        u0 = us[b]
        qsb = qs[b]
        r0 = p_GB[b, 0] - p_GB[P, 0]
        r1 = p_GB[b, 1] - p_GB[P, 1]
        r2 = p_GB[b, 2] - p_GB[P, 2]
        Hg = H_G[b]
        rel0 = rel1 = rel2 = rel3 = rel4 = rel5 = 0.0
        for k in range(nu):
            uk = u[u0 + k]
            rel0 += Hg[0, k] * uk
            rel1 += Hg[1, k] * uk
            rel2 += Hg[2, k] * uk
            rel3 += Hg[3, k] * uk
            rel4 += Hg[4, k] * uk
            rel5 += Hg[5, k] * uk
        wP0, wP1, wP2 = V_GB[P, 0], V_GB[P, 1], V_GB[P, 2]
        w0, w1, w2 = wP0 + rel0, wP1 + rel1, wP2 + rel2
        V_GB[b, 0], V_GB[b, 1], V_GB[b, 2] = w0, w1, w2
        V_GB[b, 3] = V_GB[P, 3] + wP1 * r2 - wP2 * r1 + rel3
        V_GB[b, 4] = V_GB[P, 4] + wP2 * r0 - wP0 * r2 + rel4
        V_GB[b, 5] = V_GB[P, 5] + wP0 * r1 - wP1 * r0 + rel5
        Hfm = H_FM[b]
        for i in range(6):
            acc = 0.0
            for k in range(nu):
                acc += Hfm[i, k] * u[u0 + k]
            V_FM[b, i] = acc
        qb = q[qsb : qsb + nq]
        ub = u[u0 : u0 + nu]
        t = mtype[b]
        if _identity_n(t):
            for i in range(nq):
                qdot[qsb + i] = u[u0 + i]
        elif _quaternion_n(t, euler):
            for i in range(4):
                qdot[qsb + i] = 0.0
            _add_quat_rate(q, qsb, u, u0, qdot, qsb, 1.0)
            for i in range(4, nq):  # Free: p' = v
                qdot[qsb + i] = u[u0 + i - 1]
        elif nq > 0:
            N = Nbuf[:nq, :nu]
            for i in range(nq):
                for k in range(nu):
                    N[i, k] = 0.0
            n_matrix_any(mtype[b], qb, params[b], euler, R_FM[b], N)
            for i in range(nq):
                acc = 0.0
                for k in range(nu):
                    acc += N[i, k] * u[u0 + k]
                qdot[qsb + i] = acc
        for i in range(6):
            hd[i] = 0.0
        if not _constant_h(t):
            hdot_u_any(t, qb, ub, params[b], euler, R_FM[b], p_FM[b], hd)
        Rgf = R_GF[b]
        hw0 = Rgf[0, 0] * hd[0] + Rgf[0, 1] * hd[1] + Rgf[0, 2] * hd[2]
        hw1 = Rgf[1, 0] * hd[0] + Rgf[1, 1] * hd[1] + Rgf[1, 2] * hd[2]
        hw2 = Rgf[2, 0] * hd[0] + Rgf[2, 1] * hd[1] + Rgf[2, 2] * hd[2]
        hv0 = Rgf[0, 0] * hd[3] + Rgf[0, 1] * hd[4] + Rgf[0, 2] * hd[5]
        hv1 = Rgf[1, 0] * hd[3] + Rgf[1, 1] * hd[4] + Rgf[1, 2] * hd[5]
        hv2 = Rgf[2, 0] * hd[3] + Rgf[2, 1] * hd[4] + Rgf[2, 2] * hd[5]
        pm0, pm1, pm2 = p_MB_G[b, 0], p_MB_G[b, 1], p_MB_G[b, 2]
        # cw = wP x w_rel + hdw
        cw0 = wP1 * rel2 - wP2 * rel1 + hw0
        cw1 = wP2 * rel0 - wP0 * rel2 + hw1
        cw2 = wP0 * rel1 - wP1 * rel0 + hw2
        # wP x (wP x r)
        a0 = wP1 * r2 - wP2 * r1
        a1 = wP2 * r0 - wP0 * r2
        a2 = wP0 * r1 - wP1 * r0
        cv0 = wP1 * a2 - wP2 * a1
        cv1 = wP2 * a0 - wP0 * a2
        cv2 = wP0 * a1 - wP1 * a0
        # + 2 wP x v_rel + hdv + hdw x pmb
        cv0 += 2.0 * (wP1 * rel5 - wP2 * rel4) + hv0 + (hw1 * pm2 - hw2 * pm1)
        cv1 += 2.0 * (wP2 * rel3 - wP0 * rel5) + hv1 + (hw2 * pm0 - hw0 * pm2)
        cv2 += 2.0 * (wP0 * rel4 - wP1 * rel3) + hv2 + (hw0 * pm1 - hw1 * pm0)
        # + w_rel x (w_rel x pmb)
        a0 = rel1 * pm2 - rel2 * pm1
        a1 = rel2 * pm0 - rel0 * pm2
        a2 = rel0 * pm1 - rel1 * pm0
        cv0 += rel1 * a2 - rel2 * a1
        cv1 += rel2 * a0 - rel0 * a2
        cv2 += rel0 * a1 - rel1 * a0
        cor = coriolis[b]
        cor[0], cor[1], cor[2], cor[3], cor[4], cor[5] = cw0, cw1, cw2, cv0, cv1, cv2
        tP = total_coriolis[P]
        tc = total_coriolis[b]
        tc[0] = tP[0] + cw0
        tc[1] = tP[1] + cw1
        tc[2] = tP[2] + cw2
        tc[3] = tP[3] + tP[1] * r2 - tP[2] * r1 + cv0
        tc[4] = tP[4] + tP[2] * r0 - tP[0] * r2 + cv1
        tc[5] = tP[5] + tP[0] * r1 - tP[1] * r0 + cv2
        # gyroscopic force [w x (I w), m w x (w x c)]
        Phi = Phi_G[b]
        Iw0 = Phi[0, 0] * w0 + Phi[0, 1] * w1 + Phi[0, 2] * w2
        Iw1 = Phi[1, 0] * w0 + Phi[1, 1] * w1 + Phi[1, 2] * w2
        Iw2 = Phi[2, 0] * w0 + Phi[2, 1] * w1 + Phi[2, 2] * w2
        g = gyro[b]
        g[0] = w1 * Iw2 - w2 * Iw1
        g[1] = w2 * Iw0 - w0 * Iw2
        g[2] = w0 * Iw1 - w1 * Iw0
        c0, c1, c2 = com_G[b, 0], com_G[b, 1], com_G[b, 2]
        a0 = w1 * c2 - w2 * c1
        a1 = w2 * c0 - w0 * c2
        a2 = w0 * c1 - w1 * c0
        m = mass[b]
        g[3] = m * (w1 * a2 - w2 * a1)
        g[4] = m * (w2 * a0 - w0 * a2)
        g[5] = m * (w0 * a1 - w1 * a0)
        # kinetic energy 0.5 V^T Phi V = 0.5 (w.Iw + 2 m w.(c x v) + m v.v)
        v0, v1, v2 = V_GB[b, 3], V_GB[b, 4], V_GB[b, 5]
        cv0 = c1 * v2 - c2 * v1
        cv1 = c2 * v0 - c0 * v2
        cv2 = c0 * v1 - c1 * v0
        ke += 0.5 * (
            w0 * Iw0 + w1 * Iw1 + w2 * Iw2
            + 2.0 * m * (w0 * cv0 + w1 * cv1 + w2 * cv2)
            + m * (v0 * v0 + v1 * v1 + v2 * v2)
        )  # fmt: skip
    return ke


# ----------------------------------------------------- articulated body inertias
@kernel_jit
def shift_inertia_to_parent_add(T, p_GB_b, p_GB_P, out):
    """out += Phi(r) T Phi(r)^T with Phi(r) = [[1, [r]x], [0, 1]] and r = p_GB_b - p_GB_P:
    a (6, 6) spatial inertia about body b's origin moved to its parent's origin (T is
    overwritten with the shifted matrix)."""
    r0 = p_GB_b[0] - p_GB_P[0]
    r1 = p_GB_b[1] - p_GB_P[1]
    r2 = p_GB_b[2] - p_GB_P[2]
    # rows: T = Phi T  (top rows += [r]x * bottom rows)
    for j in range(6):
        b0, b1, b2 = T[3, j], T[4, j], T[5, j]
        T[0, j] += r1 * b2 - r2 * b1
        T[1, j] += r2 * b0 - r0 * b2
        T[2, j] += r0 * b1 - r1 * b0
    # columns: T Phi^T  (left columns += right columns * [r]x^T)
    for i in range(6):
        b0, b1, b2 = T[i, 3], T[i, 4], T[i, 5]
        T[i, 0] += r1 * b2 - r2 * b1
        T[i, 1] += r2 * b0 - r0 * b2
        T[i, 2] += r0 * b1 - r1 * b0
    for i in range(6):
        for j in range(6):
            out[i, j] += T[i, j]


@kernel_jit
def _invert_spd(D, n, out, work):
    """out[:n, :n] = D[:n, :n]^-1 by Gauss-Jordan with partial pivoting (work: (6, 12))."""
    for i in range(n):
        for j in range(n):
            work[i, j] = D[i, j]
            work[i, n + j] = 1.0 if i == j else 0.0
    for c in range(n):
        piv = c
        best = abs(work[c, c])
        for r in range(c + 1, n):
            if abs(work[r, c]) > best:
                best = abs(work[r, c])
                piv = r
        if best == 0.0:
            raise ZeroDivisionError("singular articulated-body hinge inertia (H^T P H)")
        if piv != c:
            for j in range(2 * n):
                tmp = work[c, j]
                work[c, j] = work[piv, j]
                work[piv, j] = tmp
        inv = 1.0 / work[c, c]
        for j in range(2 * n):
            work[c, j] *= inv
        for r in range(n):
            if r != c:
                f = work[r, c]
                if f != 0.0:
                    for j in range(2 * n):
                        work[r, j] -= f * work[c, j]
    for i in range(n):
        for j in range(n):
            out[i, j] = work[i, n + j]


@kernel_jit
def _invert_3x3(D):
    """D[:3, :3] = D[:3, :3]^-1 in place, by cofactors."""
    a, b, c = D[0, 0], D[0, 1], D[0, 2]
    d, e, f = D[1, 0], D[1, 1], D[1, 2]
    g, h, i = D[2, 0], D[2, 1], D[2, 2]
    c00 = e * i - f * h
    c01 = f * g - d * i
    c02 = d * h - e * g
    det = a * c00 + b * c01 + c * c02
    if det == 0.0:
        raise ZeroDivisionError("singular articulated-body hinge inertia (H^T P H)")
    r = 1.0 / det
    D[0, 0] = c00 * r
    D[1, 0] = c01 * r
    D[2, 0] = c02 * r
    D[0, 1] = (c * h - b * i) * r
    D[1, 1] = (a * i - c * g) * r
    D[2, 1] = (b * g - a * h) * r
    D[0, 2] = (b * f - c * e) * r
    D[1, 2] = (c * d - a * f) * r
    D[2, 2] = (a * e - b * d) * r


@kernel_jit
def articulated_inertias(parent, nus, known, H_G, Phi_G, p_GB, P_abi, D_inv, U_cols, work, Pa):
    """Tip-to-base articulated inertias P (about Bo, in G), D^-1 = (H^T P H)^-1 and
    U = P H per body (work: (6, 12); Pa: (6, 6) scratch).

    ``known[b]`` != 0 marks a body whose udot is known (prescribed motion, the hybrid
    free/prescribed method of Jain 2011, section 16.3): its P passes through the mobilizer
    to the parent unprojected and its D^-1 and U are 0. All zeros: the plain method."""
    nb = parent.shape[0]
    for b in range(nb):
        for i in range(6):
            for j in range(6):
                P_abi[b, i, j] = Phi_G[b, i, j]
    for b in range(nb - 1, 0, -1):
        nu = nus[b]
        Pb = P_abi[b]
        for i in range(6):
            for j in range(6):
                Pa[i, j] = Pb[i, j]
        if known[b] != 0:
            for i in range(6):
                for j in range(6):
                    D_inv[b, i, j] = 0.0
                    U_cols[b, i, j] = 0.0
        elif nu == 1:  # one mobility: D is a scalar, Pa = P - U U^T / D (symmetric as made)
            H = H_G[b]
            U = U_cols[b]
            d = 0.0
            for i in range(6):
                acc = 0.0
                for j in range(6):
                    acc += Pb[i, j] * H[j, 0]
                U[i, 0] = acc
                d += H[i, 0] * acc
            if d == 0.0:
                raise ZeroDivisionError("singular articulated-body hinge inertia (H^T P H)")
            di = 1.0 / d
            D_inv[b, 0, 0] = di
            for i in range(6):
                ui = U[i, 0] * di
                for j in range(i, 6):
                    v = 0.5 * (Pb[i, j] + Pb[j, i]) - ui * U[j, 0]
                    Pa[i, j] = v
                    Pa[j, i] = v
        elif nu > 0:
            H = H_G[b]
            U = U_cols[b]
            for i in range(6):
                for k in range(nu):
                    acc = 0.0
                    for j in range(6):
                        acc += Pb[i, j] * H[j, k]
                    U[i, k] = acc
            # D = H^T U (into work[:, 6:12] columns are reused by _invert_spd; use D_inv
            # rows as the input buffer and invert in place through work)
            Di = D_inv[b]
            for k in range(nu):
                for l in range(nu):
                    acc = 0.0
                    for j in range(6):
                        acc += H[j, k] * U[j, l]
                    Di[k, l] = acc
            if nu == 3:
                _invert_3x3(Di)
            else:
                _invert_spd(Di, nu, Di, work)
            # Pa = P - U Di U^T
            for i in range(6):
                for k in range(nu):
                    acc = 0.0
                    for l in range(nu):
                        acc += U[i, l] * Di[l, k]
                    work[i, k] = acc  # (U Di)
            for i in range(6):
                for j in range(6):
                    acc = 0.0
                    for k in range(nu):
                        acc += work[i, k] * U[j, k]
                    Pa[i, j] -= acc
            # keep Pa exactly symmetric: the rounding asymmetry of P - U D^-1 U^T would
            # otherwise grow from body to body (a 20-link Ball chain lost all accuracy)
            for i in range(6):
                for j in range(i + 1, 6):
                    avg = 0.5 * (Pa[i, j] + Pa[j, i])
                    Pa[i, j] = avg
                    Pa[j, i] = avg
        P = parent[b]
        shift_inertia_to_parent_add(Pa, p_GB[b], p_GB[P], P_abi[P])


# ----------------------------------------------------- articulated-body solve
@kernel_jit
def articulated_solve(
    parent,
    us,
    nus,
    known,
    H_G,
    p_GB,
    P_abi,
    D_inv,
    U_cols,
    coriolis,
    bias_force,
    body_forces,
    mobility_forces,
    udot,
    A_GB,
    z,
    eps,
):
    """udot and A_GB from the articulated inertias, applied forces and velocity terms
    (zeros for ``coriolis``/``bias_force`` give udot = M^-1 f). ``z`` (nb, 6) and ``eps``
    (nu,) are scratch. For bodies with ``known[b]`` != 0 (inertias from
    ``articulated_inertias`` with the same ``known``) udot is an input, used as given;
    mobility forces of those bodies are not read."""
    nb = parent.shape[0]
    for b in range(nb):
        for i in range(6):
            z[b, i] = bias_force[b, i] - body_forces[b, i]
    for b in range(nb - 1, 0, -1):
        nu = nus[b]
        s = us[b]
        Pb = P_abi[b]
        cor = coriolis[b]
        zb = z[b]
        za0 = za1 = za2 = za3 = za4 = za5 = 0.0
        # za = z + P c
        pc = (
            Pb[0, 0] * cor[0] + Pb[0, 1] * cor[1] + Pb[0, 2] * cor[2]
            + Pb[0, 3] * cor[3] + Pb[0, 4] * cor[4] + Pb[0, 5] * cor[5]
        )  # fmt: skip
        za0 = zb[0] + pc
        pc = (
            Pb[1, 0] * cor[0] + Pb[1, 1] * cor[1] + Pb[1, 2] * cor[2]
            + Pb[1, 3] * cor[3] + Pb[1, 4] * cor[4] + Pb[1, 5] * cor[5]
        )  # fmt: skip
        za1 = zb[1] + pc
        pc = (
            Pb[2, 0] * cor[0] + Pb[2, 1] * cor[1] + Pb[2, 2] * cor[2]
            + Pb[2, 3] * cor[3] + Pb[2, 4] * cor[4] + Pb[2, 5] * cor[5]
        )  # fmt: skip
        za2 = zb[2] + pc
        pc = (
            Pb[3, 0] * cor[0] + Pb[3, 1] * cor[1] + Pb[3, 2] * cor[2]
            + Pb[3, 3] * cor[3] + Pb[3, 4] * cor[4] + Pb[3, 5] * cor[5]
        )  # fmt: skip
        za3 = zb[3] + pc
        pc = (
            Pb[4, 0] * cor[0] + Pb[4, 1] * cor[1] + Pb[4, 2] * cor[2]
            + Pb[4, 3] * cor[3] + Pb[4, 4] * cor[4] + Pb[4, 5] * cor[5]
        )  # fmt: skip
        za4 = zb[4] + pc
        pc = (
            Pb[5, 0] * cor[0] + Pb[5, 1] * cor[1] + Pb[5, 2] * cor[2]
            + Pb[5, 3] * cor[3] + Pb[5, 4] * cor[4] + Pb[5, 5] * cor[5]
        )  # fmt: skip
        za5 = zb[5] + pc
        if known[b] != 0:  # za += P H udot_known
            H = H_G[b]
            for k in range(nu):
                ud = udot[s + k]
                if ud != 0.0:
                    for j in range(6):
                        hj = H[j, k] * ud
                        za0 += Pb[0, j] * hj
                        za1 += Pb[1, j] * hj
                        za2 += Pb[2, j] * hj
                        za3 += Pb[3, j] * hj
                        za4 += Pb[4, j] * hj
                        za5 += Pb[5, j] * hj
        elif nu == 1:
            H = H_G[b]
            U = U_cols[b]
            e = mobility_forces[s] - (
                H[0, 0] * zb[0] + H[1, 0] * zb[1] + H[2, 0] * zb[2]
                + H[3, 0] * zb[3] + H[4, 0] * zb[4] + H[5, 0] * zb[5]
            )  # fmt: skip
            eps[s] = e
            k1 = D_inv[b, 0, 0] * (
                e
                - (
                    U[0, 0] * cor[0] + U[1, 0] * cor[1] + U[2, 0] * cor[2]
                    + U[3, 0] * cor[3] + U[4, 0] * cor[4] + U[5, 0] * cor[5]
                )
            )  # fmt: skip
            za0 += U[0, 0] * k1
            za1 += U[1, 0] * k1
            za2 += U[2, 0] * k1
            za3 += U[3, 0] * k1
            za4 += U[4, 0] * k1
            za5 += U[5, 0] * k1
        elif nu > 0:
            H = H_G[b]
            U = U_cols[b]
            Di = D_inv[b]
            g = A_GB[b]  # scratch here: the outward pass writes A_GB[b] afterwards
            # e = f - H^T z ; g = e - U^T c ; za += U (Di g)
            for k in range(nu):
                e = mobility_forces[s + k] - (
                    H[0, k] * zb[0] + H[1, k] * zb[1] + H[2, k] * zb[2]
                    + H[3, k] * zb[3] + H[4, k] * zb[4] + H[5, k] * zb[5]
                )  # fmt: skip
                eps[s + k] = e
            for l in range(nu):
                g[l] = eps[s + l] - (
                    U[0, l] * cor[0] + U[1, l] * cor[1] + U[2, l] * cor[2]
                    + U[3, l] * cor[3] + U[4, l] * cor[4] + U[5, l] * cor[5]
                )  # fmt: skip
            for k in range(nu):
                acc = 0.0
                for l in range(nu):
                    acc += Di[k, l] * g[l]
                za0 += U[0, k] * acc
                za1 += U[1, k] * acc
                za2 += U[2, k] * acc
                za3 += U[3, k] * acc
                za4 += U[4, k] * acc
                za5 += U[5, k] * acc
        P = parent[b]
        r0 = p_GB[b, 0] - p_GB[P, 0]
        r1 = p_GB[b, 1] - p_GB[P, 1]
        r2 = p_GB[b, 2] - p_GB[P, 2]
        zP = z[P]
        zP[0] += za0 + r1 * za5 - r2 * za4
        zP[1] += za1 + r2 * za3 - r0 * za5
        zP[2] += za2 + r0 * za4 - r1 * za3
        zP[3] += za3
        zP[4] += za4
        zP[5] += za5
    for i in range(6):
        A_GB[0, i] = 0.0
    for b in range(1, nb):
        nu = nus[b]
        s = us[b]
        P = parent[b]
        r0 = p_GB[b, 0] - p_GB[P, 0]
        r1 = p_GB[b, 1] - p_GB[P, 1]
        r2 = p_GB[b, 2] - p_GB[P, 2]
        AP = A_GB[P]
        cor = coriolis[b]
        a0 = AP[0] + cor[0]
        a1 = AP[1] + cor[1]
        a2 = AP[2] + cor[2]
        a3 = AP[3] + AP[1] * r2 - AP[2] * r1 + cor[3]
        a4 = AP[4] + AP[2] * r0 - AP[0] * r2 + cor[4]
        a5 = AP[5] + AP[0] * r1 - AP[1] * r0 + cor[5]
        if known[b] != 0:
            H = H_G[b]
            for k in range(nu):
                ud = udot[s + k]
                a0 += H[0, k] * ud
                a1 += H[1, k] * ud
                a2 += H[2, k] * ud
                a3 += H[3, k] * ud
                a4 += H[4, k] * ud
                a5 += H[5, k] * ud
        elif nu == 1:
            H = H_G[b]
            U = U_cols[b]
            ud = D_inv[b, 0, 0] * (
                eps[s]
                - (
                    U[0, 0] * a0 + U[1, 0] * a1 + U[2, 0] * a2
                    + U[3, 0] * a3 + U[4, 0] * a4 + U[5, 0] * a5
                )
            )  # fmt: skip
            udot[s] = ud
            a0 += H[0, 0] * ud
            a1 += H[1, 0] * ud
            a2 += H[2, 0] * ud
            a3 += H[3, 0] * ud
            a4 += H[4, 0] * ud
            a5 += H[5, 0] * ud
        elif nu > 0:
            H = H_G[b]
            U = U_cols[b]
            Di = D_inv[b]
            g = A_GB[b]  # scratch until a0..a5 are stored in it below
            for l in range(nu):
                g[l] = eps[s + l] - (
                    U[0, l] * a0 + U[1, l] * a1 + U[2, l] * a2
                    + U[3, l] * a3 + U[4, l] * a4 + U[5, l] * a5
                )  # fmt: skip
            for k in range(nu):
                acc = 0.0
                for l in range(nu):
                    acc += Di[k, l] * g[l]
                udot[s + k] = acc
            for k in range(nu):
                ud = udot[s + k]
                a0 += H[0, k] * ud
                a1 += H[1, k] * ud
                a2 += H[2, k] * ud
                a3 += H[3, k] * ud
                a4 += H[4, k] * ud
                a5 += H[5, k] * ud
        Ab = A_GB[b]
        Ab[0], Ab[1], Ab[2], Ab[3], Ab[4], Ab[5] = a0, a1, a2, a3, a4, a5


@kernel_jit
def qdotdot_from_udot(
    mtype, qs, nqs, us, nus, params, euler, R_FM, q, qdot, u, udot, qdotdot, Nbuf
):
    """qdotdot = N udot + NDot u, block by block (Nbuf: (7, 6) scratch)."""
    nb = mtype.shape[0]
    for b in range(1, nb):
        nq = nqs[b]
        nu = nus[b]
        if nq == 0:
            continue
        qsb = qs[b]
        s = us[b]
        t = mtype[b]
        if _identity_n(t):
            for i in range(nq):
                qdotdot[qsb + i] = udot[s + i]
            continue
        if _quaternion_n(t, euler):  # 0.5 E(q) wdot + 0.5 E(qdot) w ; p'' = v'
            for i in range(4):
                qdotdot[qsb + i] = 0.0
            _add_quat_rate(q, qsb, udot, s, qdotdot, qsb, 1.0)
            _add_quat_rate(qdot, qsb, u, s, qdotdot, qsb, 1.0)
            for i in range(4, nq):
                qdotdot[qsb + i] = udot[s + i - 1]
            continue
        qb = q[qsb : qsb + nq]
        N = Nbuf[:nq, :nu]
        for i in range(nq):
            for k in range(nu):
                N[i, k] = 0.0
        n_matrix_any(mtype[b], qb, params[b], euler, R_FM[b], N)
        for i in range(nq):
            acc = 0.0
            for k in range(nu):
                acc += N[i, k] * udot[s + k]
            qdotdot[qsb + i] = acc
        for i in range(nq):
            for k in range(nu):
                N[i, k] = 0.0
        ndot_matrix_any(mtype[b], qb, qdot[qsb : qsb + nq], params[b], euler, R_FM[b], N)
        for i in range(nq):
            acc = 0.0
            for k in range(nu):
                acc += N[i, k] * u[s + k]
            qdotdot[qsb + i] += acc


@kernel_jit
def acceleration_stage(with_inertias, euler, a, s):
    """The Acceleration stage from the table (a, s) (``layout.SLOT``): udot, A_GB and
    qdotdot; first the articulated inertias (into P_abi, D_inv, U_cols) if
    ``with_inertias``, else they are already realized."""
    parent, us, nus = i1(a, s, SLOT.parent), i1(a, s, SLOT.us), i1(a, s, SLOT.nus)
    known, H_G, p_GB = i1(a, s, SLOT.known), f3(a, s, SLOT.H_G), f2(a, s, SLOT.p_GB)
    P_abi, D_inv, U_cols = f3(a, s, SLOT.P_abi), f3(a, s, SLOT.D_inv), f3(a, s, SLOT.U_cols)
    udot, A_GB = f1(a, s, SLOT.udot), f2(a, s, SLOT.A_GB)
    if with_inertias:
        articulated_inertias(
            parent,
            nus,
            known,
            H_G,
            f3(a, s, SLOT.Phi_G),
            p_GB,
            P_abi,
            D_inv,
            U_cols,
            f2(a, s, SLOT.work),
            f2(a, s, SLOT.Pa),
        )
    articulated_solve(
        parent,
        us,
        nus,
        known,
        H_G,
        p_GB,
        P_abi,
        D_inv,
        U_cols,
        f2(a, s, SLOT.coriolis),
        f2(a, s, SLOT.gyroscopic),
        f2(a, s, SLOT.body_forces),
        f1(a, s, SLOT.mobility_forces),
        udot,
        A_GB,
        f2(a, s, SLOT.z),
        f1(a, s, SLOT.eps),
    )
    qdotdot_from_udot(
        i1(a, s, SLOT.mtype),
        i1(a, s, SLOT.qs),
        i1(a, s, SLOT.nqs),
        us,
        nus,
        f2(a, s, SLOT.params),
        euler,
        f3(a, s, SLOT.R_FM),
        f1(a, s, SLOT.q),
        f1(a, s, SLOT.qdot),
        f1(a, s, SLOT.u),
        udot,
        f1(a, s, SLOT.qdotdot),
        f2(a, s, SLOT.Nbuf),
    )


# ------------------------------------------------------------ inverse dynamics
@kernel_jit
def residual_forces(
    parent,
    us,
    nus,
    H_G,
    p_GB,
    Phi_G,
    coriolis,
    bias_force,
    body_forces,
    mobility_forces,
    udot,
    A_GB,
    F,
    residual,
):
    """residual = M udot + bias - f - J^T F_applied (F: (nb, 6) scratch; A_GB gets the
    body accelerations implied by udot). Zero velocity terms give M udot - f - J^T F."""
    nb = parent.shape[0]
    for i in range(6):
        A_GB[0, i] = 0.0
        F[0, i] = 0.0
    for b in range(1, nb):
        nu = nus[b]
        s = us[b]
        P = parent[b]
        r0 = p_GB[b, 0] - p_GB[P, 0]
        r1 = p_GB[b, 1] - p_GB[P, 1]
        r2 = p_GB[b, 2] - p_GB[P, 2]
        AP = A_GB[P]
        cor = coriolis[b]
        a0 = AP[0] + cor[0]
        a1 = AP[1] + cor[1]
        a2 = AP[2] + cor[2]
        a3 = AP[3] + AP[1] * r2 - AP[2] * r1 + cor[3]
        a4 = AP[4] + AP[2] * r0 - AP[0] * r2 + cor[4]
        a5 = AP[5] + AP[0] * r1 - AP[1] * r0 + cor[5]
        H = H_G[b]
        for k in range(nu):
            ud = udot[s + k]
            a0 += H[0, k] * ud
            a1 += H[1, k] * ud
            a2 += H[2, k] * ud
            a3 += H[3, k] * ud
            a4 += H[4, k] * ud
            a5 += H[5, k] * ud
        Ab = A_GB[b]
        Ab[0], Ab[1], Ab[2], Ab[3], Ab[4], Ab[5] = a0, a1, a2, a3, a4, a5
        Phi = Phi_G[b]
        for i in range(6):
            F[b, i] = (
                Phi[i, 0] * a0 + Phi[i, 1] * a1 + Phi[i, 2] * a2
                + Phi[i, 3] * a3 + Phi[i, 4] * a4 + Phi[i, 5] * a5
                + bias_force[b, i] - body_forces[b, i]
            )  # fmt: skip
    for b in range(nb - 1, 0, -1):
        nu = nus[b]
        s = us[b]
        H = H_G[b]
        Fb = F[b]
        for k in range(nu):
            residual[s + k] = (
                H[0, k] * Fb[0] + H[1, k] * Fb[1] + H[2, k] * Fb[2]
                + H[3, k] * Fb[3] + H[4, k] * Fb[4] + H[5, k] * Fb[5]
                - mobility_forces[s + k]
            )  # fmt: skip
        P = parent[b]
        r0 = p_GB[b, 0] - p_GB[P, 0]
        r1 = p_GB[b, 1] - p_GB[P, 1]
        r2 = p_GB[b, 2] - p_GB[P, 2]
        FP = F[P]
        FP[0] += Fb[0] + r1 * Fb[5] - r2 * Fb[4]
        FP[1] += Fb[1] + r2 * Fb[3] - r0 * Fb[5]
        FP[2] += Fb[2] + r0 * Fb[4] - r1 * Fb[3]
        FP[3] += Fb[3]
        FP[4] += Fb[4]
        FP[5] += Fb[5]


# ------------------------------------------------------------ system Jacobian
@kernel_jit
def system_jacobian(parent, us, nus, H_G, p_GB, J):
    """J (6 nb x nu): row block b, columns of each ancestor a's u: Phi(p_b - p_a)^T H_a."""
    nb = parent.shape[0]
    J[:, :] = 0.0
    for b in range(1, nb):
        a = b
        while a > 0:
            r0 = p_GB[b, 0] - p_GB[a, 0]
            r1 = p_GB[b, 1] - p_GB[a, 1]
            r2 = p_GB[b, 2] - p_GB[a, 2]
            H = H_G[a]
            s = us[a]
            for k in range(nus[a]):
                c = s + k
                h0, h1, h2 = H[0, k], H[1, k], H[2, k]
                J[6 * b + 0, c] = h0
                J[6 * b + 1, c] = h1
                J[6 * b + 2, c] = h2
                J[6 * b + 3, c] = H[3, k] + h1 * r2 - h2 * r1
                J[6 * b + 4, c] = H[4, k] + h2 * r0 - h0 * r2
                J[6 * b + 5, c] = H[5, k] + h0 * r1 - h1 * r0
            a = parent[a]
