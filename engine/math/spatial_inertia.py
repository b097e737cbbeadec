"""SpatialInertia (rigid body) and ArticulatedInertia, as Simbody's.

Both are taken about a point O (the "origin", usually a body or frame origin) and expressed in
a frame F; which ones is the caller's to track. Spatial matrices are 6x6, angular first.

- ``SpatialInertia(m, p, G)``: mass m (kg), mass center p from O (m, in F) and unit inertia G
  about O (m^2, in F). Its matrix is ``[[m G, m [p]x], [-m [p]x, m 1]]``; times a spatial
  velocity ``[w, v]`` (v of O) it gives the spatial momentum about O ``[m (G w + p x v),
  m (v - p x w)]``.
- ``ArticulatedInertia(M, F, J)``: the 6x6 symmetric ``[[J, F], [F^T, M]]`` with M mass-like
  (kg), F the first-mass-moment block (kg m) and J inertia-like (kg m^2) -- **Simbody's argument
  order (mass, massMoment, inertia)**.

Instances are immutable.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError, NonPhysicalError
from engine.math.inertia import Inertia, UnitInertia, check_inertia_matrix, point_mass_matrix
from engine.math.rotation import Rotation
from engine.math.spatial import as_mat33, as_spatial_mat, as_spatial_vec
from engine.math.transform import Transform
from engine.math.vec import as_vec3, cross_matrix

_SYMMETRY_REL_TOL = 1e-10


def _fmt(values) -> str:
    return ", ".join(f"{float(v):.10g}" for v in np.atleast_1d(values))


def _mass(value) -> float:
    try:
        m = float(np.asarray(value, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"mass must be a number, got {value!r}") from exc
    if not np.isfinite(m):
        raise InvalidArgumentError(f"mass must be finite, got {m}")
    if m < 0:
        raise NonPhysicalError(f"mass must be >= 0, got {m:.10g} kg")
    return m


def _as_unit_inertia(G) -> UnitInertia:
    if isinstance(G, UnitInertia):
        return G
    if isinstance(G, Inertia):
        return UnitInertia(G)
    return UnitInertia(G)


class SpatialInertia:
    """Rigid-body spatial inertia about a point O, expressed in a frame F; immutable.

    ``SpatialInertia(mass, p_OC, G_O)``: mass (kg), mass center location from O (m) and unit
    inertia about O (a UnitInertia, or anything UnitInertia accepts). Raises NonPhysicalError
    if the mass is negative or G is not a possible unit inertia by itself. As in Simbody (and
    MassProperties), G need not be consistent with the mass center; ``isPhysicallyConsistent``
    tells. The operations (shift, sums, ...) do not re-validate their results, so for an
    inconsistent input a derived G may not be a physical unit inertia either.
    """

    __slots__ = ("_m", "_p", "_G")
    __array_ufunc__ = None

    def __init__(self, mass: float, com, gyration) -> None:
        m = _mass(mass)
        p = as_vec3(com, "mass center")
        G = _as_unit_inertia(gyration)
        self._set(m, p, G)

    def _set(self, m: float, p: np.ndarray, G: UnitInertia) -> None:
        p = np.array(p, dtype=np.float64)
        p.flags.writeable = False
        self._m, self._p, self._G = float(m), p, G

    @classmethod
    def _make(cls, m: float, p: np.ndarray, G_matrix: np.ndarray) -> SpatialInertia:
        """Build from values known to be valid (no checks)."""
        si = cls.__new__(cls)
        si._set(m, p, UnitInertia._trusted(0.5 * (G_matrix + G_matrix.T)))
        return si

    # ----------------------------------------------------------------------- access

    def getMass(self) -> float:
        """Mass (kg)."""
        return self._m

    def getMassCenter(self) -> np.ndarray:
        """Mass center location from O, in F (read-only, m)."""
        return self._p

    def getUnitInertia(self) -> UnitInertia:
        """Unit inertia about O, in F (m^2)."""
        return self._G

    def isPhysicallyConsistent(self) -> bool:
        """True if G shifted to the mass center is a possible unit inertia (massless: True)."""
        if self._m == 0.0:
            return True
        shift = point_mass_matrix(self._p, 1.0)
        try:
            check_inertia_matrix(
                self._G.asSymMat33() - shift,
                "central unit inertia",
                scale=self._G.trace() + float(np.trace(shift)),
            )
        except NonPhysicalError:
            return False
        return True

    def calcMassMoment(self) -> np.ndarray:
        """First mass moment ``m p`` (kg m)."""
        return self._m * self._p

    def calcInertia(self) -> Inertia:
        """Inertia about O, in F: ``m G`` (kg m^2)."""
        return Inertia._trusted(self._m * self._G.asSymMat33())

    def toSpatialMat(self) -> np.ndarray:
        """The 6x6 matrix ``[[m G, m [p]x], [-m [p]x, m 1]]``."""
        out = np.empty((6, 6))
        mpx = self._m * cross_matrix(self._p)
        out[:3, :3] = self._m * self._G.asSymMat33()
        out[:3, 3:] = mpx
        out[3:, :3] = -mpx
        out[3:, 3:] = self._m * np.eye(3)
        return out

    # ----------------------------------------------------------------------- changes of point

    def shift(self, S) -> SpatialInertia:
        """The same body's spatial inertia about the point O + S (S in F, m)."""
        s = as_vec3(S, "shift S")
        p_new = self._p - s
        G = self._G.asSymMat33() - point_mass_matrix(self._p, 1.0) + point_mass_matrix(p_new, 1.0)
        return SpatialInertia._make(self._m, p_new, G)

    def reexpress(self, R_FB: Rotation) -> SpatialInertia:
        """The same spatial inertia (same point) expressed in frame B; R_FB is B's
        orientation in the current frame F."""
        if not isinstance(R_FB, Rotation):
            R_FB = Rotation(R_FB)
        p_B = R_FB.asMat33().T @ self._p
        return SpatialInertia._make(self._m, p_B, self._G.reexpress(R_FB).asSymMat33())

    def transform(self, X_FB: Transform) -> SpatialInertia:
        """About Bo and expressed in B, for a frame B with pose X_FB in F."""
        if not isinstance(X_FB, Transform):
            raise InvalidArgumentError(f"transform needs a Transform, got {type(X_FB).__name__}")
        return self.shift(X_FB.p()).reexpress(X_FB.R())

    # ----------------------------------------------------------------------- arithmetic

    def __add__(self, other: SpatialInertia) -> SpatialInertia:
        """Combined spatial inertia (same point, same frame). Two massless inertias give a
        massless one (Simbody refuses a zero total mass)."""
        if not isinstance(other, SpatialInertia):
            return NotImplemented
        mtot = self._m + other._m
        if mtot == 0.0:
            return SpatialInertia._make(0.0, np.zeros(3), np.zeros((3, 3)))
        p = (self.calcMassMoment() + other.calcMassMoment()) / mtot
        G = (self._m * self._G.asSymMat33() + other._m * other._G.asSymMat33()) / mtot
        return SpatialInertia._make(mtot, p, G)

    def __sub__(self, other: SpatialInertia) -> SpatialInertia:
        """Remove a part (same point, same frame). Raises NonPhysicalError if what is left has
        negative mass or an impossible inertia, and InvalidArgumentError if it is massless
        (as Simbody)."""
        if not isinstance(other, SpatialInertia):
            return NotImplemented
        mtot = self._m - other._m
        if mtot < 0:
            raise NonPhysicalError(
                f"subtracting mass {other._m:.10g} kg from {self._m:.10g} kg leaves negative mass"
            )
        if mtot == 0.0:
            raise InvalidArgumentError("SpatialInertia subtraction: the remaining mass is zero")
        p = (self.calcMassMoment() - other.calcMassMoment()) / mtot
        G = (self._m * self._G.asSymMat33() - other._m * other._G.asSymMat33()) / mtot
        scale = (self._m * self._G.trace() + other._m * other._G.trace()) / mtot
        G = check_inertia_matrix(G, "unit inertia left after subtraction", scale=scale)
        return SpatialInertia(mtot, p, UnitInertia._trusted(G))

    def __mul__(self, other):
        """``M * V`` for a SpatialVec -> spatial momentum (2, 3); ``M * s`` scales the mass."""
        if np.ndim(other) == 0:
            return SpatialInertia._make(self._m * _mass(other), self._p, self._G.asSymMat33())
        V = as_spatial_vec(other, "spatial velocity")
        w, v = V
        m = self._m
        return np.array(
            [
                m * (self._G.asSymMat33() @ w + np.cross(self._p, v)),
                m * (v - np.cross(self._p, w)),
            ]
        )

    __matmul__ = __mul__

    def __rmul__(self, other):
        if np.ndim(other) == 0:
            return self.__mul__(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"SpatialInertia(mass={self._m:.10g}, com=({_fmt(self._p)}), G={self._G!r})"


def _sym33(value, name: str) -> np.ndarray:
    a = as_mat33(value, name)
    asym = float(np.max(np.abs(a - a.T)))
    if asym > _SYMMETRY_REL_TOL * max(float(np.max(np.abs(a))), 1e-300):
        raise InvalidArgumentError(
            f"the {name} block of an ArticulatedInertia must be symmetric (largest |A - A^T| "
            f"is {asym:.3g}); note the argument order is (mass, massMoment, inertia)"
        )
    return 0.5 * (a + a.T)


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=np.float64)
    a.flags.writeable = False
    return a


class ArticulatedInertia:
    """Articulated-body inertia ``P = [[J, F], [F^T, M]]`` about a point, in a frame; immutable.

    ``ArticulatedInertia(mass, massMoment, inertia)`` -- Simbody's order (M, F, J): M and J are
    symmetric 3x3 (a scalar means that multiple of the identity), F is a full 3x3.
    ``ArticulatedInertia(spatialInertia)`` gives the rigid body's: ``M = m 1``,
    ``F = m [p]x``, ``J = m G``.
    """

    __slots__ = ("_M", "_F", "_J")
    __array_ufunc__ = None

    def __init__(self, *args) -> None:
        if len(args) == 1 and isinstance(args[0], SpatialInertia):
            rbi = args[0]
            M = rbi.getMass() * np.eye(3)
            F = cross_matrix(rbi.calcMassMoment())
            J = rbi.calcInertia().toMat33()
        elif len(args) == 3:
            M = _sym33(args[0], "mass")
            F = as_mat33(args[1], "massMoment")
            J = _sym33(args[2], "inertia")
        else:
            raise InvalidArgumentError(
                "ArticulatedInertia takes (mass, massMoment, inertia) or (SpatialInertia); got "
                f"{len(args)} arguments"
            )
        self._M, self._F, self._J = _frozen(M), _frozen(F), _frozen(J)

    @classmethod
    def _make(cls, M: np.ndarray, F: np.ndarray, J: np.ndarray) -> ArticulatedInertia:
        ai = cls.__new__(cls)
        ai._M, ai._F, ai._J = _frozen(M), _frozen(F), _frozen(0.5 * (J + J.T))
        return ai

    def getMass(self) -> np.ndarray:
        """The mass-like block M (symmetric 3x3, read-only)."""
        return self._M

    def getMassMoment(self) -> np.ndarray:
        """The first-mass-moment block F (3x3, read-only)."""
        return self._F

    def getInertia(self) -> np.ndarray:
        """The inertia-like block J (symmetric 3x3, read-only)."""
        return self._J

    def toSpatialMat(self) -> np.ndarray:
        """The 6x6 matrix ``[[J, F], [F^T, M]]``."""
        out = np.empty((6, 6))
        out[:3, :3], out[:3, 3:] = self._J, self._F
        out[3:, :3], out[3:, 3:] = self._F.T, self._M
        return out

    def shift(self, s) -> ArticulatedInertia:
        """Rigid shift ``P' = Phi(s) P Phi(s)^T``, exactly as Simbody's ``shift(s)``.

        **Direction (Simbody's)**: ``s`` points from the *new* point to the current one, e.g.
        ``P_about_Po = P_about_Bo.shift(p_PoBo)``. (``SpatialInertia.shift(S)`` instead moves
        the point *by* S.) Blocks: ``F' = F + [s]x M``, ``J' = J + [s]x F^T - F' [s]x``.
        """
        S = cross_matrix(as_vec3(s, "shift s"))
        F_new = self._F + S @ self._M
        J_new = self._J + S @ self._F.T - F_new @ S
        return ArticulatedInertia._make(self._M, F_new, J_new)

    def _blocks_of(self, other):
        if isinstance(other, SpatialInertia):
            other = ArticulatedInertia(other)
        if not isinstance(other, ArticulatedInertia):
            return None
        return other

    def __add__(self, other) -> ArticulatedInertia:
        """Sum with another ArticulatedInertia or a SpatialInertia (same point and frame)."""
        o = self._blocks_of(other)
        if o is None:
            return NotImplemented
        return ArticulatedInertia._make(self._M + o._M, self._F + o._F, self._J + o._J)

    __radd__ = __add__

    def __sub__(self, other) -> ArticulatedInertia:
        """Difference (same point and frame)."""
        o = self._blocks_of(other)
        if o is None:
            return NotImplemented
        return ArticulatedInertia._make(self._M - o._M, self._F - o._F, self._J - o._J)

    def __mul__(self, other) -> np.ndarray:
        """``P * A`` for a SpatialVec A (shape (2, 3) result)."""
        if np.shape(other) == (6, 6):
            return self.toSpatialMat() @ as_spatial_mat(other)
        A = as_spatial_vec(other, "spatial vector")
        return np.array([self._J @ A[0] + self._F @ A[1], self._F.T @ A[0] + self._M @ A[1]])

    __matmul__ = __mul__

    def __repr__(self) -> str:
        return (
            f"ArticulatedInertia(M={self._M.tolist()}, F={self._F.tolist()}, J={self._J.tolist()})"
        )
