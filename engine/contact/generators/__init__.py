"""Contact force generators of the CompliantContactSubsystem (one per Contact kind)."""

from engine.contact.generators.base import ContactForceGenerator, DoNothing
from engine.contact.generators.brick_half_space_penalty import BrickHalfSpacePenalty
from engine.contact.generators.elastic_foundation import ElasticFoundation
from engine.contact.generators.hertz_circular import HertzCircular
from engine.contact.generators.hertz_elliptical import HertzElliptical

__all__ = [
    "BrickHalfSpacePenalty",
    "ContactForceGenerator",
    "DoNothing",
    "ElasticFoundation",
    "HertzCircular",
    "HertzElliptical",
]
