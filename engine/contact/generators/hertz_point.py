"""The Hertz point-contact force law shared by HertzCircular and HertzElliptical."""

from __future__ import annotations

import math

import numpy as np

from engine.contact.contact_force import ContactDetail, ContactForce
from engine.contact.friction import SIGNIFICANT_REAL, combine_friction, stribeck


def hertz_point_force(contact, origin, n, x, R, e, material1, material2, kin, vt):
    """(ContactForce, details) of CONVENTIONS 14.3 for a point contact at ``origin``
    (halfway point, G) with normal ``n`` (surface 1 into 2), depth x > 0, effective radius
    R and elliptical factor e."""
    origin = np.asarray(origin, dtype=float)
    n = np.asarray(n, dtype=float)
    k1 = material1.getStiffness() ** (2.0 / 3.0)
    k2 = material2.getStiffness() ** (2.0 / 3.0)
    s1 = k2 / (k1 + k2)
    C = origin + x * (0.5 - s1) * n
    k = k1 * s1
    c = material1.getDissipation() * s1 + material2.getDissipation() * (1.0 - s1)
    fH = e * (4.0 / 3.0) * k * x * math.sqrt(R * k * x)
    vel = kin.relative_velocity(C)
    xdot = -float(vel @ n)
    vT = vel + xdot * n
    fHC = 1.5 * c * fH * xdot
    fN = fH + fHC
    cid = contact.getContactId()
    if fN <= 0.0:
        return ContactForce(cid, C, np.zeros((2, 3)), 0.0, 0.0), []
    pe = 0.4 * fH * x
    force = fN * n
    power = fHC * xdot
    slip = math.sqrt(float(vT @ vT))
    if slip > SIGNIFICANT_REAL:
        us = combine_friction(material1.getStaticFriction(), material2.getStaticFriction())
        ud = combine_friction(material1.getDynamicFriction(), material2.getDynamicFriction())
        uv = combine_friction(material1.getViscousFriction(), material2.getViscousFriction())
        mu = stribeck(us, ud, uv, slip, vt)
        force = force - (mu * fN / slip) * vT
        power += mu * fN * slip
    spatial = np.zeros((2, 3))
    spatial[1] = force
    detail = ContactDetail(C, n, vT, force, x, xdot, math.nan, math.nan, pe, power)
    return ContactForce(cid, C, spatial, pe, power), [detail]
