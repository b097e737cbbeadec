"""Environment: the ground plane and background that follow a System's visualization hints.

Hints (Simbody's System::setUpDirection / setUseUniformBackground / setDefaultLengthScale):

- ``up``: one of +-X, +-Y, +-Z in ground. The ground plane is perpendicular to it at height 0.
- ``uniform_background``: False draws a checkered ground plane and a sky-like vertical gradient
  (light at the bottom of the window, blue at the top); True draws a plain background colour
  and no ground.
- ``length_scale``: a typical model length (model units); one ground checker is this long and
  the plane extends 60 checkers from the origin in each direction.
"""

from __future__ import annotations

import numpy as np
from vtkmodules.util.numpy_support import numpy_to_vtk
from vtkmodules.vtkCommonCore import vtkPoints
from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData
from vtkmodules.vtkRenderingCore import vtkActor, vtkPolyDataMapper

from engine.common.exceptions import InvalidArgumentError
from engine.math.vec import as_vec3

SKY_TOP = (0.38, 0.58, 0.86)
SKY_HORIZON = (0.86, 0.90, 0.95)
GROUND_LIGHT = (206, 210, 214)
GROUND_DARK = (168, 174, 182)
WHITE = (1.0, 1.0, 1.0)
GROUND_HALF_EXTENT_IN_CHECKERS = 60


def check_up_direction(up) -> np.ndarray:
    """``up`` as a unit Vec3 along one of +-X, +-Y, +-Z (anything with asVec3() accepted)."""
    v = as_vec3(up, "up direction")
    if np.count_nonzero(v) != 1 or abs(float(np.abs(v).sum()) - 1.0) > 1e-12:
        raise InvalidArgumentError(
            f"up direction must be one of +-X, +-Y, +-Z as a unit vector, got {v.tolist()}"
        )
    return v


def _checker_shader(u: np.ndarray, v: np.ndarray, checker: float) -> tuple[str, str, str, str]:
    """GLSL snippets that colour the ground quad as checkers computed per pixel.

    The checker pattern is evaluated from the ground coordinates (along ``u`` and ``v``, in
    checkers of length ``checker``) with a box-filtered step, so distant checkers blend to
    their mean grey instead of flickering. No texture is sampled: software OpenGL (llvmpipe)
    fills the large ground quad several times faster this way than with a mipmapped texture.
    """
    uu = ", ".join(f"{x:.17g}" for x in np.asarray(u, dtype=float) / checker)
    vv = ", ".join(f"{x:.17g}" for x in np.asarray(v, dtype=float) / checker)
    light = ", ".join(f"{c / 255.0:.6f}" for c in GROUND_LIGHT)
    dark = ", ".join(f"{c / 255.0:.6f}" for c in GROUND_DARK)
    vertex_dec = "//VTK::PositionVC::Dec\nout vec2 groundUV;"
    vertex_impl = (
        "//VTK::PositionVC::Impl\n"
        f"groundUV = vec2(dot(vertexMC.xyz, vec3({uu})), dot(vertexMC.xyz, vec3({vv})));"
    )
    fragment_dec = "//VTK::PositionVC::Dec\nin vec2 groundUV;"
    fragment_impl = (
        "//VTK::Light::Impl\n"
        "{\n"
        "  vec2 w = fwidth(groundUV) + vec2(1e-6);\n"
        "  vec2 a = abs(fract((groundUV - 0.5 * w) * 0.5) - 0.5);\n"
        "  vec2 b = abs(fract((groundUV + 0.5 * w) * 0.5) - 0.5);\n"
        "  vec2 s = 2.0 * (a - b) / w;\n"
        "  float light = 0.5 + 0.5 * s.x * s.y;\n"
        f"  gl_FragData[0] = vec4(mix(vec3({dark}), vec3({light}), light), 1.0);\n"
        "}"
    )
    return vertex_dec, vertex_impl, fragment_dec, fragment_impl


def _sky_actor() -> tuple[vtkActor, tuple]:
    """A window-filling quad at the far plane, coloured from SKY_HORIZON (bottom) to SKY_TOP.

    Its vertex shader puts the corners straight at the window corners at depth 1, so it shows
    only where nothing else was drawn. Drawn after the ground, it costs only the visible sky
    pixels (the renderer's own gradient background fills the whole window every frame, which is
    expensive with software OpenGL).
    """
    corners = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], dtype=np.float64)
    colors = np.array([SKY_HORIZON, SKY_HORIZON, SKY_TOP, SKY_TOP]) * 255.0
    points = vtkPoints()
    points.SetData(numpy_to_vtk(corners, deep=True))
    quad = vtkCellArray()
    quad.InsertNextCell(4, (0, 1, 2, 3))
    poly = vtkPolyData()
    poly.SetPoints(points)
    poly.SetPolys(quad)
    poly.GetPointData().SetScalars(numpy_to_vtk(np.round(colors).astype(np.uint8), deep=True))
    mapper = vtkPolyDataMapper()
    mapper.SetInputData(poly)
    mapper.SetColorModeToDirectScalars()
    actor = vtkActor()
    actor.SetMapper(mapper)
    actor.GetProperty().LightingOff()
    actor.PickableOff()
    actor.SetUseBounds(False)  # not part of zoom-to-fit or clipping-range computations
    actor.GetShaderProperty().AddVertexShaderReplacement(
        "//VTK::PositionVC::Impl", True, "gl_Position = vec4(vertexMC.xy, 1.0, 1.0);", False
    )
    return actor, (poly, mapper)


class Environment:
    """Owns the ground and sky actors and sets the renderer's background from the hints."""

    def __init__(self, renderer) -> None:
        self._renderer = renderer
        self._plane = vtkPolyData()
        self._mapper = vtkPolyDataMapper()
        self._mapper.SetInputData(self._plane)
        # The checker shader reads the model coordinates: keep VTK from shifting and scaling
        # them in the vertex buffer (0 = vtkPolyDataMapper::DISABLE_SHIFT_SCALE).
        self._mapper.SetVBOShiftScaleMethod(0)
        # Push the ground back in depth so shapes resting on it do not flicker through it.
        self._mapper.SetResolveCoincidentTopologyToPolygonOffset()
        self._mapper.SetRelativeCoincidentTopologyPolygonOffsetParameters(2.0, 2.0)
        self.ground = vtkActor()
        self.ground.SetMapper(self._mapper)
        self.ground.PickableOff()
        # Unlit: the checker colours (computed in its fragment shader) are shown as they are.
        self.ground.GetProperty().LightingOff()
        renderer.AddActor(self.ground)
        self.sky, self._sky_parts = _sky_actor()
        renderer.AddActor(self.sky)
        self.up = np.array([0.0, 1.0, 0.0])
        self.uniform_background = False
        self.length_scale = 1.0
        self.background_color = WHITE
        self.apply()

    def set_hints(self, up=None, uniform_background=None, length_scale=None, background=None):
        """Change any of the hints (None keeps the current value) and update the renderer."""
        if up is not None:
            self.up = check_up_direction(up)
        if uniform_background is not None:
            self.uniform_background = bool(uniform_background)
        if length_scale is not None:
            s = float(length_scale)
            if not np.isfinite(s) or s <= 0.0:
                raise InvalidArgumentError(f"length scale must be finite and > 0, got {s}")
            self.length_scale = s
        if background is not None:
            c = as_vec3(background, "background colour")
            if np.any(c < 0.0) or np.any(c > 1.0):
                raise InvalidArgumentError(f"background colour must be in [0, 1], got {c}")
            self.background_color = tuple(c.tolist())
        self.apply()

    def is_dark(self) -> bool:
        """True when the background is dark (overlay text should then be light)."""
        if not self.uniform_background:
            return False
        return float(np.dot(self.background_color, (0.299, 0.587, 0.114))) < 0.5

    def draw_sky_last(self) -> None:
        """Move the sky to the end of the draw order (call after adding many actors)."""
        self._renderer.RemoveActor(self.sky)
        self._renderer.AddActor(self.sky)

    def apply(self) -> None:
        r = self._renderer
        r.GradientBackgroundOff()
        if self.uniform_background:
            r.SetBackground(*self.background_color)
            self.ground.VisibilityOff()
            self.sky.VisibilityOff()
            return
        r.SetBackground(*SKY_TOP)
        self._place_ground()
        self.ground.VisibilityOn()
        self.sky.VisibilityOn()

    def _place_ground(self) -> None:
        """A square through the origin perpendicular to ``up``, textured with checkers."""
        axis = int(np.flatnonzero(self.up)[0])
        u, v = np.eye(3)[(axis + 1) % 3], np.eye(3)[(axis + 2) % 3]
        half = GROUND_HALF_EXTENT_IN_CHECKERS * self.length_scale
        corners = np.array([-u - v, u - v, u + v, -u + v]) * half
        points = vtkPoints()
        points.SetData(numpy_to_vtk(corners, deep=True))
        quad = vtkCellArray()
        quad.InsertNextCell(4, (0, 1, 2, 3))
        plane = self._plane
        plane.SetPoints(points)
        plane.SetPolys(quad)
        shader = self.ground.GetShaderProperty()
        shader.ClearAllShaderReplacements()
        vertex_dec, vertex_impl, fragment_dec, fragment_impl = _checker_shader(
            u, v, self.length_scale
        )
        shader.AddVertexShaderReplacement("//VTK::PositionVC::Dec", True, vertex_dec, False)
        shader.AddVertexShaderReplacement("//VTK::PositionVC::Impl", True, vertex_impl, False)
        shader.AddFragmentShaderReplacement("//VTK::PositionVC::Dec", True, fragment_dec, False)
        shader.AddFragmentShaderReplacement("//VTK::Light::Impl", True, fragment_impl, False)
        plane.Modified()
