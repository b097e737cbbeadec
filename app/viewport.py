"""The studio's 3-D view: a viz ``Scene`` shown in a ``viz.qt_view.SceneView``.

API: ``ViewportWidget(parent)``, ``.scene``, ``.renderer``, ``.render_window``,
``.request_render()``, ``.close_view()``, ``.show_model(geometry, hints)``,
``.update_frame(x_gb, dynamic_geometry)``, ``.expect_new_model()``, ``.zoom_to_fit()``,
``.view(preset)``, ``.follow_body(index or None)``, ``.set_drag_handler(handler)``,
``.interactor_widget`` (the widget that takes mouse and key input), the ``picked`` signal
(PickResult or None) and ``frames_rendered`` (a running count of renders, for the frame-rate
display).

The camera is aimed (front view, raised, zoomed to fit the bodies) when the first model is
shown, when a new model replaces the old one (``expect_new_model()`` before it is shown: File >
Open, an example, File > New) and when a model with bodies follows one without any (Add body
after File > New); edits of the same model keep the user's camera. Until the user presses a
mouse button or turns the wheel in the view (or a preset or following moves the camera), the
view zooms out whenever the bodies move beyond what it frames, so a swinging model stays in it.
Only the GUI thread may call any of it.
"""

from __future__ import annotations

import time

import numpy as np

# PySide6 is imported before vtkmodules.qt (through viz.qt_view), which picks the Qt binding
# already imported. These imports register VTK's rendering and interaction back-ends.
import vtkmodules.vtkInteractionStyle  # noqa: F401
import vtkmodules.vtkRenderingFreeType  # noqa: F401
import vtkmodules.vtkRenderingOpenGL2  # noqa: F401
from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import QProgressBar, QToolButton, QVBoxLayout, QWidget
from vtkmodules.vtkInteractionWidgets import vtkOrientationMarkerWidget
from vtkmodules.vtkRenderingAnnotation import vtkAxesActor
from vtkmodules.vtkRenderingCore import vtkRenderer, vtkRenderWindow

from app.camera_reach import reach_box
from app.simulation import model_heap
from viz.camera import boxes_in_view, union_bounds, zoom_to_fit
from viz.decoration_keys import KeyedGeometry
from viz.environment import SKY_HORIZON, SKY_TOP  # noqa: F401  (re-exported for tests)
from viz.qt_view import SceneView
from viz.scene import Scene

#: A new model with more decorations than this is drawn in steps, one per turn of the event
#: loop, with a progress bar: the GUI never waits for the whole drawing (120,000 decorations
#: for a 20,000-body chain). The first step draws DRAW_STEP decorations; each next one as
#: many as take about STEP_SECONDS at the pace of the step before (within the bounds, and
#: at most twice the step before). A step's cost is mostly its new decorations' (the Scene
#: adds them to its batches and places only them; the batches' arrays, handed to VTK again,
#: are the share that grows with what is drawn), so the steps stay short to the last.
DRAW_IN_STEPS_ABOVE = 6000
DRAW_STEP = 1000
DRAW_STEP_BOUNDS = (1000, 20000)
STEP_SECONDS = 0.04
#: Seconds between the renders that show a drawing in steps as it grows; a render that took
#: longer than STEP_RENDER_BUDGET (a large part drawn, software OpenGL) is the last one until
#: the drawing is done.
STEP_RENDER_INTERVAL = 1.5
STEP_RENDER_BUDGET = 0.1
#: Seconds between two checks that the bodies are in the view (see ViewportWidget.out_of_view).
OUT_OF_VIEW_CHECK = 0.25
#: Factor by which the camera comes nearer at each step of a tight framing (_frame_tightly).
FRAME_STEP = 1.05
#: How much farther than the tightest fit the camera stands (room around the bodies' boxes,
#: whose corners stick out of what the bodies really sweep).
FRAME_MARGIN = 1.2


def _frame_tightly(renderer, box) -> None:
    """Aim the camera (its direction kept) at the centre of ``box`` and bring it as close as
    leaves every corner of the box in the view, then FRAME_MARGIN farther (VTK's zoom to fit
    frames the box's bounding sphere, which leaves a flat box small)."""
    zoom_to_fit(renderer, box)
    camera = renderer.GetActiveCamera()
    for _ in range(30):
        camera.Dolly(FRAME_STEP)
        if not boxes_in_view(renderer, [box]):
            camera.Dolly(1.0 / FRAME_STEP)
            break
    camera.Dolly(1.0 / FRAME_MARGIN)
    renderer.ResetCameraClippingRange()


class _StudioScene(Scene):
    """A Scene that reports when it starts and ends drawing a frame (``on_render(busy)``)
    and keeps how long its last frame took (``render_seconds``)."""

    on_render = None
    render_seconds = 0.0

    def render(self) -> None:
        start = time.perf_counter()
        hook = self.on_render
        if hook is None:
            super().render()
        else:
            hook(True)
            try:
                super().render()
            finally:
                hook(False)
        self.render_seconds = time.perf_counter() - start


class ViewportWidget(QWidget):
    """A viz Scene in a Qt widget, with a trackball camera, picking and an axes marker."""

    picked = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("viewport")
        self._closed = False
        self.frames_rendered = 0
        self.scene = _StudioScene()
        self._view = SceneView(self.scene, self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._view)
        #: Progress of a large model drawn in steps (see DRAW_IN_STEPS_ABOVE).
        self.draw_progress = QProgressBar(self)
        self.draw_progress.setObjectName("drawProgress")
        self.draw_progress.setFormat("Drawing the model: %v of %m decorations")
        self.draw_progress.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.draw_progress.hide()
        layout.addWidget(self.draw_progress)
        #: Shown when bodies moved out of the view (frames never move the camera): a click, or
        #: F, zooms to fit them. Not in this widget's layout (showing it would resize the 3-D
        #: view under the mouse): the window puts it in its status bar.
        self.out_of_view = QToolButton()
        self.out_of_view.setObjectName("outOfViewButton")
        self.out_of_view.setText("Bodies left the view: Zoom to fit (F)")
        self.out_of_view.setToolTip("Move the camera back so that every body is in the view")
        self.out_of_view.setAutoRaise(True)
        self.out_of_view.setStyleSheet("QToolButton { color: #b03a2e; }")
        self.out_of_view.clicked.connect(self.zoom_to_fit)
        policy = self.out_of_view.sizePolicy()
        policy.setRetainSizeWhenHidden(True)  # the status bar keeps its layout either way
        self.out_of_view.setSizePolicy(policy)
        self.out_of_view.hide()
        self._view_checked = 0.0  # when the bodies were last checked to be in the view
        self._stepping: KeyedGeometry | None = None  # the geometry being drawn in steps
        self._step_head: KeyedGeometry | None = None  # what of it is drawn
        self._step_rendered = self._step_shown = 0.0
        self._step_size = DRAW_STEP
        self._freeze_steps = False
        self._aim_after_steps = False
        self._step_timer = QTimer(self)
        self._step_timer.setInterval(0)
        self._step_timer.timeout.connect(self._draw_step)
        self._view.picked.connect(self.picked)
        self._has_model = False
        self._new_model = False
        self._had_bodies = False
        self._aim_camera = False
        #: The camera pose the last aim left (None once the user pressed a button or turned
        #: the wheel in the view): a Reset aims the camera again while it is still there.
        #: Frames (a run) never move the camera; F (zoom to fit) brings bodies that left the
        #: view back.
        self._kept_camera = None
        #: (hinged subtrees, free bodies) of the model shown (app.camera_reach.model_reach),
        #: or None: the camera is aimed at the room they can move in.
        self.model_reach = None
        self._view.interactor_widget.installEventFilter(self)
        self._has_dynamic = False
        #: The pose array the drawing was last placed at (update_frame), None once the
        #: drawing changed since: a frame with the very same array only changes the
        #: per-frame decorations (a selection moved), not every body's place.
        self._placed_poses = None
        #: The pose array of the last frame given (update_frame), even once the drawing
        #: changed since.
        self._last_poses = None
        self._render_window: vtkRenderWindow = self._view.render_window
        self._render_window.AddObserver("EndEvent", self._count_frame)

        self._axes = vtkAxesActor()
        self._axes_widget = vtkOrientationMarkerWidget()
        self._axes_widget.SetOrientationMarker(self._axes)
        self._axes_widget.SetInteractor(self._render_window.GetInteractor())
        self._axes_widget.SetViewport(0.0, 0.0, 0.16, 0.16)
        self._axes_widget.KeyPressActivationOff()  # no VTK key bindings in the view
        self._axes_widget.SetEnabled(1)
        self._axes_widget.InteractiveOff()

    def set_render_hook(self, hook) -> None:
        """Call ``hook(True)`` before and ``hook(False)`` after each frame the view draws
        (None: no hook)."""
        self.scene.on_render = hook

    def _count_frame(self, *_args) -> None:
        self.frames_rendered += 1

    @property
    def renderer(self) -> vtkRenderer:
        return self.scene.renderer

    @property
    def render_window(self) -> vtkRenderWindow:
        return self._render_window

    def request_render(self) -> None:
        """Schedule a redraw; several requests before it runs give one render."""
        if not self._closed:
            self._view.request_render()

    def show_model(self, geometry, hints: dict | None = None) -> None:
        """Replace the drawn model by ``geometry`` (body-fixed decorations; a
        viz.decoration_keys.KeyedGeometry from the session, or any iterable) and apply the
        System's visualization hints (``up``, ``uniform_background``, ``length_scale``).
        Decorations equal to ones already drawn keep their actors."""
        if self._closed:
            return
        self._placed_poses = None
        if hints:
            self.scene.set_hints(**hints)
        if self._has_dynamic:
            # The previous model's per-frame decorations (a selection triad...) may name
            # bodies the new model does not have.
            self.scene.set_dynamic_geometry([])
            self._has_dynamic = False
        new_model = not self._has_model or self._new_model or self._stepping is not None
        self._stop_steps()
        if (
            new_model
            and isinstance(geometry, KeyedGeometry)
            and len(geometry) > (DRAW_IN_STEPS_ABOVE)
        ):
            self._start_steps(geometry)
            has_bodies = bool(np.any(geometry.bodies > 0))
        else:  # an edited model's decorations: the Scene redraws only those that changed
            self.scene.set_geometry(geometry)
            has_bodies = self.scene.has_body_geometry()
        if new_model or (has_bodies and not self._had_bodies):
            self._aim_camera = True  # once the bodies are in place (next update_frame)
            self._aim_after_steps = self._stepping is not None  # and once all are drawn
        self._has_model = True
        self._new_model = False
        self._had_bodies = has_bodies

    def drawing_in_steps(self) -> bool:
        """Whether a large model is still being drawn (in steps)."""
        return self._stepping is not None

    def _start_steps(self, geometry: KeyedGeometry) -> None:
        """Draw ``geometry`` afresh in steps, from the next turn of the event loop on."""
        self._stepping = geometry
        self._step_head = None
        self._step_rendered = self._step_shown = time.perf_counter()
        self._step_size = DRAW_STEP
        self.scene.render_seconds = 0.0
        # (a large model's session settles and releases the heap: see model_heap)
        bodies = int(geometry.bodies.max()) + 1 if len(geometry.bodies) else 0
        self._freeze_steps = model_heap.is_large(bodies)
        # the previous drawing goes now (its bodies may not be in the next poses given); the
        # first step comes in the next turn: the model's first frame is shown in this one,
        # its panels too
        self.scene.set_geometry(geometry.head(0))
        self.draw_progress.setRange(0, len(geometry))
        self.draw_progress.setValue(0)
        self.draw_progress.show()
        self._step_timer.start()

    def _draw_step(self) -> None:
        """Draw the next ``_step_size`` decorations (one turn of the event loop's worth)."""
        geometry = self._stepping
        if geometry is None or self._closed:
            self._stop_steps()
            return
        # the worker's full collection waits until the drawing is done (it would hold this
        # thread), and what the steps make is kept out of the collections meanwhile
        model_heap.hold_off()
        drawn = self._step_head
        start = time.perf_counter()
        before = len(drawn) if drawn is not None else 0
        n = min(len(geometry), before + self._step_size)
        head = geometry.head(n, drawn)
        self._placed_poses = None
        self.scene.set_geometry(head)
        self._step_head = head
        if self._freeze_steps:
            model_heap.freeze_new(wait=False)
        now = time.perf_counter()
        if now - self._step_shown > 0.25:  # (a progress bar repaints at once: not each step)
            self._step_shown = now
            self.draw_progress.setValue(n)
        self._step_size = self._next_step_size(n - before, now - start)
        if n == len(geometry):
            self._stop_steps()
            if self._aim_after_steps:
                self._aim_after_steps = False
                self._aim_camera = self._aim_camera or self._kept_camera is not None
                if self._aim_camera and self._last_poses is not None:
                    # aimed now, at the whole drawing, not at the next frame (Play's first)
                    self._aim_camera = False
                    self.scene.update_poses(self._last_poses)
                    self._placed_poses = self._last_poses
                    self._aim_now()
            self.request_render()
        elif (
            now - self._step_rendered > STEP_RENDER_INTERVAL
            and self.scene.render_seconds < STEP_RENDER_BUDGET
        ):
            self._step_rendered = now
            self.request_render()

    def _next_step_size(self, made: int, took: float) -> int:
        """The decorations the next step draws, after one that drew ``made`` in ``took``
        seconds: as many as take STEP_SECONDS at that pace, at most twice as many, within
        DRAW_STEP_BOUNDS (the lower bound keeps the drawing going at a pace when a step's
        share that grows with what is drawn, the batches' arrays handed to VTK again, comes
        near STEP_SECONDS)."""
        pace = made / max(took, 1e-3)  # decorations per second
        size = min(pace * STEP_SECONDS, 2 * self._step_size)
        low, high = DRAW_STEP_BOUNDS
        return int(min(high, max(low, size)))

    def _stop_steps(self) -> None:
        self._step_timer.stop()
        self._stepping = None
        self._step_head = None
        self.draw_progress.hide()

    def expect_new_model(self) -> None:
        """The next ``show_model`` is a different model (not an edit): aim the camera at it."""
        self._new_model = True

    @property
    def interactor_widget(self) -> QWidget:
        """The widget that receives the view's mouse and key events."""
        return self._view.interactor_widget

    def set_drag_handler(self, handler) -> None:
        """Give mouse drags to ``handler`` first (see viz.qt_view.SceneView.drag_handler)."""
        self._view.drag_handler = handler

    def zoom_to_fit(self) -> None:
        """Keep the view direction; move the camera so the bodies (not Ground) fill the view."""
        if self._closed:
            return
        self.scene.zoom_to_fit(bodies_only=True)
        self.out_of_view.hide()
        self.request_render()

    def bring_into_view(self, points: np.ndarray, radius: float) -> None:
        """When some of ``points`` ((n, 3) in ground, m: spheres of ``radius`` m drawn over
        the model, an ensemble's ghosts) are out of the view, move the camera back along its
        view direction until they and the bodies fit; otherwise leave it where it is."""
        points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        if self._closed or not len(points):
            return
        centres = [(x, x, y, y, z, z) for x, y, z in points]
        if boxes_in_view(self.renderer, centres):
            return
        lo, hi = points.min(axis=0) - radius, points.max(axis=0) + radius
        around = (lo[0], hi[0], lo[1], hi[1], lo[2], hi[2])
        zoom_to_fit(self.renderer, union_bounds([self.scene.body_bounds(), around]))
        self.request_render()

    def _check_in_view(self) -> None:
        """Show or hide ``out_of_view`` as the bodies are out of or in the view (looked at
        most every OUT_OF_VIEW_CHECK seconds: it goes over every decoration)."""
        now = time.perf_counter()
        if self._closed or self._stepping is not None or self.out_of_view.parent() is None:
            return  # (no window has placed the button)
        if now - self._view_checked < OUT_OF_VIEW_CHECK:
            return
        self._view_checked = now
        inside = self.scene.bodies_in_view()
        if inside == self.out_of_view.isVisible():
            self.out_of_view.setVisible(not inside)

    def view(self, preset: str) -> None:
        """Look from a preset (viz.camera.VIEWS, relative to the System's up), zoomed to fit."""
        if self._closed:
            return
        self.scene.view(preset)
        self.zoom_to_fit()

    def follow_body(self, body_id: int | None) -> None:
        """Keep the camera on body ``body_id`` as it moves (None: stop following)."""
        if not self._closed:
            self.scene.follow_body(body_id)
            self.request_render()

    def aim_camera_on_next_frame(self) -> None:
        """Frame the whole model again once its bodies are next placed (a new model)."""
        self._aim_camera = True

    def update_frame(self, x_gb, dynamic_geometry=()) -> None:
        """Move the bodies to ``x_gb`` ((nbodies, 4, 4) in ground) and redraw. Given the
        very array the drawing is already placed at (the same snapshot shown again: a
        selection moved), or equal poses (a paused model's next snapshot: an edit that moved
        no body), only the per-frame decorations are made and placed."""
        if self._closed:
            return
        if x_gb is not None and self._placed_at(x_gb) and not self._aim_camera:
            self._placed_poses = x_gb
            if dynamic_geometry or self._has_dynamic:
                self.scene.set_dynamic_geometry(list(dynamic_geometry))
                self._has_dynamic = bool(dynamic_geometry)
            self.request_render()
            return
        # Per-frame decorations first: the previous frame's may refer to a body that is gone
        # (a removed selected body), and moving the bodies checks every decoration's body.
        if dynamic_geometry or self._has_dynamic:
            self.scene.set_dynamic_geometry(list(dynamic_geometry))
            self._has_dynamic = bool(dynamic_geometry)
        if x_gb is not None:
            self.scene.update_poses(x_gb)
            self._placed_poses = self._last_poses = x_gb
            if self._aim_camera:
                self._aim_camera = False
                self._aim_now()
            self._check_in_view()
        self.request_render()

    def _placed_at(self, x_gb) -> bool:
        """Whether the drawing is placed at body poses equal to ``x_gb`` (the very array,
        or one of the same values; nothing drawn since was placed otherwise)."""
        placed = self._placed_poses
        if placed is None:
            return False
        if x_gb is placed:
            return True
        x = np.asarray(x_gb)
        return x.shape == placed.shape and np.array_equal(x, placed)

    def _aim_now(self) -> None:
        """Frame the bodies as placed and the room they can move in (``model_reach``)."""
        self.scene.reset_camera(bodies_only=True)
        if self.model_reach is not None:
            points, ids = self.scene.body_points()
            hinged, free = self.model_reach
            room = reach_box(points, ids, hinged, free, self.scene.environment.up)
            bodies = self.scene.body_bounds()
            if room is not None and bodies is not None:
                # the room across the view, not along the line of sight: a swing away from
                # or toward the camera needs no wider view
                sight = self.renderer.GetActiveCamera().GetDirectionOfProjection()
                k = int(np.argmax(np.abs(sight)))
                room = list(room)
                room[2 * k : 2 * k + 2] = bodies[2 * k : 2 * k + 2]
                _frame_tightly(self.scene.renderer, room)
        self.out_of_view.hide()
        self._kept_camera = self._camera_pose()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802  (Qt's name)
        """A press or the wheel in the view: the user takes over the camera (and a drag of
        the pose must not see the view zoom out under the mouse)."""
        if event.type() in (QEvent.Type.MouseButtonPress, QEvent.Type.Wheel):
            self._kept_camera = None
        if event.type() in (QEvent.Type.MouseButtonRelease, QEvent.Type.Wheel):
            # the camera may have moved: look again once the event is handled
            self._view_checked = 0.0
            QTimer.singleShot(0, self, self._check_in_view)
        return super().eventFilter(watched, event)

    def reaim_if_kept(self) -> None:
        """A reset: while the camera is where it was last aimed (the user has not moved it,
        nor a preset), aim it again at the next frame, as when the model was opened."""
        if self._kept_camera is not None and self._camera_pose() == self._kept_camera:
            self._aim_camera = True

    def _camera_pose(self) -> tuple:
        camera = self.scene.renderer.GetActiveCamera()
        return (
            camera.GetPosition(),
            camera.GetFocalPoint(),
            camera.GetViewUp(),
            camera.GetViewAngle(),
            camera.GetParallelScale(),
        )

    def close_view(self) -> None:
        """Release the OpenGL resources (idempotent); call before the window goes away."""
        if self._closed:
            return
        self._stop_steps()
        self._closed = True
        self._axes_widget.SetEnabled(0)
        self._view.close()
