"""SceneView: a Qt widget showing a viz.Scene (the only viz module that imports Qt).

The widget hosts the Scene's renderer in a QVTKRenderWindowInteractor with trackball-camera
mouse controls. Rendering happens only on the GUI thread: any thread may call
``request_render()``, which queues one render on the GUI thread (several requests before it runs
collapse into one). A left click without dragging emits ``picked`` with the Scene's PickResult
(or None when the click hits no decoration).

Mouse and key events reach the trackball style only through this widget's observers on the
style (an observer on a vtkInteractorStyle replaces the style's own handling of that event):
a press first goes to ``drag_handler`` (if set), which may take the whole drag (press, moves,
release) away from the camera; a left press and release within ``CLICK_TOLERANCE_PX`` is a
click. VTK's own key bindings (w/s wireframe and surface, 3 stereo, r reset, f fly to,
p pick, e/q quit, j/t joystick/trackball, u user) are off: keys act only through Qt.
Positions given to ``drag_handler`` are VTK display pixels (x right, y up from the bottom).
"""

from __future__ import annotations

import vtkmodules.qt

vtkmodules.qt.PyQtImpl = "PySide6"

import numpy as np  # noqa: E402
import vtkmodules.vtkInteractionStyle  # noqa: E402, F401  (default interactor styles)
from PySide6.QtCore import Qt, Signal  # noqa: E402
from PySide6.QtWidgets import QVBoxLayout, QWidget  # noqa: E402
from vtkmodules.qt.QVTKRenderWindowInteractor import QVTKRenderWindowInteractor  # noqa: E402
from vtkmodules.vtkInteractionStyle import vtkInteractorStyleTrackballCamera  # noqa: E402
from vtkmodules.vtkRenderingCore import vtkRenderWindow  # noqa: E402

from viz import window_pool  # noqa: E402
from viz.scene import Scene  # noqa: E402

CLICK_TOLERANCE_PX = 3
VTKIS_ROTATE = 1  # vtkInteractorStyle's state while the mouse rotates the camera
#: |cos| of the angle between the view direction and up beyond which the horizon is not levelled
LEVEL_LIMIT = 0.999

# event -> (button, default handler name of vtkInteractorStyle)
_PRESS = {
    "LeftButtonPressEvent": ("left", "OnLeftButtonDown"),
    "MiddleButtonPressEvent": ("middle", "OnMiddleButtonDown"),
    "RightButtonPressEvent": ("right", "OnRightButtonDown"),
}
_RELEASE = {
    "LeftButtonReleaseEvent": ("left", "OnLeftButtonUp"),
    "MiddleButtonReleaseEvent": ("middle", "OnMiddleButtonUp"),
    "RightButtonReleaseEvent": ("right", "OnRightButtonUp"),
}
_SILENCED = ("CharEvent", "KeyPressEvent", "KeyReleaseEvent")


class _PooledInteractor(QVTKRenderWindowInteractor):
    """A QVTKRenderWindowInteractor drawing into a render window of ``viz.window_pool``,
    which its first ``Finalize()`` gives back: from then on the widget holds an unused
    render window of its own, so nothing it does later (a Finalize when its parent is
    destroyed, a resize) reaches the window another view draws into by then."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent, rw=window_pool.take())
        self._released = False

    def Finalize(self) -> None:  # noqa: N802  (VTK's name)
        if self._released:
            return
        self._released = True
        window = self._RenderWindow
        window.Finalize()
        self._RenderWindow = vtkRenderWindow()
        window_pool.release(window)


class SceneView(QWidget):
    """A QWidget drawing ``scene``; call ``request_render()`` after changing the scene."""

    picked = Signal(object)
    _render_requested = Signal()

    def __init__(self, scene: Scene, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scene = scene
        self._vtk_widget = _PooledInteractor(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._vtk_widget)
        self._interactor = self._vtk_widget.GetRenderWindow().GetInteractor()
        self._style = vtkInteractorStyleTrackballCamera()
        self._interactor.SetInteractorStyle(self._style)
        scene.attach(self._vtk_widget.GetRenderWindow())
        self._pending = False
        self._closed = False
        self._press_pos: tuple[int, int] | None = None
        #: Object with ``press(button, x, y, ctrl, shift) -> bool`` (True: it takes the drag),
        #: ``move(x, y)`` and ``release(x, y)``; button is "left", "middle" or "right".
        self.drag_handler = None
        self._grab: str | None = None
        self._render_requested.connect(self._render_now, Qt.ConnectionType.QueuedConnection)
        for event in _PRESS:
            self._style.AddObserver(event, self._on_press)
        for event in _RELEASE:
            self._style.AddObserver(event, self._on_release)
        self._style.AddObserver("MouseMoveEvent", self._on_move)
        for event in _SILENCED:
            self._style.AddObserver(event, self._ignore)
        self._vtk_widget.Initialize()

    @property
    def render_window(self):
        """The vtkRenderWindow the scene draws into."""
        return self._vtk_widget.GetRenderWindow()

    def request_render(self) -> None:
        """Ask for one render on the GUI thread; safe to call from any thread."""
        if self._pending or self._closed:
            return
        self._pending = True
        self._render_requested.emit()

    def _render_now(self) -> None:
        self._pending = False
        if self._closed or not self.isVisible():
            return
        self.scene.render()

    @property
    def interactor_widget(self) -> QWidget:
        """The widget that receives the mouse and key events (QVTKRenderWindowInteractor)."""
        return self._vtk_widget

    def _ignore(self, *_args) -> None:
        """Swallow an event the style would otherwise handle (VTK's key bindings)."""

    def _on_press(self, _style, event: str) -> None:
        button, default = _PRESS[event]
        interactor = self._interactor
        x, y = interactor.GetEventPosition()
        if self._grab is None and self.drag_handler is not None:
            ctrl, shift = bool(interactor.GetControlKey()), bool(interactor.GetShiftKey())
            if self.drag_handler.press(button, x, y, ctrl, shift):
                self._grab = button
                return
        if button == "left":
            self._press_pos = (x, y)
        getattr(self._style, default)()

    def _on_move(self, _style, _event) -> None:
        if self._grab is not None:
            x, y = self._interactor.GetEventPosition()
            self.drag_handler.move(x, y)
            return
        self._style.OnMouseMove()
        if self._style.GetState() == VTKIS_ROTATE:
            self._level_camera()

    def _level_camera(self) -> None:
        """Keep the horizon level while the mouse rotates the camera (as MuJoCo's and OpenSim's
        views do): the trackball turns about the screen's axes, and a diagonal drag would
        otherwise roll the model's up direction off the screen's vertical. Upside down (the
        camera turned over the top) stays upside down; looking straight along up is left alone."""
        camera = self.scene.renderer.GetActiveCamera()
        up = np.asarray(self.scene.environment.up, dtype=np.float64)
        direction = np.asarray(camera.GetDirectionOfProjection(), dtype=np.float64)
        if abs(float(direction @ up)) > LEVEL_LIMIT:
            return
        if float(np.asarray(camera.GetViewUp(), dtype=np.float64) @ up) < 0.0:
            up = -up
        camera.SetViewUp(*up)
        camera.OrthogonalizeViewUp()

    def _on_release(self, _style, event: str) -> None:
        button, default = _RELEASE[event]
        x, y = self._interactor.GetEventPosition()
        if self._grab is not None:
            if button == self._grab:
                self._grab = None
                self.drag_handler.release(x, y)
            return
        getattr(self._style, default)()
        if button != "left":
            return
        start, self._press_pos = self._press_pos, None
        if start is None:
            return
        if abs(x - start[0]) <= CLICK_TOLERANCE_PX and abs(y - start[1]) <= CLICK_TOLERANCE_PX:
            self.picked.emit(self.scene.pick(x, y))

    def closeEvent(self, event) -> None:
        """Stop rendering and release the OpenGL window before the widget goes away (the
        render window goes back to ``viz.window_pool`` for the next view)."""
        self._closed = True
        self.scene.detach()
        self._vtk_widget.Finalize()
        super().closeEvent(event)
