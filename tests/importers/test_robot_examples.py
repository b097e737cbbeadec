"""The bundled robot examples: imported from example-robot-data, meshes and licences beside
them, the same bodies, joints and mass properties as a fresh import of the original URDF."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.document import model_io
from app.document.builder import transform
from app.document.examples import ROBOT_EXAMPLES
from app.document.mesh_cache import resolve
from app.importers.urdf import import_urdf
from tests.importers.robots import robot

ORIGINALS = {
    "panda": ("panda_description/urdf/panda.urdf", {}),
    "anymal_c": (
        "anymal_c_simple_description/urdf/anymal.urdf",
        {"fix_inertias": True, "height": 0.6},
    ),
}


@pytest.mark.parametrize("example", ROBOT_EXAMPLES, ids=lambda e: e.key)
def test_robot_example_matches_its_urdf_and_carries_its_meshes_and_licence(example):
    doc = model_io.load(example.path)
    folder = example.path.parent
    assert (folder / "NOTICE.md").is_file()
    assert (folder / "meshes" / "LICENSE").is_file()
    files = [
        resolve(g.params["file"], doc.base_dir)
        for b in doc.bodies
        for g in b.geometry
        if g.kind == "mesh"
    ]
    assert files and all(f.is_file() and folder in f.parents for f in files)
    assert all(
        not Path(g.params["file"]).is_absolute()
        for b in doc.bodies
        for g in b.geometry
        if g.kind == "mesh"
    )
    relative, options = ORIGINALS[example.key]
    fresh = import_urdf(robot(relative), **options).data
    assert [b.name for b in doc.bodies] == [b.name for b in fresh.bodies]
    for ours, theirs in zip(doc.bodies, fresh.bodies, strict=True):
        assert (ours.parent, ours.mobilizer) == (theirs.parent, theirs.mobilizer)
        # Frames and inertias come out of rotations that numpy/LAPACK builds may round
        # differently in the last bit; at a pitch of pi/2 that moves roll and yaw (not the
        # rotation), so frames are compared as transforms.
        for mine, fresh_frame in ((ours.X_PF, theirs.X_PF), (ours.X_BM, theirs.X_BM)):
            assert mine.p == fresh_frame.p
            np.testing.assert_allclose(
                transform(mine).R().asMat33(), transform(fresh_frame).R().asMat33(), atol=1e-12
            )
        assert (ours.mass, ours.com) == (theirs.mass, theirs.com)
        assert ours.inertia == pytest.approx(theirs.inertia, rel=1e-12, abs=1e-18)
    assert doc.data.forces == fresh.forces and doc.data.constraints == fresh.constraints
    # every moving link is drawn by its meshes: no default sketch over them
    assert not doc.data.hints.show_default_geometry and not fresh.hints.show_default_geometry


def _panda_realized(python_constraints: bool, monkeypatch) -> tuple[str, dict]:
    """(whyNotFused, the Acceleration-stage results) of the Panda example at a generic q, u;
    ``python_constraints``: its mimic coupler on the class's Python methods."""
    import engine.multibody.fused_realization as fused_realization
    import engine.multibody.matter.constraints as matter_constraints
    from app.document.builder import build
    from engine import Stage

    if python_constraints:
        monkeypatch.setattr(matter_constraints, "compiled_constraints", lambda *args: None)
        monkeypatch.setattr(fused_realization, "compiled_constraints", lambda *args: None)
    panda = next(e for e in ROBOT_EXAMPLES if e.key == "panda")
    built = build(model_io.load(panda.path))
    system, state = built.system, built.state
    rng = np.random.default_rng(2)
    state.updQ()[:] = np.asarray(state.getQ()) + 0.2 * rng.standard_normal(state.getNQ())
    state.updU()[:] = rng.standard_normal(state.getNU())
    system.realize(state, Stage.Acceleration)
    results = {
        name: np.array(getattr(state, name)())
        for name in ("getUDot", "getQDotDot", "getMultipliers", "getQErr", "getUErr", "getUDotErr")
    }
    return system._fused_realization.whyNotFused(state), results


def test_the_panda_mimic_finger_is_realized_in_the_fused_call_as_on_the_python_path(
    monkeypatch,
):
    why, fused = _panda_realized(False, monkeypatch)
    assert why == ""  # its CoordinateCoupler (a Function.Linear on two Sliders) is compiled
    assert abs(fused["getMultipliers"]).max() > 1e-3
    why, python = _panda_realized(True, monkeypatch)
    assert why.startswith("constraints without a compiled form are enabled")
    scale = 1.0 + abs(python["getUDot"]).max()
    for name, value in python.items():
        np.testing.assert_allclose(fused[name], value, rtol=0, atol=1e-12 * scale, err_msg=name)


def test_the_panda_falls_against_its_joint_limits_in_compiled_realizations():
    """The Panda example's joint stops are on: falling under gravity for 2 s, every joint
    stays within its URDF limits (up to the stops' compliance), and the stops keep the
    one-call realization (their compiled terms)."""
    from app.document.builder import build
    from engine import RungeKuttaMersonIntegrator, TimeStepper

    panda = next(e for e in ROBOT_EXAMPLES if e.key == "panda")
    doc = model_io.load(panda.path)
    built = build(doc)
    stops = [f.args for f in doc.data.forces if f.type == "MobilityLinearStop"]
    assert len(stops) == 9 and all(s["enabled"] for s in stops)
    q_index = {
        name: built.mobilized_bodies[name]._q_range(built.state)[0]
        for name in (s["body"] for s in stops)
    }
    assert built.system._fused_realization.whyNotFused(built.state) == ""
    stepper = TimeStepper(built.system, RungeKuttaMersonIntegrator(built.system))
    stepper.initialize(built.state)
    for k in range(1, 21):
        stepper.stepTo(0.1 * k)
        q = stepper.getState().getQ()
        for s in stops:
            assert s["q_low"] - 0.05 < q[q_index[s["body"]]] < s["q_high"] + 0.05, (s, k)
