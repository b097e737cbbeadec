"""The compiled form of a State's enabled constraints (kernels/constraint_kernels.py).

``compiled_constraints(matter, state, info)`` gives the ``(ci, cf)`` arrays the kernels
read when every enabled constraint is of a compiled type (Rod, Ball, Weld, PointInPlane,
ConstantAngle; a CoordinateCoupler whose function is a Function.Linear and a
ConstantCoordinate, on coordinates whose mobilizers have qdot = u: holonomic,
scleronomic) and nothing else needs the Python path (no prescribed accelerations, no
Custom mobilizers); otherwise None, and the constraints are realized by the Python
methods of their classes (``why_not_compiled`` says why). The arrays are kept in the
State's ``_fast`` slot and made again when its discrete variables (a Rod's length, a
ConstantCoordinate's value) or its Instance stage change.
"""

from __future__ import annotations

import numpy as np

from engine.math.function import Function
from engine.multibody.constraints.ball import Ball
from engine.multibody.constraints.constant_angle import ConstantAngle
from engine.multibody.constraints.constant_coordinate import ConstantCoordinate
from engine.multibody.constraints.coordinate_coupler import CoordinateCoupler, _qdot_is_u
from engine.multibody.constraints.point_in_plane import PointInPlane
from engine.multibody.constraints.rod import Rod
from engine.multibody.constraints.weld import Weld
from engine.multibody.kernels.constraint_kernels import (
    BALL,
    CI_ANCESTOR,
    CI_BODY1,
    CI_BODY2,
    CI_ROW,
    CI_TYPE,
    CONSTANT_ANGLE,
    LC_CONSTANT,
    LC_COUNT,
    LC_TERM_SIZE,
    LC_TERMS,
    LINEAR_COORDINATES,
    NCF,
    NCI,
    POINT_IN_PLANE,
    ROD,
    WELD,
)

_KEY = "compiled constraints"
#: Function.Linear's class (exact type: a subclass may change the function)
_LINEAR = type(Function.Linear([1.0, 0.0]))


def _linear_coordinates_row(constant: float, terms: list[tuple[int, int, float]]) -> np.ndarray:
    """LINEAR_COORDINATES's parameters: [constant, n, (iq, iu, c) per term], at least NCF
    long (constraint_kernels module doc)."""
    cf = np.zeros(max(NCF, LC_TERMS + LC_TERM_SIZE * len(terms)))
    cf[LC_CONSTANT], cf[LC_COUNT] = constant, len(terms)
    for k, term in enumerate(terms):
        o = LC_TERMS + LC_TERM_SIZE * k
        cf[o : o + LC_TERM_SIZE] = term
    return cf


def _mobility_row(c, state) -> np.ndarray | None:
    """LINEAR_COORDINATES's parameters of a CoordinateCoupler or ConstantCoordinate, or
    None when it has no such form (``_mobility_obstacle``)."""
    if _mobility_obstacle(c):
        return None
    if type(c) is ConstantCoordinate:
        # q - value (the u index is the coordinate's own: qdot = u)
        return _linear_coordinates_row(-c.getValue(state), [(c._coord_ix, c._u_ix[0], 1.0)])
    coefficients = c.getFunction().getCoefficients()
    terms = [
        (int(c._x_ix[k]), int(c._u_ix[slots[0]]), float(coefficients[k]))
        for k, slots in enumerate(c._slots)
    ]
    return _linear_coordinates_row(float(coefficients[-1]), terms)


def _mobility_obstacle(c) -> str:
    """Why a CoordinateCoupler or ConstantCoordinate ``c`` has no compiled form ("" if
    it has one)."""
    if type(c) is ConstantCoordinate:
        if not c._identity:
            return "its coordinate's mobilizer does not have qdot = u"
        return ""
    if type(c.getFunction()) is not _LINEAR:
        return "its function is not a Function.Linear"
    for mobod, _ in c._coords:
        if not _qdot_is_u(mobod):
            return f"a coordinate's mobilizer ({mobod._module.NAME}) does not have qdot = u"
    return ""


def why_not_compiled(c) -> str:
    """Why constraint ``c`` has no compiled form ("" if it has one)."""
    t = type(c)
    if t is CoordinateCoupler or t is ConstantCoordinate:
        return _mobility_obstacle(c)
    if t in (Rod, Ball, Weld, PointInPlane, ConstantAngle):
        return ""
    return "its type has no compiled form"


def why_constraints_not_compiled(matter, info) -> str:
    """Why the enabled constraints (``info``: the matter subsystem's Instance-stage
    lookups) need the Python path, naming the first that has no compiled form; for the
    fused realization's disqualification, called when ``compiled_constraints`` is None."""
    what = "constraints without a compiled form are enabled"
    lst = matter._constraint_list()
    for i in info.clayout.active:
        why = why_not_compiled(lst[i])
        if why:
            return f"{what} (constraint {i}, a {type(lst[i]).__name__}: {why})"
    return what


def constraint_row(c, state) -> tuple[int, np.ndarray] | None:
    """(type code, parameters (at least NCF)) of constraint ``c`` in ``state``, or None
    if it has no compiled form. Exact types only: a subclass may change the equations."""
    t = type(c)
    if t is CoordinateCoupler or t is ConstantCoordinate:
        row = _mobility_row(c, state)
        return None if row is None else (LINEAR_COORDINATES, row)
    cf = np.zeros(NCF)
    if t is Rod:
        cf[0:3], cf[3:6], cf[6] = c._p1, c._p2, c.getRodLength(state)
        return ROD, cf
    if t is Ball:
        cf[0:3], cf[3:6] = c._p1, c._p2
        return BALL, cf
    if t is Weld:
        cf[0:9], cf[9:12] = c._R1.reshape(9), c._o1
        cf[12:21], cf[21:24] = c._R2.reshape(9), c._o2
        return WELD, cf
    if t is PointInPlane:
        cf[0:3], cf[3], cf[4:7] = c._n, c._h, c._s
        return POINT_IN_PLANE, cf
    if t is ConstantAngle:
        cf[0:3], cf[3:6], cf[6] = c._a, c._b, c._cos
        return CONSTANT_ANGLE, cf
    return None


class CompiledConstraints:
    """The kernels' description of one State's enabled constraints (see module doc)."""

    __slots__ = ("serial", "info", "ci", "cf", "m", "uerr", "multipliers", "udot_err")

    def __init__(self, serial: int, info, ci=None, cf=None) -> None:
        self.serial, self.info, self.ci, self.cf = serial, info, ci, cf
        self.m = 0
        self.uerr = self.multipliers = self.udot_err = None


def _build(matter, state, info) -> tuple[np.ndarray, np.ndarray] | None:
    lay = info.clayout
    if lay is None or lay.m == 0 or lay.mv or lay.ma:
        return None
    if info.playout is not None and info.playout.any_known_udot:
        return None
    if matter._has_custom_bodies():
        return None
    lst = matter._constraint_list()
    ci = np.zeros((len(lay.active), NCI), dtype=np.int64)
    rows = []
    for k, i in enumerate(lay.active):
        c = lst[i]
        row = constraint_row(c, state)
        if row is None:
            return None
        ci[k, CI_TYPE] = row[0]
        rows.append(row[1])
        if row[0] != LINEAR_COORDINATES:
            if len(c._body_ix) != 2:
                return None
            ci[k, CI_ANCESTOR] = c._ancestor
            ci[k, CI_BODY1], ci[k, CI_BODY2] = c._body_ix
        ci[k, CI_ROW] = lay.pstart[i]
    cf = np.zeros((len(rows), max(r.size for r in rows)))
    for k, r in enumerate(rows):
        cf[k, : r.size] = r
    return ci, cf


def compiled_constraints(matter, state, info) -> CompiledConstraints | None:
    """The compiled description of ``state``'s enabled constraints (``info``: the matter
    subsystem's Instance-stage lookups), or None when they need the Python path."""
    fast = state._fast
    key = (_KEY, id(matter))
    entry = fast.get(key)
    serial = state._discrete_serial
    if entry is not None and entry.serial == serial and entry.info is info:
        return entry if entry.ci is not None else None
    built = _build(matter, state, info)
    if built is None:
        entry = CompiledConstraints(serial, info)
    else:
        entry = CompiledConstraints(serial, info, built[0], built[1])
        sx = matter.getMySubsystemIndex()
        entry.m = info.clayout.mp
        # this subsystem's views of the State's constraint arrays (allocated at Instance)
        entry.uerr = state.updUErr(sx)
        entry.multipliers = state.updMultipliers(sx)
        entry.udot_err = state.updUDotErr(sx)
    fast[key] = entry
    return entry if entry.ci is not None else None
