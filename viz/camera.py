"""Camera helpers: view presets relative to the up direction, zoom to fit, follow a body.

Directions are in ground. For an up direction ``up`` the scene has a fixed "right" axis (+X when
up is along Y or Z, +Y when up is along X) and a "forward" direction ``up x right``; the *front*
view looks along forward, so with Simbody's default +Y up the camera sits on +Z looking at -Z
with +X to the right, and with +Z up it sits on -Y looking at +Y with +X to the right.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import InvalidArgumentError

PRESETS = ("front", "back", "left", "right", "top", "bottom")
#: Every named view: the axis-aligned presets and the isometric one (camera in front, to the
#: right and above, looking at the focal point along -(forward... see preset_direction).
VIEWS = (*PRESETS, "isometric")


def view_basis(up) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(forward, right, up) unit vectors for an axis-aligned up direction."""
    u = np.asarray(up, dtype=np.float64)
    axis = int(np.argmax(np.abs(u)))
    right = np.eye(3)[1] if axis == 0 else np.eye(3)[0]
    forward = np.cross(u, right)
    return forward, right, u


def preset_direction(preset: str, up) -> tuple[np.ndarray, np.ndarray]:
    """(view direction, view-up) for a named preset; the camera looks along view direction.

    "isometric" looks from the front, right and above at once: along ``forward - right - up``
    (normalized), with the view-up as close to ``up`` as is orthogonal to it.
    """
    forward, right, u = view_basis(up)
    if preset == "isometric":
        direction = (forward - right - u) / np.sqrt(3.0)
        view_up = u - np.dot(u, direction) * direction
        return direction, view_up / np.linalg.norm(view_up)
    table = {
        "front": (forward, u),
        "back": (-forward, u),
        "left": (right, u),  # camera on the left side, looking toward +right
        "right": (-right, u),
        "top": (-u, forward),
        "bottom": (u, -forward),
    }
    if preset not in table:
        raise InvalidArgumentError(f"camera preset must be one of {VIEWS}, got {preset!r}")
    return table[preset]


def apply_preset(camera, preset: str, up, focal_point=None, distance: float | None = None):
    """Point ``camera`` (a vtkCamera) along a preset, keeping focal point and distance if None."""
    direction, view_up = preset_direction(preset, up)
    focal = np.array(camera.GetFocalPoint() if focal_point is None else focal_point, float)
    dist = camera.GetDistance() if distance is None else float(distance)
    camera.SetFocalPoint(*focal)
    camera.SetPosition(*(focal - dist * direction))
    camera.SetViewUp(*view_up)
    camera.OrthogonalizeViewUp()


def boxes_in_view(renderer, boxes) -> bool:
    """Whether every corner of each of ``boxes`` ((xmin, xmax, ymin, ymax, zmin, zmax) in
    ground; VTK's empty boxes are ignored) is drawn inside ``renderer``'s viewport with its
    active camera. O(boxes), one matrix product."""
    width, height = renderer.GetSize()
    boxes = [b for b in boxes if b is not None and b[0] <= b[1]]
    if not boxes or width <= 0 or height <= 0:
        return True
    b = np.asarray(boxes, dtype=np.float64).reshape(-1, 3, 2)
    corners = np.stack(
        [b[:, [0, 1, 2], [i, j, k]] for i in (0, 1) for j in (0, 1) for k in (0, 1)], axis=1
    ).reshape(-1, 3)
    matrix = renderer.GetActiveCamera().GetCompositeProjectionTransformMatrix(
        width / height, -1.0, 1.0
    )
    m = np.array([[matrix.GetElement(r, c) for c in range(4)] for r in range(4)])
    clip = np.column_stack([corners, np.ones(len(corners))]) @ m.T
    w = clip[:, 3]
    if np.any(w <= 0):
        return False  # a corner behind the camera
    return bool(np.all(np.abs(clip[:, :2]) <= w[:, None]))


def zoom_to_fit(renderer, bounds) -> None:
    """Move the camera back along its view direction until ``bounds`` fill the view.

    ``bounds`` is (xmin, xmax, ymin, ymax, zmin, zmax) in ground; the direction is kept.
    """
    b = [float(x) for x in bounds]
    if not all(np.isfinite(b)) or b[0] > b[1]:
        return
    renderer.ResetCamera(*b)
    renderer.ResetCameraClippingRange()


def union_bounds(bounds_list) -> tuple[float, ...] | None:
    """The box enclosing the given VTK bounds tuples (uninitialized ones are ignored)."""
    boxes = [b for b in bounds_list if b is not None and b[0] <= b[1]]
    if not boxes:
        return None
    a = np.array(boxes, dtype=np.float64)
    return (
        a[:, 0].min(),
        a[:, 1].max(),
        a[:, 2].min(),
        a[:, 3].max(),
        a[:, 4].min(),
        a[:, 5].max(),
    )


class BodyFollower:
    """Keeps the camera's focal point at a body's origin by translating the camera with it."""

    def __init__(self, body_id: int) -> None:
        self.body_id = int(body_id)
        self._last: np.ndarray | None = None

    def update(self, camera, x_gb: np.ndarray) -> None:
        """Shift ``camera`` (position and focal point) by the body's motion since last call."""
        if self.body_id >= len(x_gb):
            return
        origin = np.asarray(x_gb[self.body_id][:3, 3], dtype=np.float64)
        if self._last is None:
            delta = origin - np.array(camera.GetFocalPoint())
        else:
            delta = origin - self._last
        self._last = origin.copy()
        if np.any(delta):
            camera.SetFocalPoint(*(np.array(camera.GetFocalPoint()) + delta))
            camera.SetPosition(*(np.array(camera.GetPosition()) + delta))
