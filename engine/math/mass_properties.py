"""MassProperties: mass, mass center and inertia of a rigid body B, as Simbody's.

Frames and units: the mass is in kg; the mass center ``p_BoC`` is the vector from B's origin Bo
to the mass center C, expressed in B (m); the inertia is taken about **Bo** (not about C) and
expressed in B (kg m^2). Instances are immutable.

Validation on construction: mass finite and >= 0; mass center finite; the inertia about Bo
must be a possible inertia by itself (Inertia's checks); a massless body must have zero inertia.
Violations raise NonPhysicalError quoting the numbers. Infinite mass is allowed only through
``MassProperties.ground()``, the mass properties Simbody gives Ground.

**Note** (as Simbody): the inertia about Bo is *not* required to be consistent with the mass
and mass center -- Simbody accepts e.g. ``MassProperties(1, Vec3(0, -1, 0), Inertia(1))``, whose
central inertia ``I_C = I_Bo - m(|c|^2 1 - c c^T)`` has a negative moment. Such a body still
simulates (only ``I_Bo``, m and c enter the equations of motion). ``isPhysicallyConsistent()``
reports it, and the methods that would have to produce the impossible central inertia
(``calcCentralInertia``, and shifts whose result is impossible) raise NonPhysicalError.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError, NonPhysicalError
from engine.math.inertia import Inertia, UnitInertia, point_mass_matrix
from engine.math.rotation import Rotation
from engine.math.transform import Transform
from engine.math.vec import as_vec3, cross_matrix

# Simbody's SignificantReal, the default tolerance of the "nearly" queries.
SIGNIFICANT_REAL = float(np.finfo(np.float64).eps) ** 0.875


def _fmt(values) -> str:
    return ", ".join(f"{float(v):.10g}" for v in np.atleast_1d(values))


def _check_mass(mass) -> float:
    try:
        m = float(np.asarray(mass, dtype=np.float64))
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"mass must be a number, got {mass!r}") from exc
    if np.isnan(m):
        raise InvalidArgumentError("mass must be a number, got NaN")
    if np.isinf(m):
        raise NonPhysicalError(
            f"mass must be finite, got {m}; use MassProperties.ground() for Ground's infinite mass"
        )
    if m < 0:
        raise NonPhysicalError(f"mass must be >= 0, got {m:.10g} kg")
    return m


def _as_inertia(inertia, mass: float) -> Inertia:
    """The inertia about Bo: a UnitInertia is scaled by the mass (as Simbody)."""
    if isinstance(inertia, UnitInertia):
        return inertia * mass
    if isinstance(inertia, Inertia):
        return inertia
    return Inertia(inertia)


class MassProperties:
    """Mass (kg), mass center p_BoC in B (m) and inertia about Bo in B (kg m^2) of a body B.

    ``MassProperties(mass, com_in_B, inertia_about_Bo_in_B)``: the inertia may be an Inertia,
    a UnitInertia (then multiplied by the mass, as Simbody's overload does) or anything
    ``Inertia(...)`` accepts as a single argument (3 moments, a 3x3 matrix).
    """

    __slots__ = ("_mass", "_com", "_inertia")
    __array_ufunc__ = None

    def __init__(self, mass: float, com_in_B, inertia_about_Bo_in_B) -> None:
        m = _check_mass(mass)
        com = as_vec3(com_in_B, "mass center")
        inertia = _as_inertia(inertia_about_Bo_in_B, m)
        _check_massless(m, inertia)
        self._set(m, com, inertia)

    def _set(self, m: float, com: np.ndarray, inertia: Inertia) -> None:
        com = np.array(com, dtype=np.float64)
        com.flags.writeable = False
        self._mass, self._com, self._inertia = float(m), com, inertia

    @classmethod
    def _make(cls, m: float, com: np.ndarray, inertia: Inertia) -> MassProperties:
        """Build from values known to be consistent (no checks)."""
        mp = cls.__new__(cls)
        mp._set(m, com, inertia)
        return mp

    @classmethod
    def ground(cls) -> MassProperties:
        """Ground's mass properties: infinite mass and inertia, mass center at the origin.

        This is the only way to get infinite mass. ``isInf()`` is true; shifting or
        re-centering these raises InvalidArgumentError; ``toSpatialMat()`` is infinite on the
        diagonal and zero elsewhere.
        """
        return cls._make(np.inf, np.zeros(3), Inertia._trusted(np.diag([np.inf] * 3)))

    # ----------------------------------------------------------------------- access

    def getMass(self) -> float:
        """Mass in kg."""
        return self._mass

    def getMassCenter(self) -> np.ndarray:
        """p_BoC, from Bo to the mass center, in B (read-only (3,) array, m)."""
        return self._com

    def getInertia(self) -> Inertia:
        """Inertia about Bo, in B (kg m^2)."""
        return self._inertia

    def getUnitInertia(self) -> UnitInertia:
        """Inertia about Bo per unit mass (m^2); zero for a massless body."""
        self._require_finite("getUnitInertia")
        if self._mass == 0.0:
            return UnitInertia.pointMassAtOrigin()
        return UnitInertia._trusted(self._inertia.asSymMat33() / self._mass)

    # ----------------------------------------------------------------------- derived inertias

    def calcCentralInertia(self) -> Inertia:
        """Inertia about the mass center C, still expressed in B.

        Raises NonPhysicalError if these mass properties are not physically consistent (see
        ``isPhysicallyConsistent``): their central inertia is not a possible inertia.
        """
        self._require_finite("calcCentralInertia")
        return self._shifted_inertia(self._com, "central inertia")

    def calcShiftedInertia(self, newOriginB) -> Inertia:
        """Inertia about the point ``newOriginB`` (from Bo, in B), still expressed in B.

        ``I_Q = I_Bo - m pm(c) + m pm(q - c)`` (pm = point-mass matrix). Raises
        NonPhysicalError if the result is not a possible inertia (only for mass properties that
        are not physically consistent).
        """
        self._require_finite("calcShiftedInertia")
        new_origin = as_vec3(newOriginB, "new origin")
        return self._shifted_inertia(new_origin, "shifted inertia")

    def _shifted_inertia(self, q: np.ndarray, what: str) -> Inertia:
        to_c = point_mass_matrix(self._com, self._mass)
        from_c = point_mass_matrix(q - self._com, self._mass)
        I_Q = self._inertia.asSymMat33() - to_c + from_c
        scale = self._inertia.trace() + float(np.trace(to_c) + np.trace(from_c))
        try:
            return Inertia._checked(I_Q, what, scale=scale)
        except NonPhysicalError as exc:
            raise NonPhysicalError(
                f"{what} about ({_fmt(q)}) is not a possible inertia because these mass "
                f"properties are not physically consistent (mass {self._mass:.10g} kg, mass "
                f"center ({_fmt(self._com)}) m, inertia about Bo with moments "
                f"({_fmt(self._inertia.getMoments())})); see isPhysicallyConsistent(). "
                f"Details: {exc}"
            ) from exc

    def calcTransformedInertia(self, X_BC: Transform) -> Inertia:
        """Inertia about Co, expressed in C, for a frame C with pose X_BC in B."""
        X_BC = _as_transform(X_BC)
        return self.calcShiftedInertia(X_BC.p()).reexpress(X_BC.R())

    def calcShiftedMassProps(self, newOriginB) -> MassProperties:
        """These mass properties measured from ``newOriginB`` (from Bo, in B), still in B."""
        new_origin = as_vec3(newOriginB, "new origin")
        inertia = self.calcShiftedInertia(new_origin)
        return MassProperties._make(self._mass, self._com - new_origin, inertia)

    def calcTransformedMassProps(self, X_BC: Transform) -> MassProperties:
        """These mass properties measured from Co and expressed in C (pose X_BC in B)."""
        X_BC = _as_transform(X_BC)
        inertia = self.calcTransformedInertia(X_BC)
        return MassProperties._make(self._mass, X_BC.shiftBaseStationToFrame(self._com), inertia)

    def reexpress(self, R_BC: Rotation) -> MassProperties:
        """The same mass properties (same origin Bo) expressed in frame C, given R_BC, the
        orientation of C in B."""
        if not isinstance(R_BC, Rotation):
            R_BC = Rotation(R_BC)
        if self.isInf():
            return self
        com_C = R_BC.asMat33().T @ self._com
        return MassProperties._make(self._mass, com_C, self._inertia.reexpress(R_BC))

    # ----------------------------------------------------------------------- queries

    def isPhysicallyConsistent(self) -> bool:
        """True if some mass distribution has this mass, mass center and inertia about Bo,
        i.e. the central inertia satisfies the triangle inequality (Ground's: True)."""
        if self.isInf() or self._mass == 0.0:
            return True
        try:
            self._shifted_inertia(self._com, "central inertia")
        except NonPhysicalError:
            return False
        return True

    def isExactlyMassless(self) -> bool:
        """True only if the mass is exactly 0."""
        return self._mass == 0.0

    def isNearlyMassless(self, tol: float = SIGNIFICANT_REAL) -> bool:
        """True if the mass is at most ``tol`` (kg; default about 2e-14)."""
        return self._mass <= float(tol)

    def isExactlyCentral(self) -> bool:
        """True only if the mass center is exactly at Bo."""
        return bool(np.all(self._com == 0.0))

    def isNearlyCentral(self, tol: float = SIGNIFICANT_REAL) -> bool:
        """True if the mass center is within ``tol`` metres of Bo."""
        return float(self._com @ self._com) <= float(tol) ** 2

    def isNaN(self) -> bool:
        """Always False: NaN is refused on construction."""
        return False

    def isInf(self) -> bool:
        """True for Ground's infinite mass properties."""
        return bool(np.isinf(self._mass)) or self._inertia.isInf()

    def isFinite(self) -> bool:
        """True unless these are Ground's infinite mass properties."""
        return not self.isInf()

    # ----------------------------------------------------------------------- spatial form

    def toSpatialMat(self) -> np.ndarray:
        """The 6x6 spatial inertia about Bo in B, angular first:
        ``[[I, m [c]x], [-m [c]x, m 1]]`` (docs/conventions.md §6)."""
        out = np.zeros((6, 6))
        if self.isInf():
            np.fill_diagonal(out, np.inf)
            return out
        mc = self._mass * cross_matrix(self._com)
        out[:3, :3] = self._inertia.asSymMat33()
        out[:3, 3:] = mc
        out[3:, :3] = mc.T
        out[3:, 3:] = self._mass * np.eye(3)
        return out

    toMat66 = toSpatialMat

    def _require_finite(self, what: str) -> None:
        if self.isInf():
            raise InvalidArgumentError(
                f"{what} is not defined for Ground's infinite mass properties"
            )

    def __repr__(self) -> str:
        return (
            f"MassProperties(mass={self._mass:.10g}, com=({_fmt(self._com)}), "
            f"inertia_about_Bo={self._inertia!r})"
        )


def _as_transform(X) -> Transform:
    if isinstance(X, Transform):
        return X
    raise InvalidArgumentError(f"expected a Transform, got {type(X).__name__}")


def _check_massless(m: float, inertia: Inertia) -> None:
    """A massless body cannot have inertia."""
    I_Bo = inertia.asSymMat33()
    if m == 0.0 and np.any(I_Bo != 0.0):
        raise NonPhysicalError(
            f"a massless body cannot have inertia, got moments ({_fmt(np.diag(I_Bo))}) and "
            f"products ({_fmt((I_Bo[0, 1], I_Bo[0, 2], I_Bo[1, 2]))}) with mass 0"
        )
