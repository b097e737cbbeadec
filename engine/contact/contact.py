"""Contact: one pair of surfaces found touching by a tracker (Simbody 3.7's ``Contact.h``).

Surface 1 and surface 2 are ContactSurfaceIndex values. Quantities of the specialised kinds
follow Simbody: those of CircularPointContact, EllipticalPointContact and
BrickHalfSpaceContact are expressed in surface 1's frame S1 (``getTransform()`` is X_S1S2);
``...InGround`` accessors give the same in G. PointContact (GeneralContactSubsystem) holds
its location and normal in Ground. The normal points out of surface 1 into surface 2, and a
positive depth means the undeformed shapes overlap.
"""

from __future__ import annotations

import enum
import itertools

import numpy as np

from engine.common.decorations.base import frozen
from engine.common.exceptions import InvalidArgumentError
from engine.common.index_arg import index_value
from engine.math.transform import Transform


class ContactId(int):
    """A contact's id: unique in this process, kept while a contact persists."""

    def __repr__(self) -> str:
        return f"ContactId({int(self)})"


_id_counter = itertools.count(1)  # next() on it is atomic under the GIL


def createNewContactId() -> ContactId:
    """A process-wide new contact id (as Simbody's ``Contact::createNewContactId``)."""
    return ContactId(next(_id_counter))


def _new_id() -> int:
    return next(_id_counter)


def _new_ids(count: int) -> np.ndarray:
    """``count`` new ids in increasing order (int64 array)."""
    return np.fromiter(itertools.islice(_id_counter, count), dtype=np.int64, count=count)


def _transform(R: np.ndarray, p: np.ndarray) -> Transform:
    from engine.math.rotation import Rotation

    return Transform(Rotation._from_matrix(np.array(R, dtype=float)), np.array(p, dtype=float))


class Condition(enum.IntEnum):
    """Where a contact is in its life (Simbody's ``Contact::Condition``)."""

    Unknown = 0
    Untracked = 1
    Anticipated = 2
    NewContact = 3
    Ongoing = 4
    Broken = 5


def _vec3(value, name: str) -> np.ndarray:
    a = np.array(value, dtype=np.float64)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise InvalidArgumentError(f"{name} must be 3 finite numbers, got {value!r}")
    a.flags.writeable = False
    return a


def _real(value, name: str, allow_inf: bool = False) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"{name} must be a number, got {value!r}") from exc
    if np.isnan(x) or (not allow_inf and np.isinf(x)):
        raise InvalidArgumentError(f"{name} must be a finite number, got {x}")
    return x


class Contact:
    """A pair of surfaces in (or near) contact."""

    Condition = Condition
    Unknown = Condition.Unknown
    Untracked = Condition.Untracked
    Anticipated = Condition.Anticipated
    NewContact = Condition.NewContact
    Ongoing = Condition.Ongoing
    Broken = Condition.Broken

    #: the kind's name (``getTypeName``)
    TYPE_NAME = "Contact"

    def __init__(self, surface1, surface2, X_S1S2=None, condition=Condition.Unknown) -> None:
        from engine.contact.contact_surface import ContactSurfaceIndex

        for name, s in (("surface1", surface1), ("surface2", surface2)):
            if isinstance(s, bool) or not hasattr(s, "__index__") or s.__index__() < 0:
                raise InvalidArgumentError(f"{name} must be a ContactSurfaceIndex, got {s!r}")
        self._surface1 = ContactSurfaceIndex(surface1.__index__())
        self._surface2 = ContactSurfaceIndex(surface2.__index__())
        self._X_S1S2 = Transform() if X_S1S2 is None else Transform(X_S1S2)
        self._ground = None  # (R_GS1, p_GS1, R_GS2, p_GS2) arrays, set by the tracker
        self._condition = Condition(condition)
        self._id = 0

    def _init_from_tracker(self, surface1: int, surface2: int, ground: tuple) -> None:
        """Set the common fields from a tracker's Ground-frame arrays (no checks)."""
        self._surface1 = surface1  # plain ints here; the accessors return the index types
        self._surface2 = surface2
        self._X_S1S2 = None
        self._ground = ground
        self._condition = Condition.Unknown
        self._id = 0

    # -- Simbody's Contact interface ---------------------------------------------------------
    def getContactId(self) -> ContactId:
        return ContactId(self._id)

    def setContactId(self, contactId) -> Contact:
        self._id = index_value(contactId, "setContactId: contactId")
        return self

    def getSurface1(self):
        from engine.contact.contact_surface import ContactSurfaceIndex

        return ContactSurfaceIndex(self._surface1)

    def getSurface2(self):
        from engine.contact.contact_surface import ContactSurfaceIndex

        return ContactSurfaceIndex(self._surface2)

    def getTransform(self) -> Transform:
        """X_S1S2: surface 2's frame in surface 1's frame when the contact was found."""
        if self._X_S1S2 is None:
            R1, p1, R2, p2 = self._ground
            self._X_S1S2 = _transform(R1.T @ R2, R1.T @ (p2 - p1))
        return self._X_S1S2

    def getCondition(self) -> Condition:
        return self._condition

    def setCondition(self, condition) -> Contact:
        self._condition = Condition(condition)
        return self

    def getTypeName(self) -> str:
        return self.TYPE_NAME

    @staticmethod
    def nameOfCondition(condition) -> str:
        try:
            return Condition(condition).name
        except ValueError:
            return "Unrecognized"

    @classmethod
    def isInstance(cls, contact) -> bool:
        return isinstance(contact, cls)

    @classmethod
    def getAs(cls, contact):
        if not isinstance(contact, cls):
            raise InvalidArgumentError(
                f"this Contact is a {type(contact).__name__}, not a {cls.__name__}"
            )
        return contact

    # -- Ground-frame helper (set by the tracker) ----------------------------------------------
    def getSurface1TransformInGround(self) -> Transform:
        """X_GS1 at the State the contact was found in (identity if not set)."""
        if self._ground is None:
            return Transform()
        return _transform(self._ground[0], self._ground[1])

    def getSurface2TransformInGround(self) -> Transform:
        """X_GS2 at the State the contact was found in (X_S1S2 if not set)."""
        if self._ground is None:
            return self.getTransform()
        return _transform(self._ground[2], self._ground[3])

    def _R1(self) -> np.ndarray:
        return np.eye(3) if self._ground is None else self._ground[0]

    def _p1(self) -> np.ndarray:
        return np.zeros(3) if self._ground is None else self._ground[1]

    def _set_ground_frame(self, X_GS1: Transform, X_GS2: Transform | None = None) -> None:
        X1 = Transform(X_GS1)
        X2 = Transform(X_GS2) if X_GS2 is not None else X1 * self.getTransform()
        self._ground = (X1.R().asMat33(), np.asarray(X1.p()), X2.R().asMat33(), np.asarray(X2.p()))

    def _copy_as(self, condition) -> Contact:
        copy = type(self).__new__(type(self))
        copy.__dict__.update(self.__dict__)
        copy._condition = Condition(condition)
        return copy

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(id={int(self._id)}, surfaces=({int(self._surface1)}, "
            f"{int(self._surface2)}), {self._condition.name})"
        )


class UntrackedContact(Contact):
    """A pair of surfaces no tracker handles."""

    TYPE_NAME = "Untracked"

    def __init__(self, surface1, surface2) -> None:
        super().__init__(surface1, surface2, None, Condition.Untracked)


class BrokenContact(Contact):
    """A contact that has just ended; reported once, carries no force.

    ``getSeparation()`` is the gap between the surfaces (>= 0) when it was found broken.
    """

    TYPE_NAME = "Broken"

    def __init__(self, surface1, surface2, X_S1S2=None, separation: float = 0.0) -> None:
        super().__init__(surface1, surface2, X_S1S2, Condition.Broken)
        self._separation = _real(separation, "separation", allow_inf=True)

    def getSeparation(self) -> float:
        return self._separation


class CircularPointContact(Contact):
    """Two surfaces touching at a point with a circular patch (sphere on plane or sphere).

    ``radius1`` / ``radius2`` are the surfaces' radii of curvature at the contact (inf for a
    plane); origin and normal are in S1; the origin is halfway between the undeformed
    surfaces.
    """

    TYPE_NAME = "CircularPoint"

    def __init__(
        self, surface1, radius1, surface2, radius2, X_S1S2, radius, depth, origin_S1, normal_S1
    ) -> None:
        super().__init__(surface1, surface2, X_S1S2)
        self._radius1 = _real(radius1, "radius1", allow_inf=True)
        self._radius2 = _real(radius2, "radius2", allow_inf=True)
        self._radius = _real(radius, "effective radius", allow_inf=True)
        self._depth = _real(depth, "depth")
        self._origin = _vec3(origin_S1, "origin_S1")
        self._normal = _vec3(normal_S1, "normal_S1")
        self._origin_normal_G = None

    def getRadius1(self) -> float:
        return self._radius1

    def getRadius2(self) -> float:
        return self._radius2

    def getEffectiveRadius(self) -> float:
        return self._radius

    def getDepth(self) -> float:
        return self._depth

    def getOrigin(self) -> np.ndarray:
        """Contact frame origin (halfway point), measured and expressed in S1."""
        if self._origin is None:
            origin, _ = self._origin_normal_G
            self._origin = frozen(self._R1().T @ (origin - self._p1()))
        return self._origin

    def getNormal(self) -> np.ndarray:
        """Unit normal from surface 1 into surface 2, in S1."""
        if self._normal is None:
            self._normal = frozen(self._R1().T @ self._origin_normal_G[1])
        return self._normal

    def getOriginInGround(self) -> np.ndarray:
        return frozen(self._ground_origin_normal()[0])

    def _ground_origin_normal(self) -> tuple[np.ndarray, np.ndarray]:
        """(origin, normal) in G (the tracker records them; else computed from S1's)."""
        if self._origin_normal_G is None:
            R1 = self._R1()
            self._origin_normal_G = (self._p1() + R1 @ self._origin, R1 @ self._normal)
        return self._origin_normal_G

    def getNormalInGround(self) -> np.ndarray:
        return frozen(self._ground_origin_normal()[1])


class EllipticalPointContact(Contact):
    """A point contact with an elliptical patch (ellipsoid on a plane).

    ``X_S1C`` is the contact frame in S1 (its z axis the normal, its origin the halfway
    point, x along the direction of maximum curvature); ``k`` = (kmax, kmin), the effective
    principal curvatures (1/m).
    """

    TYPE_NAME = "EllipticalPoint"

    def __init__(self, surface1, surface2, X_S1S2, X_S1C, k, depth) -> None:
        super().__init__(surface1, surface2, X_S1S2)
        self._X_S1C = Transform(X_S1C)
        kk = np.array(k, dtype=np.float64)
        if kk.shape != (2,) or not np.all(np.isfinite(kk)):
            raise InvalidArgumentError(f"curvatures k must be 2 finite numbers, got {k!r}")
        kk.flags.writeable = False
        self._k = kk
        self._depth = _real(depth, "depth")

    def getCurvatures(self) -> np.ndarray:
        """(kmax, kmin), 1/m."""
        return self._k

    def getEffectiveRadius(self) -> float:
        """``2 / (kmax + kmin)``."""
        return 2.0 / (self._k[0] + self._k[1])

    def getContactFrame(self) -> Transform:
        """X_S1C (z = normal into surface 2, origin = halfway point)."""
        return self._X_S1C

    def getDepth(self) -> float:
        return self._depth

    def getOrigin(self) -> np.ndarray:
        return self._X_S1C.p()

    def getNormal(self) -> np.ndarray:
        return frozen(self._X_S1C.R().asMat33()[:, 2])

    def getContactFrameInGround(self) -> Transform:
        return self.getSurface1TransformInGround() * self._X_S1C

    def getOriginInGround(self) -> np.ndarray:
        return frozen(self._p1() + self._R1() @ self._X_S1C.p())

    def getNormalInGround(self) -> np.ndarray:
        return frozen(self._R1() @ self.getNormal())


class BrickHalfSpaceContact(Contact):
    """A brick (surface 2) on a half space (surface 1): its lowest vertex and depth."""

    TYPE_NAME = "BrickHalfSpace"

    def __init__(self, halfSpace, brick, X_HB, lowestVertex: int, depth: float) -> None:
        super().__init__(halfSpace, brick, X_HB)
        if isinstance(lowestVertex, bool) or not hasattr(lowestVertex, "__index__"):
            raise InvalidArgumentError(f"lowestVertex must be 0..7, got {lowestVertex!r}")
        v = lowestVertex.__index__()
        if not 0 <= v < 8:
            raise InvalidArgumentError(f"lowestVertex must be 0..7, got {v}")
        self._lowest = v
        self._depth = _real(depth, "depth")

    def getLowestVertex(self) -> int:
        return self._lowest

    def getDepth(self) -> float:
        return self._depth

    def getNormal(self) -> np.ndarray:
        """The half space's outward normal in S1: ``(-1, 0, 0)``."""
        return frozen((-1.0, 0.0, 0.0))

    def getNormalInGround(self) -> np.ndarray:
        return frozen(-self._R1()[:, 0])


class PointContact(Contact):
    """A point contact in Ground (GeneralContactSubsystem's kind).

    ``PointContact(s1, s2, location, normal, radius1, radius2, depth)`` or
    ``PointContact(s1, s2, location, normal, radius, depth)``; location is the halfway point,
    normal points from surface 1 into surface 2, both in G.
    """

    TYPE_NAME = "Point"

    def __init__(self, surface1, surface2, location, normal, *args) -> None:
        super().__init__(surface1, surface2)
        if len(args) == 3:
            r1, r2, depth = args
            self._r1 = _real(r1, "radius1", allow_inf=True)
            self._r2 = _real(r2, "radius2", allow_inf=True)
            inv = (1.0 / self._r1 if self._r1 else np.inf) + (
                1.0 / self._r2 if self._r2 else np.inf
            )
            self._radius = 1.0 / inv
        elif len(args) == 2:
            radius, depth = args
            self._radius = _real(radius, "radius", allow_inf=True)
            self._r1 = self._r2 = 2.0 * self._radius
        else:
            raise InvalidArgumentError(
                "PointContact takes (s1, s2, location, normal, radius1, radius2, depth) or "
                "(s1, s2, location, normal, radius, depth)"
            )
        self._location = _vec3(location, "location")
        self._normal = _vec3(normal, "normal")
        self._depth = _real(depth, "depth")

    def getLocation(self) -> np.ndarray:
        return self._location

    def getNormal(self) -> np.ndarray:
        return self._normal

    def getRadiusOfCurvature1(self) -> float:
        return self._r1

    def getRadiusOfCurvature2(self) -> float:
        return self._r2

    def getEffectiveRadius(self) -> float:
        return self._radius

    def getDepth(self) -> float:
        return self._depth
