"""GUI stress test with a watchdog (issue 22): random play / pause / step / reset / integrator /
add body / undo / open example / close-and-reopen actions sent as real input to the studio. After
every action the simulation worker is alive and the GUI timer keeps ticking; at the end, closing
the window leaves no thread behind. A hang dumps every thread's stack and fails the run instead of
blocking CI (faulthandler watchdog)."""

from __future__ import annotations

import faulthandler
import os
import random
import sys
import threading
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.document.examples import example_path
from app.main_window import MainWindow
from tests.app.window_activation import activate

ACTIONS = 40
SEED = int(os.environ.get("MBSTUDIO_STRESS_SEED", "22"))
EXAMPLES = ("pendulum", "double_pendulum", "four_bar", "slider_crank")
WATCHDOG_S = 240


def _new_window(qtbot, qsettings) -> MainWindow:
    window = MainWindow(model_path=example_path("double_pendulum"), settings=qsettings)
    window.model_editor.interactive = False  # no "save changes?" box between random actions
    window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=10000)
    return window


def _close(qtbot, window) -> None:
    activate(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    assert not window.isVisible()
    window.deleteLater()


def _open_example(qtbot, window, key: str) -> None:
    """File > Examples > ``key`` with the mouse."""
    bar = window.menuBar()
    file_action = next(a for a in bar.actions() if a.text() == "&File")
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(file_action).center())
    file_menu = file_action.menu()
    qtbot.waitUntil(file_menu.isVisible, timeout=5000)
    examples = window.model_editor.examples_menu
    qtbot.mouseClick(
        file_menu,
        Qt.MouseButton.LeftButton,
        pos=file_menu.actionGeometry(examples.menuAction()).center(),
    )
    qtbot.waitUntil(examples.isVisible, timeout=5000)
    action = examples.findChild(type(file_action), f"example_{key}")
    qtbot.mouseClick(
        examples, Qt.MouseButton.LeftButton, pos=examples.actionGeometry(action).center()
    )
    for _ in range(3):  # menus may stay up under QTest on Xvfb
        popup = QApplication.activePopupWidget()
        if popup is None:
            break
        popup.close()


def _key(qtbot, window, key, modifiers=Qt.KeyboardModifier.NoModifier) -> None:
    activate(qtbot, window)
    qtbot.keyClick(window, key, modifiers)


def _simulation_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "mbstudio-simulation"]


@pytest.fixture
def watchdog():
    faulthandler.dump_traceback_later(WATCHDOG_S, exit=True, file=sys.stderr)
    yield
    faulthandler.cancel_dump_traceback_later()


def test_random_gui_actions_never_kill_the_worker_or_leak_a_thread(qtbot, qsettings, watchdog):
    before = set(threading.enumerate())
    rng = random.Random(SEED)
    window = _new_window(qtbot, qsettings)
    shift, ctrl = Qt.KeyboardModifier.ShiftModifier, Qt.KeyboardModifier.ControlModifier
    done: list[str] = []

    def integrator(w):
        box = w.simulation.integrator_box
        box.setFocus()
        qtbot.keyClick(box, rng.choice((Qt.Key.Key_Down, Qt.Key.Key_Up)))

    actions = {
        "play": lambda w: _key(qtbot, w, Qt.Key.Key_F5),
        "pause": lambda w: _key(qtbot, w, Qt.Key.Key_F5, shift),
        "step": lambda w: _key(qtbot, w, Qt.Key.Key_F10),
        "reset": lambda w: _key(qtbot, w, Qt.Key.Key_F5, ctrl | shift),
        "integrator": integrator,
        "add body": lambda w: qtbot.mouseClick(
            w.model_editor.tree.add_body_button, Qt.MouseButton.LeftButton
        ),
        "undo": lambda w: _key(qtbot, w, Qt.Key.Key_Z, ctrl),
        "open": lambda w: _open_example(qtbot, w, rng.choice(EXAMPLES)),
    }
    weights = {"play": 4, "pause": 3, "step": 2, "reset": 2, "integrator": 2, "add body": 2}
    weights |= {"undo": 2, "open": 1}
    names = list(actions)
    close_at = {ACTIONS // 2}
    for i in range(ACTIONS):
        if i in close_at:  # close the window and open a new one
            _close(qtbot, window)
            window = None
            qtbot.wait(50)
            assert not _simulation_threads(), "a closed window's worker is still running"
            window = _new_window(qtbot, qsettings)
            done.append("close+reopen")
        name = rng.choices(names, weights=[weights[n] for n in names])[0]
        actions[name](window)
        done.append(name)
        panel = window.simulation
        t0 = time.perf_counter()
        qtbot.waitUntil(
            lambda p=panel, t=t0: len(p.tick_times) > 2 and p.tick_times[-3] > t, timeout=10000
        )
        assert time.perf_counter() - t0 < 5.0, f"the GUI timer stalled after {done}"
        assert panel.session is not None and panel.session.is_alive, (
            f"the simulation worker died after {done}: {panel.banner.text()}"
        )
        assert len(_simulation_threads()) == 1, f"worker threads piled up after {done}"
    # the last run produced frames: the worker still simulates
    panel = window.simulation
    _key(qtbot, window, Qt.Key.Key_F5)
    t_start = panel.snapshot.time
    qtbot.waitUntil(
        lambda: panel.snapshot.time > t_start or bool(panel.snapshot.error), timeout=10000
    )
    _close(qtbot, window)
    window = panel = None
    qtbot.wait(50)
    leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not leaked, f"threads left after closing: {leaked} (actions {done})"
