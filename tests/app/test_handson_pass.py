"""Problems found by using the studio by hand, each reproduced with real input events (QTest
mouse and key events on the real widgets at the pixels where things are drawn)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from engine import Force
from tests.app import sim_models, test_view_interaction
from tests.app.test_view_interaction import (
    CTRL,
    LEFT,
    activate,
    ball_position,
    body_pixel,
    drag,
)

studio = test_view_interaction.studio  # the fixture: a shown, active window

pytestmark = pytest.mark.gui


def empty_pixel(window) -> QPoint:
    """A pixel of the 3-D view where no body is drawn (the sky above the model)."""
    widget = window.viewport.interactor_widget
    scene = window.viewport.scene
    scene.render()
    for y in range(10, widget.height() // 2, 10):
        point = QPoint(widget.width() // 2, y)
        hit = scene.pick(point.x(), widget.height() - 1 - y)
        if hit is None or hit.body_id <= 0:
            return point
    raise AssertionError("every pixel of the view's upper half shows a body")


def camera_pose(window) -> np.ndarray:
    camera = window.viewport.renderer.GetActiveCamera()
    return np.array([*camera.GetPosition(), *camera.GetFocalPoint(), *camera.GetViewUp()])


def test_a_ctrl_drag_that_misses_every_body_leaves_the_camera_alone(studio, qtbot):
    """Ctrl + left drag pulls a body; one that starts beside it (a running body moves on between
    seeing it and pressing) used to roll the camera about the line of sight (VTK's own Ctrl +
    left drag), tilting the floor, with no way back but a camera preset."""
    window = studio(sim_models.chain(1, q0=0.0))
    before = camera_pose(window)
    start = empty_pixel(window)
    drag(qtbot, window, start, start + QPoint(120, 60), modifier=CTRL)
    qtbot.wait(50)
    assert np.allclose(camera_pose(window), before), "a Ctrl drag off the bodies moved the camera"
    assert "Ctrl + drag" in window.statusBar().currentMessage()
    # a Ctrl drag that starts on the body still pulls it (paused: drags its pose)
    x0 = ball_position(window)
    start = body_pixel(window, 1)
    drag(qtbot, window, start, start + QPoint(60, 0), modifier=CTRL, hold=300)
    qtbot.waitUntil(lambda: np.linalg.norm(ball_position(window) - x0) > 0.05, timeout=5000)
    assert np.allclose(camera_pose(window), before)


def test_a_body_clicked_in_a_deep_chain_shows_its_name_in_the_tree(studio, qtbot):
    """Clicking a body far down the 50-link chain selected its row in the model tree, but the
    row is indented far past the tree's right edge: a highlighted row with no name in it."""
    from app.document.examples import example_path

    window = studio()
    window.model_editor.open_path(example_path("chain50"), as_example=True, modal=False)
    panel = window.simulation
    qtbot.waitUntil(lambda: panel.snapshot is not None and panel.snapshot.model is not None)
    activate(qtbot, window)
    qtbot.wait(200)
    names = list(panel.snapshot.model.body_names)
    scene = window.viewport.scene
    scene.render()
    widget = window.viewport.interactor_widget
    target = None
    for b in range(len(names) - 1, 30, -1):  # a deep link drawn at its middle
        # each 8 cm link's rod hangs from its origin along its -y axis
        xy = scene.world_to_display((panel.snapshot.x_gb[b] @ np.array([0.0, -0.04, 0.0, 1.0]))[:3])
        hit = scene.pick(*xy)
        if hit is not None and hit.body_id == b:
            target = (b, QPoint(round(xy[0]), widget.height() - 1 - round(xy[1])))
            break
    assert target is not None, "no deep link is drawn at its middle"
    b, point = target
    from PySide6.QtTest import QTest

    QTest.mouseClick(widget, LEFT, Qt.KeyboardModifier.NoModifier, point)
    tree = window.model_editor.tree
    qtbot.waitUntil(lambda: tree.selected_bodies() == [names[b]], timeout=5000)
    qtbot.wait(50)
    index = tree.model.index_of(f"body:{names[b]}")
    rect = tree.view.visualRect(index)
    viewport = tree.view.viewport()
    text_width = tree.view.fontMetrics().horizontalAdvance(names[b])
    assert rect.top() >= 0 and rect.bottom() <= viewport.height(), "the row is scrolled away"
    assert rect.left() >= 0 and rect.left() + text_width <= viewport.width(), (
        f"the selected row's name is drawn at x = {rect.left()}..{rect.left() + text_width}, "
        f"outside the tree's {viewport.width()} px"
    )


def any_body_pixel(window, b: int) -> QPoint:
    """A pixel of the 3-D view where body ``b`` is drawn: the centre of one of its decorations
    that the scene's picker finds there."""
    widget = window.viewport.interactor_widget
    scene = window.viewport.scene
    scene.render()
    for item in scene._static:  # noqa: SLF001  (the decorations drawn on the bodies)
        if item.body_id == b and item.actor is not None:
            centre = np.array(item.actor.GetBounds()).reshape(3, 2).mean(axis=1)
            x, y = scene.world_to_display(centre)
            hit = scene.pick(x, y)
            if hit is not None and hit.body_id == b:
                return QPoint(round(x), widget.height() - 1 - round(y))
    raise AssertionError(f"body {b} is not drawn")


def visible_fields(properties) -> list[str]:
    """The Properties form's fields whose whole height shows in its scroll area."""
    viewport = properties.scroll.viewport()
    out = []
    for key, (field, _error) in properties.fields.items():
        top = field.mapTo(viewport, QPoint(0, 0)).y()
        if field.isVisible() and top >= 0 and top + field.height() <= viewport.height():
            out.append(key)
    return out


def test_a_clicked_body_shows_more_than_its_name_in_the_default_layout(qtbot, qsettings):
    """In the default 1280 x 800 layout the Properties dock was squeezed between the model tree
    and the joint sliders: a body clicked in the view showed only its name and parent."""
    from PySide6.QtTest import QTest

    from app.document.examples import example_path
    from app.main_window import DEFAULT_SIZE, MainWindow

    window = MainWindow(settings=qsettings, restore_layout=False)
    window.model_editor.interactive = False
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert (window.width(), window.height()) == DEFAULT_SIZE
    window.model_editor.open_path(example_path("double_pendulum"), as_example=True, modal=False)
    panel = window.simulation
    qtbot.waitUntil(lambda: panel.snapshot is not None and panel.snapshot.model is not None)
    activate(qtbot, window)
    qtbot.wait(200)
    names = list(panel.snapshot.model.body_names)
    b = names.index("lower")
    QTest.mouseClick(
        window.viewport.interactor_widget,
        LEFT,
        Qt.KeyboardModifier.NoModifier,
        any_body_pixel(window, b),
    )
    properties = window.model_editor.properties
    qtbot.waitUntil(lambda: properties.key == "body:lower", timeout=5000)
    qtbot.wait(100)
    shown = visible_fields(properties)
    assert {"name", "parent", "mobilizer", "X_PF.p", "X_PF.rpy"} <= set(shown), shown
    window.close()


class SlowFirstStep(Force):
    """A force element whose first call after t = 0 takes ``seconds`` (as a first run's kernel
    loading does); it applies no force."""

    def __init__(self, forces, seconds: float) -> None:
        super().__init__(forces)
        self.seconds = seconds
        self.slept = False

    def calcForce(self, state, bodyForces, particleForces, mobilityForces) -> None:  # noqa: N802, N803
        if state.getTime() > 0.0 and not self.slept:
            self.slept = True
            time.sleep(self.seconds)


def test_a_run_whose_first_steps_are_slow_says_what_it_waits_for(studio, qtbot, monkeypatch):
    """Play on a model whose first steps take seconds (a fresh studio loading the compiled
    kernels: 1.5-2.5 s measured for Newton's cradle) showed "Running", t = 0 and a still model
    with nothing saying why."""
    monkeypatch.setattr(sim_models, "FailAfter", SlowFirstStep)
    window = studio(sim_models.chain(1, q0=0.5, fail_after=2.5))
    QTest.keyClick(window, Qt.Key.Key_Space)
    bar = window.statusBar()
    qtbot.waitUntil(lambda: "first run" in bar.currentMessage(), timeout=2400)
    assert window.simulation.snapshot.time == 0.0
    qtbot.waitUntil(lambda: window.simulation.snapshot.time > 0.0, timeout=10000)
    qtbot.waitUntil(lambda: bar.currentMessage() == "Running", timeout=5000)
    QTest.keyClick(window, Qt.Key.Key_Space)


def test_rotating_the_camera_keeps_the_horizon_level(studio, qtbot):
    """A diagonal left drag (VTK's trackball) rolled the camera: the floor's horizon ended up
    slanted, the model's up direction no longer the screen's vertical."""
    window = studio(sim_models.chain(1, q0=0.0))
    camera = window.viewport.renderer.GetActiveCamera()
    up = np.array(window.viewport.scene.environment.up, dtype=np.float64)
    widget = window.viewport.interactor_widget
    centre = QPoint(widget.width() // 2, widget.height() // 2)
    before = camera_pose(window)
    for delta in (QPoint(150, 90), QPoint(-60, 120), QPoint(140, -100)):
        drag(qtbot, window, centre, centre + delta, modifier=Qt.KeyboardModifier.NoModifier)
        direction = np.array(camera.GetDirectionOfProjection())
        right = np.cross(direction, np.array(camera.GetViewUp()))
        assert abs(right @ up) < 1e-6, (
            f"the horizon is tilted by {np.degrees(np.arcsin(right @ up)):.1f} deg"
        )
    assert not np.allclose(camera_pose(window), before), "the drags did not rotate the camera"


def test_an_example_opened_from_the_menu_plots_only_its_own_quantities(studio, qtbot):
    """Box on a tilting plane ticks its plane angle and box speeds, which were drawn beside the
    default total energy (about 6 kJ) on one axis: flat lines at zero."""
    from tests.app.test_studio_leaks import _open_example

    window = studio()
    _open_example(qtbot, window, "tilting_plane")
    panel = window.simulation
    qtbot.waitUntil(lambda: panel.snapshot is not None and panel.snapshot.model is not None)
    qtbot.waitUntil(lambda: len(panel.plots.checked()) >= 3, timeout=5000)
    qtbot.wait(100)
    checked = panel.plots.checked()
    assert "total energy" not in checked
    assert sorted(c.split(" ", 1)[1] for c in checked) == ["box.u3", "box.u4", "plane.q0"]


def test_a_refused_step_size_keeps_its_message_while_the_model_runs(studio, qtbot):
    """A bad fixed step size is refused with a message in the status bar, but every frame wrote
    the run's status ("Running") over it at once: the field turned red with no reason given."""
    window = studio(sim_models.chain(1, q0=0.5))
    panel = window.simulation
    box = panel.integrator_box
    QTest.mouseClick(box, LEFT)
    qtbot.waitUntil(box.view().isVisible, timeout=3000)
    for _ in range(box.findText("ExplicitEuler") - box.currentIndex()):
        QTest.keyClick(box.view(), Qt.Key.Key_Down)
    QTest.keyClick(box.view(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: box.currentText() == "ExplicitEuler", timeout=3000)
    QTest.keyClick(window, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: panel.snapshot.running and panel.snapshot.time > 0, timeout=10000)
    field = panel.step_size_edit
    QTest.mouseClick(field, LEFT)
    QTest.keyClicks(field, "-1")
    QTest.keyClick(field, Qt.Key.Key_Return)
    frames = window.viewport.frames_rendered
    qtbot.waitUntil(lambda: window.viewport.frames_rendered > frames + 5, timeout=5000)
    assert panel.snapshot.running
    assert "step size" in window.statusBar().currentMessage()
    QTest.keyClick(window, Qt.Key.Key_Space)
