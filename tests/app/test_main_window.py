"""The studio's main window, opened for real (the test command runs pytest under Xvfb)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtWidgets import QDockWidget, QLabel

from app.main_window import MainWindow
from app.viewport import SKY_HORIZON, SKY_TOP

pytestmark = pytest.mark.gui

DOCK_TITLES = ("Model", "Stage inspector", "Cache inspector", "Plots")


def test_window_opens_with_title(main_window):
    assert main_window.isVisible()
    assert main_window.windowTitle() == "mbstudio"
    assert main_window.width() > 600 and main_window.height() > 400


def test_docks_exist_by_name(main_window):
    docks = {dock.windowTitle(): dock for dock in main_window.findChildren(QDockWidget)}
    for title in DOCK_TITLES:
        assert title in docks, f"missing dock {title!r}"
        assert docks[title].objectName() == title  # saveState() needs object names
        assert main_window.docks[title] is docks[title]
    assert docks["Model"].isVisible()
    assert docks["Plots"].isVisible()


def test_status_bar_shows_time(main_window):
    texts = [label.text() for label in main_window.statusBar().findChildren(QLabel)]
    assert "t = 0.000 s" in texts
    main_window.set_time(1.23456)
    assert main_window.time_label.text() == "t = 1.235 s"
    assert main_window.time_label.isVisible()


def test_toolbar_actions_disabled_with_tooltips_and_shortcuts(main_window):
    toolbar_actions = {a.text(): a for a in main_window.toolbar.actions()}
    for text in ("Play", "Pause", "Step", "Reset"):
        action = toolbar_actions[text]
        assert not action.isEnabled()
        assert not action.shortcut().isEmpty()
        assert action.shortcut().toString() in action.toolTip()
        assert not action.icon().isNull()
    shortcuts = [a.shortcut().toString() for a in toolbar_actions.values()]
    assert len(set(shortcuts)) == len(shortcuts)


def test_viewport_renders_sky_gradient_and_axes(main_window, read_render_window, qtbot):
    viewport = main_window.viewport
    assert viewport.render_window.GetMultiSamples() == 0
    assert viewport.renderer is viewport.scene.renderer  # a viz Scene draws the sky
    # under load the first layout pass can lag behind the window being exposed
    qtbot.waitUntil(lambda: viewport.width() > 300 and viewport.height() > 200, timeout=10000)
    img = read_render_window(viewport.render_window).astype(np.int16)
    h, w, _ = img.shape
    assert h > 200 and w > 300, img.shape
    assert img.max() > 60, "the view is all black (broken OpenGL context?)"

    # Background: each row matches the linear gradient from the sky's top to its horizon.
    top, horizon = np.array(SKY_TOP) * 255, np.array(SKY_HORIZON) * 255
    fraction = np.linspace(0.0, 1.0, h)[:, None, None]
    expected = top + (horizon - top) * fraction
    background = np.abs(img - expected).max(axis=2) <= 12
    assert background.mean() > 0.9, f"only {background.mean():.0%} of pixels look like sky"
    assert background[:5].mean() > 0.9 and background[-5:, w // 3 :].mean() > 0.9

    # Objects: the orientation axes in the bottom-left corner (red X shaft, green Y shaft).
    corner = img[int(h * 0.84) :, : int(w * 0.16)]
    red = (corner[..., 0] > 150) & (corner[..., 1] < 90) & (corner[..., 2] < 90)
    green = (corner[..., 1] > 120) & (corner[..., 0] < 90) & (corner[..., 2] < 90)
    assert red.sum() >= 5 and green.sum() >= 5, (red.sum(), green.sum())


def test_request_render_and_close(main_window, qtbot):
    main_window.viewport.request_render()
    main_window.viewport.request_render()
    qtbot.wait(20)
    assert main_window.close()
    assert not main_window.isVisible()
    main_window.viewport.request_render()  # a no-op once closed
    main_window.viewport.close_view()  # idempotent


def test_layout_saved_on_close_and_restored(qtbot, qsettings):
    first = MainWindow(settings=qsettings)
    qtbot.addWidget(first)
    first.show()
    qtbot.waitExposed(first)
    first.resize(900, 640)
    first.docks["Plots"].hide()
    qtbot.waitUntil(lambda: first.width() == 900)
    first.close()
    assert qsettings.contains("main_window/geometry")
    assert qsettings.contains("main_window/state")

    second = MainWindow(settings=qsettings)
    qtbot.addWidget(second)
    second.show()
    qtbot.waitExposed(second)
    assert (second.width(), second.height()) == (900, 640)
    assert not second.docks["Plots"].isVisible()
    assert second.docks["Model"].isVisible()

    third = MainWindow(settings=qsettings, restore_layout=False)
    qtbot.addWidget(third)
    assert not qsettings.contains("main_window/geometry")
    assert third.width() != 900


def test_model_path_is_opened_or_refused_with_the_reason(qtbot, qsettings, tmp_path):
    from app.document.examples import default_example_path

    window = MainWindow(model_path=default_example_path(), settings=qsettings)
    qtbot.addWidget(window)
    assert window.model_editor.document.body_names() == ["link"]
    assert "Pendulum" in window.windowTitle() or "pendulum" in window.windowTitle()

    model = tmp_path / "pendulum.json"
    model.write_text("{}")
    bad = MainWindow(model_path=model, settings=qsettings)
    qtbot.addWidget(bad)
    assert bad.model_editor.document.bodies == []
    assert "pendulum.json" in bad.model_editor.last_error
    assert "schema" in bad.model_editor.last_error
