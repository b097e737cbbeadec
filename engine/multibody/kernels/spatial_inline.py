"""Spatial algebra on tuples, inlined into the kernels that call it.

The tree recursions (``stage_kernels``) are written with these helpers: 3-vectors and
spatial vectors are tuples of floats (a spatial vector is ``(w0, w1, w2, v0, v1, v2)``,
[angular, linear], about a body origin, in Ground), matrices stay arrays. Every helper is
compiled ``inline="always"``: numba substitutes its body at the call site, so a kernel
built from them compiles to the same scalar code as one written out by hand, with no
array allocated and nothing passed through memory.

Each helper evaluates its sums in the order written in its docstring (for example
``frame_point`` is ``p + R[:, 0] x0 + R[:, 1] x1 + R[:, 2] x2`` summed from the left, the
six-term products ``column_dot6``, ``row_dot6`` and ``mat6_vec`` in pairs), so a kernel's
rounding is fixed by the helpers it calls (in a kernel compiled with ``fma_kernel_jit`` a
product and the sum that uses it may also be one FMA, rounded once).

Shifts use r = p_GC - p_GP, the vector from a parent's origin to its child's, in Ground:

* ``shift_motion(V_P, r)``: the parent's spatial velocity (or acceleration) at the child's
  origin, ``[w; v + w x r]``;
* ``shift_force(F_C, r)``: a spatial force at the child's origin moved to the parent's,
  ``[t + r x f; f]``.
"""

from __future__ import annotations

from numba import njit

inline = njit(cache=True, nogil=True, inline="always")


# ----------------------------------------------------------------- 3-vectors
@inline
def load3(x):
    """x[0:3] as a tuple."""
    return x[0], x[1], x[2]


@inline
def store3(out, v):
    """out[0:3] = v."""
    out[0], out[1], out[2] = v[0], v[1], v[2]


@inline
def add3(a, b):
    """a + b."""
    return a[0] + b[0], a[1] + b[1], a[2] + b[2]


@inline
def sub3(a, b):
    """a - b."""
    return a[0] - b[0], a[1] - b[1], a[2] - b[2]


@inline
def scale3(c, a):
    """c a for a scalar c."""
    return c * a[0], c * a[1], c * a[2]


@inline
def dot3(a, b):
    """a . b = a0 b0 + a1 b1 + a2 b2."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@inline
def cross3(a, b):
    """a x b."""
    return a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]


@inline
def column3(M, i, k):
    """M[i:i+3, k] as a tuple (the angular (i = 0) or linear (i = 3) half of a column)."""
    return M[i, k], M[i + 1, k], M[i + 2, k]


@inline
def row_sub(x, i, y, j):
    """x[i, 0:3] - y[j, 0:3] (rows of two (n, 3) arrays, e.g. origins r = p_GB[b] - p_GB[P])."""
    return x[i, 0] - y[j, 0], x[i, 1] - y[j, 1], x[i, 2] - y[j, 2]


# ----------------------------------------------------------------- 3 x 3 matrices
@inline
def mat33_vec(R, x):
    """R[0:3, 0:3] x, each row summed from column 0."""
    return (
        R[0, 0] * x[0] + R[0, 1] * x[1] + R[0, 2] * x[2],
        R[1, 0] * x[0] + R[1, 1] * x[1] + R[1, 2] * x[2],
        R[2, 0] * x[0] + R[2, 1] * x[1] + R[2, 2] * x[2],
    )


@inline
def frame_point(p, R, x):
    """p + R x summed from the left: the point x given in a frame with origin p and
    orientation R, in the outer frame."""
    return (
        p[0] + R[0, 0] * x[0] + R[0, 1] * x[1] + R[0, 2] * x[2],
        p[1] + R[1, 0] * x[0] + R[1, 1] * x[1] + R[1, 2] * x[2],
        p[2] + R[2, 0] * x[0] + R[2, 1] * x[1] + R[2, 2] * x[2],
    )


@inline
def mat33_mul(A, B, out):
    """out[0:3, 0:3] = A B (out must not alias A or B)."""
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]


@inline
def mat33_mul_transpose(A, B, out):
    """out[0:3, 0:3] = A B^T (out must not alias A or B)."""
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[j, 0] + A[i, 1] * B[j, 1] + A[i, 2] * B[j, 2]


# ----------------------------------------------------------------- spatial vectors
@inline
def load6(x):
    """x[0:6] as a tuple."""
    return x[0], x[1], x[2], x[3], x[4], x[5]


@inline
def store6(out, v):
    """out[0:6] = v."""
    out[0], out[1], out[2], out[3], out[4], out[5] = v[0], v[1], v[2], v[3], v[4], v[5]


@inline
def store_column6(M, k, v):
    """M[0:6, k] = v."""
    M[0, k], M[1, k], M[2, k], M[3, k], M[4, k], M[5, k] = v[0], v[1], v[2], v[3], v[4], v[5]


@inline
def accumulate6(out, v):
    """out[0:6] += v."""
    out[0] += v[0]
    out[1] += v[1]
    out[2] += v[2]
    out[3] += v[3]
    out[4] += v[4]
    out[5] += v[5]


@inline
def join6(w, v):
    """The spatial vector [w; v] of two 3-vectors."""
    return w[0], w[1], w[2], v[0], v[1], v[2]


@inline
def add6(a, b):
    """a + b."""
    return a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5]


@inline
def add_scaled6(a, M, k, c):
    """a + M[0:6, k] c: a plus column k of a 6-row matrix times the scalar c."""
    return (
        a[0] + M[0, k] * c,
        a[1] + M[1, k] * c,
        a[2] + M[2, k] * c,
        a[3] + M[3, k] * c,
        a[4] + M[4, k] * c,
        a[5] + M[5, k] * c,
    )


@inline
def column6(M, k):
    """M[0:6, k] as a tuple (a column of H or U)."""
    return M[0, k], M[1, k], M[2, k], M[3, k], M[4, k], M[5, k]


@inline
def column_dot6(M, k, x):
    """M[0:6, k] . x, summed in pairs ((0 + 1) + (2 + 3)) + (4 + 5): a column of H or U
    (6 x nu) against a spatial vector (H^T F for one mobility). Pairwise, the sum's
    dependency chain is half as long as one summed from row 0, which is what bounds a
    tree recursion's speed (each body waits for its child's or parent's result)."""
    return ((M[0, k] * x[0] + M[1, k] * x[1]) + (M[2, k] * x[2] + M[3, k] * x[3])) + (
        M[4, k] * x[4] + M[5, k] * x[5]
    )


@inline
def row_dot6(M, i, x):
    """M[i, 0:6] . x, summed in pairs as ``column_dot6``."""
    return ((M[i, 0] * x[0] + M[i, 1] * x[1]) + (M[i, 2] * x[2] + M[i, 3] * x[3])) + (
        M[i, 4] * x[4] + M[i, 5] * x[5]
    )


@inline
def mat6_vec(M, x):
    """M[0:6, 0:6] x, each row summed as ``row_dot6`` (an articulated inertia times a
    spatial acceleration)."""
    return (
        row_dot6(M, 0, x),
        row_dot6(M, 1, x),
        row_dot6(M, 2, x),
        row_dot6(M, 3, x),
        row_dot6(M, 4, x),
        row_dot6(M, 5, x),
    )


@inline
def rotate6(R, x):
    """[R w; R v] of x = [w; v]: a spatial vector re-expressed by the rotation R."""
    return join6(mat33_vec(R, (x[0], x[1], x[2])), mat33_vec(R, (x[3], x[4], x[5])))


@inline
def h_times(H, nu, x, s):
    """H[0:6, 0:nu] x[s:s+nu], each row accumulated from 0.0 over the columns in order
    (a body's spatial velocity across its mobilizer, H u)."""
    a0 = a1 = a2 = a3 = a4 = a5 = 0.0
    for k in range(nu):
        xk = x[s + k]
        a0 += H[0, k] * xk
        a1 += H[1, k] * xk
        a2 += H[2, k] * xk
        a3 += H[3, k] * xk
        a4 += H[4, k] * xk
        a5 += H[5, k] * xk
    return a0, a1, a2, a3, a4, a5


@inline
def add_h_times(a, H, nu, x, s):
    """a + H[0:6, 0:nu] x[s:s+nu], the columns added to a one at a time, in order."""
    for k in range(nu):
        a = add_scaled6(a, H, k, x[s + k])
    return a


@inline
def shift_motion(V_P, r):
    """[w; v + w x r] of V_P = [w; v], each linear entry summed as v_i + (w x r)_i's two
    products from the left: the motion of the parent's origin carried to the child's."""
    return (
        V_P[0],
        V_P[1],
        V_P[2],
        V_P[3] + V_P[1] * r[2] - V_P[2] * r[1],
        V_P[4] + V_P[2] * r[0] - V_P[0] * r[2],
        V_P[5] + V_P[0] * r[1] - V_P[1] * r[0],
    )


@inline
def shift_force(F_C, r):
    """[t + r x f; f] of F_C = [t; f], summed from the left: a spatial force at the child's
    origin moved to the parent's."""
    return (
        F_C[0] + r[1] * F_C[5] - r[2] * F_C[4],
        F_C[1] + r[2] * F_C[3] - r[0] * F_C[5],
        F_C[2] + r[0] * F_C[4] - r[1] * F_C[3],
        F_C[3],
        F_C[4],
        F_C[5],
    )


@inline
def shift_motion_columns(Hf, R, p, H, nu):
    """H[:, k] = [R w_k; R v_k + (R w_k) x p] for each column k < nu of Hf = [w; v]
    (a joint map expressed in a frame with orientation R, its linear part moved by p);
    columns nu..5 of H are zeroed."""
    for k in range(nu):
        hw = mat33_vec(R, column3(Hf, 0, k))
        hv = mat33_vec(R, column3(Hf, 3, k))
        store_column6(H, k, shift_motion(join6(hw, hv), p))
    for k in range(nu, 6):
        for i in range(6):
            H[i, k] = 0.0
