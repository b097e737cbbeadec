"""Edits of a model's bodies change only what they touch in the studio (issue 22: a rename or
an added body rebuilt the whole tree, every joint slider and the 3-D view; seconds per edit at
1,000 bodies). The edits are made as a user makes them: typing in the Properties form, keys in
the model tree, Ctrl+Z / Ctrl+Shift+Z; after each one the tree, the sliders and the view must
show the model exactly as they would if built afresh from it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from app.document import BodySpec, FrameSpec, GeometrySpec, ModelData, ModelDocument
from tests.app.open_in_window import wait_edit_shown

pytestmark = pytest.mark.gui

INERTIA = (0.01, 0.01, 0.01, 0.0, 0.0, 0.0)


def _model() -> ModelDocument:
    """Ground - b0 - b1 - ... - b7 (Ball and Pin joints alternating), and a branch c0 - c1
    on b2."""
    bodies = []
    for i in range(8):
        bodies.append(
            BodySpec(
                f"b{i}",
                parent="Ground" if i == 0 else f"b{i - 1}",
                mobilizer="Ball" if i % 2 else "Pin",
                X_PF=FrameSpec((0.0, -0.2, 0.0)),
                inertia=INERTIA,
                geometry=(GeometrySpec("sphere", {"radius": 0.05}, color=(0.2, 0.6, 0.9)),),
            )
        )
    for i in range(2):
        bodies.append(
            BodySpec(
                f"c{i}",
                parent="b2" if i == 0 else "c0",
                mobilizer="Pin",
                X_PF=FrameSpec((0.2, 0.0, 0.0)),
                inertia=INERTIA,
                geometry=(GeometrySpec("brick", {"half_lengths": (0.05, 0.05, 0.05)}),),
            )
        )
    return ModelDocument(ModelData(name="branches", bodies=bodies))


def _rows(model, parent=None) -> list:
    """The tree's rows as nested (name, type, key, tooltip, children) tuples."""
    from app.tree.tree_model import KEY_ROLE

    parent = parent if parent is not None else model.index(-1, -1)
    out = []
    for row in range(model.rowCount(parent)):
        index = model.index(row, 0, parent)
        out.append(
            (
                index.data(),
                model.index(row, 1, parent).data(),
                index.data(KEY_ROLE),
                index.data(Qt.ItemDataRole.ToolTipRole),
                _rows(model, index),
            )
        )
    return out


def _slider_layout(sliders) -> list:
    """Titles of the sliders' body groups in order, and the keys of their rows."""
    from PySide6.QtWidgets import QGroupBox

    layout = sliders._layout  # noqa: SLF001
    titles = [
        layout.itemAt(i).widget().title()
        for i in range(layout.count())
        if isinstance(layout.itemAt(i).widget(), QGroupBox)
    ]
    return [titles, sorted(sliders.rows), sorted(sliders.euler_rows)]


@pytest.fixture
def studio(main_window, qtbot):
    window = main_window
    window.model_editor.interactive = False
    window.model_editor.set_document(_model(), None)
    qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=30000)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    return window


class _Watch:
    """Counts the tree's resets and checks, after each edit, that the tree, the sliders and
    the view show the document as a fresh build of them would."""

    def __init__(self, window, qtbot) -> None:
        self.window, self.qtbot = window, qtbot
        self.resets = 0
        window.model_editor.tree.model.modelReset.connect(self._reset)

    def _reset(self) -> None:
        self.resets += 1

    def check(self, serial_before: int) -> None:
        from app.tree.tree_model import ModelTreeModel
        from app.widgets.joint_sliders import JointSliders

        window, qtbot = self.window, self.qtbot
        editor, panel = window.model_editor, window.simulation
        document = editor.document
        fresh = ModelTreeModel(document)
        assert _rows(editor.tree.model, None) == _rows(fresh, None)
        fresh.detach()
        wait_edit_shown(qtbot, panel, document, serial_before)
        qtbot.wait(50)
        model = panel.snapshot.model
        rebuilt = JointSliders()
        rebuilt.set_model(model.mobilizer_types, model.q_index, model.length_scale)
        assert _slider_layout(panel.sliders) == _slider_layout(rebuilt)
        # the view draws what a view built afresh from the shown decorations draws: the same
        # items on the same bodies, batched alike, and no actor left over
        from viz.scene import Scene

        scene = window.viewport.scene
        fresh = Scene(instancing_threshold=scene.instancing_threshold)
        fresh.set_geometry(tuple(panel.snapshot.geometry))
        assert scene.describe() == fresh.describe()
        static = len(scene._static) + len(scene._groups)  # noqa: SLF001  (not the selection's)
        assert static == fresh.num_actors()
        assert scene.num_actors() - static == len(scene._dynamic)  # noqa: SLF001
        fresh.close()
        # every body is drawn: one sphere or brick per body, placed on it
        drawn = sorted(
            {it.body_id for it in scene._static if it.kind in ("sphere", "brick")}  # noqa: SLF001
            | {
                int(b)
                for g in scene._groups  # noqa: SLF001
                for b in getattr(g, "body_idx", ())
            }
        )
        assert set(range(1, len(document.bodies) + 1)) <= set(drawn)
        # the plot list, q labels and joints are those of a session opened afresh
        from app.document import build
        from app.simulation.session import SimulationSession

        opened = SimulationSession(build(document.data, True))
        assert panel.plots.quantity_model.names == opened.samples.columns[1:]
        assert model.q_labels == opened.model_info.q_labels
        assert list(model.q_index.items()) == list(opened.model_info.q_index.items())
        assert list(model.joint_layout.items()) == list(opened.model_info.joint_layout.items())


def _serial(window) -> int:
    return window.simulation.snapshot.model_serial


def _type_into(qtbot, field, text: str) -> None:
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def test_edits_change_only_their_rows_and_sliders(studio, qtbot):
    window = studio
    editor = window.model_editor
    tree, form, sliders = editor.tree, editor.properties, window.simulation.sliders
    watch = _Watch(window, qtbot)
    item_b5 = tree.model._body_items["b5"]  # noqa: SLF001
    row_b1 = sliders.euler_rows[("b1", 0)]
    stack = editor.undo_stack
    start = stack.index()
    scene = window.viewport.scene
    (b0_sphere,) = [
        it
        for it in scene._static  # noqa: SLF001
        if it.kind == "sphere" and it.body_id == 1 and it.user_ref != "default"
    ]
    b0_actor = b0_sphere.actor

    # rename b3 by typing its new name in the Properties form
    tree.select_body("b3")
    qtbot.waitUntil(lambda: "name" in form.fields, timeout=2000)
    serial = _serial(window)
    _type_into(qtbot, form.field("name"), "elbow")
    qtbot.waitUntil(lambda: "elbow" in editor.document.body_names(), timeout=5000)
    qtbot.waitUntil(lambda: tree.current_key() == "body:elbow", timeout=2000)
    watch.check(serial)
    assert editor.document.body("b4").parent == "elbow"

    # another mobilizer for b5, chosen with the keyboard in the form's combo box
    tree.select_body("b5")
    qtbot.waitUntil(lambda: "mobilizer" in form.fields, timeout=2000)
    serial = _serial(window)
    combo = form.field("mobilizer")
    combo.setFocus()
    qtbot.keyClicks(combo, "Slider")
    qtbot.waitUntil(lambda: editor.document.body("b5").mobilizer == "Slider", timeout=5000)
    watch.check(serial)
    assert ("b5", 0) in sliders.rows and ("b5", 0) not in sliders.euler_rows

    # a new body under c0 with the Add body button
    tree.select_body("c0")
    serial = _serial(window)
    qtbot.mouseClick(tree.add_body_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(editor.document.bodies) == 11, timeout=5000)
    added = editor.document.bodies[-1].name
    assert editor.document.body(added).parent == "c0"
    assert tree.current_key() == f"body:{added}"
    watch.check(serial)

    # c0 moves under b6 (its subtree with it), chosen in the Parent combo box
    tree.select_body("c0")
    qtbot.waitUntil(lambda: "parent" in form.fields, timeout=2000)
    serial = _serial(window)
    combo = form.field("parent")
    combo.setFocus()
    qtbot.keyClicks(combo, "b6")
    qtbot.waitUntil(lambda: editor.document.body("c0").parent == "b6", timeout=5000)
    watch.check(serial)
    assert tree.current_key() == "body:c0"
    assert tree.view.isExpanded(tree.model.index_of("body:c0"))

    # the Delete key in the tree removes b6 with c0, c1 and the added body below it
    tree.select_body("b6")
    tree.view.setFocus()
    serial = _serial(window)
    qtbot.keyClick(tree.view, Qt.Key.Key_Delete)
    assert "b6" not in editor.document.body_names() and "c1" not in editor.document.body_names()
    assert tree.current_key() == "body:b5"  # the removed body's parent
    watch.check(serial)

    # undo the removal, the re-parenting, ... the rename (a combo box typed into makes an
    # edit for each key that picks another entry); redo them
    end = stack.index()
    while stack.index() > start:
        serial = _serial(window)
        tree.view.setFocus()
        qtbot.keyClick(tree.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        watch.check(serial)
    assert editor.document.body_names()[3] == "b3" and editor.document.body("c0").parent == "b2"
    while stack.index() < end:
        serial = _serial(window)
        tree.view.setFocus()
        qtbot.keyClick(
            tree.view,
            Qt.Key.Key_Z,
            Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
        )
        watch.check(serial)
    assert "b6" not in editor.document.body_names() and "elbow" in editor.document.body_names()

    assert watch.resets == 0, "an edit rebuilt the whole model tree"
    # no edit redrew b0's sphere: the view changed only what the edits changed
    assert b0_sphere.actor is b0_actor and scene.renderer.HasViewProp(b0_actor)
    # the row and the sliders of a body no edit touched are the very same widgets
    assert tree.model._body_items["b5"] is item_b5  # noqa: SLF001
    assert sliders.euler_rows[("b1", 0)] is row_b1
    assert ("c1", 0) not in sliders.rows  # c1 is removed again


def test_sliders_keep_the_rows_of_bodies_an_edit_leaves_alone(qtbot):
    from app.widgets.joint_sliders import JointSliders

    sliders = JointSliders()
    qtbot.addWidget(sliders)
    types = {f"b{i}": ("Ball" if i % 2 else "Pin") for i in range(6)}
    q_index, k = {}, 0
    for name, kind in types.items():
        for which in range(4 if kind == "Ball" else 1):
            q_index[(name, which)] = k
            k += 1
    sliders.set_model(types, q_index, 1.0)
    kept = {key: row for key, row in sliders.rows.items() if key[0] != "b2"}
    kept_euler = dict(sliders.euler_rows)
    # b2 becomes a Slider; everything after it moves by nothing (both have one q)
    types["b2"] = "Slider"
    sliders.set_model(types, q_index, 1.0)
    for key, row in kept.items():
        assert sliders.rows[key] is row
    assert all(sliders.euler_rows[key] is row for key, row in kept_euler.items())
    assert sliders._boxes["b2"].title() == "b2 (Slider)"  # noqa: SLF001
    # a new body at the end, and b1 removed: the others' q indices shift
    types2 = {n: t for n, t in types.items() if n != "b1"}
    types2["b6"] = "Pin"
    q2, k = {}, 0
    for name, kind in types2.items():
        for which in range(4 if kind == "Ball" else 1):
            q2[(name, which)] = k
            k += 1
    sliders.set_model(types2, q2, 1.0)
    assert sliders.rows[("b0", 0)] is kept[("b0", 0)]
    assert ("b1", 0) not in sliders.euler_rows and ("b6", 0) in sliders.rows
    fresh = JointSliders()
    qtbot.addWidget(fresh)
    fresh.set_model(types2, q2, 1.0)
    assert _slider_layout(sliders) == _slider_layout(fresh)
    # the shown values follow the new q indices
    import numpy as np

    class Snap:
        running = False
        q = np.arange(len(q2), dtype=float) * 0.01

    sliders.update_snapshot(Snap())
    fresh.update_snapshot(Snap())
    for key, row in fresh.rows.items():
        assert sliders.rows[key].value() == pytest.approx(row.value())
    for key, row in fresh.euler_rows.items():
        assert sliders.euler_rows[key].value() == pytest.approx(row.value())


def test_the_plot_list_follows_a_new_model_in_place(qtbot):
    """A new model's quantities replace the list's items in place (a filter hides most of
    them, as when a body is selected); the checked quantities that remain stay checked."""
    from app.simulation.samples import SampleBuffer
    from app.widgets.plots import PlotsWidget

    def columns(names):
        return ["t"] + [f"q[{i}] {n}.q0" for i, n in enumerate(names)] + ["total energy"]

    plots = PlotsWidget()
    qtbot.addWidget(plots)
    plots.set_buffer(SampleBuffer(columns([f"b{i}" for i in range(300)]), 4))
    plots.set_checked("q[7] b7.q0")
    plots.show_body("b7")
    assert plots.listed() == ["q[7] b7.q0"]
    for names in (
        [f"b{i}" for i in range(300) if i != 3],  # one body fewer: the indices shift
        [f"b{i}" for i in range(300)] + ["extra"],  # one more
        ["b7", "elbow"],
    ):
        plots.set_buffer(SampleBuffer(columns(names), 4))
        expected = columns(names)[1:]
        assert plots.quantity_model.names == expected
        assert plots.listed() == [n for n in expected if " b7." in n]
        assert plots.checked() == [n for n in expected if n == "q[7] b7.q0"] or (
            plots.checked() == ["total energy"]
        )
    # a click on an item's check box still plots it
    plots.show_body("")
    plots.show()
    qtbot.waitExposed(plots)
    index = plots.quantity_model.index(1, 0)
    rect = plots.quantities.visualRect(index)
    from PySide6.QtCore import QPoint

    qtbot.mouseClick(
        plots.quantities.viewport(),
        Qt.MouseButton.LeftButton,
        pos=QPoint(rect.left() + rect.height() // 2, rect.center().y()),
    )
    assert index.data() in plots.checked() and index.data() in plots.curves
