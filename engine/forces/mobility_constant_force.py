"""Force.MobilityConstantForce: a constant generalized force on one mobility."""

from __future__ import annotations

from engine.forces.force import Force
from engine.forces.mobility_force import MobilityValueForce
from engine.forces.state_parameters import ForceParameter


class MobilityConstantForce(ForceParameter, MobilityValueForce):
    """MobilityConstantForce(forces, mobod, whichU, defaultForce=0).

    Adds the constant f (N or N m, as the u's units require) to the chosen u; no
    potential energy. f lives in the State: ``setForce`` invalidates Dynamics stage.
    """


Force.MobilityConstantForce = MobilityConstantForce  # type: ignore[attr-defined]
