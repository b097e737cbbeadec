"""Defaults of a new constraint or force that depend on the model's pose.

A Rod's ``length`` and a two-point spring's ``rest_length`` default to the distance between
their two points at the current pose (so the first run starts assembled and unstretched), not
to a fixed 1 m.
"""

from __future__ import annotations

import numpy as np

#: element type -> (first body, its point, second body, its point, the length argument)
POINT_DISTANCE_ARGS = {
    "Rod": ("body1", "point1", "body2", "point2", "length"),
    "TwoPointLinearSpring": ("body1", "station1", "body2", "station2", "rest_length"),
}
MIN_LENGTH = 1e-9  # m: closer points keep the type's own default (a Rod needs length > 0)


def pose_dependent_defaults(type_name: str, args: dict, body_pose) -> dict:
    """``args`` with the length set to the current distance between the two points.

    ``body_pose(name)`` gives X_GB of body ``name`` as a 4x4 matrix (ground frame), or None
    when the pose is unknown (then ``args`` are returned unchanged)."""
    spec = POINT_DISTANCE_ARGS.get(type_name)
    if spec is None:
        return args
    b1, p1, b2, p2, length = spec
    x1, x2 = body_pose(args[b1]), body_pose(args[b2])
    if x1 is None or x2 is None:
        return args
    g1 = np.asarray(x1) @ np.append(np.asarray(args[p1], dtype=float), 1.0)
    g2 = np.asarray(x2) @ np.append(np.asarray(args[p2], dtype=float), 1.0)
    distance = float(np.linalg.norm(g1[:3] - g2[:3]))
    if distance < MIN_LENGTH:
        return args
    return {**args, length: round(distance, 12)}


def pose_lookup(simulation, document):
    """``body_pose`` for ``pose_dependent_defaults``: the pose the studio shows now (the
    simulation's latest snapshot of this document), else the document's initial pose."""
    snap = getattr(simulation, "snapshot", None)
    if (
        snap is not None
        and snap.model is not None
        and snap.x_gb is not None
        and getattr(simulation, "document", None) is document
    ):
        names = list(snap.model.body_names)
        poses = snap.x_gb
    else:
        try:
            from app.document import build
            from engine.common.stage import Stage

            built = build(document)
            built.system.realize(built.state, Stage.Position)
            names = list(built.body_name_of_index)
            poses = [
                built.matter.getMobilizedBody(b).getBodyTransform(built.state).toMat44()
                for b in range(len(names))
            ]
        except Exception:  # noqa: BLE001  (an unbuildable model: keep the type's defaults)
            return lambda _name: None

    def body_pose(name: str):
        return poses[names.index(name)] if name in names else None

    return body_pose
