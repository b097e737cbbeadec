# ruff: noqa: N806  (monogram names: X_BS)
"""``mbstudio import --contact``: each link's <collision> geometry becomes contact surfaces
(box -> brick, sphere -> sphere, cylinder -> cylinder, mesh -> mesh or its convex hull), plus
a ground contact plane; off by default. The ARM fixture of test_urdf_import (a sphere
collision) and a URDF with every collision kind."""

from __future__ import annotations

import numpy as np
import trimesh

from app.cli import main
from app.document import GROUND, build, model_io
from app.document.specs import ContactMaterialSpec, ground_plane_frame
from tests.importers.test_urdf_import import urdf

INERTIAL = (
    '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" '
    'iyz="0"/></inertial>'
)
COLLIDER = urdf(
    f"""
  <link name="base">{INERTIAL}
    <collision><origin xyz="0 0 0.1"/><geometry><box size="0.2 0.4 0.6"/></geometry></collision>
  </link>
  <link name="arm">{INERTIAL}
    <collision><geometry><sphere radius="0.05"/></geometry></collision>
    <collision><origin xyz="0 0 0.25"/>
      <geometry><cylinder radius="0.03" length="0.5"/></geometry></collision>
  </link>
  <link name="hand">{INERTIAL}
    <collision><geometry><mesh filename="../meshes/closed.stl" scale="2 2 2"/></geometry>
    </collision>
    <collision><geometry><mesh filename="../meshes/open.stl"/></geometry></collision>
  </link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="arm"/>
    <origin xyz="0 0 0.5"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
  <joint name="j2" type="fixed"><parent link="arm"/><child link="hand"/>
    <origin xyz="0 0 0.5"/></joint>
""",
    name="collider",
)


def _collider(tmp_path):
    (tmp_path / "meshes").mkdir()
    box = trimesh.creation.box(extents=(0.1, 0.1, 0.1))
    box.export(str(tmp_path / "meshes" / "closed.stl"))
    trimesh.Trimesh(box.vertices, box.faces[:-2], process=False).export(
        str(tmp_path / "meshes" / "open.stl")
    )
    (tmp_path / "urdf").mkdir()
    path = tmp_path / "urdf" / "collider.urdf"
    path.write_text(COLLIDER)
    return path


def test_import_contact_turns_collision_geometry_into_contact_surfaces(tmp_path, capsys):
    path = _collider(tmp_path)
    out = tmp_path / "model" / "collider.mbs.json"
    assert main(["import", str(path), "--out", str(out), "--contact"]) == 0
    report = capsys.readouterr()
    assert "no contact tracker" in report.err and "link 'arm' collision 2" in report.err
    assert "link 'hand' collision 2: mesh is not closed: its convex hull" in report.err
    assert "contact surfaces" in report.out

    doc = model_io.load(out)
    default = ContactMaterialSpec()
    (plane,) = doc.contact_surfaces_of(GROUND)
    assert plane.shape == "halfspace" and plane.X == ground_plane_frame(doc.hints.up)
    (brick,) = doc.contact_surfaces_of("base")
    assert brick.shape == "brick" and brick.params["half_lengths"] == (0.1, 0.2, 0.3)
    assert brick.X.p == (0.0, 0.0, 0.1) and brick.material == default
    sphere, cylinder = doc.contact_surfaces_of("arm")
    assert sphere.shape == "sphere" and sphere.params == {"radius": 0.05}
    assert cylinder.shape == "cylinder" and cylinder.params == {"radius": 0.03}
    closed, hull = doc.contact_surfaces_of("hand")
    assert closed.params == {
        "file": "../meshes/closed.stl",
        "scale": (2.0, 2.0, 2.0),
        "convex_hull": False,
    }
    assert hull.params["file"] == "../meshes/open.stl" and hull.params["convex_hull"] is True
    assert {c.cliques for b in doc.bodies for c in b.contact_surfaces} == {("robot",)}

    built = build(doc)
    arm = built.mobilized_bodies["arm"].getBody()
    assert arm.getContactSurface(1).getShape().getTypeName() == "Cylinder"
    X_BS = arm.getContactSurfaceTransform(1)
    # the contact cylinder's axis (Sz) is the URDF cylinder's (the link's z), at its origin
    np.testing.assert_allclose(np.asarray(X_BS.R().col(2)), (0, 0, 1), atol=1e-12)
    np.testing.assert_allclose(np.asarray(X_BS.p()), (0, 0, 0.25), atol=1e-12)
    hand = built.mobilized_bodies["hand"].getBody()
    shapes = [hand.getContactSurface(i).getShape() for i in range(2)]
    assert [s.getTypeName() for s in shapes] == ["TriangleMesh", "TriangleMesh"]
    v = np.asarray(shapes[0].vertices())
    np.testing.assert_allclose(v.max(axis=0) - v.min(axis=0), (0.2, 0.2, 0.2), atol=1e-12)
    assert shapes[1].getNumFaces() == 12


def test_import_without_contact_adds_no_contact(tmp_path, capsys):
    path = _collider(tmp_path)
    out = tmp_path / "plain.mbs.json"
    assert main(["import", str(path), "--out", str(out)]) == 0
    assert not model_io.load(out).data.has_contact()
    assert "contact" not in capsys.readouterr().err
