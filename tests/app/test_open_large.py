"""Opening a 2,000-body Ball chain in the studio window (issue 22: opening a 20,000-body chain
took minutes, the GUI thread making 60,000 joint slider rows and 200,000 plot list items).
The Joints panel makes rows only for the bodies near its view, the plot list is a view over a
model; both are driven by real input: the Joints panel's scroll bar dragged to the middle of
the chain and an angle typed into a spin box there; a body's name typed into the plot filter
and a quantity's check box clicked, then a step plots it. The 3-D view draws the chain's
12,000 decorations in steps, the event loop running between them, with its progress shown; no
garbage collection meanwhile walks the model's objects (each holds every thread)."""

from __future__ import annotations

import gc
import json

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QStyle, QStyleOptionSlider

from app.document.examples import example_path
from app.widgets.joint_sliders import quaternion_to_xyz_degrees

pytestmark = pytest.mark.gui

BODIES = 2000


def _chain_file(tmp_path, n: int):
    data = json.loads(example_path("chain50").read_text())
    model = data["model"]
    link = model["bodies"][1]
    model["bodies"] = [
        dict(link, name=f"b{i}", parent="Ground" if i == 0 else f"b{i - 1}") for i in range(n)
    ]
    model["name"] = f"{n}-link chain"
    model["hints"]["show_default_geometry"] = True  # Simbody's sketch: 6 decorations a body
    path = tmp_path / f"chain{n}.mbs.json"
    path.write_text(json.dumps(data))
    return path


def _drag_handle_to(bar, fraction: float) -> None:
    """Drag the scroll bar's handle with the mouse to ``fraction`` of the bar's length."""
    option = QStyleOptionSlider()
    bar.initStyleOption(option)
    handle = bar.style().subControlRect(
        QStyle.ComplexControl.CC_ScrollBar, option, QStyle.SubControl.SC_ScrollBarSlider, bar
    )
    target = QPoint(handle.center().x(), round(bar.height() * fraction))
    QTest.mousePress(bar, Qt.MouseButton.LeftButton, pos=handle.center())
    QTest.mouseMove(bar, target)
    QTest.mouseRelease(bar, Qt.MouseButton.LeftButton, pos=target)


def test_a_large_chain_opens_with_rows_in_view_only_and_is_posed_and_plotted(
    main_window, qtbot, tmp_path
):
    from PySide6.QtCore import QTimer

    from viz.scene import Scene

    window = main_window
    editor, panel = window.model_editor, window.simulation
    editor.interactive = False
    # what the event loop sees of the 3-D view's drawing while the model opens
    viewport = window.viewport
    progress = viewport.draw_progress
    seen: list[int] = []  # one entry per turn of the event loop while the view is drawn
    ticker = QTimer()
    ticker.setInterval(1)
    ticker.timeout.connect(
        lambda: viewport.drawing_in_steps() and progress.isVisible() and seen.append(1)
    )
    ticker.start()
    # the young objects each garbage collection walks (holding every thread) while it opens
    young: list[int] = []

    def collection(phase, info) -> None:
        if phase == "start" and info["generation"] < 2:
            young.append(gc.get_count()[0])

    gc.callbacks.append(collection)
    try:
        assert editor.open_path(_chain_file(tmp_path, BODIES), modal=False)
        qtbot.waitUntil(
            lambda: panel.snapshot is not None and len(panel.snapshot.model.body_names) > BODIES,
            timeout=120000,
        )
        qtbot.waitUntil(lambda: not window.viewport.drawing_in_steps(), timeout=120000)
    finally:
        gc.callbacks.remove(collection)
    ticker.stop()
    # what the open's workers made with the collector off (the model, its session) and what
    # the view's steps made was frozen at once: no collection walks the model's objects
    # (the GUI thread collects on its timer's ticks: there may be none while it opens)
    assert max(young, default=0) < 5000, f"young objects walked: {max(young)}"
    # 12,000 decorations drawn in steps with the progress shown, the event loop running
    # between them; the drawing is the one a Scene makes in one go
    geometry = panel.snapshot.geometry
    assert len(geometry) > 6 * BODIES
    assert seen, "the event loop never ran while the view was drawn"
    assert not progress.isVisible() and progress.maximum() == len(geometry)
    whole = Scene(instancing_threshold=window.viewport.scene.instancing_threshold)
    whole.set_geometry(geometry)
    assert window.viewport.scene.describe() == whole.describe()
    whole.close()
    sliders = panel.sliders
    # rows only near the view: a few dozen groups of the 2,000
    qtbot.waitUntil(lambda: len(sliders._boxes) > 0, timeout=5000)  # noqa: SLF001
    assert len(sliders._boxes) < 100  # noqa: SLF001
    assert len(sliders.euler_rows) == 3 * len(sliders._boxes)  # noqa: SLF001

    # drag the Joints panel's scroll bar to the middle of the chain
    bar = sliders._scroll.verticalScrollBar()  # noqa: SLF001
    qtbot.waitUntil(lambda: bar.isVisible() and bar.maximum() > 0, timeout=5000)
    _drag_handle_to(bar, 0.5)
    qtbot.waitUntil(lambda: bar.value() > bar.maximum() // 4, timeout=5000)

    def in_view():
        return sorted(
            (int(body[1:]) for (body, axis) in sliders.euler_rows if axis == 0),
            key=lambda i: i,
        )

    def visible_body():
        for i in in_view():
            row = sliders.euler_rows.get((f"b{i}", 0))
            if row is not None and not row.visibleRegion().isEmpty():
                return f"b{i}"
        return None

    qtbot.waitUntil(lambda: visible_body() is not None, timeout=5000)
    body = visible_body()
    assert BODIES // 4 < int(body[1:]) < 3 * BODIES // 4
    assert len(sliders._boxes) < 100  # noqa: SLF001  (the groups scrolled past are dropped)
    row = sliders.euler_rows[(body, 0)]
    assert row.spin.suffix().strip() == "deg"
    row.spin.setFocus()
    row.spin.selectAll()
    qtbot.keyClicks(row.spin, "30")
    qtbot.keyClick(row.spin, Qt.Key.Key_Return)
    idx = [sliders._global_index[(body, k)] for k in range(4)]  # noqa: SLF001

    def posed() -> bool:
        quat = panel.snapshot.q[idx]
        return abs(quaternion_to_xyz_degrees(quat)[0] - 30.0) < 1e-6

    qtbot.waitUntil(posed, timeout=20000)
    assert np.linalg.norm(panel.snapshot.q[idx]) == pytest.approx(1.0, abs=1e-12)

    # the plot list: type the body's name into the filter, tick its first quantity
    qtbot.waitUntil(lambda: panel._plots is not None, timeout=5000)  # noqa: SLF001
    plots = panel.plots
    assert len(plots.quantity_model.names) > 10 * BODIES
    plots.filter.setFocus()
    plots.filter.selectAll()
    qtbot.keyClicks(plots.filter, f" {body}.q")
    listed = plots.listed()
    assert listed == [f"q[{idx[k]}] {body}.q{k}" for k in range(4)]
    view = plots.quantities
    qtbot.waitUntil(lambda: not view.visibleRegion().isEmpty(), timeout=5000)
    rect = view.visualRect(plots.quantity_model.index(0, 0))
    QTest.mouseClick(
        view.viewport(),
        Qt.MouseButton.LeftButton,
        pos=QPoint(rect.left() + rect.height() // 2, rect.center().y()),
    )
    qtbot.waitUntil(lambda: listed[0] in plots.checked(), timeout=5000)
    assert listed[0] in plots.curves
    # a step (the toolbar's Step button) plots the posed body's q0: cos(15 deg) after the pose
    button = window.toolbar.widgetForAction(window.sim_actions["step"])
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(plots.plotted_data(listed[0])[0]) > 0, timeout=20000)
    t, q0 = plots.plotted_data(listed[0])
    assert q0[-1] == pytest.approx(np.cos(np.radians(15.0)), abs=0.02)


def test_lazy_joint_rows_follow_edits_and_show_the_state(qtbot):
    """A 500-body model's Joints panel: rows for the bodies in view only; an edit of one body's
    joint replaces only its group; a body scrolled to gets rows showing the latest State."""
    from app.widgets.joint_sliders import LAZY_ABOVE, JointSliders

    n = 500
    assert n > LAZY_ABOVE
    sliders = JointSliders()
    qtbot.addWidget(sliders)
    sliders.resize(400, 500)
    sliders.show()
    qtbot.waitExposed(sliders)

    def layout(types):
        q_index, k = {}, 0
        for name, kind in types.items():
            for which in range(4 if kind == "Ball" else 1):
                q_index[(name, which)] = k
                k += 1
        return q_index

    types = {f"b{i}": "Ball" for i in range(n)}
    q_index = layout(types)
    sliders.set_model(types, q_index, 1.0)

    class Snap:
        running = False
        q = np.zeros(len(q_index))

    Snap.q[[q_index[(f"b{i}", 0)] for i in range(n)]] = 1.0  # unit quaternions
    Snap.q[q_index[("b450", 0)]] = np.cos(np.radians(20.0))
    Snap.q[q_index[("b450", 1)]] = np.sin(np.radians(20.0))  # 40 deg about x
    sliders.update_snapshot(Snap())
    made = set(sliders._boxes)  # noqa: SLF001
    assert "b0" in made and 0 < len(made) < 50
    kept = {key: row for key, row in sliders.euler_rows.items() if key[0] != "b1"}

    types["b1"] = "Pin"
    q_index = layout(types)
    Snap.q = np.concatenate((Snap.q[:4], Snap.q[7:]))  # b1 has one q now
    sliders.set_model(types, q_index, 1.0)
    sliders.update_snapshot(Snap())
    assert ("b1", 0) in sliders.rows and ("b1", 0) not in sliders.euler_rows
    assert sliders._boxes["b1"].title() == "b1 (Pin)"  # noqa: SLF001
    assert all(sliders.euler_rows[key] is row for key, row in kept.items())

    sliders.scroll_to_body("b450")
    row = sliders.euler_rows[("b450", 0)]
    qtbot.waitUntil(lambda: not row.visibleRegion().isEmpty(), timeout=3000)
    assert row.spin.value() == pytest.approx(40.0, abs=0.01)
    assert ("b0", 0) not in sliders.euler_rows  # far out of view: dropped
    assert len(sliders._boxes) < 50  # noqa: SLF001
