"""Measures in the studio window (for real under Xvfb): added from the model tree, edited in
the property form, undone, chosen from the tree for plotting, and plotted live with the
engine's values. Also: removing the selected body while the view updates, and renaming a
body while a run is paused keeps its q and u."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.document import build, model_io
from app.document.examples import example_path
from engine import Stage
from tests.app.test_measures_document import PIVOT

pytestmark = pytest.mark.gui


@pytest.fixture
def studio(qtbot, qsettings):
    from app.main_window import MainWindow

    windows = []

    def make(model_path):
        window = MainWindow(model_path=model_path, settings=qsettings, restore_layout=False)
        window.model_editor.interactive = False
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=10000)
        windows.append(window)
        return window

    yield make
    for window in windows:
        window.close()


def wait_for_model(qtbot, window, predicate, timeout=10000):
    """Wait until the snapshot shown comes from a model whose ModelInfo satisfies
    ``predicate``."""
    panel = window.simulation

    def ready():
        snap = panel.snapshot
        return snap is not None and snap.model is not None and predicate(snap.model)

    qtbot.waitUntil(ready, timeout=timeout)


def test_add_edit_undo_and_plot_a_measure_from_the_tree(studio, qtbot):
    window = studio(example_path("pendulum"))
    editor, panel = window.model_editor, window.simulation
    tree = editor.tree
    assert tree.select_key("body:link")
    tree.type_actions[("measures", "StationHeight")].trigger()
    doc = editor.document
    assert doc.measure_names() == ["stationHeight link"]
    assert tree.current_key() == "measures:0"
    assert tree.model.index_of("measures:0").data() == "stationHeight link"
    # the property form edits it (undoably); a bad value is refused beside the field
    form = editor.properties
    station = form.field("args.station")
    station.setText("0 -1 0")
    station.editingFinished.emit()
    assert doc.measures[0].args["station"] == (0.0, -1.0, 0.0)
    name = form.field("element.name")
    name.setText("bob height")
    name.editingFinished.emit()
    assert doc.measure_names() == ["bob height"]
    qtbot.waitUntil(lambda: form.fields.get("args.station") is not None, timeout=2000)
    form.field("args.station").setText("0 x 0")
    form.field("args.station").editingFinished.emit()
    assert form.errors() and doc.measures[0].args["station"] == (0.0, -1.0, 0.0)
    # an operation on the selected measure
    tree.type_actions[("measures", "Maximum")].trigger()
    assert doc.measures[1].type == "Maximum" and doc.measures[1].args == {"operand": "bob height"}
    editor.undo_stack.undo()
    assert doc.measure_names() == ["bob height"]
    # chosen from the tree, it is plotted as soon as the simulated model has it
    assert tree.select_key("measures:0")
    plots = panel.plots
    wait_for_model(qtbot, window, lambda m: "bob height" in m.measure_names)
    qtbot.waitUntil(lambda: "measure bob height" in plots.checked(), timeout=5000)
    window.sim_actions["play"].trigger()
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.4, timeout=15000)
    window.sim_actions["pause"].trigger()
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    qtbot.waitUntil(lambda: len(plots.plotted_data("measure bob height")[0]) > 10, timeout=5000)
    t, height = plots.plotted_data("measure bob height")
    # the plotted values are the engine's: the measure evaluated in States made from the
    # sampled q and u, and the pendulum's geometry
    samples = panel.snapshot.model.samples
    rows = samples.all()
    q = rows[:, samples.columns.index("q[0] link.q0")]
    assert np.array_equal(t, rows[-len(t) :, 0])
    q = q[-len(t) :]
    built = build(doc)
    for k in range(0, len(t), 7):
        state = built.state.copy()
        state.setTime(t[k])
        state.setQ([q[k]])
        built.system.realize(state, Stage.Position)
        assert height[k] == pytest.approx(built.measures["bob height"].getValue(state), rel=1e-12)
    np.testing.assert_allclose(height, PIVOT - np.cos(q), rtol=1e-12)
    assert height.min() < PIVOT - math.cos(math.radians(60)) - 0.05  # it swung down


def test_measures_survive_save_and_open_in_the_studio(studio, qtbot, tmp_path):
    window = studio(example_path("double_pendulum"))
    editor = window.model_editor
    editor.tree.select_key("body:lower")
    editor.add_measure("JointCoordinate")
    editor.add_measure("Differentiate")
    assert editor.document.measures[1].args == {"operand": "jointCoordinate lower"}
    path = tmp_path / "with_measures.mbs.json"
    assert editor.save_to(path)
    assert model_io.load(path) == editor.document
    other = studio(path)
    assert other.model_editor.document.measure_names() == editor.document.measure_names()
    wait_for_model(qtbot, other, lambda m: len(m.measure_names) == 2)


def test_removing_the_selected_body_while_the_view_updates(studio, qtbot):
    """The selection triad of a removed body must not outlive it (it used to make every
    frame raise IndexOutOfRangeError)."""
    window = studio(example_path("double_pendulum"))
    editor, panel = window.model_editor, window.simulation
    editor.tree.select_key("body:lower")
    assert panel.selected_body == "lower"
    window.sim_actions["play"].trigger()
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.1, timeout=10000)
    editor.remove_selected()
    assert editor.document.body_names() == ["upper"]
    assert panel.selected_body == "upper"  # the tree selected the parent
    wait_for_model(qtbot, window, lambda m: len(m.body_names) == 2)
    frames = window.viewport.frames_rendered
    t0 = panel.snapshot.time
    qtbot.waitUntil(
        lambda: panel.snapshot.time > t0 + 0.2 and window.viewport.frames_rendered > frames + 5,
        timeout=10000,
    )
    # the view draws the one-body model with the triad on the surviving body
    assert window.viewport.scene._max_body_id <= 1  # noqa: SLF001
    # remove the selected body again, now the last one, while running
    editor.tree.select_key("body:upper")
    editor.remove_selected()
    wait_for_model(qtbot, window, lambda m: len(m.body_names) == 1)
    frames = window.viewport.frames_rendered
    qtbot.waitUntil(lambda: window.viewport.frames_rendered > frames + 3, timeout=10000)


def test_removing_a_body_before_the_selected_one_keeps_the_view_drawing(studio, qtbot):
    """The selected body moves to a lower index in the rebuilt model: the old triad names an
    index the new model no longer has."""
    window = studio(example_path("four_bar"))
    editor, panel = window.model_editor, window.simulation
    names = panel.snapshot.model.body_names
    last = names[-1]
    editor.tree.select_key(f"body:{last}")
    window.sim_actions["play"].trigger()
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.05, timeout=10000)
    victim = next(n for n in names[1:] if n != last and last not in editor.document.descendants(n))
    editor.edit("remove", lambda d: d.remove_body(victim))
    assert panel.selected_body == last
    wait_for_model(qtbot, window, lambda m: victim not in m.body_names)
    frames = window.viewport.frames_rendered
    qtbot.waitUntil(lambda: window.viewport.frames_rendered > frames + 5, timeout=10000)


def test_renaming_a_body_keeps_its_q_and_u(studio, qtbot):
    window = studio(example_path("double_pendulum"))
    editor, panel = window.model_editor, window.simulation
    window.sim_actions["play"].trigger()
    qtbot.waitUntil(lambda: panel.snapshot.time > 0.3, timeout=10000)
    window.sim_actions["pause"].trigger()
    qtbot.waitUntil(lambda: not panel.snapshot.running, timeout=5000)
    before = panel.snapshot
    assert before.time > 0.3
    editor.rename_body("lower", "forearm")
    wait_for_model(qtbot, window, lambda m: "forearm" in m.body_names)
    after = panel.snapshot
    assert after.model_serial != before.model_serial
    assert after.time == before.time
    np.testing.assert_array_equal(after.q, before.q)
    np.testing.assert_array_equal(after.u, before.u)
    # and undoing the rename too
    editor.undo_stack.undo()
    wait_for_model(qtbot, window, lambda m: "lower" in m.body_names)
    np.testing.assert_array_equal(panel.snapshot.q, before.q)
    np.testing.assert_array_equal(panel.snapshot.u, before.u)


def test_operand_choice_in_the_property_form_lists_only_earlier_measures(studio, qtbot):
    window = studio(example_path("pendulum"))
    editor = window.model_editor
    editor.tree.select_key("body:link")
    editor.add_measure("JointCoordinate")
    editor.add_measure("Time")
    editor.add_measure("Integrate", operands=["jointCoordinate link"])
    editor.add_measure("Sinusoid")
    doc = editor.document
    assert doc.measure_names() == ["jointCoordinate link", "time", "integrate", "sinusoid"]
    assert editor.tree.select_key("measures:2")
    form = editor.properties
    qtbot.waitUntil(lambda: "args.derivative" in form.fields, timeout=2000)
    combo = form.field("args.derivative")
    items = [combo.itemText(i) for i in range(combo.count())]
    assert items == ["jointCoordinate link", "time"]  # not itself, not the later sinusoid
    combo.setCurrentText("time")
    assert doc.measures[2].args["derivative"] == "time"
    editor.undo_stack.undo()
    assert doc.measures[2].args["derivative"] == "jointCoordinate link"
    # removing the operand from the tree removes the measure built on it
    assert editor.tree.select_key("measures:0")
    editor.remove_selected()
    assert doc.measure_names() == ["time", "sinusoid"]
