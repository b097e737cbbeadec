"""A newcomer's third pass over the studio, by real input events on the real widgets: the 3-D
view is the largest area of a 1024 x 768 window, Esc stops a Step in progress, the stage
inspector says what an edit of the initial state did, the model tree keeps a name column width
the user dragged, and Play leaves the camera where it is."""

from __future__ import annotations

import math
import threading
import time

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QTabBar

from app.document.examples import example_path
from app.main_window import MainWindow
from tests.app.window_activation import activate

pytestmark = pytest.mark.gui


def worker_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "mbstudio-simulation" and t.is_alive()]


@pytest.fixture
def studio(qtbot, qsettings):
    """studio(path, size): a shown, active window on the model file ``path`` (default layout,
    resized to ``size`` before it is shown), closed at teardown."""
    windows = []

    def make(path, size=None, timeout=30000):
        window = MainWindow(model_path=path, settings=qsettings, restore_layout=False)
        window.model_editor.interactive = False
        qtbot.addWidget(window)
        if size is not None:
            window.resize(*size)
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=timeout)
        activate(qtbot, window)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()
    assert not worker_threads()


def click(qtbot, widget, pos: QPoint | None = None) -> None:
    qtbot.mouseClick(widget, Qt.MouseButton.LeftButton, pos=pos or widget.rect().center())


def click_action(qtbot, window, action) -> None:
    click(qtbot, window.toolbar.widgetForAction(action))


# -- 1: at 1024 x 768 the 3-D view is the largest area ------------------------------------------


def test_the_view_is_the_largest_area_of_a_1024_by_768_window(studio, qtbot):
    window = studio(example_path("double_pendulum"), size=(1024, 768))
    assert (window.width(), window.height()) == (1024, 768)
    qtbot.wait(100)
    view = window.viewport
    assert view.width() >= window.width() // 2, (view.width(), window.width())
    assert view.height() >= window.height() // 2, (view.height(), window.height())
    for dock in window.docks.values():  # no dock is larger than the view
        if dock.isVisible() and not dock.visibleRegion().isEmpty():
            assert dock.width() * dock.height() < view.width() * view.height(), dock.objectName()
    # The stage inspector is one click away, a tab below the view, its table in view.
    bars = [b for b in window.findChildren(QTabBar) if b.isVisible()]
    tab = next((b, i) for b in bars for i in range(b.count()) if b.tabText(i) == "Stage inspector")
    click(qtbot, tab[0], tab[0].tabRect(tab[1]).center())
    table = window.simulation.stage_inspector.table
    qtbot.waitUntil(lambda: not table.visibleRegion().isEmpty(), timeout=5000)
    assert table.rowCount() >= 1
    assert window.viewport.isVisible()
    assert view.height() >= window.height() // 2


def test_a_1280_wide_window_keeps_the_inspectors_beside_the_view(studio, qtbot):
    window = studio(example_path("double_pendulum"), size=(1280, 1024))
    qtbot.wait(100)
    stage = window.docks["Stage inspector"]
    assert window.dockWidgetArea(stage) == Qt.DockWidgetArea.RightDockWidgetArea
    assert window.viewport.width() >= 0.4 * window.width()


# -- 2: Esc stops a Step in progress ------------------------------------------------------------


def test_esc_drops_a_step_in_progress_and_stops_a_run(studio, qtbot, tmp_path):
    from tests.app.test_pause_long_step import _inside_a_step, _worker_idle
    from tests.app.test_simulate_reliability import _ladder

    window = studio(_ladder(tmp_path, 600, both=True), timeout=60000)
    session = window.simulation.session
    view = window.viewport.interactor_widget
    click_action(qtbot, window, window.sim_actions["step"])
    qtbot.waitUntil(lambda: _inside_a_step(session), timeout=60000)
    qtbot.wait(300)  # well inside the step, which takes seconds
    integ = session._stepper.getIntegrator()
    assert _inside_a_step(session) and integ.getNumStepsTaken() == 0
    activate(qtbot, window)
    pressed = time.monotonic()
    QTest.keyClick(view, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: _worker_idle(session) and not session.stepping, timeout=30000)
    assert time.monotonic() - pressed < 2.0  # (within a second on an idle machine)
    assert integ.getNumStepsTaken() == 0  # the step in progress was dropped
    assert session._state.getTime() == 0.0
    qtbot.waitUntil(window.sim_actions["step"].isEnabled, timeout=5000)
    assert not window.isFullScreen()


def test_esc_pauses_play_and_leaves_full_screen_only_when_nothing_runs(studio, qtbot):
    window = studio(example_path("pendulum"))
    panel = window.simulation
    view = window.viewport.interactor_widget
    QTest.keyClick(view, Qt.Key.Key_F11)
    qtbot.waitUntil(window.isFullScreen, timeout=5000)
    click_action(qtbot, window, window.sim_actions["play"])
    qtbot.waitUntil(lambda: panel.snapshot.running and panel.snapshot.time > 0.05, timeout=10000)
    activate(qtbot, window)
    QTest.keyClick(view, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    assert window.isFullScreen()  # the first Esc stopped the run only
    QTest.keyClick(view, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not window.isFullScreen(), timeout=5000)
    assert not panel.snapshot.running


# -- 3: the stage inspector says what an edit of the initial state did --------------------------


def type_into(qtbot, field, text: str) -> None:
    click(qtbot, field)
    field.selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def test_an_initial_state_edit_at_t0_is_named_in_the_stage_inspector(studio, qtbot):
    window = studio(example_path("pendulum"))
    panel = window.simulation
    editor = window.model_editor
    window.docks["Stage inspector"].raise_()
    inspector = panel.stage_inspector
    tree = editor.tree
    rect = tree.view.visualRect(tree.model.index_of("body:link"))
    click(qtbot, tree.view.viewport(), rect.center())
    form = editor.properties
    qtbot.waitUntil(
        lambda: form.field("q") is not None and form.field("q").isVisible(), timeout=5000
    )
    type_into(qtbot, form.field("q"), "90")
    qtbot.waitUntil(
        lambda: panel.snapshot.q[0] == pytest.approx(math.pi / 2) and panel.snapshot.time == 0,
        timeout=5000,
    )
    qtbot.wait(300)  # the inspector shows the latest snapshot
    text = inspector.cascade_label.text()
    assert "restored" not in text, text
    assert "initial state" in text and "edited" in text, text
    assert "realized" in text, text


# -- 4: the model tree keeps a name column width the user dragged -------------------------------


def test_the_model_tree_keeps_the_name_width_the_user_dragged(studio, qtbot):
    window = studio(example_path("ragdoll"))
    tree = window.model_editor.tree
    view = tree.view
    header = view.header()
    qtbot.waitUntil(lambda: tree.model.index_of("body:pelvis").isValid(), timeout=10000)
    fitted = header.sectionSize(0)
    # drag the divider between the Model and Type columns 40 px to the left
    y = header.height() // 2
    start = QPoint(header.sectionViewportPosition(0) + fitted - 1, y)
    target = start - QPoint(40, 0)
    hv = header.viewport()
    QTest.mousePress(hv, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for dx in range(4, 44, 4):
        QTest.mouseMove(hv, start - QPoint(dx, 0))
        qtbot.wait(10)
    QTest.mouseRelease(hv, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, target)
    chosen = header.sectionSize(0)
    assert chosen < fitted - 20, (chosen, fitted)

    # collapsing and expanding the rows (the vertical scroll bar goes and comes back: the
    # view's width changes), an added body and its undo leave it as it is
    assert view.verticalScrollBar().isVisible()
    ground = tree.model.index(0, 0)
    click(qtbot, view.viewport(), view.visualRect(ground).center())
    qtbot.keyClick(view, Qt.Key.Key_Left)
    qtbot.waitUntil(lambda: not view.verticalScrollBar().isVisible(), timeout=5000)
    qtbot.wait(50)
    assert header.sectionSize(0) == chosen
    qtbot.keyClick(view, Qt.Key.Key_Right)
    qtbot.waitUntil(lambda: view.verticalScrollBar().isVisible(), timeout=5000)
    qtbot.wait(50)
    assert header.sectionSize(0) == chosen
    click(qtbot, tree.add_body_button)
    qtbot.waitUntil(lambda: tree.model.index_of("body:body").isValid(), timeout=5000)
    assert header.sectionSize(0) == chosen
    activate(qtbot, window)
    qtbot.keyClick(view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not tree.model.index_of("body:body").isValid(), timeout=5000)
    assert header.sectionSize(0) == chosen


# -- 5: Play leaves the camera where it is --------------------------------------------------------


def test_play_leaves_the_camera_on_the_panda_where_it_was(studio, qtbot):
    window = studio(example_path("panda"), timeout=60000)
    panel = window.simulation
    qtbot.waitUntil(lambda: not window.viewport.drawing_in_steps(), timeout=30000)
    qtbot.wait(200)
    camera = window.viewport.renderer.GetActiveCamera()

    def pose():
        return (camera.GetPosition(), camera.GetFocalPoint(), camera.GetViewUp())

    before = pose()
    click_action(qtbot, window, window.sim_actions["play"])
    qtbot.waitUntil(lambda: panel.snapshot.running and panel.snapshot.time > 1.0, timeout=60000)
    click_action(qtbot, window, window.sim_actions["pause"])
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    moved = max(abs(a - b) for a, b in zip(panel.snapshot.x_gb[-1][:3, 3], [0, 0, 0], strict=True))
    assert moved > 0  # the hand is somewhere (the arm is drawn and placed)
    assert pose() == before


# -- the pass over the examples: narrow forms fit their docks -----------------------------------


def test_at_1024_the_properties_form_and_joint_sliders_fit_their_docks(studio, qtbot):
    """The ragdoll at 1024 x 768: a click on a body in the tree shows its Properties form, whose
    fields stay inside the dock (a field too wide beside its label goes below it) with no
    sideways scrolling, and each Joints row has a slider one can drag (the spin box beside it
    was sized for values up to 1e9 and left the slider a few pixels)."""
    window = studio(example_path("ragdoll"), size=(1024, 768))
    tree = window.model_editor.tree
    view = tree.view
    index = tree.model.index_of("body:left_thigh")
    view.scrollTo(index)
    click(qtbot, view.viewport(), view.visualRect(index).center())
    form = window.model_editor.properties
    qtbot.waitUntil(
        lambda: form.field("q") is not None and form.field("q").isVisible(), timeout=5000
    )
    qtbot.wait(200)  # laid out
    scroll = form.scroll
    assert not scroll.horizontalScrollBar().isVisible()
    viewport = scroll.viewport()
    for key in ("name", "q"):
        field = form.field(key)
        right = field.mapTo(viewport, QPoint(field.width(), 0)).x()
        assert right <= viewport.width(), (key, right, viewport.width())
    # scroll the form down with the wheel-less way a newcomer uses: its scroll bar
    bar = scroll.verticalScrollBar()
    assert bar.isVisible()
    click(qtbot, bar, QPoint(bar.width() // 2, bar.height() - 5))  # a click below the handle
    qtbot.waitUntil(lambda: bar.value() > 0, timeout=2000)

    sliders = window.simulation.sliders
    assert not sliders._scroll.horizontalScrollBar().isVisible()
    row = sliders.euler_rows.get(("left_thigh", 0)) or next(iter(sliders.rows.values()))
    assert row.slider.width() >= 60, row.slider.width()


def test_bodies_that_leave_the_view_are_brought_back_by_one_click(studio, qtbot):
    """The ball of sliding_to_rolling rolls away along the floor, out of the view once the
    camera no longer follows it (the example follows it: a click on Follow turns that off).
    The camera stays; a button in the status bar says so, and a click on it frames every
    body again."""
    window = studio(example_path("sliding_to_rolling"))
    panel = window.simulation
    viewport = window.viewport
    button = viewport.out_of_view
    follow = window.view_controls.actions["follow"]
    qtbot.waitUntil(follow.isChecked, timeout=10000)
    click(qtbot, window.view_controls.toolbar.widgetForAction(follow))
    qtbot.waitUntil(lambda: not follow.isChecked(), timeout=5000)
    qtbot.wait(300)
    assert not button.isVisible()
    camera = viewport.renderer.GetActiveCamera()
    before = camera.GetPosition()
    click_action(qtbot, window, window.sim_actions["play"])
    qtbot.waitUntil(button.isVisible, timeout=30000)
    click_action(qtbot, window, window.sim_actions["pause"])
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    assert camera.GetPosition() == before
    assert not viewport.scene.bodies_in_view()
    click(qtbot, button)
    qtbot.waitUntil(lambda: not button.isVisible(), timeout=5000)
    assert camera.GetPosition() != before
    assert viewport.scene.bodies_in_view()


def test_a_pendulum_is_framed_with_the_room_it_swings_in(studio, qtbot):
    """The pendulum starts 60 degrees to one side: the camera, aimed when it is opened, frames
    the whole circle below the start height, so the swing to the other side stays in view
    without the camera moving."""
    window = studio(example_path("pendulum"))
    panel = window.simulation
    viewport = window.viewport
    qtbot.waitUntil(lambda: viewport._kept_camera is not None, timeout=10000)  # aimed
    qtbot.wait(300)
    camera = viewport.renderer.GetActiveCamera()
    before = camera.GetPosition()
    click_action(qtbot, window, window.sim_actions["play"])
    q0 = panel.snapshot.q[0]
    qtbot.waitUntil(lambda: panel.snapshot.q[0] < -0.9 * q0, timeout=30000)  # the far side
    click_action(qtbot, window, window.sim_actions["pause"])
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    qtbot.wait(300)
    assert viewport.scene.bodies_in_view()
    assert not viewport.out_of_view.isVisible()
    assert camera.GetPosition() == before
