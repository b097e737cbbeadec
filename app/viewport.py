"""The studio's 3-D view: a Qt widget around VTK's ``QVTKRenderWindowInteractor``.

A stand-in until viz's Scene takes over; its API is deliberately small: ``ViewportWidget(parent)``,
``.renderer``, ``.render_window``, ``.request_render()`` and ``.close_view()``.
"""

from __future__ import annotations

# PySide6 is imported before vtkmodules.qt, which picks the Qt binding already imported.
# The vtkInteractionStyle / vtkRenderingFreeType / vtkRenderingOpenGL2 imports register VTK's
# rendering and interaction back-ends (factory overrides).
import vtkmodules.vtkInteractionStyle  # noqa: F401
import vtkmodules.vtkRenderingFreeType  # noqa: F401
import vtkmodules.vtkRenderingOpenGL2  # noqa: F401
from PySide6.QtWidgets import QVBoxLayout, QWidget
from vtkmodules.qt.QVTKRenderWindowInteractor import QVTKRenderWindowInteractor
from vtkmodules.vtkInteractionStyle import vtkInteractorStyleTrackballCamera
from vtkmodules.vtkInteractionWidgets import vtkOrientationMarkerWidget
from vtkmodules.vtkRenderingAnnotation import vtkAxesActor
from vtkmodules.vtkRenderingCore import vtkRenderer, vtkRenderWindow

# Gradient "sky": VTK's Background is the bottom colour, Background2 the top one.
SKY_TOP = (0.30, 0.50, 0.76)
SKY_HORIZON = (0.85, 0.90, 0.96)


class ViewportWidget(QWidget):
    """A VTK render window inside a QWidget, with a trackball camera and an axes marker."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("viewport")
        self._closed = False

        self._vtk_widget = QVTKRenderWindowInteractor(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self._vtk_widget)

        self._render_window: vtkRenderWindow = self._vtk_widget.GetRenderWindow()
        # Multisampling costs 3-5x with Mesa's software renderer (llvmpipe).
        self._render_window.SetMultiSamples(0)

        self._renderer = vtkRenderer()
        self._renderer.GradientBackgroundOn()
        self._renderer.SetBackground(*SKY_HORIZON)
        self._renderer.SetBackground2(*SKY_TOP)
        self._render_window.AddRenderer(self._renderer)

        interactor = self._render_window.GetInteractor()
        self._style = vtkInteractorStyleTrackballCamera()
        interactor.SetInteractorStyle(self._style)
        self._vtk_widget.Initialize()

        self._axes = vtkAxesActor()
        self._axes_widget = vtkOrientationMarkerWidget()
        self._axes_widget.SetOrientationMarker(self._axes)
        self._axes_widget.SetInteractor(interactor)
        self._axes_widget.SetViewport(0.0, 0.0, 0.16, 0.16)
        self._axes_widget.SetEnabled(1)
        self._axes_widget.InteractiveOff()

    @property
    def renderer(self) -> vtkRenderer:
        return self._renderer

    @property
    def render_window(self) -> vtkRenderWindow:
        return self._render_window

    def request_render(self) -> None:
        """Schedule a redraw; several requests before the next paint give one render."""
        if not self._closed:
            self._vtk_widget.update()

    def close_view(self) -> None:
        """Release the OpenGL resources (idempotent); call before the window goes away."""
        if self._closed:
            return
        self._closed = True
        self._axes_widget.SetEnabled(0)
        self._vtk_widget.Finalize()
