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
``velocity_stage`` and ``articulated_solve``, limited by their arithmetic, are compiled
with ``fma_kernel_jit`` (a product and the sum that uses it may be one FMA, rounded
once); the others keep every product and sum rounded as written. Along a chain (a body
whose parent is the body numbered just before it) the recursions keep the parent's
result in registers instead of reading back what they have just stored, and the solve's
steps for one free mobility (Pin, Slider, Screw...) take D^-1 as a scalar.
"""

from __future__ import annotations

import numpy as np

from engine.common.numba_internals import f1, f2, f3, fma_kernel_jit, i1, kernel_jit
from engine.multibody.kernels.layout import SLOT
from engine.multibody.kernels.spatial_inline import (
    accumulate6,
    add3,
    add6,
    add_h_times,
    add_scaled6,
    column6,
    column_dot6,
    cross3,
    dot3,
    frame_point,
    h_times,
    inline,
    join6,
    load3,
    load6,
    mat6_vec,
    mat33_mul,
    mat33_mul_transpose,
    mat33_vec,
    rotate6,
    row_dot6,
    row_sub,
    scale3,
    shift_force,
    shift_motion,
    shift_motion_columns,
    store3,
    store6,
    store_column6,
    sub3,
)
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
#: the zero spatial vector (Ground's motion)
_ZERO6 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)

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
@inline
def _quaternion_rotation(qb, R):
    """R = R(q) of the quaternion q = qb[0:4] = [w, x, y, z], normalized first (qb is
    untouched): the same operations as ``rotation_kernels.quat_to_rot``, inlined."""
    n = np.sqrt(qb[0] * qb[0] + qb[1] * qb[1] + qb[2] * qb[2] + qb[3] * qb[3])
    w, x, y, z = qb[0] / n, qb[1] / n, qb[2] / n, qb[3] / n
    R[0, 0] = 1.0 - 2.0 * (y * y + z * z)
    R[0, 1] = 2.0 * (x * y - w * z)
    R[0, 2] = 2.0 * (x * z + w * y)
    R[1, 0] = 2.0 * (x * y + w * z)
    R[1, 1] = 1.0 - 2.0 * (x * x + z * z)
    R[1, 2] = 2.0 * (y * z - w * x)
    R[2, 0] = 2.0 * (x * z - w * y)
    R[2, 1] = 2.0 * (y * z + w * x)
    R[2, 2] = 1.0 - 2.0 * (x * x + y * y)


@inline
def _mobilizer_transform(t, custom, qb, params_b, euler, R_FM_b, p_FM_b, H_FM_b):
    """The mobilizer's X_FM = (R_FM, p_FM) and joint map H_FM (in F) from its q block;
    untouched for a Custom body (``custom``: its Python kinematics wrote them)."""
    if t == _PIN:  # the commonest type, without the dispatch: R_FM = Rz(q), p_FM = 0
        c, s_ = np.cos(qb[0]), np.sin(qb[0])
        R_FM_b[0, 0], R_FM_b[0, 1], R_FM_b[0, 2] = c, -s_, 0.0
        R_FM_b[1, 0], R_FM_b[1, 1], R_FM_b[1, 2] = s_, c, 0.0
        R_FM_b[2, 0], R_FM_b[2, 1], R_FM_b[2, 2] = 0.0, 0.0, 1.0
        p_FM_b[0] = p_FM_b[1] = p_FM_b[2] = 0.0
        for i in range(6):  # H_FM = [z; 0]
            H_FM_b[i, 0] = 0.0
        H_FM_b[2, 0] = 1.0
    elif _quaternion_n(t, euler):  # Ball or Free: R_FM of the quaternion, H_FM = 1
        _quaternion_rotation(qb, R_FM_b)
        for i in range(3):  # Free: p_FM = q[4:7]; Ball: 0
            p_FM_b[i] = qb[4 + i] if t == _FREE else 0.0
        for i in range(6):
            for j in range(6):
                H_FM_b[i, j] = 0.0
        for j in range(6 if t == _FREE else 3):
            H_FM_b[j, j] = 1.0
    elif not custom:
        x_fm_any(t, qb, params_b, euler, R_FM_b, p_FM_b)
        H_FM_b[:, :] = 0.0
        h_fm_any(t, qb, params_b, euler, R_FM_b, p_FM_b, H_FM_b)


@inline
def _body_pose(R_GP, p_GP, R_PF, p_PF, R_FM, p_FM, R_BM, p_BM, R_GF, R_GB, p_GB, R_GM):
    """X_GB = X_GP X_PF X_FM X_BM^-1 into (R_GB, p_GB), R_GF on the way (R_GM: a 3 x 3
    scratch); returns p_MB_G, the vector from the mobilizer's M origin to the body
    origin, in Ground."""
    mat33_mul(R_GP, R_PF, R_GF)
    p_GF = frame_point(load3(p_GP), R_GP, load3(p_PF))
    mat33_mul(R_GF, R_FM, R_GM)
    p_GM = frame_point(p_GF, R_GF, load3(p_FM))
    mat33_mul_transpose(R_GM, R_BM, R_GB)
    p_GBo = sub3(p_GM, mat33_vec(R_GB, load3(p_BM)))
    store3(p_GB, p_GBo)
    return sub3(p_GBo, p_GM)


@inline
def _spatial_inertia_in_ground(R_GB, m, com_B, I_B, RI, com_G, Phi):
    """Phi = [[I_G, m [c_G]x], [-m [c_G]x, m 1]] about Bo in Ground, with c_G = R_GB c_B
    (into com_G) and I_G = R_GB I_B R_GB^T (RI: a 3 x 3 scratch for R_GB I_B)."""
    c = mat33_vec(R_GB, load3(com_B))
    store3(com_G, c)
    mat33_mul(R_GB, I_B, RI)
    for i in range(3):
        for j in range(3):
            Phi[i, j] = RI[i, 0] * R_GB[j, 0] + RI[i, 1] * R_GB[j, 1] + RI[i, 2] * R_GB[j, 2]
            Phi[i, 3 + j] = 0.0
            Phi[3 + i, j] = 0.0
            Phi[3 + i, 3 + j] = m if i == j else 0.0
    mc0, mc1, mc2 = scale3(m, c)
    Phi[0, 4], Phi[0, 5] = -mc2, mc1
    Phi[1, 3], Phi[1, 5] = mc2, -mc0
    Phi[2, 3], Phi[2, 4] = -mc1, mc0
    Phi[4, 0], Phi[5, 0] = -mc2, mc1
    Phi[3, 1], Phi[5, 1] = mc2, -mc0
    Phi[3, 2], Phi[4, 2] = -mc1, mc0


@kernel_jit
def position_stage(euler, custom_type, a, s):
    """The Position stage from the table (a, s) (``layout.SLOT``): body poses, mobilizer
    transforms, H_G and spatial inertias from q, Ground outward, one forward step per
    body. For bodies of type ``custom_type`` (Python kinematics) R_FM, p_FM and H_FM are
    inputs."""
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
    R_GM, RI = work[0:3, 0:3], work[0:3, 3:6]
    for b in range(1, parent.shape[0]):
        P = parent[b]
        t = mtype[b]
        qb = q[qs[b] : qs[b] + nqs[b]]
        _mobilizer_transform(t, t == custom_type, qb, params[b], euler, R_FM[b], p_FM[b], H_FM[b])
        p_MB = _body_pose(
            R_GB[P], p_GB[P], R_PF[b], p_PF[b], R_FM[b], p_FM[b], R_BM[b], p_BM[b],
            R_GF[b], R_GB[b], p_GB[b], R_GM,
        )  # fmt: skip
        store3(p_MB_G[b], p_MB)
        shift_motion_columns(H_FM[b], R_GF[b], p_MB, H_G[b], nus[b])
        _spatial_inertia_in_ground(R_GB[b], mass[b], com_B[b], I_B[b], RI, com_G[b], Phi_G[b])


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
@inline
def _mobilizer_qdot(t, euler, q, u, qdot, qsb, u0, nq, nu, params_b, R_FM_b, Nbuf):
    """qdot[qsb:qsb+nq] = N(q) u[u0:u0+nu] for one mobilizer (Nbuf: (7, 6) scratch)."""
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
        n_matrix_any(t, q[qsb : qsb + nq], params_b, euler, R_FM_b, N)
        for i in range(nq):
            acc = 0.0
            for k in range(nu):
                acc += N[i, k] * u[u0 + k]
            qdot[qsb + i] = acc


@inline
def _coriolis(w_P, r, V_rel, Hdot_u, p_MB):
    """The body's velocity-dependent spatial acceleration (about Bo, in Ground) for zero
    udot and a resting parent acceleration: [w_P x w_rel + Hdot_w;
    w_P x (w_P x r) + 2 w_P x v_rel + Hdot_v + Hdot_w x p_MB + w_rel x (w_rel x p_MB)],
    with V_rel = H u = [w_rel; v_rel] and Hdot_u = (d/dt H) u = [Hdot_w; Hdot_v]."""
    w_rel, v_rel = (V_rel[0], V_rel[1], V_rel[2]), (V_rel[3], V_rel[4], V_rel[5])
    hd_w, hd_v = (Hdot_u[0], Hdot_u[1], Hdot_u[2]), (Hdot_u[3], Hdot_u[4], Hdot_u[5])
    c_w = add3(cross3(w_P, w_rel), hd_w)
    c_v = cross3(w_P, cross3(w_P, r))
    c_v = add3(c_v, add3(add3(scale3(2.0, cross3(w_P, v_rel)), hd_v), cross3(hd_w, p_MB)))
    c_v = add3(c_v, cross3(w_rel, cross3(w_rel, p_MB)))
    return join6(c_w, c_v)


@inline
def _coriolis_constant_h(w_P, r, V_rel, p_MB):
    """``_coriolis`` of a mobilizer whose H_FM is constant (Hdot_u = 0):
    [w_P x w_rel; w_P x (w_P x r) + 2 w_P x v_rel + w_rel x (w_rel x p_MB)]."""
    w_rel, v_rel = (V_rel[0], V_rel[1], V_rel[2]), (V_rel[3], V_rel[4], V_rel[5])
    c_v = add3(cross3(w_P, cross3(w_P, r)), scale3(2.0, cross3(w_P, v_rel)))
    c_v = add3(c_v, cross3(w_rel, cross3(w_rel, p_MB)))
    return join6(cross3(w_P, w_rel), c_v)


@inline
def _gyroscopic_and_kinetic_energy(V, Phi, m, c):
    """The gyroscopic force [w x (I w); m w x (w x c)] of a body with spatial velocity
    V = [w; v], spatial inertia Phi about Bo, mass m and mass centre c (from Bo), all in
    Ground; and its kinetic energy 0.5 V^T Phi V = 0.5 (w.Iw + 2 m w.(c x v) + m v.v)."""
    w, v = (V[0], V[1], V[2]), (V[3], V[4], V[5])
    Iw = mat33_vec(Phi, w)
    gyro = join6(cross3(w, Iw), scale3(m, cross3(w, cross3(w, c))))
    ke = 0.5 * (dot3(w, Iw) + 2.0 * m * dot3(w, cross3(c, v)) + m * dot3(v, v))
    return gyro, ke


@inline
def _parent_row(X, P, b, x_previous):
    """Row P of the (nb, 6) array X as a tuple: ``x_previous`` (body b - 1's row, still in
    registers) when b continues a chain (P = b - 1), else read from X."""
    if P == b - 1:
        return x_previous
    return load6(X[P])


@inline
def _h_times(H, nu, x, s):
    """``h_times`` (H[0:6, 0:nu] x[s:s+nu]) with a one-mobility mobilizer's column scaled
    directly."""
    if nu == 1:
        xs = x[s]
        return H[0, 0] * xs, H[1, 0] * xs, H[2, 0] * xs, H[3, 0] * xs, H[4, 0] * xs, H[5, 0] * xs
    return h_times(H, nu, x, s)


@fma_kernel_jit
def velocity_stage(euler, a, s):
    """The Velocity stage from the table (a, s) (``layout.SLOT``): body and mobilizer
    velocities, qdot = N u, Coriolis terms and gyroscopic forces, one forward step per
    body; returns the kinetic energy."""
    mtype, parent, qs = i1(a, s, SLOT.mtype), i1(a, s, SLOT.parent), i1(a, s, SLOT.qs)
    nqs, us, nus = i1(a, s, SLOT.nqs), i1(a, s, SLOT.us), i1(a, s, SLOT.nus)
    params, mass = f2(a, s, SLOT.params), f1(a, s, SLOT.mass)
    q, u, qdot = f1(a, s, SLOT.q), f1(a, s, SLOT.u), f1(a, s, SLOT.qdot)
    R_FM, p_FM, H_FM = f3(a, s, SLOT.R_FM), f2(a, s, SLOT.p_FM), f3(a, s, SLOT.H_FM)
    R_GF, p_MB_G, p_GB = f3(a, s, SLOT.R_GF), f2(a, s, SLOT.p_MB_G), f2(a, s, SLOT.p_GB)
    H_G, Phi_G, com_G = f3(a, s, SLOT.H_G), f3(a, s, SLOT.Phi_G), f2(a, s, SLOT.com_G)
    V_GB, V_FM = f2(a, s, SLOT.V_GB), f2(a, s, SLOT.V_FM)
    coriolis, total_coriolis = f2(a, s, SLOT.coriolis), f2(a, s, SLOT.total_coriolis)
    gyroscopic = f2(a, s, SLOT.gyroscopic)
    Nbuf, hd = f2(a, s, SLOT.Nbuf), f1(a, s, SLOT.hd)
    ke = 0.0
    V = load6(V_GB[0])  # (Ground's: body b - 1's velocity and total Coriolis term below)
    total = load6(total_coriolis[0])
    for b in range(1, parent.shape[0]):
        P = parent[b]
        t = mtype[b]
        nu, u0, nq, qsb = nus[b], us[b], nqs[b], qs[b]
        r = row_sub(p_GB, b, p_GB, P)
        V_P = _parent_row(V_GB, P, b, V)
        total_P = _parent_row(total_coriolis, P, b, total)
        V_rel = _h_times(H_G[b], nu, u, u0)
        V = add6(shift_motion(V_P, r), V_rel)
        store6(V_GB[b], V)
        store6(V_FM[b], _h_times(H_FM[b], nu, u, u0))
        _mobilizer_qdot(t, euler, q, u, qdot, qsb, u0, nq, nu, params[b], R_FM[b], Nbuf)
        w_P, p_MB = (V_P[0], V_P[1], V_P[2]), load3(p_MB_G[b])
        if _constant_h(t):  # (d/dt H_FM) u = 0
            cor = _coriolis_constant_h(w_P, r, V_rel, p_MB)
        else:
            hd[:] = 0.0
            hdot_u_any(
                t, q[qsb : qsb + nq], u[u0 : u0 + nu], params[b], euler, R_FM[b], p_FM[b], hd
            )
            Hdot_u = rotate6(R_GF[b], load6(hd))  # (d/dt H_FM) u from F to Ground
            cor = _coriolis(w_P, r, V_rel, Hdot_u, p_MB)
        store6(coriolis[b], cor)
        total = add6(shift_motion(total_P, r), cor)
        store6(total_coriolis[b], total)
        gyro, ke_b = _gyroscopic_and_kinetic_energy(V, Phi_G[b], mass[b], load3(com_G[b]))
        store6(gyroscopic[b], gyro)
        ke += ke_b
    return ke


# ----------------------------------------------------- articulated body inertias
@kernel_jit
def shift_inertia_to_parent_add(T, p_GB_b, p_GB_P, out):
    """out += Phi(r) T Phi(r)^T with Phi(r) = [[1, [r]x], [0, 1]] and r = p_GB_b - p_GB_P:
    a (6, 6) spatial inertia about body b's origin moved to its parent's origin (T is
    overwritten with the shifted matrix)."""
    _shift_inertia_add(T, p_GB_b, p_GB_P, out)


@inline
def _shift_inertia_add(T, p_GB_b, p_GB_P, out):
    """``shift_inertia_to_parent_add``, inlined into the articulated-inertia recursion."""
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


@inline
def _reduce_three_mobilities(Pb, H, U, Di, Pa):
    """For a body with three mobilities: U = P H, D^-1 = (H^T U)^-1 and Pa -= U D^-1 U^T
    (Pa holds P on entry). P, D and the update are symmetric, so D's and Pa's upper
    triangles are computed and mirrored: Pa stays exactly symmetric, as it must (rounding
    asymmetry would otherwise grow from body to body: a 20-link Ball chain lost all
    accuracy)."""
    for i in range(6):
        for k in range(3):
            U[i, k] = row_dot6(Pb, i, column6(H, k))
    for k in range(3):
        for l in range(k, 3):
            Di[k, l] = Di[l, k] = column_dot6(H, k, column6(U, l))
    _invert_3x3(Di)
    d00, d01, d02 = Di[0, 0], Di[0, 1], Di[0, 2]
    d11, d12, d22 = Di[1, 1], Di[1, 2], Di[2, 2]
    for i in range(6):
        u0, u1, u2 = U[i, 0], U[i, 1], U[i, 2]
        w0 = u0 * d00 + (u1 * d01 + u2 * d02)  # (U D^-1)[i, :]
        w1 = u0 * d01 + (u1 * d11 + u2 * d12)
        w2 = u0 * d02 + (u1 * d12 + u2 * d22)
        for j in range(i, 6):
            Pa[i, j] = Pa[j, i] = Pa[i, j] - (w0 * U[j, 0] + (w1 * U[j, 1] + w2 * U[j, 2]))


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
            PH = mat6_vec(Pb, column6(H, 0))
            store_column6(U, 0, PH)
            d = column_dot6(H, 0, PH)
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
        elif nu == 3:  # Ball, Gimbal, Translation...: nu > 0's steps with a fixed size
            _reduce_three_mobilities(Pb, H_G[b], U_cols[b], D_inv[b], Pa)
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
        _shift_inertia_add(Pa, p_GB[b], p_GB[P], P_abi[P])


# ----------------------------------------------------- articulated-body solve
@inline
def _solve_backward_step(s, nu, known_b, H, P_b, D_inv_b, U, cor, z_b, f, udot, eps, g):
    """Body b's articulated force about Bo, in Ground, as its parent receives it before
    the shift: z_b + P c, plus U D^-1 (eps - U^T c) with eps = f - H^T z_b for a free
    mobilizer (eps into ``eps``), or plus P H udot for a ``known_b`` one (udot given).
    ``g`` is scratch of at least nu entries."""
    za = add6(z_b, mat6_vec(P_b, cor))
    if known_b:
        for k in range(nu):
            ud = udot[s + k]
            if ud != 0.0:
                for j in range(6):
                    za = add_scaled6(za, P_b, j, H[j, k] * ud)
    elif nu == 1:
        e = f[s] - column_dot6(H, 0, z_b)
        eps[s] = e
        za = add_scaled6(za, U, 0, D_inv_b[0, 0] * (e - column_dot6(U, 0, cor)))
    elif nu > 0:
        for k in range(nu):
            eps[s + k] = f[s + k] - column_dot6(H, k, z_b)
        for l in range(nu):
            g[l] = eps[s + l] - column_dot6(U, l, cor)
        for k in range(nu):
            acc = 0.0
            for l in range(nu):
                acc += D_inv_b[k, l] * g[l]
            za = add_scaled6(za, U, k, acc)
    return za


@inline
def _solve_forward_step(s, nu, known_b, H, D_inv_b, U, A_P, r, cor, eps, udot, g):
    """Body b's udot (unless ``known_b``) and spatial acceleration about Bo, in Ground,
    from its parent's A_P: a = A_P shifted by r plus c, then udot = D^-1 (eps - U^T a)
    and A = a + H udot. ``g`` is scratch of at least nu entries."""
    A = add6(shift_motion(A_P, r), cor)
    if known_b:
        A = add_h_times(A, H, nu, udot, s)
    elif nu == 1:
        ud = D_inv_b[0, 0] * (eps[s] - column_dot6(U, 0, A))
        udot[s] = ud
        A = add_scaled6(A, H, 0, ud)
    elif nu > 0:
        for l in range(nu):
            g[l] = eps[s + l] - column_dot6(U, l, A)
        for k in range(nu):
            acc = 0.0
            for l in range(nu):
                acc += D_inv_b[k, l] * g[l]
            udot[s + k] = acc
        A = add_h_times(A, H, nu, udot, s)
    return A


@inline
def _backward_step_one(s, H, P_b, D_inv_b, U, cor, z_b, f, eps):
    """``_solve_backward_step`` for a free mobilizer with one mobility (D^-1 the scalar
    ``D_inv_b``): the same products summed in the same order."""
    e = f[s] - column_dot6(H, 0, z_b)
    eps[s] = e
    za = add6(z_b, mat6_vec(P_b, cor))
    return add_scaled6(za, U, 0, D_inv_b * (e - column_dot6(U, 0, cor)))


@inline
def _forward_step_one(s, H, D_inv_b, U, A_P, r, cor, eps, udot):
    """``_solve_forward_step`` for a free mobilizer with one mobility (D^-1 the scalar
    ``D_inv_b``): the same products summed in the same order."""
    A = add6(shift_motion(A_P, r), cor)
    ud = D_inv_b * (eps[s] - column_dot6(U, 0, A))
    udot[s] = ud
    return add_scaled6(A, H, 0, ud)


@inline
def _backward_step_three(s, H, P_b, D_inv_b, U, cor, z_b, f, eps):
    """``_solve_backward_step`` for a free mobilizer with three mobilities, unrolled: the
    same products summed in the same order."""
    za = add6(z_b, mat6_vec(P_b, cor))
    e0 = f[s] - column_dot6(H, 0, z_b)
    e1 = f[s + 1] - column_dot6(H, 1, z_b)
    e2 = f[s + 2] - column_dot6(H, 2, z_b)
    eps[s], eps[s + 1], eps[s + 2] = e0, e1, e2
    g0 = e0 - column_dot6(U, 0, cor)
    g1 = e1 - column_dot6(U, 1, cor)
    g2 = e2 - column_dot6(U, 2, cor)
    D = D_inv_b
    za = add_scaled6(za, U, 0, ((0.0 + D[0, 0] * g0) + D[0, 1] * g1) + D[0, 2] * g2)
    za = add_scaled6(za, U, 1, ((0.0 + D[1, 0] * g0) + D[1, 1] * g1) + D[1, 2] * g2)
    za = add_scaled6(za, U, 2, ((0.0 + D[2, 0] * g0) + D[2, 1] * g1) + D[2, 2] * g2)
    return za


@inline
def _forward_step_three(s, H, D_inv_b, U, A_P, r, cor, eps, udot):
    """``_solve_forward_step`` for a free mobilizer with three mobilities, unrolled: the
    same products summed in the same order."""
    A = add6(shift_motion(A_P, r), cor)
    g0 = eps[s] - column_dot6(U, 0, A)
    g1 = eps[s + 1] - column_dot6(U, 1, A)
    g2 = eps[s + 2] - column_dot6(U, 2, A)
    D = D_inv_b
    u0 = ((0.0 + D[0, 0] * g0) + D[0, 1] * g1) + D[0, 2] * g2
    u1 = ((0.0 + D[1, 0] * g0) + D[1, 1] * g1) + D[1, 2] * g2
    u2 = ((0.0 + D[2, 0] * g0) + D[2, 1] * g1) + D[2, 2] * g2
    udot[s], udot[s + 1], udot[s + 2] = u0, u1, u2
    A = add_scaled6(A, H, 0, u0)
    A = add_scaled6(A, H, 1, u1)
    return add_scaled6(A, H, 2, u2)


@fma_kernel_jit
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
    (zeros for ``coriolis``/``bias_force`` give udot = M^-1 f): a backward step per body,
    tip to base, accumulating the articulated forces ``z`` (nb, 6), then a forward step
    per body, base to tip. ``z`` and ``eps`` (nu,) are scratch. For bodies with
    ``known[b]`` != 0 (inertias from ``articulated_inertias`` with the same ``known``)
    udot is an input, used as given; mobility forces of those bodies are not read."""
    nb = parent.shape[0]
    for b in range(nb):
        for i in range(6):
            z[b, i] = bias_force[b, i] - body_forces[b, i]
    # A body's last child to be reached tip to base is the one numbered right after it, if
    # any (children are numbered after their parent): when b's parent is b - 1, b's force
    # shifted to it is kept in registers (``carried``) and added to z[b - 1] on the next
    # step, in the same order as through memory.
    carried, carried_to = _ZERO6, -1
    for b in range(nb - 1, 0, -1):
        z_b = load6(z[b])
        if carried_to == b:
            z_b = add6(z_b, carried)
        nu = nus[b]
        if nu == 1 and known[b] == 0:  # Pin, Slider, Screw...
            za = _backward_step_one(
                us[b], H_G[b], P_abi[b], D_inv[b, 0, 0], U_cols[b], load6(coriolis[b]), z_b,
                mobility_forces, eps,
            )  # fmt: skip
        elif nu == 3 and known[b] == 0:  # Ball, Gimbal, Translation...
            za = _backward_step_three(
                us[b], H_G[b], P_abi[b], D_inv[b], U_cols[b], load6(coriolis[b]),
                z_b, mobility_forces, eps,
            )  # fmt: skip
        else:
            za = _solve_backward_step(
                us[b], nu, known[b] != 0, H_G[b], P_abi[b], D_inv[b], U_cols[b],
                load6(coriolis[b]), z_b, mobility_forces, udot, eps,
                A_GB[b],  # scratch: the forward steps write A_GB[b] afterwards
            )  # fmt: skip
        P = parent[b]
        F_P = shift_force(za, row_sub(p_GB, b, p_GB, P))
        if P == b - 1:
            carried, carried_to = F_P, P
        else:
            accumulate6(z[P], F_P)
    A_GB[0, :] = 0.0
    A = _ZERO6  # (body b - 1's acceleration, in registers for a chain)
    for b in range(1, nb):
        P = parent[b]
        A_P = _parent_row(A_GB, P, b, A)
        nu = nus[b]
        if nu == 1 and known[b] == 0:
            A = _forward_step_one(
                us[b], H_G[b], D_inv[b, 0, 0], U_cols[b], A_P, row_sub(p_GB, b, p_GB, P),
                load6(coriolis[b]), eps, udot,
            )  # fmt: skip
        elif nu == 3 and known[b] == 0:
            A = _forward_step_three(
                us[b], H_G[b], D_inv[b], U_cols[b], A_P,
                row_sub(p_GB, b, p_GB, P), load6(coriolis[b]), eps, udot,
            )  # fmt: skip
        else:
            A = _solve_forward_step(
                us[b], nu, known[b] != 0, H_G[b], D_inv[b], U_cols[b], A_P,
                row_sub(p_GB, b, p_GB, P), load6(coriolis[b]), eps, udot,
                A_GB[b],  # scratch until A is stored in it
            )  # fmt: skip
        store6(A_GB[b], A)


# ------------------------------------- M^-1 f: the solve with no motion terms
@inline
def _inverse_backward_step(s, nu, H, D_inv_b, U, z_b, f, out, g):
    """Body b's articulated force about Bo, in Ground, before the shift to its parent,
    when there are no velocity terms and no body forces: z_b + U D^-1 eps with
    eps = f_b - H^T z_b, which is left in ``out[s:s+nu]`` for the forward step. ``g``
    is scratch of at least nu entries."""
    if nu == 1:
        e = f[s] - column_dot6(H, 0, z_b)
        out[s] = e
        return add_scaled6(z_b, U, 0, D_inv_b[0, 0] * e)
    if nu == 3:
        D = D_inv_b
        e0 = f[s] - column_dot6(H, 0, z_b)
        e1 = f[s + 1] - column_dot6(H, 1, z_b)
        e2 = f[s + 2] - column_dot6(H, 2, z_b)
        out[s], out[s + 1], out[s + 2] = e0, e1, e2
        za = add_scaled6(z_b, U, 0, ((0.0 + D[0, 0] * e0) + D[0, 1] * e1) + D[0, 2] * e2)
        za = add_scaled6(za, U, 1, ((0.0 + D[1, 0] * e0) + D[1, 1] * e1) + D[1, 2] * e2)
        return add_scaled6(za, U, 2, ((0.0 + D[2, 0] * e0) + D[2, 1] * e1) + D[2, 2] * e2)
    for k in range(nu):
        g[k] = out[s + k] = f[s + k] - column_dot6(H, k, z_b)
    za = z_b
    for k in range(nu):
        acc = 0.0
        for l in range(nu):
            acc += D_inv_b[k, l] * g[l]
        za = add_scaled6(za, U, k, acc)
    return za


@inline
def _inverse_forward_step(s, nu, H, D_inv_b, U, a, out, g):
    """Body b's part of M^-1 f and its spatial acceleration about Bo, in Ground, from
    ``a`` (its parent's shifted to Bo): udot_b = D^-1 (eps - U^T a) replaces eps in
    ``out[s:s+nu]``, and A = a + H udot_b is returned. ``g`` is scratch of at least nu
    entries."""
    if nu == 1:
        ud = D_inv_b[0, 0] * (out[s] - column_dot6(U, 0, a))
        out[s] = ud
        return add_scaled6(a, H, 0, ud)
    if nu == 3:
        D = D_inv_b
        g0 = out[s] - column_dot6(U, 0, a)
        g1 = out[s + 1] - column_dot6(U, 1, a)
        g2 = out[s + 2] - column_dot6(U, 2, a)
        u0 = ((0.0 + D[0, 0] * g0) + D[0, 1] * g1) + D[0, 2] * g2
        u1 = ((0.0 + D[1, 0] * g0) + D[1, 1] * g1) + D[1, 2] * g2
        u2 = ((0.0 + D[2, 0] * g0) + D[2, 1] * g1) + D[2, 2] * g2
        out[s], out[s + 1], out[s + 2] = u0, u1, u2
        return add_scaled6(add_scaled6(add_scaled6(a, H, 0, u0), H, 1, u1), H, 2, u2)
    for l in range(nu):
        g[l] = out[s + l] - column_dot6(U, l, a)
    for k in range(nu):
        acc = 0.0
        for l in range(nu):
            acc += D_inv_b[k, l] * g[l]
        out[s + k] = acc
    return add_h_times(a, H, nu, out, s)


@kernel_jit
def articulated_inverse_solve(parent, us, nus, H_G, p_GB, D_inv, U_cols, f, out, A, z, g):
    """out = M^-1 f from the articulated inertias' D^-1 and U: ``articulated_solve`` with
    no velocity terms and no body forces (and no known udot: a body whose D^-1 and U are
    0, as ``articulated_inertias`` leaves a known one, gets 0, so with prescribed motion
    this is M_ff^-1 with 0 in the prescribed entries). A backward step per body, tip to
    base, accumulating the articulated forces ``z`` (nb, 6), then a forward step per
    body, base to tip, keeping the accelerations in ``A`` (nb, 6); ``g`` is scratch of
    at least max(nus) entries. ``f`` and ``out`` may not be the same array."""
    nb = parent.shape[0]
    for b in range(nb):
        for i in range(6):
            z[b, i] = 0.0
    for b in range(nb - 1, 0, -1):
        s, nu = us[b], nus[b]
        za = _inverse_backward_step(s, nu, H_G[b], D_inv[b], U_cols[b], load6(z[b]), f, out, g)
        P = parent[b]
        accumulate6(z[P], shift_force(za, row_sub(p_GB, b, p_GB, P)))
    for i in range(6):
        A[0, i] = 0.0
    for b in range(1, nb):
        P = parent[b]
        a = shift_motion(load6(A[P]), row_sub(p_GB, b, p_GB, P))
        store6(A[b], _inverse_forward_step(us[b], nus[b], H_G[b], D_inv[b], U_cols[b], a, out, g))


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
