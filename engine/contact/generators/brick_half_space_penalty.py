"""BrickHalfSpacePenalty: a linear penalty force per brick vertex (CONVENTIONS 14.4).

Stiffness is force per metre of depth per vertex (N/m); dissipation multiplies the force by
``(1 + c xdot)``. The vertices of the face at the lowest vertex that faces the half space
most act; the resultant is reported at their centre of pressure about the half-space origin.
"""

from __future__ import annotations

import math

import numpy as np

from engine.contact.contact import BrickHalfSpaceContact
from engine.contact.contact_force import ContactDetail, ContactForce
from engine.contact.friction import SIGNIFICANT_REAL, combine_friction, stribeck
from engine.contact.generators.base import ContactForceGenerator
from engine.contact.vec3 import cross3

#: vertices of faces -x, -y, -z, +x, +y, +z
FACE_VERTICES = (
    (0, 1, 3, 2),
    (0, 4, 5, 1),
    (0, 2, 6, 4),
    (7, 5, 4, 6),
    (7, 6, 2, 3),
    (7, 3, 1, 5),
)


def brick_vertex(h: np.ndarray, k: int) -> np.ndarray:
    """Vertex k of a brick of half-lengths h, in its own frame."""
    return np.array((h[0] if k & 4 else -h[0], h[1] if k & 2 else -h[1], h[2] if k & 1 else -h[2]))


def contact_face(R_GB: np.ndarray, lowest: int, n: np.ndarray) -> int:
    """Of the three faces at vertex ``lowest``, the one whose outward normal is most
    opposed to n (face index 0..5)."""
    best, best_dot = -1, math.inf
    for axis, bit in ((0, 4), (1, 2), (2, 1)):
        sign = 1.0 if lowest & bit else -1.0
        d = sign * float(R_GB[:, axis] @ n)
        if d < best_dot:
            best, best_dot = axis + (3 if sign > 0 else 0), d
    return best


class BrickHalfSpacePenalty(ContactForceGenerator):
    """Force generator for BrickHalfSpaceContact (half space = surface 1, brick = 2)."""

    CONTACT_TYPE = BrickHalfSpaceContact

    def calcContactForce(self, contact, material1, material2, kin, vt: float):
        R_GH, o, R_GB, p_GB = contact._ground
        n = -R_GH[:, 0]
        h = np.asarray(contact._half_lengths, dtype=float)
        kH, kB = material1.getStiffness(), material2.getStiffness()
        sH = kB / (kH + kB)
        sB = 1.0 - sH
        k = kH * sH
        c = material1.getDissipation() * sH + material2.getDissipation() * sB
        us = combine_friction(material1.getStaticFriction(), material2.getStaticFriction())
        ud = combine_friction(material1.getDynamicFriction(), material2.getDynamicFriction())
        uv = combine_friction(material1.getViscousFriction(), material2.getViscousFriction())
        face = contact_face(R_GB, contact.getLowestVertex(), n)
        F = np.zeros(3)
        M_o = np.zeros(3)
        weighted = np.zeros(3)
        weight = 0.0
        pe_total = 0.0
        power_total = 0.0
        details = []
        for vertex in FACE_VERTICES[face]:
            v = p_GB + R_GB @ brick_vertex(h, vertex)
            x = -float((v - o) @ n)
            if x <= 0.0:
                continue
            P = v + x * sB * n
            fK = k * x
            pe = 0.5 * k * x * x
            vel = kin.relative_velocity(P)
            xdot = -float(vel @ n)
            vT = vel + xdot * n
            fHC = c * fK * xdot
            fN = fK + fHC
            pe_total += pe
            if fN <= 0.0:
                power = -fK * xdot
                force = np.zeros(3)
            else:
                force = fN * n
                power = fHC * xdot
                slip = math.sqrt(float(vT @ vT))
                if slip > SIGNIFICANT_REAL:
                    mu = stribeck(us, ud, uv, slip, vt)
                    force = force - (mu * fN / slip) * vT
                    power += mu * fN * slip
                r = P - o
                F += force
                M_o += cross3(r, force)
                w = float(np.linalg.norm(cross3(r, fN * n)))
                weighted += w * r
                weight += w
            power_total += power
            details.append(ContactDetail(P, n, vT, force, x, xdot, math.nan, math.nan, pe, power))
        C = o + weighted / weight if weight > 0.0 else o.copy()
        spatial = np.array([M_o - cross3(C - o, F), F])
        return ContactForce(contact.getContactId(), C, spatial, pe_total, power_total), details
