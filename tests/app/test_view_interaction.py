"""The 3-D view under real mouse and key input (QTest events on the render widget at the pixel
where a body is drawn): click to select, Ctrl+drag to pull or turn a body (running and paused),
the camera re-aimed at every new model, camera presets and keys, VTK's own keys off, Space,
Backspace, F11 and the Help > Keyboard and mouse dialog."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.main_window import MainWindow
from tests.app.sim_models import chain
from tests.app.window_activation import activate

pytestmark = pytest.mark.gui

CTRL = Qt.KeyboardModifier.ControlModifier
LEFT = Qt.MouseButton.LeftButton
RIGHT = Qt.MouseButton.RightButton


def worker_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "mbstudio-simulation" and t.is_alive()]


@pytest.fixture
def studio(qtbot, qsettings):
    """A shown, active window (simulating ``built`` if given), closed at teardown."""
    windows = []

    def make(built=None):
        window = MainWindow(settings=qsettings, restore_layout=False)
        window.model_editor.interactive = False
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        if built is not None:
            window.simulation.load_built(built)
            qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=10000)
        # activated after the load: a slow load shows a progress dialog, which takes the
        # activation, and with no window manager under Xvfb nothing may give it back
        activate(qtbot, window)
        qtbot.wait(100)  # the docks settle, the camera is aimed
        activate(qtbot, window)  # a focus change the X server had queued may have arrived
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()
    assert not worker_threads()


def widget_point(window, display_xy) -> QPoint:
    """The render widget's Qt pixel (top-left origin) of a VTK display point."""
    widget = window.viewport.interactor_widget
    x, y = display_xy
    return QPoint(round(x), widget.height() - 1 - round(y))


def body_pixel(window, b: int) -> QPoint:
    """A pixel where body ``b`` is drawn (its origin, which is inside the test models' balls),
    checked with the scene's picker."""
    snap = window.simulation.snapshot
    scene = window.viewport.scene
    scene.render()
    xy = scene.world_to_display(snap.x_gb[b][:3, 3])
    hit = scene.pick(*xy)
    assert hit is not None and hit.body_id == b, f"body {b} is not drawn at {xy}"
    return widget_point(window, xy)


def click(window, point: QPoint, button=LEFT, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    QTest.mouseClick(window.viewport.interactor_widget, button, modifier, point)


def drag(qtbot, window, start: QPoint, end: QPoint, button=LEFT, modifier=CTRL, steps=8, hold=0):
    """Press at ``start``, move to ``end`` in steps, optionally wait ``hold`` ms, release."""
    widget = window.viewport.interactor_widget
    QTest.mousePress(widget, button, modifier, start)
    for k in range(1, steps + 1):
        p = start + (end - start) * (k / steps)
        QTest.mouseMove(widget, p)
        qtbot.wait(15)
    if hold:
        qtbot.wait(hold)
    QTest.mouseRelease(widget, button, modifier, end)


def read_view(window) -> np.ndarray:
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkRenderingCore import vtkWindowToImageFilter

    window.viewport.scene.render()
    grabber = vtkWindowToImageFilter()
    grabber.SetInput(window.viewport.render_window)
    grabber.ReadFrontBufferOff()
    grabber.SetInputBufferTypeToRGB()
    grabber.Update()
    image = grabber.GetOutput()
    w, h, _ = image.GetDimensions()
    return vtk_to_numpy(image.GetPointData().GetScalars()).reshape(h, w, -1)[::-1, :, :3].copy()


def yellow(img: np.ndarray) -> np.ndarray:
    return (img[..., 0] > 200) & (img[..., 1] > 170) & (img[..., 2] < 60)


def ball_position(window, b: int = 1) -> np.ndarray:
    return np.array(window.simulation.snapshot.x_gb[b][:3, 3])


# -- picking ---------------------------------------------------------------------------------------


def test_click_on_a_body_selects_it_in_tree_status_and_view(studio, qtbot):
    from app.document.examples import default_example_path

    window = studio()
    window.model_editor.open_path(default_example_path(), as_example=True, modal=False)
    panel = window.simulation
    qtbot.waitUntil(lambda: panel.snapshot is not None and panel.snapshot.model is not None)
    qtbot.wait(200)
    names = list(panel.snapshot.model.body_names)
    b = 1
    point = None
    scene = window.viewport.scene
    for item in scene._static:  # noqa: SLF001  (a decoration drawn on body 1)
        if item.body_id == b and item.actor is not None and item.kind == "sphere":
            bounds = np.array(item.actor.GetBounds()).reshape(3, 2).mean(axis=1)
            xy = scene.world_to_display(bounds)
            hit = scene.pick(*xy)
            if hit is not None and hit.body_id == b:
                point = widget_point(window, xy)
                break
    assert point is not None, "no pickable sphere on the first body"
    yellow_before = yellow(read_view(window)).sum()
    click(window, point)
    assert panel.selected_body == names[b]
    assert window.model_editor.tree.selected_bodies() == [names[b]]
    assert names[b] in window.statusBar().currentMessage()
    qtbot.wait(50)
    assert yellow(read_view(window)).sum() > yellow_before + 10, "no selection triad drawn"


def test_left_drag_rotates_the_camera_and_selects_nothing(studio, qtbot):
    window = studio(chain(1, q0=0.0))
    camera = window.viewport.renderer.GetActiveCamera()
    before = np.array(camera.GetPosition())
    start = body_pixel(window, 1)
    drag(qtbot, window, start, start + QPoint(120, 40), modifier=Qt.KeyboardModifier.NoModifier)
    assert np.linalg.norm(np.array(camera.GetPosition()) - before) > 0.1
    assert window.simulation.selected_body is None


# -- pulling and turning bodies -------------------------------------------------------------


def test_ctrl_drag_pulls_a_running_body_toward_the_mouse(studio, qtbot):
    window = studio(chain(1, q0=0.0))  # hangs at rest under its pivot
    panel = window.simulation
    start = body_pixel(window, 1)
    panel.play()
    qtbot.waitUntil(lambda: panel.snapshot.running and panel.snapshot.time > 0.1, timeout=10000)
    widget = window.viewport.interactor_widget
    end = start + QPoint(int(0.3 * widget.width()), 0)  # to the right on the screen
    drag(qtbot, window, start, end, hold=0)
    # Still pulling? (released above): do it again and hold it while the body follows,
    # grabbing the ball where it is drawn now (the first pull may have moved it).
    qtbot.wait(50)
    window.viewport.render_window.Render()
    start = body_pixel(window, 1)
    QTest.mousePress(widget, LEFT, CTRL, start)
    for k in range(1, 9):
        QTest.mouseMove(widget, start + (end - start) * (k / 8))
        qtbot.wait(15)
    dragger = window.view_controls.dragger
    assert dragger.dragging and dragger.band_ends() is not None
    t0 = panel.snapshot.time
    qtbot.waitUntil(lambda: panel.snapshot.time > t0 + 1.0, timeout=30000)
    x_pulled = ball_position(window)[0]
    assert "Pulling" in panel.snapshot.status
    QTest.mouseRelease(widget, LEFT, CTRL, end)
    assert not dragger.dragging
    # The ball went right (the camera's right is +x here), a good part of the way.
    assert x_pulled > 0.3, x_pulled
    session = panel.session
    qtbot.waitUntil(lambda: session.built.pull_force.isDisabled(session._state), timeout=5000)  # noqa: SLF001


def test_ctrl_drag_while_paused_drags_the_pose(studio, qtbot):
    window = studio(chain(1, q0=0.0))
    panel = window.simulation
    start = body_pixel(window, 1)
    q_before = panel.snapshot.q.copy()
    widget = window.viewport.interactor_widget
    end = start + QPoint(int(0.25 * widget.width()), -int(0.1 * widget.height()))
    drag(qtbot, window, start, end)
    # swung counter-clockwise, to the right
    qtbot.waitUntil(lambda: panel.snapshot.q[0] > q_before[0] + 0.3, timeout=10000)
    assert not panel.snapshot.running and panel.snapshot.time == 0.0
    # The grabbed point went to the release pixel as near as the pin lets it.
    xy = widget_point(window, window.viewport.scene.world_to_display(ball_position(window)))
    before, after = (start - end).manhattanLength(), (xy - end).manhattanLength()
    assert after < 0.3 * before, (before, after)


def test_ctrl_right_drag_while_paused_turns_the_body_like_a_knob(studio, qtbot):
    window = studio(chain(1, q0=0.0))
    window.view_controls.actions["view_front"].trigger()  # looking along -z, the pin axis
    qtbot.wait(50)
    panel = window.simulation
    centre = body_pixel(window, 1)
    start = centre + QPoint(12, 0)
    end = centre + QPoint(0, -12)  # a quarter turn counter-clockwise on the screen
    widget = window.viewport.interactor_widget
    QTest.mousePress(widget, RIGHT, CTRL, start)
    for k in range(1, 9):
        a = 0.5 * np.pi * k / 8
        QTest.mouseMove(widget, centre + QPoint(round(12 * np.cos(a)), -round(12 * np.sin(a))))
        qtbot.wait(15)
    QTest.mouseRelease(widget, RIGHT, CTRL, end)
    # The last request is applied after the earlier ones (pixels round: a few degrees off).
    qtbot.waitUntil(lambda: abs(panel.snapshot.q[0] - np.pi / 2) < 0.08, timeout=10000)
    assert not panel.snapshot.running and panel.snapshot.time == 0.0


# -- the camera ----------------------------------------------------------------------------------


def bodies_inside_view(window) -> bool:
    snap = window.simulation.snapshot
    scene = window.viewport.scene
    scene.render()
    w, h = window.viewport.render_window.GetSize()
    for b in range(1, len(snap.x_gb)):
        x, y = scene.world_to_display(snap.x_gb[b][:3, 3])
        if not (0 <= x < w and 0 <= y < h):
            return False
    return True


def open_example(window, qtbot, key: str) -> None:
    menu = window.model_editor.examples_menu
    action = next((a for a in menu.actions() if a.objectName() == f"example_{key}"), None)
    assert action is not None, key
    action.trigger()
    panel = window.simulation
    qtbot.waitUntil(
        lambda: (
            panel.snapshot is not None
            and panel.snapshot.model is not None
            and len(panel.snapshot.x_gb) == len(panel.snapshot.model.body_names)
        ),
        timeout=20000,
    )
    qtbot.wait(150)


def test_camera_is_aimed_at_every_example_opened_and_after_new(studio, qtbot):
    window = studio()
    for key in ("double_pendulum", "chain50", "four_bar"):
        open_example(window, qtbot, key)
        assert bodies_inside_view(window), key
        # and they are not a dot: the bodies span a good part of the view
        snap = window.simulation.snapshot
        xy = np.array([window.viewport.scene.world_to_display(x[:3, 3]) for x in snap.x_gb[1:]])
        w, h = window.viewport.render_window.GetSize()
        span = max(np.ptp(xy[:, 0]) / w, np.ptp(xy[:, 1]) / h)
        assert span > 0.15, (key, span)
    # File > New, then Add body: the new body is in view too.
    camera = window.viewport.renderer.GetActiveCamera()
    camera.SetPosition(50.0, 50.0, 50.0)  # look somewhere else first
    window.model_editor.actions["new"].trigger()
    window.model_editor.add_body()
    panel = window.simulation
    qtbot.waitUntil(
        lambda: panel.snapshot is not None and len(panel.snapshot.x_gb) == 2, timeout=10000
    )
    qtbot.wait(150)
    assert bodies_inside_view(window)


def test_presets_honour_the_up_direction_and_zoom_to_fit_ignores_the_floor(studio, qtbot):
    from engine import ZAxis

    built = chain(1, q0=0.0)
    built.system.setUpDirection(ZAxis)
    window = studio(built)
    widget = window.viewport.interactor_widget
    camera = window.viewport.renderer.GetActiveCamera()
    QTest.keyClick(widget, Qt.Key.Key_7)  # top
    assert np.allclose(camera.GetDirectionOfProjection(), (0, 0, -1), atol=1e-6)
    QTest.keyClick(widget, Qt.Key.Key_1)  # front, with +Z up: looking along +Y
    assert np.allclose(camera.GetDirectionOfProjection(), (0, 1, 0), atol=1e-6)
    assert np.allclose(camera.GetViewUp(), (0, 0, 1), atol=1e-6)
    QTest.keyClick(widget, Qt.Key.Key_0)  # isometric: from front, right and above
    d = np.array(camera.GetDirectionOfProjection())
    assert d[2] < -0.5 and d[1] > 0.5 and d[0] < -0.5
    camera.SetPosition(500.0, 400.0, 300.0)
    QTest.keyClick(widget, Qt.Key.Key_F)  # zoom to fit: close to the one body again
    assert camera.GetDistance() < 10.0
    assert bodies_inside_view(window)


def test_follow_selected_body_keeps_it_centred(studio, qtbot):
    window = studio(chain(1, q0=1.2))
    panel = window.simulation
    click(window, body_pixel(window, 1))
    assert panel.selected_body == "link1"
    QTest.keyClick(window.viewport.interactor_widget, Qt.Key.Key_T)
    assert window.view_controls.actions["follow"].isChecked()
    panel.play()
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.4, timeout=10000)
    panel.pause()
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    qtbot.wait(50)
    focal = np.array(window.viewport.renderer.GetActiveCamera().GetFocalPoint())
    assert np.linalg.norm(focal - ball_position(window)) < 1e-6


# -- keys ----------------------------------------------------------------------------------------


def test_vtk_key_bindings_do_nothing(studio, qtbot):
    window = studio(chain(1, q0=0.5))
    widget = window.viewport.interactor_widget
    widget.setFocus()
    camera = window.viewport.renderer.GetActiveCamera()
    pose = (camera.GetPosition(), camera.GetFocalPoint())
    before = read_view(window)
    for key in "wsrpejuiWSRPEJ":
        QTest.keyClick(widget, key)
    qtbot.wait(50)
    assert window.isVisible()  # e and q would quit
    assert (camera.GetPosition(), camera.GetFocalPoint()) == pose
    assert not window.viewport.render_window.GetStereoRender()
    assert np.array_equal(read_view(window), before)


def test_space_plays_and_pauses_backspace_resets_f11_full_screen(studio, qtbot):
    window = studio(chain(1, q0=1.0))
    panel = window.simulation
    widget = window.viewport.interactor_widget
    QTest.keyClick(widget, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: panel.snapshot.running and panel.snapshot.time > 0.1, timeout=10000)
    activate(qtbot, window)
    QTest.keyClick(window, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    activate(qtbot, window)
    QTest.keyClick(widget, Qt.Key.Key_Backspace)
    qtbot.waitUntil(lambda: panel.snapshot.time == 0.0, timeout=5000)
    QTest.keyClick(widget, Qt.Key.Key_F11)
    qtbot.waitUntil(window.isFullScreen, timeout=5000)
    QTest.keyClick(widget, Qt.Key.Key_F11)
    qtbot.waitUntil(lambda: not window.isFullScreen(), timeout=5000)
    QTest.keyClick(widget, Qt.Key.Key_F11)
    qtbot.waitUntil(window.isFullScreen, timeout=5000)
    QTest.keyClick(widget, Qt.Key.Key_Escape)  # Esc leaves full screen too
    qtbot.waitUntil(lambda: not window.isFullScreen(), timeout=5000)
    assert not window.view_controls.actions["leave_full_screen"].isEnabled()


def test_help_lists_every_mouse_and_key_binding(studio, qtbot):
    window = studio(chain(1))
    QTest.keyClick(window.viewport.interactor_widget, Qt.Key.Key_F1)
    dialog = window.view_controls.help_dialog
    qtbot.waitExposed(dialog)
    from PySide6.QtWidgets import QTableWidget

    table = dialog.findChild(QTableWidget, "keyHelpTable")
    rows = {table.item(r, 0).text(): table.item(r, 1).text() for r in range(table.rowCount())}
    text = "\n".join(f"{k}: {v}" for k, v in rows.items())
    for needle in (
        "Ctrl + left drag on a body",
        "Ctrl + right drag on a body",
        "Left click on a body",
        "Space",
        "Backspace",
        "F11",
        "F5",
        "F1",
        "Ctrl+1",
        "Zoom to fit",
        "Follow selected body",
    ):
        assert needle in text, needle
    dialog.close()


def test_text_fields_keep_their_keys(studio, qtbot):
    window = studio(chain(1, q0=0.5))
    camera = window.viewport.renderer.GetActiveCamera()
    pose = (camera.GetPosition(), camera.GetViewUp())
    from PySide6.QtWidgets import QLineEdit

    plots = window.simulation.plots
    field = next(e for e in plots.findChildren(QLineEdit) if e.isVisible())  # the filter
    # keyboard focus needs the window active: with no window manager under Xvfb a window of
    # an earlier test may still hold the activation, so take it back, as a click would
    window.activateWindow()
    if QApplication.activeWindow() is not window:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            QApplication.setActiveWindow(window)
    QTest.mouseClick(field, Qt.MouseButton.LeftButton)
    field.setFocus()
    qtbot.waitUntil(field.hasFocus, timeout=10000)
    for key in (Qt.Key.Key_7, Qt.Key.Key_F, Qt.Key.Key_Backspace, Qt.Key.Key_3, Qt.Key.Key_Space):
        QTest.keyClick(field, key)
    assert field.text() == "73 "  # typed there: no camera preset, zoom, reset or play
    assert (camera.GetPosition(), camera.GetViewUp()) == pose
    assert not window.simulation.session.running


def test_play_never_moves_the_camera_and_f_brings_the_bodies_back(studio, qtbot):
    """A chain released from the horizontal swings below the box it was framed in when it was
    opened: the camera stays where it is while it runs (as in MuJoCo's simulate); F (zoom to
    fit) frames every body again."""
    window = studio(chain(3, q0=0.5 * np.pi))
    panel = window.simulation
    widget = window.viewport.interactor_widget
    scene = window.viewport.scene
    camera = window.viewport.renderer.GetActiveCamera()

    def inside(snap) -> bool:
        scene.render()
        w, h = widget.width(), widget.height()
        points = [scene.world_to_display(snap.x_gb[b][:3, 3]) for b in range(1, 4)]
        return all(0 <= x < w and 0 <= y < h for x, y in points)

    def pose():
        return (camera.GetPosition(), camera.GetFocalPoint(), camera.GetViewUp())

    assert inside(panel.snapshot)
    before = pose()
    QTest.keyClick(widget, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.9, timeout=30000)
    QTest.keyClick(widget, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    qtbot.wait(100)
    snap = panel.snapshot
    assert min(snap.x_gb[b][1, 3] for b in range(1, 4)) < 2.0  # it swung well below y = 3.5
    assert pose() == before
    QTest.keyClick(widget, Qt.Key.Key_F)
    qtbot.waitUntil(lambda: pose() != before, timeout=5000)
    assert inside(panel.snapshot)


def test_a_selected_bodys_plot_filter_does_not_empty_the_next_models_list(studio, qtbot):
    window = studio()
    open_example(window, qtbot, "spinning_top")
    editor = window.model_editor
    view = editor.tree.view
    rect = view.visualRect(editor.tree.model.index_of("body:top"))
    QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    plots = window.simulation.plots
    qtbot.waitUntil(lambda: plots.filter.text() == " top.", timeout=5000)
    listed = plots.quantity_model.listed()
    assert listed and all(" top." in name for name in listed)
    open_example(window, qtbot, "double_pendulum")
    qtbot.waitUntil(lambda: plots.filter.text() == "", timeout=5000)
    assert "q[0] upper.q0" in plots.quantity_model.listed()
