"""HertzElliptical: Hertz force for an EllipticalPointContact (CONVENTIONS 14.3).

The force is that of a circular contact of radius ``2/(kmax + kmin)`` scaled by
``e = pi k_e sqrt(E K) / (2 K^2)``, where K and E are the complete elliptic integrals of
``m = 1 - 1/k_e^2`` from the Abramowitz & Stegun polynomials 17.3.34 and 17.3.36 and k_e
the patch's approximate axis ratio. As in Simbody it is not exactly conservative.
"""

from __future__ import annotations

import math

from engine.contact.contact import EllipticalPointContact
from engine.contact.generators.base import ContactForceGenerator
from engine.contact.generators.hertz_point import hertz_point_force

_KA = (1.38629436112, 0.09666344259, 0.03590092383, 0.03742563713, 0.01451196212)
_KB = (0.5, 0.12498593597, 0.06880248576, 0.03328355346, 0.00441787012)
_EA = (1.0, 0.44325141463, 0.06260601220, 0.04757383546, 0.01736506451)
_EB = (0.0, 0.24998368310, 0.09200180037, 0.04069697526, 0.00526449639)
_U = (0.40227436, 3.7491752e-2, 7.4855761e-4, 2.1667028e-6)
_V = (0.42678878, 4.2605401e-2, 9.0786922e-4, 2.7868927e-6)


def approxCompleteEllipticIntegralsKE(m: float) -> tuple[float, float]:
    """(K(m), E(m)) by Abramowitz & Stegun 17.3.34 and 17.3.36 (|error| < 3e-8)."""
    m1 = 1.0 - m
    m2 = m1 * m1
    m3 = m2 * m1
    m4 = m3 * m1
    ln = math.log(m1)
    K = (_KA[0] + _KA[1] * m1 + _KA[2] * m2 + _KA[3] * m3 + _KA[4] * m4) - ln * (
        _KB[0] + _KB[1] * m1 + _KB[2] * m2 + _KB[3] * m3 + _KB[4] * m4
    )
    E = (_EA[0] + _EA[1] * m1 + _EA[2] * m2 + _EA[3] * m3 + _EA[4] * m4) - ln * (
        _EB[1] * m1 + _EB[2] * m2 + _EB[3] * m3 + _EB[4] * m4
    )
    return K, E


def elliptical_factor(kmax: float, kmin: float) -> float:
    """e of CONVENTIONS 14.3 (exactly 1 when kmax == kmin)."""
    if kmax == kmin:
        return 1.0
    ratio = kmax / kmin
    q = math.log10(ratio) ** 2
    num = 1.0 + q * (_U[0] + q * (_U[1] + q * (_U[2] + q * _U[3])))
    den = 1.0 + q * (_V[0] + q * (_V[1] + q * (_V[2] + q * _V[3])))
    k_e = ratio ** ((2.0 / 3.0) * num / den)
    K, E = approxCompleteEllipticIntegralsKE(1.0 - 1.0 / (k_e * k_e))
    return math.pi * k_e * math.sqrt(E * K) / (2.0 * K * K)


class HertzElliptical(ContactForceGenerator):
    """Force generator for EllipticalPointContact (ellipsoid on half space)."""

    CONTACT_TYPE = EllipticalPointContact

    def calcContactForce(self, contact, material1, material2, kin, vt: float):
        kmax, kmin = (float(v) for v in contact.getCurvatures())
        return hertz_point_force(
            contact,
            contact.getOriginInGround(),
            contact.getNormalInGround(),
            contact.getDepth(),
            2.0 / (kmax + kmin),
            elliptical_factor(kmax, kmin),
            material1,
            material2,
            kin,
            vt,
        )
