"""GUI fixes from the second hands-on pass, each driven by real input events."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from app.main_window import MainWindow
from engine import Stage
from tests.app.sim_models import chain
from tests.app.window_activation import activate

pytestmark = pytest.mark.gui


@pytest.fixture
def studio(qtbot, qsettings):
    """A shown window simulating ``built``, closed at teardown."""
    windows = []

    def make(built):
        window = MainWindow(settings=qsettings, restore_layout=False)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        window.simulation.load_built(built)
        qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=10000)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()
    assert not [t for t in threading.enumerate() if t.name == "mbstudio-simulation"]


def test_realize_buttons_are_disabled_where_they_cannot_act(studio, qtbot):
    window = studio(chain(2))
    panel = window.simulation
    inspector = panel.stage_inspector
    window.docks["Stage inspector"].raise_()
    # Realize to Report with the target box and the button, as a user would.
    qtbot.waitUntil(lambda: "stage:" in inspector.summary.text(), timeout=5000)
    if panel.snapshot.stages.system_stage < Stage.Report:
        inspector.target.setFocus()
        qtbot.keyClick(inspector.target, Qt.Key.Key_End)  # the last entry: Report
        assert inspector.target.currentText() == "Report"
        qtbot.mouseClick(inspector.to_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.snapshot.stages.system_stage == Stage.Report, timeout=5000)
    qtbot.waitUntil(lambda: "Report" in inspector.summary.text(), timeout=5000)
    assert not inspector.next_button.isEnabled()
    assert "already at Report" in inspector.next_button.toolTip()
    assert not inspector.to_button.isEnabled()  # nothing is above Report
    assert "already at Report" in inspector.to_button.toolTip()

    # Typing a new angle drops the State to Time: both buttons can act again.
    spin = panel.sliders.rows[("link1", 0)].spin
    spin.setFocus()
    qtbot.keyClick(spin, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(spin, "30")
    qtbot.keyClick(spin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: panel.snapshot.stages.system_stage == Stage.Time, timeout=5000)
    qtbot.waitUntil(inspector.next_button.isEnabled, timeout=5000)
    assert inspector.to_button.isEnabled()
    assert "already" not in inspector.next_button.toolTip()
    qtbot.keyClick(inspector.target, Qt.Key.Key_Up)  # Acceleration
    qtbot.mouseClick(inspector.to_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.snapshot.stages.system_stage == Stage.Acceleration, timeout=5000)
    qtbot.waitUntil(lambda: not inspector.to_button.isEnabled(), timeout=5000)
    assert inspector.next_button.isEnabled()  # Report is still ahead


def test_status_bar_shows_no_frame_rate_while_paused(studio, qtbot):
    window = studio(chain(2))
    panel = window.simulation
    label = panel.fps_label
    qtbot.wait(1300)  # past a frame-rate period, paused
    assert not any(c.isdigit() for c in label.text()), label.text()
    activate(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_F5)
    qtbot.waitUntil(lambda: panel.snapshot.running, timeout=5000)
    qtbot.waitUntil(lambda: any(c.isdigit() for c in label.text()), timeout=5000)
    qtbot.keyClick(window, Qt.Key.Key_F5, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    qtbot.waitUntil(lambda: "paused" in label.text(), timeout=5000)


def click_tree_body(qtbot, window, name: str) -> None:
    """Click body ``name``'s row in the model tree."""
    tree = window.model_editor.tree
    index = tree.model.index_of(f"body:{name}")
    tree.view.scrollTo(index)
    rect = tree.view.visualRect(index)
    qtbot.mouseClick(tree.view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: tree.selected_bodies() == [name], timeout=5000)


def test_plots_say_why_a_welded_body_lists_nothing(qtbot, qsettings):
    from app.document.examples import example_path

    window = MainWindow(settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    try:
        window.model_editor.open_path(example_path("molecule"), as_example=True, modal=False)
        panel = window.simulation
        qtbot.waitUntil(
            lambda: panel.snapshot is not None and panel.snapshot.model is not None,
            timeout=10000,
        )
        plots = panel.plots
        qtbot.waitUntil(lambda: plots.buffer is not None, timeout=5000)
        click_tree_body(qtbot, window, "C2")  # a free body: its q, u, udot are listed
        qtbot.waitUntil(lambda: len(plots.listed()) > 0, timeout=5000)
        assert not plots.empty_hint.isVisible()
        click_tree_body(qtbot, window, "H1_C1")  # welded to C1: nothing of its own
        qtbot.waitUntil(lambda: plots.filter.text() == " H1_C1.", timeout=5000)
        assert plots.listed() == []
        assert plots.empty_hint.isVisible()
        assert "H1_C1" in plots.empty_hint.text() and "welded" in plots.empty_hint.text()
        plots.filter.setFocus()
        qtbot.keyClick(plots.filter, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClicks(plots.filter, "zzz")  # typed over the selection
        assert "zzz" in plots.empty_hint.text()
        qtbot.keyClick(plots.filter, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        qtbot.keyClick(plots.filter, Qt.Key.Key_Backspace)
        assert not plots.empty_hint.isVisible()
    finally:
        window.close()


def test_the_selected_body_is_highlighted_and_restored(studio, qtbot, read_render_window):
    from PySide6.QtTest import QTest

    from tests.app.test_handson_pass import any_body_pixel

    window = studio(chain(2))
    panel = window.simulation
    qtbot.waitUntil(lambda: panel.snapshot.x_gb is not None, timeout=5000)
    qtbot.wait(200)
    widget = window.viewport.interactor_widget
    p1 = any_body_pixel(window, 1)
    p2 = any_body_pixel(window, 2)

    def colour(point):
        window.viewport.scene.render()
        img = read_render_window(window.viewport.render_window)
        return img[point.y(), point.x()].astype(int)  # row 0 at the top

    before = colour(p1)
    assert before[0] > 150 and before[1] < 90, before  # the red ball
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, p1)
    qtbot.waitUntil(lambda: panel.selected_body == "link1", timeout=5000)
    qtbot.waitUntil(lambda: colour(p1)[1] > before[1] + 50, timeout=5000)  # tinted yellow
    assert colour(p2)[1] < 90  # the other ball is not
    QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, p2)
    qtbot.waitUntil(lambda: panel.selected_body == "link2", timeout=5000)
    qtbot.waitUntil(lambda: colour(p2)[1] > 120, timeout=5000)
    qtbot.waitUntil(lambda: abs(colour(p1) - before).max() < 20, timeout=5000)  # restored


def test_default_toolbars_fit_1280_px(qtbot, qsettings):
    from PySide6.QtWidgets import QToolBar

    from app.main_window import DEFAULT_SIZE

    window = MainWindow(settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.resize(*DEFAULT_SIZE)
    window.show()
    qtbot.waitExposed(window)
    qtbot.wait(100)
    assert window.width() == 1280
    try:
        for toolbar in window.findChildren(QToolBar):
            if not toolbar.isVisible():
                continue
            chevron = toolbar.findChild(QWidget, "qt_toolbar_ext_button")
            assert chevron is None or not chevron.isVisible(), toolbar.windowTitle()
            for action in toolbar.actions():
                if action.isSeparator() or not action.isVisible():
                    continue
                widget = toolbar.widgetForAction(action)
                assert widget is not None and widget.isVisible(), (
                    f"{toolbar.windowTitle()}: {action.text()!r} hides behind the chevron"
                )
        # Follow, on the View toolbar, takes a click where it is drawn.
        follow = window.findChild(QToolBar, "viewToolbar")
        action = next(a for a in follow.actions() if "Follow" in a.text().replace("&", ""))
        button = follow.widgetForAction(action)
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton, pos=button.rect().center())
        assert "Select a body to follow" in window.statusBar().currentMessage()
    finally:
        window.close()
