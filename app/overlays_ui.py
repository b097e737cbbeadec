"""View > Teaching overlays: trails, force arrows, spring coils, mass centres, body frames and
the default sketch, drawn over the 3-D view.

The toggles are views, not model edits: they never touch the document (no "modified" mark, no
undo entry). The controller tells the session which overlay data to compute with each snapshot
(``SimulationSession.overlay_kinds``; the worker computes it under the State lock) and redraws
the overlays (viz.overlays) from the snapshot's plain data on the GUI thread.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QMenu

from app.trail_station_dialog import TrailStationDialog, station_in_body, station_in_ground
from engine.multibody.default_geometry import DEFAULT_GEOMETRY_REF
from viz.overlays import (
    BodyFramesOverlay,
    ContactPointsOverlay,
    ForceArrowsOverlay,
    MassCentersOverlay,
    SpringCoilsOverlay,
    TrailOverlay,
)

# key: (menu text, tooltip, overlay data the worker must compute)
OVERLAYS = {
    "trail": (
        "&Trail of selected body or station",
        "Draw the path of the selected body's mass centre (the last body when none is "
        "selected), or of the station chosen with Trail station…",
        frozenset({"mass_centers"}),
    ),
    "forces": (
        "&Force arrows",
        "Arrows for gravity, springs, applied forces, joint reactions "
        "(calcMobilizerReactionForces) and constraint forces (from the multipliers), "
        "all to one scale (see the legend)",
        frozenset({"forces"}),
    ),
    "springs": ("Springs as &coils", "Draw two-point springs as coils", frozenset({"springs"})),
    "mass_centers": (
        "&Mass centres",
        "Mark each body's mass centre (black) and the whole system's (yellow)",
        frozenset({"mass_centers"}),
    ),
    "frames": ("&Body frames", "Red, green and blue x, y, z axes on every body", frozenset()),
    "contacts": (
        "&Contact points and forces",
        "Dots at the active contact points, with the normal (red) and friction (purple) parts "
        "of each contact force as arrows, to one scale (see the legend, lower left)",
        frozenset({"contacts"}),
    ),
}


SKETCH_TIP = (
    "Show the model's default sketch (body and joint frames, mass centres, bones) when the "
    "model asks for it; a view setting, not saved in the model"
)


def frame_length(x_gb, length_scale: float) -> float:
    """Axis length (m) of the body frames overlay: 0.35 length scales, but at most half the
    typical distance between the origins of bodies next in order (a parent and its child,
    mostly), so that a chain of short links (chain50: 8 cm) gets triads that fit its links."""
    length = 0.35 * float(length_scale)
    if x_gb is None or len(x_gb) < 2:
        return length
    origins = np.asarray(x_gb, dtype=np.float64)[:, :3, 3]
    steps = np.linalg.norm(np.diff(origins, axis=0), axis=1)
    steps = steps[steps > 1e-9]
    if len(steps):
        length = min(length, 0.5 * float(np.median(steps)))
    return length


def _view_menu(window: QMainWindow) -> QMenu | None:
    for action in window.menuBar().actions():
        if action.text().replace("&", "") == "View" and action.menu() is not None:
            return action.menu()
    return None


class OverlayController(QObject):
    """See the module docstring. ``actions[key]`` are the checkable menu actions (keys of
    OVERLAYS and "sketch"); ``overlays[key]`` the viz overlays."""

    def __init__(self, window: QMainWindow, panel) -> None:
        super().__init__(window)
        self.window = window
        self.panel = panel
        self.viewport = window.viewport
        self.overlays = {
            "trail": TrailOverlay(),
            "forces": ForceArrowsOverlay(),
            "springs": SpringCoilsOverlay(),
            "mass_centers": MassCentersOverlay(),
            "frames": BodyFramesOverlay(),
            "contacts": ContactPointsOverlay(),
        }
        self.actions: dict[str, QAction] = {}
        self.menu = QMenu("Teaching &overlays", window)
        self.menu.setObjectName("overlaysMenu")
        for key, (text, tip, _kinds) in OVERLAYS.items():
            action = QAction(text, window)
            action.setObjectName(f"overlay_{key}Action")
            action.setCheckable(True)
            action.setToolTip(tip)
            action.setStatusTip(tip)
            action.toggled.connect(lambda on, k=key: self._toggled(k, on))
            self.menu.addAction(action)
            self.actions[key] = action
        station = QAction("Trail &station…", window)
        station.setObjectName("overlay_trailStationAction")
        station.setToolTip(
            "Choose the point the trail follows: the selected body's mass centre, or a station "
            "fixed on a body (typed in, or the point last clicked in the view)"
        )
        station.setStatusTip(station.toolTip())
        station.triggered.connect(self.choose_trail_station)
        self.menu.insertAction(self.actions["forces"], station)
        self.trail_station_action = station
        #: (body name, p_BS) the trail follows, or None: the selected body's mass centre.
        self.trail_station: tuple[str, np.ndarray] | None = None
        #: (body name, p_BS) of the last left click on a body in the view, or None.
        self.last_click: tuple[str, np.ndarray] | None = None
        self.station_dialog: TrailStationDialog | None = None
        self.viewport.picked.connect(self._picked)
        self.menu.addSeparator()
        sketch = QAction("Default &sketch", window)
        sketch.setObjectName("overlay_sketchAction")
        sketch.setCheckable(True)
        sketch.setChecked(True)
        sketch.setToolTip(SKETCH_TIP)
        sketch.setStatusTip(SKETCH_TIP)
        sketch.toggled.connect(self._sketch_toggled)
        self.menu.addAction(sketch)
        self.actions["sketch"] = sketch
        view = _view_menu(window)
        if view is not None:
            view.addSeparator()
            view.addMenu(self.menu)
        self._model = None
        #: Axis length (m) of the body frames overlay for the model shown (see _fit_frames).
        self._frame_length = 0.35
        self._metres_per_newton: float | None = None
        self._trail_key: tuple | None = None
        self._last_time = None
        panel.snapshot_shown.connect(self._show)

    # -- toggles --------------------------------------------------------------------------------

    def enabled(self) -> list[str]:
        return [k for k in OVERLAYS if self.actions[k].isChecked()]

    def _toggled(self, key: str, on: bool) -> None:
        overlay = self.overlays[key]
        if on:
            overlay.attach(self.viewport.renderer)
            if key == "trail":
                overlay.clear()
                self._trail_key = None
        else:
            overlay.detach()
        self._request_data()
        snap = self.panel.snapshot
        if snap is not None:
            self._show(snap)

    def _request_data(self, changed_only: bool = False) -> None:
        """Tell the session which overlay data its snapshots carry; paused, it publishes one
        with them now. With ``changed_only`` only when the session did not carry these
        already (a new session): a snapshot of the same session and kinds has the data, and
        asking again would show (place and render) the same model a second time."""
        kinds: frozenset = frozenset()
        for key in self.enabled():
            kinds |= OVERLAYS[key][2]
        session = self.panel.session
        if session is not None:
            if changed_only and session.overlay_kinds == kinds:
                return
            session.overlay_kinds = kinds
            if not session.running:
                session.request_cache_report()  # publish a snapshot with the data now

    def _sketch_toggled(self, _on: bool) -> None:
        snap = self.panel.snapshot
        if snap is not None:
            self._show_geometry(snap)
            self.viewport.update_frame(snap.x_gb, self.panel._dynamic_geometry(snap))

    def _offer_sketch(self, snap) -> None:
        """The Default sketch toggle does something only for a model that draws the sketch
        (its Hints' "show default geometry"): for any other it is greyed out and says so."""
        action = self.actions["sketch"]
        # (looked for from the end: a System's sketch follows the bodies' own decorations)
        drawn = any(g.getUserRef() == DEFAULT_GEOMETRY_REF for g in reversed(snap.geometry))
        action.setEnabled(drawn)
        if drawn:
            action.setText("Default &sketch")
            tip = SKETCH_TIP
        else:
            action.setText("Default &sketch (off in this model's Hints)")
            tip = (
                "This model does not draw Simbody's default sketch: tick \"show default "
                'geometry" in its Hints to draw it, or use Body frames and Mass centres'
            )
        action.setToolTip(tip)
        action.setStatusTip(tip)

    def _show_geometry(self, snap) -> None:
        geometry = list(snap.geometry)
        if not self.actions["sketch"].isChecked():
            geometry = [g for g in geometry if g.getUserRef() != DEFAULT_GEOMETRY_REF]
        self.viewport.show_model(geometry)

    # -- drawing --------------------------------------------------------------------------------

    def _show(self, snap) -> None:
        """Redraw the enabled overlays from ``snap`` (the panel has just shown it)."""
        if snap.model is None:
            return
        if snap.model is not self._model:  # another model, or a new session
            self._model = snap.model
            self._metres_per_newton = None
            self.overlays["trail"].clear()
            self._trail_key = None
            self._request_data(changed_only=True)  # a new session may have replaced the old one
            self._frame_length = frame_length(snap.x_gb, snap.model.length_scale)
            self._offer_sketch(snap)
            if not self.actions["sketch"].isChecked():
                self._show_geometry(snap)
        enabled = self.enabled()
        if not enabled:
            return
        scale = snap.model.length_scale
        data = snap.overlays
        if "frames" in enabled and snap.x_gb is not None:
            self.overlays["frames"].update(snap.x_gb, self._frame_length)
        if data is not None and not data.error:
            if "mass_centers" in enabled and "mass_centers" in data.kinds:
                self.overlays["mass_centers"].update(
                    data.mass_centers[1:], data.system_mass_center, 0.04 * scale
                )
            if "springs" in enabled and "springs" in data.kinds:
                self.overlays["springs"].update(data.springs, 0.06 * scale)
            if "forces" in enabled and data.forces:
                self._draw_forces(data, scale)
            if "contacts" in enabled and "contacts" in data.kinds:
                self._draw_contacts(data, scale)
            if "trail" in enabled and self.trail_station is None:
                self._extend_trail(snap, data)
        if "trail" in enabled and self.trail_station is not None:
            self._extend_trail(snap, data)
        self._last_time = snap.time
        self.viewport.request_render()

    def _draw_forces(self, data, scale: float) -> None:
        if self._metres_per_newton is None:
            reference = data.reference_force
            if reference <= 0:  # no gravity: the largest force now
                sizes = [
                    np.linalg.norm(a.forces, axis=1).max(initial=0.0) for a in data.forces.values()
                ]
                reference = max(sizes, default=0.0)
            if reference <= 0:
                return  # nothing to draw yet; the scale is chosen when there is
            self._metres_per_newton = 0.5 * scale / reference
        arrows = {k: (a.points, a.forces) for k, a in data.forces.items()}
        self.overlays["forces"].update(arrows, self._metres_per_newton, 0.02 * scale)

    def _draw_contacts(self, data, scale: float) -> None:
        """Contact arrows to the force arrows' scale (half a length scale for the heaviest
        body's weight), or, with no gravity, to the largest contact force seen first."""
        c = data.contacts
        if self._metres_per_newton is None:
            reference = data.reference_force
            if reference <= 0 and len(c.normal):
                reference = float(np.linalg.norm(c.normal, axis=1).max())
            if reference > 0:
                self._metres_per_newton = 0.5 * scale / reference
        per_newton = self._metres_per_newton or 0.0
        self.overlays["contacts"].update(
            c.points, c.normal, c.friction, per_newton, 0.02 * scale, 0.015 * scale
        )

    def trail_body(self, snap) -> int:
        """The body whose mass centre the trail follows: the selected one, else the last."""
        names = list(snap.model.body_names)
        selected = self.panel.selected_body
        if selected in names and names.index(selected) > 0:
            return names.index(selected)
        return len(names) - 1

    def _extend_trail(self, snap, data) -> None:
        trail = self.overlays["trail"]
        station = self.trail_station
        if station is not None:
            names = list(snap.model.body_names)
            body = names.index(station[0]) if station[0] in names else -1
            key = (id(snap.model), body, tuple(station[1]))
        else:
            body = self.trail_body(snap)
            key = (id(snap.model), body)
        went_back = self._last_time is not None and snap.time < self._last_time
        if key != self._trail_key or went_back:
            trail.clear()
            self._trail_key = key
        if station is not None:
            if snap.x_gb is not None and 0 < body < len(snap.x_gb):
                trail.add(station_in_ground(snap.x_gb[body], station[1]))
        elif 0 < body < len(data.mass_centers):
            trail.add(data.mass_centers[body])

    # -- the trail's station ----------------------------------------------------------------------

    def _picked(self, result) -> None:
        """Remember the surface point of a click on a body, in that body's frame."""
        snap = self.panel.snapshot
        point = self.viewport.scene.last_pick_position
        if result is None or snap is None or snap.model is None or snap.x_gb is None:
            return
        names = list(snap.model.body_names)
        b = int(result.body_id)
        if point is None or not 0 < b < min(len(names), len(snap.x_gb)):
            return
        self.last_click = (str(names[b]), station_in_body(snap.x_gb[b], point))

    def choose_trail_station(self) -> None:
        """Open the Trail station dialog (non-blocking); OK sets the station and shows the
        trail."""
        snap = self.panel.snapshot
        bodies = [] if snap is None or snap.model is None else list(snap.model.body_names)[1:]
        dialog = TrailStationDialog(bodies, self.trail_station, self.last_click, parent=self.window)
        dialog.accepted.connect(lambda: self._station_chosen(dialog.station()))
        dialog.finished.connect(dialog.deleteLater)
        self.station_dialog = dialog
        dialog.open()

    def _station_chosen(self, station: tuple[str, np.ndarray] | None) -> None:
        self.trail_station = station
        self._trail_key = None
        trail = self.actions["trail"]
        if trail.isChecked():
            self.overlays["trail"].clear()
            snap = self.panel.snapshot
            if snap is not None:
                self._show(snap)
        else:
            trail.setChecked(True)
        where = (
            "the selected body's mass centre"
            if station is None
            else (f"{station[0]} at ({', '.join(f'{v:.4g}' for v in station[1])})")
        )
        self.window.statusBar().showMessage(f"Trail follows {where}", 4000)


def install_overlays(window: QMainWindow, panel) -> OverlayController:
    """Add View > Teaching overlays to ``window`` driven by the SimulationPanel ``panel``."""
    return OverlayController(window, panel)
