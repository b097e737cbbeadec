"""GUI fixes from a newcomer's pass over the examples (plots at t = 0, ...), each driven by
real input on the real widgets."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt

from tests.app.window_activation import activate

pytestmark = pytest.mark.gui


def _close(window) -> None:
    window.model_editor.interactive = False
    window.close()


def test_a_model_just_opened_plots_its_starting_values(qtbot, open_example):
    """The four-bar just opened plots its total energy at t = 0 at once (a dot, no "press
    Play" note); a Step (F10) extends the curve from there, and Reset (Ctrl+Shift+F5)
    brings back the lone starting sample with the same value."""
    window = open_example("four_bar")
    plots = window.simulation.plots
    qtbot.waitUntil(lambda: len(plots.plotted_data("total energy")[0]) == 1, timeout=5000)
    t0, e0 = plots.plotted_data("total energy")
    assert t0[0] == 0.0 and np.isfinite(e0[0])
    assert not plots.no_samples.isVisible()
    assert plots.curves["total energy"].opts["symbol"] == "o"  # a lone sample shows as a dot
    vb = plots.plot.plotItem.vb
    low, high = vb.viewRange()[0]  # its first second (with a margin), not one centred on it
    assert -0.05 < low < 0.0 and high == pytest.approx(1.0 - low)
    assert plots.plot.getAxis("bottom").labelText == "t (s)"
    activate(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_F10)  # Step
    qtbot.waitUntil(lambda: len(plots.plotted_data("total energy")[0]) >= 2, timeout=10000)
    t, e = plots.plotted_data("total energy")
    assert t[0] == 0.0 and e[0] == e0[0] and t[-1] > 0.0
    assert plots.curves["total energy"].opts["symbol"] is None
    qtbot.waitUntil(lambda: vb.viewRange()[0][1] < 0.5, timeout=5000)  # ranged to the samples
    qtbot.keyClick(
        window,
        Qt.Key.Key_F5,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )  # Reset
    qtbot.waitUntil(lambda: len(plots.plotted_data("total energy")[0]) == 1, timeout=10000)
    t, e = plots.plotted_data("total energy")
    assert t[0] == 0.0 and e[0] == pytest.approx(e0[0], rel=1e-12)
    _close(window)


def test_posing_a_model_not_run_yet_moves_its_starting_sample(qtbot, open_example):
    """The pendulum not run yet: typing a new angle in its Joints row (click, select all,
    type, Return) moves the plotted q at t = 0 to the pose typed."""
    window = open_example("pendulum")
    panel = window.simulation
    plots = panel.plots
    (key,) = [k for k in panel.sliders.rows]
    name = next(n for n in plots.quantity_model.names if n.startswith("q[0]"))
    plots.set_checked(name)
    qtbot.waitUntil(lambda: len(plots.plotted_data(name)[0]) == 1, timeout=5000)
    spin = panel.sliders.rows[key].spin
    qtbot.mouseClick(spin.lineEdit(), Qt.MouseButton.LeftButton)
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(spin.lineEdit(), "30")
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: plots.plotted_data(name)[1].tolist() == pytest.approx([np.radians(30.0)]),
        timeout=5000,
    )
    assert plots.plotted_data(name)[0].tolist() == [0.0]
    _close(window)


def test_chain50_opens_without_the_sketch_and_shows_frames_that_fit_its_links(qtbot, open_example):
    """chain50 draws its links without Simbody's default sketch (no 0.5 m triad per 8 cm
    link, no bone lines from Ground's origin); the View menu's Default sketch entry says why
    it is greyed out, and View > Teaching overlays > Body frames (real menu clicks) draws a
    triad on each link, each axis at most half a link long."""
    from vtkmodules.util.numpy_support import vtk_to_numpy

    from engine.multibody.default_geometry import DEFAULT_GEOMETRY_REF
    from tests.app.test_recording_and_overlays import click_overlay

    window = open_example("chain50")
    snap = window.simulation.snapshot
    assert snap.geometry and not any(g.getUserRef() == DEFAULT_GEOMETRY_REF for g in snap.geometry)
    sketch = window.overlays.actions["sketch"]
    assert not sketch.isEnabled() and "Hints" in sketch.text()
    activate(qtbot, window)
    click_overlay(qtbot, window, "frames")
    frames = window.overlays.overlays["frames"]
    qtbot.waitUntil(lambda: frames.attached and frames._poly.GetNumberOfPoints() > 0)
    points = vtk_to_numpy(frames._poly.GetPoints().GetData()).reshape(-1, 2, 3)
    lengths = np.linalg.norm(points[:, 1] - points[:, 0], axis=1)
    assert len(lengths) == 3 * 50
    assert lengths.max() <= 0.5 * 0.08 + 1e-9 and lengths.min() > 0.02
    _close(window)


def test_the_docked_cache_inspector_shows_each_entrys_status_and_value(qtbot, open_example):
    """Clicking the Cache inspector's tab (the default layout docks it beside the Stage
    inspector, ~350 px wide): the "position kinematics" row shows its name, status and the
    start of its value inside the dock (the status and value columns were off its right
    edge, behind the stages column)."""
    from PySide6.QtWidgets import QTabBar

    window = open_example("four_bar")
    dock = window.docks["Cache inspector"]
    bar = next(
        b
        for b in window.findChildren(QTabBar)
        if any(b.tabText(i) == "Cache inspector" for i in range(b.count()))
    )
    index = next(i for i in range(bar.count()) if bar.tabText(i) == "Cache inspector")
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.tabRect(index).center())
    inspector = window.simulation.cache_inspector
    qtbot.waitUntil(lambda: dock.isVisible() and not dock.visibleRegion().isEmpty())
    qtbot.waitUntil(
        lambda: inspector.entry_item("Matter", "position kinematics") is not None, timeout=10000
    )
    from app.widgets.cache_inspector import NAME, STATUS, VALUE

    item = inspector.entry_item("Matter", "position kinematics")
    assert item.text(STATUS) in ("valid", "stale") and item.text(VALUE)
    tree = inspector.tree
    tree.scrollToItem(item)
    width = tree.viewport().width()
    assert width < 500  # docked, not a wide window
    header = tree.header()
    for column in (NAME, STATUS):
        right = header.sectionViewportPosition(column) + header.sectionSize(column)
        assert 0 <= header.sectionViewportPosition(column) and right <= width, column
    assert header.sectionViewportPosition(VALUE) < width - 60  # the value's start is readable
    _close(window)


def test_a_mass_typed_before_the_first_step_moves_the_plotted_energy_and_undo_restores_it(
    qtbot, open_example
):
    """The pendulum at rest at t = 0 has only potential energy, m g y_C: typing mass 2 in
    its Properties doubles the plotted starting energy at once, and Ctrl+Z brings the
    first value back (the lone starting sample follows the model, no stale dot)."""
    from PySide6.QtTest import QTest

    window = open_example("pendulum")
    window.model_editor.interactive = False  # (no save prompt when the test ends early)
    plots, editor = window.simulation.plots, window.model_editor
    qtbot.waitUntil(lambda: len(plots.plotted_data("total energy")[1]) == 1, timeout=5000)
    e1 = plots.plotted_data("total energy")[1][0]
    view = editor.tree.view
    rect = view.visualRect(editor.tree.model.index_of("body:link"))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    field = editor.properties.field("mass")
    assert float(field.text()) == 1.0
    qtbot.mouseClick(field, Qt.MouseButton.LeftButton)
    qtbot.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(field, "2")
    qtbot.keyClick(field, Qt.Key.Key_Return)

    def energies():
        return plots.plotted_data("total energy")[1].tolist()

    qtbot.waitUntil(lambda: energies() == pytest.approx([2.0 * e1], rel=1e-12), timeout=10000)
    activate(qtbot, window)
    view.setFocus()
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: energies() == pytest.approx([e1], rel=1e-12), timeout=10000)
    assert plots.plotted_data("total energy")[0].tolist() == [0.0]
    _close(window)


def test_the_legend_gives_each_plotted_quantitys_unit(qtbot, open_example):
    """The tilting plane: the plane's angle and a box speed (plotted from the start), the
    box's x and an angular acceleration (ticked in the quantity list with clicks on their
    check boxes) are labelled in the legend with their SI units: the plot shows radians
    while the Joints show degrees."""
    window = open_example("tilting_plane")
    plots = window.simulation.plots
    view, model = plots.quantities, plots.quantity_model
    wanted = {
        "q[0] plane.q0": "rad",
        "q[5] box.q4": "m",
        "u[4] box.u3": "m/s",
        "udot[1] box.u0": "rad/s²",
    }
    for name in wanted:
        if name in plots.checked():  # (the example plots some of them from the start)
            continue
        qtbot.mouseClick(plots.filter, Qt.MouseButton.LeftButton)
        plots.filter.selectAll()
        qtbot.keyClicks(plots.filter, name)
        qtbot.waitUntil(lambda n=name: n in plots.listed(), timeout=5000)
        index = model.index(plots.listed().index(name), 0)
        qtbot.waitUntil(lambda i=index: view.visualRect(i).isValid(), timeout=5000)
        rect = view.visualRect(index)
        qtbot.mouseClick(  # on the row's check box
            view.viewport(),
            Qt.MouseButton.LeftButton,
            pos=QPoint(rect.left() + rect.height() // 2, rect.center().y()),
        )
        qtbot.waitUntil(lambda n=name: n in plots.checked(), timeout=5000)
    legend = {label.text for _, label in plots.plot.plotItem.legend.items}
    assert {f"{n} ({u})" for n, u in wanted.items()} <= legend
    _close(window)
