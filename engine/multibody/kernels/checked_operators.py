"""The matter subsystem's O(n) operators called from Python at the cost of a few arrays.

``multiplyByMInv``, ``multiplyByM``, ``calcM``, ``calcSystemJacobian``,
``multiplyBySystemJacobian`` and ``multiplyBySystemJacobianTranspose`` do little work on a
small tree, so unboxing a kernel's dozen arrays and resolving its argument types on every
call would cost more than the work. Each kernel here takes the State's arrays from its
kernel table (``engine.multibody.kernels.layout``, built once per State), the caller's
input and the output, checks the input for non-finite values itself (status 1, nothing
computed) and then runs the kernel of ``stage_kernels``, ``composite_body`` or the system
Jacobian products. ``entry(name)`` gives each one's compiled entry point for its
signature in ``SIGNATURES`` (skipping the dispatcher's per-call type resolution); the
caller passes arrays of exactly those types. Spatial vectors are rows [angular, linear]
about each body origin Bo, in Ground.
"""

from __future__ import annotations

import functools
import math

from numba import float64, int64, njit, types

from engine.common.numba_internals import (
    f1,
    f2,
    f3,
    i1,
    kernel_jit,
    runtime_jit,
    signature_entry_point,
)
from engine.multibody.kernels import checked_residual
from engine.multibody.kernels.composite_body import calc_composite_inertias, calc_mass_matrix
from engine.multibody.kernels.layout import SLOT
from engine.multibody.kernels.spatial_inline import (
    accumulate6,
    add_h_times,
    column_dot6,
    load3,
    load6,
    mat6_vec,
    shift_force,
    shift_motion,
    store6,
    sub3,
)
from engine.multibody.kernels.stage_kernels import (
    articulated_inertias,
    articulated_inverse_solve,
    system_jacobian,
)

_TABLE = (types.Array(int64, 1, "C"), types.Array(int64, 2, "C"))
_VEC_IN = types.Array(float64, 1, "A")
_VEC_OUT = types.Array(float64, 1, "C")
_MAT_OUT = types.Array(float64, 2, "C")

#: The types each kernel's entry point takes, by kernel name.
SIGNATURES = {
    "m_inverse_times": (*_TABLE, types.boolean, _VEC_IN, _VEC_OUT),
    "m_times": (*_TABLE, _VEC_IN, _VEC_OUT),
    "mass_matrix": (*_TABLE, types.boolean, types.Array(float64, 3, "C"), _MAT_OUT),
    "jacobian": (*_TABLE, _MAT_OUT),
    "jacobian_times": (*_TABLE, _VEC_IN, types.Array(float64, 3, "C")),
    "jacobian_transpose_times": (*_TABLE, types.Array(float64, 3, "A"), _VEC_OUT),
    "residual": checked_residual.SIGNATURE,
}


@njit(cache=True, nogil=True, inline="always")
def _finite(v) -> bool:
    for i in range(v.shape[0]):
        if not math.isfinite(v[i]):
            return False
    return True


@kernel_jit
def m_inverse_times(a, s, with_inertias, v, out):
    """out = M^-1 v by the articulated-body method, first computing the articulated
    inertias (P_abi, D_inv, U_cols) if ``with_inertias``; bodies marked ``known`` get 0
    (M_ff^-1 on the free mobilities). 1 (nothing done) if v holds a NaN or infinity,
    else 0."""
    if not _finite(v):
        return 1
    parent, us, nus = i1(a, s, SLOT.parent), i1(a, s, SLOT.us), i1(a, s, SLOT.nus)
    known, H_G, p_GB = i1(a, s, SLOT.known), f3(a, s, SLOT.H_G), f2(a, s, SLOT.p_GB)
    P_abi, D_inv, U_cols = f3(a, s, SLOT.P_abi), f3(a, s, SLOT.D_inv), f3(a, s, SLOT.U_cols)
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
    articulated_inverse_solve(
        parent,
        us,
        nus,
        H_G,
        p_GB,
        D_inv,
        U_cols,
        v,
        out,
        f2(a, s, SLOT.A),
        f2(a, s, SLOT.z),
        f1(a, s, SLOT.eps),
    )
    return 0


@kernel_jit
def m_times(a, s, v, out):
    """out = M v: the Newton-Euler recursion with no velocity terms and no forces. Base
    to tip each body's spatial acceleration A_b = A_P shifted to Bo + H_b v_b and its
    inertial force F_b = Phi_b A_b; tip to base out_b = H_b^T F_b and F_b shifted to the
    parent's origin is added to F_P. 1 (nothing done) if v holds a NaN or infinity,
    else 0."""
    if not _finite(v):
        return 1
    parent, us, nus = i1(a, s, SLOT.parent), i1(a, s, SLOT.us), i1(a, s, SLOT.nus)
    H_G, p_GB, Phi_G = f3(a, s, SLOT.H_G), f2(a, s, SLOT.p_GB), f3(a, s, SLOT.Phi_G)
    A, F = f2(a, s, SLOT.A), f2(a, s, SLOT.F)
    for i in range(6):
        A[0, i] = 0.0
        F[0, i] = 0.0
    nb = parent.shape[0]
    for b in range(1, nb):
        r = sub3(load3(p_GB[b]), load3(p_GB[parent[b]]))
        A_b = add_h_times(shift_motion(load6(A[parent[b]]), r), H_G[b], nus[b], v, us[b])
        store6(A[b], A_b)
        store6(F[b], mat6_vec(Phi_G[b], A_b))
    for b in range(nb - 1, 0, -1):
        F_b, H, first = load6(F[b]), H_G[b], us[b]
        for k in range(nus[b]):
            out[first + k] = column_dot6(H, k, F_b)
        r = sub3(load3(p_GB[b]), load3(p_GB[parent[b]]))
        accumulate6(F[parent[b]], shift_force(F_b, r))
    return 0


@runtime_jit  # (calc_composite_inertias allocates its 6x6 scratch)
def mass_matrix(a, s, with_composites, R_cbi, M):
    """M (nu x nu, zeroed here) from the composite body inertias R_cbi (nb, 6, 6),
    computed first if ``with_composites``. Returns 0."""
    parent, p_GB = i1(a, s, SLOT.parent), f2(a, s, SLOT.p_GB)
    if with_composites:
        calc_composite_inertias(parent, p_GB, f3(a, s, SLOT.Phi_G), R_cbi)
    M[:, :] = 0.0
    calc_mass_matrix(
        parent, i1(a, s, SLOT.us), i1(a, s, SLOT.nus), f3(a, s, SLOT.H_G), p_GB, R_cbi, M
    )
    return 0


@kernel_jit
def jacobian(a, s, J):
    """J (6 nb x nu): the system Jacobian, rows [w; v] per body about Bo in G. Returns 0."""
    system_jacobian(
        i1(a, s, SLOT.parent),
        i1(a, s, SLOT.us),
        i1(a, s, SLOT.nus),
        f3(a, s, SLOT.H_G),
        f2(a, s, SLOT.p_GB),
        J,
    )
    return 0


@kernel_jit
def jacobian_times(a, s, u, V_out):
    """V_out (nb, 2, 3) = J u: each body's spatial velocity (at Bo, in G) for speeds u,
    base to tip. 1 (nothing done) if u holds a NaN or infinity, else 0."""
    if not _finite(u):
        return 1
    V = V_out.reshape(V_out.shape[0], 6)
    parent, us, nus = i1(a, s, SLOT.parent), i1(a, s, SLOT.us), i1(a, s, SLOT.nus)
    H_G, p_GB = f3(a, s, SLOT.H_G), f2(a, s, SLOT.p_GB)
    for i in range(6):
        V[0, i] = 0.0
    for b in range(1, parent.shape[0]):
        P = parent[b]
        r0 = p_GB[b, 0] - p_GB[P, 0]
        r1 = p_GB[b, 1] - p_GB[P, 1]
        r2 = p_GB[b, 2] - p_GB[P, 2]
        VP, Vb = V[P], V[b]
        Vb[0], Vb[1], Vb[2] = VP[0], VP[1], VP[2]
        Vb[3] = VP[3] + VP[1] * r2 - VP[2] * r1
        Vb[4] = VP[4] + VP[2] * r0 - VP[0] * r2
        Vb[5] = VP[5] + VP[0] * r1 - VP[1] * r0
        H, first = H_G[b], us[b]
        for j in range(nus[b]):
            x = u[first + j]
            for i in range(6):
                Vb[i] += H[i, j] * x
    return 0


@kernel_jit
def jacobian_transpose_times(a, s, F_in, f):
    """f = J^T F: the generalized forces of body forces F (nb, 2, 3) at Bo in G, tip to
    base. 1 (nothing done) if F holds a NaN or infinity, else 0."""
    nb = F_in.shape[0]
    F = f2(a, s, SLOT.F)  # accumulates the forces of each subtree
    for b in range(nb):
        for j in range(2):
            for k in range(3):
                x = F_in[b, j, k]
                if not math.isfinite(x):
                    return 1
                F[b, 3 * j + k] = x
    parent, us, nus = i1(a, s, SLOT.parent), i1(a, s, SLOT.us), i1(a, s, SLOT.nus)
    H_G, p_GB = f3(a, s, SLOT.H_G), f2(a, s, SLOT.p_GB)
    for b in range(nb - 1, 0, -1):
        Fb, H, first = F[b], H_G[b], us[b]
        for j in range(nus[b]):
            acc = 0.0
            for i in range(6):
                acc += H[i, j] * Fb[i]
            f[first + j] = acc
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
    return 0


_KERNELS = {
    "m_inverse_times": m_inverse_times,
    "m_times": m_times,
    "mass_matrix": mass_matrix,
    "jacobian": jacobian,
    "jacobian_times": jacobian_times,
    "jacobian_transpose_times": jacobian_transpose_times,
    "residual": checked_residual.residual_forces_from_table,
}


@functools.cache
def entry(name: str):
    """The compiled entry point of the kernel ``name`` for ``SIGNATURES[name]`` (from
    numba's cache when it is there), or the kernel itself when numba runs pure Python
    (NUMBA_DISABLE_JIT; the table's accessors then give numpy views of its arrays).
    Looked up once."""
    return signature_entry_point(_KERNELS[name], SIGNATURES[name])


class _EntryPoints:
    """``entry(name)`` for each kernel as an attribute (``ENTRY.m_times``), looked up on
    first use and then read like any attribute: an operator called millions of times
    pays one attribute read for its kernel."""

    __slots__ = tuple(_KERNELS)

    def __getattr__(self, name: str):
        if name not in _KERNELS:
            raise AttributeError(name)
        fn = entry(name)
        setattr(self, name, fn)
        return fn


#: The kernels' entry points by name (see _EntryPoints).
ENTRY = _EntryPoints()
