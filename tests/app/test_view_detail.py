"""The studio's 3-D view of a large model seen whole draws its many small spheres with a coarse
unit shape (each is under half a pixel), and with the full one once the wheel has brought the
camera near enough for one to be larger: the choice is made before every frame, also the
frames the view's own camera moves draw. Driven by real wheel events in the real window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from app.document import FrameSpec, GeometrySpec, ModelData, ModelDocument, model_io
from app.document.specs import BodySpec
from viz.instancing import GlyphGroup
from viz.vtk_builder import INSTANCE_LOD_COUNT

N = INSTANCE_LOD_COUNT + 100


def _beads(n: int) -> ModelDocument:
    """A chain of ``n`` 10 cm links, each with a 5 mm bead at its origin."""
    bead = (GeometrySpec("sphere", {"radius": 0.005}),)
    bodies = [
        BodySpec(
            f"b{i}",
            parent="Ground" if i == 0 else f"b{i - 1}",
            mobilizer="Ball",
            X_PF=FrameSpec((0.0, -0.1, 0.0)),
            com=(0.0, -0.05, 0.0),
            inertia=(0.01, 0.001, 0.01, 0.0, 0.0, 0.0),
            geometry=bead,
        )
        for i in range(n)
    ]
    return ModelDocument(ModelData(name="beads", bodies=bodies))


def _wheel(widget, steps: int) -> None:
    """A real wheel event at the widget's centre (positive ``steps``: away from the user,
    which brings the camera nearer)."""
    pos = QPointF(widget.rect().center())
    glob = QPointF(widget.mapToGlobal(widget.rect().center()))
    event = QWheelEvent(
        pos,
        glob,
        QPoint(0, 0),
        QPoint(0, 120 * steps),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


@pytest.mark.gui
def test_the_wheel_brings_the_full_shape_back(main_window, qtbot, tmp_path):
    window = main_window
    editor, panel, viewport = window.model_editor, window.simulation, window.viewport
    editor.interactive = False
    path = tmp_path / "beads.mbs.json"
    model_io.save(_beads(N), path)
    assert editor.open_path(path, modal=False)
    qtbot.waitUntil(
        lambda: panel.snapshot is not None and len(panel.snapshot.model.body_names) > N,
        timeout=60000,
    )
    qtbot.wait(300)

    def beads() -> GlyphGroup:
        groups = [g for g in viewport.scene._groups if isinstance(g, GlyphGroup)]  # noqa: SLF001
        return next(g for g in groups if g.shape == "sphere" and len(g) >= N)

    qtbot.waitUntil(
        lambda: viewport.frames_rendered > 0 and beads().placed == len(beads()), timeout=5000
    )
    viewport.request_render()
    qtbot.waitUntil(lambda: beads().coarse, timeout=3000)  # 30 m of chain: beads of 0.1 px

    view = viewport.interactor_widget
    frames = viewport.frames_rendered
    for _ in range(60):
        _wheel(view, 1)
        qtbot.wait(5)
        if not beads().coarse:
            break
    assert viewport.frames_rendered > frames
    assert not beads().coarse  # the camera nearer: a bead over half a pixel, the full shape
    full_cells = beads().shape_ports[0].GetProducer().GetOutputDataObject(0).GetNumberOfCells()
    source = beads().mapper.GetInputConnection(1, 0).GetProducer().GetOutputDataObject(0)
    assert source.GetNumberOfCells() == full_cells
