"""Decorative geometry the matter subsystem produces: body decorations and default sketches.

At Topology stage the matter subsystem emits, for every mobilized body, the decorations added
with ``Body.addDecoration`` / ``MobilizedBody.addBodyDecoration`` (each a body-fixed copy with
``bodyId`` = the MobilizedBodyIndex, ``indexOnBody`` = its index and transform X_BD), and, when
``setShowDefaultGeometry(True)`` (the default), a sketch of the model:

- the body frame B (a DecorativeFrame at Bo, body-fixed);
- the mass centre (a small sphere at the station p_BC, in B) for bodies with mass;
- the mobilizer's inboard frame F on the parent and outboard frame M on the body (smaller
  frames) with "bones": a line from the parent's origin to Fo (on the parent) and from Bo to
  Mo (on the body), so a chain of joints is visible even without user geometry.

All lengths are scaled from the System's default length scale (metres). Ground (body 0) gets a
frame at its origin. Every default item carries ``userRef = "default"`` so a viewer can tell
it from user geometry.
"""

from __future__ import annotations

import numpy as np

from engine.common.decorative_geometry import (
    DecorativeFrame,
    DecorativeLine,
    DecorativeSphere,
)
from engine.common.stage import Stage
from engine.math.transform import Transform

#: userRef set on every default sketch item.
DEFAULT_GEOMETRY_REF = "default"

_BODY_FRAME_COLOR = (0.2, 0.2, 0.2)
_JOINT_FRAME_COLOR = (0.45, 0.45, 0.9)
_BONE_COLOR = (0.55, 0.55, 0.55)
_MASS_CENTER_COLOR = (0.9, 0.6, 0.1)


def body_decorations(matter, b: int, placements: dict | None = None) -> list:
    """Body ``b``'s own decorations, body-fixed copies with bodyId/indexOnBody set.
    ``placements``: X_BD products already made, shared by bodies copied from one template
    (filled here; keyed by the ids of the Transforms, alive while the bodies hold them)."""
    placements = {} if placements is None else placements
    out = []
    body = matter.getMobilizedBody(b).getBody()
    for index, (X_BD, decoration) in enumerate(body._decoration_items()):  # (cloned below)
        item = decoration.clone()
        item._bodyId = b  # (a valid body index: no check needed)
        item.setIndexOnBody(index)
        X_DD = decoration.getTransform()
        key = (id(X_BD), id(X_DD))
        X = placements.get(key)
        if X is None:
            X = placements[key] = X_BD * X_DD
        item._X_BD = X
        out.append(item)
    return out


def append_body_decorations(matter, geometry: list) -> None:
    """Append every body's own decorations, body-fixed, with bodyId/indexOnBody set."""
    placements: dict[tuple[int, int], Transform] = {}  # bodies copied from one template
    for b in range(matter.getNumBodies()):
        geometry.extend(body_decorations(matter, b, placements))


def _default(item, body_id: int, color, X_BD: Transform | None = None):
    item.setBodyId(body_id)
    item.setColor(color)
    item.setUserRef(DEFAULT_GEOMETRY_REF)
    if X_BD is not None:
        item.setTransform(X_BD)
    return item


def _placed(prototype, body_id: int, X_BD: Transform | None = None):
    """A copy of ``prototype`` (colour and userRef set) on body ``body_id``, at ``X_BD``."""
    item = prototype.clone()
    item._bodyId = body_id  # (a valid body index and a Transform: no checks needed)
    if X_BD is not None:
        item._X_BD = X_BD
    return item


class DefaultSketch:
    """The default sketch's items for one length scale (metres), made body by body: one
    prototype of each kind, copied per body (setting and checking a colour costs more than a
    copy), and one mass-centre placement per distinct station."""

    def __init__(self, length_scale: float) -> None:
        scale = float(length_scale) if np.isfinite(length_scale) and length_scale > 0 else 1.0
        self.body_frame = _default(DecorativeFrame(0.5 * scale), 0, _BODY_FRAME_COLOR)
        self.joint_frame = _default(DecorativeFrame(0.25 * scale), 0, _JOINT_FRAME_COLOR)
        self.mass_center = _default(DecorativeSphere(0.05 * scale), 0, _MASS_CENTER_COLOR)
        self.bone = _default(DecorativeLine((0.0, 0.0, 0.0), (0.0, 0.0, 0.0)), 0, _BONE_COLOR)
        self._centres: dict[bytes, Transform] = {}

    def of_body(self, matter, b: int) -> list:
        """The sketch items body ``b`` adds: Ground (0) its frame; any other body its frame,
        its mobilizer's frames F (on the parent) and M, the bones to Fo (on the parent) and
        Mo, and its mass centre if it has mass."""
        if b == 0:
            return [_placed(self.body_frame, 0)]
        mobod = matter.getMobilizedBody(b)
        parent = mobod.getParentMobilizedBody().getMobilizedBodyIndex()
        X_PF = mobod.getDefaultInboardFrame()
        X_BM = mobod.getDefaultOutboardFrame()
        out = [
            _placed(self.body_frame, b),
            _placed(self.joint_frame, parent, X_PF),
            _placed(self.joint_frame, b, X_BM),
        ]
        p_PF = X_PF.p()  # read-only, as a line's points are
        if 0.0 < np.dot(p_PF, p_PF) < np.inf:
            line = _placed(self.bone, parent)
            line._point2 = p_PF
            out.append(line)
        p_BM = X_BM.p()
        if 0.0 < np.dot(p_BM, p_BM) < np.inf:
            line = _placed(self.bone, b)
            line._point2 = p_BM
            out.append(line)
        mass_properties = mobod.getBody().getDefaultRigidBodyMassProperties()
        if mass_properties.getMass() > 0.0:
            p_BC = np.asarray(mass_properties.getMassCenter(), dtype=np.float64)
            X_BC = self._centres.get(p_BC.tobytes())
            if X_BC is None:
                X_BC = self._centres[p_BC.tobytes()] = Transform(p_BC)
            out.append(_placed(self.mass_center, b, X_BC))
        return out


def append_default_geometry(matter, length_scale: float, geometry: list) -> None:
    """Append the default sketch (frames, mass centres, joint bones) of every body."""
    sketch = DefaultSketch(length_scale)
    for b in range(matter.getNumBodies()):
        geometry.extend(sketch.of_body(matter, b))


def append_matter_geometry(matter, state, stage: Stage, geometry: list) -> None:
    """The matter subsystem's decorative geometry at ``stage`` (everything is Topology-stage)."""
    if Stage(stage) != Stage.Topology:
        return
    append_body_decorations(matter, geometry)
    if matter.getShowDefaultGeometry():
        system = matter.getSystem()
        append_default_geometry(matter, system.getDefaultLengthScale(), geometry)
