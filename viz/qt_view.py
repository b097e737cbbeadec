"""SceneView: a Qt widget showing a viz.Scene (the only viz module that imports Qt).

The widget hosts the Scene's renderer in a QVTKRenderWindowInteractor with trackball-camera
mouse controls. Rendering happens only on the GUI thread: any thread may call
``request_render()``, which queues one render on the GUI thread (several requests before it runs
collapse into one). A left click without dragging emits ``picked`` with the Scene's PickResult
(or None when the click hits no decoration).
"""

from __future__ import annotations

import vtkmodules.qt

vtkmodules.qt.PyQtImpl = "PySide6"

import vtkmodules.vtkInteractionStyle  # noqa: E402, F401  (default interactor styles)
from PySide6.QtCore import Qt, Signal  # noqa: E402
from PySide6.QtWidgets import QVBoxLayout, QWidget  # noqa: E402
from vtkmodules.qt.QVTKRenderWindowInteractor import QVTKRenderWindowInteractor  # noqa: E402
from vtkmodules.vtkInteractionStyle import vtkInteractorStyleTrackballCamera  # noqa: E402

from viz.scene import Scene  # noqa: E402

CLICK_TOLERANCE_PX = 3


class SceneView(QWidget):
    """A QWidget drawing ``scene``; call ``request_render()`` after changing the scene."""

    picked = Signal(object)
    _render_requested = Signal()

    def __init__(self, scene: Scene, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scene = scene
        self._vtk_widget = QVTKRenderWindowInteractor(self)
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
        self._render_requested.connect(self._render_now, Qt.ConnectionType.QueuedConnection)
        self._interactor.AddObserver("LeftButtonPressEvent", self._on_press, 1.0)
        self._interactor.AddObserver("LeftButtonReleaseEvent", self._on_release, 1.0)
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

    def _on_press(self, interactor, _event) -> None:
        self._press_pos = interactor.GetEventPosition()

    def _on_release(self, interactor, _event) -> None:
        start, self._press_pos = self._press_pos, None
        if start is None:
            return
        x, y = interactor.GetEventPosition()
        if abs(x - start[0]) <= CLICK_TOLERANCE_PX and abs(y - start[1]) <= CLICK_TOLERANCE_PX:
            self.picked.emit(self.scene.pick(x, y))

    def closeEvent(self, event) -> None:
        """Stop rendering and release the OpenGL window before the widget goes away."""
        self._closed = True
        self.scene.detach()
        self._vtk_widget.Finalize()
        super().closeEvent(event)
