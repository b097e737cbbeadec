"""Constraint: base class of every constraint of a SimbodyMatterSubsystem.

A constraint adds ``mp`` holonomic (position), ``mv`` nonholonomic (velocity) and
``ma`` acceleration-only equations, each with a Lagrange multiplier. Subclasses
give the error functions in the constraint's ancestor frame A (see
``ConstraintKinematics``) and the forces a set of multipliers produces:

* ``_perr(k)`` (mp), ``_pverr(k)`` = d/dt perr (mp), ``_paerr(k)`` = d/dt pverr (mp);
* ``_verr(k)`` (mv), ``_vaerr(k)`` = d/dt verr (mv); ``_aerr(k)`` (ma);
* ``_forces(k, out, lam_p, lam_v, lam_a)``: body forces at Bo in A on the constrained
  bodies and generalized forces on the constrained mobilities, with the sign of
  docs/conventions.md §8 (G^T lambda = J^T F + f).

The matter subsystem owns the equation layout, the multipliers and the operators;
the accessors here read this constraint's slice of them from a State.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from engine.common.exceptions import InvalidArgumentError
from engine.common.index_arg import index_value
from engine.common.real_array import real_array
from engine.common.stage import Stage
from engine.common.stage_arg import stage_value
from engine.multibody.constraints.kinematics import ConstraintForces, ConstraintKinematics

if TYPE_CHECKING:
    from engine.common.state import State
    from engine.multibody.mobilized_body import MobilizedBody
    from engine.multibody.simbody_matter_subsystem import SimbodyMatterSubsystem


def as_vec3(value, what: str) -> np.ndarray:
    """A finite 3-vector from ``value`` (Vec3, UnitVec3, sequence)."""
    if hasattr(value, "asVec3"):
        value = value.asVec3()
    arr = real_array(value, what, "3 finite numbers").reshape(-1)
    if arr.shape != (3,) or not np.all(np.isfinite(arr)):
        raise InvalidArgumentError(f"{what}: expected 3 finite numbers, got {value!r}")
    return arr


def as_unit_vec3(value, what: str) -> np.ndarray:
    v = as_vec3(value, what)
    n = float(np.linalg.norm(v))
    if n == 0.0:
        raise InvalidArgumentError(f"{what}: a direction must not be the zero vector")
    return v / n


def as_mat33(value, what: str) -> np.ndarray:
    """A rotation matrix from a Rotation or a 3x3 array."""
    if hasattr(value, "asMat33"):
        value = value.asMat33()
    arr = np.asarray(value, dtype=np.float64).reshape(3, 3)
    if not np.allclose(arr.T @ arr, np.eye(3), atol=1e-9):
        raise InvalidArgumentError(f"{what}: not a rotation matrix")
    return arr


def as_transform(value, what: str) -> tuple[np.ndarray, np.ndarray]:
    """(R, p) from a Transform (or None for identity)."""
    if value is None:
        return np.eye(3), np.zeros(3)
    if hasattr(value, "R") and hasattr(value, "p"):
        return as_mat33(value.R(), what), as_vec3(value.p(), what)
    raise InvalidArgumentError(f"{what}: expected a Transform, got {type(value).__name__}")


def as_mobilized_body(matter, body, what: str):
    """The MobilizedBody ``body`` names: the handle itself, or (as Simbody's signatures that
    take a MobilizedBodyIndex) the body of ``matter`` with that index."""
    from engine.multibody.matter.arguments import body_index
    from engine.multibody.mobilized_body import MobilizedBody

    if isinstance(body, MobilizedBody):
        return body
    if matter is None or not hasattr(matter, "getMobilizedBody"):
        raise InvalidArgumentError(
            f"{what}: a MobilizedBodyIndex needs the SimbodyMatterSubsystem it indexes"
        )
    return matter.getMobilizedBody(body_index(matter, body, what))


class Constraint:
    """Base of every constraint (Simbody's Constraint handle and its implementation)."""

    #: (mp, mv, ma): number of position, velocity and acceleration-only equations.
    NUM_EQUATIONS: tuple[int, int, int] = (0, 0, 0)
    TYPE_NAME = "Constraint"

    def __init__(
        self,
        bodies: list[MobilizedBody],
        mobilities: list[tuple[MobilizedBody, int]] | None = None,
        *,
        distinct: bool = True,
        matter: SimbodyMatterSubsystem | None = None,
    ) -> None:
        from engine.multibody.mobilized_body import MobilizedBody

        mobilities = list(mobilities or [])
        handles = list(bodies) + [m for m, _ in mobilities]
        for h in handles:
            if not isinstance(h, MobilizedBody):
                raise InvalidArgumentError(
                    f"Constraint.{self.TYPE_NAME}: expected MobilizedBody arguments, got "
                    f"{type(h).__name__}"
                )
        if matter is None:
            if not handles:
                raise InvalidArgumentError(
                    f"Constraint.{self.TYPE_NAME} needs at least one mobilized body"
                )
            matter = handles[0].getMatterSubsystem()
        for h in handles:
            if h.getMatterSubsystem() is not matter:
                raise InvalidArgumentError(
                    f"Constraint.{self.TYPE_NAME}: all bodies must belong to the same "
                    "SimbodyMatterSubsystem"
                )
        ids = [b.getMobilizedBodyIndex() for b in bodies]
        if distinct and len(set(ids)) != len(ids):
            raise InvalidArgumentError(
                f"Constraint.{self.TYPE_NAME}: a constraint between a body and itself "
                f"(mobilized body {ids[0]}) constrains nothing; give two different bodies"
            )
        for mobod, which in mobilities:
            if mobod.isGround():
                raise InvalidArgumentError(
                    f"Constraint.{self.TYPE_NAME}: Ground has no mobilities to constrain"
                )
            nu = mobod._module.NU
            if not 0 <= int(which) < nu:
                raise InvalidArgumentError(
                    f"Constraint.{self.TYPE_NAME}: mobilizer of body "
                    f"{mobod.getMobilizedBodyIndex()} has {nu} mobilities; index {which} is "
                    "out of range"
                )
        self._matter = matter
        self._bodies = list(bodies)
        self._mobilities = [(m, int(w)) for m, w in mobilities]
        self._disabled_by_default = False
        self._body_ix: list[int] = ids
        self._ancestor = 0
        self._u_ix = np.zeros(0, dtype=np.int64)
        self._q_ix = np.zeros(0, dtype=np.int64)
        self._index = matter.adoptConstraint(self)

    # ------------------------------------------------------------ identity
    def getConstraintIndex(self) -> int:
        return self._index

    def getMatterSubsystem(self) -> SimbodyMatterSubsystem:
        return self._matter

    def getNumConstrainedBodies(self) -> int:
        return len(self._bodies)

    def getMobilizedBodyFromConstrainedBody(self, k: int) -> MobilizedBody:
        k = index_value(k, "getMobilizedBodyFromConstrainedBody: k")
        if not 0 <= k < len(self._bodies):
            raise InvalidArgumentError(
                f"getMobilizedBodyFromConstrainedBody: k: constrained body {k} out of range "
                f"(this constraint has {len(self._bodies)})"
            )
        return self._bodies[k]

    def _constrained_mobilizers(self) -> list:
        out, seen = [], set()
        for m, _ in self._mobilities:
            if m.getMobilizedBodyIndex() not in seen:
                seen.add(m.getMobilizedBodyIndex())
                out.append(m)
        return out

    def getNumConstrainedMobilizers(self) -> int:
        return len(self._constrained_mobilizers())

    def getMobilizedBodyFromConstrainedMobilizer(self, i: int) -> MobilizedBody:
        """The i-th distinct mobilizer whose mobilities this constraint acts on."""
        i = index_value(i, "getMobilizedBodyFromConstrainedMobilizer: i")
        mobs = self._constrained_mobilizers()
        if not 0 <= i < len(mobs):
            raise InvalidArgumentError(
                f"getMobilizedBodyFromConstrainedMobilizer: i: constrained mobilizer {i} out "
                f"of range (this constraint has {len(mobs)})"
            )
        return mobs[i]

    def getNumConstrainedU(self, state: State | None = None) -> int:
        return len(self._mobilities)

    def getAncestorMobilizedBody(self) -> MobilizedBody:
        """The deepest common ancestor of the constrained bodies (Ground if none)."""
        self._matter._topo()
        return self._matter.getMobilizedBody(self._ancestor)

    # --------------------------------------------------------- topology hooks
    def _resolve(self, topo) -> None:
        """Called at realizeTopology: find the ancestor and the u/q indices."""
        self._body_ix = [b.getMobilizedBodyIndex() for b in self._bodies]
        self._ancestor = _common_ancestor(topo.parent, self._body_ix)
        self._u_ix = np.array(
            [topo.us[m.getMobilizedBodyIndex()] + w for m, w in self._mobilities], dtype=np.int64
        )
        self._q_ix = np.array(
            [topo.qs[m.getMobilizedBodyIndex()] + w for m, w in self._mobilities], dtype=np.int64
        )

    def _allocate(self, state: State) -> None:
        """Called at realizeTopology: allocate this constraint's state variables."""

    def _prepare(self, state: State) -> None:
        """Called before this constraint's equations are evaluated for ``state``: read any
        per-State parameters."""

    def getNumEquations(self) -> tuple[int, int, int]:
        return tuple(self.NUM_EQUATIONS)

    # ------------------------------------------------------- enable/disable
    def setDisabledByDefault(self, shouldBeDisabled: bool) -> Constraint:
        self._disabled_by_default = bool(shouldBeDisabled)
        self._matter.invalidateSubsystemTopologyCache()
        return self

    def isDisabledByDefault(self) -> bool:
        return self._disabled_by_default

    def disable(self, state: State) -> None:
        self._matter.setConstraintIsDisabled(state, self._index, True)

    def enable(self, state: State) -> None:
        self._matter.setConstraintIsDisabled(state, self._index, False)

    def isDisabled(self, state: State) -> bool:
        return self._matter.isConstraintDisabled(state, self._index)

    def isEnabled(self, state: State) -> bool:
        return not self.isDisabled(state)

    # ----------------------------------------------------------- state views
    def getNumConstraintEquationsInUse(self, state: State) -> tuple[int, int, int]:
        lay = self._matter._constraint_layout(state)
        i = self._index
        return int(lay.mp_i[i]), int(lay.mv_i[i]), int(lay.ma_i[i])

    def getIndexOfMultipliersInUse(self, state: State) -> tuple[int, int, int]:
        """First multiplier index of this constraint's p, v and a equations (-1 if none)."""
        lay = self._matter._constraint_layout(state)
        i = self._index
        p = int(lay.pstart[i]) if lay.mp_i[i] else -1
        v = lay.mp + int(lay.vstart[i]) if lay.mv_i[i] else -1
        a = lay.mp + lay.mv + int(lay.astart[i]) if lay.ma_i[i] else -1
        return p, v, a

    def _multiplier_rows(self, state: State) -> np.ndarray:
        lay = self._matter._constraint_layout(state)
        return lay.rows(self._index)

    def getPositionErrorsAsVector(self, state: State) -> np.ndarray:
        lay = self._matter._constraint_layout(state)
        i = self._index
        qerr = state.getQErr(self._matter.getMySubsystemIndex())
        s = int(lay.pstart[i])
        return np.array(qerr[s : s + lay.mp_i[i]])

    def getVelocityErrorsAsVector(self, state: State) -> np.ndarray:
        """[d/dt position errors (mp) | velocity errors (mv)]."""
        lay = self._matter._constraint_layout(state)
        i = self._index
        uerr = state.getUErr(self._matter.getMySubsystemIndex())
        sp, sv = int(lay.pstart[i]), lay.mp + int(lay.vstart[i])
        return np.concatenate((uerr[sp : sp + lay.mp_i[i]], uerr[sv : sv + lay.mv_i[i]]))

    def getAccelerationErrorsAsVector(self, state: State) -> np.ndarray:
        rows = self._multiplier_rows(state)
        return np.array(state.getUDotErr(self._matter.getMySubsystemIndex())[rows])

    def getMultipliersAsVector(self, state: State) -> np.ndarray:
        rows = self._multiplier_rows(state)
        return np.array(state.getMultipliers(self._matter.getMySubsystemIndex())[rows])

    def calcConstraintForcesFromMultipliers(self, state: State, multipliers):
        """(body forces (ncb, 2, 3) at each constrained body's origin, expressed in this
        constraint's Ancestor frame A (as Simbody), mobility forces (nmob,)) for the given
        multipliers of this constraint (as many as its equations in use)."""
        return self._matter._one_constraint_forces(state, self, multipliers, in_ground=False)

    def getConstraintForcesAsVectors(self, state: State):
        """Forces of this constraint's current multipliers (Acceleration stage): as
        ``calcConstraintForcesFromMultipliers`` but with the body forces in Ground."""
        lam = self.getMultipliersAsVector(state)
        return self._matter._one_constraint_forces(state, self, lam, in_ground=True)

    def calcPower(self, state: State) -> float:
        """-(F . V + f . u): power of this constraint's forces (Acceleration stage)."""
        F, f = self.getConstraintForcesAsVectors(state)
        m = self._matter
        sx = m.getMySubsystemIndex()
        m._require(state, Stage.Acceleration, "calcPower")
        V = m._vc_raw(state).V_GB
        power = sum(float(F[k].reshape(6) @ V[b]) for k, b in enumerate(self._body_ix))
        u = state.getU(sx)
        power += float(f @ u[self._u_ix]) if f.size else 0.0
        return -power

    # ------------------------------------------------------ visualization
    def calcDecorativeGeometryAndAppend(self, state: State, stage: Stage, geometry: list) -> None:
        """Append this constraint's default decorations (none unless overridden)."""
        stage_value(stage, "calcDecorativeGeometryAndAppend")

    # --------------------------------------------------- equations (override)
    def _zeros(self, n: int) -> np.ndarray:
        return np.zeros(n)

    def _perr(self, k: ConstraintKinematics) -> np.ndarray:
        return self._zeros(self.NUM_EQUATIONS[0])

    def _pverr(self, k: ConstraintKinematics) -> np.ndarray:
        return self._zeros(self.NUM_EQUATIONS[0])

    def _paerr(self, k: ConstraintKinematics) -> np.ndarray:
        return self._zeros(self.NUM_EQUATIONS[0])

    def _verr(self, k: ConstraintKinematics) -> np.ndarray:
        return self._zeros(self.NUM_EQUATIONS[1])

    def _vaerr(self, k: ConstraintKinematics) -> np.ndarray:
        return self._zeros(self.NUM_EQUATIONS[1])

    def _aerr(self, k: ConstraintKinematics) -> np.ndarray:
        return self._zeros(self.NUM_EQUATIONS[2])

    def _forces(self, k, out: ConstraintForces, lam_p, lam_v, lam_a) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<Constraint.{self.TYPE_NAME} index={self._index} bodies={self._body_ix}>"


def _common_ancestor(parent: np.ndarray, bodies: list[int]) -> int:
    """Deepest mobilized body that is an ancestor of (or equal to) every listed body."""
    if not bodies:
        return 0

    def chain(b: int) -> list[int]:
        out = [b]
        while b > 0:
            b = int(parent[b])
            out.append(b)
        return out

    common = set(chain(bodies[0]))
    for b in bodies[1:]:
        common &= set(chain(b))
    # deepest = the one with the longest chain to Ground
    return max(common, key=lambda b: len(chain(b)))
