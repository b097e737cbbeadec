"""The studio's 3-D view of a large model seen whole draws its many small spheres with a coarse
unit shape (each is under half a pixel), and with the full one once the wheel has brought the
camera near enough for one to be larger: the choice is made before every frame, also the
frames the view's own camera moves draw. Driven by real wheel events in the real window."""

from __future__ import annotations

import pytest

from app.document import GeometrySpec, ModelDocument
from tests.app.open_in_window import open_in_window
from tests.app.test_large_model_edits import _chain_document
from tests.app.test_studio_forms import wheel
from viz.instancing import GlyphGroup
from viz.vtk_builder import INSTANCE_LOD_COUNT

N = INSTANCE_LOD_COUNT + 100


def _beads(n: int) -> ModelDocument:
    """A chain of ``n`` 10 cm links, each with a 5 mm bead at its origin."""
    return _chain_document(n, (GeometrySpec("sphere", {"radius": 0.005}),), "beads")


@pytest.mark.gui
def test_the_wheel_brings_the_full_shape_back(main_window, qtbot, tmp_path):
    window = main_window
    viewport = window.viewport
    open_in_window(qtbot, window, tmp_path / "beads.mbs.json", _beads(N), active=False)
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
        wheel(view, 1)
        qtbot.wait(5)
        if not beads().coarse:
            break
    assert viewport.frames_rendered > frames
    assert not beads().coarse  # the camera nearer: a bead over half a pixel, the full shape
    full_cells = beads().shape_ports[0].GetProducer().GetOutputDataObject(0).GetNumberOfCells()
    source = beads().mapper.GetInputConnection(1, 0).GetProducer().GetOutputDataObject(0)
    assert source.GetNumberOfCells() == full_cells
