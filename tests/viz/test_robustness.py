"""Bad or unknown decorations are logged once and skipped; the scene keeps drawing."""

from __future__ import annotations

import logging

from engine.common.decorative_geometry import (
    DecorativeGeometry,
    DecorativeMeshFile,
    DecorativeSphere,
    Red,
)
from tests.viz.helpers import assert_shows


class DecorativeBlob(DecorativeGeometry):
    """A kind the VTK builder has never heard of."""

    def implementGeometry(self, visitor) -> None:  # noqa: N802
        visitor.implementBlobGeometry(self)


class Exploding(DecorativeGeometry):
    def implementGeometry(self, visitor) -> None:  # noqa: N802
        raise RuntimeError("boom")


def warnings_from_viz(caplog):
    return [r for r in caplog.records if r.name.startswith("viz") and r.levelno >= logging.WARNING]


def test_unknown_kind_is_logged_once_and_skipped(scene, caplog):
    caplog.set_level(logging.WARNING, logger="viz")
    geometry = [DecorativeBlob(), DecorativeSphere(0.5).setColor(Red), DecorativeBlob()]
    scene.set_geometry(geometry)
    scene.set_geometry(geometry)
    scene.set_dynamic_geometry([DecorativeBlob()])
    assert_shows(scene.capture(), Red)
    records = warnings_from_viz(caplog)
    assert len(records) == 1 and "implementBlobGeometry" in records[0].getMessage()


def test_non_geometry_and_failing_geometry_do_not_crash(scene, caplog):
    caplog.set_level(logging.WARNING, logger="viz")
    scene.set_geometry([object(), None, Exploding(), DecorativeSphere(0.5).setColor(Red)])
    assert_shows(scene.capture(), Red)
    messages = " | ".join(r.getMessage() for r in warnings_from_viz(caplog))
    assert "object" in messages and "NoneType" in messages and "boom" in messages


def test_missing_and_unsupported_mesh_files_are_skipped(scene, caplog, tmp_path):
    caplog.set_level(logging.WARNING, logger="viz")
    (tmp_path / "model.ply").write_text("ply\n")
    (tmp_path / "empty.obj").write_text("# nothing\n")
    scene.set_geometry(
        [
            DecorativeMeshFile(tmp_path / "missing.stl"),
            DecorativeMeshFile(tmp_path / "model.ply"),
            DecorativeMeshFile(tmp_path / "empty.obj"),
            DecorativeSphere(0.5).setColor(Red),
        ]
    )
    assert_shows(scene.capture(), Red)
    messages = " | ".join(r.getMessage() for r in warnings_from_viz(caplog))
    assert "missing.stl" in messages and ".ply" in messages and "no points" in messages


def test_normal_scenes_log_nothing(scene, caplog):
    caplog.set_level(logging.DEBUG, logger="viz")
    scene.set_geometry([DecorativeSphere(0.5).setColor(Red)])
    scene.capture()
    assert not warnings_from_viz(caplog)


def test_empty_scene_renders_background(make_scene):
    s = make_scene(uniform=False)
    s.set_geometry([])
    img = s.capture()
    assert img.std() > 5  # sky gradient and ground, not a black frame
