"""Friction and material mixing of Simbody's CompliantContactSubsystem (CONVENTIONS 14.3)."""

from __future__ import annotations

#: Simbody's SignificantReal: eps^(7/8)
SIGNIFICANT_REAL = 2.220446049250313e-16**0.875


def combine_friction(u1: float, u2: float) -> float:
    """``2 u1 u2 / (u1 + u2)``, 0 if either is 0."""
    if u1 == 0.0 or u2 == 0.0:
        return 0.0
    return 2.0 * u1 * u2 / (u1 + u2)


def step5(y: float) -> float:
    """``10 y^3 - 15 y^4 + 6 y^5``: 0 at 0, 1 at 1, smooth to the second derivative."""
    y3 = y * y * y
    return y3 * (10.0 + y * (-15.0 + 6.0 * y))


def stribeck(us: float, ud: float, uv: float, v: float, vt: float) -> float:
    """Friction coefficient at slip speed ``v`` (m/s) with transition velocity ``vt``."""
    r = v / vt
    if r < 1.0:
        mu = us * step5(r)
    elif r < 3.0:
        mu = us - (us - ud) * step5((r - 1.0) / 2.0)
    else:
        mu = ud
    return mu + uv * v
