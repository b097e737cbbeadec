"""Scene: a Qt-free VTK scene drawing DecorativeGeometry on moving bodies.

Usage::

    scene = Scene()
    scene.attach_offscreen(800, 600)        # or scene.attach(qt_widget_render_window)
    scene.set_hints(up=(0, 1, 0), uniform_background=False, length_scale=1.0)
    scene.set_geometry(decorations)         # once: builds the actors
    scene.update_poses(X_GB)                # per frame: (nbodies, 4, 4) body poses in ground
    scene.set_dynamic_geometry(bands)       # per frame, optional: geometry that changes shape
    scene.render()

Frames and units: ``X_GB[b]`` is the pose of body b in ground (Ground itself is body 0), as a
homogeneous 4x4 matrix with lengths in the model's unit. A decoration's actor matrix is
``X_GB[bodyId] @ X_BD @ diag(scale factors) @ (shape size)``; only these matrices change per
frame. Many identical spheres, ellipsoids, bricks or cylinders (more than
``instancing_threshold`` of one shape and style) are drawn with one vtkGlyph3DMapper, and many
body-fixed frame triads and lines (Simbody's default model sketch) with one LineBatch actor.
Display coordinates for picking are VTK's: pixels from the bottom-left corner.

Only one thread may use a Scene, and (in the studio) it must be the GUI thread.
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

import numpy as np
import vtkmodules.vtkRenderingFreeType  # noqa: F401  (text rendering)
import vtkmodules.vtkRenderingOpenGL2  # noqa: F401  (OpenGL implementations)
from vtkmodules.vtkCommonMath import vtkMatrix4x4
from vtkmodules.vtkRenderingCore import (
    vtkActor,
    vtkFollower,
    vtkPropPicker,
    vtkRenderer,
    vtkTextActor,
)

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from viz import camera as cam
from viz.decoration_keys import KeyedGeometry, keyed, match
from viz.environment import Environment
from viz.instancing import GlyphGroup
from viz.line_batch import LineBatch, batchable
from viz.render_window import capture_rgb, create_offscreen_window
from viz.vtk_builder import (
    POINTS,
    SURFACE,
    WIREFRAME,
    DrawItem,
    VtkGeometryBuilder,
    line_mapper,
)

DEFAULT_COLOR = (0.72, 0.74, 0.78)
"""Surface colour for decorations that request none (light blue-grey)."""
DEFAULT_INSTANCING_THRESHOLD = 32
DEFAULT_ELEVATION = 15.0
"""Degrees the automatic first view looks down from the front preset."""


class PickResult(NamedTuple):
    """What a pick hit: the decoration's bodyId, indexOnBody and userRef."""

    body_id: int
    index_on_body: int
    user_ref: object


class _Drawn(NamedTuple):
    """Fingerprints of the static decorations a Scene draws (see viz.decoration_keys)."""

    bodies: np.ndarray
    hashes: np.ndarray
    body_names: tuple | None
    serial: int  # the KeyedGeometry's


def _object_array(items) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = list(items)
    return out


def _glyph_key(item: DrawItem) -> tuple | None:
    """The glyph group an item joins when its shape is numerous (None: never instanced)."""
    if item.instance is not None and item.visible and item.opacity >= 1.0:
        return (item.instance, item.representation, item.line_width, item.lighting)
    return None


def _batch_key(item: DrawItem) -> tuple:
    """("glyph", glyph key), ("lines", line width) or ("actor", None): how an item is drawn
    when there are many like it."""
    key = _glyph_key(item)
    if key is not None:
        return ("glyph", key)
    if batchable(item):
        return ("lines", item.line_width)
    return ("actor", None)


def _appended(pairing: np.ndarray, n_old: int) -> bool:
    """Whether ``pairing`` (new decoration -> drawn one, -1: none) keeps the ``n_old`` drawn
    decorations as the first ones, in order, and adds the rest (a drawing in steps)."""
    return (
        len(pairing) >= n_old
        and bool(np.all(pairing[n_old:] < 0))
        and np.array_equal(pairing[:n_old], np.arange(n_old))
    )


def _group_key(group) -> tuple:
    if isinstance(group, GlyphGroup):
        first = group.items[0] if len(group) else None
        return ("glyph",) if first is None else _batch_key(first)
    return ("lines", float(group.actor.GetProperty().GetLineWidth()))


class _Placement:
    """Arrays for placing individually drawn items: body index, local matrix, vtkMatrix4x4."""

    def __init__(self, items: list[DrawItem]) -> None:
        placed = [it for it in items if it.style == "actor"]
        self.matrices = [it.matrix for it in placed]
        self.body = np.array([it.body_id for it in placed], dtype=np.intp)
        self.local = np.stack([it.local for it in placed]) if placed else np.zeros((0, 4, 4))
        self.followers = [it for it in items if it.style == "follower"]

    def max_body(self) -> int:
        bodies = [int(self.body.max())] if len(self.body) else []
        bodies += [it.body_id for it in self.followers]
        return max(bodies, default=0)

    def place(self, x_gb: np.ndarray) -> None:
        if len(self.body):
            world = np.matmul(x_gb[self.body], self.local).reshape(-1, 16).tolist()
            for m, w in zip(self.matrices, world, strict=True):
                m.DeepCopy(w)
        for it in self.followers:
            w = x_gb[it.body_id] @ it.local
            it.actor.SetPosition(*w[:3, 3])
            it.actor.SetScale(*np.linalg.norm(w[:3, :3], axis=0))


class Scene:
    """A vtkRenderer with decorations, ground/background hints, overlays, camera and picking."""

    def __init__(
        self,
        *,
        instancing_threshold: int = DEFAULT_INSTANCING_THRESHOLD,
        default_color=DEFAULT_COLOR,
    ) -> None:
        self.renderer = vtkRenderer()
        self.renderer.SetUseDepthPeeling(False)
        self.render_window = None
        self._owns_window = False
        self.instancing_threshold = int(instancing_threshold)
        self.default_color = tuple(float(c) for c in default_color)
        self.environment = Environment(self.renderer)
        self._builder = VtkGeometryBuilder()
        self._static: list[DrawItem] = []
        self._dynamic: list[DrawItem] = []
        self._groups: list[GlyphGroup | LineBatch] = []
        self._glyphs: dict[tuple, GlyphGroup] = {}
        self._lines: dict[float, LineBatch] = {}
        #: Every static item (batched or not), its decoration's index and its body index.
        self._items = _object_array([])
        self._owner = np.zeros(0, dtype=np.intp)
        self._item_body = np.zeros(0, dtype=np.intp)
        #: Fingerprints and body names of the static decorations drawn (None: nothing drawn).
        self._drawn: _Drawn | None = None
        self._static_place = _Placement([])
        self._dynamic_place = _Placement([])
        self._prop_owner: dict = {}
        self._max_body_id = 0
        self._poses: np.ndarray | None = None
        self._camera_initialized = False
        self._follower: cam.BodyFollower | None = None
        self._picker = vtkPropPicker()
        #: The point (ground, model units) on the surface the last successful pick hit.
        self.last_pick_position: np.ndarray | None = None
        self._overlay = vtkTextActor()
        self._overlay.PickableOff()
        self._overlay.VisibilityOff()
        tp = self._overlay.GetTextProperty()
        tp.SetFontSize(14)
        tp.SetFontFamilyToCourier()
        tp.SetVerticalJustificationToTop()
        coord = self._overlay.GetPositionCoordinate()
        coord.SetCoordinateSystemToNormalizedViewport()
        coord.SetValue(0.01, 0.985)
        self.renderer.AddViewProp(self._overlay)
        self._apply_text_colors()
        #: the renderer's StartEvent observer calling _before_frame while the Scene draws into
        #: a window (``attach``), so before every frame however it is asked for (Scene.render,
        #: the interactor's camera moves); removed by ``detach``, so that the C++ renderer
        #: holds no reference to the Scene once it no longer draws
        self._before_frame_tag: int | None = None

    def _before_frame(self, *_args) -> None:
        """Before a frame: each glyph group culls back faces or not, and draws its coarse or
        full unit shape, for the camera (GlyphGroup.before_frame)."""
        if not self._glyphs:
            return
        camera = self.renderer.GetActiveCamera()
        height = int(self.renderer.GetSize()[1])
        for group in self._glyphs.values():
            group.before_frame(camera, height)

    # -- windows --------------------------------------------------------------------------------

    def attach(self, render_window) -> None:
        """Draw into ``render_window`` (e.g. the Qt widget's); turns multisampling off."""
        if self.render_window is render_window:
            return
        self.detach()
        render_window.SetMultiSamples(0)
        render_window.AddRenderer(self.renderer)
        self._before_frame_tag = self.renderer.AddObserver("StartEvent", self._before_frame)
        self.render_window = render_window

    def attach_offscreen(self, width: int, height: int):
        """Create and attach an offscreen window of ``width`` x ``height`` pixels; return it."""
        window = create_offscreen_window(width, height)
        self.attach(window)
        self._owns_window = True
        return window

    def detach(self) -> None:
        """Stop drawing into the current window (releasing it if the Scene created it)."""
        window = self.render_window
        if window is None:
            return
        window.RemoveRenderer(self.renderer)
        if self._before_frame_tag is not None:
            self.renderer.RemoveObserver(self._before_frame_tag)
            self._before_frame_tag = None
        if self._owns_window:
            window.Finalize()
        self.render_window = None
        self._owns_window = False

    def close(self) -> None:
        """Remove everything and release an owned window. The Scene is unusable afterwards."""
        self._clear_static()
        self._set_dynamic_items([])
        self.detach()

    def render(self) -> None:
        """Render one frame (the first frame also aims the camera if nobody has)."""
        if self.render_window is None:
            raise RuntimeError("Scene.render() needs a window: call attach() or attach_offscreen()")
        if not self._camera_initialized:
            self.reset_camera()
        self.renderer.ResetCameraClippingRange()
        self.render_window.Render()

    def capture(self) -> np.ndarray:
        """Render and return the pixels as an (height, width, 3) uint8 array, top row first."""
        self.render()
        return capture_rgb(self.render_window)

    # -- geometry -------------------------------------------------------------------------------

    def set_geometry(self, geometry) -> None:
        """Replace the static decorations (an iterable of DecorativeGeometry).

        Actors are built here; afterwards ``update_poses`` only moves them. Given again (a model
        edit), only the decorations that differ from those drawn are rebuilt: decorations are
        paired with the drawn ones by fingerprint (``viz.decoration_keys``; a KeyedGeometry
        brings them precomputed, with the body names that follow bodies an edit renumbered), and
        batched items are added to and removed from their batches with whole-array operations.
        Decorations that cannot be drawn are logged once per kind and skipped.
        """
        keys = keyed(geometry if isinstance(geometry, KeyedGeometry) else tuple(geometry))
        old = self._drawn
        paired = keys.paired
        if old is None or not len(old.hashes) or not len(keys):  # (nothing to pair)
            pairing = None
        elif paired is not None and paired[0] == old.serial:  # paired by the worker
            pairing = paired[1]
        else:
            pairing = match(old, keys)
        fresh = int((pairing < 0).sum()) if pairing is not None else len(keys)
        # (many new ones are drawn afresh, unless every drawn one stays: a drawing in steps)
        if pairing is None or (
            fresh > max(64, len(keys) // 2) and len(keys) - fresh < len(old.hashes)
        ):
            self._build_all(keys)
        else:
            self._update(keys, old, pairing)
        self._drawn = _Drawn(keys.bodies, keys.hashes, keys.body_names, keys.serial)
        # (batches keep the placement of the items they drew before: only the rest is placed)
        self._place(self._static_place, self._groups, unplaced_only=True)

    def has_body_geometry(self) -> bool:
        """Whether any static decoration is on a body other than Ground."""
        return self._drawn is not None and bool(np.any(self._drawn.bodies > 0))

    def describe(self) -> list[tuple]:
        """What the static decorations draw, one sorted entry per drawn item: (decoration
        index, kind, body index as drawn, drawn by ("actor", or the batch's kind and key),
        placement X_B-local (rounded), colour, opacity, representation, line width, visible).
        Two Scenes showing the same geometry describe it equally however they got there."""
        owner = dict(zip(map(id, self._items), self._owner.tolist(), strict=True))
        out = []
        for it in self._static:  # (their own decoration index: it must be current)
            out.append(self._describe_item(it, it.owner, ("actor",), it.body_id))
        for group in self._groups:
            key = (type(group).__name__, _group_key(group))
            for it, body in zip(group.items, group.item_body, strict=True):
                out.append(self._describe_item(it, owner[id(it)], key, int(body)))
        return sorted(out, key=repr)

    @staticmethod
    def _describe_item(it: DrawItem, owner: int, where: tuple, body: int) -> tuple:
        color = None if it.color is None else tuple(np.round(it.color, 9).tolist())
        return (
            owner,
            it.kind,
            body,
            where,
            tuple(np.round(it.local, 9).ravel().tolist()),
            color,
            it.opacity,
            it.representation,
            it.line_width,
            it.visible,
        )

    def _build_all(self, keys: KeyedGeometry) -> None:
        """Draw ``keys`` afresh."""
        self._clear_static()
        items = self._builder.build(keys)
        glyphs: dict[tuple, list[DrawItem]] = defaultdict(list)
        lines: dict[float, list[DrawItem]] = defaultdict(list)
        for it in items:
            key = _glyph_key(it)
            if key is not None:
                glyphs[key].append(it)
            elif batchable(it):
                lines[it.line_width].append(it)
        singles = set()
        for key, members in glyphs.items():
            if len(members) > self.instancing_threshold:
                self._new_glyph_group(key, members)
                singles.update(id(m) for m in members)
        for width, members in lines.items():
            if len(members) > self.instancing_threshold:
                self._new_line_batch(width, members)
                singles.update(id(m) for m in members)
        self._static = [it for it in items if id(it) not in singles]
        for it in self._static:
            self._add_actor(it)
        self._set_items(items)
        self._static_place = _Placement(self._static)
        self._update_max_body()
        self.environment.draw_sky_last()

    def _update(self, keys: KeyedGeometry, old: _Drawn, pairing: np.ndarray) -> None:
        """Draw ``keys`` by changing what is drawn for ``old``: ``pairing[j]`` is the drawn
        decoration the new decoration j draws the same as (-1: none)."""
        n_old = len(old.hashes)
        touched: set = set()
        if _appended(pairing, n_old):  # (a drawing in steps: no array of the drawn is copied)
            old_to_new = np.arange(n_old, dtype=np.intp)
            items, owner, body = self._items, self._owner, self._item_body
            moved = ()
        else:
            old_to_new = np.full(n_old, -1, dtype=np.intp)
            paired = np.flatnonzero(pairing >= 0)
            old_to_new[pairing[paired]] = paired
            owner = old_to_new[self._owner]
            gone = owner < 0
            # decorations no longer drawn
            by_group: dict[int, tuple] = {}
            for it in self._items[gone]:
                touched.add(_batch_key(it))
                if it.group is not None:
                    by_group.setdefault(id(it.group), (it.group, []))[1].append(it)
                else:
                    self._remove_actor(it)
            for group, members in by_group.values():
                group.remove(members)
            kept = ~gone
            items, owner, old_body = self._items[kept], owner[kept], self._item_body[kept]
            body = keys.bodies[owner]
            moved = np.flatnonzero(body != old_body)
        if len(moved):  # bodies renumbered by the edit (one removed before them...)
            size = max(int(old_body.max()), int(self._item_body.max())) + 1
            body_map = np.arange(size, dtype=np.intp)
            body_map[old_body] = body
            for group in self._groups:
                group.renumber(body_map)
            self._renumber_poses(old_body, body_map)
            for it in self._static:  # (batched items' bodies are their batches' arrays)
                if it.actor is not None:
                    it.body_id = int(body_map[it.body_id])
        # (the arrays hold every item's decoration index; of the items themselves only the
        # singly drawn ones keep theirs current, for their order)
        for it in self._static:
            if it.actor is not None:
                it.owner = int(old_to_new[it.owner])
        # new decorations
        fresh = np.flatnonzero(pairing < 0)
        built = self._builder.build([keys[j] for j in fresh])
        to_group: dict[int, tuple] = {}
        self._static = [it for it in self._static if it.actor is not None]
        for it in built:
            it.owner = int(fresh[it.owner])
            key = _batch_key(it)
            touched.add(key)
            group = self._glyphs.get(key[1]) if key[0] == "glyph" else self._lines.get(key[1])
            if group is not None:
                to_group.setdefault(id(group), (group, []))[1].append(it)
            else:
                self._add_actor(it)
                self._static.append(it)
        if to_group:
            poses = self._pose_stack(int(keys.bodies.max()))
            for group, members in to_group.values():
                group.add(members, poses)
        self._items = np.concatenate([items, _object_array(built)])
        self._owner = np.concatenate([owner, np.array([it.owner for it in built], np.intp)])
        self._item_body = np.concatenate(
            [body, np.array([it.body_id for it in built], dtype=np.intp)]
        )
        for key in touched:  # (after the arrays: a batch split up reads its items' indices)
            if key[0] != "actor":
                self._regroup(key)
        self._static.sort(key=lambda it: it.owner)
        self._static_place = _Placement(self._static)
        self._update_max_body()
        if len(built):
            self.environment.draw_sky_last()

    def _renumber_poses(self, old_body: np.ndarray, body_map: np.ndarray) -> None:
        """The poses last given follow the bodies of the items drawn (``old_body``, their
        indices before) to their new indices ``body_map[old_body]``: items added before the
        next poses come are placed as the items kept were, so that the next poses place
        again only the bodies that moved (see LineBatch.update)."""
        poses = self._poses
        if poses is None or not len(old_body):
            return
        bodies = np.unique(old_body)
        bodies = bodies[bodies < len(poses)]
        new = body_map[bodies]
        out = np.tile(np.eye(4), (max(len(poses), int(new.max(initial=0)) + 1), 1, 1))
        out[: len(poses)] = poses
        out[new] = poses[bodies]
        self._poses = out

    def _regroup(self, key: tuple) -> None:
        """Batch the items of batch key ``key`` as a fresh build would: in one glyph group or
        line batch when there are more than ``instancing_threshold`` of them, else singly."""
        kind, k = key
        groups = self._glyphs if kind == "glyph" else self._lines
        group = groups.get(k)
        singles = [it for it in self._static if _batch_key(it) == key]
        total = len(singles) + (len(group) if group is not None else 0)
        if total > self.instancing_threshold:
            if singles:
                for it in singles:
                    self._remove_actor(it)
                ids = {id(it) for it in singles}
                self._static = [it for it in self._static if id(it) not in ids]
                if group is None:
                    if kind == "glyph":
                        self._new_glyph_group(k, singles)
                    else:
                        self._new_line_batch(k, singles)
                    return
                group.add(singles)
            if kind == "glyph":
                group.set_shape_ports(
                    self._builder.instance_shape_port(k[0], len(group)),
                    self._builder.coarse_shape_port(k[0], len(group)),
                )
        elif group is not None:  # too few left to batch
            members = list(group.items)
            self._drop_group(group)
            del groups[k]
            owners = self._owners_of(members)
            bodies = group.item_body.tolist()
            for it, owner, body in zip(members, owners, bodies, strict=True):
                it.group = None
                it.owner, it.body_id = owner, body
                self._add_actor(it)
            self._static.extend(members)

    def _owners_of(self, items: list[DrawItem]) -> list[int]:
        """The decoration index of each of ``items`` (static items), from the arrays."""
        ids = np.fromiter((id(it) for it in self._items), dtype=np.int64, count=len(self._items))
        want = np.array([id(it) for it in items], dtype=np.int64)
        order = np.argsort(ids)
        where = order[np.searchsorted(ids, want, sorter=order)]
        return self._owner[where].tolist()

    def _new_glyph_group(self, key: tuple, members: list[DrawItem]) -> None:
        port = self._builder.instance_shape_port(members[0].instance, len(members))
        group = GlyphGroup(members, port, self._default())
        group.set_shape_ports(
            port, self._builder.coarse_shape_port(members[0].instance, len(members))
        )
        self._style_property(group.actor.GetProperty(), members[0], None)
        self._add_group(group)
        self._glyphs[key] = group

    def _new_line_batch(self, width: float, members: list[DrawItem]) -> None:
        batch = LineBatch(members, self._default())
        self._add_group(batch)
        self._lines[width] = batch

    def _add_group(self, group) -> None:
        self.renderer.AddActor(group.actor)
        self._prop_owner[group.actor] = group
        self._groups.append(group)

    def _drop_group(self, group) -> None:
        self.renderer.RemoveActor(group.actor)
        self._prop_owner.pop(group.actor, None)
        self._groups = [g for g in self._groups if g is not group]

    def _set_items(self, items: list[DrawItem]) -> None:
        """Record every static item (batched or not) with its decoration and body."""
        self._items = _object_array(items)
        self._owner = np.fromiter((it.owner for it in items), dtype=np.intp, count=len(items))
        self._item_body = np.fromiter((it.body_id for it in items), dtype=np.intp, count=len(items))

    def set_dynamic_geometry(self, geometry) -> None:
        """Replace the per-frame decorations, reusing actors slot by slot.

        Call every frame with geometry whose shape changes (rubber bands, force arrows); an
        item in the same position and of the same kind as last time is updated in place.
        """
        items = self._builder.build(geometry, pool=self._dynamic)
        self._set_dynamic_items(items)
        self._place(self._dynamic_place, ())

    def update_poses(self, x_gb) -> None:
        """Move every decoration to the body poses ``x_gb``: an (nbodies, 4, 4) array in ground."""
        x = np.asarray(x_gb, dtype=np.float64)
        if x.ndim != 3 or x.shape[1:] != (4, 4):
            raise InvalidArgumentError(
                f"body poses must be an (nbodies, 4, 4) array, got shape {x.shape}"
            )
        needed = self._max_body_id
        if needed >= x.shape[0]:
            raise IndexOutOfRangeError(
                f"decorations refer to body {needed} but only {x.shape[0]} body poses were given"
            )
        self._poses = x
        self._place(self._static_place, self._groups)
        self._place(self._dynamic_place, ())
        if self._follower is not None:
            self._follower.update(self.renderer.GetActiveCamera(), x)

    def num_actors(self) -> int:
        """Number of decoration actors in the renderer (a glyph group counts once)."""
        return len(self._prop_owner)

    # -- hints, overlays ------------------------------------------------------------------------

    def set_hints(
        self, up=None, uniform_background=None, length_scale=None, background=None
    ) -> None:
        """Apply System visualization hints (None keeps a value); see viz.environment.

        ``up`` is a unit vector along +-X, +-Y or +-Z (or a CoordinateDirection); the camera's
        view-up follows it. ``background`` is the plain colour used with a uniform background.
        """
        old_up, was_dark = self.environment.up.copy(), self.environment.is_dark()
        self.environment.set_hints(up, uniform_background, length_scale, background)
        if self._camera_initialized and not np.array_equal(old_up, self.environment.up):
            cam.apply_preset(self.renderer.GetActiveCamera(), "front", self.environment.up)
        if self.environment.is_dark() != was_dark:  # default text colour flips
            self._apply_text_colors()
            for it in self._static + self._dynamic:
                self._restyle(it)

    def set_overlay_text(
        self,
        sim_time: float | None = None,
        realtime_rate: float | None = None,
        fps: float | None = None,
        text: str | None = None,
    ) -> None:
        """Show simulation time (s), real-time rate, frames per second and/or extra text.

        Drawn in the top-left corner; all None hides the overlay.
        """
        lines = []
        if sim_time is not None:
            lines.append(f"t = {sim_time:.3f} s")
        if realtime_rate is not None:
            lines.append(f"{realtime_rate:.2f}x real time")
        if fps is not None:
            lines.append(f"{fps:.0f} fps")
        if text:
            lines.append(str(text))
        self._overlay.SetInput("\n".join(lines))
        self._overlay.SetVisibility(bool(lines))

    # -- camera ---------------------------------------------------------------------------------

    def reset_camera(self, elevation: float = DEFAULT_ELEVATION, bodies_only: bool = False) -> None:
        """Front view relative to up, raised by ``elevation`` degrees, zoomed to fit (all
        decorations, or with ``bodies_only`` those on the moving bodies)."""
        self.view("front")
        if elevation:
            camera = self.renderer.GetActiveCamera()
            camera.Elevation(float(elevation))
            camera.OrthogonalizeViewUp()
        self.zoom_to_fit(bodies_only=bodies_only)

    def view(self, preset: str) -> None:
        """Look from a preset: front, back, left, right, top, bottom or isometric (relative to
        up)."""
        camera = self.renderer.GetActiveCamera()
        cam.apply_preset(camera, preset, self.environment.up)
        self._camera_initialized = True

    def set_camera(self, position, focal_point, view_up=None, view_angle=None) -> None:
        """Place the camera explicitly (ground coordinates; view_angle in degrees)."""
        camera = self.renderer.GetActiveCamera()
        camera.SetPosition(*np.asarray(position, dtype=np.float64))
        camera.SetFocalPoint(*np.asarray(focal_point, dtype=np.float64))
        up = self.environment.up if view_up is None else view_up
        camera.SetViewUp(*np.asarray(up, dtype=np.float64))
        if view_angle is not None:
            camera.SetViewAngle(float(view_angle))
        camera.OrthogonalizeViewUp()
        self._camera_initialized = True

    def zoom_to_fit(self, bodies_only: bool = False) -> None:
        """Keep the view direction and move the camera so all decorations fit in the view
        (``bodies_only``: those on the moving bodies, not Ground's, when there are any)."""
        bounds = self.body_bounds() if bodies_only else None
        if bounds is None:
            bounds = self.geometry_bounds()
        if bounds is None:
            s = self.environment.length_scale
            bounds = (-s, s, -s, s, -s, s)
        b = np.array(bounds).reshape(3, 2)
        centre = b.mean(axis=1)
        half = np.maximum((b[:, 1] - b[:, 0]) / 2.0, 0.25 * self.environment.length_scale)
        fitted = np.column_stack([centre - half, centre + half]).reshape(-1)
        cam.zoom_to_fit(self.renderer, fitted)
        self._camera_initialized = True

    def follow_body(self, body_id: int | None) -> None:
        """Keep the camera's focal point on body ``body_id``'s origin (None stops following)."""
        self._follower = None if body_id is None else cam.BodyFollower(body_id)
        if self._follower is not None and self._poses is not None:
            self._follower.update(self.renderer.GetActiveCamera(), self._poses)
        self._camera_initialized = True

    def geometry_bounds(self):
        """(xmin, xmax, ymin, ymax, zmin, zmax) of all visible decorations, or None."""
        props = [p for p in self._prop_owner if p.GetVisibility() and p.IsA("vtkProp3D")]
        return cam.union_bounds(p.GetBounds() for p in props)

    def body_bounds(self):
        """(xmin, xmax, ymin, ymax, zmin, zmax) of the visible decorations on bodies other than
        Ground (never the floor or Ground's frame), or None if there are none."""
        return cam.union_bounds(self.body_boxes())

    def body_boxes(self) -> list[tuple]:
        """The world boxes (xmin, xmax, ymin, ymax, zmin, zmax) of the visible decorations on
        bodies other than Ground: one per solid decoration, one per batch of glyphs or lines
        (around all of its pieces on such bodies)."""
        return [box for _, _, box in self._body_decoration_boxes()]

    def _body_decoration_boxes(self):
        """(prop, owner, world box) of each box ``body_boxes`` gives."""
        for prop, owner in self._prop_owner.items():
            if not prop.GetVisibility():
                continue
            if isinstance(owner, GlyphGroup):
                mask = owner.body_idx > 0
                if mask.any():
                    centre = owner._positions[mask]  # noqa: SLF001
                    reach = np.abs(owner.scale[mask]).max(axis=1)[:, None]
                    lo, hi = (centre - reach).min(axis=0), (centre + reach).max(axis=0)
                    yield prop, owner, (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
            elif isinstance(owner, LineBatch):
                box = owner.body_box()
                if box is not None:
                    yield prop, owner, box
            elif owner.body_id > 0 and prop.IsA("vtkProp3D"):
                yield prop, owner, prop.GetBounds()

    def body_points(self) -> tuple[np.ndarray, np.ndarray]:
        """(points (n, 3) in ground, body ids (n,)) bounding the visible decorations on bodies
        other than Ground: the corners of each solid decoration's box, the corners of each
        glyph's cube, each line end."""
        points, ids = [], []
        signs = np.array([[i, j, k] for i in (-1, 1) for j in (-1, 1) for k in (-1, 1)], float)
        for prop, owner in self._prop_owner.items():
            if not prop.GetVisibility():
                continue
            if isinstance(owner, GlyphGroup):
                mask = owner.body_idx > 0
                if mask.any():
                    centre = owner._positions[mask]  # noqa: SLF001
                    reach = np.abs(owner.scale[mask]).max(axis=1)
                    corners = centre[:, None, :] + reach[:, None, None] * signs[None]
                    points.append(corners.reshape(-1, 3))
                    ids.append(np.repeat(owner.body_idx[mask], 8))
            elif isinstance(owner, LineBatch):
                mask = owner.body_idx > 0
                if mask.any():
                    points.append(owner._world[mask])  # noqa: SLF001
                    ids.append(owner.body_idx[mask])
            elif owner.body_id > 0 and prop.IsA("vtkProp3D"):
                b = prop.GetBounds()
                if b[0] <= b[1]:
                    box = np.array(b, dtype=np.float64).reshape(3, 2)
                    corners = box.mean(axis=1) + 0.5 * (box[:, 1] - box[:, 0]) * signs
                    points.append(corners)
                    ids.append(np.full(8, owner.body_id))
        if not points:
            return np.zeros((0, 3)), np.zeros(0, dtype=np.int64)
        return np.concatenate(points), np.concatenate(ids).astype(np.int64)

    def bodies_in_view(self) -> bool:
        """Whether the centre of every visible decoration (batch) on a body other than Ground
        is inside the view (a decoration partly out of the view still shows where it is); for
        a frame drawn alone (a selected body's axes), its origin: seen from close up, a
        body's axes reach out of the view while the body is in it."""
        centres = []
        for prop, owner, b in self._body_decoration_boxes():
            if getattr(owner, "kind", None) == "frame" and prop.IsA("vtkActor"):
                matrix = prop.GetMatrix()
                x, y, z = (matrix.GetElement(i, 3) for i in range(3))
            elif b[0] <= b[1]:
                x, y, z = 0.5 * (b[0] + b[1]), 0.5 * (b[2] + b[3]), 0.5 * (b[4] + b[5])
            else:
                continue
            centres.append((x, x, y, y, z, z))
        return cam.boxes_in_view(self.renderer, centres)

    def body_half_size(self, body_id: int) -> float | None:
        """Half the longest side (m) of the world box around body ``body_id``'s visible solid
        decorations (lines and frames left out), or None when it has none; O(decorations)."""
        boxes = []
        for prop, owner in self._prop_owner.items():
            if not prop.GetVisibility() or isinstance(owner, LineBatch):
                continue
            if isinstance(owner, GlyphGroup):
                mask = owner.body_idx == body_id
                if mask.any():
                    centre = owner._positions[mask]  # noqa: SLF001
                    reach = np.abs(owner.scale[mask]).max(axis=1)[:, None]
                    lo, hi = (centre - reach).min(axis=0), (centre + reach).max(axis=0)
                    boxes.append((lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]))
            elif getattr(owner, "body_id", None) == body_id and prop.IsA("vtkProp3D"):
                boxes.append(prop.GetBounds())
        bounds = cam.union_bounds(boxes)
        if bounds is None:
            return None
        return 0.5 * float(np.max(np.diff(np.reshape(bounds, (3, 2)), axis=1)))

    def world_to_display(self, p_world) -> tuple[float, float]:
        """Display coordinates (pixels from bottom-left) of a ground point for this camera."""
        r = self.renderer
        r.SetWorldPoint(*np.asarray(p_world, dtype=np.float64), 1.0)
        r.WorldToDisplay()
        x, y, _ = r.GetDisplayPoint()
        return x, y

    # -- picking --------------------------------------------------------------------------------

    def pick(self, x: float, y: float) -> PickResult | None:
        """The decoration under display point (x, y) (pixels from bottom-left), or None."""
        if self.render_window is None:
            return None
        if not self._picker.Pick(float(x), float(y), 0.0, self.renderer):
            return None
        owner = self._prop_owner.get(self._picker.GetViewProp())
        if owner is None:
            return None
        body = None
        if isinstance(owner, (GlyphGroup, LineBatch)):
            found = owner.pick_item(self._picker.GetPickPosition())
            if found is None:
                return None
            owner, body = found
        self.last_pick_position = np.array(self._picker.GetPickPosition(), dtype=np.float64)
        body = owner.body_id if body is None else body
        return PickResult(body, owner.index_on_body, owner.user_ref)

    def pick_point(self, x: float, y: float) -> tuple[PickResult | None, np.ndarray | None]:
        """``pick(x, y)`` and the picked point on the decoration's surface (in ground), or
        (None, None)."""
        hit = self.pick(x, y)
        if hit is None:
            return None, None
        return hit, np.array(self._picker.GetPickPosition(), dtype=np.float64)

    # -- internals ------------------------------------------------------------------------------

    def _default(self):
        return self.default_color

    def _text_default(self):
        return (0.95, 0.95, 0.95) if self.environment.is_dark() else (0.1, 0.1, 0.12)

    def _apply_text_colors(self) -> None:
        self._overlay.GetTextProperty().SetColor(*self._text_default())

    def _update_max_body(self) -> None:
        ids = [self._static_place.max_body(), self._dynamic_place.max_body()]
        ids += [int(g.body_idx.max()) for g in self._groups if len(g.body_idx)]
        self._max_body_id = max(ids)

    def _pose_stack(self, max_body: int = 0) -> np.ndarray:
        """Current poses, padded with identities for bodies not given yet (up to body
        ``max_body`` at least)."""
        n = max(self._max_body_id, max_body) + 1
        poses = self._poses
        if poses is None or len(poses) < n:
            pad = np.tile(np.eye(4), (n, 1, 1))
            if poses is not None:
                pad[: len(poses)] = poses
            poses = pad
        return poses

    def _place(self, placement: _Placement, groups, unplaced_only: bool = False) -> None:
        """Place ``placement``'s items and the batches ``groups`` for the current poses
        (``unplaced_only``: of the batches only the items not placed for them yet)."""
        poses = self._pose_stack()
        placement.place(poses)
        for g in groups:
            if not unplaced_only:
                g.update(poses)
            elif g.placed < len(g):
                g.update(poses, g.placed)

    def _clear_static(self) -> None:
        for it in self._static:
            self._remove_actor(it)
        for g in self._groups:
            self.renderer.RemoveActor(g.actor)
            self._prop_owner.pop(g.actor, None)
            for it in g.items:  # no reference cycle left for the collector
                it.group = None
        self._static, self._groups = [], []
        self._glyphs, self._lines = {}, {}
        self._set_items([])
        self._drawn = None
        self._static_place = _Placement([])
        self._update_max_body()

    def _set_dynamic_items(self, items: list[DrawItem]) -> None:
        old, self._dynamic = self._dynamic, items
        kept = {id(it) for it in items}
        for it in old:
            if id(it) not in kept:
                self._remove_actor(it)
        for it in items:
            if it.actor is None:
                self._add_actor(it)
            else:
                self._restyle(it)
        self._dynamic_place = _Placement(items)
        self._update_max_body()

    def _add_actor(self, item: DrawItem) -> None:
        if item.style == "screen_text":
            actor = vtkTextActor()
            actor.PickableOff()
            self.renderer.AddViewProp(actor)
        else:
            if item.style == "follower":
                actor = vtkFollower()
                actor.SetCamera(self.renderer.GetActiveCamera())
            else:
                actor = vtkActor()
                item.matrix = vtkMatrix4x4()
                actor.SetUserMatrix(item.matrix)
            self.renderer.AddActor(actor)
            self._prop_owner[actor] = item
        item.actor = actor
        self._restyle(item)

    def _remove_actor(self, item: DrawItem) -> None:
        if item.actor is None:
            return
        if item.style == "screen_text":
            self.renderer.RemoveViewProp(item.actor)
        else:
            self.renderer.RemoveActor(item.actor)
            self._prop_owner.pop(item.actor, None)
        item.actor = None
        item.matrix = None

    def _restyle(self, item: DrawItem) -> None:
        actor = item.actor
        visible = item.visible and item.opacity > 0.0
        actor.SetVisibility(visible)
        if item.style == "screen_text":
            self._style_screen_text(item)
            return
        actor.SetPickable(visible)
        mapper = line_mapper(item)
        if actor.GetMapper() is not mapper:
            actor.SetMapper(mapper)
        default = self._text_default() if item.kind.startswith("text") else self._default()
        self._style_property(actor.GetProperty(), item, default)

    def _style_property(self, prop, item: DrawItem, default) -> None:
        if item.color is not None or default is not None:
            prop.SetColor(*(item.color if item.color is not None else default))
        prop.SetOpacity(item.opacity)
        prop.SetLineWidth(item.line_width)
        prop.SetPointSize(item.point_size)
        rep = item.representation
        if rep == POINTS:
            prop.SetRepresentationToPoints()
            prop.RenderPointsAsSpheresOn()
        elif rep == WIREFRAME:
            prop.SetRepresentationToWireframe()
        else:
            prop.SetRepresentationToSurface()
        prop.SetLighting(item.lighting)
        if item.lighting and rep == SURFACE:
            prop.SetSpecular(0.25)
            prop.SetSpecularPower(30.0)
            prop.SetDiffuse(0.8)
            prop.SetAmbient(0.15)

    def _style_screen_text(self, item: DrawItem) -> None:
        actor = item.actor
        actor.SetInput(item.text)
        tp = actor.GetTextProperty()
        tp.SetFontSize(16)
        tp.SetColor(*(item.color if item.color is not None else self._text_default()))
        tp.SetOpacity(item.opacity)
        row = [it for it in self._static + self._dynamic if it.style == "screen_text"]
        slot = next((i for i, it in enumerate(row) if it is item), len(row))
        actor.SetDisplayPosition(10, 10 + 22 * slot)
