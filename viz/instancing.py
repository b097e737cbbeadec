"""GlyphGroup: many identical unit shapes (spheres, bricks, cylinders) drawn by one glyph mapper.

Drawing 1000 separate actors costs ~35 us each per frame with software OpenGL; one
vtkGlyph3DMapper draws them all in one go. Each instance keeps its own body, rigid placement
X_BD, per-axis size, and colour; per frame only the instance positions and orientations (unit
quaternions w, x, y, z) are rewritten, vectorized with numpy. Picking maps a picked world point
back to the instance whose surface it lies on. Lengths are in the model's length unit.

The unit shapes are closed surfaces (a capped cylinder, a cube, a sphere) and a group is opaque,
so the faces turned away from the camera are hidden behind the near side of the same instance
while the camera is outside it: a group drawn as surfaces whose instances are all scaled
without a mirror (every scale factor positive, the winding kept) skips them (back-face
culling) for each frame whose camera is outside every instance's bounding sphere, which draws
the same picture with about half the triangles (what a software OpenGL spends its time on for
thousands of instances).

A group may also have a coarse unit shape (``set_shape_ports``): before each frame
``before_frame`` draws it instead of the full one while no instance is more than
COARSE_BELOW_PIXELS in radius on screen (a large model seen whole), and the full one as soon as
one is (the camera nearer).
"""

from __future__ import annotations

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkPolyData
from vtkmodules.vtkRenderingCore import vtkActor, vtkGlyph3DMapper

from viz.matrix_utils import quaternions_from_rotations
from viz.vtk_builder import COARSE_BELOW_PIXELS, SURFACE, DrawItem

#: Unit shapes whose surface is closed (see the module docstring).
CLOSED_SHAPES = frozenset({"sphere", "brick", "cylinder"})


def _object_array(items) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = list(items)
    return out


class GlyphGroup:
    """One actor drawing ``items`` (same unit shape and style) with a vtkGlyph3DMapper.

    ``shape_port`` is the output port of the shared unit shape (radius / half-length 1).
    ``default_color`` is used for items with no colour request. Items can be added, removed
    and moved to other body indices afterwards (``add``, ``remove``, ``renumber``) with
    whole-array operations on the items kept.
    """

    def __init__(self, items: list[DrawItem], shape_port, default_color) -> None:
        self.instance = items[0].instance
        self.shape = self.instance[0]
        self.default_color = default_color
        self.items = _object_array(items)
        self.body_idx, self.x_bd, self.scale, self._colors, self._item_ids = self._arrays(items)
        mapper = vtkGlyph3DMapper()
        #: The unit shape's output ports: the full one and a coarse one (None: none), and
        #: whether the coarse one is drawn (see before_frame).
        self.shape_ports = (shape_port, None)
        self.coarse = False
        mapper.SetSourceConnection(shape_port)
        mapper.OrientOn()
        mapper.SetOrientationModeToQuaternion()
        mapper.SetOrientationArray("orientation")
        mapper.ScalingOn()
        mapper.SetScaleModeToScaleByVectorComponents()
        mapper.SetScaleArray("scale")
        mapper.SetScaleFactor(1.0)
        mapper.ScalarVisibilityOn()
        mapper.SetScalarModeToUsePointFieldData()
        mapper.SelectColorArray("colors")
        mapper.SetColorModeToDirectScalars()
        self.mapper = mapper
        self.actor = vtkActor()
        self.actor.SetMapper(mapper)
        #: Whether the group's faces are closed surfaces drawn as such (see _cull_back_faces).
        self._closed = self.shape in CLOSED_SHAPES and items[0].representation == SURFACE
        #: How many items (the first ones) are placed for the body poses last given.
        self.placed = 0
        self._upload()
        for it in items:
            it.group = self

    def _arrays(self, items) -> tuple:
        n = len(items)
        body_idx = np.array([it.body_id for it in items], dtype=np.intp)
        x_bd = np.stack([it.x_bd for it in items]) if n else np.zeros((0, 4, 4))
        scale = np.stack([it.scale for it in items]) if n else np.zeros((0, 3))
        colors = np.empty((n, 4), dtype=np.uint8)
        for i, it in enumerate(items):
            rgb = self.default_color if it.color is None else it.color
            colors[i, :3] = np.clip(np.round(np.asarray(rgb) * 255.0), 0, 255)
        colors[:, 3] = 255
        ids = np.array([id(it) for it in items], dtype=np.int64)
        return body_idx, x_bd, scale.astype(np.float64), colors, ids

    def _upload(self) -> None:
        """Hand the current arrays to VTK (instances are placed by the next ``update``)."""
        n = len(self.items)
        self.scale = np.ascontiguousarray(self.scale, dtype=np.float64)
        self._colors = np.ascontiguousarray(self._colors)
        self._positions = np.zeros((n, 3))
        self._quaternions = np.tile([1.0, 0.0, 0.0, 0.0], (n, 1))
        self._rotations = np.tile(np.eye(3), (n, 1, 1))
        self._points = vtkPoints()
        self._points.SetData(numpy_to_vtk(self._positions, deep=False))
        self._quat_array = numpy_to_vtk(self._quaternions, deep=False)
        self._quat_array.SetName("orientation")
        scale_array = numpy_to_vtk(self.scale, deep=False)
        scale_array.SetName("scale")
        color_array = numpy_to_vtk(self._colors, deep=False)
        color_array.SetName("colors")
        self._poly = vtkPolyData()
        self._poly.SetPoints(self._points)
        pd = self._poly.GetPointData()
        for arr in (self._quat_array, scale_array, color_array):
            pd.AddArray(arr)
        self._arrays_kept = (scale_array, color_array)
        self.mapper.SetInputData(self._poly)
        self.placed = 0
        self._cull_back_faces()

    def set_shape_ports(self, full, coarse=None) -> None:
        """Draw the unit shape of output port ``full``, or of ``coarse`` (None: none) while
        the instances are tiny on screen (see before_frame)."""
        if self.shape_ports[0] is full and self.shape_ports[1] is coarse:
            return
        self.shape_ports = (full, coarse)
        self.coarse = False
        self.mapper.SetSourceConnection(full)

    def before_frame(self, camera, height: int) -> None:
        """Before a frame of ``camera`` in a viewport ``height`` pixels high: cull back faces
        when the group may (see _cull_back_faces) and the camera is outside every instance's
        bounding sphere; draw the coarse unit shape when there is one and every instance in
        front of the camera is at most COARSE_BELOW_PIXELS in radius on screen (its largest
        half-size over its depth along the view direction), else the full one."""
        placed = self.placed == len(self.items) and len(self.items) > 0
        if self._cullable:
            inside = placed and self._eye_inside(np.array(camera.GetPosition()))
            self._set_culling(not inside)
        full, coarse = self.shape_ports
        tiny = bool(coarse is not None and placed and self._tiny(camera, height))
        if tiny != self.coarse:
            self.coarse = tiny
            self.mapper.SetSourceConnection(coarse if tiny else full)

    def _eye_inside(self, eye: np.ndarray) -> bool:
        """Whether ``eye`` is in the bounding sphere of an instance (centre its position,
        radius the norm of its half-sizes)."""
        offset = self._positions - eye
        return bool(np.any(np.einsum("ij,ij->i", offset, offset) <= self._bound_squared))

    def _tiny(self, camera, height: int) -> bool:
        if not len(self.items) or height <= 0:
            return False
        reach = self.scale.max(axis=1)
        if camera.GetParallelProjection():
            pixels_per_unit = height / (2.0 * camera.GetParallelScale())
            return float(reach.max()) * pixels_per_unit <= COARSE_BELOW_PIXELS
        eye = np.array(camera.GetPosition())
        ahead = np.array(camera.GetDirectionOfProjection())
        depth = (self._positions - eye) @ ahead
        seen = depth > -reach  # (wholly behind the camera: not drawn)
        if np.any(depth[seen] <= reach[seen]):  # the camera at or inside an instance
            return False
        pixels_per_unit_at_depth_1 = height / (2.0 * np.tan(np.radians(camera.GetViewAngle()) / 2))
        largest = float(np.max(reach[seen] / depth[seen], initial=0.0))
        return largest * pixels_per_unit_at_depth_1 <= COARSE_BELOW_PIXELS

    def _cull_back_faces(self) -> None:
        """Whether the group may skip the faces turned away from the camera (``before_frame``
        does while the camera is outside every instance): closed surfaces, none mirrored (a
        negative scale factor turns an instance inside out)."""
        self._cullable = self._closed and bool(np.all(self.scale > 0.0))
        self._bound_squared = np.einsum("ij,ij->i", self.scale, self.scale)
        self._set_culling(self._cullable)

    def _set_culling(self, cull: bool) -> None:
        prop = self.actor.GetProperty()
        if bool(prop.GetBackfaceCulling()) != cull:
            prop.SetBackfaceCulling(cull)

    def remove(self, items) -> None:
        """Stop drawing ``items`` (members of this group)."""
        gone = np.isin(self._item_ids, np.array([id(it) for it in items], dtype=np.int64))
        keep = ~gone
        for it in self.items[gone]:
            it.group = None
        self.items = self.items[keep]
        self.body_idx = self.body_idx[keep]
        self.x_bd = self.x_bd[keep]
        self.scale = self.scale[keep]
        self._colors = self._colors[keep]
        self._item_ids = self._item_ids[keep]
        self._upload()

    def add(self, items: list[DrawItem], x_gb: np.ndarray | None = None) -> None:
        """Also draw ``items`` (of this group's unit shape and style); with the body poses
        ``x_gb`` the items drawn already keep their placement (made for those poses) and only
        the new ones are placed (see ``update``)."""
        placed = self.placed if x_gb is not None else 0
        kept = (self._positions[:placed], self._quaternions[:placed], self._rotations[:placed])
        body_idx, x_bd, scale, colors, ids = self._arrays(items)
        self.items = np.concatenate([self.items, _object_array(items)])
        self.body_idx = np.concatenate([self.body_idx, body_idx])
        self.x_bd = np.concatenate([self.x_bd, x_bd])
        self.scale = np.concatenate([self.scale, scale])
        self._colors = np.concatenate([self._colors, colors])
        self._item_ids = np.concatenate([self._item_ids, ids])
        for it in items:
            it.group = self
        self._upload()
        if x_gb is not None:
            self._positions[:placed], self._quaternions[:placed], self._rotations[:placed] = kept
            self.placed = placed
            self.update(x_gb, placed)

    def renumber(self, body_map: np.ndarray) -> None:
        """Body index b of every item becomes ``body_map[b]`` (the items' ``body_id`` is the
        caller's to update)."""
        self.body_idx = body_map[self.body_idx]
        self.placed = 0

    @property
    def item_body(self) -> np.ndarray:
        """The body index of each item."""
        return self.body_idx

    def __len__(self) -> int:
        return len(self.items)

    def update(self, x_gb: np.ndarray, start: int = 0) -> None:
        """Place the instances from ``start`` on (all by default) for body poses ``x_gb``
        ((nbodies, 4, 4), rigid, in ground)."""
        if start >= len(self.items):
            self.placed = len(self.items)
            return
        w = x_gb[self.body_idx[start:]] @ self.x_bd[start:]
        self._positions[start:] = w[:, :3, 3]
        self._rotations[start:] = w[:, :3, :3]
        self._quaternions[start:] = quaternions_from_rotations(self._rotations[start:])
        self.placed = len(self.items)
        self._points.Modified()
        self._quat_array.Modified()
        self._poly.Modified()

    def pick_instance(self, p_world) -> DrawItem | None:
        """The instance whose surface is nearest the world point ``p_world`` (a picked point)."""
        found = self.pick_item(p_world)
        return None if found is None else found[0]

    def pick_item(self, p_world) -> tuple[DrawItem, int] | None:
        """(the instance whose surface is nearest ``p_world``, its body index), or None."""
        if not len(self.items):
            return None
        d = np.asarray(p_world, dtype=np.float64) - self._positions
        q = np.einsum("nji,nj->ni", self._rotations, d) / self.scale  # in unit-shape coordinates
        if self.shape == "sphere":
            surf = np.linalg.norm(q, axis=1)
        elif self.shape == "brick":
            surf = np.abs(q).max(axis=1)
        else:  # cylinder, axis y
            surf = np.maximum(np.hypot(q[:, 0], q[:, 2]), np.abs(q[:, 1]))
        miss = np.abs(surf - 1.0) * self.scale.mean(axis=1)  # roughly in length units
        k = int(np.argmin(miss))
        return self.items[k], int(self.body_idx[k])
