"""Where a model's bodies can go: the box the camera frames when a model is opened.

A run never moves the camera (as in MuJoCo's simulate), so the camera is aimed at the room the
bodies can move in, not only at their pose at t = 0: a subtree hinged on Ground by a joint that
only turns (Pin, Ball, Universal, Gimbal) can reach anywhere within the sphere about its pivot
through its farthest decoration; a free body can fall to the ground plane. A pendulum released
from the side swings through the view instead of out of it.
"""

from __future__ import annotations

import numpy as np

#: Mobilizers that turn their body about a point fixed on the parent (no translation).
TURNING = frozenset({"Pin", "Ball", "Universal", "Gimbal", "LineOrientation"})


def hinged_subtrees(built) -> list[tuple[np.ndarray, np.ndarray, np.ndarray | None]]:
    """(pivot in ground (3,), mobilized body indices of the subtree, the hinge's axis in
    ground for a Pin else None) of each body hinged on Ground by a TURNING mobilizer
    (``built``: an app.document BuiltModel)."""
    mobods = list(built.mobilized_bodies.values())
    children: dict[int, list[int]] = {}
    for mobod in mobods:
        if not mobod.isGround():
            parent = mobod.getParentMobilizedBody().getMobilizedBodyIndex()
            children.setdefault(parent, []).append(mobod.getMobilizedBodyIndex())
    out = []
    for mobod in mobods:
        if mobod.isGround() or not mobod.getParentMobilizedBody().isGround():
            continue
        if mobod.getMobilizerTypeName() not in TURNING:
            continue
        X_PF = mobod.getDefaultInboardFrame()  # noqa: N806  (Simbody's name)
        pivot = np.asarray(X_PF.p(), dtype=np.float64)
        axis = None
        if mobod.getMobilizerTypeName() == "Pin":  # turns about F's z axis only
            axis = np.asarray(X_PF.R().asMat33(), dtype=np.float64)[:, 2]
        subtree, stack = [], [mobod.getMobilizedBodyIndex()]
        while stack:
            b = stack.pop()
            subtree.append(b)
            stack.extend(children.get(b, ()))
        out.append((pivot, np.array(subtree, dtype=np.int64), axis))
    return out


def free_bodies(built) -> np.ndarray:
    """Mobilized body indices of the bodies free to fall (Free mobilizer on Ground)."""
    return np.array(
        [
            m.getMobilizedBodyIndex()
            for m in built.mobilized_bodies.values()
            if not m.isGround()
            and m.getParentMobilizedBody().isGround()
            and m.getMobilizerTypeName() == "Free"
        ],
        dtype=np.int64,
    )


def reach_box(points, ids, hinged, free, up) -> tuple[float, ...] | None:
    """(xmin, xmax, ymin, ymax, zmin, zmax): the box of ``points`` (decoration points in
    ground, of bodies ``ids``; Scene.body_points), grown to the room each ``hinged``
    subtree (hinged_subtrees) sweeps about its pivot (a disc about a Pin's axis, else a
    sphere) but no higher than the bodies are now (they swing under gravity, down ``up``),
    and for ``free`` bodies down to the ground plane through the origin (``up``: the
    System's up direction). None if no points."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if not len(points):
        return None
    lo, hi = points.min(axis=0), points.max(axis=0)
    u = np.asarray(up, dtype=np.float64)
    up_axis = int(np.argmax(np.abs(u)))
    aligned = abs(u[up_axis]) > 0.99  # an up direction along a ground axis
    top = hi[up_axis] if u[up_axis] > 0 else lo[up_axis]
    for pivot, subtree, axis in hinged:
        mine = points[np.isin(ids, subtree)]
        if not len(mine):
            continue
        r = float(np.linalg.norm(mine - pivot, axis=1).max())
        half = np.full(3, r)
        if axis is not None:  # a circle of radius r about the axis
            half = r * np.sqrt(np.clip(1.0 - np.asarray(axis) ** 2, 0.0, 1.0))
        room_lo, room_hi = pivot - half, pivot + half
        if aligned:  # no higher than now: a passive swing does not gain height
            if u[up_axis] > 0:
                room_hi[up_axis] = min(room_hi[up_axis], top)
            else:
                room_lo[up_axis] = max(room_lo[up_axis], top)
        lo, hi = np.minimum(lo, room_lo), np.maximum(hi, room_hi)
    if aligned and len(free) and np.isin(ids, free).any():
        if u[up_axis] > 0:
            lo[up_axis] = min(lo[up_axis], 0.0)
        else:
            hi[up_axis] = max(hi[up_axis], 0.0)
    return (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])


#: Above this many bodies the camera frames the pose only (the reach is not looked up: it
#: would hold the GUI thread for a large model).
MAX_BODIES = 2000


def model_reach(built) -> tuple[list, np.ndarray] | None:
    """(hinged_subtrees, free_bodies) of ``built``, or None for a model over MAX_BODIES."""
    if built is None or len(built.mobilized_bodies) > MAX_BODIES:
        return None
    return hinged_subtrees(built), free_bodies(built)
