# ruff: noqa: N806  (monogram names: X_GB, M, I_C)
"""URDF import on small hand-written files: joint and inertia mapping, limits, damping and
mimic, meshes and package:// names, and bad input (missing meshes, malformed XML, unknown joint
types, kinematic loops, non-physical inertias, tiny masses), through the API and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli import main
from app.document import ModelDocument, build, model_io
from app.importers.urdf import UrdfImportError, import_urdf
from engine import Stage

STL = """solid t
facet normal 0 0 1
outer loop
vertex 0 0 0
vertex 1 0 0
vertex 0 1 0
endloop
endfacet
endsolid t
"""


def urdf(body: str, name: str = "bot") -> str:
    return f'<?xml version="1.0"?>\n<robot name="{name}">\n{body}\n</robot>\n'


ARM = urdf(
    """
  <material name="blue"><color rgba="0 0 1 1"/></material>
  <link name="base">
    <inertial><mass value="2"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>
    </inertial>
    <visual><geometry><box size="0.2 0.4 0.6"/></geometry><material name="blue"/></visual>
    <collision><geometry><sphere radius="0.3"/></geometry></collision>
  </link>
  <link name="upper">
    <inertial>
      <origin xyz="0.1 0.2 0.3" rpy="0.3 -0.2 0.5"/>
      <mass value="1.5"/>
      <inertia ixx="0.04" iyy="0.05" izz="0.06" ixy="0.001" ixz="-0.002" iyz="0.003"/>
    </inertial>
    <visual><origin xyz="0 0 0.25"/><geometry><cylinder radius="0.05" length="0.5"/></geometry>
    </visual>
    <visual><geometry><mesh filename="package://botpkg/meshes/part.stl" scale="1 -1 1"/>
    </geometry></visual>
  </link>
  <link name="slider_link">
    <inertial><mass value="0.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0"
     iyz="0"/></inertial>
  </link>
  <link name="twin">
    <inertial><mass value="0.5"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0"
     iyz="0"/></inertial>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.5" rpy="0.1 0.2 0.3"/><axis xyz="0 1 1"/>
    <limit lower="-1" upper="2" effort="30" velocity="3"/>
    <dynamics damping="0.7" friction="0"/>
  </joint>
  <joint name="slide" type="prismatic">
    <parent link="upper"/><child link="slider_link"/>
    <origin xyz="0.3 0 0"/><axis xyz="0 0 -1"/>
    <limit lower="0" upper="0.2" effort="10" velocity="1"/>
  </joint>
  <joint name="slide_twin" type="prismatic">
    <parent link="upper"/><child link="twin"/>
    <origin xyz="-0.3 0 0"/><axis xyz="0 0 1"/>
    <limit lower="0" upper="0.4" effort="10" velocity="1"/>
    <mimic joint="slide" multiplier="2" offset="0.01"/>
  </joint>
"""
)


@pytest.fixture
def arm(tmp_path):
    pkg = tmp_path / "botpkg"
    (pkg / "meshes").mkdir(parents=True)
    (pkg / "meshes" / "part.stl").write_text(STL)
    (pkg / "urdf").mkdir()
    path = pkg / "urdf" / "arm.urdf"
    path.write_text(ARM)
    return path


def _rot(axis, angle):
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def _rpy(r, p, y):
    return _rot((0, 0, 1), y) @ _rot((0, 1, 0), p) @ _rot((1, 0, 0), r)


def test_joints_inertia_limits_damping_and_mimic_are_mapped(arm):
    result = import_urdf(arm)
    data = result.data
    assert [b.name for b in data.bodies] == ["base", "upper", "slider_link", "twin"]
    by = {b.name: b for b in data.bodies}
    assert by["base"].parent == "Ground" and by["base"].mobilizer == "Weld"
    assert by["upper"].mobilizer == "Pin" and by["slider_link"].mobilizer == "Slider"
    assert data.hints.up == "+Z"
    gravity = next(f for f in data.forces if f.type == "Gravity")
    assert gravity.args["down"] == (0.0, 0.0, -1.0) and gravity.args["magnitude"] == 9.81

    # inertia about the link origin, exactly: R I_C R^T + m (|c|^2 E - c c^T)
    R = _rpy(0.3, -0.2, 0.5)
    I_C = np.array([[0.04, 0.001, -0.002], [0.001, 0.05, 0.003], [-0.002, 0.003, 0.06]])
    c = np.array([0.1, 0.2, 0.3])
    I_B = R @ I_C @ R.T + 1.5 * (c @ c * np.eye(3) - np.outer(c, c))
    up = by["upper"]
    assert up.mass == 1.5 and np.allclose(up.com, c, rtol=0, atol=1e-15)
    want = [I_B[0, 0], I_B[1, 1], I_B[2, 2], I_B[0, 1], I_B[0, 2], I_B[1, 2]]
    assert np.allclose(up.inertia, want, rtol=1e-14, atol=1e-16)

    built = build(ModelDocument(data))
    state = built.state.copy()
    # q = URDF angle about the URDF axis, in the joint frame at origin
    q = 0.8
    built.mobilized_bodies["upper"].setQ(state, np.array([q]))
    built.mobilized_bodies["slider_link"].setQ(state, np.array([0.15]))
    built.system.realize(state, Stage.Position)
    X = built.mobilized_bodies["upper"].getBodyTransform(state).toMat44()
    R_want = _rpy(0.1, 0.2, 0.3) @ _rot((0, 1, 1), q)
    assert np.allclose(X[:3, :3], R_want, atol=1e-13)
    assert np.allclose(X[:3, 3], (0, 0, 0.5), atol=1e-13)
    Xs = built.mobilized_bodies["slider_link"].getBodyTransform(state).toMat44()
    assert np.allclose(Xs[:3, 3], X[:3, 3] + R_want @ (0.3, 0, -0.15), atol=1e-13)

    stops = {f.args["body"]: f for f in data.forces if f.type == "MobilityLinearStop"}
    assert set(stops) == {"upper", "slider_link", "twin"}
    assert (stops["upper"].args["q_low"], stops["upper"].args["q_high"]) == (-1.0, 2.0)
    # the joint's effort and velocity limits are kept with its stop, not enforced by it
    assert (stops["upper"].args["effort_limit"], stops["upper"].args["velocity_limit"]) == (30, 3)
    assert all(stop.args["enabled"] for stop in stops.values())
    assert data.hints.show_default_geometry  # slider_link and twin draw nothing of their own
    stop_handles = [
        h
        for f, h in zip(data.forces, built.force_elements, strict=True)
        if f.type == "MobilityLinearStop"
    ]
    assert not any(h.isDisabled(built.state) for h in stop_handles)  # the limits hold
    assert (
        stop_handles[0].getLowerBound(built.state),
        stop_handles[0].getUpperBound(built.state),
    ) == (-1.0, 2.0)
    dampers = [f for f in data.forces if f.type == "MobilityLinearDamper"]
    assert [(f.args["body"], f.args["damping"]) for f in dampers] == [("upper", 0.7)]
    (mimic,) = data.constraints
    assert mimic.type == "LinearCoordinateCoupler"
    assert (mimic.args["leader"], mimic.args["follower"]) == ("slider_link", "twin")
    assert (mimic.args["multiplier"], mimic.args["offset"]) == (2.0, 0.01)
    # the coupler's position error is zero exactly when twin = 2 slide + 0.01
    built.mobilized_bodies["twin"].setQ(state, np.array([2 * 0.15 + 0.01]))
    built.system.realize(state, Stage.Position)
    assert np.abs(state.getQErr()).max() < 1e-14


def test_geometry_colour_collision_and_mirrored_mesh(arm):
    data = import_urdf(arm).data
    base = data.body("base").geometry
    assert base[0].kind == "brick" and base[0].params["half_lengths"] == (0.1, 0.2, 0.3)
    assert base[0].color == (0.0, 0.0, 1.0) and base[0].role == "visual"
    assert base[1].kind == "sphere" and base[1].role == "collision"
    cyl, mesh = data.body("upper").geometry
    assert cyl.kind == "cylinder" and cyl.params == {"radius": 0.05, "half_height": 0.25}
    assert mesh.kind == "mesh" and mesh.params["scale"] == (1.0, -1.0, 1.0)
    assert mesh.params["file"] == str(arm.parent.parent / "meshes" / "part.stl")
    # collision geometry is kept but not drawn; the mirrored mesh is drawn mirrored
    built = build(data)
    decorations = built.mobilized_bodies["upper"].getBody().getDecorations()
    assert len(decorations) == 2
    mirrored = decorations[1][1].getMesh().vertices()
    assert np.allclose(sorted(map(tuple, mirrored)), sorted([(0, 0, 0), (1, 0, 0), (0, -1, 0)]))
    assert len(built.mobilized_bodies["base"].getBody().getDecorations()) == 1


def test_missing_mesh_is_a_warning_and_a_placeholder(tmp_path):
    path = tmp_path / "r.urdf"
    path.write_text(
        urdf(
            '<link name="a"><visual><geometry><mesh filename="meshes/gone.dae"/></geometry>'
            "</visual></link>"
        )
    )
    result = import_urdf(path)
    (warning,) = result.warnings
    assert "gone.dae" in str(warning) and "line 3" in str(warning)
    (g,) = result.data.body("a").geometry
    assert g.kind == "sphere" and g.color == (1.0, 0.0, 1.0)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (urdf('<link name="a"></link>\n<link name="b">'), ["malformed XML", "line 4"]),
        (
            urdf(
                '<link name="a"/><link name="b"/>\n<joint name="j" type="hinge">'
                '<parent link="a"/><child link="b"/></joint>'
            ),
            ["joint 'j'", "line 4", "unknown joint type 'hinge'"],
        ),
        (
            urdf(
                '<link name="a"/><link name="b"/><link name="c"/>\n'
                '<joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint>\n'
                '<joint name="j2" type="fixed"><parent link="a"/><child link="c"/></joint>\n'
                '<joint name="j3" type="fixed"><parent link="c"/><child link="b"/></joint>'
            ),
            ["kinematic loop", "joint 'j3'", "line 6", "'b'"],
        ),
        (
            urdf(
                '<link name="a"/>\n<link name="b"><inertial><mass value="heavy"/></inertial></link>'
            ),
            ["<mass value>", "line 4", "heavy"],
        ),
        (
            urdf(
                '<link name="a"/><link name="b"/>\n<joint name="j" type="revolute">'
                '<parent link="a"/><child link="nowhere"/></joint>'
            ),
            ["joint 'j'", "'nowhere' is not defined", "line 4"],
        ),
    ],
    ids=["malformed", "unknown-type", "loop", "bad-number", "missing-link"],
)
def test_bad_files_are_refused_naming_element_and_line(tmp_path, text, words):
    path = tmp_path / "bad.urdf"
    path.write_text(text)
    with pytest.raises(UrdfImportError) as info:
        import_urdf(path)
    message = str(info.value)
    for w in words:
        assert w in message, (w, message)


NONPHYSICAL = urdf(
    """<link name="a"/>
<link name="b"><inertial><mass value="1"/>
<inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0.001" ixz="0.001" iyz="0.001"/></inertial>
</link>
<link name="tip"><inertial><mass value="0"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0"
 iyz="0"/></inertial></link>
<joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint>
<joint name="k" type="revolute"><parent link="b"/><child link="tip"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>"""
)


def test_nonphysical_inertia_is_refused_then_fixed_and_tiny_masses_raised(tmp_path):
    path = tmp_path / "n.urdf"
    path.write_text(NONPHYSICAL)
    with pytest.raises(UrdfImportError) as info:
        import_urdf(path)
    assert "link 'b' (line 4)" in str(info.value) and "triangle inequality" in str(info.value)
    assert info.value.fixable
    result = import_urdf(path, fix_inertias=True)
    assert [f.element for f in result.fixed] == ["link 'b'", "link 'tip'"]
    b, tip = result.data.body("b"), result.data.body("tip")
    w = np.linalg.eigvalsh(
        np.array(
            [
                [b.inertia[0], b.inertia[3], b.inertia[4]],
                [b.inertia[3], b.inertia[1], b.inertia[5]],
                [b.inertia[4], b.inertia[5], b.inertia[2]],
            ]
        )
    )
    assert w.min() >= 0 and w.max() <= w.sum() - w.max() + 1e-12
    assert tip.mass == 1e-3


def test_tiny_mass_is_a_fixable_warning(tmp_path):
    path = tmp_path / "t.urdf"
    path.write_text(
        urdf(
            '<link name="a"/>\n<link name="b"/>\n'
            '<joint name="j" type="revolute"><parent link="a"/><child link="b"/>'
            '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        )
    )
    result = import_urdf(path)
    (w,) = result.warnings
    assert w.fixable and "link 'b'" in w.element and "singular" in w.message
    assert import_urdf(path, fix_inertias=True).data.body("b").mass == 1e-3


def test_cli_writes_relative_mesh_names_and_never_overwrites(arm, tmp_path, capsys):
    out = arm.parent.parent / "model" / "arm.mbs.json"
    assert main(["import", str(arm), "--out", str(out)]) == 0
    doc = model_io.load(out)
    mesh = doc.data.body("upper").geometry[1]
    assert mesh.params["file"] == "../meshes/part.stl"
    built = build(doc)  # relative names start at the document's directory
    assert built.mobilized_bodies["upper"].getBody().getDecorations()[1][1].getMesh()
    before = out.read_text()
    assert main(["import", str(arm), "--out", str(out), "--floating"]) == 2
    assert "--force" in capsys.readouterr().err and out.read_text() == before
    assert main(["import", str(arm), "--out", str(out), "--floating", "--force"]) == 0
    assert json.loads(out.read_text())["model"]["bodies"][0]["mobilizer"] == "Free"


def test_cli_package_path_and_failure_exit_status(tmp_path, capsys):
    meshes = tmp_path / "elsewhere" / "mypkg" / "m"
    meshes.mkdir(parents=True)
    (meshes / "x.stl").write_text(STL)
    path = tmp_path / "r.urdf"
    path.write_text(
        urdf(
            '<link name="a"><visual><geometry><mesh filename="package://mypkg/m/x.stl"/>'
            "</geometry></visual></link>"
        )
    )
    out = tmp_path / "r.mbs.json"
    assert main(["import", str(path), "--out", str(out)]) == 0
    assert "x.stl" in capsys.readouterr().err  # not found: a warning
    assert model_io.load(out).data.body("a").geometry[0].kind == "sphere"
    pp = str(tmp_path / "elsewhere")
    assert main(["import", str(path), "--out", str(out), "--force", "--package-path", pp]) == 0
    assert model_io.load(out).data.body("a").geometry[0].kind == "mesh"
    path.write_text("<robot><link name='a'>")
    assert main(["import", str(path), "--out", str(tmp_path / "bad.mbs.json")]) == 1
    assert "malformed XML" in capsys.readouterr().err
    assert not (tmp_path / "bad.mbs.json").exists()


def test_frames_survive_the_document_near_gimbal_lock():
    """FrameSpec holds body-fixed X-Y-Z angles; joint frames with the middle angle near ±90°
    (common: a URDF axis along the parent's x) still rebuild to roundoff."""
    from app.document.builder import transform
    from app.importers.urdf.frames import frame_spec

    rng = np.random.default_rng(3)
    worst = 0.0
    for _ in range(500):
        b = rng.choice([-1.0, 1.0]) * np.pi / 2 + rng.normal() * 10 ** rng.uniform(-16, -4)
        a, c = rng.uniform(-3, 3, 2)
        X = np.eye(4)
        X[:3, :3] = _rot((1, 0, 0), a) @ _rot((0, 1, 0), b) @ _rot((0, 0, 1), c)
        X[:3, 3] = rng.normal(size=3)
        worst = max(worst, np.abs(transform(frame_spec(X)).toMat44() - X).max())
    assert worst < 1e-14


def test_planar_and_floating_joints(tmp_path):
    inertial = (
        '<inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0"'
        ' iyz="0"/></inertial>'
    )
    path = tmp_path / "pf.urdf"
    path.write_text(
        urdf(
            f'<link name="a"/><link name="p">{inertial}</link><link name="f">{inertial}</link>'
            '<joint name="jp" type="planar"><parent link="a"/><child link="p"/>'
            '<origin xyz="1 0 0"/><axis xyz="1 0 0"/></joint>'
            '<joint name="jf" type="floating"><parent link="a"/><child link="f"/>'
            '<origin xyz="0 2 0"/></joint>'
        )
    )
    data = import_urdf(path).data
    assert data.body("p").mobilizer == "Planar" and data.body("f").mobilizer == "Free"
    built = build(data)
    state = built.state.copy()
    # Planar: q = (angle about the URDF axis, then two translations in the plane normal to it)
    built.mobilized_bodies["p"].setQ(state, np.array([0.4, 0.3, -0.2]))
    built.system.realize(state, Stage.Position)
    X = built.mobilized_bodies["p"].getBodyTransform(state).toMat44()
    assert np.allclose(X[:3, :3], _rot((1, 0, 0), 0.4), atol=1e-14)
    assert X[0, 3] == pytest.approx(1.0, abs=1e-14)  # no motion along the normal
    assert np.hypot(X[1, 3], X[2, 3]) == pytest.approx(np.hypot(0.3, 0.2), abs=1e-14)
    Xf = built.mobilized_bodies["f"].getBodyTransform(state).toMat44()
    assert np.allclose(Xf, [[1, 0, 0, 0], [0, 1, 0, 2], [0, 0, 1, 0], [0, 0, 0, 1]], atol=1e-15)


def test_a_limited_robot_falls_against_its_joint_limits(tmp_path):
    """A two-link arm whose elbow's limits [-2, -0.5] rad leave out its URDF zero: the
    import starts the elbow at -0.5 (the nearer limit) and its stops are on, so the arm
    falling under gravity for 2 s stays within both joints' limits (up to the stops'
    compliance) instead of swinging through them."""
    inertial = (
        '<inertial><origin xyz="0.25 0 0"/><mass value="1"/>'
        '<inertia ixx="0.001" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial>'
    )
    path = tmp_path / "limited.urdf"
    path.write_text(
        urdf(
            f"""
  <link name="base"/>
  <link name="upper">{inertial}</link>
  <link name="fore">{inertial}</link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/><axis xyz="0 1 0"/>
    <limit lower="-0.3" upper="0.3" effort="10" velocity="1"/>
  </joint>
  <joint name="elbow" type="revolute">
    <parent link="upper"/><child link="fore"/><origin xyz="0.5 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="-0.5" effort="10" velocity="1"/>
  </joint>
"""
        )
    )
    data = import_urdf(path).data
    assert data.body("upper").q is None  # zero is within the shoulder's limits
    assert data.body("fore").q == (-0.5,)
    built = build(ModelDocument(data))
    from engine import RungeKuttaMersonIntegrator, TimeStepper

    stepper = TimeStepper(built.system, RungeKuttaMersonIntegrator(built.system))
    stepper.initialize(built.state)
    low = high = None
    for k in range(1, 41):
        stepper.stepTo(0.05 * k)
        q = np.array(stepper.getState().getQ())
        low = q if low is None else np.minimum(low, q)
        high = q if high is None else np.maximum(high, q)
    # gravity along -z drives both joints toward positive angles about +y; without the
    # stops the arm falls to q ~ (1.6, 0) and beyond
    assert high[0] < 0.3 + 0.05 and low[0] > -0.3 - 0.05, (low, high)
    assert high[1] < -0.5 + 0.05 and low[1] > -2.0 - 0.05, (low, high)
