# ruff: noqa: N803, N806  (Simbody monogram names: X_GB, p_BS, R_GB)
"""Pulling bodies with the mouse in the 3-D view (the GUI side; see app.body_puller).

``BodyDragger(window)`` is the view's drag handler:

* Ctrl + left drag on a body pulls the grabbed point of the body toward the point under the
  mouse, in the plane through the grabbed point that faces the camera;
* Ctrl + right drag on a body turns it about the line of sight, like a knob: by the angle the
  mouse sweeps around the body's origin on the screen;
* Ctrl + Shift + right drag tumbles it instead: dragging sideways turns it about the screen's
  vertical, up and down about the screen's horizontal (half a turn per view width).

While the simulation runs the pull is a spring in the engine; while paused it drags the pose
(see app.body_puller.BodyPull). A rubber band (a line from the grabbed point to the target, and
a small ball at the target) shows the pull while the button is down. Requests go to the worker
through ``SimulationSession.pull_body``; this GUI-thread object never touches the State.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QObject
from vtkmodules.vtkFiltersSources import vtkLineSource, vtkSphereSource
from vtkmodules.vtkRenderingCore import vtkActor, vtkPolyDataMapper

from app.body_puller import FORCE, TORQUE, PullRequest, rotation_from_vector

BAND_COLOR = (1.0, 0.35, 0.1)
MISSED_TEXT = "Nothing to pull here: Ctrl + drag starting on a body pulls it"
#: Radians of turn per pixel of mouse motion, times the view's width (half a turn per width).
TURN_PER_WIDTH = math.pi


class BodyDragger(QObject):
    """See the module docstring. ``window`` is the MainWindow (viewport and simulation)."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.window = window
        self.viewport = window.viewport
        self._drag = 0
        self._grab: dict | None = None
        self._line = vtkLineSource()
        self._ball = vtkSphereSource()
        self._ball.SetThetaResolution(16)
        self._ball.SetPhiResolution(12)
        self._actors = []
        for source in (self._line, self._ball):
            mapper = vtkPolyDataMapper()
            mapper.SetInputConnection(source.GetOutputPort())
            actor = vtkActor()
            actor.SetMapper(mapper)
            actor.GetProperty().SetColor(*BAND_COLOR)
            actor.GetProperty().SetLineWidth(3.0)
            actor.GetProperty().LightingOff()
            actor.PickableOff()
            actor.VisibilityOff()
            self.viewport.renderer.AddActor(actor)
            self._actors.append((actor, mapper))
        self.viewport.set_drag_handler(self)
        window.simulation.snapshot_shown.connect(self._snapshot_shown)

    @property
    def dragging(self) -> bool:
        return self._grab is not None

    # -- the drag handler protocol (viz.qt_view.SceneView) --------------------------------------

    def press(self, button: str, x: int, y: int, ctrl: bool, shift: bool) -> bool:
        """Take a Ctrl + left or right press on a body; anything else is the camera's."""
        if not ctrl or button not in ("left", "right"):
            return False
        panel = self.window.simulation
        session, snap = panel.session, panel.snapshot
        hit, p_G = (None, None)
        if session is not None and snap is not None and snap.x_gb is not None:
            hit, p_G = self.viewport.scene.pick_point(x, y)
        if hit is None or hit.body_id <= 0 or int(hit.body_id) >= len(snap.x_gb):
            # A Ctrl drag that misses the body (it moved on while running) does nothing: the
            # camera's own Ctrl drag would roll the view about the line of sight.
            self.window.statusBar().showMessage(MISSED_TEXT, 4000)
            return True
        b = int(hit.body_id)
        X_GB = np.asarray(snap.x_gb[b])
        p_BS = X_GB[:3, :3].T @ (p_G - X_GB[:3, 3])
        camera = self.viewport.renderer.GetActiveCamera()
        self._drag += 1
        self._grab = {
            "body": b,
            "mode": FORCE if button == "left" else TORQUE,
            "p_BS": p_BS,
            "plane_point": p_G,
            "normal": np.asarray(camera.GetDirectionOfProjection(), dtype=np.float64),
            "press": (x, y),
            "tumble": shift,
            "centre": self.viewport.scene.world_to_display(X_GB[:3, 3]),
            "R_GB0": X_GB[:3, :3].copy(),
            "target": p_G,
            "R_target": X_GB[:3, :3].copy(),
            "session": session,
        }
        self._select(b)
        self._post(active=True)
        self._show_band(X_GB)
        return True

    def move(self, x: int, y: int) -> None:
        grab = self._grab
        if grab is None:
            return
        if grab["mode"] == FORCE:
            target = self._plane_point(x, y)
            if target is None:
                return
            grab["target"] = target
        else:
            grab["R_target"] = self._turned(x, y)
        self._post(active=True)
        snap = self.window.simulation.snapshot
        if snap is not None and snap.x_gb is not None and grab["body"] < len(snap.x_gb):
            self._show_band(np.asarray(snap.x_gb[grab["body"]]))

    def release(self, x: int, y: int) -> None:
        if self._grab is None:
            return
        self._post(active=False)
        self._grab = None
        for actor, _ in self._actors:
            actor.VisibilityOff()
        self.viewport.request_render()

    # -- internals ------------------------------------------------------------------------------

    def _select(self, b: int) -> None:
        panel = self.window.simulation
        names = panel.snapshot.model.body_names if panel.snapshot.model else ()
        try:
            name = str(names[b])
        except (IndexError, KeyError, TypeError):
            return
        panel.select_body(name)
        panel.body_picked.emit(name)

    def _post(self, active: bool) -> None:
        grab = self._grab
        session = grab["session"]
        if session is not self.window.simulation.session:
            return  # the model was replaced during the drag
        session.pull_body(
            PullRequest(
                drag=self._drag,
                body=grab["body"],
                mode=grab["mode"],
                p_BS=tuple(float(c) for c in grab["p_BS"]),
                p_G=tuple(float(c) for c in grab["target"]),
                R_G_target=tuple(float(c) for c in np.reshape(grab["R_target"], -1)),
                active=active,
            )
        )

    def _plane_point(self, x: float, y: float) -> np.ndarray | None:
        """The point under display pixel (x, y) on the grab plane (through the grabbed point,
        facing the camera)."""
        grab = self._grab
        renderer = self.viewport.renderer
        ends = []
        for depth in (0.0, 1.0):
            renderer.SetDisplayPoint(float(x), float(y), depth)
            renderer.DisplayToWorld()
            w = np.asarray(renderer.GetWorldPoint(), dtype=np.float64)
            if w[3] == 0.0:
                return None
            ends.append(w[:3] / w[3])
        a, b = ends
        n = grab["normal"]
        denom = float(n @ (b - a))
        if abs(denom) < 1e-15:
            return None
        t = float(n @ (grab["plane_point"] - a)) / denom
        return a + t * (b - a)

    def _turned(self, x: float, y: float) -> np.ndarray:
        """The body's target orientation after the mouse moved from the press to (x, y)."""
        grab = self._grab
        camera = self.viewport.renderer.GetActiveCamera()
        up = np.asarray(camera.GetViewUp(), dtype=np.float64)
        dop = np.asarray(camera.GetDirectionOfProjection(), dtype=np.float64)
        right = np.cross(dop, up)
        (x0, y0), (cx, cy) = grab["press"], grab["centre"]
        if grab["tumble"]:
            width = max(1, self.viewport.interactor_widget.width())
            theta = (TURN_PER_WIDTH / width) * ((x - x0) * up - (y - y0) * right)
        else:
            # Counter-clockwise on the screen is a positive turn about the axis toward the
            # viewer (-dop).
            swept = math.atan2(y - cy, x - cx) - math.atan2(y0 - cy, x0 - cx)
            swept = (swept + math.pi) % (2.0 * math.pi) - math.pi
            theta = -swept * dop
        return rotation_from_vector(theta) @ grab["R_GB0"]

    def _band_ends(self, X_GB: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        grab = self._grab
        p_BS = grab["p_BS"]
        start = X_GB[:3, 3] + X_GB[:3, :3] @ p_BS
        if grab["mode"] == FORCE:
            return start, grab["target"]
        return start, X_GB[:3, 3] + grab["R_target"] @ p_BS

    def _show_band(self, X_GB: np.ndarray) -> None:
        start, end = self._band_ends(X_GB)
        self._line.SetPoint1(*start)
        self._line.SetPoint2(*end)
        self._ball.SetCenter(*end)
        scale = float(self.viewport.scene.environment.length_scale)
        self._ball.SetRadius(0.03 * scale)
        for actor, _ in self._actors:
            actor.VisibilityOn()
        self.viewport.request_render()

    def _snapshot_shown(self, snap) -> None:
        grab = self._grab
        if grab is None:
            return
        if grab["session"] is not self.window.simulation.session:
            self.release(0, 0)
            return
        if snap.x_gb is not None and grab["body"] < len(snap.x_gb):
            self._show_band(np.asarray(snap.x_gb[grab["body"]]))

    def band_ends(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The rubber band's two ends (ground) while dragging, else None."""
        if self._grab is None:
            return None
        return np.array(self._line.GetPoint1()), np.array(self._line.GetPoint2())
