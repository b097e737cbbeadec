"""Inertia and UnitInertia: symmetric 3x3 inertia matrices, as Simbody's.

An ``Inertia`` is the inertia matrix of a body about some point O, expressed in some frame F
(kg m^2); which point and frame is the caller's to track (monogram ``I_OF_F`` or, for a body,
``I_Bo_B``). The off-diagonal entries are the matrix elements (products of inertia *with* the
minus sign of the integral definition, as Simbody), ordered xy, xz, yz.

A ``UnitInertia`` (gyration matrix ``G``, m^2) is the inertia per unit mass: ``I = m G``.

Both are immutable values. They are validated on construction: finite, symmetric, moments >= 0,
and the principal moments must satisfy the triangle inequality (each at most the sum of the
other two), which is exactly the condition for some mass distribution to have that inertia.
A violation raises NonPhysicalError quoting the numbers. A small relative tolerance
(``INERTIA_REL_TOL`` times the trace, or times the size of the terms that produced the matrix
when it comes from a shift) absorbs rounding.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError, NonPhysicalError
from engine.math.rotation import Rotation
from engine.math.vec import as_vec3, as_vector

INERTIA_REL_TOL = 1e-10
# Symmetry tolerance of a full 3x3 matrix handed to Inertia(mat33), relative to its largest entry.
_SYMMETRY_REL_TOL = 1e-10


def _fmt(values) -> str:
    return ", ".join(f"{float(v):.10g}" for v in values)


def _finite_scalar(value, name: str) -> float:
    return float(as_vector([value], 1, name)[0])


def _nonneg_scalar(value, name: str) -> float:
    x = _finite_scalar(value, name)
    if x < 0:
        raise InvalidArgumentError(f"{name} must be >= 0, got {x:.10g}")
    return x


def point_mass_matrix(p: np.ndarray, mass: float) -> np.ndarray:
    """Inertia matrix of a point mass ``mass`` at ``p`` about the origin: ``m(|p|^2 1 - p p^T)``."""
    return mass * (float(p @ p) * np.eye(3) - np.outer(p, p))


def check_inertia_matrix(m: np.ndarray, what: str, scale: float = 0.0) -> np.ndarray:
    """Validate a symmetric 3x3 inertia matrix; return it exactly symmetrized.

    ``scale`` is the magnitude (kg m^2) of the terms the matrix was computed from, so that
    cancellation in e.g. a shift to the mass center is not mistaken for a physical violation.
    Raises InvalidArgumentError (not finite) or NonPhysicalError (physically impossible).
    """
    if not np.all(np.isfinite(m)):
        raise InvalidArgumentError(f"{what} must be finite, got {m.tolist()}")
    m = 0.5 * (m + m.T)
    d = np.diag(m)
    tol = INERTIA_REL_TOL * max(float(np.sum(np.abs(d))), float(scale))
    if np.any(d < -tol):
        raise NonPhysicalError(
            f"{what}: moments of inertia must be >= 0, got Ixx, Iyy, Izz = {_fmt(d)}"
        )
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        if d[i] > d[j] + d[k] + tol:
            raise NonPhysicalError(
                f"{what}: moments of inertia Ixx, Iyy, Izz = {_fmt(d)} violate the triangle "
                f"inequality (I{'xyz'[i] * 2} = {d[i]:.10g} > "
                f"I{'xyz'[j] * 2} + I{'xyz'[k] * 2} = {d[j] + d[k]:.10g}); no body has this inertia"
            )
    principal = np.linalg.eigvalsh(m)
    if principal[2] > principal[0] + principal[1] + tol or principal[0] < -tol:
        raise NonPhysicalError(
            f"{what}: principal moments {_fmt(principal)} (from moments {_fmt(d)} and products "
            f"xy, xz, yz = {_fmt((m[0, 1], m[0, 2], m[1, 2]))}) violate the triangle inequality "
            f"(largest {principal[2]:.10g} > sum of the others "
            f"{principal[0] + principal[1]:.10g}); the products of inertia are too large for "
            "these moments"
        )
    return m


def _matrix_from_args(args: tuple, kwargs: dict, cls_name: str) -> np.ndarray:
    """Parse the Simbody-style constructor arguments into a 3x3 matrix (not yet validated)."""
    if kwargs and len(args) != 3:
        raise InvalidArgumentError(f"{cls_name}: xy, xz, yz keywords go with (xx, yy, zz)")
    if len(args) == 1:
        return _matrix_from_one(args[0], cls_name)
    if len(args) == 2 and np.ndim(args[1]) == 0:
        if cls_name != "Inertia":
            raise InvalidArgumentError(f"{cls_name} takes no (point, mass) form")
        p = as_vec3(args[0], "point-mass location")
        mass = _nonneg_scalar(args[1], "point mass")
        return point_mass_matrix(p, mass)
    if len(args) == 2:
        moments = as_vec3(args[0], f"{cls_name} moments (xx, yy, zz)")
        products = as_vec3(args[1], f"{cls_name} products (xy, xz, yz)")
        return _from_moments_products(moments, products)
    if len(args) in (3, 6):
        values = as_vector(args, len(args), f"{cls_name} elements")
        moments = values[:3]
        if len(args) == 6:
            products = values[3:]
        else:
            products = as_vector(
                [kwargs.get("xy", 0.0), kwargs.get("xz", 0.0), kwargs.get("yz", 0.0)],
                3,
                f"{cls_name} products (xy, xz, yz)",
            )
        return _from_moments_products(moments, products)
    raise InvalidArgumentError(
        f"{cls_name} takes (moment), (moments), (moments, products), (xx, yy, zz[, xy, xz, yz]) "
        f"or a symmetric 3x3 matrix; got {len(args)} arguments"
    )


def _matrix_from_one(arg, cls_name: str) -> np.ndarray:
    if isinstance(arg, Inertia):
        return arg._m.copy()
    shape = np.shape(arg)
    if shape == ():
        return _finite_scalar(arg, f"{cls_name} moment") * np.eye(3)
    if shape == (3,):
        return _from_moments_products(as_vec3(arg, f"{cls_name} moments"), np.zeros(3))
    if shape == (3, 3):
        m = np.array(arg, dtype=np.float64)
        if not np.all(np.isfinite(m)):
            raise InvalidArgumentError(f"{cls_name} matrix must be finite, got {m.tolist()}")
        asym = float(np.max(np.abs(m - m.T)))
        if asym > _SYMMETRY_REL_TOL * max(float(np.max(np.abs(m))), 1e-300):
            raise InvalidArgumentError(
                f"{cls_name} matrix must be symmetric; largest |M - M^T| entry is {asym:.3g}"
            )
        return m
    raise InvalidArgumentError(
        f"{cls_name} needs a scalar, 3 moments or a 3x3 matrix, got something of shape {shape}"
    )


def _from_moments_products(moments: np.ndarray, products: np.ndarray) -> np.ndarray:
    xy, xz, yz = products
    return np.array(
        [[moments[0], xy, xz], [xy, moments[1], yz], [xz, yz, moments[2]]], dtype=np.float64
    )


class Inertia:
    """Inertia matrix about a point O, expressed in a frame F (kg m^2); immutable.

    Constructors (as Simbody): ``Inertia(moment)`` (``moment * 1``), ``Inertia(moments)``,
    ``Inertia(moments, products)``, ``Inertia(xx, yy, zz)``, ``Inertia(xx, yy, zz, xy, xz,
    yz)`` (or ``xy=, xz=, yz=`` keywords), ``Inertia(mat33)`` (must be symmetric), ``Inertia(I)``.
    **Note** (Simbody's overloads): ``Inertia(p, mass)`` -- a 3-vector then a *scalar* -- is the
    inertia of a point mass at p, not moments with zero products; pass products as a 3-vector.
    ``Inertia()`` raises (Simbody's default is NaN); use ``Inertia(0)`` for zero.

    The shape factories (``sphere``, ``brick``, ...) return *unit-mass* inertias, exactly as
    Simbody's ``Inertia::brick`` etc.; multiply by the mass (``Inertia.brick(a, b, c) * m``).
    """

    __slots__ = ("_m",)
    # Make numpy defer to our operators (e.g. ``np.float64(2.0) * I`` uses ``__rmul__``).
    __array_ufunc__ = None

    def __init__(self, *args, **kwargs) -> None:
        unknown = set(kwargs) - {"xy", "xz", "yz"}
        if unknown:
            raise InvalidArgumentError(f"unexpected keyword(s) {sorted(unknown)}")
        if not args:
            raise InvalidArgumentError(
                f"{type(self).__name__}() needs values (Simbody's default is NaN); use "
                f"{type(self).__name__}(0) for a zero inertia"
            )
        m = _matrix_from_args(args, kwargs, type(self).__name__)
        m = check_inertia_matrix(m, type(self).__name__)
        m.flags.writeable = False
        self._m = m

    @classmethod
    def _trusted(cls, m: np.ndarray):
        """Wrap a matrix known to be valid (no checks)."""
        obj = cls.__new__(cls)
        m = np.array(m, dtype=np.float64)
        m.flags.writeable = False
        obj._m = m
        return obj

    @classmethod
    def _checked(cls, m: np.ndarray, what: str, scale: float = 0.0):
        return cls._trusted(check_inertia_matrix(np.asarray(m, dtype=np.float64), what, scale))

    # ----------------------------------------------------------------------- access

    def toMat33(self) -> np.ndarray:
        """The full 3x3 matrix (a writable copy)."""
        return self._m.copy()

    def asSymMat33(self) -> np.ndarray:
        """The full 3x3 matrix (read-only, no copy)."""
        return self._m

    def getMoments(self) -> np.ndarray:
        """Diagonal (Ixx, Iyy, Izz)."""
        return np.diag(self._m).copy()

    def getProducts(self) -> np.ndarray:
        """Off-diagonal matrix elements (Ixy, Ixz, Iyz)."""
        return np.array([self._m[0, 1], self._m[0, 2], self._m[1, 2]])

    def trace(self) -> float:
        """Ixx + Iyy + Izz."""
        return float(np.trace(self._m))

    def isNaN(self) -> bool:
        """True if any element is NaN (never, for a validated Inertia)."""
        return bool(np.any(np.isnan(self._m)))

    def isInf(self) -> bool:
        """True if no element is NaN and some element is infinite (Ground's inertia)."""
        return not self.isNaN() and bool(np.any(np.isinf(self._m)))

    def isFinite(self) -> bool:
        """True if every element is finite."""
        return bool(np.all(np.isfinite(self._m)))

    def isNumericallyEqual(self, other: Inertia, tol: float | None = None) -> bool:
        """Elementwise equality to a relative tolerance (default about 1e-14) of the larger
        magnitude, or absolutely when both are below 1."""
        if not isinstance(other, Inertia):
            raise InvalidArgumentError("isNumericallyEqual needs an Inertia")
        tol = float(np.finfo(np.float64).eps) ** 0.875 if tol is None else float(tol)
        scale = np.maximum(1.0, np.maximum(np.abs(self._m), np.abs(other._m)))
        return bool(np.all(np.abs(self._m - other._m) <= tol * scale))

    @staticmethod
    def isValidInertiaMatrix(m) -> bool:
        """True if ``m`` (3x3) passes the same checks as the constructor."""
        try:
            check_inertia_matrix(np.asarray(m, dtype=np.float64).reshape(3, 3), "matrix")
        except (InvalidArgumentError, ValueError):
            return False
        return True

    # ----------------------------------------------------------------------- shifts and frames

    def shiftToMassCenter(self, p_OC, mass: float) -> Inertia:
        """Central inertia ``I_C = I_O - (point mass m at p_OC)``; this must be about O, with
        ``p_OC`` from O to the mass center C (in F). Raises NonPhysicalError if I_C is
        impossible, i.e. this inertia is inconsistent with that mass and mass center."""
        p = as_vec3(p_OC, "mass center location p_OC")
        m = _nonneg_scalar(mass, "mass")
        shift = point_mass_matrix(p, m)
        return Inertia._checked(
            self._m - shift,
            f"central inertia (inertia about O minus point mass {m:.10g} at {_fmt(p)})",
            scale=self.trace() + float(np.trace(shift)),
        )

    def shiftFromMassCenter(self, p_CQ, mass: float) -> Inertia:
        """Inertia about Q, ``I_Q = I_C + (point mass m at p_CQ)``; this must be central and
        ``p_CQ`` goes from the mass center C to Q (in F)."""
        p = as_vec3(p_CQ, "shift p_CQ")
        m = _nonneg_scalar(mass, "mass")
        return Inertia._trusted(self._m + point_mass_matrix(p, m))

    def reexpress(self, R_FB: Rotation):
        """The same inertia (same point) expressed in frame B: ``I_B = R_BF I_F R_FB``.

        ``R_FB`` is the orientation of the new frame B in the current frame F.
        """
        if not isinstance(R_FB, Rotation):
            R_FB = Rotation(R_FB)
        return type(self)._trusted((~R_FB).reexpressSymMat33(self._m))

    # ----------------------------------------------------------------------- factories

    @staticmethod
    def pointMassAtOrigin() -> Inertia:
        """The zero inertia."""
        return Inertia._trusted(np.zeros((3, 3)))

    @staticmethod
    def pointMassAt(p, m: float) -> Inertia:
        """Inertia about the origin of a point mass ``m`` (kg) at ``p`` (m)."""
        return Inertia._trusted(
            point_mass_matrix(as_vec3(p, "point location"), _nonneg_scalar(m, "point mass"))
        )

    @classmethod
    def sphere(cls, r: float):
        """Unit-mass solid sphere of radius r about its center: ``2/5 r^2`` on the diagonal."""
        r = _nonneg_scalar(r, "sphere radius")
        return cls._trusted(0.4 * r * r * np.eye(3))

    @classmethod
    def cylinderAlongZ(cls, r: float, hz: float):
        """Unit-mass solid cylinder along z, radius r, half-length hz, about its center."""
        return cls._trusted(np.diag(_cylinder(r, hz, 2)))

    @classmethod
    def cylinderAlongY(cls, r: float, hy: float):
        """Unit-mass solid cylinder along y, radius r, half-length hy, about its center."""
        return cls._trusted(np.diag(_cylinder(r, hy, 1)))

    @classmethod
    def cylinderAlongX(cls, r: float, hx: float):
        """Unit-mass solid cylinder along x, radius r, half-length hx, about its center."""
        return cls._trusted(np.diag(_cylinder(r, hx, 0)))

    @classmethod
    def brick(cls, *half_lengths):
        """Unit-mass solid box with half-lengths (hx, hy, hz) (three numbers or one Vec3)."""
        hx2, hy2, hz2 = _half_lengths(half_lengths, "brick") ** 2
        return cls._trusted(np.diag([hy2 + hz2, hx2 + hz2, hx2 + hy2]) / 3.0)

    @classmethod
    def ellipsoid(cls, *half_lengths):
        """Unit-mass solid ellipsoid with semi-axes (hx, hy, hz) (three numbers or one Vec3)."""
        hx2, hy2, hz2 = _half_lengths(half_lengths, "ellipsoid") ** 2
        return cls._trusted(np.diag([hy2 + hz2, hx2 + hz2, hx2 + hy2]) / 5.0)

    # ----------------------------------------------------------------------- arithmetic

    def __add__(self, other: Inertia) -> Inertia:
        """Sum of two inertias about the same point in the same frame (not checkable)."""
        if not isinstance(other, Inertia):
            return NotImplemented
        return Inertia._trusted(self._m + other._m)

    def __sub__(self, other: Inertia) -> Inertia:
        """Difference; raises NonPhysicalError if the result is not a possible inertia."""
        if not isinstance(other, Inertia):
            return NotImplemented
        return Inertia._checked(
            self._m - other._m, "difference of inertias", scale=self.trace() + other.trace()
        )

    def __mul__(self, other):
        """``I * s`` (s >= 0) -> Inertia; ``I * w`` (a 3-vector) -> the vector ``I w``."""
        if np.ndim(other) == 0 and not isinstance(other, Inertia):
            s = _nonneg_scalar(other, "inertia scale factor")
            return Inertia._trusted(self._m * s)
        if isinstance(other, Inertia):
            return NotImplemented
        return self._m @ as_vec3(other, "vector multiplied by an inertia")

    def __rmul__(self, other):
        if np.ndim(other) == 0:
            return self.__mul__(other)
        return NotImplemented

    def __truediv__(self, other) -> Inertia:
        s = _finite_scalar(other, "inertia divisor")
        if s <= 0:
            raise InvalidArgumentError(
                f"an inertia can only be divided by a positive number, got {s}"
            )
        return Inertia._trusted(self._m / s)

    def __eq__(self, other: object) -> bool:
        """Exact elementwise equality (as Simbody's ``==``); see isNumericallyEqual."""
        if not isinstance(other, Inertia):
            return NotImplemented
        return bool(np.array_equal(self._m, other._m))

    def __hash__(self) -> int:
        return hash(self._m.tobytes())

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(moments=({_fmt(self.getMoments())}), "
            f"products=({_fmt(self.getProducts())}))"
        )


class UnitInertia(Inertia):
    """Inertia per unit mass (gyration matrix G, m^2) about a point, in a frame; immutable.

    Constructed like Inertia (except the point-mass form), or from an Inertia that is known to
    be per unit mass (``UnitInertia(I)``; any valid inertia can be one). Shape factories and
    ``pointMassAt(p)`` return UnitInertia. ``G * mass`` gives an Inertia; sums and differences
    give Inertia, as in Simbody.
    """

    __slots__ = ()

    def shiftToCentroid(self, p_OC) -> UnitInertia:
        """``G_C = G_O - (unit point mass at p_OC)``: this must be about O; C is the centroid."""
        p = as_vec3(p_OC, "centroid location p_OC")
        shift = point_mass_matrix(p, 1.0)
        return UnitInertia._checked(
            self._m - shift,
            f"central unit inertia (unit inertia about O minus unit point mass at {_fmt(p)})",
            scale=self.trace() + float(np.trace(shift)),
        )

    def shiftFromCentroid(self, p_CQ) -> UnitInertia:
        """``G_Q = G_C + (unit point mass at p_CQ)``: this must be central."""
        return UnitInertia._trusted(self._m + point_mass_matrix(as_vec3(p_CQ, "shift p_CQ"), 1.0))

    def asUnitInertia(self) -> UnitInertia:
        """This object (for symmetry with Simbody)."""
        return self

    @staticmethod
    def pointMassAtOrigin() -> UnitInertia:
        """The zero unit inertia."""
        return UnitInertia._trusted(np.zeros((3, 3)))

    @staticmethod
    def pointMassAt(p) -> UnitInertia:  # type: ignore[override]
        """Unit inertia about the origin of a unit point mass at ``p``."""
        return UnitInertia._trusted(point_mass_matrix(as_vec3(p, "point location"), 1.0))

    @staticmethod
    def isValidUnitInertiaMatrix(m) -> bool:
        """Same checks as ``Inertia.isValidInertiaMatrix``."""
        return Inertia.isValidInertiaMatrix(m)


def _cylinder(r: float, h: float, axis: int) -> np.ndarray:
    r = _nonneg_scalar(r, "cylinder radius")
    h = _nonneg_scalar(h, "cylinder half-length")
    transverse = r * r / 4.0 + h * h / 3.0
    moments = np.full(3, transverse)
    moments[axis] = r * r / 2.0
    return moments


def _half_lengths(args: tuple, what: str) -> np.ndarray:
    values = args[0] if len(args) == 1 else args
    h = as_vec3(values, f"{what} half-lengths")
    if np.any(h < 0):
        raise InvalidArgumentError(f"{what} half-lengths must be >= 0, got {_fmt(h)}")
    return h
