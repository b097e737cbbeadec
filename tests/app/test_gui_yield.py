"""While the view draws a frame the worker waits between steps (software OpenGL's threads get
the CPU): the session side (waits before every step while the GUI is busy, bounded), and the
window side (the view clears the session's gui_idle while it renders and sets it after)."""

from __future__ import annotations

import pytest

from app.simulation.session import GUI_WAIT_MAX, Settings, SimulationSession
from tests.app.sim_models import chain


class RecordingEvent:
    """Stands in for threading.Event: records the worker's waits."""

    def __init__(self, idle: bool) -> None:
        self.idle = idle
        self.waits: list[float] = []

    def is_set(self) -> bool:
        return self.idle

    def wait(self, timeout=None) -> bool:
        self.waits.append(timeout)
        return self.idle


@pytest.mark.parametrize("idle", [True, False])
def test_worker_waits_before_each_step_while_the_gui_draws(idle):
    session = SimulationSession(chain(2), Settings(report_interval=0.01))  # not started
    session.gui_idle = RecordingEvent(idle)
    session._cmd_step()  # one reporting interval, here in this thread
    steps = session.samples.total
    assert steps >= 1 and session._state.getTime() == pytest.approx(0.01)
    if idle:
        assert session.gui_idle.waits == []
    else:
        assert session.gui_idle.waits == [GUI_WAIT_MAX] * steps


@pytest.mark.gui
def test_view_marks_the_gui_busy_while_it_renders(qtbot, qsettings):
    from app.main_window import MainWindow
    from tests.app.sim_models import chain as make_chain

    window = MainWindow(settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    panel = window.simulation
    panel.load_built(make_chain(2))
    qtbot.waitUntil(lambda: panel.snapshot is not None, timeout=10000)
    seen = []
    # recorded inside each render (VTK's StartEvent comes from within Render)
    window.viewport.render_window.AddObserver(
        "StartEvent", lambda *_: seen.append(panel.session.gui_idle.is_set())
    )
    window.viewport.request_render()
    qtbot.waitUntil(lambda: len(seen) > 0, timeout=5000)
    assert not any(seen)  # busy during every render
    assert panel.session.gui_idle.is_set()  # and idle after it
    window.close()
