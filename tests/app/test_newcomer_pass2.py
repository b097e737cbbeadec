"""GUI fixes from a second newcomer's pass over the examples (the model tree's Type column, the
selection triad's size, the Joints rows' names), each driven by real input on the real
widgets."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFormLayout

pytestmark = pytest.mark.gui


def _close(window) -> None:
    window.model_editor.interactive = False
    window.close()


def test_the_pandas_model_tree_shows_each_bodys_joint_type_in_the_default_dock(qtbot, open_example):
    """The Panda, nested ten levels deep: clicking its deepest body (a finger) in the tree
    selects it, and its row shows both its name and its Type ("Slider") inside the docked
    tree's viewport (the name column was as wide as the deepest name's indent plus text,
    which pushed the Type column off the dock's right edge)."""
    window = open_example("panda")
    tree = window.model_editor.tree
    view = tree.view
    index = tree.model.index_of("body:panda_rightfinger")
    qtbot.waitUntil(lambda: view.visualRect(index).isValid(), timeout=10000)
    view.scrollTo(index)
    point = view.visualRect(index).center()
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert tree.selected_bodies() == ["panda_rightfinger"]
    width = view.viewport().width()
    assert width < 450  # the default layout's Model dock
    for row in ("body:panda_link1", "body:panda_rightfinger"):
        kind = tree.model.index_of(row).siblingAtColumn(1)
        rect = view.visualRect(kind)
        text = view.fontMetrics().horizontalAdvance(kind.data())
        assert kind.data() in ("Pin", "Slider")
        assert 0 <= rect.left() and rect.left() + text < width, (row, rect, width)
    _close(window)


def _yellow(img: np.ndarray) -> np.ndarray:
    return (img[..., 0] > 200) & (img[..., 1] > 170) & (img[..., 2] < 60)


def test_the_selection_triad_on_a_small_ball_reaches_just_past_it(
    qtbot, open_example, read_render_window
):
    """A click on the first bouncing ball (10 cm) selects it: its yellow triad shows outside
    the ball (some yellow beyond its drawn radius) but stays near it, within 2.2 radii of
    its centre on screen (a 0.5 m triad covered five radii and hid the ball)."""
    window = open_example("bouncing_balls")
    panel = window.simulation
    qtbot.waitUntil(lambda: panel.snapshot.model is not None, timeout=10000)
    qtbot.wait(200)
    scene = window.viewport.scene
    widget = window.viewport.interactor_widget
    ball = next(
        item
        for item in scene._static  # noqa: SLF001  (the sphere drawn on body 1)
        if item.body_id == 1 and item.actor is not None and item.kind == "sphere"
    )
    box = np.array(ball.actor.GetBounds()).reshape(3, 2)
    centre, radius = box.mean(axis=1), 0.5 * (box[0, 1] - box[0, 0])
    scene.render()
    cx, cy = scene.world_to_display(centre)
    camera = scene.renderer.GetActiveCamera()
    up = np.array(camera.GetViewUp())
    ex, ey = scene.world_to_display(centre + radius * up / np.linalg.norm(up))
    r_px = float(np.hypot(ex - cx, ey - cy))
    assert r_px > 8.0  # big enough on screen to measure
    before = _yellow(read_render_window(window.viewport.render_window))  # (a yellow ball too)
    point = QPoint(round(cx), widget.height() - 1 - round(cy))
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, point)
    assert panel.selected_body == "ball_c0.025"
    qtbot.wait(50)
    img = read_render_window(window.viewport.render_window)
    rows, cols = np.nonzero(_yellow(img) & ~before)  # the triad (and the ball's tint)
    assert len(rows) > 10
    h = img.shape[0]
    distance = np.hypot(cols - cx, (h - 1 - rows) - cy)
    assert distance.max() > 1.15 * r_px  # out of the ball
    assert distance.max() < 2.2 * r_px  # and not far out
    _close(window)


def _row_labels(sliders, body: str) -> list:
    form = sliders._boxes[body].layout()  # noqa: SLF001  (the body's group of rows)
    assert isinstance(form, QFormLayout)
    return [
        form.itemAt(r, QFormLayout.ItemRole.LabelRole).widget()
        for r in range(form.rowCount())
        if form.itemAt(r, QFormLayout.ItemRole.LabelRole) is not None
    ]


def test_the_slider_crank_rows_say_which_angle_and_which_displacement(qtbot, open_example):
    """The slider-crank's Joints: the crank's Pin row reads "z angle (deg)" and the slider's
    row "x (m)", each with its q index and meaning in its tooltip; typing 90 in the crank's
    box (click, select all, type, Return) turns the crank to q0 = pi/2."""
    window = open_example("slider_crank")
    panel = window.simulation
    sliders = panel.sliders
    (crank,) = _row_labels(sliders, "crank")
    (slider,) = _row_labels(sliders, "slider")
    assert crank.text() == "z angle (deg)" and slider.text() == "x (m)"
    assert "q0" in crank.toolTip() and "about the common z axis" in crank.toolTip()
    assert "q0" in slider.toolTip() and "along F's x axis" in slider.toolTip()
    spin = sliders.rows[("crank", 0)].spin
    qtbot.mouseClick(spin.lineEdit(), Qt.MouseButton.LeftButton)
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(spin.lineEdit(), "90")
    qtbot.keyClick(spin.lineEdit(), Qt.Key.Key_Return)
    index = panel.snapshot.model.q_index[("crank", 0)]
    qtbot.waitUntil(
        lambda: abs(panel.snapshot.q[index] - np.pi / 2) < 1e-6,
        timeout=10000,
    )
    _close(window)


def test_an_edit_at_t0_after_a_run_keeps_the_run_as_a_branch_from_t0(qtbot, open_example):
    """The pendulum run for a while, paused, the timeline clicked at its start (t = 0) and
    mass 2 typed in Properties: the branch box names the run left behind from t = 0 (the
    moment of the edit, not its first step's time), the plot shows that run dashed and the
    starting sample at the new model's energy (twice the first, all potential)."""
    from tests.app.window_activation import activate

    window = open_example("pendulum")
    panel, plots, editor = window.simulation, window.simulation.plots, window.model_editor
    editor.interactive = False
    qtbot.waitUntil(lambda: len(plots.plotted_data("total energy")[1]) == 1, timeout=5000)
    e1 = plots.plotted_data("total energy")[1][0]
    activate(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_F5)  # Play
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.3, timeout=15000)
    qtbot.keyClick(window, Qt.Key.Key_F5, Qt.KeyboardModifier.ShiftModifier)  # Pause
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    end = panel.snapshot.time
    bar = window.timeline.timeline
    start = QPoint(round(bar.x_of(0.0)), bar.height() // 2)
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    qtbot.waitUntil(lambda: panel.snapshot.time == 0.0, timeout=5000)
    view = editor.tree.view
    rect = view.visualRect(editor.tree.model.index_of("body:link"))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    field = editor.properties.field("mass")
    qtbot.mouseClick(field, Qt.MouseButton.LeftButton)
    qtbot.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(field, "2")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    box = window.timeline.branch_box
    qtbot.waitUntil(lambda: box.isVisible() and box.count() == 2, timeout=10000)
    assert box.itemText(0) == "Main line (shown)"
    assert box.itemText(1) == f"Branch 1, before the edit (0–{end:.3g} s)"
    qtbot.waitUntil(
        lambda: plots.plotted_data("total energy")[1].tolist() == pytest.approx([2.0 * e1]),
        timeout=10000,
    )
    assert plots.plotted_data("total energy")[0].tolist() == [0.0]
    (dashed,) = plots.branch_curves.values()
    t, e = dashed.getData()
    assert 0.0 < t[0] < 0.05 and t[-1] == pytest.approx(end, abs=0.02)
    assert e[0] == pytest.approx(e1, rel=1e-6)  # the run before the edit, with mass 1
    _close(window)
