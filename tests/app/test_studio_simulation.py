"""The studio window driving a simulation, for real under Xvfb: toolbar, view, inspectors,
plots, sliders, failures and shutdown."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.main_window import MainWindow
from app.widgets.cache_inspector import STATUS, VALUE, WHY
from engine import Stage
from tests.app.sim_models import chain
from tests.app.window_activation import activate

pytestmark = pytest.mark.gui


def worker_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "mbstudio-simulation" and t.is_alive()]


@pytest.fixture
def studio(qtbot, qsettings):
    """A shown window simulating a one-link pendulum (red ball), closed at teardown; fails the
    test if a worker thread outlives the window."""
    windows = []

    def make(built=None, model_path=None):
        window = MainWindow(model_path=model_path, settings=qsettings, restore_layout=False)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        if built is not None:
            window.simulation.load_built(built)
        if built is not None or model_path is not None:
            qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=10000)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()
    assert not worker_threads()


def red_pixels(img: np.ndarray) -> np.ndarray:
    return (img[..., 0] > 150) & (img[..., 1] < 90) & (img[..., 2] < 90)


def test_default_example_opens_and_runs(studio, qtbot, read_render_window):
    from app.document.examples import default_example_path

    window = studio(model_path=default_example_path())
    panel = window.simulation
    assert panel.session is not None and not panel.banner.isVisible()
    qtbot.wait(200)  # the docks settle around the new sliders
    before = read_render_window(window.viewport.render_window)
    window.sim_actions["play"].trigger()
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.3, timeout=10000)
    window.sim_actions["pause"].trigger()
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    qtbot.wait(50)
    after = read_render_window(window.viewport.render_window)
    # The model moved in the view (and the view is not blank: sky at the top, varied pixels).
    changed = np.abs(after.astype(int) - before.astype(int)).max(axis=2) > 40
    assert changed.sum() > 20
    assert after[:5].reshape(-1, 3).std(axis=0).max() < 10  # plain sky at the top
    assert after.reshape(-1, 3).std(axis=0).max() > 10  # and something else below


def test_toolbar_play_pause_step_reset(studio, qtbot, read_render_window):
    window = studio(chain(1, q0=1.2))
    panel, actions = window.simulation, window.sim_actions
    assert actions["play"].isEnabled() and actions["step"].isEnabled()
    assert not actions["pause"].isEnabled()
    for key in ("play", "pause", "step", "reset"):
        assert actions[key].shortcut().toString() in actions[key].toolTip()
    img0 = read_render_window(window.viewport.render_window)
    assert red_pixels(img0).sum() > 30, "the pendulum ball is not drawn"

    actions["play"].trigger()
    qtbot.waitUntil(lambda: panel.snapshot.running and panel.snapshot.time > 0.2, timeout=10000)
    assert actions["pause"].isEnabled() and not actions["play"].isEnabled()
    assert window.time_label.text() != "t = 0.000 s"
    actions["pause"].trigger()
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    t_paused = panel.snapshot.time

    actions["step"].trigger()
    qtbot.waitUntil(lambda: panel.snapshot.time > t_paused, timeout=5000)
    img1 = read_render_window(window.viewport.render_window)
    ball0 = np.argwhere(red_pixels(img0)).mean(axis=0)
    ball1 = np.argwhere(red_pixels(img1)).mean(axis=0)
    assert np.linalg.norm(ball1 - ball0) > 3, "the ball did not move in the view"

    actions["reset"].trigger()
    qtbot.waitUntil(lambda: panel.snapshot.time == 0.0, timeout=5000)
    qtbot.wait(50)
    img2 = read_render_window(window.viewport.render_window)
    ball2 = np.argwhere(red_pixels(img2)).mean(axis=0)
    assert np.linalg.norm(ball2 - ball0) < 2


def test_keyboard_shortcut_starts_the_run(studio, qtbot):
    window = studio(chain(1))
    activate(qtbot, window)
    fired = []
    window.sim_actions["play"].triggered.connect(lambda: fired.append(1))
    qtbot.keyClick(window, Qt.Key.Key_F5)
    assert fired, (QApplication.activeWindow(), QApplication.focusWidget())
    qtbot.waitUntil(lambda: window.simulation.snapshot.running, timeout=5000)
    qtbot.keyClick(window, Qt.Key.Key_F5, Qt.KeyboardModifier.ShiftModifier)
    qtbot.waitUntil(lambda: not window.simulation.snapshot.running, timeout=5000)


def test_editing_q_shows_time_stage_and_stale_position_cache(studio, qtbot):
    window = studio(chain(2))
    panel = window.simulation
    window.docks["Cache inspector"].raise_()
    qtbot.waitUntil(
        lambda: panel.cache_inspector.entry_item("Matter", "position kinematics") is not None,
        timeout=5000,
    )
    item = panel.cache_inspector.entry_item("Matter", "position kinematics")
    assert item.text(STATUS) == "valid"

    panel.sliders.rows[("link1", 0)].set_value(45.0)  # deg, as a user typing in the spin box
    qtbot.waitUntil(lambda: panel.snapshot.stages.system_stage == Stage.Time, timeout=5000)
    inspector = panel.stage_inspector
    assert "Time" in inspector.summary.text()
    assert "setQ" in inspector.cascade_label.text()
    assert "Position" in inspector.cascade_label.text()
    # Cascade cells: the System row's Position cell is orange (invalidated by the edit).
    col = [
        s.getName() for s in __import__("app.widgets.stage_inspector", fromlist=["STAGES"]).STAGES
    ].index("Position")
    assert inspector.table.item(0, col).background().color().name() == "#ffba6e"
    qtbot.waitUntil(
        lambda: (
            panel.cache_inspector.entry_item("Matter", "position kinematics").text(STATUS)
            == "stale"
        ),
        timeout=5000,
    )
    item = panel.cache_inspector.entry_item("Matter", "position kinematics")
    assert "Q" in item.text(WHY)  # which change made it stale (setQ / updQ)
    q_item = panel.cache_inspector.variable_item("q")
    assert "0.7854" in q_item.text(VALUE)  # the State holds radians

    window.docks["Stage inspector"].raise_()
    qtbot.mouseClick(inspector.next_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: panel.snapshot.stages.system_stage == Stage.Position, timeout=5000)
    qtbot.waitUntil(lambda: "Position" in inspector.timings.text(), timeout=5000)
    assert "ms" in inspector.timings.text()
    assert "position kinematics" in inspector.timings.text()  # what became valid


def test_cache_inspector_expands_arrays_and_updates_live(studio, qtbot):
    window = studio(chain(2))
    panel = window.simulation
    window.docks["Cache inspector"].raise_()
    qtbot.waitUntil(
        lambda: panel.cache_inspector.entry_item("Matter", "position kinematics") is not None,
        timeout=5000,
    )
    item = panel.cache_inspector.entry_item("Matter", "position kinematics")
    item.setExpanded(True)
    fields = [item.child(i).text(0) for i in range(item.childCount())]
    assert "p_GB" in fields and "R_GB" in fields
    p_gb = item.child(fields.index("p_GB"))
    p_gb.setExpanded(True)
    assert p_gb.childCount() == 3  # Ground and two links
    updates = panel.cache_inspector.updates
    window.sim_actions["play"].trigger()
    qtbot.waitUntil(lambda: panel.cache_inspector.updates >= updates + 5, timeout=5000)
    window.sim_actions["pause"].trigger()


def test_plots_receive_data_and_export_csv(studio, qtbot, tmp_path):
    window = studio(chain(2))
    plots = window.simulation.plots
    # Choosing a body (in the tree or the view) lists its quantities.
    window.simulation.select_body("link2")
    assert plots.listed() == ["q[1] link2.q0", "u[1] link2.u0", "udot[1] link2.u0"]
    window.simulation.select_body("Ground")
    plots.set_checked("q[0] link1.q0")
    window.sim_actions["play"].trigger()
    qtbot.waitUntil(lambda: len(plots.plotted_data("q[0] link1.q0")[0]) > 20, timeout=10000)
    window.sim_actions["pause"].trigger()
    t, q = plots.plotted_data("q[0] link1.q0")
    assert np.all(np.diff(t) > 0) and q[0] == pytest.approx(0.5, abs=0.05)
    e = plots.plotted_data("total energy")[1]
    assert np.ptp(e) < 1e-2 * abs(e[0])
    plots.export_csv(tmp_path / "out.csv")
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines[0].split(",") == ["t", "q[0] link1.q0", "total energy"]
    assert len(lines) > 20


def test_failing_step_pauses_with_the_message(studio, qtbot):
    window = studio(chain(1, fail_after=0.1))
    panel = window.simulation
    window.sim_actions["play"].trigger()
    explainer = window.timeline.explainer
    qtbot.waitUntil(lambda: explainer.isVisible(), timeout=10000)
    # the engine's text is under Details, shown by a click; not repeated in a second banner
    assert "test force refuses to act" in explainer.details.text()
    assert not explainer.details.isVisible()
    qtbot.mouseClick(explainer.details_button, Qt.MouseButton.LeftButton)
    assert explainer.details.isVisible()
    assert not panel.banner.isVisible()
    assert "step failed" in window.statusBar().currentMessage()
    assert window.sim_actions["play"].isEnabled()
    assert not panel.snapshot.running and panel.snapshot.time <= 0.1 + 1e-9


def test_closing_while_running_leaves_no_thread(qtbot, qsettings):
    window = MainWindow(settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.show()
    window.simulation.load_built(chain(3))
    window.sim_actions["play"].trigger()
    qtbot.waitUntil(
        lambda: window.simulation.snapshot is not None and window.simulation.snapshot.time > 0.05,
        timeout=10000,
    )
    assert worker_threads()
    window.close()
    assert not worker_threads()
    assert not window.simulation.timer.isActive()


def test_pick_in_view_names_the_body(studio, qtbot, read_render_window):
    window = studio(chain(1, q0=0.0))
    panel = window.simulation
    scene = window.viewport.scene
    picked = []
    panel.body_picked.connect(picked.append)
    x, y = scene.world_to_display(panel.snapshot.x_gb[1][:3, 3])
    widget = window.viewport.interactor_widget
    ball = QPoint(round(x), widget.height() - 1 - round(y))  # Qt pixels from the top left

    def click() -> None:  # a real press and release on the ball, no drag
        QTest.mouseClick(widget, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, ball)

    click()
    assert picked == ["link1"]

    # With a model tree connected, a pick selects the body in the tree and vice versa.
    from PySide6.QtCore import QObject, Signal

    class FakeTree(QObject):
        body_selected = Signal(str)

        def __init__(self):
            super().__init__()
            self.selected = []

        def select_body(self, name):
            self.selected.append(name)

    tree = FakeTree()
    panel.connect_tree(tree)
    click()
    assert tree.selected == ["link1"]
    tree.body_selected.emit("link1")
    assert "link1" in window.statusBar().currentMessage()
    assert panel.selected_body == "link1"
    # The selection shows in the view: a yellow triad on the body.
    qtbot.wait(50)
    img = read_render_window(window.viewport.render_window)
    yellow = (img[..., 0] > 200) & (img[..., 1] > 170) & (img[..., 2] < 60)
    assert yellow.sum() > 10
    tree.body_selected.emit("Ground")
    qtbot.wait(50)
    img = read_render_window(window.viewport.render_window)
    yellow_ground = (img[..., 0] > 200) & (img[..., 1] > 170) & (img[..., 2] < 60)
    assert not np.array_equal(yellow, yellow_ground)


def test_document_edits_rebuild_the_running_model(studio, qtbot):
    from app.document import model_io
    from app.document.examples import default_example_path

    window = studio()
    panel = window.simulation
    document = model_io.load(default_example_path())
    loaded = []
    panel.document_loaded.connect(loaded.append)
    panel.load_document(document)
    assert loaded == [document] and panel.document is document
    qtbot.waitUntil(
        lambda: panel.snapshot is not None and panel.snapshot.model is not None, timeout=5000
    )
    body = [n for n in document.body_names() if n != "Ground"][0]
    # An initial-state edit before the run starts shows at once.
    document.set_body(body, q=(0.7,))
    qtbot.waitUntil(lambda: panel.snapshot.q[0] == pytest.approx(0.7), timeout=5000)
    window.sim_actions["step"].trigger()
    qtbot.waitUntil(lambda: panel.snapshot.time > 0, timeout=5000)
    stepped = panel.snapshot
    # A parameter edit rebuilds the System and carries the state over.
    mass, inertia = document.body(body).mass, document.body(body).inertia
    document.set_body(body, mass=2 * mass, inertia=tuple(2 * i for i in inertia))
    qtbot.waitUntil(lambda: panel.snapshot.model_serial != stepped.model_serial, timeout=5000)
    snap = panel.snapshot
    assert snap.time == pytest.approx(stepped.time)
    np.testing.assert_allclose(snap.q, stepped.q)
    mobod = panel.session.built.mobilized_bodies[body]
    assert mobod.getBody().getDefaultRigidBodyMassProperties().getMass() == pytest.approx(2 * mass)


def test_simulation_controls_reach_the_session_and_are_remembered(qtbot, qsettings):
    first = MainWindow(settings=qsettings, restore_layout=False)
    qtbot.addWidget(first)
    first.simulation.load_built(chain(1))
    panel = first.simulation
    panel.integrator_box.setCurrentText("Verlet")
    panel.accuracy_box.set_accuracy(1e-5)
    panel.pacing_box.setCurrentIndex(panel.pacing_box.findText("sampled"))
    panel.speed_box.setValue(2.5)
    qtbot.waitUntil(
        lambda: (
            panel.session.settings.integrator == "Verlet" and panel.session.settings.speed == 2.5
        ),
        timeout=5000,
    )
    settings = panel.session.settings
    assert settings.accuracy == 1e-5 and settings.pacing.value == "sampled"
    first.close()
    assert not worker_threads()

    second = MainWindow(settings=qsettings)
    qtbot.addWidget(second)
    p2 = second.simulation
    assert p2.integrator_box.currentText() == "Verlet"
    assert p2.accuracy_box.currentText() == "1e-5"
    assert p2.pacing_box.currentText() == "sampled"
    assert p2.speed_box.value() == 2.5


def test_each_example_opens_steps_and_is_drawn(studio, qtbot, read_render_window):
    from app.document.examples import examples

    window = studio()
    panel = window.simulation
    for example in examples():
        assert panel.open_path(example.path), panel.banner.text()
        qtbot.waitUntil(
            lambda: (
                panel.snapshot is not None
                and panel.snapshot.model is not None
                and panel.snapshot.model is panel.session.model_info
            ),
            timeout=10000,
        )
        window.sim_actions["step"].trigger()
        qtbot.waitUntil(lambda: panel.snapshot.time > 0, timeout=10000)
        assert not panel.snapshot.error, (example.key, panel.snapshot.error)
        scene = window.viewport.scene
        assert scene.num_actors() > 0, example.key
        with_model = read_render_window(window.viewport.render_window).astype(int)
        actors = list(scene._prop_owner)  # the model's decorations
        for actor in actors:
            actor.VisibilityOff()
        without = read_render_window(window.viewport.render_window).astype(int)
        for actor in actors:
            actor.VisibilityOn()
        drawn = (np.abs(with_model - without).max(axis=2) > 30).sum()
        assert drawn > 200, (example.key, drawn)  # the model covers part of the view


def test_stage_inspector_says_which_paths_run_compiled_and_why_not(studio, qtbot):
    window = studio(chain(2))
    panel = window.simulation
    inspector = panel.stage_inspector
    window.docks["Stage inspector"].raise_()
    qtbot.waitUntil(lambda: "one compiled kernel call" in inspector.compiled_label.text())
    window.sim_actions["step"].trigger()  # the integrator exists from the first step on
    qtbot.waitUntil(  # generous: a cold numba cache compiles the stepping kernel first
        lambda: "steps: many per compiled call" in inspector.compiled_label.text(), timeout=60000
    )
    assert "RungeKuttaMerson" in inspector.compiled_label.text()

    # a force element written in Python keeps both in Python, and the inspector says why
    slow = studio(chain(1, fail_after=100.0))
    slow.docks["Stage inspector"].raise_()
    slow.sim_actions["step"].trigger()
    label = slow.simulation.stage_inspector.compiled_label
    qtbot.waitUntil(lambda: "one at a time in Python" in label.text(), timeout=10000)
    text = label.text()
    assert "Position..Acceleration: stage by stage" in text
    assert "without a compiled force term" in text
