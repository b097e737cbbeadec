"""HertzCircular: Hertz force with Hunt-Crossley dissipation and Stribeck friction for a
CircularPointContact (CONVENTIONS 14.3, e = 1)."""

from __future__ import annotations

from engine.contact.contact import CircularPointContact
from engine.contact.generators.base import ContactForceGenerator
from engine.contact.generators.hertz_point import hertz_point_force


class HertzCircular(ContactForceGenerator):
    """Force generator for CircularPointContact (sphere on half space, sphere on sphere)."""

    CONTACT_TYPE = CircularPointContact

    def calcContactForce(self, contact, material1, material2, kin, vt: float):
        return hertz_point_force(
            contact,
            contact.getOriginInGround(),
            contact.getNormalInGround(),
            contact.getDepth(),
            contact.getEffectiveRadius(),
            1.0,
            material1,
            material2,
            kin,
            vt,
        )
