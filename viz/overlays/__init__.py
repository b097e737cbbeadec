"""Teaching overlays for a Scene: trails, force arrows, spring coils, mass centres, body frames,
contact points and forces.

Each overlay is a small set of VTK actors added to a ``Scene``'s renderer and redrawn from
plain numpy data (points and vectors in Ground, in the model's units) with ``update(...)``.
They are views only: nothing here touches a System or a State. ``viz`` stays Qt-free.
"""

from viz.overlays.base import Overlay
from viz.overlays.body_frames import BodyFramesOverlay
from viz.overlays.contact_points import ContactPointsOverlay
from viz.overlays.force_arrows import FORCE_COLORS, ForceArrowsOverlay
from viz.overlays.mass_centers import MassCentersOverlay
from viz.overlays.spring_coils import SpringCoilsOverlay
from viz.overlays.trail import TrailOverlay

__all__ = [
    "FORCE_COLORS",
    "BodyFramesOverlay",
    "ContactPointsOverlay",
    "ForceArrowsOverlay",
    "MassCentersOverlay",
    "Overlay",
    "SpringCoilsOverlay",
    "TrailOverlay",
]
