"""Simbody's conditional (unilateral) constraints and state-limited friction."""

from engine.multibody.unilateral.hard_stop import HardStopLower, HardStopUpper
from engine.multibody.unilateral.rope import Rope
from engine.multibody.unilateral.state_limited_friction import (
    MobilityFriction,
    StateLimitedFriction,
)
from engine.multibody.unilateral.surface_contacts import (
    PointPlaneContact,
    SpherePlaneContact,
    SphereSphereContact,
)
from engine.multibody.unilateral.unilateral_contact import ContactRows, UnilateralContact

__all__ = [
    "ContactRows",
    "HardStopLower",
    "HardStopUpper",
    "MobilityFriction",
    "PointPlaneContact",
    "Rope",
    "SpherePlaneContact",
    "SphereSphereContact",
    "StateLimitedFriction",
    "UnilateralContact",
]
