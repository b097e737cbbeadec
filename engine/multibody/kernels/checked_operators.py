"""The matter subsystem's O(n) operators called from Python at the cost of a few arrays.

``multiplyByMInv``, ``multiplyByM``, ``calcM``, ``calcSystemJacobian``,
``multiplyBySystemJacobian`` and ``multiplyBySystemJacobianTranspose`` do little work on a
small tree, so unboxing a kernel's dozen arrays and resolving its argument types on every
call would cost more than the work. Each kernel here takes the State's arrays from its
kernel table (``engine.multibody.kernels.layout``, built once per State: given as its
shapes ``s``, whose last row leads to its addresses ``a``), the caller's input and the
output, checks first that the State still qualifies
(``operator_check.stale``: status STALE), then the input's length and values (statuses
WRONG_LENGTH and NOT_FINITE), nothing computed on a refusal, and then runs its recursion,
built from the per-body steps here and in ``stage_kernels`` and ``composite_body``.
``m_inverse_times`` itself has no check (the constraint kernels call it on a State being
realized); its operator calls ``checked_m_inverse_times``. The O(n) kernels keep the GIL
(``short_kernel_jit``: releasing it would cost a quarter of a small tree's product).
``entry(name)`` gives each one's compiled entry point for its signature in
``SIGNATURES`` (skipping the dispatcher's per-call type resolution). An entry point
refuses with TypeError, before anything is read, a caller's input that is not an ndarray
of the kernel's number of dimensions and dtype float64 (``checked_float64_array``), and an
output (the operator's own new array, or the caller's ``out``) that is not besides
C-contiguous and writable (``checked_output_array``); the table, which the operators make
themselves, is passed as exactly the declared type (which the entry point does not check);
the kernel checks the lengths and that the output does not overlap the input (OVERLAP).
Spatial vectors are rows [angular, linear] about each body origin Bo, in Ground.
"""

from __future__ import annotations

import functools
import math

from numba import float64, int64, njit, types

from engine.common.numba_internals import (
    checked_float64_array,
    checked_output_array,
    f1,
    f2,
    f3,
    i1,
    kernel_jit,
    may_overlap,
    rows,
    runtime_jit,
    short_fma_kernel_jit,
    short_kernel_jit,
    signature_entry_point,
    table_addresses,
)
from engine.multibody.kernels import checked_residual
from engine.multibody.kernels.composite_body import calc_composite_inertias, calc_mass_matrix
from engine.multibody.kernels.layout import SLOT
from engine.multibody.kernels.operator_check import SEEN_POSITION, STALE, stale
from engine.multibody.kernels.spatial_inline import (
    accumulate6,
    add_h_times,
    add_scaled6,
    column_dot6,
    inline,
    load6,
    mat6_vec,
    row_sub,
    shift_force,
    shift_motion,
    store6,
)
from engine.multibody.kernels.stage_kernels import (
    articulated_inertias,
    articulated_inverse_solve,
    system_jacobian,
)

#: the kernels' statuses besides 0 (done) and STALE (operator_check): an input holding a
#: NaN or infinity, an input or output of the wrong length or shape, an output whose
#: memory overlaps the input's (``may_overlap``); nothing is computed then
NOT_FINITE, WRONG_LENGTH, OVERLAP = 1, 2, 3

#: the zero spatial vector (Ground's motion)
_ZERO6 = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)

_TABLE = (types.Array(int64, 2, "C"),)
_VEC_IN = checked_float64_array(1)
_VEC_OUT = checked_output_array(1)
_MAT_OUT = checked_output_array(2)

#: The types each kernel's entry point takes, by kernel name.
SIGNATURES = {
    "m_inverse_times": (*_TABLE, types.boolean, _VEC_IN, _VEC_OUT),
    "m_times": (*_TABLE, _VEC_IN, _VEC_OUT),
    "mass_matrix": (*_TABLE, types.boolean, types.Array(float64, 3, "C"), _MAT_OUT),
    "jacobian": (*_TABLE, _MAT_OUT),
    "jacobian_times": (*_TABLE, _VEC_IN, checked_output_array(3)),
    "jacobian_transpose_times": (*_TABLE, checked_float64_array(3), _VEC_OUT),
    "residual": checked_residual.SIGNATURE,
}


@njit(cache=True, nogil=True, inline="always")
def _finite(v) -> bool:
    finite = True
    for i in range(v.shape[0]):
        finite &= math.isfinite(v[i])
    return finite


@kernel_jit
def m_inverse_times(a, s, with_inertias, v, out):
    """out = M^-1 v by the articulated-body method, first computing the articulated
    inertias (P_abi, D_inv, U_cols) if ``with_inertias``; bodies marked ``known`` get 0
    (M_ff^-1 on the free mobilities). WRONG_LENGTH if v and out differ in length,
    NOT_FINITE if v holds a NaN or infinity (nothing done then), else 0."""
    if v.shape[0] != out.shape[0]:
        return WRONG_LENGTH
    if not _finite(v):
        return NOT_FINITE
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


@short_kernel_jit
def checked_m_inverse_times(s, with_inertias, v, out):
    """``m_inverse_times`` after the operators' check: STALE (nothing done) if the State
    must be checked again (``operator_check.stale``), WRONG_LENGTH if out is not nu long,
    OVERLAP if v and out overlap, else its status."""
    a = table_addresses(s)
    if stale(a, s, SEEN_POSITION):
        return STALE
    if out.shape[0] != s[SLOT.u, 0]:
        return WRONG_LENGTH
    if may_overlap(v, out):
        return OVERLAP
    return m_inverse_times(a, s, with_inertias, v, out)


@inline
def _motion_step(A_P, r, H, nu, x, s):
    """A body's spatial motion (velocity or acceleration, at Bo, in G) from its parent's
    A_P: A_P shifted by r (from the parent's origin to Bo) plus H x[s:s+nu], with no
    velocity terms. The columns of H are added in order; for one, three and six mobilities
    (Pin, Ball, Free and their kin) the additions are written out, with no loop, so that
    they compile to straight-line code."""
    a = shift_motion(A_P, r)
    if nu == 1:
        return add_scaled6(a, H, 0, x[s])
    if nu == 3:
        a = add_scaled6(a, H, 0, x[s])
        a = add_scaled6(a, H, 1, x[s + 1])
        return add_scaled6(a, H, 2, x[s + 2])
    if nu == 6:
        a = add_scaled6(a, H, 0, x[s])
        a = add_scaled6(a, H, 1, x[s + 1])
        a = add_scaled6(a, H, 2, x[s + 2])
        a = add_scaled6(a, H, 3, x[s + 3])
        a = add_scaled6(a, H, 4, x[s + 4])
        return add_scaled6(a, H, 5, x[s + 5])
    return add_h_times(a, H, nu, x, s)


@inline
def _parent_motion(A, P, b, A_previous):
    """The spatial motion of body b's parent P: ``A_previous`` (body b - 1's, still in
    registers) when b continues a chain, else row P of ``A``."""
    if P == b - 1:
        return A_previous
    return load6(A[P])


@inline
def _force_step(F, b, P, p_GB, H, nu, s, out):
    """Body b's generalized forces out[s:s+nu] = H_b^T F_b from its subtree's spatial
    force F_b (row b of ``F``, at Bo, in G), and F_b shifted to P's origin added to F_P."""
    F_b = load6(F[b])
    for k in range(nu):
        out[s + k] = column_dot6(H, k, F_b)
    accumulate6(F[P], shift_force(F_b, row_sub(p_GB, b, p_GB, P)))


@short_kernel_jit
def m_times(s, v, out):
    """out = M v: the Newton-Euler recursion with no velocity terms and no forces. Base
    to tip each body's spatial acceleration A_b = A_P shifted to Bo + H_b v_b and its
    inertial force F_b = Phi_b A_b; tip to base out_b = H_b^T F_b and F_b shifted to the
    parent's origin is added to F_P. STALE (operator_check), WRONG_LENGTH if v or out is
    not nu long, NOT_FINITE if v holds a NaN or infinity, OVERLAP if v and out overlap
    (nothing done then), else 0."""
    a = table_addresses(s)
    if stale(a, s, SEEN_POSITION):
        return STALE
    if v.shape[0] != s[SLOT.u, 0] or out.shape[0] != v.shape[0]:
        return WRONG_LENGTH
    if not _finite(v):
        return NOT_FINITE
    if may_overlap(v, out):
        return OVERLAP
    parent, us, nus = i1(a, s, SLOT.parent), i1(a, s, SLOT.us), i1(a, s, SLOT.nus)
    H_G, p_GB, Phi_G = f3(a, s, SLOT.H_G), f2(a, s, SLOT.p_GB), f3(a, s, SLOT.Phi_G)
    A, F = f2(a, s, SLOT.A), f2(a, s, SLOT.F)
    A_b = _ZERO6
    store6(A[0], A_b)
    store6(F[0], A_b)
    nb = parent.shape[0]
    for b in range(1, nb):
        P = parent[b]
        A_P = _parent_motion(A, P, b, A_b)
        A_b = _motion_step(A_P, row_sub(p_GB, b, p_GB, P), H_G[b], nus[b], v, us[b])
        store6(A[b], A_b)
        store6(F[b], mat6_vec(Phi_G[b], A_b))
    for b in range(nb - 1, 0, -1):
        _force_step(F, b, parent[b], p_GB, H_G[b], nus[b], us[b], out)
    return 0


@runtime_jit  # (calc_composite_inertias allocates its 6x6 scratch)
def mass_matrix(s, with_composites, R_cbi, M):
    """M (nu x nu, zeroed here) from the composite body inertias R_cbi (nb, 6, 6),
    computed first if ``with_composites``. Returns 0, STALE (operator_check) or
    WRONG_LENGTH if M is not nu x nu (nothing done then)."""
    a = table_addresses(s)
    if stale(a, s, SEEN_POSITION):
        return STALE
    nu = s[SLOT.u, 0]
    if M.shape[0] != nu or M.shape[1] != nu:
        return WRONG_LENGTH
    parent, p_GB = i1(a, s, SLOT.parent), f2(a, s, SLOT.p_GB)
    if with_composites:
        calc_composite_inertias(parent, p_GB, f3(a, s, SLOT.Phi_G), R_cbi)
    M[:, :] = 0.0
    calc_mass_matrix(
        parent, i1(a, s, SLOT.us), i1(a, s, SLOT.nus), f3(a, s, SLOT.H_G), p_GB, R_cbi, M
    )
    return 0


@kernel_jit
def jacobian(s, J):
    """J (6 nb x nu): the system Jacobian, rows [w; v] per body about Bo in G. Returns 0,
    STALE (operator_check) or WRONG_LENGTH if J is not 6 nb x nu (nothing done then)."""
    a = table_addresses(s)
    if stale(a, s, SEEN_POSITION):
        return STALE
    if J.shape[0] != 6 * s[SLOT.parent, 0] or J.shape[1] != s[SLOT.u, 0]:
        return WRONG_LENGTH
    system_jacobian(
        i1(a, s, SLOT.parent),
        i1(a, s, SLOT.us),
        i1(a, s, SLOT.nus),
        f3(a, s, SLOT.H_G),
        f2(a, s, SLOT.p_GB),
        J,
    )
    return 0


@short_fma_kernel_jit
def jacobian_times(s, u, V_out):
    """V_out (nb, 2, 3) = J u: each body's spatial velocity (at Bo, in G) for speeds u,
    base to tip. STALE (operator_check), WRONG_LENGTH if u or V_out has the wrong shape,
    NOT_FINITE if u holds a NaN or infinity, OVERLAP if u and V_out overlap (nothing done
    then), else 0."""
    a = table_addresses(s)
    if stale(a, s, SEEN_POSITION):
        return STALE
    parent, us, nus = i1(a, s, SLOT.parent), i1(a, s, SLOT.us), i1(a, s, SLOT.nus)
    nb = parent.shape[0]
    if u.shape[0] != s[SLOT.u, 0]:
        return WRONG_LENGTH
    if V_out.shape[0] != nb or V_out.shape[1] != 2 or V_out.shape[2] != 3:
        return WRONG_LENGTH
    if not _finite(u):
        return NOT_FINITE
    if may_overlap(u, V_out):
        return OVERLAP
    V = rows(V_out)
    H_G, p_GB = f3(a, s, SLOT.H_G), f2(a, s, SLOT.p_GB)
    V_b = _ZERO6
    store6(V[0], V_b)
    for b in range(1, nb):
        P = parent[b]
        V_P = _parent_motion(V, P, b, V_b)
        V_b = _motion_step(V_P, row_sub(p_GB, b, p_GB, P), H_G[b], nus[b], u, us[b])
        store6(V[b], V_b)
    return 0


@short_kernel_jit
def jacobian_transpose_times(s, F_in, f):
    """f = J^T F: the generalized forces of body forces F (nb, 2, 3) at Bo in G, tip to
    base. STALE (operator_check), WRONG_LENGTH if F is not (nb, 2, 3) or f has the wrong
    length, NOT_FINITE if F holds a NaN or infinity, OVERLAP if F and f overlap (nothing
    done then), else 0."""
    a = table_addresses(s)
    if stale(a, s, SEEN_POSITION):
        return STALE
    parent, us, nus = i1(a, s, SLOT.parent), i1(a, s, SLOT.us), i1(a, s, SLOT.nus)
    nb = parent.shape[0]
    if F_in.shape[0] != nb or F_in.shape[1] != 2 or F_in.shape[2] != 3:
        return WRONG_LENGTH
    if f.shape[0] != s[SLOT.u, 0]:
        return WRONG_LENGTH
    if may_overlap(F_in, f):
        return OVERLAP
    F = f2(a, s, SLOT.F)  # accumulates the forces of each subtree
    for b in range(nb):
        for j in range(2):
            for k in range(3):
                x = F_in[b, j, k]
                if not math.isfinite(x):
                    return NOT_FINITE
                F[b, 3 * j + k] = x
    H_G, p_GB = f3(a, s, SLOT.H_G), f2(a, s, SLOT.p_GB)
    for b in range(nb - 1, 0, -1):
        _force_step(F, b, parent[b], p_GB, H_G[b], nus[b], us[b], f)
    return 0


_KERNELS = {
    "m_inverse_times": checked_m_inverse_times,
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
    """``entry(name)`` for each kernel as an attribute (``ENTRY.m_times``): an instance
    attribute (the cheapest read: no class attribute of the same name, no ``__getattr__``,
    either of which would slow every read), at first a function that loads the entry point
    on its first call (compiled, or read from numba's cache), puts it in its place and
    calls it."""

    def __init__(self) -> None:
        for name in _KERNELS:
            setattr(self, name, self._loader(name))

    def _loader(self, name: str):
        def load_and_call(*args):
            fn = entry(name)
            setattr(self, name, fn)
            return fn(*args)

        return load_and_call


#: The kernels' entry points by name (see _EntryPoints).
ENTRY = _EntryPoints()
