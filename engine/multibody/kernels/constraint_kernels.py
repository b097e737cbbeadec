"""Compiled holonomic constraints: their errors, Jacobian and the constrained accelerations.

The constraint types here (Rod, Ball, Weld, PointInPlane, ConstantAngle, and the
mobility type LINEAR_COORDINATES) are the common holonomic ones: each has only position
equations (mp), no time or u dependence, so ``pverr`` is linear in the velocities and
zero at rest. They are described by two arrays built once per State configuration
(``engine.multibody.constraints.compiled``):

* ``ci`` (nc, 5) int64: type code, ancestor body A, constrained body 1, constrained body
  2, first row of the constraint's equations in the position block;
* ``cf`` (nc, >= NCF) float64: the type's parameters (stations and frames in their body
  frames, lengths), see ``engine.multibody.constraints.compiled.constraint_row``.

LINEAR_COORDINATES (a CoordinateCoupler with a Function.Linear, a ConstantCoordinate) is
a mobility constraint: ``sum_k c_k q[iq_k] + c0 = 0`` on coordinates whose mobilizers
have qdot = u, so its velocity error is ``sum_k c_k u[iu_k]``, its acceleration error
``sum_k c_k udot[iu_k]`` (no bias), and its row of G holds c_k at the mobilities iu_k
(no body rows: its ancestor and body columns of ``ci`` are unused). Its ``cf`` row is
``[c0, n, iq_0, iu_0, c_0, ..., iq_(n-1), iu_(n-1), c_(n-1)]`` (indices stored exactly
as floats), so ``cf`` is wider than NCF when a constraint couples more than 7
coordinates.

The equations are those of the Python constraint classes, written in the constraint's
ancestor frame A exactly as ``ConstraintKinematics`` and the classes' ``_perr``,
``_pverr``, ``_paerr`` define them (engine/multibody/constraints/), so the compiled and
Python paths agree to rounding.

``constrained_accelerations`` then does what ``MatterConstraintsMixin._solve_constrained_udot``
does, in one call: the rows of G (the coefficients of pverr in the constrained bodies'
velocities, written out per type in the ancestor frame and carried to Ground, then
G^T = J^T of those rows), ``Y = M^-1 G^T`` by the articulated-body method, ``W = G Y``,
the acceleration errors ``aerr0`` of the unconstrained udot0, the minimum-norm
least-squares multipliers of ``W lambda = aerr0`` (W is symmetric semidefinite: a Jacobi
eigen-decomposition, whose eigenvalues below ``RCOND`` times the largest are dropped as
the Python path's SVD drops singular values, so redundant equations share their load as
Simbody's do; beyond ``pivoted_cholesky.LARGE_M`` equations a pivoted Cholesky
factorization with the same cut-off), ``udot = udot0 - Y lambda``, the body
accelerations, qdotdot and ``udotErr = aerr0 - W lambda``. A set of Rods only takes
``rod_errors`` and ``rod_rows``, the same arithmetic on scalars.
``constrained_accelerations_into`` takes the address of an ``InterruptRequest``
(``interrupt_request``; 0 for none) and looks at it once per equation in its O(m nu) and
O(m^2 nu) loops and per column of the factorization: a set request makes it return
``INTERRUPTED`` before it writes udot or the acceleration errors.
Spatial vectors are rows [angular, linear] about each body origin Bo, in Ground.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit

from engine.common.numba_internals import f1, f2, f3, i1
from engine.multibody.kernels.checked_operators import m_inverse_times
from engine.multibody.kernels.interrupt_request import interrupted
from engine.multibody.kernels.jacobian import (
    multiply_by_system_jacobian,
    multiply_by_system_jacobian_transpose_in_place,
)
from engine.multibody.kernels.layout import SLOT
from engine.multibody.kernels.pivoted_cholesky import LARGE_M, psd_min_norm_solve
from engine.multibody.kernels.stage_kernels import qdotdot_from_udot

#: type codes (ci[:, CI_TYPE])
ROD, BALL, WELD, POINT_IN_PLANE, CONSTANT_ANGLE, LINEAR_COORDINATES = 1, 2, 3, 4, 5, 6
#: ci columns
CI_TYPE, CI_ANCESTOR, CI_BODY1, CI_BODY2, CI_ROW = 0, 1, 2, 3, 4
NCI = 5
#: cf columns (parameters per constraint)
NCF = 24
#: equations per type
NUM_EQUATIONS = {
    ROD: 1,
    BALL: 3,
    WELD: 6,
    POINT_IN_PLANE: 1,
    CONSTANT_ANGLE: 1,
    LINEAR_COORDINATES: 1,
}
#: LINEAR_COORDINATES's cf: the constant, the number of terms, then (iq, iu, c) per term
LC_CONSTANT, LC_COUNT, LC_TERMS, LC_TERM_SIZE = 0, 1, 2, 3
#: singular values of W below this fraction of the largest are dropped (as _least_squares)
RCOND = 1e-12

#: statuses
OK, COINCIDENT_ROD_POINTS, NOT_FINITE, INTERRUPTED = 0, 1, 2, 3

#: The level of a constraint equation. Callers pass it as a run-time ``np.int64``: a
#: constant would be typed as a literal and compile the whole equation tree once per level.
_POSITION, _VELOCITY, _ACCELERATION = 0, 1, 2


# ---------------------------------------------------------------- small vector helpers
@njit(cache=True, nogil=True, inline="always")
def _dot(x, y):
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]


# 3-vectors as tuples: no array is allocated (the hot paths of the constrained accelerations)
@njit(cache=True, nogil=True, inline="always")
def _tv(x):
    return (x[0], x[1], x[2])


@njit(cache=True, nogil=True, inline="always")
def _tadd(x, y):
    return (x[0] + y[0], x[1] + y[1], x[2] + y[2])


@njit(cache=True, nogil=True, inline="always")
def _tsub(x, y):
    return (x[0] - y[0], x[1] - y[1], x[2] - y[2])


@njit(cache=True, nogil=True, inline="always")
def _tcross(x, y):
    return (x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0])


@njit(cache=True, nogil=True, inline="always")
def _tmv(R, x):
    """R @ x for a 3 x 3 R, as a tuple."""
    return (
        R[0, 0] * x[0] + R[0, 1] * x[1] + R[0, 2] * x[2],
        R[1, 0] * x[0] + R[1, 1] * x[1] + R[1, 2] * x[2],
        R[2, 0] * x[0] + R[2, 1] * x[1] + R[2, 2] * x[2],
    )


@njit(cache=True, nogil=True, inline="always")
def _tmtv(R, x):
    """R^T @ x for a 3 x 3 R, as a tuple."""
    return (
        R[0, 0] * x[0] + R[1, 0] * x[1] + R[2, 0] * x[2],
        R[0, 1] * x[0] + R[1, 1] * x[1] + R[2, 1] * x[2],
        R[0, 2] * x[0] + R[1, 2] * x[1] + R[2, 2] * x[2],
    )


@njit(cache=True, nogil=True, inline="always")
def _tneg(x):
    return (-x[0], -x[1], -x[2])


@njit(cache=True, nogil=True, inline="always")
def _tscale(c, x):
    return (c * x[0], c * x[1], c * x[2])


@njit(cache=True, nogil=True, inline="always")
def _trow(X, b, o):
    """(X[b, o], X[b, o + 1], X[b, o + 2]) of a 2-D array X."""
    return (X[b, o], X[b, o + 1], X[b, o + 2])


@njit(cache=True, nogil=True, inline="always")
def _tput(X, k, x):
    """X[k, 0:3] = x."""
    X[k, 0] = x[0]
    X[k, 1] = x[1]
    X[k, 2] = x[2]


@njit(cache=True, nogil=True, inline="always")
def _tcol(R, M, o, j):
    """R @ (column j of the 3 x 3 matrix stored row by row in M[o:o + 9]): column j of
    R M, as a tuple."""
    return _tmv(R, (M[o + j], M[o + 3 + j], M[o + 6 + j]))


@njit(cache=True, nogil=True, inline="always")
def _tstation(R, p, k, s):
    return _tadd(_tv(p[k]), _tmv(R[k], s))


@njit(cache=True, nogil=True, inline="always")
def _tstation_velocity(R, w, v, k, s):
    return _tadd(_tv(v[k]), _tcross(_tv(w[k]), _tmv(R[k], s)))


@njit(cache=True, nogil=True, inline="always")
def _tstation_acceleration(R, w, bb, aa, k, s):
    r = _tmv(R[k], s)
    wk = _tv(w[k])
    return _tadd(_tadd(_tv(aa[k]), _tcross(_tv(bb[k]), r)), _tcross(wk, _tcross(wk, r)))


# ------------------------------------------------------------ the mobility constraint
@njit(cache=True, nogil=True, inline="always")
def _linear_coordinates(cf, level, x):
    """LINEAR_COORDINATES's equation at ``level`` (module doc): ``x`` is q at Position
    (the constant added), u at Velocity, udot at Acceleration."""
    n = int(cf[LC_COUNT])
    index = 0 if level == _POSITION else 1
    acc = 0.0
    for k in range(n):
        o = LC_TERMS + LC_TERM_SIZE * k
        acc += cf[o + 2] * x[int(cf[o + index])]
    if level == _POSITION:
        acc += cf[LC_CONSTANT]
    return acc


@njit(cache=True, nogil=True)
def mobility_rows_add(ci, cf, G):
    """G[row, iu_k] += c_k for every LINEAR_COORDINATES constraint (its row of G acts on
    the mobilities directly; the body rows give it nothing)."""
    for c in range(ci.shape[0]):
        if ci[c, CI_TYPE] != LINEAR_COORDINATES:
            continue
        row = ci[c, CI_ROW]
        for k in range(int(cf[c, LC_COUNT])):
            o = LC_TERMS + LC_TERM_SIZE * k
            G[row, int(cf[c, o + 1])] += cf[c, o + 2]


# -------------------------------------------------------- kinematics in the ancestor A
@njit(cache=True, nogil=True)
def _kinematics(anc, b1, b2, R_GB, p_GB, V_GB, A_GB, level, R, p, w, v, bb, aa):
    """R_AB, p_AB (and w, v; b, a at ``level`` 1, 2) of the two constrained bodies b1, b2
    (k = 0, 1) in the ancestor A, as ConstraintKinematics computes them (on 3-tuples: no
    array is allocated)."""
    bodies = (b1, b2)
    if anc == 0:  # element by element, without slice assignments
        for k in range(2):
            bd = bodies[k]
            for i in range(3):
                for j in range(3):
                    R[k, i, j] = R_GB[bd, i, j]
                p[k, i] = p_GB[bd, i]
            if level >= _VELOCITY:
                for i in range(3):
                    w[k, i] = V_GB[bd, i]
                    v[k, i] = V_GB[bd, 3 + i]
            if level >= _ACCELERATION:
                for i in range(3):
                    bb[k, i] = A_GB[bd, i]
                    aa[k, i] = A_GB[bd, 3 + i]
        return
    R_GA = R_GB[anc]
    p_GA = _trow(p_GB, anc, 0)
    for k in range(2):
        bd = bodies[k]
        for i in range(3):
            for j in range(3):
                R[k, i, j] = (
                    R_GA[0, i] * R_GB[bd, 0, j]
                    + R_GA[1, i] * R_GB[bd, 1, j]
                    + R_GA[2, i] * R_GB[bd, 2, j]
                )
        _tput(p, k, _tmtv(R_GA, _tsub(_trow(p_GB, bd, 0), p_GA)))
    if level < _VELOCITY:
        return
    w_GA = _trow(V_GB, anc, 0)
    v_GA = _trow(V_GB, anc, 3)
    for k in range(2):
        bd = bodies[k]
        r = _tsub(_trow(p_GB, bd, 0), p_GA)
        _tput(w, k, _tmtv(R_GA, _tsub(_trow(V_GB, bd, 0), w_GA)))
        _tput(v, k, _tmtv(R_GA, _tsub(_tsub(_trow(V_GB, bd, 3), v_GA), _tcross(w_GA, r))))
    if level < _ACCELERATION:
        return
    b_GA = _trow(A_GB, anc, 0)
    a_GA = _trow(A_GB, anc, 3)
    for k in range(2):
        bd = bodies[k]
        r = _tsub(_trow(p_GB, bd, 0), p_GA)
        w_GB = _trow(V_GB, bd, 0)
        dv = _tsub(_trow(V_GB, bd, 3), v_GA)
        _tput(bb, k, _tmtv(R_GA, _tsub(_tsub(_trow(A_GB, bd, 0), b_GA), _tcross(w_GA, w_GB))))
        acc = _tsub(_tsub(_trow(A_GB, bd, 3), a_GA), _tcross(b_GA, r))
        acc = _tsub(acc, _tscale(2.0, _tcross(w_GA, dv)))
        _tput(aa, k, _tmtv(R_GA, _tadd(acc, _tcross(w_GA, _tcross(w_GA, r)))))


# ----------------------------------------------------------------- equations per type
@njit(cache=True, nogil=True)
def _coincident(level, exact, R, p, w, v, bb, aa, cf, o1, o2, out, off):
    """Station s2 = cf[o2:o2 + 3] of body 2 on station s1 = cf[o1:o1 + 3] of body 1
    (Ball; Weld's origins), in A."""
    s1 = (cf[o1], cf[o1 + 1], cf[o1 + 2])
    s2 = (cf[o2], cf[o2 + 1], cf[o2 + 2])
    p2 = _tstation(R, p, 1, s2)
    if level == _POSITION:
        d = _tsub(p2, _tstation(R, p, 0, s1))
        for i in range(3):
            out[off + i] = d[i]
        return
    c = _tmtv(R[0], _tsub(p2, _tv(p[0])))  # point of body 1 coincident with S2, in body 1
    v2 = _tstation_velocity(R, w, v, 1, s2)
    vc = _tstation_velocity(R, w, v, 0, c)
    if level == _VELOCITY:
        for i in range(3):
            out[off + i] = v2[i] - vc[i]
        return
    acc = _tsub(
        _tstation_acceleration(R, w, bb, aa, 1, s2), _tstation_acceleration(R, w, bb, aa, 0, c)
    )
    if exact:
        acc = _tsub(acc, _tcross(_tv(w[0]), _tsub(v2, vc)))
    for i in range(3):
        out[off + i] = acc[i]


@njit(cache=True, nogil=True)
def _orientation(level, R, w, bb, cf, out, off):
    """RF.x.RB.y, RF.y.RB.z, RF.z.RB.x (RB = frame 1 on body 1, cf[0:9], RF = frame 2 on
    body 2, cf[12:21], each row by row)."""
    w0 = _tv(w[0])
    w1 = _tv(w[1])
    w_rel = _tsub(w1, w0)
    for i in range(3):
        j = (i + 1) % 3
        f = _tcol(R[1], cf, 12, i)  # column i of RF = R_AB2 R2
        g = _tcol(R[0], cf, 0, j)  # column j of RB = R_AB1 R1
        if level == _POSITION:
            out[off + i] = _dot(f, g)
        elif level == _VELOCITY:
            out[off + i] = _dot(w_rel, _tcross(f, g))
        else:
            b_rel = _tsub(_tv(bb[1]), _tv(bb[0]))
            out[off + i] = _dot(b_rel, _tcross(f, g)) + _dot(
                w_rel, _tadd(_tcross(_tcross(w1, f), g), _tcross(f, _tcross(w0, g)))
            )


@njit(cache=True, nogil=True)
def _rod_equation(cf, level, R, p, w, v, bb, aa, out, off):
    """The Rod's equation at ``level`` into out[off] (tuples, no arrays); the status."""
    s1, s2 = cf[0:3], cf[3:6]
    d = _tsub(_tadd(_tv(p[1]), _tmv(R[1], s2)), _tadd(_tv(p[0]), _tmv(R[0], s1)))
    r = math.sqrt(_dot(d, d))
    if level == _POSITION:
        out[off] = r - cf[6]
        return OK
    if r == 0.0:
        return COINCIDENT_ROD_POINTS
    vr = _tsub(_tstation_velocity(R, w, v, 1, s2), _tstation_velocity(R, w, v, 0, s1))
    if level == _VELOCITY:
        out[off] = _dot(d, vr) / r
        return OK
    e = (d[0] / r, d[1] / r, d[2] / r)
    ev = _dot(e, vr)
    ar = _tsub(
        _tstation_acceleration(R, w, bb, aa, 1, s2), _tstation_acceleration(R, w, bb, aa, 0, s1)
    )
    out[off] = _dot(e, ar) + (_dot(vr, vr) - ev * ev) / r
    return OK


@njit(cache=True, nogil=True)
def _equations(t, cf, level, R, p, w, v, bb, aa, out, off):
    """The equations of one constraint of type t at ``level`` into out[off:]; the status."""
    if t == ROD:
        return _rod_equation(cf, level, R, p, w, v, bb, aa, out, off)
    if t == BALL:
        _coincident(level, np.bool_(False), R, p, w, v, bb, aa, cf, 0, 3, out, off)
        return OK
    if t == WELD:
        _orientation(level, R, w, bb, cf, out, off)
        _coincident(level, np.bool_(True), R, p, w, v, bb, aa, cf, 9, 21, out, off + 3)
        return OK
    if t == POINT_IN_PLANE:
        n = _tmv(R[0], (cf[0], cf[1], cf[2]))
        s = (cf[4], cf[5], cf[6])
        p_S = _tstation(R, p, 1, s)
        if level == _POSITION:
            out[off] = _dot(n, _tsub(p_S, _tv(p[0]))) - cf[3]
            return OK
        c = _tmtv(R[0], _tsub(p_S, _tv(p[0])))
        dv = _tsub(_tstation_velocity(R, w, v, 1, s), _tstation_velocity(R, w, v, 0, c))
        if level == _VELOCITY:
            out[off] = _dot(n, dv)
            return OK
        da = _tsub(
            _tstation_acceleration(R, w, bb, aa, 1, s), _tstation_acceleration(R, w, bb, aa, 0, c)
        )
        out[off] = _dot(n, _tsub(da, _tscale(2.0, _tcross(_tv(w[0]), dv))))
        return OK
    # CONSTANT_ANGLE
    a = _tmv(R[0], (cf[0], cf[1], cf[2]))
    b = _tmv(R[1], (cf[3], cf[4], cf[5]))
    if level == _POSITION:
        out[off] = _dot(a, b) - cf[6]
        return OK
    w0 = _tv(w[0])
    w1 = _tv(w[1])
    w_rel = _tsub(w1, w0)
    if level == _VELOCITY:
        out[off] = _dot(w_rel, _tcross(b, a))
        return OK
    out[off] = _dot(_tsub(_tv(bb[1]), _tv(bb[0])), _tcross(b, a)) + _dot(
        w_rel, _tadd(_tcross(_tcross(w1, b), a), _tcross(b, _tcross(w0, a)))
    )
    return OK


#: length of the block ``_kinematics_views`` carves
KIN_SIZE = 18 + 5 * 6 + 72


@njit(cache=True, nogil=True)
def _kinematics_views(blk):
    """Views of blk (KIN_SIZE,): the kinematics buffers of the two constrained bodies (R,
    p, w, v, b, a in A) and the rows C (12, 2, 3) of ``_rows_in_ancestor``."""
    buf = (
        blk[0:18].reshape((2, 3, 3)),
        blk[18:24].reshape((2, 3)),
        blk[24:30].reshape((2, 3)),
        blk[30:36].reshape((2, 3)),
        blk[36:42].reshape((2, 3)),
        blk[42:48].reshape((2, 3)),
    )
    return buf, blk[48:120].reshape((12, 2, 3))


@njit(cache=True, nogil=True)
def _buffers():
    """Kinematics buffers of the two constrained bodies: R, p, w, v, b, a in A."""
    return _kinematics_views(np.zeros(KIN_SIZE))[0]


@njit(cache=True, nogil=True)
def _one_constraint(ci, cf, c, level, R_GB, p_GB, V_GB, A_GB, out, off, buf):
    R, p, w, v, bb, aa = buf
    _kinematics(
        ci[c, CI_ANCESTOR],
        ci[c, CI_BODY1],
        ci[c, CI_BODY2],
        R_GB,
        p_GB,
        V_GB,
        A_GB,
        level,
        R,
        p,
        w,
        v,
        bb,
        aa,
    )
    return _equations(ci[c, CI_TYPE], cf[c], level, R, p, w, v, bb, aa, out, off)


# ------------------------------------------------------------------- Rods on scalars
# Sets of Rods only (the commonest; a ladder of hundreds) take these loops instead of the
# per-type code above, which passes many arrays between kernels and counts their
# references at each call: ``_kinematics`` and ``_rod_equation`` / ``_rows_in_ancestor``
# written out on scalars read from the Ground-frame arrays, the same operations in the
# same order, so the results are bit-identical.
@njit(cache=True, nogil=True)
def rods_only(ci):
    """Whether every constraint of ci is a Rod."""
    for c in range(ci.shape[0]):
        if ci[c, CI_TYPE] != ROD:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _gv(X, b, o):
    """(X[b, o], X[b, o + 1], X[b, o + 2])."""
    return (X[b, o], X[b, o + 1], X[b, o + 2])


@njit(cache=True, nogil=True, inline="always")
def _rab(R_GB, anc, bd, i, j):
    """Entry (i, j) of R_AB = R_GA^T R_GB[bd], as ``_kinematics`` forms it."""
    return (
        R_GB[anc, 0, i] * R_GB[bd, 0, j]
        + R_GB[anc, 1, i] * R_GB[bd, 1, j]
        + R_GB[anc, 2, i] * R_GB[bd, 2, j]
    )


@njit(cache=True, nogil=True, inline="always")
def _rab_times(R_GB, anc, bd, s, i):
    """Row i of R_AB s (R_AB's entries rounded first, as ``_tmv`` of ``_kinematics``'s R)."""
    return (
        _rab(R_GB, anc, bd, i, 0) * s[0]
        + _rab(R_GB, anc, bd, i, 1) * s[1]
        + _rab(R_GB, anc, bd, i, 2) * s[2]
    )


@njit(cache=True, nogil=True, inline="always")
def _rod_station(anc, bd, s, R_GB, p_GB):
    """(p_AB, R_AB s) of body bd in the ancestor A, as ``_kinematics`` and ``_tmv``
    compute them (R_AB = R_GA^T R_GB formed first)."""
    if anc == 0:
        return _gv(p_GB, bd, 0), (
            R_GB[bd, 0, 0] * s[0] + R_GB[bd, 0, 1] * s[1] + R_GB[bd, 0, 2] * s[2],
            R_GB[bd, 1, 0] * s[0] + R_GB[bd, 1, 1] * s[1] + R_GB[bd, 1, 2] * s[2],
            R_GB[bd, 2, 0] * s[0] + R_GB[bd, 2, 1] * s[1] + R_GB[bd, 2, 2] * s[2],
        )
    rs = (
        _rab_times(R_GB, anc, bd, s, 0),
        _rab_times(R_GB, anc, bd, s, 1),
        _rab_times(R_GB, anc, bd, s, 2),
    )
    p = _tmtv(R_GB[anc], _tsub(_gv(p_GB, bd, 0), _gv(p_GB, anc, 0)))
    return p, rs


@njit(cache=True, nogil=True)
def rod_errors(ci, cf, level, R_GB, p_GB, V_GB, A_GB, out):
    """``constraint_errors_into`` when ``rods_only(ci)``; the status."""
    for c in range(ci.shape[0]):
        anc, b1, b2 = ci[c, CI_ANCESTOR], ci[c, CI_BODY1], ci[c, CI_BODY2]
        s1 = (cf[c, 0], cf[c, 1], cf[c, 2])
        s2 = (cf[c, 3], cf[c, 4], cf[c, 5])
        p1, r1 = _rod_station(anc, b1, s1, R_GB, p_GB)
        p2, r2 = _rod_station(anc, b2, s2, R_GB, p_GB)
        d = _tsub(_tadd(p2, r2), _tadd(p1, r1))
        r = math.sqrt(_dot(d, d))
        off = ci[c, CI_ROW]
        if level == _POSITION:
            out[off] = r - cf[c, 6]
            continue
        if r == 0.0:
            return COINCIDENT_ROD_POINTS
        if anc == 0:
            w1, v1 = _gv(V_GB, b1, 0), _gv(V_GB, b1, 3)
            w2, v2 = _gv(V_GB, b2, 0), _gv(V_GB, b2, 3)
        else:
            R_GA = R_GB[anc]
            p_GA, w_GA, v_GA = _gv(p_GB, anc, 0), _gv(V_GB, anc, 0), _gv(V_GB, anc, 3)
            q1 = _tsub(_gv(p_GB, b1, 0), p_GA)
            q2 = _tsub(_gv(p_GB, b2, 0), p_GA)
            w1 = _tmtv(R_GA, _tsub(_gv(V_GB, b1, 0), w_GA))
            v1 = _tmtv(R_GA, _tsub(_tsub(_gv(V_GB, b1, 3), v_GA), _tcross(w_GA, q1)))
            w2 = _tmtv(R_GA, _tsub(_gv(V_GB, b2, 0), w_GA))
            v2 = _tmtv(R_GA, _tsub(_tsub(_gv(V_GB, b2, 3), v_GA), _tcross(w_GA, q2)))
        vr = _tsub(_tadd(v2, _tcross(w2, r2)), _tadd(v1, _tcross(w1, r1)))
        if level == _VELOCITY:
            out[off] = _dot(d, vr) / r
            continue
        if anc == 0:
            bb1, aa1 = _gv(A_GB, b1, 0), _gv(A_GB, b1, 3)
            bb2, aa2 = _gv(A_GB, b2, 0), _gv(A_GB, b2, 3)
        else:
            b_GA, a_GA = _gv(A_GB, anc, 0), _gv(A_GB, anc, 3)
            bb1 = _tmtv(R_GA, _tsub(_tsub(_gv(A_GB, b1, 0), b_GA), _tcross(w_GA, _gv(V_GB, b1, 0))))
            acc = _tsub(_tsub(_gv(A_GB, b1, 3), a_GA), _tcross(b_GA, q1))
            acc = _tsub(acc, _tscale(2.0, _tcross(w_GA, _tsub(_gv(V_GB, b1, 3), v_GA))))
            aa1 = _tmtv(R_GA, _tadd(acc, _tcross(w_GA, _tcross(w_GA, q1))))
            bb2 = _tmtv(R_GA, _tsub(_tsub(_gv(A_GB, b2, 0), b_GA), _tcross(w_GA, _gv(V_GB, b2, 0))))
            acc = _tsub(_tsub(_gv(A_GB, b2, 3), a_GA), _tcross(b_GA, q2))
            acc = _tsub(acc, _tscale(2.0, _tcross(w_GA, _tsub(_gv(V_GB, b2, 3), v_GA))))
            aa2 = _tmtv(R_GA, _tadd(acc, _tcross(w_GA, _tcross(w_GA, q2))))
        e = (d[0] / r, d[1] / r, d[2] / r)
        ev = _dot(e, vr)
        a2 = _tadd(_tadd(aa2, _tcross(bb2, r2)), _tcross(w2, _tcross(w2, r2)))
        a1 = _tadd(_tadd(aa1, _tcross(bb1, r1)), _tcross(w1, _tcross(w1, r1)))
        out[off] = _dot(e, _tsub(a2, a1)) + (_dot(vr, vr) - ev * ev) / r
    return OK


@njit(cache=True, nogil=True)
def rod_rows(ci, cf, R_GB, p_GB, Gb):
    """``body_rows_into`` when ``rods_only(ci)``: each Rod's ``_rows_in_ancestor``
    carried to Ground as ``body_rows_into`` does, straight into Gb; the status."""
    for e in range(Gb.shape[0]):
        for b in range(Gb.shape[1]):
            for i in range(6):
                Gb[e, b, i] = 0.0
    for c in range(ci.shape[0]):
        anc, b1, b2, row = ci[c, CI_ANCESTOR], ci[c, CI_BODY1], ci[c, CI_BODY2], ci[c, CI_ROW]
        p1, s1A = _rod_station(anc, b1, (cf[c, 0], cf[c, 1], cf[c, 2]), R_GB, p_GB)
        p2, s2A = _rod_station(anc, b2, (cf[c, 3], cf[c, 4], cf[c, 5]), R_GB, p_GB)
        d = _tsub(_tadd(p2, s2A), _tadd(p1, s1A))
        r = math.sqrt(_dot(d, d))
        if r == 0.0:
            return COINCIDENT_ROD_POINTS
        n = (d[0] / r, d[1] / r, d[2] / r)
        c2 = _tcross(s2A, n)
        c1 = _tcross(s1A, n)
        for k in range(2):
            bd = b1 if k == 0 else b2
            cw = _tneg(c1) if k == 0 else c2
            cv = _tneg(n) if k == 0 else n
            if anc != 0:
                cw = _tmv(R_GB[anc], cw)
                cv = _tmv(R_GB[anc], cv)
            if bd != 0:
                for i in range(3):
                    Gb[row, bd, i] += cw[i]
                    Gb[row, bd, 3 + i] += cv[i]
            if anc != 0:
                rxcv = _tcross(_tsub(_gv(p_GB, bd, 0), _gv(p_GB, anc, 0)), cv)
                for i in range(3):
                    Gb[row, anc, i] -= cw[i] + rxcv[i]
                    Gb[row, anc, 3 + i] -= cv[i]
    return OK


@njit(cache=True, nogil=True, inline="always")
def errors_into(ci, cf, level, R_GB, p_GB, V_GB, A_GB, x, out, buf):
    """``constraint_errors_into``, by ``rod_errors`` where it applies."""
    if rods_only(ci):
        return rod_errors(ci, cf, level, R_GB, p_GB, V_GB, A_GB, out)
    return constraint_errors_into(ci, cf, level, R_GB, p_GB, V_GB, A_GB, x, out, buf)


@njit(cache=True, nogil=True, inline="always")
def rows_into(ci, cf, R_GB, p_GB, Gb, buf, C):
    """``body_rows_into``, by ``rod_rows`` where it applies."""
    if rods_only(ci):
        return rod_rows(ci, cf, R_GB, p_GB, Gb)
    return body_rows_into(ci, cf, R_GB, p_GB, Gb, buf, C)


@njit(cache=True, nogil=True)
def constraint_errors(ci, cf, level, R_GB, p_GB, V_GB, A_GB, x, out):
    """out[:mp] = perr (level 0), pverr (1) or paerr (2) of every constraint, ``x`` the
    State's q, u or udot at that level (the mobility constraints' variables); the status
    (OK, or COINCIDENT_ROD_POINTS: nothing is reliable, the Python path words it)."""
    if rods_only(ci):
        return rod_errors(ci, cf, level, R_GB, p_GB, V_GB, A_GB, out)
    return constraint_errors_into(ci, cf, level, R_GB, p_GB, V_GB, A_GB, x, out, _buffers())


@njit(cache=True, nogil=True)
def constraint_errors_into(ci, cf, level, R_GB, p_GB, V_GB, A_GB, x, out, buf):
    """``constraint_errors`` with the kinematics buffers ``buf`` (``_buffers``) given."""
    for c in range(ci.shape[0]):
        off = ci[c, CI_ROW]
        if ci[c, CI_TYPE] == LINEAR_COORDINATES:
            out[off] = _linear_coordinates(cf[c], level, x)
            continue
        status = _one_constraint(ci, cf, c, level, R_GB, p_GB, V_GB, A_GB, out, off, buf)
        if status != OK:
            return status
    return OK


@njit(cache=True, nogil=True, inline="always")
def _put_row(C, e, k, cw, cv):
    for i in range(3):
        C[2 * e + k, 0, i] = cw[i]
        C[2 * e + k, 1, i] = cv[i]


@njit(cache=True, nogil=True, inline="always")
def _station_row(C, e, ni, s1A, s2A):
    """Row e of C for the equation ni . (velocity of body 2's point at s2A - velocity of
    body 1's point at s1A) (s1A, s2A from the bodies' origins, in A): body 2
    (w . (s2A x ni), v . ni), body 1 the negatives at s1A."""
    _put_row(C, e, 1, _tcross(s2A, ni), ni)
    _put_row(C, e, 0, _tneg(_tcross(s1A, ni)), _tneg(ni))


@njit(cache=True, nogil=True)
def _station_rows(C, e0, s1A, s2A):
    """Rows e0..e0 + 2 of C: ``_station_row`` along the axes of A."""
    _station_row(C, e0, (1.0, 0.0, 0.0), s1A, s2A)
    _station_row(C, e0 + 1, (0.0, 1.0, 0.0), s1A, s2A)
    _station_row(C, e0 + 2, (0.0, 0.0, 1.0), s1A, s2A)


@njit(cache=True, nogil=True)
def _rows_in_ancestor(t, cf, R, p, C):
    """C (neq, 2, 2, 3): the velocity equations of one constraint of type t as
    ``pverr_e = sum_k C[2e + k, 0] . w_k + C[2e + k, 1] . v_k``, (w_k, v_k) the angular and
    linear velocities of constrained body k (0, 1) about its origin, in the ancestor A
    (R, p: the bodies' poses in A). These are the coefficients of the ``_equations`` at
    the velocity level, written out. The status."""
    if t == ROD:
        s1A = _tmv(R[0], cf[0:3])
        s2A = _tmv(R[1], cf[3:6])
        d = _tsub(_tadd(_tv(p[1]), s2A), _tadd(_tv(p[0]), s1A))
        r = math.sqrt(_dot(d, d))
        if r == 0.0:
            return COINCIDENT_ROD_POINTS
        n = (d[0] / r, d[1] / r, d[2] / r)
        c2 = _tcross(s2A, n)
        c1 = _tcross(s1A, n)
        for i in range(3):
            C[1, 0, i] = c2[i]
            C[1, 1, i] = n[i]
            C[0, 0, i] = -c1[i]
            C[0, 1, i] = -n[i]
        return OK
    zero = (0.0, 0.0, 0.0)
    if t == BALL or t == WELD:
        e0 = 3 if t == WELD else 0
        o2 = 3 if t == BALL else 21
        s2A = _tmv(R[1], (cf[o2], cf[o2 + 1], cf[o2 + 2]))
        cA = _tsub(_tadd(_tv(p[1]), s2A), _tv(p[0]))  # body 1's point coincident with S2
        _station_rows(C, e0, cA, s2A)
        if t == WELD:
            for i in range(3):
                # column i of RF = R_AB2 R2 x column i + 1 of RB = R_AB1 R1
                fg = _tcross(_tcol(R[1], cf, 12, i), _tcol(R[0], cf, 0, (i + 1) % 3))
                _put_row(C, i, 1, fg, zero)
                _put_row(C, i, 0, _tneg(fg), zero)
        return OK
    if t == POINT_IN_PLANE:
        n = _tmv(R[0], (cf[0], cf[1], cf[2]))
        sA = _tmv(R[1], (cf[4], cf[5], cf[6]))
        cA = _tsub(_tadd(_tv(p[1]), sA), _tv(p[0]))
        _station_row(C, 0, n, cA, sA)
        return OK
    # CONSTANT_ANGLE
    ba = _tcross(_tmv(R[1], (cf[3], cf[4], cf[5])), _tmv(R[0], (cf[0], cf[1], cf[2])))
    _put_row(C, 0, 1, ba, zero)
    _put_row(C, 0, 0, _tneg(ba), zero)
    return OK


@njit(cache=True, nogil=True)
def body_rows_into(ci, cf, R_GB, p_GB, Gb, buf, C):
    """Gb (m, nb, 6): pverr = sum_b Gb[e, b] . V_GB[b] (the rows of G before J): each
    constraint's coefficients in its ancestor A (``_rows_in_ancestor``) carried to the
    Ground-frame velocities of its bodies and of A (w_k = R_GA^T (w_Bk - w_A),
    v_k = R_GA^T (v_Bk - v_A - w_A x r_k), r_k from A's origin to Bk's), with the
    kinematics buffers ``buf`` (``_buffers``) and the rows ``C`` (12, 2, 3) given. The
    status."""
    R, p, w, v, bb, aa = buf
    position = np.int64(_POSITION)  # a run-time level: one compiled body for every level
    Gb[:, :, :] = 0.0
    for c in range(ci.shape[0]):
        t = ci[c, CI_TYPE]
        if t == LINEAR_COORDINATES:  # no body rows (``mobility_rows_add``)
            continue
        anc, b1, b2 = ci[c, CI_ANCESTOR], ci[c, CI_BODY1], ci[c, CI_BODY2]
        _kinematics(anc, b1, b2, R_GB, p_GB, p_GB, p_GB, position, R, p, w, v, bb, aa)
        status = _rows_in_ancestor(t, cf[c], R, p, C)
        if status != OK:
            return status
        row = ci[c, CI_ROW]
        neq = 6 if t == WELD else (3 if t == BALL else 1)
        for e in range(neq):
            for k in range(2):
                bd = b1 if k == 0 else b2
                if anc != 0:
                    cw = _tmv(R_GB[anc], C[2 * e + k, 0])
                    cv = _tmv(R_GB[anc], C[2 * e + k, 1])
                else:
                    cw = _tv(C[2 * e + k, 0])
                    cv = _tv(C[2 * e + k, 1])
                if bd != 0:
                    for i in range(3):
                        Gb[row + e, bd, i] += cw[i]
                        Gb[row + e, bd, 3 + i] += cv[i]
                if anc != 0:
                    rxcv = _tcross(_tsub(_tv(p_GB[bd]), _tv(p_GB[anc])), cv)
                    for i in range(3):
                        Gb[row + e, anc, i] -= cw[i] + rxcv[i]
                        Gb[row + e, anc, 3 + i] -= cv[i]
    return OK


@njit(cache=True, nogil=True)
def symmetric_eigen(A, V):
    """Cyclic Jacobi: A (m, m) symmetric is overwritten by a diagonal matrix of its
    eigenvalues, V by the eigenvectors (columns), A_in = V diag V^T."""
    m = A.shape[0]
    V[:, :] = 0.0
    for i in range(m):
        V[i, i] = 1.0
    total = 0.0
    for i in range(m):
        for j in range(m):
            total += A[i, j] * A[i, j]
    for _sweep in range(60):
        off = 0.0
        for i in range(m):
            for j in range(i + 1, m):
                off += A[i, j] * A[i, j]
        if off <= 1e-32 * total:
            return
        for p in range(m - 1):
            for q in range(p + 1, m):
                apq = A[p, q]
                if apq == 0.0:
                    continue
                theta = (A[q, q] - A[p, p]) / (2.0 * apq)
                if abs(theta) > 1e150:
                    t = 0.5 / theta
                else:
                    t = 1.0 / (abs(theta) + math.sqrt(theta * theta + 1.0))
                    if theta < 0.0:
                        t = -t
                c = 1.0 / math.sqrt(t * t + 1.0)
                s = t * c
                for k in range(m):
                    akp, akq = A[k, p], A[k, q]
                    A[k, p] = c * akp - s * akq
                    A[k, q] = s * akp + c * akq
                for k in range(m):
                    apk, aqk = A[p, k], A[q, k]
                    A[p, k] = c * apk - s * aqk
                    A[q, k] = s * apk + c * aqk
                for k in range(m):
                    vkp, vkq = V[k, p], V[k, q]
                    V[k, p] = c * vkp - s * vkq
                    V[k, q] = s * vkp + c * vkq


@njit(cache=True, nogil=True)
def row_products(X, Y, out, symmetric, interrupt):
    """out[i, j] = sum_k X[i, k] Y[j, k] (X (m, n), Y (p, n), rows contiguous), each sum
    in the order of k; four columns of out at a time. With ``symmetric`` (X Y^T known
    to be symmetric, m = p) only j >= i is summed and mirrored. False (out partly
    written) if the request at ``interrupt`` was set (looked at once per row)."""
    m, n, p = X.shape[0], X.shape[1], Y.shape[0]
    for i in range(m):
        if interrupted(interrupt):
            return False
        j = i if symmetric else 0
        while j + 4 <= p:
            a0 = a1 = a2 = a3 = 0.0
            for k in range(n):
                x = X[i, k]
                a0 += x * Y[j, k]
                a1 += x * Y[j + 1, k]
                a2 += x * Y[j + 2, k]
                a3 += x * Y[j + 3, k]
            out[i, j] = a0
            out[i, j + 1] = a1
            out[i, j + 2] = a2
            out[i, j + 3] = a3
            j += 4
        while j < p:
            acc = 0.0
            for k in range(n):
                acc += X[i, k] * Y[j, k]
            out[i, j] = acc
            j += 1
        if symmetric:
            for j in range(i + 1, p):
                out[j, i] = out[i, j]
    return True


@njit(cache=True, nogil=True)
def least_squares(W, rhs, out):
    """out = the minimum-norm least-squares solution of W out = rhs for W symmetric
    semidefinite (its symmetric part is used): by its eigen-decomposition, dropping
    eigenvalues below RCOND times the largest (as an SVD with that cut-off)."""
    m = W.shape[0]
    least_squares_into(W, rhs, out, np.empty((m, m)), np.empty((m, m)), 0)


@njit(cache=True, nogil=True)
def least_squares_into(W, rhs, out, A, V, interrupt):
    """``least_squares`` with the (m, m) scratch matrices A and V given. Beyond
    ``LARGE_M`` equations the pivoted Cholesky factorization (``pivoted_cholesky``) with
    the same cut-off relative to W's largest diagonal takes the eigen-decomposition's
    place; it looks at the request at ``interrupt`` once per column: False (out
    unspecified) if it was set."""
    m = W.shape[0]
    for i in range(m):
        out[i] = 0.0
    if m == 0:
        return True
    for i in range(m):
        for j in range(m):
            A[i, j] = 0.5 * (W[i, j] + W[j, i])
    if m > LARGE_M:  # O(m^3 / 3) once instead of O(m^3) per Jacobi sweep
        return psd_min_norm_solve(A, rhs, out, V, RCOND, interrupt)
    symmetric_eigen(A, V)
    top = 0.0
    for k in range(m):
        top = max(top, abs(A[k, k]))
    if top <= 0.0:
        return True
    for k in range(m):
        lam = A[k, k]
        if not lam > RCOND * top:
            continue
        y = 0.0
        for i in range(m):
            y += V[i, k] * rhs[i]
        y /= lam
        for i in range(m):
            out[i] += V[i, k] * y
    return True


@njit(cache=True, nogil=True)
def _all_finite1(x):
    for i in range(x.shape[0]):
        if not math.isfinite(x[i]):
            return False
    return True


@njit(cache=True, nogil=True)
def _all_finite2(x):
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            if not math.isfinite(x[i, j]):
                return False
    return True


@njit(cache=True, nogil=True)
def constraint_jacobian(a, s, ci, cf, m, G):
    """G (m, nu): the holonomic constraint Jacobian (pverr = G u). The status."""
    parent, us, nus = i1(a, s, SLOT.parent), i1(a, s, SLOT.us), i1(a, s, SLOT.nus)
    H_G, p_GB, R_GB = f3(a, s, SLOT.H_G), f2(a, s, SLOT.p_GB), f3(a, s, SLOT.R_GB)
    n = m * parent.shape[0] * 6
    blk = np.zeros(n + KIN_SIZE)
    Gb = blk[0:n].reshape((m, parent.shape[0], 6))
    if rods_only(ci):  # (no kinematics buffers to carve)
        status = rod_rows(ci, cf, R_GB, p_GB, Gb)
    else:
        buf, C = _kinematics_views(blk[n : n + KIN_SIZE])
        status = body_rows_into(ci, cf, R_GB, p_GB, Gb, buf, C)
    if status != OK:
        return status
    for e in range(m):
        row = G[e]
        row[:] = 0.0
        multiply_by_system_jacobian_transpose_in_place(parent, us, nus, H_G, p_GB, Gb[e], row)
    mobility_rows_add(ci, cf, G)
    return OK


def constrained_work_size(m, nb, nu):
    """The length of the float64 scratch ``constrained_accelerations_into`` needs for m
    equations, nb bodies (Ground included) and nu mobilities."""
    return 2 * m * nu + m * nb * 6 + 3 * m * m + 2 * nu + nb * 6 + m + 18 + 4 * 6 + 2 * 6 + 72


constrained_work_size_kernel = njit(cache=True, nogil=True)(constrained_work_size)


@njit(cache=True, nogil=True)
def constrained_accelerations(a, s, with_inertias, euler, ci, cf, m, lam, udot_err):
    """Correct the unconstrained udot (the table's) by the constraint forces: udot,
    A_GB and qdotdot in the table, the multipliers ``lam`` (m,) and the acceleration
    errors ``udot_err`` (m,). ``with_inertias``: the articulated inertias must be
    computed first. The status (nothing written unless OK)."""
    nb, nu = s[SLOT.parent, 0], s[SLOT.udot, 0]
    work = np.empty(constrained_work_size_kernel(m, nb, nu))
    return constrained_accelerations_into(
        a, s, with_inertias, euler, ci, cf, m, lam, udot_err, carve_work(work, m, nb, nu), 0
    )


#: the scratch arrays of ``constrained_accelerations_into`` in ``carve_work``'s table,
#: declared once: (name, kind, number of dimensions); ``WORK_SLOT.G`` is G's place
WORK_SPEC = (
    ("G", "f", 2), ("Gb", "f", 3), ("Yt", "f", 2), ("W", "f", 2), ("Ws", "f", 2),
    ("Vs", "f", 2), ("col", "f", 1), ("rhs", "f", 1), ("A0", "f", 2), ("aerr0", "f", 1),
    ("R", "f", 3), ("p", "f", 2), ("w", "f", 2), ("v", "f", 2), ("b", "f", 2), ("a", "f", 2),
    ("C", "f", 3),
)  # fmt: skip
WORK_SLOT = namedtuple("WorkSlot", [name for name, _, _ in WORK_SPEC])(*range(len(WORK_SPEC)))


@njit(cache=True, nogil=True)
def carve_work(work, m, nb, nu):
    """The scratch of ``constrained_accelerations_into`` in ``work`` (float64, at least
    ``constrained_work_size(m, nb, nu)`` long) as (work, addresses, shapes): a table of
    its arrays G (m, nu), Gb (m, nb, 6), Yt (m, nu), W, Ws, Vs (m, m), col, rhs (nu,), A0
    (nb, 6), aerr0 (m,), the kinematics buffers R (2, 3, 3), p, w, v, b, a (2, 3) and the
    rows C (12, 2, 3), read with the State table's accessors (``f1``, ``f2``, ``f3``).
    Their views carry no reference count: a small model's constraint forces cost less
    than counting the references of the views its kernels take."""
    shapes = np.zeros((17, 3), dtype=np.int64)
    dims = (
        (m, nu, 0), (m, nb, 6), (m, nu, 0), (m, m, 0), (m, m, 0), (m, m, 0), (nu, 0, 0),
        (nu, 0, 0), (nb, 6, 0), (m, 0, 0), (2, 3, 3), (2, 3, 0), (2, 3, 0), (2, 3, 0),
        (2, 3, 0), (2, 3, 0), (12, 2, 3),
    )  # fmt: skip
    addresses = np.zeros(17, dtype=np.int64)
    base = np.int64(work.ctypes.data)
    o = 0
    for k in range(17):
        size = 1
        for d in range(3):
            shapes[k, d] = dims[k][d]
            if dims[k][d]:
                size *= dims[k][d]
        addresses[k] = base + 8 * o
        o += size
    if o > work.shape[0]:
        raise ValueError("carve_work: the work array is too short")
    return work, addresses, shapes


@njit(cache=True, nogil=True, inline="always")
def work_buffers(work):
    """The kinematics buffers (R, p, w, v, b, a) of ``carve_work``'s table."""
    wa, ws = work[1], work[2]
    return (
        f3(wa, ws, WORK_SLOT.R),
        f2(wa, ws, WORK_SLOT.p),
        f2(wa, ws, WORK_SLOT.w),
        f2(wa, ws, WORK_SLOT.v),
        f2(wa, ws, WORK_SLOT.b),
        f2(wa, ws, WORK_SLOT.a),
    )


@njit(cache=True, nogil=True)
def constrained_accelerations_into(
    a, s, with_inertias, euler, ci, cf, m, lam, udot_err, work, interrupt
):
    """``constrained_accelerations`` with its scratch given: ``work`` the table
    ``carve_work`` makes (once per stepping call: carving costs more than a small
    model's constraint forces), so that a call allocates and carves nothing.
    ``interrupt``: the address of an InterruptRequest (0: none), looked at once per
    equation and per column of the factorization; INTERRUPTED if it was set (udot and
    the acceleration errors are then not written; the multipliers and the articulated
    inertias may be)."""
    parent, us, nus = i1(a, s, SLOT.parent), i1(a, s, SLOT.us), i1(a, s, SLOT.nus)
    H_G, p_GB, R_GB = f3(a, s, SLOT.H_G), f2(a, s, SLOT.p_GB), f3(a, s, SLOT.R_GB)
    V_GB, cor = f2(a, s, SLOT.V_GB), f2(a, s, SLOT.total_coriolis)
    udot, A_GB = f1(a, s, SLOT.udot), f2(a, s, SLOT.A_GB)
    nb, nu = parent.shape[0], udot.shape[0]
    wa, ws = work[1], work[2]
    G, Gb, Yt = f2(wa, ws, WORK_SLOT.G), f3(wa, ws, WORK_SLOT.Gb), f2(wa, ws, WORK_SLOT.Yt)
    W, Ws, Vs = f2(wa, ws, WORK_SLOT.W), f2(wa, ws, WORK_SLOT.Ws), f2(wa, ws, WORK_SLOT.Vs)
    col, rhs = f1(wa, ws, WORK_SLOT.col), f1(wa, ws, WORK_SLOT.rhs)
    A0, aerr0 = f2(wa, ws, WORK_SLOT.A0), f1(wa, ws, WORK_SLOT.aerr0)
    buf, C = work_buffers(work), f3(wa, ws, WORK_SLOT.C)
    # G = (J^T Gb^T)^T
    status = rows_into(ci, cf, R_GB, p_GB, Gb, buf, C)
    if status != OK:
        return status
    for e in range(m):  # Gb[e] is the scratch of the product
        if interrupted(interrupt):
            return INTERRUPTED
        row = G[e]
        row[:] = 0.0
        multiply_by_system_jacobian_transpose_in_place(parent, us, nus, H_G, p_GB, Gb[e], row)
    mobility_rows_add(ci, cf, G)
    # Y = M^-1 G^T (stored as its transpose), W = G Y (symmetric: beyond LARGE_M
    # equations only its upper triangle is summed)
    for e in range(m):
        if interrupted(interrupt):
            return INTERRUPTED
        for i in range(nu):
            rhs[i] = G[e, i]
        if m_inverse_times(a, s, with_inertias and e == 0, rhs, col):
            return NOT_FINITE
        for i in range(nu):
            Yt[e, i] = col[i]
    if not row_products(G, Yt, W, m > LARGE_M, interrupt):
        return INTERRUPTED
    # the acceleration errors of the unconstrained udot0
    multiply_by_system_jacobian(parent, us, nus, H_G, p_GB, udot, A0)
    for b in range(nb):
        for j in range(6):
            A0[b, j] += cor[b, j]
    aerr0[:] = 0.0
    status = errors_into(ci, cf, np.int64(_ACCELERATION), R_GB, p_GB, V_GB, A0, udot, aerr0, buf)
    if status != OK:
        return status
    if not (_all_finite2(W) and _all_finite1(aerr0)):
        return NOT_FINITE
    if not least_squares_into(W, aerr0, lam, Ws, Vs, interrupt):
        return INTERRUPTED
    for i in range(nu):
        acc = 0.0
        for e in range(m):
            acc += Yt[e, i] * lam[e]
        udot[i] -= acc
    for i in range(m):
        acc = 0.0
        for j in range(m):
            acc += W[i, j] * lam[j]
        udot_err[i] = aerr0[i] - acc
    multiply_by_system_jacobian(parent, us, nus, H_G, p_GB, udot, A_GB)
    for b in range(nb):
        for j in range(6):
            A_GB[b, j] += cor[b, j]
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
    return OK


@njit(cache=True, nogil=True)
def position_errors(a, s, ci, cf, qerr):
    """qerr[:mp] = perr of every constraint (Position stage). The status."""
    R_GB, p_GB, q = f3(a, s, SLOT.R_GB), f2(a, s, SLOT.p_GB), f1(a, s, SLOT.q)
    return constraint_errors(ci, cf, np.int64(_POSITION), R_GB, p_GB, p_GB, p_GB, q, qerr)


@njit(cache=True, nogil=True)
def velocity_errors(a, s, ci, cf, uerr):
    """uerr[:mp] = pverr of every constraint (Velocity stage). The status."""
    R_GB, p_GB, V_GB = f3(a, s, SLOT.R_GB), f2(a, s, SLOT.p_GB), f2(a, s, SLOT.V_GB)
    u = f1(a, s, SLOT.u)
    return constraint_errors(ci, cf, np.int64(_VELOCITY), R_GB, p_GB, V_GB, V_GB, u, uerr)
