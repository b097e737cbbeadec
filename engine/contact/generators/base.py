"""ContactForceGenerator: turns one Contact into a ContactForce and its patch details.

A generator sees the contact's geometry in Ground (the tracker recorded X_GS1, X_GS2), the
two surfaces' materials, and the velocities of the two bodies (``MaterialKinematics``).
"""

from __future__ import annotations

import numpy as np

from engine.contact.contact_force import ContactForce
from engine.contact.vec3 import cross3


class MaterialKinematics:
    """Velocities of the material points of two bodies (zero when evaluated at rest)."""

    __slots__ = ("p1", "w1", "v1", "p2", "w2", "v2")

    def __init__(self, p1, w1, v1, p2, w2, v2) -> None:
        self.p1, self.w1, self.v1 = p1, w1, v1
        self.p2, self.w2, self.v2 = p2, w2, v2

    def relative_velocity(self, P: np.ndarray) -> np.ndarray:
        """``v_2(P) - v_1(P)`` (m/s, G)."""
        va = self.v2 + cross3(self.w2, P - self.p2)
        vb = self.v1 + cross3(self.w1, P - self.p1)
        return va - vb


class ContactForceGenerator:
    """Base of the force generators; ``calcContactForce`` returns (ContactForce, details)."""

    #: the Contact class this generator handles (None: the default generator)
    CONTACT_TYPE = None

    def __init__(self, subsystem=None) -> None:
        self._subsystem = subsystem

    def getCompliantContactSubsystem(self):
        return self._subsystem

    def calcContactForce(self, contact, material1, material2, kin, vt: float):
        raise NotImplementedError


class DoNothing(ContactForceGenerator):
    """Produces no force (the default for kinds without a generator)."""

    def calcContactForce(self, contact, material1, material2, kin, vt: float):
        return None, []


def invalid_force() -> ContactForce:
    return ContactForce()
