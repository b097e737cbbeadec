"""Results of compliant contact: ContactForce, ContactDetail, ContactPatch (Simbody 3.7).

Everything is in Ground. The force on surface 2 is a spatial force ``[moment, force]``
(shape (2, 3)) applied to surface 2's body at the contact point C; surface 1's body gets
the exact negative at the same point.
"""

from __future__ import annotations

import math

import numpy as np

from engine.common.decorations.base import frozen
from engine.common.exceptions import InvalidObjectError

_NAN3 = frozen((math.nan, math.nan, math.nan))


class ContactForce:
    """The resultant of one contact: point C, spatial force on surface 2, energy and power."""

    def __init__(
        self,
        contactId=None,
        contactPoint=None,
        forceOnSurface2=None,
        potentialEnergy: float = math.nan,
        powerLoss: float = math.nan,
    ) -> None:
        self._id = contactId
        self._point = _NAN3 if contactPoint is None else frozen(contactPoint)
        self._force = (
            frozen(np.full((2, 3), math.nan))
            if forceOnSurface2 is None
            else frozen(np.asarray(forceOnSurface2, dtype=float).reshape(2, 3))
        )
        self._pe = float(potentialEnergy)
        self._power = float(powerLoss)

    def isValid(self) -> bool:
        """False for the ContactForce of a contact without a force (not touching, or its
        generator made none), whose values cannot be read."""
        return self._id is not None

    def _check_valid(self, what: str) -> None:
        if self._id is None:
            raise InvalidObjectError(
                f"this ContactForce is invalid (its contact has no force), so it has no "
                f"{what}: check isValid() first"
            )

    def getContactId(self):
        return self._id

    def getContactPoint(self) -> np.ndarray:
        """C in G (m)."""
        self._check_valid("contact point")
        return self._point

    def getForceOnSurface2(self) -> np.ndarray:
        """[moment, force] (2, 3) applied to surface 2's body at C, in G (N·m, N)."""
        self._check_valid("force")
        return self._force

    def getPotentialEnergy(self) -> float:
        """Elastic energy stored in the contact (J)."""
        self._check_valid("potential energy")
        return self._pe

    def getPowerDissipation(self) -> float:
        """Power dissipated by the contact (W, >= 0)."""
        self._check_valid("power")
        return self._power

    def __repr__(self) -> str:
        if self._id is None:
            return "ContactForce(invalid)"
        return (
            f"ContactForce(id={self._id}, point={self._point.tolist()}, "
            f"force={self._force[1].tolist()}, pe={self._pe:g}, power={self._power:g})"
        )


class ContactDetail:
    """One element of a contact patch (the single point of a Hertz contact, a brick vertex)."""

    def __init__(
        self,
        contactPoint,
        contactNormal,
        slipVelocity,
        forceOnSurface2,
        deformation: float,
        deformationRate: float,
        patchArea: float = math.nan,
        peakPressure: float = math.nan,
        potentialEnergy: float = math.nan,
        powerLoss: float = math.nan,
    ) -> None:
        self._point = frozen(contactPoint)
        self._normal = frozen(contactNormal)
        self._slip = frozen(slipVelocity)
        self._force = frozen(forceOnSurface2)
        self._x = float(deformation)
        self._xdot = float(deformationRate)
        self._area = float(patchArea)
        self._pressure = float(peakPressure)
        self._pe = float(potentialEnergy)
        self._power = float(powerLoss)

    def getContactPoint(self) -> np.ndarray:
        return self._point

    def getContactNormal(self) -> np.ndarray:
        """Unit normal from surface 1 into surface 2, in G."""
        return self._normal

    def getSlipVelocity(self) -> np.ndarray:
        """Tangential velocity of surface 2's material relative to surface 1's (m/s, G)."""
        return self._slip

    def getSlipSpeed(self) -> float:
        return float(np.linalg.norm(self._slip))

    def getForceOnSurface2(self) -> np.ndarray:
        """Force (3,) on surface 2 at the point (N, G)."""
        return self._force

    def getDeformation(self) -> float:
        """Depth x (m, > 0 penetrating)."""
        return self._x

    def getDeformationRate(self) -> float:
        """xdot (m/s, > 0 while penetration grows)."""
        return self._xdot

    def getPatchArea(self) -> float:
        """NaN for the point contacts (Simbody's value)."""
        return self._area

    def getPeakPressure(self) -> float:
        """NaN for the point contacts (Simbody's value)."""
        return self._pressure

    def getPotentialEnergy(self) -> float:
        return self._pe

    def getPowerLoss(self) -> float:
        return self._power


class ContactPatch:
    """A ContactForce and the details it was summed from."""

    def __init__(self, force: ContactForce | None = None, details=()) -> None:
        self._force = force if force is not None else ContactForce()
        self._details = tuple(details)

    def isValid(self) -> bool:
        return self._force.isValid()

    def getContactForce(self) -> ContactForce:
        return self._force

    def getNumDetails(self) -> int:
        return len(self._details)

    def getContactDetail(self, k: int) -> ContactDetail:
        from engine.common.exceptions import IndexOutOfRangeError

        if isinstance(k, bool) or not hasattr(k, "__index__") or not 0 <= k < len(self._details):
            raise IndexOutOfRangeError(
                f"no contact detail {k!r}: this patch has {len(self._details)}"
            )
        return self._details[k]
