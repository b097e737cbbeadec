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


def append_body_decorations(matter, geometry: list) -> None:
    """Append every body's own decorations, body-fixed, with bodyId/indexOnBody set."""
    placements: dict[tuple[int, int], Transform] = {}  # bodies copied from one template
    for b in range(matter.getNumBodies()):
        body = matter.getMobilizedBody(b).getBody()
        for index, (X_BD, decoration) in enumerate(body._decoration_items()):  # (cloned below)
            item = decoration.clone()
            item._bodyId = b  # (a valid body index: no check needed)
            item.setIndexOnBody(index)
            X_DD = decoration.getTransform()
            key = (id(X_BD), id(X_DD))  # both alive, held by the body, while this runs
            X = placements.get(key)
            if X is None:
                X = placements[key] = X_BD * X_DD
            item._X_BD = X
            geometry.append(item)


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


def append_default_geometry(matter, length_scale: float, geometry: list) -> None:
    """Append the default sketch (frames, mass centres, joint bones) of every body."""
    scale = float(length_scale) if np.isfinite(length_scale) and length_scale > 0 else 1.0
    body_axis = 0.5 * scale
    joint_axis = 0.25 * scale
    # one of each kind, copied per body (setting and checking a colour costs more than a copy)
    body_frame = _default(DecorativeFrame(body_axis), 0, _BODY_FRAME_COLOR)
    joint_frame = _default(DecorativeFrame(joint_axis), 0, _JOINT_FRAME_COLOR)
    mass_center = _default(DecorativeSphere(0.05 * scale), 0, _MASS_CENTER_COLOR)
    bone = _default(DecorativeLine((0.0, 0.0, 0.0), (0.0, 0.0, 0.0)), 0, _BONE_COLOR)
    geometry.append(_placed(body_frame, 0))
    centres: dict[bytes, Transform] = {}  # mass-centre placements, one per distinct station
    for b in range(1, matter.getNumBodies()):
        mobod = matter.getMobilizedBody(b)
        parent = mobod.getParentMobilizedBody().getMobilizedBodyIndex()
        X_PF = mobod.getDefaultInboardFrame()
        X_BM = mobod.getDefaultOutboardFrame()
        geometry.append(_placed(body_frame, b))
        geometry.append(_placed(joint_frame, parent, X_PF))
        geometry.append(_placed(joint_frame, b, X_BM))
        p_PF = X_PF.p()  # read-only, as a line's points are
        if 0.0 < np.dot(p_PF, p_PF) < np.inf:
            line = _placed(bone, parent)
            line._point2 = p_PF
            geometry.append(line)
        p_BM = X_BM.p()
        if 0.0 < np.dot(p_BM, p_BM) < np.inf:
            line = _placed(bone, b)
            line._point2 = p_BM
            geometry.append(line)
        mass_properties = mobod.getBody().getDefaultRigidBodyMassProperties()
        if mass_properties.getMass() > 0.0:
            p_BC = np.asarray(mass_properties.getMassCenter(), dtype=np.float64)
            X_BC = centres.get(p_BC.tobytes())
            if X_BC is None:
                X_BC = centres[p_BC.tobytes()] = Transform(p_BC)
            geometry.append(_placed(mass_center, b, X_BC))


def append_matter_geometry(matter, state, stage: Stage, geometry: list) -> None:
    """The matter subsystem's decorative geometry at ``stage`` (everything is Topology-stage)."""
    if Stage(stage) != Stage.Topology:
        return
    append_body_decorations(matter, geometry)
    if matter.getShowDefaultGeometry():
        system = matter.getSystem()
        append_default_geometry(matter, system.getDefaultLengthScale(), geometry)
