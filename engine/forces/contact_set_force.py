"""ContactSetForce: the part HuntCrossleyForce and ElasticFoundationForce share, a force element
bound to one contact set of a GeneralContactSubsystem with per-surface parameters and a
friction transition velocity."""

from __future__ import annotations

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError, NonPhysicalError
from engine.forces.force import Force


class ContactSetForce(Force):
    """Base of the force elements that act on the contacts of set ``contactSet`` of
    ``generalContact`` (a GeneralContactSubsystem). Keeps the set, the parameters given to
    each surface (``self._body_params``: surface index -> the subclass's parameter record)
    and the slip speed (m/s) at which friction reaches its static peak (default 0.01).

    A surface is named by its index in the set: an int or an index type (anything with
    ``__index__``, as Simbody's ``int bodyIndex`` takes), never a bool or a float."""

    def __init__(self, forces, generalContact, contactSet) -> None:
        from engine.contact.general_contact_subsystem import GeneralContactSubsystem

        self._bind(forces)
        if not isinstance(generalContact, GeneralContactSubsystem):
            raise InvalidArgumentError(
                f"{self._where()}: the second argument is the GeneralContactSubsystem, "
                f"got {type(generalContact).__name__}"
            )
        self._set_index = generalContact._set_number(contactSet, type(self).__name__)
        self._contacts = generalContact
        self._body_params: dict = {}
        self._transition_velocity = 0.01
        super().__init__(forces)

    def getContactSetIndex(self) -> int:
        return self._set_index

    def getGeneralContactSubsystem(self):
        return self._contacts

    def _surface(self, bodyIndex) -> int:
        """The checked index of a surface of the set (see the class docstring)."""
        n = self._contacts.getNumBodies(self._set_index)
        if isinstance(bodyIndex, bool) or not hasattr(bodyIndex, "__index__"):
            raise InvalidArgumentError(
                f"{self._where()}: a body index must be an int, got {bodyIndex!r}"
            )
        i = bodyIndex.__index__()
        if not 0 <= i < n:
            raise IndexOutOfRangeError(
                f"{self._where()}: contact set {self._set_index} has {n} bodies; body index "
                f"{i} is out of range"
            )
        return i

    def setTransitionVelocity(self, v: float) -> None:
        """Slip speed (m/s, > 0) at which friction reaches its static peak (default 0.01)."""
        v = self._real(v, "transition velocity")
        if v <= 0:
            raise NonPhysicalError(f"{self._where()}: transition velocity must be > 0, got {v}")
        self._transition_velocity = v
        self._forces.invalidateSubsystemTopologyCache()

    def getTransitionVelocity(self) -> float:
        return self._transition_velocity
