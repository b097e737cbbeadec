"""LineBatch: many body-fixed line drawings (frame triads, lines) drawn by one actor.

Simbody's default model sketch gives every body a frame triad and a line to its parent: a
50-body chain has ~200 such decorations. As separate actors each costs ~35 us of the GUI
thread per frame with software OpenGL (and a matrix copy per move); merged into one polydata
whose points numpy moves per frame, they cost one actor. Each segment keeps its colour (a
triad's red/green/blue axes, or the item's colour); picking maps a picked world point back to
the item with the nearest segment. Lengths are in the model's length unit.
"""

from __future__ import annotations

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk, vtk_to_numpy
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData
from vtkmodules.vtkRenderingCore import vtkActor, vtkPolyDataMapper

from viz.vtk_builder import DrawItem

#: Kinds whose drawing is only line segments (and can therefore be batched).
LINE_KINDS = ("frame", "line")


def batchable(item: DrawItem) -> bool:
    """True for a visible, opaque, body-fixed line drawing."""
    return (
        item.kind in LINE_KINDS
        and item.style == "actor"
        and item.visible
        and item.opacity >= 1.0
        and item.instance is None
    )


def _segments(item: DrawItem) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(points (n, 3) in the item's model coordinates, segments (m, 2) point indices, cell
    colours (m, 3) uint8 or None) of a line-only drawing."""
    mapper = item.mapper
    if mapper.GetNumberOfInputConnections(0):
        mapper.GetInputAlgorithm().Update()
    poly = mapper.GetInput()
    points = vtk_to_numpy(poly.GetPoints().GetData()).astype(np.float64).reshape(-1, 3)
    lines = poly.GetLines()
    offsets = vtk_to_numpy(lines.GetOffsetsArray()).astype(np.intp)
    conn = vtk_to_numpy(lines.GetConnectivityArray()).astype(np.intp)
    segs = []
    cell_of_seg = []
    for c in range(len(offsets) - 1):
        ids = conn[offsets[c] : offsets[c + 1]]
        for a, b in zip(ids[:-1], ids[1:], strict=True):
            segs.append((a, b))
            cell_of_seg.append(c)
    segments = np.array(segs, dtype=np.intp).reshape(-1, 2)
    colors = None
    scalars = poly.GetCellData().GetScalars()
    if item.scalar_colors and scalars is not None:
        colors = vtk_to_numpy(scalars).reshape(-1, scalars.GetNumberOfComponents())[:, :3]
        colors = colors[np.array(cell_of_seg, dtype=np.intp)].astype(np.uint8)
    return points, segments, colors


#: ``LineBatch.update`` places every point again when more than this share of the bodies
#: moved (picking out the moved bodies' points costs more than it saves then).
REPLACE_ALL_ABOVE = 0.25

_ONE_SEGMENT = np.array([[0, 1]], dtype=np.intp)


def _moved(before: np.ndarray, x_gb: np.ndarray) -> np.ndarray:
    """A flag per body of the poses ``x_gb``: its pose differs from the one in ``before``
    (poses placed at earlier; a body past its end, or NaN there, counts as moved)."""
    moved = np.ones(len(x_gb), dtype=bool)
    common = min(len(x_gb), len(before))
    moved[:common] = (before[:common] != x_gb[:common]).any(axis=(1, 2))
    return moved


#: ``_without`` copies the rows kept as the runs between the rows dropped when these are in
#: at most this many runs (a few items removed), else picks them with a mask.
COPY_RUNS_UP_TO = 64


def _without(rows: np.ndarray, drop: np.ndarray) -> np.ndarray:
    """``rows`` without the rows at the sorted indices ``drop`` (a new array)."""
    if not len(drop):
        return rows.copy()
    breaks = np.flatnonzero(np.diff(drop) != 1)
    if len(breaks) >= COPY_RUNS_UP_TO:
        keep = np.ones(len(rows), dtype=bool)
        keep[drop] = False
        return rows[keep]
    starts = [int(drop[0]), *(int(d) for d in drop[breaks + 1])]
    ends = [*(int(d) + 1 for d in drop[breaks]), int(drop[-1]) + 1]
    kept = [rows[: starts[0]]]
    kept += [rows[end:start] for end, start in zip(ends[:-1], starts[1:], strict=True)]
    kept.append(rows[ends[-1] :])
    return np.concatenate(kept)


def _object_array(items) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = list(items)
    return out


def _line_arrays(items: list[DrawItem], default_color) -> tuple:
    """(points in their bodies' frames (homogeneous, (p, 4)), owning item of each point,
    segments (point index pairs), owning item of each segment, segment colours (s, 3) uint8)
    of ``items``, indices counted from 0 within ``items``."""
    pts, segs, own_colors = [], [], []
    shared: dict[int, tuple] = {}  # mapper -> its segments (items sharing a unit shape)
    for it in items:
        if it.kind == "line" and it.points is not None:  # its two points
            p, s, c = it.points, _ONE_SEGMENT, None
        else:
            made = shared.get(id(it.mapper))
            if made is None or made[0] is not it.mapper:
                made = shared[id(it.mapper)] = (it.mapper, _segments(it))
            p, s, c = made[1]
        pts.append(p)
        segs.append(s)
        own_colors.append(c)
    n_items = len(items)
    if not n_items:
        return (
            np.zeros((0, 4)),
            np.zeros(0, np.intp),
            np.zeros((0, 2), np.intp),
            np.zeros(0, np.intp),
            np.zeros((0, 3), np.uint8),
        )
    n_points = np.array([len(p) for p in pts], dtype=np.intp)
    n_segments = np.array([len(s) for s in segs], dtype=np.intp)
    first_point = np.cumsum(n_points) - n_points
    first_segment = np.cumsum(n_segments) - n_segments
    point_owner = np.repeat(np.arange(n_items), n_points)
    segment_owner = np.repeat(np.arange(n_items), n_segments)
    points = np.concatenate([np.asarray(p, dtype=np.float64) for p in pts]).reshape(-1, 3)
    local = np.stack([it.local for it in items])
    homogeneous = np.c_[points, np.ones(len(points))]
    # each point in its body's frame (homogeneous), through its item's placement
    local_points = np.einsum("nij,nj->ni", local[point_owner], homogeneous)
    segments = np.concatenate(segs) + first_point[segment_owner][:, None]
    rgb = np.array([default_color if it.color is None else it.color for it in items], np.float64)
    colors = np.clip(np.round(rgb * 255.0), 0, 255).astype(np.uint8)[segment_owner]
    for k, c in enumerate(own_colors):  # items coloured by their data (triad axes)
        if c is not None:
            colors[first_segment[k] : first_segment[k] + n_segments[k]] = c
    return local_points, point_owner, segments, segment_owner, colors


class LineBatch:
    """One actor drawing the line items ``items`` (same line width); see the module docstring.

    Items can be added, removed and moved to other body indices afterwards (``add``,
    ``remove``, ``renumber``) with whole-array operations on the items kept."""

    def __init__(self, items: list[DrawItem], default_color) -> None:
        self.default_color = default_color
        self.items = _object_array(items)
        self.item_body = np.array([it.body_id for it in items], dtype=np.intp)
        self._item_ids = np.array([id(it) for it in items], dtype=np.int64)
        (
            self._local,
            self._point_item,
            self._segments,
            self._segment_owner,
            self._colors,
        ) = _line_arrays(items, default_color)
        self._points = vtkPoints()
        self._poly = vtkPolyData()
        self._poly.SetPoints(self._points)
        mapper = vtkPolyDataMapper()
        mapper.SetInputData(self._poly)
        mapper.ScalarVisibilityOn()
        mapper.SetScalarModeToUseCellData()
        mapper.SetColorModeToDirectScalars()
        self.mapper = mapper
        self.actor = vtkActor()
        self.actor.SetMapper(mapper)
        prop = self.actor.GetProperty()
        prop.LightingOff()
        prop.SetLineWidth(items[0].line_width if items else 1.0)
        #: How many items (the first ones) are placed for the body poses last given.
        self.placed = 0
        #: The body poses last given to ``update`` (a copy), and how many points it placed.
        self._placed_at: np.ndarray | None = None
        self.points_placed = 0
        self._upload()
        for it in items:
            it.group = self

    def _upload(self) -> None:
        """Hand the current arrays to VTK (points are placed by the next ``update``)."""
        self.body_idx = self.item_body[self._point_item]
        self._world = np.zeros((len(self._local), 3))
        self._points.SetData(numpy_to_vtk(self._world, deep=False))
        cells = vtkCellArray()
        n = len(self._segments)
        # VTK reads these arrays where they are (no copies): they are kept with it and never
        # changed (an add or remove makes new ones)
        offsets = np.arange(0, 2 * n + 1, 2, dtype=np.int64)
        connectivity = np.ascontiguousarray(self._segments, dtype=np.int64).reshape(-1)
        self._segments = connectivity.reshape(-1, 2)
        rgb = np.ascontiguousarray(self._colors)
        self._colors = rgb
        cells.SetData(numpy_to_vtk(offsets, deep=False), numpy_to_vtk(connectivity, deep=False))
        colors = numpy_to_vtk(rgb, deep=False)
        colors.SetName("colors")
        self._poly.SetLines(cells)
        self._poly.GetCellData().SetScalars(colors)
        self._keep = (cells, colors, offsets, connectivity, rgb)
        self._poly.Modified()
        self.placed = 0

    def __len__(self) -> int:
        return len(self.items)

    def remove(self, items) -> None:
        """Stop drawing ``items`` (members of this batch); the items kept keep their
        placement (see ``update``)."""
        gone = np.isin(self._item_ids, np.array([id(it) for it in items], dtype=np.int64))
        all_placed = self.placed == len(self.items)
        keep = ~gone
        new_item = np.cumsum(keep) - 1
        point_keep = keep[self._point_item]
        new_point = np.cumsum(point_keep) - 1
        drop_points = np.flatnonzero(~point_keep)
        drop_segments = np.flatnonzero(gone[self._segment_owner])
        self._local = _without(self._local, drop_points)
        self._point_item = new_item[_without(self._point_item, drop_points)]
        self._segments = new_point[_without(self._segments, drop_segments)]
        self._segment_owner = new_item[_without(self._segment_owner, drop_segments)]
        self._colors = _without(self._colors, drop_segments)
        world = _without(self._world, drop_points) if all_placed else None
        drop_items = np.flatnonzero(gone)
        for it in self.items[drop_items]:
            it.group = None
        self.items = _without(self.items, drop_items)
        self.item_body = _without(self.item_body, drop_items)
        self._item_ids = _without(self._item_ids, drop_items)
        self._upload()
        if world is not None:
            self._world[:] = world
            self.placed = len(self.items)

    def add(self, items: list[DrawItem], x_gb: np.ndarray | None = None) -> None:
        """Also draw ``items`` (line items of this batch's line width); with the body poses
        ``x_gb`` the items drawn already keep their placement (made for those poses) and only
        the new ones are placed (see ``update``)."""
        local, point_item, segments, segment_owner, colors = _line_arrays(items, self.default_color)
        n_items, n_points = len(self.items), len(self._local)
        placed = self.placed if x_gb is not None else 0
        kept = self._world[: np.searchsorted(self._point_item, placed)] if placed else None
        self._local = np.concatenate([self._local, local])
        self._point_item = np.concatenate([self._point_item, point_item + n_items])
        self._segments = np.concatenate([self._segments, segments + n_points])
        self._segment_owner = np.concatenate([self._segment_owner, segment_owner + n_items])
        self._colors = np.concatenate([self._colors, colors])
        self.items = np.concatenate([self.items, _object_array(items)])
        self.item_body = np.concatenate(
            [self.item_body, np.array([it.body_id for it in items], dtype=np.intp)]
        )
        self._item_ids = np.concatenate(
            [self._item_ids, np.array([id(it) for it in items], dtype=np.int64)]
        )
        for it in items:
            it.group = self
        self._upload()
        if x_gb is not None:
            before = self._placed_at
            if kept is not None:
                self._world[: len(kept)] = kept
            self.placed = placed
            self.update(x_gb, placed)
            if kept is not None and before is not None:
                # the items kept were placed at ``before`` (the poses of their bodies then,
                # renumbered bodies under their new index): those of bodies posed otherwise
                # in ``x_gb`` are placed again, so that every point is placed at ``x_gb``
                moved = _moved(before, np.asarray(x_gb))
                self._place_points(x_gb, np.flatnonzero(moved[self.body_idx[: len(kept)]]))

    def renumber(self, body_map: np.ndarray) -> None:
        """Body index b of every item becomes ``body_map[b]`` (the items' ``body_id`` is the
        caller's to update). The items keep their placement: the poses they were placed at
        follow their bodies to the new indices (see ``update``)."""
        before = self._placed_at
        if before is not None and self.placed == len(self.items) and len(self.items):
            bodies = np.unique(self.item_body)
            if bodies[-1] < len(before):
                new = body_map[bodies]
                at = np.full((int(new.max()) + 1, 4, 4), np.nan)  # (NaN: never equal)
                at[new] = before[bodies]
                self._placed_at = at
            else:
                self.placed = 0
        else:
            self.placed = 0
        self.item_body = body_map[self.item_body]
        self.body_idx = self.item_body[self._point_item]

    def update(self, x_gb: np.ndarray, start: int = 0) -> None:
        """Move the points of the items from ``start`` on (all by default) for body poses
        ``x_gb`` ((nbodies, 4, 4), in ground). When every item is placed already, for poses
        (bodies renumbered since by ``renumber`` compared under their new index), only the
        points of the bodies whose pose changed are placed again (all of them when more than
        ``REPLACE_ALL_ABOVE`` of the bodies moved)."""
        x_gb = np.asarray(x_gb)
        before, self._placed_at = self._placed_at, x_gb.copy()
        if start == 0 and self.placed == len(self.items) and before is not None:
            moved = _moved(before, x_gb)
            if moved.sum() <= REPLACE_ALL_ABOVE * len(moved):
                self._update_moved(x_gb, moved)
                return
        first = int(np.searchsorted(self._point_item, start)) if start else 0
        self.placed = len(self.items)
        self.points_placed = max(0, len(self._local) - first)
        if first >= len(self._local):
            return
        w = np.einsum("nij,nj->ni", x_gb[:, :3, :][self.body_idx[first:]], self._local[first:])
        self._world[first:] = w
        self._points.Modified()
        self._poly.Modified()

    def _update_moved(self, x_gb: np.ndarray, moved: np.ndarray) -> None:
        """Place again the points of the bodies ``moved`` (a flag per body) for ``x_gb``."""
        points = np.flatnonzero(moved[self.body_idx])
        self.points_placed = len(points)
        self._place_points(x_gb, points)

    def _place_points(self, x_gb: np.ndarray, points: np.ndarray) -> None:
        """Place the points ``points`` (indices) for the body poses ``x_gb``."""
        if not len(points):
            return
        w = np.einsum("nij,nj->ni", x_gb[:, :3, :][self.body_idx[points]], self._local[points])
        self._world[points] = w
        self._points.Modified()
        self._poly.Modified()

    def body_box(self) -> tuple | None:
        """(xmin, xmax, ymin, ymax, zmin, zmax) of the placed points of the items on bodies
        other than Ground (None: there are none). The points before and after the span that
        holds Ground's (a few, together: a session's decorations keep a body's together) are
        read where they are, column by column; only that span's are picked out."""
        world = self._world
        on_ground = np.flatnonzero(self.body_idx == 0)
        if len(on_ground) == len(world):
            return None
        parts = [world]
        if len(on_ground):
            lo, hi = int(on_ground[0]), int(on_ground[-1]) + 1
            span = world[lo:hi][self.body_idx[lo:hi] > 0]
            parts = [p for p in (world[:lo], span, world[hi:]) if len(p)]
        return tuple(
            float(f([f(p[:, c]) for p in parts])) for c in range(3) for f in (np.min, np.max)
        )

    def pick_instance(self, p_world) -> DrawItem | None:
        """The item with the segment nearest the world point ``p_world``."""
        found = self.pick_item(p_world)
        return None if found is None else found[0]

    def pick_item(self, p_world) -> tuple[DrawItem, int] | None:
        """(the item with the segment nearest ``p_world``, its body index), or None."""
        if not len(self._segments):
            return None
        a = self._world[self._segments[:, 0]]
        b = self._world[self._segments[:, 1]]
        ab = b - a
        p = np.asarray(p_world, dtype=np.float64)
        t = np.clip(np.einsum("ij,ij->i", p - a, ab) / np.maximum((ab * ab).sum(1), 1e-300), 0, 1)
        d = np.linalg.norm(a + t[:, None] * ab - p, axis=1)
        k = int(self._segment_owner[int(np.argmin(d))])
        return self.items[k], int(self.item_body[k])
