"""GUI fixes from a newcomer's pass over the studio's examples, each driven by real input."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.main_window import MainWindow
from app.widgets.offset_axis import offset_text
from tests.app.window_activation import activate

pytestmark = pytest.mark.gui


def test_the_energy_offset_of_a_running_pendulum_is_shown_whole(qtbot, open_example):
    """The pendulum's total energy drifts by ~1e-9 J around 12.26 J: its plot's ticks show
    the drift and a label the offset, 12.2624999... with ten digits and more; in the docked
    plot (~180 px high) that label is readable in full, inside the plot."""
    window = open_example("pendulum")
    panel = window.simulation
    plots = panel.plots
    axis = plots.plot.getAxis("left")
    activate(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_F5)  # Play
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.3, timeout=15000)
    qtbot.keyClick(window, Qt.Key.Key_F5, Qt.KeyboardModifier.ShiftModifier)  # Pause
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    qtbot.waitUntil(lambda: axis.offset is not None, timeout=5000)
    qtbot.wait(50)  # the plot repaints
    label = axis.offset_label
    assert label.isVisible()
    assert label.text.startswith("Δ from 12.26"), label.text
    # the digits that tell the offset apart at the axis's span (how many depends on how far
    # the energy drifted in the steps taken: 12.2625 or 12.26249999...)
    low, high = axis.range
    assert label.text == f"Δ from {offset_text(axis.offset, low, high)}"
    shown = plots.plot.plotItem.vb.sceneBoundingRect()  # the curves' area, which clips it
    assert shown.contains(label.sceneBoundingRect()), (label.sceneBoundingRect(), shown)
    window.model_editor.interactive = False
    window.close()


def test_every_legend_entry_of_the_gimbal_lock_plot_is_inside_the_plot(qtbot, open_example):
    """The gimbal-lock example plots its six generalized speeds: in the docked plot the
    legend lays them out beside the curves' area, every entry within the plot's height and
    none over the curves (inside the curves' area it covered them)."""
    window = open_example("gimbal_lock")
    panel = window.simulation
    plots = panel.plots
    qtbot.waitUntil(lambda: len(plots.checked()) == 6, timeout=5000)
    activate(qtbot, window)
    qtbot.keyClick(window, Qt.Key.Key_F5)  # Play
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.2, timeout=15000)
    qtbot.keyClick(window, Qt.Key.Key_F5, Qt.KeyboardModifier.ShiftModifier)  # Pause
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    qtbot.wait(50)
    legend = plots.plot.plotItem.legend
    assert [label.text for _, label in legend.items] == [f"{n} (rad/s)" for n in plots.checked()]
    curves = plots.plot.plotItem.vb.sceneBoundingRect()
    shown = plots.plot.sceneRect()
    for _, label in legend.items:
        box = label.sceneBoundingRect()
        assert shown.contains(box) and not curves.intersects(box), (label.text, box, curves)
    window.model_editor.interactive = False
    window.close()


def test_the_history_budget_box_says_what_it_is_and_takes_typed_megabytes(qtbot, qsettings):
    """Beside the timeline, "512 MB" alone did not say what the megabytes are for: the box
    reads "History 512 MB", and a user clicks in it, selects (Ctrl+A), types and presses
    Return as in any number box."""
    window = MainWindow(settings=qsettings, restore_layout=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    box = window.timeline.budget_box
    assert box.text() == f"History {box.value()} MB"
    assert box.isVisible() and box.width() >= box.sizeHint().width()
    qtbot.mouseClick(box.lineEdit(), Qt.MouseButton.LeftButton)
    qtbot.keyClick(box, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(box, "256")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert box.value() == 256 and box.text() == "History 256 MB"
    assert int(qsettings.value("history/budget_mb")) == 256
