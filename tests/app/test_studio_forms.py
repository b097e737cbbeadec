"""The Properties form, the File > New/unsaved-changes flow, the Joints panel and the stage
inspector, driven by real input events (key clicks, wheel events, mouse clicks and drags) in a
real window: units on every field, the true q after full turns, Euler-angle sliders for
quaternion joints, the cascade after a slider drag, buttons that stay put."""

from __future__ import annotations

import math
import threading

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMessageBox, QStyle, QStyleOptionSlider

from app.document import model_io
from app.document.examples import example_path
from engine.common.stage import Stage
from tests.app.window_activation import activate

pytestmark = pytest.mark.gui


def worker_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "mbstudio-simulation" and t.is_alive()]


@pytest.fixture
def studio(qtbot, qsettings):
    from app.main_window import MainWindow

    windows = []

    def make(model_path=None):
        model_path = example_path("pendulum") if model_path is None else model_path
        window = MainWindow(model_path=model_path, settings=qsettings, restore_layout=False)
        window.model_editor.interactive = False  # no modal dialogs unless a test wants them
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=10000)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.model_editor.interactive = False
        window.close()
    assert not worker_threads()


def type_into(qtbot, field, text: str) -> None:
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def wheel(widget, steps: int = -1) -> bool:
    """A real wheel event at the widget's centre, sent as the window system would (through
    QApplication, which passes an ignored wheel event on to the parent)."""
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
    return QApplication.sendEvent(widget, event)


def click_action(qtbot, window, action) -> None:
    button = window.toolbar.widgetForAction(action)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


# -- bug 3: File > New discards the previous model's simulation -------------------------------


def test_new_discards_the_running_model(studio, qtbot):
    window = studio()
    panel = window.simulation
    assert panel.sliders.rows, "the pendulum has a joint slider"
    click_action(qtbot, window, window.sim_actions["play"])
    qtbot.waitUntil(lambda: panel.snapshot.running and panel.snapshot.time > 0.1, timeout=10000)

    activate(qtbot, window)
    window.model_editor.tree.view.setFocus()
    qtbot.keyClick(window.model_editor.tree.view, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert not window.model_editor.document.bodies
    qtbot.waitUntil(lambda: panel.snapshot.model.body_names == ("Ground",), timeout=10000)
    assert not panel.snapshot.running and panel.snapshot.time == 0.0
    assert len(panel.snapshot.q) == 0 and len(panel.snapshot.x_gb) == 1
    assert not panel.sliders.rows, "the Joints panel still shows the old pendulum"

    assert window.sim_actions["play"].isEnabled()
    click_action(qtbot, window, window.sim_actions["play"])
    qtbot.waitUntil(lambda: panel.snapshot.running and panel.snapshot.time > 0.1, timeout=10000)
    assert len(panel.snapshot.q) == 0 and len(panel.snapshot.x_gb) == 1
    assert panel.session.built.body_name_of_index == ["Ground"]
    table = panel.stage_inspector.table
    assert table.rowCount() >= 1
    plots = panel.plots
    assert not [c for c in plots.buffer.columns if c.startswith(("q[", "u["))]
    assert not [n for n in plots.checked() if "link" in n]


# -- bug 4: the wheel over an unfocused combo or spin box scrolls, never edits ----------------


def test_wheel_over_unfocused_combo_changes_nothing(studio, qtbot):
    window = studio()
    editor = window.model_editor
    activate(qtbot, window)
    editor.tree.select_body("link")
    props = editor.properties
    kind = props.field("geometry[0].kind")
    mobilizer = props.field("mobilizer")
    parent = props.field("parent")
    editor.tree.view.setFocus()
    qtbot.waitUntil(lambda: not kind.hasFocus())
    bar = props.scroll.verticalScrollBar()
    window.docks["Properties"].resize(window.docks["Properties"].width(), 200)
    qtbot.wait(20)
    before = (kind.currentText(), mobilizer.currentText(), parent.currentText())
    undo_count = editor.undo_stack.count()
    scrolled = bar.value()
    for box in (kind, mobilizer, parent):
        wheel(box, -1)
        wheel(box, +1)
        wheel(box, -1)
    qtbot.wait(20)
    assert (kind.currentText(), mobilizer.currentText(), parent.currentText()) == before
    assert editor.undo_stack.count() == undo_count
    assert editor.document.geometry_of("link")[0].kind == before[0]
    assert bar.maximum() > 0  # the form is taller than its dock
    assert bar.value() > scrolled, "the wheel did not scroll the form"

    # A focused combo still takes the wheel (the user chose it).
    kind.setFocus()
    qtbot.waitUntil(kind.hasFocus)
    wheel(kind, -1)
    qtbot.waitUntil(lambda: editor.document.geometry_of("link")[0].kind != before[0], timeout=2000)
    assert editor.undo_stack.count() == undo_count + 1


def test_wheel_over_unfocused_joint_spin_box_changes_nothing(studio, qtbot):
    window = studio()
    panel = window.simulation
    row = panel.sliders.rows[("link", 0)]
    window.model_editor.tree.view.setFocus()
    q0 = panel.snapshot.q.copy()
    value = row.spin.value()
    wheel(row.spin, 1)
    wheel(row.spin, 1)
    qtbot.wait(100)
    assert row.spin.value() == value
    assert panel.snapshot.q.tolist() == q0.tolist()


# -- bug 5: mass 0 is refused beside the field, the inertia is never lost ---------------------


@pytest.mark.parametrize("text", ["0", "-2"])
def test_non_positive_mass_is_refused_and_the_inertia_kept(studio, qtbot, text):
    window = studio()
    editor = window.model_editor
    editor.tree.select_body("link")
    body = editor.document.body("link")
    undo_count = editor.undo_stack.count()
    type_into(qtbot, editor.properties.field("mass"), text)
    error = editor.properties.error_label("mass")
    assert error.isVisible() and "positive" in error.text()
    assert editor.document.body("link") == body
    assert editor.undo_stack.count() == undo_count

    type_into(qtbot, editor.properties.field("mass"), "2")
    assert editor.document.body("link").mass == 2.0
    assert editor.document.body("link").inertia == pytest.approx(
        [2.0 / body.mass * i for i in body.inertia]
    )
    qtbot.waitUntil(lambda: not editor.properties.errors(), timeout=2000)
    click_action(qtbot, window, window.sim_actions["play"])
    panel = window.simulation
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.1, timeout=10000)
    assert not panel.snapshot.error


# -- bug 10: the unsaved-changes dialog offers Save, Discard and Cancel ------------------------


def answer_next_box(qtbot, button: QMessageBox.StandardButton, seen: list) -> None:
    """Click ``button`` of the next modal message box with the mouse."""

    def click() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, click)
            return
        seen.append(
            {b for b in QMessageBox.StandardButton if box.button(b) is not None and b.value}
        )
        QTest.mouseClick(box.button(button), Qt.MouseButton.LeftButton)

    QTimer.singleShot(20, click)


def test_unsaved_changes_save_discard_cancel(studio, qtbot, tmp_path):
    path = tmp_path / "mine.mbs.json"
    model_io.save(model_io.load(example_path("pendulum")), path)
    window = studio(path)
    editor = window.model_editor
    editor.tree.select_body("link")
    type_into(qtbot, editor.properties.field("mass"), "3")
    assert editor.is_modified()
    editor.interactive = True
    new_action = editor.actions["new"]

    seen: list = []
    answer_next_box(qtbot, QMessageBox.StandardButton.Cancel, seen)
    new_action.trigger()
    assert seen and seen[0] >= {
        QMessageBox.StandardButton.Save,
        QMessageBox.StandardButton.Discard,
        QMessageBox.StandardButton.Cancel,
    }
    assert editor.document.body_names() == ["link"] and editor.is_modified()

    answer_next_box(qtbot, QMessageBox.StandardButton.Save, seen)
    new_action.trigger()
    assert model_io.load(path).body("link").mass == 3.0, "Save did not save"
    assert not editor.document.bodies

    type_into_new = editor.add_body()
    assert type_into_new and editor.is_modified()
    answer_next_box(qtbot, QMessageBox.StandardButton.Discard, seen)
    new_action.trigger()
    assert not editor.document.bodies and not editor.is_modified()
    assert model_io.load(path).body("link").mass == 3.0


# -- bug 6, joints panel, bugs 7 and 8 -------------------------------------------------------


def type_spin(qtbot, spin, text: str) -> None:
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, text)
    qtbot.keyClick(spin, Qt.Key.Key_Return)


def handle_center(slider) -> QPoint:
    option = QStyleOptionSlider()
    slider.initStyleOption(option)
    rect = slider.style().subControlRect(
        QStyle.ComplexControl.CC_Slider, option, QStyle.SubControl.SC_SliderHandle, slider
    )
    return rect.center()


def click_at(qtbot, top, pos: QPoint) -> None:
    """A left click at ``pos`` of ``top``, delivered to whatever child is drawn there."""
    child = top.childAt(pos) or top
    qtbot.mouseClick(child, Qt.MouseButton.LeftButton, pos=child.mapFrom(top, pos))


def test_initial_state_fields_show_units_and_take_degrees(studio, qtbot):
    window = studio()
    editor = window.model_editor
    activate(qtbot, window)
    editor.tree.select_body("link")
    form = editor.properties
    labels = {form.fields[k][0].objectName(): None for k in ("q", "u")}
    assert labels
    layout_labels = [
        w.text() for w in form.findChildren(type(window.time_label)) if w.text().startswith("q (")
    ]
    assert layout_labels == ["q (deg)"]
    assert form.field("q").text() == "60"  # the pendulum starts at pi/3 rad
    type_into(qtbot, form.field("q"), "90")
    assert editor.document.body("link").q == pytest.approx((math.pi / 2,))
    qtbot.waitUntil(
        lambda: window.simulation.snapshot.q[0] == pytest.approx(math.pi / 2), timeout=5000
    )
    type_into(qtbot, form.field("u"), "180")
    assert editor.document.body("link").u == pytest.approx((math.pi,))

    editor.tree.select_body("link")
    qtbot.waitUntil(lambda: form.field("u").text() == "180", timeout=2000)
    texts = [w.text() for w in form.findChildren(type(window.time_label))]
    assert "u (deg/s)" in texts
    assert "Mass (kg)" in texts


def test_joint_readout_is_the_true_q_after_full_turns(studio, qtbot):
    window = studio()
    panel = window.simulation
    activate(qtbot, window)
    row = panel.sliders.rows[("link", 0)]
    assert row.spin.suffix().strip() == "deg"
    type_spin(qtbot, row.spin, "400")
    qtbot.waitUntil(lambda: panel.snapshot.q[0] == pytest.approx(math.radians(400)), timeout=5000)
    window.model_editor.tree.view.setFocus()
    click_action(qtbot, window, window.sim_actions["step"])
    qtbot.waitUntil(lambda: panel.snapshot.time > 0, timeout=5000)
    qtbot.waitUntil(
        lambda: row.spin.value() == pytest.approx(math.degrees(panel.snapshot.q[0]), abs=0.01),
        timeout=2000,
    )
    assert row.spin.value() > 360  # not clamped to 180 degrees
    expected = round((40 + 180) / 360 * 1000)  # the slider wraps to one turn
    assert abs(row.slider.value() - expected) < 20


def test_ball_joint_is_posed_through_euler_angles_in_degrees(studio, qtbot):
    window = studio(example_path("spinning_top"))
    panel = window.simulation
    sliders = panel.sliders
    activate(qtbot, window)
    assert not [k for k in sliders.rows if k[0] == "top"], "raw quaternion components shown"
    rows = [sliders.euler_rows[("top", axis)] for axis in range(3)]
    assert all(r.spin.suffix().strip() == "deg" for r in rows)
    texts = [w.text() for w in sliders.findChildren(type(window.time_label))]
    assert {"x angle (deg)", "y angle (deg)", "z angle (deg)"} <= set(texts)
    assert rows[2].spin.value() == pytest.approx(20.0, abs=0.01)  # the example's 20 degree tilt

    type_spin(qtbot, rows[0].spin, "30")
    qtbot.waitUntil(lambda: panel.snapshot.status.startswith("Posed top"), timeout=5000)
    quat = np.asarray(panel.snapshot.q[:4])
    assert np.linalg.norm(quat) == pytest.approx(1.0, abs=1e-12)
    from app.widgets.joint_sliders import quaternion_to_xyz_degrees

    assert quaternion_to_xyz_degrees(quat) == pytest.approx([30.0, 0.0, 20.0], abs=1e-6)

    # Dragging a slider with the mouse keeps the quaternion a unit one.
    slider = rows[1].slider
    start = handle_center(slider)
    QTest.mousePress(slider, Qt.MouseButton.LeftButton, pos=start)
    for dx in (5, 10, 20, 30):
        QTest.mouseMove(slider, start + QPoint(dx, 0))
        qtbot.wait(10)
    QTest.mouseRelease(slider, Qt.MouseButton.LeftButton, pos=start + QPoint(30, 0))
    qtbot.waitUntil(
        lambda: abs(quaternion_to_xyz_degrees(panel.snapshot.q[:4])[1]) > 1, timeout=5000
    )
    assert np.linalg.norm(panel.snapshot.q[:4]) == pytest.approx(1.0, abs=1e-12)


def test_cascade_survives_a_slider_drag(studio, qtbot):
    window = studio(example_path("double_pendulum"))
    panel = window.simulation
    activate(qtbot, window)
    window.docks["Stage inspector"].raise_()
    inspector = panel.stage_inspector
    slider = panel.sliders.rows[("upper", 0)].slider
    start = handle_center(slider)
    QTest.mousePress(slider, Qt.MouseButton.LeftButton, pos=start)
    for dx in range(4, 60, 4):
        QTest.mouseMove(slider, start + QPoint(dx, 0))
        qtbot.wait(15)
    QTest.mouseRelease(slider, Qt.MouseButton.LeftButton, pos=start + QPoint(60, 0))
    qtbot.waitUntil(lambda: panel.snapshot.status.startswith("Posed upper"), timeout=5000)
    qtbot.wait(300)  # every command of the drag applied and shown
    assert "setQ" in inspector.cascade_label.text()
    assert "Position" in inspector.cascade_label.text()
    assert panel.snapshot.cascade is not None and panel.snapshot.cascade.stages


def test_realize_buttons_stay_put_and_timings_follow_the_state(studio, qtbot):
    window = studio()
    panel = window.simulation
    activate(qtbot, window)
    window.docks["Stage inspector"].raise_()
    inspector = panel.stage_inspector
    type_spin(qtbot, panel.sliders.rows[("link", 0)].spin, "45")
    qtbot.waitUntil(lambda: panel.snapshot.stages.system_stage == Stage.Time, timeout=5000)

    pos = inspector.next_button.mapTo(inspector, inspector.next_button.rect().center())
    stages = []
    for _ in range(3):
        click_at(qtbot, inspector, pos)
        qtbot.waitUntil(
            lambda: panel.snapshot.stages.system_stage == Stage(Stage.Position + len(stages)),
            timeout=5000,
        )
        stages.append(panel.snapshot.stages.system_stage)
        qtbot.waitUntil(lambda: stages[-1].getName() in inspector.timings.text(), timeout=2000)
    assert stages == [Stage.Position, Stage.Velocity, Stage.Dynamics]

    to_pos = inspector.to_button.mapTo(inspector, inspector.to_button.rect().center())
    click_at(qtbot, inspector, to_pos)  # Realize to Acceleration
    qtbot.waitUntil(lambda: panel.snapshot.stages.system_stage == Stage.Acceleration, timeout=5000)
    qtbot.waitUntil(lambda: "Acceleration" in inspector.timings.text(), timeout=2000)

    # An edit invalidates Position and up: the realizations listed go with it.
    type_spin(qtbot, panel.sliders.rows[("link", 0)].spin, "30")
    qtbot.waitUntil(lambda: panel.snapshot.stages.system_stage == Stage.Time, timeout=5000)
    qtbot.waitUntil(lambda: "Acceleration" not in inspector.timings.text(), timeout=2000)
    assert "Realized" not in inspector.timings.text()

    click_at(qtbot, inspector, pos)  # Position again; running hides it (steps realize anew)
    qtbot.waitUntil(lambda: "Position" in inspector.timings.text(), timeout=5000)
    click_action(qtbot, window, window.sim_actions["play"])
    qtbot.waitUntil(lambda: panel.snapshot.running and panel.snapshot.time > 0.05, timeout=10000)
    qtbot.waitUntil(lambda: inspector.timings.text() == "", timeout=5000)


# -- bug 10: the accuracy box refuses what is not an accuracy ---------------------------------


def test_accuracy_box_refuses_text_and_out_of_range_values(studio, qtbot):
    window = studio()
    panel = window.simulation
    activate(qtbot, window)
    box = panel.accuracy_box
    edit = box.lineEdit()
    assert panel.session.settings.accuracy == 1e-3

    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, "abc")
    assert not any(c in box.currentText() for c in "abc"), "letters were accepted"
    assert "number" in box.message and "number" in window.statusBar().currentMessage()

    type_into(qtbot, edit, "5")
    assert box.currentText() == "1e-3"  # back to the last accepted value
    assert "'5'" in box.message and "'5'" in window.statusBar().currentMessage()
    assert "1e-12" in box.toolTip()
    qtbot.wait(100)
    assert panel.session.settings.accuracy == 1e-3

    type_into(qtbot, edit, "1e-6")
    assert box.message == ""
    qtbot.waitUntil(lambda: panel.session.settings.accuracy == 1e-6, timeout=5000)


# -- bug 10: pose-dependent default lengths, plot axes, layout under a scale factor -----------


def ctrl_click_tree(qtbot, tree, key: str, modifier=Qt.KeyboardModifier.ControlModifier) -> None:
    view = tree.view
    index = tree.model.index_of(key)
    view.scrollTo(index)
    pos = view.visualRect(index).center()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, modifier, pos)


@pytest.mark.parametrize(
    ("section", "type_name", "arg"),
    [("constraints", "Rod", "length"), ("forces", "TwoPointLinearSpring", "rest_length")],
)
def test_new_rod_and_spring_take_the_current_distance(studio, qtbot, section, type_name, arg):
    window = studio(example_path("double_pendulum"))
    editor = window.model_editor
    panel = window.simulation
    activate(qtbot, window)
    # Pose the model first: the length is taken at the pose shown, not the file's.
    type_spin(qtbot, panel.sliders.rows[("upper", 0)].spin, "-50")
    qtbot.waitUntil(lambda: panel.snapshot.status.startswith("Posed upper"), timeout=5000)
    ctrl_click_tree(qtbot, editor.tree, "body:upper", Qt.KeyboardModifier.NoModifier)
    ctrl_click_tree(qtbot, editor.tree, "body:lower")
    assert editor.tree.selected_bodies() == ["upper", "lower"]
    editor.tree.type_actions[(section, type_name)].trigger()  # as chosen from the + menu
    element = getattr(editor.document, section)[-1]
    assert (element.args["body1"], element.args["body2"]) == ("upper", "lower")
    point = "point" if section == "constraints" else "station"
    names = list(panel.snapshot.model.body_names)
    x_gb = panel.snapshot.x_gb
    a = x_gb[names.index("upper")][:3, 3]
    b = x_gb[names.index("lower")][:3, 3]
    assert element.args[f"{point}1"] == (0.0, 0.0, 0.0)
    assert element.args[arg] == pytest.approx(float(np.linalg.norm(a - b)), abs=1e-9)

    # Between a body and Ground, the distance depends on the pose.
    activate(qtbot, window)
    editor.tree.view.setFocus()
    qtbot.keyClick(editor.tree.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert not getattr(editor.document, section)[-1:] or (
        getattr(editor.document, section)[-1].type != type_name
    )
    ctrl_click_tree(qtbot, editor.tree, "body:lower", Qt.KeyboardModifier.NoModifier)
    editor.tree.type_actions[(section, type_name)].trigger()
    element = getattr(editor.document, section)[-1]
    assert (element.args["body1"], element.args["body2"]) == ("lower", "Ground")
    expected = float(np.linalg.norm(panel.snapshot.x_gb[names.index("lower")][:3, 3]))
    assert element.args[arg] == pytest.approx(expected, abs=1e-9)
    assert abs(expected - 1.0) > 0.05  # not the old fixed 1 m
    click_action(qtbot, window, window.sim_actions["play"])
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.05 or bool(panel.snapshot.error), timeout=60000)
    assert not panel.snapshot.error


def test_plot_axes_start_over_after_reset_and_open(studio, qtbot):
    window = studio()
    panel = window.simulation
    plots = panel.plots
    qtbot.waitUntil(lambda: plots.buffer is not None, timeout=5000)
    click_action(qtbot, window, window.sim_actions["play"])
    qtbot.waitUntil(lambda: panel.snapshot.time > 1.5, timeout=15000)
    click_action(qtbot, window, window.sim_actions["pause"])
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    qtbot.waitUntil(lambda: plots.plot.plotItem.vb.viewRange()[0][1] > 1.2, timeout=5000)

    click_action(qtbot, window, window.sim_actions["reset"])
    qtbot.waitUntil(lambda: panel.snapshot.time == 0.0, timeout=5000)
    # the lone sample at t = 0: the time axis shows its first second, values ranged
    qtbot.waitUntil(
        lambda: (
            -0.05
            < plots.plot.plotItem.vb.viewRange()[0][0]
            < 0.0
            < 1.0
            < plots.plot.plotItem.vb.viewRange()[0][1]
            < 1.05
        ),
        timeout=5000,
    )
    assert plots.plot.plotItem.vb.autoRangeEnabled()[1]

    click_action(qtbot, window, window.sim_actions["play"])
    qtbot.waitUntil(lambda: panel.snapshot.time > 1.5, timeout=15000)
    qtbot.waitUntil(lambda: plots.plot.plotItem.vb.viewRange()[0][1] > 1.2, timeout=5000)
    assert all(plots.plot.plotItem.vb.autoRangeEnabled())
    window.model_editor.actions["new"].trigger()
    qtbot.waitUntil(lambda: plots.plot.plotItem.vb.viewRange()[0][1] < 1.05, timeout=5000)


SCALE_SCRIPT = """
import json, sys
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv)
from app.main_window import MainWindow
settings = QSettings(sys.argv[1], QSettings.Format.IniFormat)
first = MainWindow(settings=settings)
first.show(); app.processEvents()
first.resize(3000, 2000); app.processEvents()
saved = first.width()
first.close(); app.processEvents()
second = MainWindow(settings=settings)
second.show(); app.processEvents()
a = second.screen().availableGeometry(); f = second.frameGeometry()
print(json.dumps({"area": [a.x(), a.y(), a.width(), a.height()],
                  "frame": [f.x(), f.y(), f.width(), f.height()], "saved": saved}))
second.close()
"""


def test_restored_layout_fits_the_screen_under_a_scale_factor(tmp_path):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "QT_SCALE_FACTOR": "1.5", "PYTHONPATH": str(root)}
    result = subprocess.run(
        [sys.executable, "-c", SCALE_SCRIPT, str(tmp_path / "layout.ini")],
        env=env,
        cwd=root,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout.strip().splitlines()[-1])
    ax, ay, aw, ah = out["area"]
    fx, fy, fw, fh = out["frame"]
    assert out["saved"] > aw  # the saved layout was larger than the screen
    assert ax <= fx and fx + fw <= ax + aw
    assert ay <= fy and fy + fh <= ay + ah


# -- examples -----------------------------------------------------------------------------------


def test_spinning_top_is_a_fast_striped_top():
    from app.document import model_io

    doc = model_io.load(example_path("spinning_top"))
    top = doc.body("top")
    m, h, g = top.mass, top.com[1], 9.81
    i3 = top.inertia[1]  # about the axis through Bo = the axis through the centre
    i1 = top.inertia[0]  # across the axis, about the pivot Bo
    threshold = math.sqrt(4 * i1 * m * g * h) / i3
    spin = float(np.linalg.norm(top.u))
    assert 3.0 <= spin / threshold <= 4.0
    off_axis = [
        g for g in top.geometry if g.kind == "brick" and math.hypot(g.X.p[0], g.X.p[2]) > 0.05
    ]
    assert off_axis, "no stripe off the spin axis"


def test_gimbal_lock_example_opens_with_its_rates_plotted(studio, qtbot):
    window = studio()
    editor = window.model_editor
    editor.examples_menu.actions()[
        [a.objectName() for a in editor.examples_menu.actions()].index("example_gimbal_lock")
    ].trigger()
    plots = window.simulation.plots
    qtbot.waitUntil(
        lambda: plots.buffer is not None and "u[0] gimbal_body.u0" in plots.buffer.columns,
        timeout=10000,
    )
    qtbot.waitUntil(lambda: "u[0] gimbal_body.u0" in plots.checked(), timeout=5000)
    checked = plots.checked()
    assert {f"gimbal_body.u{k}" for k in range(3)} <= {c.split(" ")[1] for c in checked}
    assert not [c for c in checked if c.startswith("udot")]


def test_mobilizer_options_show_units_and_take_degrees(studio, qtbot):
    window = studio()
    editor = window.model_editor
    activate(qtbot, window)
    editor.tree.select_body("link")
    combo = editor.properties.field("mobilizer")
    combo.setFocus()
    qtbot.keyClicks(combo, "SphericalC")
    body = editor.document.body
    qtbot.waitUntil(lambda: body("link").mobilizer == "SphericalCoords", timeout=5000)
    key = "mobilizer_params.azimuth_offset"
    qtbot.waitUntil(lambda: key in editor.properties.fields, timeout=2000)
    form = editor.properties
    texts = [w.text() for w in form.findChildren(type(window.time_label))]
    assert "azimuth_offset (deg)" in texts and "radial_axis (x or z)" in texts
    assert "q (deg, deg, m)" in texts and "u (deg/s, deg/s, m/s)" in texts
    type_into(qtbot, form.field("mobilizer_params.azimuth_offset"), "90")
    params = editor.document.body("link").mobilizer_params
    assert params["azimuth_offset"] == pytest.approx(math.pi / 2)


def test_free_joint_gets_angle_and_position_rows(studio, qtbot):
    window = studio(example_path("ragdoll"))
    panel = window.simulation
    sliders = panel.sliders
    activate(qtbot, window)
    assert [("pelvis", a) in sliders.euler_rows for a in range(3)] == [True] * 3
    assert [k for k in sliders.rows if k[0] == "pelvis"] == [("pelvis", k) for k in (4, 5, 6)]
    assert all(sliders.rows[("pelvis", k)].spin.suffix().strip() == "m" for k in (4, 5, 6))
    y_before = float(panel.snapshot.q[sliders._global_index[("pelvis", 5)]])
    assert sliders.rows[("pelvis", 5)].spin.value() == pytest.approx(y_before, abs=1e-4)

    type_spin(qtbot, sliders.euler_rows[("pelvis", 2)].spin, "45")
    qtbot.waitUntil(lambda: panel.snapshot.status.startswith("Posed pelvis"), timeout=5000)
    idx = [sliders._global_index[("pelvis", k)] for k in range(4)]
    quat = np.asarray([panel.snapshot.q[i] for i in idx])
    assert np.linalg.norm(quat) == pytest.approx(1.0, abs=1e-12)
    from app.widgets.joint_sliders import quaternion_to_xyz_degrees

    assert quaternion_to_xyz_degrees(quat)[2] == pytest.approx(45.0, abs=1e-6)
    # the position is untouched
    assert panel.snapshot.q[sliders._global_index[("pelvis", 5)]] == pytest.approx(y_before)
