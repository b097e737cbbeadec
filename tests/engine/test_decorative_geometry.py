"""DecorativeGeometry: Simbody defaults, validation, chaining, copying and visitor dispatch."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.common.decorative_geometry import (
    Decorations,
    DecorativeArrow,
    DecorativeBrick,
    DecorativeCircle,
    DecorativeCone,
    DecorativeCylinder,
    DecorativeEllipsoid,
    DecorativeFrame,
    DecorativeGeometry,
    DecorativeGeometryImplementation,
    DecorativeLine,
    DecorativeMesh,
    DecorativeMeshFile,
    DecorativePoint,
    DecorativeSphere,
    DecorativeText,
    DecorativeTorus,
    MeshData,
    Red,
    Representation,
)
from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError, SimTKError
from engine.math.rotation import Rotation
from engine.math.transform import Transform

TRIANGLE = ([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]])

ALL_KINDS = {
    "Point": lambda: DecorativePoint((1, 2, 3)),
    "Line": lambda: DecorativeLine((0, 0, 0), (1, 0, 0)),
    "Brick": lambda: DecorativeBrick((0.1, 0.2, 0.3)),
    "Cylinder": lambda: DecorativeCylinder(0.1, 0.4),
    "Circle": lambda: DecorativeCircle(0.3),
    "Sphere": lambda: DecorativeSphere(0.25),
    "Ellipsoid": lambda: DecorativeEllipsoid((0.1, 0.2, 0.3)),
    "Frame": lambda: DecorativeFrame(0.5),
    "Text": lambda: DecorativeText("hi"),
    "Mesh": lambda: DecorativeMesh(*TRIANGLE),
    "MeshFile": lambda: DecorativeMeshFile("part.stl"),
    "Arrow": lambda: DecorativeArrow((0, 0, 0), (0, 1, 0), 0.2),
    "Torus": lambda: DecorativeTorus(1.0, 0.2),
    "Cone": lambda: DecorativeCone((0, 0, 0), (0, 0, 2), 1.0, 0.5),
}


class Recorder(DecorativeGeometryImplementation):
    """Records (kind, geometry) for every visitor call."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, DecorativeGeometry]] = []

    def __getattribute__(self, name: str):
        if name.startswith("implement") and name.endswith("Geometry"):
            kind = name.removeprefix("implement").removesuffix("Geometry")
            return lambda geom: self.calls.append((kind, geom))
        return super().__getattribute__(name)


@pytest.mark.parametrize("kind", sorted(ALL_KINDS))
def test_dispatch_calls_the_method_named_for_the_kind(kind):
    geom = ALL_KINDS[kind]()
    rec = Recorder()
    geom.implementGeometry(rec)
    assert [(k, g) for k, g in rec.calls] == [(kind, geom)]


def test_base_visitor_names_the_missing_method():
    with pytest.raises(NotImplementedError, match="implementTorusGeometry"):
        DecorativeTorus().implementGeometry(DecorativeGeometryImplementation())


def test_common_defaults_follow_simbody():
    g = DecorativeSphere()
    assert g.getRadius() == 0.5
    assert g.getBodyId() == 0
    assert g.getIndexOnBody() == -1
    assert g.getUserRef() is None
    assert np.array_equal(g.getTransform().toMat44(), np.eye(4))
    assert g.getResolution() == -1
    assert g.getScaleFactors().tolist() == [-1, -1, -1]
    assert g.getColor().tolist() == [-1, -1, -1]
    assert g.getOpacity() == -1
    assert g.getLineThickness() == -1
    assert g.getFaceCamera() == -1
    assert g.getRepresentation() == DecorativeGeometry.DrawDefault == -1


def test_kind_defaults_follow_simbody():
    assert DecorativeLine().getPoint2().tolist() == [1, 1, 1]
    assert DecorativeBrick().getHalfLengths().tolist() == [0.5, 0.5, 0.5]
    assert np.allclose(DecorativeEllipsoid().getRadii(), [0.5, 1 / 3, 0.25])
    assert (DecorativeCylinder().getRadius(), DecorativeCylinder().getHalfHeight()) == (0.5, 0.5)
    assert DecorativeFrame().getAxisLength() == 1.0
    assert DecorativeArrow().getTipLength() == 0.35
    assert (DecorativeTorus().getTorusRadius(), DecorativeTorus().getTubeRadius()) == (1.0, 0.1)
    cone = DecorativeCone()
    assert cone.getDirection().tolist() == [0, 0, 1]
    assert (cone.getHeight(), cone.getBaseRadius()) == (1.0, 0.5)
    assert DecorativeText().getText() == "" and not DecorativeText().getIsScreenText()


def test_setters_chain_and_store():
    ref = object()
    X = Transform(Rotation(0.3, (0, 0, 1)), (1, 2, 3))
    g = (
        DecorativeBrick()
        .setBodyId(4)
        .setIndexOnBody(2)
        .setUserRef(ref)
        .setTransform(X)
        .setResolution(2)
        .setScaleFactors((1, 2, 3))
        .setColor((0.1, 0.2, 0.3))
        .setOpacity(0.4)
        .setLineThickness(3)
        .setFaceCamera(True)
        .setRepresentation(DecorativeGeometry.Wireframe)
    )
    assert isinstance(g, DecorativeBrick)
    assert (g.getBodyId(), g.getIndexOnBody(), g.getUserRef()) == (4, 2, ref)
    assert g.getTransform() is X
    assert g.getResolution() == 2 and g.getScaleFactors().tolist() == [1, 2, 3]
    assert g.getColor().tolist() == [0.1, 0.2, 0.3] and g.getOpacity() == 0.4
    assert g.getLineThickness() == 3 and g.getFaceCamera() == 1
    assert g.getRepresentation() == Representation.DrawWireframe
    assert g.setScale(2).getScaleFactors().tolist() == [2, 2, 2]


def test_unset_sentinels_and_simbody_default_rules():
    g = DecorativeSphere().setColor(Red).setOpacity(0.5)
    assert g.setColor((-1, -1, -1)).getColor().tolist() == [-1, -1, -1]
    assert g.setOpacity(-1).getOpacity() == -1
    assert g.setOpacity(0).getOpacity() == 0  # 0 means invisible, not unset
    # Simbody: <= 0 means "use the default" for resolution, scale factors and line thickness.
    assert g.setResolution(0).getResolution() == -1
    assert g.setScaleFactors((2, 0, -3)).getScaleFactors().tolist() == [2, -1, -1]
    assert g.setLineThickness(-5).getLineThickness() == -1
    assert g.setFaceCamera(0).getFaceCamera() == 0
    assert g.setFaceCamera(-7).getFaceCamera() == -1


@pytest.mark.parametrize(
    "call",
    [
        lambda g: g.setColor((1.5, 0, 0)),
        lambda g: g.setColor((-1, 0, 0)),
        lambda g: g.setColor((0, 0)),
        lambda g: g.setColor((math.nan, 0, 0)),
        lambda g: g.setOpacity(1.01),
        lambda g: g.setOpacity(-0.5),
        lambda g: g.setOpacity(math.inf),
        lambda g: g.setResolution(math.nan),
        lambda g: g.setScaleFactors((1, math.inf, 1)),
        lambda g: g.setLineThickness("thick"),
        lambda g: g.setBodyId(-1),
        lambda g: g.setBodyId(1.0),
        lambda g: g.setBodyId(True),
        lambda g: g.setIndexOnBody(-2),
        lambda g: g.setTransform(np.eye(4)),
        lambda g: g.setRepresentation(7),
        lambda g: g.setFaceCamera("yes"),
    ],
)
def test_bad_common_properties_raise_invalid_argument(call):
    with pytest.raises(InvalidArgumentError):
        call(DecorativeSphere())


@pytest.mark.parametrize(
    "make",
    [
        lambda: DecorativeSphere(0),
        lambda: DecorativeSphere(-1),
        lambda: DecorativeSphere(math.nan),
        lambda: DecorativeCircle(0),
        lambda: DecorativeEllipsoid((1, 0, 1)),
        lambda: DecorativeBrick((1, 1)),
        lambda: DecorativeBrick((1, -1, 1)),
        lambda: DecorativeCylinder(0.1, 0),
        lambda: DecorativeCylinder(-0.1, 1),
        lambda: DecorativeFrame(0),
        lambda: DecorativeArrow((0, 0, 0), (1, 0, 0), 0),
        lambda: DecorativeTorus(0, 0.1),
        lambda: DecorativeTorus(1, -0.1),
        lambda: DecorativeCone(direction=(0, 0, 0)),
        lambda: DecorativeCone(height=0),
        lambda: DecorativeCone(baseRadius=-1),
        lambda: DecorativePoint((1, 2)),
        lambda: DecorativeLine((0, 0, 0), (1, math.nan, 0)),
        lambda: DecorativeText(3),
        lambda: DecorativeMeshFile(""),
        lambda: DecorativeMeshFile(None),
        lambda: DecorativeMesh([[0, 0, 0], [1, 0, 0]], [[0, 1]]),
        lambda: DecorativeMesh([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 3]]),
        lambda: DecorativeMesh([[0, 0], [1, 0], [0, 1]], [[0, 1, 2]]),
        lambda: DecorativeMesh("not a mesh"),
    ],
)
def test_bad_sizes_raise_invalid_argument(make):
    with pytest.raises(InvalidArgumentError) as info:
        make()
    assert isinstance(info.value, (SimTKError, ValueError))
    assert str(info.value)


def test_errors_name_the_quantity():
    with pytest.raises(InvalidArgumentError, match="sphere radius must be > 0"):
        DecorativeSphere(-2)
    with pytest.raises(InvalidArgumentError, match=r"opacity must be in \[0, 1\]"):
        DecorativeSphere().setOpacity(2)


def test_cone_direction_is_normalized():
    assert DecorativeCone(direction=(0, 3, 4)).getDirection().tolist() == [0, 0.6, 0.8]


def test_mesh_from_polygonal_mesh_like_object_is_copied():
    class PolyMesh:
        def getNumVertices(self):
            return 4

        def getVertexPosition(self, i):
            return [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)][i]

        def getNumFaces(self):
            return 1

        def getNumVerticesForFace(self, f):
            return 4

        def getFaceVertex(self, f, k):
            return k

    mesh = DecorativeMesh(PolyMesh()).getMesh()
    assert isinstance(mesh, MeshData)
    assert mesh.getNumVertices() == 4 and mesh.getNumFaces() == 1
    assert mesh.getNumVerticesForFace(0) == 4 and mesh.getFaceVertex(0, 2) == 2
    assert mesh.getVertexPosition(2).tolist() == [1, 1, 0]
    with pytest.raises(ValueError):
        mesh.vertices()[0, 0] = 5.0  # read-only


def test_mesh_file_stores_path_only(tmp_path):
    g = DecorativeMeshFile(tmp_path / "missing.obj")
    assert g.getMeshFile() == str(tmp_path / "missing.obj")


def test_stored_vectors_are_read_only():
    g = DecorativeBrick((1, 2, 3)).setColor((0.5, 0.5, 0.5))
    for arr in (g.getHalfLengths(), g.getColor(), g.getScaleFactors()):
        with pytest.raises(ValueError):
            arr[0] = 0.0


def test_clone_is_deep_but_shares_user_ref():
    ref = object()
    inner = DecorativeSphere(0.1)
    d = Decorations(inner).setUserRef(ref)
    c = d.clone()
    c.addDecoration(DecorativeBrick())
    c.getDecoration(0).setRadius(0.3)
    assert d.getNumDecorations() == 1 and c.getNumDecorations() == 2
    assert d.getDecoration(0).getRadius() == 0.1
    assert c.getUserRef() is ref
    inner.setRadius(0.9)  # the compound stored a copy
    assert d.getDecoration(0).getRadius() == 0.1


def test_decorations_compose_properties_like_simbody():
    ref = object()
    X_BD = Transform(Rotation(math.pi / 2, (0, 0, 1)), (1, 0, 0))
    X_DE = Transform((0.5, 0, 0))
    d = (
        Decorations()
        .setBodyId(2)
        .setIndexOnBody(5)
        .setUserRef(ref)
        .setTransform(X_BD)
        .setColor(Red)
        .setOpacity(0.5)
        .setScale(2)
        .setRepresentation(DecorativeGeometry.Wireframe)
    )
    d.addDecoration(X_DE, DecorativeSphere(0.1).setOpacity(0.5).setBodyId(9))
    d.addDecoration(DecorativeBrick().setColor((0, 0, 1)).setScaleFactors((3, -1, 1)))
    rec = Recorder()
    d.implementGeometry(rec)
    (k1, s), (k2, b) = rec.calls
    assert (k1, k2) == ("Sphere", "Brick")
    for g in (s, b):
        assert (g.getBodyId(), g.getIndexOnBody(), g.getUserRef()) == (2, 5, ref)
        assert g.getRepresentation() == DecorativeGeometry.Wireframe
    assert np.allclose(s.getTransform().p(), [1, 0.5, 0])  # X_BD * X_DE
    assert s.getColor().tolist() == [1, 0, 0] and s.getOpacity() == 0.25
    assert b.getColor().tolist() == [0, 0, 1] and b.getOpacity() == 0.5
    assert s.getScaleFactors().tolist() == [2, 2, 2]
    assert b.getScaleFactors().tolist() == [6, 2, 2]
    # The stored elements are untouched by drawing.
    assert d.getDecoration(0).getBodyId() == 9 and d.getDecoration(0).getOpacity() == 0.5


def test_nested_decorations_flatten():
    outer = Decorations().setBodyId(1).setTransform(Transform((1, 0, 0)))
    inner = Decorations().setTransform(Transform((0, 1, 0)))
    inner.addDecoration(DecorativePoint())
    outer.addDecoration(inner)
    rec = Recorder()
    outer.implementGeometry(rec)
    ((kind, p),) = rec.calls
    assert kind == "Point" and p.getBodyId() == 1
    assert np.allclose(p.getTransform().p(), [1, 1, 0])


def test_decorations_bad_arguments():
    d = Decorations()
    with pytest.raises(InvalidArgumentError):
        d.addDecoration("sphere")
    with pytest.raises(InvalidArgumentError):
        d.addDecoration(np.eye(4), DecorativeSphere())
    with pytest.raises(IndexOutOfRangeError):
        d.getDecoration(0)


def test_repr_names_kind_and_size():
    assert repr(DecorativeSphere(0.25).setBodyId(2)) == "DecorativeSphere(radius=0.25, bodyId=2)"
