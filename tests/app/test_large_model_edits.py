"""Editing and loading a large model (issue 22: a 20,000-body chain took 29 s to load and
seconds per edit). A chain too deep to nest is listed flat in the model tree; an edit made
as a user makes it (the tree's own editor, the Properties form, the Delete key) changes only
its rows, and the document, the tree and a System built from the document agree. A large
file whose bodies differ is read part by part (equal parts once): its refusals name the same
field with the same message as a small file with the same bad body."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLineEdit, QWidget

from app.document import (
    GROUND,
    BodySpec,
    FrameSpec,
    GeometrySpec,
    ModelData,
    ModelDocument,
    model_io,
)
from app.document.examples import example_path
from app.document.model_io import ModelFileError

N = 2000


def _chain_document(n: int, geometry=None, name: str = "long chain") -> ModelDocument:
    """A chain of ``n`` 10 cm Ball links, each drawn with ``geometry`` (a 1 cm cylinder by
    default)."""
    if geometry is None:
        geometry = (GeometrySpec("cylinder", {"radius": 0.01, "half_height": 0.05}),)
    bodies = [
        BodySpec(
            f"b{i}",
            parent="Ground" if i == 0 else f"b{i - 1}",
            mobilizer="Ball",
            X_PF=FrameSpec((0.0, -0.1, 0.0)),
            com=(0.0, -0.05, 0.0),
            inertia=(0.01, 0.001, 0.01, 0.0, 0.0, 0.0),
            geometry=geometry,
        )
        for i in range(n)
    ]
    return ModelDocument(ModelData(name=name, bodies=bodies))


def _rows(model, parent=None) -> list:
    """The tree's rows as nested (name, type, key, children) tuples."""
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
                _rows(model, index),
            )
        )
    return out


@pytest.fixture
def editor(qtbot):
    from app.tree.editor import ModelEditor

    editor = ModelEditor(None)
    editor.interactive = False
    editor.set_document(_chain_document(N), None, simulate=False)
    window = QWidget()
    qtbot.addWidget(window)
    layout = QHBoxLayout(window)
    layout.addWidget(editor.tree)
    layout.addWidget(editor.properties)
    window.resize(900, 600)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    yield editor
    editor.shutdown()
    # Without a window, the editor and its File menus (Examples, Open Recent) have no Qt
    # parent: the lambdas connected to their actions keep the editor alive through Qt (a cycle
    # the collector cannot see, counted as a leaked ModelEditor by later tests in this
    # process). Deleting their Qt objects frees it, as closing the window does in the studio.
    for menu in (editor.examples_menu, editor.recent_menu):
        menu.deleteLater()
    editor.deleteLater()


@pytest.mark.gui
def test_edits_of_a_long_chain_change_only_their_rows(editor, qtbot):
    from app.document import build
    from app.tree.tree_model import ModelTreeModel

    tree, model, form = editor.tree, editor.tree.model, editor.properties
    document = editor.document
    assert model.flat  # 2,000 levels: listed flat under Ground, parents named
    ground = model._body_items["Ground"]  # noqa: SLF001
    assert ground.rowCount() == N
    assert model.index(1000, 1, ground.index()).data() == "Ball on b999"
    resets = []
    model.modelReset.connect(lambda: resets.append(1))
    item = model._body_items["b1000"]  # noqa: SLF001

    # rename b1000 in the tree's own editor: F2 on its row, type, Enter
    tree.select_body("b1000")
    view = tree.view
    view.setFocus()
    qtbot.waitUntil(view.hasFocus, timeout=2000)
    qtbot.keyClick(view, Qt.Key.Key_F2)
    qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QLineEdit), timeout=2000)
    line = QApplication.focusWidget()
    line.selectAll()
    qtbot.keyClicks(line, "elbow")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "elbow" in document.body_names(), timeout=5000)
    assert model._body_items["elbow"] is item and item.text() == "elbow"  # noqa: SLF001
    assert document.body("b1001").parent == "elbow"
    assert model._body_items["b1001"].parent() is ground  # noqa: SLF001
    assert model.index(1001, 1, ground.index()).data() == "Ball on elbow"

    # the mass of b1500 typed in the Properties form
    tree.select_body("b1500")
    qtbot.waitUntil(lambda: form.key == "body:b1500" and "mass" in form.fields, timeout=2000)
    field = form.field("mass")
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, "0.25")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: document.body("b1500").mass == 0.25, timeout=5000)
    assert "0.25 kg" in model._body_items["b1500"].toolTip()  # noqa: SLF001

    # remove the last body with the Delete key in the tree
    tree.select_body(f"b{N - 1}")
    view.setFocus()
    qtbot.waitUntil(view.hasFocus, timeout=2000)
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: f"b{N - 1}" not in document.body_names(), timeout=5000)
    assert ground.rowCount() == N - 1
    qtbot.waitUntil(lambda: tree.current_key() == f"body:b{N - 2}", timeout=2000)

    assert not resets, "an edit of one body rebuilt the whole tree"
    fresh = ModelTreeModel(document)
    assert _rows(model) == _rows(fresh)
    fresh.detach()
    built = build(document)
    assert built.body_name_of_index[1:] == document.body_names()
    mobod = built.mobilized_bodies["elbow"]
    assert mobod.getParentMobilizedBody().getMobilizedBodyIndex() == built.index_of("b999")
    assert built.mobilized_bodies["b1500"].getBodyMass(built.state) == pytest.approx(0.25)


def test_a_shallow_tree_stays_nested():
    from app.tree.tree_model import MAX_NESTED_DEPTH, ModelTreeModel

    document = _chain_document(MAX_NESTED_DEPTH)
    model = ModelTreeModel(document)
    assert not model.flat
    assert model._body_items["b5"].parent() is model._body_items["b4"]  # noqa: SLF001
    document.add_body(BodySpec("deeper", parent=f"b{MAX_NESTED_DEPTH - 1}"))
    assert model.flat  # one level more: listed flat
    assert model._body_items["deeper"].parent() is model._body_items["Ground"]  # noqa: SLF001
    model.detach()


def _varied_chain(n: int) -> dict:
    """chain50's link repeated ``n`` times, each body's X_PF and mass its own (so each body
    is read in full, its shared parts once)."""
    data = json.loads(example_path("chain50").read_text())
    model = data["model"]
    link = model["bodies"][1]
    model["bodies"] = [
        dict(
            link,
            name=f"b{i}",
            parent="Ground" if i == 0 else f"b{i - 1}",
            mass=0.1 + 1e-7 * i,
            X_PF={"p": [0.0, -0.08 - 1e-6 * i, 0.0], "rpy": [0.0, 0.0, 0.0]},
        )
        for i in range(n)
    ]
    return data


BAD = [
    lambda b: b["X_PF"]["p"].__setitem__(1, float("inf")),
    lambda b: b.update(X_BM={"p": [0.0, "x", 0.0]}),
    lambda b: b["geometry"][0]["params"].update(radius=-1.0),
    lambda b: b["geometry"][0].update(color=[2.0, 0.0, 0.0]),
    lambda b: b.update(q=[1.0, 0.0, 0.0]),
    lambda b: b.update(u=[0.0, True, 0.0]),
    lambda b: b.update(mobilizer_params={"nonsense": 1.0}),
    lambda b: b.update(inertia=[1.0, 1.0, 5.0, 0.0, 0.0, 0.0]),
    lambda b: b.update(com=[0.0, 10**400, 0.0]),
    lambda b: b.update(mass=-1.0),
]


@pytest.mark.parametrize("spoil", BAD)
def test_a_large_file_s_refusals_are_a_small_file_s(spoil):
    """The same bad body (with the repeated parts' values) is refused with the same field and
    message at index 1,500 of 2,000 bodies as at index 2 of 3."""
    refusals = []
    for n, k in ((2000, 1500), (3, 2)):
        data = _varied_chain(n)
        body = json.loads(json.dumps(data["model"]["bodies"][1]))  # a deep copy
        body.update(name=f"b{k}", parent=f"b{k - 1}")
        spoil(body)
        data["model"]["bodies"][k] = body
        with pytest.raises(ModelFileError) as info:
            model_io.loads(json.dumps(data))
        refusals.append((info.value.field.replace(f"bodies[{k}]", "bodies[k]"), info.value.message))
    assert refusals[0] == refusals[1]
    assert refusals[0][0].startswith("model.bodies[k].")


WINDOW_N = 300  # past the sliders' lazy layout (200 bodies) and the tree's nesting (64 levels)


def _items_by_body(scene) -> dict[int, set[int]]:
    """The ids of the 3-D view's static draw items (batched or not) on each body index."""
    out: dict[int, set[int]] = {}
    for it, body in zip(scene._items, scene._item_body.tolist(), strict=True):  # noqa: SLF001
        out.setdefault(body, set()).add(id(it))
    return out


@pytest.mark.gui
def test_edits_in_the_window_change_only_what_they_touch(main_window, qtbot, tmp_path):
    """A long chain opened from its file in the studio; a rename typed with F2 in the tree, a
    mass typed in the Properties form and a body removed with the Delete key change only
    that body's tree row, slider group and 3-D items; the 3-D view uses the worker's pairing
    of old and new decorations; and the studio then shows what a fresh open of the saved
    file shows."""
    from app.document import build
    from app.tree.tree_model import ModelTreeModel
    from viz.decoration_keys import KeyedGeometry
    from viz.scene import Scene
    from viz.system_decorations import static_decorations

    window = main_window
    from tests.app.open_in_window import open_in_window, wait_edit_shown

    editor, panel = window.model_editor, window.simulation
    open_in_window(qtbot, window, tmp_path / "chain.mbs.json", _chain_document(WINDOW_N))
    tree, form, sliders = editor.tree, editor.properties, panel.sliders
    scene = window.viewport.scene
    model, document = tree.model, editor.document
    assert model.flat and sliders._lazy  # noqa: SLF001
    resets = []
    model.modelReset.connect(lambda: resets.append(1))

    def shown(serial: int) -> None:
        wait_edit_shown(qtbot, panel, document, serial)
        qtbot.wait(50)

    # rename b150 with F2 in the tree: its row and slider group change, nothing is redrawn
    tree.select_body("b150")
    sliders.scroll_to_body("b150")
    qtbot.wait(50)
    boxes = dict(sliders._boxes)  # noqa: SLF001
    assert "b150" in boxes and len(boxes) > 3
    items = _items_by_body(scene)
    rows = {n: model._body_items[n] for n in ("b149", "b150", "b151")}  # noqa: SLF001
    serial = panel.snapshot.model_serial
    tree.view.setFocus()
    qtbot.waitUntil(tree.view.hasFocus, timeout=2000)
    qtbot.keyClick(tree.view, Qt.Key.Key_F2)
    qtbot.waitUntil(lambda: isinstance(QApplication.focusWidget(), QLineEdit), timeout=2000)
    line = QApplication.focusWidget()
    line.selectAll()
    qtbot.keyClicks(line, "elbow")
    qtbot.keyClick(line, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: "elbow" in document.body_names(), timeout=5000)
    shown(serial)
    assert model._body_items["elbow"] is rows["b150"]  # noqa: SLF001
    assert model._body_items["b149"] is rows["b149"]  # noqa: SLF001
    assert model._body_items["b151"] is rows["b151"]  # noqa: SLF001
    assert model._body_items["b151"].parent().child(151, 1).text() == "Ball on elbow"  # noqa: SLF001
    after = sliders._boxes  # noqa: SLF001
    assert "b150" not in after and after["elbow"] is not boxes["b150"]
    assert all(after[b] is box for b, box in boxes.items() if b != "b150")
    assert after["elbow"].title() == "elbow (Ball)"
    assert _items_by_body(scene) == items  # the same drawing: the same items

    # the mass of b200 typed in the Properties form: only its tooltip changes
    tree.select_body("b200")
    qtbot.waitUntil(lambda: form.key == "body:b200" and "mass" in form.fields, timeout=2000)
    serial = panel.snapshot.model_serial
    field = form.field("mass")
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, "0.5")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: document.body("b200").mass == 0.5, timeout=5000)
    shown(serial)
    assert "0.5 kg" in model._body_items["b200"].toolTip()  # noqa: SLF001
    assert _items_by_body(scene) == items

    # remove the last body with the Delete key: its row, slider group and items go, the
    # others stay the very objects they were; the view took the worker's pairing
    last = f"b{WINDOW_N - 1}"
    tree.select_body(last)
    sliders.scroll_to_body(last)
    qtbot.wait(50)
    boxes = dict(sliders._boxes)  # noqa: SLF001
    drawn_serial = scene._drawn.serial  # noqa: SLF001
    serial = panel.snapshot.model_serial
    tree.view.setFocus()
    qtbot.waitUntil(tree.view.hasFocus, timeout=2000)
    qtbot.keyClick(tree.view, Qt.Key.Key_Delete)
    qtbot.waitUntil(lambda: last not in document.body_names(), timeout=5000)
    shown(serial)
    geometry = panel.snapshot.geometry
    assert isinstance(geometry, KeyedGeometry)
    assert geometry.paired is not None and geometry.paired[0] == drawn_serial
    assert scene._drawn.serial == geometry.serial  # noqa: SLF001
    now = _items_by_body(scene)
    # the removed body's items are gone (with those of its joint drawn on its parent); every
    # other body keeps its very items
    assert WINDOW_N not in now and now[WINDOW_N - 1] < items[WINDOW_N - 1]
    assert all(now[b] == ids for b, ids in items.items() if b < WINDOW_N - 1)
    after = sliders._boxes  # noqa: SLF001
    assert last not in after
    assert all(after[b] is box for b, box in boxes.items() if b != last and b in after)
    # a batched line keeps its two points and was never given a VTK source
    lines = [it for it in scene._items if it.kind == "line"]  # noqa: SLF001
    assert lines and all(it.points is not None for it in lines)
    batched = [it for it in lines if it.group is not None]
    assert batched and all(it.mapper is None for it in batched)

    # Ctrl+Z brings the body back, Ctrl+Shift+Z removes it again, row by row
    ctrl, shift = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier
    for modifier, present in ((ctrl, True), (ctrl | shift, False)):
        serial = panel.snapshot.model_serial
        qtbot.keyClick(tree.view, Qt.Key.Key_Z, modifier)
        qtbot.waitUntil(lambda p=present: (last in document.body_names()) == p, timeout=5000)
        shown(serial)
        assert model._body_items[GROUND].rowCount() == WINDOW_N - (not present)  # noqa: SLF001
    assert not resets, "an edit of one body rebuilt the whole tree"

    # what a fresh open of the saved file shows
    saved = tmp_path / "edited.mbs.json"
    assert editor.save_to(saved)
    reopened = model_io.load(saved)
    assert reopened == document
    fresh_tree = ModelTreeModel(reopened)
    assert _rows(model) == _rows(fresh_tree)
    fresh_tree.detach()
    built = build(reopened)
    from engine import Stage, State

    state = State(built.state)
    built.system.realize(state, Stage.Position)
    fresh_scene = Scene(instancing_threshold=scene.instancing_threshold)
    fresh_scene.set_geometry(
        KeyedGeometry(static_decorations(built.system, state), built.body_name_of_index)
    )
    assert scene.describe() == fresh_scene.describe()
    fresh_scene.close()
    layout = {
        name: (mobod.getMobilizerTypeName(), tuple(range(mobod.getNumQ(state))))
        for name, mobod in built.mobilized_bodies.items()
        if not mobod.isGround()
    }
    shown_layout = sliders._body_layout  # noqa: SLF001
    assert list(shown_layout.items()) == list(layout.items())
