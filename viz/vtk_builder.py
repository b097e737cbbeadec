"""VtkGeometryBuilder: the DecorativeGeometryImplementation that turns decorations into VTK pieces.

For each decoration the builder produces one or more :class:`DrawItem` objects: a VTK mapper
(often shared between decorations of the same shape), the constant matrix ``local`` that maps the
unit shape into the body frame B (X_BD, then the scale factors, then the shape's own size), and
the appearance (colour, opacity, representation, line width). The Scene turns items into actors
and sets each actor's user matrix to ``X_GB[bodyId] @ local`` every frame, so only matrices change
per frame. Lengths are in the model's length unit; line widths and point sizes in pixels.

Sphere, ellipsoid, brick and cylinder items also carry ``instance`` (a shape key) plus ``x_bd``
(rigid) and ``scale`` (per-axis) so the Scene can draw many of them with one vtkGlyph3DMapper.

Items can be reused: ``build(geometry, pool=old_items)`` updates the VTK sources of a pooled item
in place when the kind at that position is unchanged (rubber bands and other per-frame geometry).
Decorations the builder cannot draw (unknown kinds, unreadable mesh files) are reported once per
kind through ``logging`` and skipped.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field

import numpy as np
from vtkmodules.vtkCommonComputationalGeometry import vtkParametricTorus
from vtkmodules.vtkCommonCore import vtkPoints, vtkUnsignedCharArray
from vtkmodules.vtkCommonDataModel import vtkCellArray, vtkPolyData
from vtkmodules.vtkFiltersCore import vtkPolyDataNormals
from vtkmodules.vtkFiltersGeneral import vtkVertexGlyphFilter
from vtkmodules.vtkFiltersSources import (
    vtkArrowSource,
    vtkConeSource,
    vtkCubeSource,
    vtkCylinderSource,
    vtkLineSource,
    vtkParametricFunctionSource,
    vtkRegularPolygonSource,
    vtkSphereSource,
)
from vtkmodules.vtkIOGeometry import vtkOBJReader, vtkSTLReader
from vtkmodules.vtkIOXML import vtkXMLPolyDataReader
from vtkmodules.vtkRenderingCore import vtkPolyDataMapper
from vtkmodules.vtkRenderingFreeType import vtkVectorText

from engine.common.decorative_geometry import (
    DecorativeGeometry,
    DecorativeGeometryImplementation,
)
from viz.matrix_utils import place_x_axis, translate4

log = logging.getLogger(__name__)

DEFAULT_LINE_WIDTH = 2.0
"""Line width in pixels for lines, frames and wireframes when none is requested."""
DEFAULT_POINT_SIZE = 6.0
"""Dot size in pixels for DecorativePoint when no line thickness is requested."""
ARROW_TIP_RADIUS_PER_TIP_LENGTH = 0.3
ARROW_SHAFT_RADIUS_PER_TIP_LENGTH = 0.09

SURFACE, WIREFRAME, POINTS = 3, 2, 1

SPHERE_RESOLUTION = 16
"""Default sphere/ellipsoid tessellation: segments around (16 around x 10 from pole to pole)."""
CYLINDER_RESOLUTION = 16
"""Default number of sides of cylinders and cones."""
INSTANCE_LOD_COUNT = 200
INSTANCE_LOD_RESOLUTION = 10
"""Instanced groups of more than INSTANCE_LOD_COUNT default-resolution spheres or cylinders use
this coarser tessellation: with many instances each is small on screen, and software OpenGL is
vertex bound."""
COARSE_RESOLUTION = 6
"""Tessellation of the spheres and cylinders of such a group while every instance is at most
COARSE_BELOW_PIXELS in radius on screen (see GlyphGroup.before_frame): a sphere of 24
triangles, a cylinder of 6 sides. A shape that small lights a pixel or two, the same ones at
either tessellation."""
COARSE_BELOW_PIXELS = 0.5


@dataclass(eq=False)
class DrawItem:
    """One drawable piece made from a decoration (a compound gives several).

    ``local`` maps the piece's model coordinates to the body frame B; the world matrix is
    ``X_GB[body_id] @ local``. ``color`` None means "renderer's default colour"; with
    ``scalar_colors`` the mapper colours from the data instead (frame axes). ``style`` is
    "actor" (placed by user matrix), "follower" (faces the camera; placed by position and scale)
    or "screen_text" (2D text in the window).
    """

    kind: str
    geometry: DecorativeGeometry
    body_id: int
    local: np.ndarray
    mapper: object = None
    keep: list = field(default_factory=list)
    color: np.ndarray | None = None
    opacity: float = 1.0
    representation: int = SURFACE
    line_width: float = DEFAULT_LINE_WIDTH
    point_size: float = 3.0
    lighting: bool = True
    scalar_colors: bool = False
    style: str = "actor"
    text: str = ""
    visible: bool = True
    instance: tuple | None = None
    x_bd: np.ndarray | None = None
    scale: np.ndarray | None = None
    #: A line's two end points (its model coordinates); its VTK source and mapper are made
    #: only when it is drawn singly (``line_mapper``): a batched line never needs them.
    points: tuple | None = None
    reuse_key: object = None
    #: Index of the decoration it was made from in the iterable given to ``build``.
    owner: int = -1
    # Filled in by the Scene:
    actor: object = None
    matrix: object = None
    #: The GlyphGroup or LineBatch drawing it, if any; a Scene keeps a batched item's body
    #: index in its batch's arrays (``item_body``), and ``body_id`` only for items it draws
    #: singly (an edit that renumbers bodies updates the arrays, not every item).
    group: object = None

    @property
    def index_on_body(self) -> int:
        return self.geometry.getIndexOnBody()

    @property
    def user_ref(self):
        return self.geometry.getUserRef()


def _mapper_for(port_or_data) -> vtkPolyDataMapper:
    mapper = vtkPolyDataMapper()
    if isinstance(port_or_data, vtkPolyData):
        mapper.SetInputData(port_or_data)
    else:
        mapper.SetInputConnection(port_or_data)
    mapper.ScalarVisibilityOff()
    return mapper


def line_mapper(item: DrawItem):
    """The mapper of ``item`` (for a line: its vtkLineSource's, made now if it has none)."""
    if item.mapper is None and item.kind == "line" and item.points is not None:
        source = vtkLineSource()
        source.SetPoint1(*item.points[0])
        source.SetPoint2(*item.points[1])
        item.mapper = _mapper_for(source.GetOutputPort())
        item.keep = [source]
    return item.mapper


def _user_scale(geom: DecorativeGeometry) -> np.ndarray:
    s = np.asarray(geom.getScaleFactors(), dtype=np.float64)
    return np.where(s > 0.0, s, 1.0)


_UNIT_W = np.ones(1)
_EYE4 = np.eye(4)
_EYE4.flags.writeable = False
_HOMOGENEOUS_ROW = np.array([0.0, 0.0, 0.0, 1.0])


def _diagonal(values) -> np.ndarray:
    """A scaling's 3 diagonal entries (``_emit``'s short form of ``scale4(values)``)."""
    return np.array(values, dtype=np.float64).reshape(3)


class VtkGeometryBuilder(DecorativeGeometryImplementation):
    """Builds DrawItems from decorations; one ``implement<Kind>Geometry`` method per kind.

    The builder caches shared unit shapes (per resolution) and mesh-file readers (per path and
    modification time), so keep one builder per Scene.
    """

    def __init__(self) -> None:
        self._shared: dict[tuple, tuple] = {}
        self._mesh_files: dict[tuple, tuple] = {}
        self._reported: set[str] = set()
        self._out: list[DrawItem] = []
        self._pool: list[DrawItem] = []
        self._cursor = 0

    # -- driver ---------------------------------------------------------------------------------

    def build(self, geometry, pool: list[DrawItem] | None = None) -> list[DrawItem]:
        """Return the DrawItems for an iterable of decorations (compounds are flattened).

        With ``pool`` (the items of an earlier call), an item at the same position and of the
        same kind is updated in place and returned again instead of a new one.
        """
        self._out = []
        self._pool = list(pool or ())
        self._cursor = 0
        out = self._out
        for k, geom in enumerate(geometry):
            start = len(out)
            try:
                geom.implementGeometry(self)
            except Exception as exc:  # never let one bad decoration stop the drawing
                name = type(geom).__name__
                self.report_once(name, f"cannot draw {name}: {type(exc).__name__}: {exc}")
            for item in out[start:]:
                item.owner = k
        out, self._out, self._pool = self._out, [], []
        return out

    def report_once(self, key: str, message: str) -> None:
        """Log ``message`` as a warning the first time ``key`` is seen by this builder."""
        if key not in self._reported:
            self._reported.add(key)
            log.warning("%s (reported once)", message)

    def __getattr__(self, name: str):
        # Kinds added to the engine after this builder was written arrive here.
        if name.startswith("implement") and name.endswith("Geometry"):

            def skip(geom) -> None:
                kind = type(geom).__name__
                self.report_once(name, f"no VTK drawing for {kind} ({name}); it is skipped")

            return skip
        raise AttributeError(name)

    def _missing(self, geom) -> None:
        kind = type(geom).__name__
        self.report_once(kind, f"no VTK drawing for {kind}; it is skipped")

    def _take(self, kind: str, key=None) -> DrawItem | None:
        """The pooled item at the current position if it has this kind and key, else None."""
        item = None
        if self._cursor < len(self._pool):
            candidate = self._pool[self._cursor]
            if candidate.kind == kind and candidate.reuse_key == key:
                item = candidate
        self._cursor += 1
        return item

    def _emit(self, item: DrawItem, geom: DecorativeGeometry, shape: np.ndarray) -> DrawItem:
        """Fill placement and appearance from ``geom`` and append the item to the output.
        ``shape``: the unit shape's placement, a 4x4 matrix or (a scaling) its 3 diagonal
        entries."""
        transform = geom.getTransform()
        s = _user_scale(geom)
        item.geometry = geom
        item.body_id = geom.getBodyId()
        # x_bd @ diag(s, 1) @ shape, each diagonal scaling a product by columns
        x_bd = np.empty((4, 4))
        x_bd[:3, :3] = transform.R().asMat33()
        x_bd[:3, 3] = transform.p()
        x_bd[3] = _HOMOGENEOUS_ROW
        if shape.ndim == 1:
            diagonal = shape
            item.local = x_bd * np.concatenate((s * shape, _UNIT_W))
        else:
            diagonal = shape.diagonal()[:3]
            item.local = (x_bd * np.concatenate((s, _UNIT_W))) @ shape
        c = geom.getColor()
        item.color = None if c[0] < 0.0 else np.array(c, dtype=np.float64)
        o = geom.getOpacity()
        item.opacity = 1.0 if o < 0.0 else float(o)
        rep = int(geom.getRepresentation())
        item.representation = SURFACE if rep < 0 else rep
        t = geom.getLineThickness()
        item.line_width = DEFAULT_LINE_WIDTH if t <= 0.0 else float(t)
        item.point_size = 3.0 if t <= 0.0 else float(t)
        if item.instance is not None:
            item.x_bd = x_bd
            item.scale = s * diagonal
        self._out.append(item)
        return item

    def _resolution(self, geom: DecorativeGeometry, base: int, minimum: int) -> int:
        r = geom.getResolution()
        factor = 1.0 if r <= 0.0 else r
        return int(max(minimum, min(base * 16, round(base * factor))))

    def _shared_unit(self, key: tuple, make) -> tuple:
        """(VTK objects, mapper) of the unit shape ``key``, made once with ``make()``.

        ``make()`` returns the VTK objects of the shape, the last one giving the mapper's input
        (an algorithm or a vtkPolyData).
        """
        if key not in self._shared:
            objects = make()
            last = objects[-1]
            mapper = _mapper_for(last if isinstance(last, vtkPolyData) else last.GetOutputPort())
            self._shared[key] = (objects, mapper)
        return self._shared[key]

    def instance_shape_port(self, key: tuple, count: int):
        """Output port of the unit shape for ``count`` instances of instance key ``key``."""
        shape = key[0]
        if shape == "brick":
            return self._shared_unit(key, _unit_cube)[0][-1].GetOutputPort()
        default = SPHERE_RESOLUTION if shape == "sphere" else CYLINDER_RESOLUTION
        res = key[1]
        if count > INSTANCE_LOD_COUNT and res == default:
            res = min(res, INSTANCE_LOD_RESOLUTION)
        make = _unit_sphere if shape == "sphere" else _unit_cylinder
        return self._shared_unit((shape, res), lambda: make(res))[0][-1].GetOutputPort()

    def coarse_shape_port(self, key: tuple, count: int):
        """Output port of the unit shape (COARSE_RESOLUTION) drawn for ``count`` instances of
        instance key ``key`` while they are tiny on screen; None when they keep one shape (a
        brick, few instances, a resolution asked for)."""
        shape = key[0]
        if shape not in ("sphere", "cylinder") or count <= INSTANCE_LOD_COUNT:
            return None
        default = SPHERE_RESOLUTION if shape == "sphere" else CYLINDER_RESOLUTION
        if key[1] != default:
            return None
        make = _unit_sphere if shape == "sphere" else _unit_cylinder
        unit = (shape, COARSE_RESOLUTION)
        return self._shared_unit(unit, lambda: make(COARSE_RESOLUTION))[0][-1].GetOutputPort()

    def _shared_item(self, kind: str, key: tuple, make, instance: bool = False) -> DrawItem:
        """An item drawing the unit shape ``key`` with a mapper shared by all such items."""
        objects, mapper = self._shared_unit(key, make)
        item = self._take(kind) or DrawItem(kind, None, 0, _EYE4)
        item.mapper = mapper
        item.keep = objects
        item.instance = key if instance else None
        return item

    # -- solids ---------------------------------------------------------------------------------

    def implementSphereGeometry(self, geom) -> None:  # noqa: N802
        res = self._resolution(geom, SPHERE_RESOLUTION, 6)
        item = self._shared_item("sphere", ("sphere", res), lambda: _unit_sphere(res), True)
        self._emit(item, geom, _diagonal([geom.getRadius()] * 3))

    def implementEllipsoidGeometry(self, geom) -> None:  # noqa: N802
        res = self._resolution(geom, SPHERE_RESOLUTION, 6)
        item = self._shared_item("ellipsoid", ("sphere", res), lambda: _unit_sphere(res), True)
        self._emit(item, geom, _diagonal(geom.getRadii()))

    def implementBrickGeometry(self, geom) -> None:  # noqa: N802
        item = self._shared_item("brick", ("brick",), _unit_cube, True)
        self._emit(item, geom, _diagonal(geom.getHalfLengths()))

    def implementCylinderGeometry(self, geom) -> None:  # noqa: N802
        res = self._resolution(geom, CYLINDER_RESOLUTION, 6)
        item = self._shared_item("cylinder", ("cylinder", res), lambda: _unit_cylinder(res), True)
        r = geom.getRadius()
        self._emit(item, geom, _diagonal([r, geom.getHalfHeight(), r]))

    def implementCircleGeometry(self, geom) -> None:  # noqa: N802
        res = self._resolution(geom, 36, 8)
        item = self._shared_item("circle", ("circle", res), lambda: _unit_disc(res))
        self._emit(item, geom, _diagonal([geom.getRadius()] * 3))

    def implementConeGeometry(self, geom) -> None:  # noqa: N802
        res = self._resolution(geom, CYLINDER_RESOLUTION, 6)
        item = self._shared_item("cone", ("cone", res), lambda: _unit_cone(res))
        shape = place_x_axis(
            geom.getOrigin(), geom.getDirection(), geom.getHeight(), geom.getBaseRadius()
        )
        self._emit(item, geom, shape)

    def implementTorusGeometry(self, geom) -> None:  # noqa: N802
        res = self._resolution(geom, 16, 4)
        item = self._take("torus")
        if item is None:
            function = vtkParametricTorus()
            source = vtkParametricFunctionSource()
            source.SetParametricFunction(function)
            item = DrawItem("torus", geom, 0, np.eye(4))
            item.mapper = _mapper_for(source.GetOutputPort())
            item.keep = [function, source]
        function, source = item.keep
        function.SetRingRadius(geom.getTorusRadius())
        function.SetCrossSectionRadius(geom.getTubeRadius())
        source.SetUResolution(3 * res)
        source.SetVResolution(res)
        self._emit(item, geom, np.eye(4))

    # -- annotations ----------------------------------------------------------------------------

    def implementPointGeometry(self, geom) -> None:  # noqa: N802
        item = self._shared_item("point", ("point",), _unit_point)
        self._emit(item, geom, translate4(geom.getPoint()))
        item.lighting = False
        t = geom.getLineThickness()
        item.point_size = DEFAULT_POINT_SIZE if t <= 0.0 else float(t)
        item.representation = POINTS

    def implementLineGeometry(self, geom) -> None:  # noqa: N802
        item = self._take("line") or DrawItem("line", geom, 0, _EYE4)
        p1, p2 = geom.getPoint1(), geom.getPoint2()
        item.points = (tuple(p1.tolist()), tuple(p2.tolist()))
        if item.keep:  # a pooled line drawn singly: its source follows
            item.keep[0].SetPoint1(*p1)
            item.keep[0].SetPoint2(*p2)
        item.visible = bool(np.any(p1 != p2))
        item.lighting = False
        self._emit(item, geom, _EYE4)

    def implementArrowGeometry(self, geom) -> None:  # noqa: N802
        res = self._resolution(geom, 16, 3)
        item = self._take("arrow")
        if item is None:
            source = vtkArrowSource()
            item = DrawItem("arrow", geom, 0, np.eye(4))
            item.mapper = _mapper_for(source.GetOutputPort())
            item.keep = [source]
        source = item.keep[0]
        start, end = geom.getStartPoint(), geom.getEndPoint()
        length = float(np.linalg.norm(end - start))
        item.visible = length > 0.0
        if not item.visible:
            self._emit(item, geom, np.eye(4))
            return
        tip = geom.getTipLength()
        source.SetTipResolution(res)
        source.SetShaftResolution(res)
        source.SetTipLength(min(1.0, tip / length))
        source.SetTipRadius(min(10.0, ARROW_TIP_RADIUS_PER_TIP_LENGTH * tip / length))
        source.SetShaftRadius(min(5.0, ARROW_SHAFT_RADIUS_PER_TIP_LENGTH * tip / length))
        self._emit(item, geom, place_x_axis(start, end - start, length, length))

    def implementFrameGeometry(self, geom) -> None:  # noqa: N802
        axis_colors = geom.getColor()[0] < 0.0
        item = self._shared_item("frame", ("frame", axis_colors), _unit_triad)
        if axis_colors:
            item.mapper.ScalarVisibilityOn()
            item.mapper.SetScalarModeToUseCellData()
            item.mapper.SetColorModeToDirectScalars()
        self._emit(item, geom, _diagonal([geom.getAxisLength()] * 3))
        item.scalar_colors = axis_colors
        item.lighting = False
        item.representation = SURFACE

    def implementTextGeometry(self, geom) -> None:  # noqa: N802
        text = geom.getText()
        if geom.getIsScreenText():
            item = self._take("screen_text") or DrawItem("screen_text", geom, 0, np.eye(4))
            item.style = "screen_text"
            item.text = text
            item.visible = bool(text)
            self._emit(item, geom, np.eye(4))
            return
        faces = geom.getFaceCamera() != 0  # text faces the camera unless told not to
        kind = "text_follower" if faces else "text"
        item = self._take(kind)
        if item is None:
            source = vtkVectorText()
            item = DrawItem(kind, geom, 0, np.eye(4))
            item.mapper = _mapper_for(source.GetOutputPort())
            item.keep = [source]
        if item.text != text:
            item.keep[0].SetText(text)
        item.text = text
        item.style = "follower" if faces else "actor"
        item.visible = bool(text.strip())
        item.lighting = False
        self._emit(item, geom, np.eye(4))

    # -- meshes ---------------------------------------------------------------------------------

    def implementMeshGeometry(self, geom) -> None:  # noqa: N802
        mesh = geom.getMesh()
        item = self._take("mesh", id(mesh))
        if item is None:
            poly = _polydata_from_mesh(mesh)
            normals = _normals(poly)
            item = DrawItem("mesh", geom, 0, np.eye(4), reuse_key=id(mesh))
            item.mapper = _mapper_for(normals.GetOutputPort())
            item.keep = [mesh, poly, normals]
        self._emit(item, geom, np.eye(4))

    def implementMeshFileGeometry(self, geom) -> None:  # noqa: N802
        path = geom.getMeshFile()
        ext = os.path.splitext(path)[1].lower()
        try:
            st = os.stat(path)
        except OSError as exc:
            self.report_once(f"meshfile:{path}", f"mesh file {path!r} cannot be read: {exc}")
            return
        key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
        if key not in self._mesh_files and ext not in _READERS:
            # other formats (.dae...) through trimesh, cached for the process
            from viz.mesh_files import read_polydata

            try:
                poly = read_polydata(path)
            except (OSError, ValueError) as exc:
                self.report_once(
                    f"meshfile:{path}", f"mesh file {path!r} cannot be read: {exc}; it is skipped"
                )
                return
            normals = _normals(poly)
            self._mesh_files[key] = (poly, normals, _mapper_for(normals.GetOutputPort()))
        if key not in self._mesh_files:
            reader = _READERS[ext]()
            reader.SetFileName(path)
            reader.Update()
            if reader.GetOutput().GetNumberOfPoints() == 0:
                self.report_once(
                    f"meshfile:{path}", f"mesh file {path!r} has no points; it is skipped"
                )
                return
            normals = _normals(reader.GetOutputPort())
            self._mesh_files[key] = (reader, normals, _mapper_for(normals.GetOutputPort()))
        reader, normals, mapper = self._mesh_files[key]
        item = self._take("meshfile", key) or DrawItem("meshfile", geom, 0, np.eye(4))
        item.reuse_key = key
        item.mapper = mapper
        item.keep = [reader, normals]
        self._emit(item, geom, np.eye(4))


_READERS = {".obj": vtkOBJReader, ".stl": vtkSTLReader, ".vtp": vtkXMLPolyDataReader}


def _normals(input_):
    """Smooth normals split at sharp edges (30 degrees), for nice shading of meshes."""
    f = vtkPolyDataNormals()
    if isinstance(input_, vtkPolyData):
        f.SetInputData(input_)
    else:
        f.SetInputConnection(input_)
    f.SetFeatureAngle(30.0)
    f.SplittingOn()
    f.ConsistencyOn()
    f.Update()
    return f


def _polydata_from_mesh(mesh) -> vtkPolyData:
    points = vtkPoints()
    vertices = mesh.vertices()
    points.SetNumberOfPoints(len(vertices))
    for i, v in enumerate(vertices):
        points.SetPoint(i, *v)
    polys = vtkCellArray()
    for face in mesh.faces():
        polys.InsertNextCell(len(face), face)
    poly = vtkPolyData()
    poly.SetPoints(points)
    poly.SetPolys(polys)
    return poly


def _unit_sphere(res: int) -> tuple:
    s = vtkSphereSource()
    s.SetRadius(1.0)
    s.SetThetaResolution(res)
    s.SetPhiResolution(max(4, (res * 5) // 8))
    return (s,)


def _unit_cube() -> tuple:
    s = vtkCubeSource()
    s.SetXLength(2.0)
    s.SetYLength(2.0)
    s.SetZLength(2.0)
    return (s,)


def _unit_cylinder(res: int) -> tuple:
    s = vtkCylinderSource()  # axis along y, as Simbody's DecorativeCylinder
    s.SetRadius(1.0)
    s.SetHeight(2.0)
    s.SetResolution(res)
    s.CappingOn()
    return (s,)


def _unit_disc(res: int) -> tuple:
    s = vtkRegularPolygonSource()  # in the x-y plane, normal +z
    s.SetRadius(1.0)
    s.SetNumberOfSides(res)
    s.GeneratePolygonOn()
    s.GeneratePolylineOff()
    return (s,)


def _unit_cone(res: int) -> tuple:
    s = vtkConeSource()  # base disc at x = 0, tip at x = 1
    s.SetHeight(1.0)
    s.SetRadius(1.0)
    s.SetCenter(0.5, 0.0, 0.0)
    s.SetDirection(1.0, 0.0, 0.0)
    s.SetResolution(res)
    s.CappingOn()
    return (s,)


def _unit_point() -> tuple:
    poly = vtkPolyData()
    points = vtkPoints()
    points.InsertNextPoint(0.0, 0.0, 0.0)
    poly.SetPoints(points)
    glyphs = vtkVertexGlyphFilter()
    glyphs.SetInputData(poly)
    return (poly, points, glyphs)


def _unit_triad() -> tuple:
    """Three unit lines along +x, +y, +z coloured red, green, blue (cell colours)."""
    poly = vtkPolyData()
    points = vtkPoints()
    for p in ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)):
        points.InsertNextPoint(*p)
    lines = vtkCellArray()
    for end in (1, 2, 3):
        lines.InsertNextCell(2, (0, end))
    colors = vtkUnsignedCharArray()
    colors.SetNumberOfComponents(3)
    colors.SetName("axis_colors")
    for rgb in ((230, 30, 30), (30, 180, 30), (30, 50, 240)):
        colors.InsertNextTuple3(*rgb)
    poly.SetPoints(points)
    poly.SetLines(lines)
    poly.GetCellData().SetScalars(colors)
    return (points, lines, colors, poly)
