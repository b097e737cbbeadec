"""Recording the view (image, video) and the teaching overlays, driven by real input in the
real window under Xvfb."""

from __future__ import annotations

import json
import threading
import warnings

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication

from app.document import model_io
from app.document.examples import example_path
from app.main_window import MainWindow

pytestmark = pytest.mark.gui


def read_png(path) -> np.ndarray:
    from vtkmodules.util.numpy_support import vtk_to_numpy
    from vtkmodules.vtkIOImage import vtkPNGReader

    reader = vtkPNGReader()
    reader.SetFileName(str(path))
    reader.Update()
    image = reader.GetOutput()
    w, h, _ = image.GetDimensions()
    return vtk_to_numpy(image.GetPointData().GetScalars()).reshape(h, w, -1)[::-1, :, :3]


def spring_model(tmp_path):
    """The double pendulum with a spring from Ground to the lower bob."""
    raw = model_io.to_json_dict(model_io.load(example_path("double_pendulum")))
    raw["model"]["forces"].append(
        {
            "type": "TwoPointLinearSpring",
            "name": "spring",
            "args": {
                "body1": "Ground",
                "station1": [1.0, 1.5, 0.0],
                "body2": "lower",
                "station2": [0.0, -1.0, 0.0],
                "stiffness": 30.0,
                "rest_length": 0.5,
            },
        }
    )
    path = tmp_path / "spring.mbs.json"
    path.write_text(json.dumps(raw))
    return path


@pytest.fixture
def studio(qtbot, qsettings):
    windows = []

    def make(model_path):
        window = MainWindow(model_path=model_path, settings=qsettings, restore_layout=False)
        qtbot.addWidget(window)
        window.resize(1100, 760)
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=60000)
        window.raise_()
        window.activateWindow()
        if QApplication.activeWindow() is not window:  # no window manager under Xvfb
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                QApplication.setActiveWindow(window)
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
        qtbot.wait(200)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.model_editor.undo_stack.setClean()
        window.close()
    alive = [t for t in threading.enumerate() if t.name.startswith("mbstudio-") and t.is_alive()]
    assert not alive


def has_background_and_objects(img: np.ndarray) -> bool:
    """Plain sky at the top and many other colours below: neither blank nor all black."""
    sky = img[:5].reshape(-1, 3).astype(int)
    return (
        sky.std(axis=0).max() < 10
        and sky.mean() > 60
        and len(np.unique(img.reshape(-1, 3), axis=0)) > 50
    )


def test_save_image_shortcut_writes_the_view_at_window_size(studio, qtbot, tmp_path):
    window = studio(example_path("double_pendulum"))
    target = tmp_path / "view.png"
    window.recording.choose_path = lambda *_args: str(target)
    qtbot.keyClick(
        window,
        Qt.Key.Key_I,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    qtbot.waitUntil(target.exists, timeout=10000)
    img = read_png(target)
    w, h = window.viewport.render_window.GetSize()
    assert img.shape == (h, w, 3)
    assert has_background_and_objects(img)
    blue = (img[..., 2] > 120) & (img[..., 0] < 80)  # the pendulum's blue bobs
    assert blue.sum() > 30


def test_save_image_at_a_chosen_size(studio, qtbot, tmp_path):
    window = studio(example_path("double_pendulum"))
    target = tmp_path / "big.png"
    window.recording.choose_path = lambda *_args: str(target)
    menu_bar = window.menuBar()
    file_action = next(a for a in menu_bar.actions() if a.text() == "&File")
    qtbot.mouseClick(
        menu_bar, Qt.MouseButton.LeftButton, pos=menu_bar.actionGeometry(file_action).center()
    )
    menu = file_action.menu()
    qtbot.waitUntil(menu.isVisible, timeout=5000)
    sized = window.recording.actions["save_image_sized"]
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(sized).center())
    qtbot.waitUntil(
        lambda: (
            window.recording.size_dialog is not None and window.recording.size_dialog.isVisible()
        ),
        timeout=5000,
    )
    dialog = window.recording.size_dialog
    for box, value in ((dialog.width_box, "640"), (dialog.height_box, "360")):
        box.setFocus()
        box.selectAll()
        qtbot.keyClicks(box, value)
    qtbot.keyClick(dialog.height_box, Qt.Key.Key_Return)
    qtbot.waitUntil(target.exists, timeout=10000)
    img = read_png(target)
    assert img.shape == (360, 640, 3)
    assert has_background_and_objects(img)


def test_record_button_writes_an_mp4_with_the_time_drawn_in(studio, qtbot, tmp_path):
    import imageio_ffmpeg

    window = studio(example_path("double_pendulum"))
    target = tmp_path / "run.mp4"
    recording = window.recording
    recording.choose_path = lambda *_args: str(target)
    button = window.toolbar.widgetForAction(recording.actions["record"])
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert recording.recording and recording.indicator.isVisible()
    assert "REC" in recording.indicator.text()
    assert "#d0021b" in recording.indicator.styleSheet()  # red
    window.sim_actions["play"].trigger()
    qtbot.waitUntil(lambda: recording.recorder.queued >= 8, timeout=30000)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert not recording.recording and not recording.indicator.isVisible()
    qtbot.waitUntil(lambda: recording.progress is None, timeout=30000)
    assert target.read_bytes()[4:8] == b"ftyp"
    frames, _seconds = imageio_ffmpeg.count_frames_and_secs(str(target))
    assert frames >= 8
    reader = imageio_ffmpeg.read_frames(str(target))
    meta = reader.__next__()
    w, h = meta["size"]
    first = np.frombuffer(reader.__next__(), dtype=np.uint8).reshape(h, w, 3)
    reader.close()
    assert has_background_and_objects(first)
    assert recording.last_message.startswith(f"Saved {frames} video frames to {target}")


def click_overlay(qtbot, window, key: str) -> None:
    """Open View > Teaching overlays with the mouse and click the entry ``key``."""
    menu_bar = window.menuBar()
    view = next(a for a in menu_bar.actions() if a.text() == "&View")
    qtbot.mouseClick(
        menu_bar, Qt.MouseButton.LeftButton, pos=menu_bar.actionGeometry(view).center()
    )
    view_menu = view.menu()
    qtbot.waitUntil(view_menu.isVisible, timeout=5000)
    sub = window.overlays.menu.menuAction()
    qtbot.mouseClick(
        view_menu, Qt.MouseButton.LeftButton, pos=view_menu.actionGeometry(sub).center()
    )
    menu = window.overlays.menu
    qtbot.waitUntil(menu.isVisible, timeout=5000)
    action = window.overlays.actions[key]
    was = action.isChecked()
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())
    assert action.isChecked() != was
    for _ in range(3):  # close what is still open (the menus stay up under QTest on Xvfb)
        popup = QApplication.activePopupWidget()
        if popup is None:
            break
        qtbot.keyClick(popup, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None, timeout=5000)


def view_pixels(window, read_render_window) -> np.ndarray:
    return read_render_window(window.viewport.render_window).astype(int)


def test_overlays_draw_from_the_menu_without_editing_the_model(
    studio, qtbot, tmp_path, read_render_window
):
    window = studio(spring_model(tmp_path))
    editor = window.model_editor
    props_before = window.viewport.renderer.GetViewProps().GetNumberOfItems()
    before = view_pixels(window, read_render_window)
    for key in ("forces", "springs", "mass_centers", "frames"):
        click_overlay(qtbot, window, key)
        assert window.overlays.actions[key].isChecked()
    overlays = window.overlays.overlays
    qtbot.waitUntil(lambda: overlays["forces"].counts.get("gravity", 0) == 2, timeout=10000)
    assert overlays["forces"].counts["spring"] == 2
    assert overlays["forces"].counts["reaction"] == 2
    assert window.viewport.renderer.GetViewProps().GetNumberOfItems() > props_before
    qtbot.wait(100)
    after = view_pixels(window, read_render_window)
    changed = np.abs(after - before).max(axis=2) > 40
    assert changed.sum() > 200
    # Gravity arrows (green) and the coil (orange) are drawn.
    green = (after[..., 1] > 120) & (after[..., 0] < 80) & (after[..., 2] < 100)
    assert green.sum() > 20
    # Views, not edits: the document is unchanged and nothing can be undone.
    assert editor.undo_stack.count() == 0 and editor.undo_stack.isClean()
    assert not window.isWindowModified()

    click_overlay(qtbot, window, "forces")
    assert not overlays["forces"].attached
    assert editor.undo_stack.count() == 0


def test_trail_follows_the_body_while_running(studio, qtbot, tmp_path):
    window = studio(example_path("double_pendulum"))
    click_overlay(qtbot, window, "trail")
    trail = window.overlays.overlays["trail"]
    window.sim_actions["play"].trigger()
    qtbot.waitUntil(lambda: len(trail.points) >= 10, timeout=30000)
    window.sim_actions["pause"].trigger()
    points = trail.points
    assert np.ptp(points, axis=0).max() > 0.05  # it traced a path
    window.sim_actions["reset"].trigger()
    qtbot.waitUntil(lambda: window.simulation.snapshot.time == 0.0, timeout=10000)
    qtbot.waitUntil(lambda: len(trail.points) <= 1, timeout=5000)
    assert window.model_editor.undo_stack.count() == 0


def test_default_sketch_toggle_hides_the_sketch_without_marking_modified(
    studio, qtbot, read_render_window, tmp_path
):
    raw = json.loads(example_path("double_pendulum").read_text())
    raw["model"]["hints"]["show_default_geometry"] = True  # (the examples hide their sketch)
    path = tmp_path / "sketched.mbs.json"
    path.write_text(json.dumps(raw))
    window = studio(path)
    assert window.overlays.actions["sketch"].isEnabled()
    before = window.viewport.scene.num_actors()
    click_overlay(qtbot, window, "sketch")
    assert not window.overlays.actions["sketch"].isChecked()
    qtbot.waitUntil(lambda: window.viewport.scene.num_actors() < before, timeout=5000)
    assert window.model_editor.undo_stack.count() == 0 and not window.isWindowModified()
    click_overlay(qtbot, window, "sketch")
    qtbot.waitUntil(lambda: window.viewport.scene.num_actors() == before, timeout=5000)


def test_clicks_land_on_the_view_not_the_menu(studio, qtbot):
    """The overlay menus close after a click, so the view gets the next click."""
    window = studio(example_path("pendulum"))
    click_overlay(qtbot, window, "frames")
    assert not window.overlays.menu.isVisible()
    qtbot.mouseClick(window.viewport, Qt.MouseButton.LeftButton, pos=QPoint(10, 10))


def test_overlays_stay_on_for_the_next_model_opened(studio, qtbot):
    window = studio(example_path("pendulum"))
    click_overlay(qtbot, window, "forces")
    arrows = window.overlays.overlays["forces"]
    qtbot.waitUntil(lambda: arrows.counts.get("gravity", 0) == 1, timeout=10000)
    window.model_editor.open_path(example_path("four_bar"), modal=False)
    qtbot.waitUntil(lambda: arrows.counts.get("constraint", 0) == 2, timeout=60000)
    assert arrows.counts["gravity"] == 3
    assert window.simulation.session.overlay_kinds == frozenset({"forces"})
