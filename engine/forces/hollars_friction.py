"""Hollars' friction curve, shared by HuntCrossleyForce and SmoothSphereHalfSpaceForce."""

from __future__ import annotations


def hollars_friction_coefficient(us: float, ud: float, uv: float, v: float, vt: float) -> float:
    """Friction coefficient at slip speed ``v`` (m/s, >= 0) with static ``us``, dynamic ``ud``
    and viscous ``uv`` (s/m) coefficients and transition velocity ``vt`` (m/s, > 0):
    ``min(v/vt, 1) (ud + 2 (us - ud) / (1 + (v/vt)^2)) + uv v``. It rises from 0 at rest to a
    peak of about ``us`` near ``vt`` and falls toward ``ud`` (plus the viscous part) beyond."""
    vr = v / vt
    return min(vr, 1.0) * (ud + 2.0 * (us - ud) / (1.0 + vr * vr)) + uv * v
