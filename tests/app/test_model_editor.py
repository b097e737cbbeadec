"""The model tree editor in a real window: tree, property form, undo/redo, files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import Qt

from app.document import model_io
from app.document.examples import default_example_path, example_path, examples

pytestmark = pytest.mark.gui


@pytest.fixture
def studio(qtbot, qsettings):
    from app.main_window import MainWindow

    windows = []

    def make(model_path=None):
        model_path = default_example_path() if model_path is None else model_path
        window = MainWindow(model_path=model_path, settings=qsettings)
        window.model_editor.interactive = False  # no modal dialogs in tests
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        windows.append(window)
        return window

    return make


def engine_model(window):
    """The BuiltModel the simulation worker currently runs."""
    return window.simulation.session.built


def type_into(qtbot, field, text: str) -> None:
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def tree_texts(editor) -> list[str]:
    model = editor.tree.model
    out = []

    def walk(parent, depth):
        for row in range(model.rowCount(parent)):
            index = model.index(row, 0, parent)
            out.append("  " * depth + index.data())
            walk(index, depth + 1)

    walk(model.index(-1, -1), 0)
    return out


def test_tree_shows_bodies_by_parent_with_constraints_forces_and_hints(studio):
    window = studio(example_path("four_bar"))
    assert tree_texts(window.model_editor) == [
        "Ground",
        "  crank",
        "    coupler",
        "  rocker",
        "Constraints",
        "  loop closure (coupler, rocker)",
        "Forces",
        "  gravity",
        "Measures",
        "Hints",
    ]
    assert window.docks["Model"].widget() is window.model_editor.tree
    assert window.docks["Properties"].widget() is window.model_editor.properties


def test_selection_sync_between_tree_and_view(studio, qtbot):
    window = studio(example_path("double_pendulum"))
    tree = window.model_editor.tree
    with qtbot.waitSignal(tree.body_selected, timeout=2000) as blocker:
        tree.view.setCurrentIndex(tree.model.index_of("body:lower"))
    assert blocker.args == ["lower"]
    assert window.model_editor.properties.field("mass").text() == "1"
    # A click on "upper" where the 3-D view draws it selects it in the tree.
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest

    qtbot.waitUntil(lambda: window.simulation.snapshot is not None, timeout=10000)
    qtbot.wait(100)
    scene, widget = window.viewport.scene, window.viewport.interactor_widget
    scene.render()
    upper = window.simulation.snapshot.model.body_names.index("upper")
    spots = [
        scene.world_to_display(np.array(it.actor.GetBounds()).reshape(3, 2).mean(axis=1))
        for it in scene._static  # noqa: SLF001
        if it.body_id == upper and it.actor is not None
    ]
    x, y = next(xy for xy in spots if (scene.pick(*xy) or (None,))[0] == upper)
    QTest.mouseClick(
        widget,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
        QPoint(round(x), widget.height() - 1 - round(y)),
    )
    assert tree.current_key() == "body:upper"
    assert tree.view.currentIndex().data() == "upper"
    assert window.model_editor.properties.field("name").text() == "upper"


def test_mass_edit_changes_the_engine_model_and_undo_redo(studio, qtbot):
    window = studio()
    editor = window.model_editor
    editor.tree.select_body("link")
    inertia = editor.document.body("link").inertia
    type_into(qtbot, editor.properties.field("mass"), "2.5")
    assert editor.document.body("link").mass == 2.5
    assert editor.document.body("link").inertia == pytest.approx([2.5 * i for i in inertia])

    def engine_mass():
        return (
            engine_model(window)
            .mobilized_bodies["link"]
            .getBody()
            .getDefaultRigidBodyMassProperties()
            .getMass()
        )

    qtbot.waitUntil(lambda: engine_mass() == 2.5, timeout=5000)
    assert editor.actions["undo"].isEnabled()
    assert editor.actions["undo"].shortcut().toString() == "Ctrl+Z"
    assert "Ctrl+Y" in [s.toString() for s in editor.actions["redo"].shortcuts()]
    assert window.isWindowModified()
    editor.actions["undo"].trigger()
    assert editor.document.body("link").mass == 1.0
    qtbot.waitUntil(lambda: engine_mass() == 1.0, timeout=5000)
    qtbot.waitUntil(lambda: editor.properties.field("mass").text() == "1", timeout=2000)
    editor.actions["redo"].trigger()
    assert editor.document.body("link").mass == 2.5
    qtbot.waitUntil(lambda: engine_mass() == 2.5, timeout=5000)
    # The keyboard shortcut reaches the Edit menu's action.
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    editor.tree.view.setFocus()
    qtbot.keyClick(editor.tree.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: editor.document.body("link").mass == 1.0, timeout=2000)


@pytest.mark.parametrize(
    ("field", "text", "message"),
    [
        ("mass", "-1", "mass must be positive"),
        ("mass", "heavy", "not a number"),
        ("inertia", "1, 0.01, 0.01, 0, 0, 0", "triangle inequality"),
        ("inertia", "0.01, 0.01, 0.01, 0, 0, 0", "not physical"),
        ("inertia", "1, 2, 3", "6 numbers"),
        ("com", "0, 1", "3 numbers"),
        ("name", "Ground", "reserved"),
        ("q", "1, 2", "1 q"),
    ],
)
def test_invalid_values_are_refused_with_a_message_beside_the_field(
    studio, qtbot, field, text, message
):
    window = studio()
    editor = window.model_editor
    editor.tree.select_body("link")
    before = editor.document.to_dict()
    built_before = engine_model(window)
    type_into(qtbot, editor.properties.field(field), text)
    label = editor.properties.error_label(field)
    assert message in label.text()
    assert label.isVisible()
    assert editor.document.to_dict() == before
    assert not editor.actions["undo"].isEnabled()
    assert engine_model(window) is built_before
    # A valid value then clears the message.
    if field == "mass":
        type_into(qtbot, editor.properties.field("mass"), "1.5")
        qtbot.waitUntil(lambda: not editor.properties.errors(), timeout=2000)


def test_parent_loop_and_constraint_on_itself_are_refused(studio, qtbot):
    window = studio(example_path("double_pendulum"))
    editor = window.model_editor
    editor.tree.select_body("upper")
    editor.properties.field("parent").setCurrentText("lower")
    assert "loop" in editor.properties.error_label("parent").text()
    assert editor.document.body("upper").parent == "Ground"

    index = editor.add_element("constraints", "Rod", ["upper", "lower"])
    assert index == 0
    qtbot.waitUntil(
        lambda: (
            editor.properties.key == "constraints:0" and "args.body2" in editor.properties.fields
        ),
        timeout=2000,
    )
    editor.properties.field("args.body2").setCurrentText("upper")
    assert "itself" in editor.properties.error_label("args.body2").text()
    assert editor.document.constraints[0].args["body2"] == "lower"
    # Picking one body twice from the tree is refused too, with the reason under the tree.
    assert editor.add_element("constraints", "Ball", ["lower", "lower"]) is None
    assert "itself" in editor.tree.message.text()


def test_add_rename_reparent_remove_bodies_and_change_mobilizer(studio, qtbot):
    window = studio()
    editor = window.model_editor
    editor.tree.select_body("link")
    name = editor.add_body()
    assert name == "body" and editor.document.body("body").parent == "link"
    qtbot.waitUntil(lambda: "body" in engine_model(window).mobilized_bodies, timeout=5000)
    assert editor.tree.current_key() == "body:body"
    qtbot.waitUntil(
        lambda: editor.properties.key == "body:body" and "name" in editor.properties.fields,
        timeout=2000,
    )
    type_into(qtbot, editor.properties.field("name"), "arm")
    assert editor.document.body_names() == ["link", "arm"]
    qtbot.waitUntil(lambda: "arm" in engine_model(window).mobilized_bodies, timeout=5000)
    qtbot.waitUntil(lambda: "parent" in editor.properties.fields, timeout=2000)
    editor.tree.select_body("arm")
    qtbot.waitUntil(
        lambda: editor.properties.key == "body:arm" and "parent" in editor.properties.fields,
        timeout=2000,
    )
    editor.properties.field("parent").setCurrentText("Ground")
    assert editor.document.body("arm").parent == "Ground"
    qtbot.waitUntil(lambda: "mobilizer" in editor.properties.fields, timeout=2000)
    editor.properties.field("mobilizer").setCurrentText("Ball")
    qtbot.waitUntil(
        lambda: engine_model(window).mobilized_bodies["arm"].getMobilizerTypeName() == "Ball",
        timeout=5000,
    )
    assert engine_model(window).mobilized_bodies["arm"].getParentMobilizedBody().isGround()
    assert [t.strip() for t in tree_texts(editor)[:3]] == ["Ground", "link", "arm"]
    editor.tree.select_body("arm")
    editor.remove_selected()
    assert editor.document.body_names() == ["link"]
    qtbot.waitUntil(lambda: "arm" not in engine_model(window).mobilized_bodies, timeout=5000)
    for _ in range(5):
        editor.actions["undo"].trigger()
        names = sorted(editor.document.body_names())
        qtbot.waitUntil(
            lambda n=names: sorted(engine_model(window).body_name_of_index[1:]) == n, timeout=5000
        )
    assert editor.document.body_names() == ["link"]
    assert not editor.actions["undo"].isEnabled()
    editor.actions["redo"].trigger()
    assert editor.document.body_names() == ["link", "body"]


def test_frames_geometry_colour_and_hints_edits(studio, qtbot):
    window = studio()
    editor = window.model_editor
    editor.tree.select_body("link")
    type_into(qtbot, editor.properties.field("X_PF.p"), "0, 2, 0")
    assert editor.document.body("link").X_PF.p == (0.0, 2.0, 0.0)
    qtbot.waitUntil(lambda: "X_BM.rpy" in editor.properties.fields, timeout=2000)
    type_into(qtbot, editor.properties.field("X_BM.rpy"), "0, 0, 90")
    assert editor.document.body("link").X_BM.rpy[2] == pytest.approx(1.5707963267948966)
    qtbot.waitUntil(lambda: "geometry[0].color" in editor.properties.fields, timeout=2000)
    type_into(qtbot, editor.properties.field("geometry[0].color"), "0, 1, 0")
    assert editor.document.body("link").geometry[0].color == (0.0, 1.0, 0.0)
    qtbot.waitUntil(lambda: "geometry[0].color" in editor.properties.fields, timeout=2000)
    type_into(qtbot, editor.properties.field("geometry[0].color"), "0, 2, 0")
    assert "[0, 1]" in editor.properties.error_label("geometry[0].color").text()
    type_into(qtbot, editor.properties.field("geometry[0].radius"), "-0.1")
    assert "> 0" in editor.properties.error_label("geometry[0].radius").text()

    def engine_colour():
        decorations = engine_model(window).mobilized_bodies["link"].getBody().getDecorations()
        return tuple(decorations[0][1].getColor())

    qtbot.waitUntil(lambda: engine_colour() == (0.0, 1.0, 0.0), timeout=5000)
    count = len(editor.document.body("link").geometry)
    from PySide6.QtWidgets import QComboBox, QPushButton

    editor.properties.findChild(QComboBox, "new_geometry_kind").setCurrentText("brick")
    editor.properties.findChild(QPushButton, "add_geometry").click()
    assert [g.kind for g in editor.document.body("link").geometry][count:] == ["brick"]

    editor.tree.select_key("hints")
    qtbot.waitUntil(lambda: "hints.up" in editor.properties.fields, timeout=2000)
    editor.properties.field("hints.up").setCurrentText("+Z")
    assert editor.document.hints.up == "+Z"
    qtbot.waitUntil(lambda: "hints.length_scale" in editor.properties.fields, timeout=2000)
    type_into(qtbot, editor.properties.field("hints.length_scale"), "0")
    assert "> 0" in editor.properties.error_label("hints.length_scale").text()
    assert editor.document.hints.length_scale == 1.0


def test_add_force_between_picked_bodies_reaches_the_engine(studio, qtbot):
    window = studio(example_path("double_pendulum"))
    editor = window.model_editor
    tree = editor.tree
    tree.select_body("upper")
    tree.view.selectionModel().select(
        tree.model.index_of("body:lower"),
        tree.view.selectionModel().SelectionFlag.Select
        | tree.view.selectionModel().SelectionFlag.Rows,
    )
    assert set(tree.selected_bodies()) == {"upper", "lower"}
    tree.type_actions[("forces", "TwoPointLinearSpring")].trigger()
    spring = editor.document.forces[-1]
    assert spring.type == "TwoPointLinearSpring"
    assert {spring.args["body1"], spring.args["body2"]} == {"upper", "lower"}
    qtbot.waitUntil(lambda: len(engine_model(window).force_elements) == 2, timeout=5000)
    assert tree.current_key() == "forces:1"
    editor.remove_selected()
    assert [f.type for f in editor.document.forces] == ["Gravity"]


def test_save_load_round_trip_and_recent_files(studio, qtbot, tmp_path):
    window = studio(example_path("slider_crank"))
    editor = window.model_editor
    assert editor.path is None  # an example opens as a new model: Save never overwrites it
    editor.tree.select_body("crank")
    type_into(qtbot, editor.properties.field("mass"), "0.75")
    target = tmp_path / "mine.mbs.json"
    assert editor.save_to(target)
    assert not window.isWindowModified()
    assert "mine.mbs.json" in window.windowTitle()
    saved = editor.document.to_dict()
    assert model_io.load(target).to_dict() == saved
    assert editor.recent_files()[0] == str(target.resolve())
    assert editor.recent_menu.actions()[0].text() == "mine.mbs.json"

    other = studio(example_path("pendulum"))
    assert other.model_editor.open_path(target)
    assert other.model_editor.document.to_dict() == saved
    assert other.model_editor.path == target


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ('{"schema": "mbstudio.model", "version": 1, "model": {"bodies": [', "file"),
        ("newer", "version"),
        ("negative mass", "model.bodies[0].mass"),
    ],
)
def test_bad_files_are_refused_and_the_open_model_is_untouched(studio, tmp_path, payload, field):
    window = studio()
    editor = window.model_editor
    editor.tree.select_body("link")
    original_doc, original = editor.document, editor.document.to_dict()
    built = engine_model(window)
    raw = model_io.to_json_dict(editor.document)
    if payload == "newer":
        raw["version"] = 7
        text = json.dumps(raw)
    elif payload == "negative mass":
        raw["model"]["bodies"][0]["mass"] = -3
        text = json.dumps(raw)
    else:
        text = payload
    bad = tmp_path / "bad.mbs.json"
    bad.write_text(text)
    assert not editor.open_path(bad)
    assert field in editor.last_error
    assert editor.document is original_doc and editor.document.to_dict() == original
    assert engine_model(window) is built
    assert editor.path is None
    assert editor.recent_files() == [] or str(bad.resolve()) not in editor.recent_files()
    assert editor.tree.current_key() == "body:link"


def test_file_menu_has_open_save_recent_and_every_example(studio, qtbot):
    window = studio()
    editor = window.model_editor
    texts = [a.text() for a in editor.file_menu.actions()]
    for t in ("&Open…", "&Save", "Save &As…", "Open &Recent", "&Examples", "&Quit"):
        assert t in texts
    assert editor.actions["open"].shortcut().toString() == "Ctrl+O"
    assert editor.actions["save"].shortcut().toString() == "Ctrl+S"
    example_actions = editor.examples_menu.actions()
    assert [a.text() for a in example_actions] == [e.title for e in examples()]
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus.index("&Edit") == menus.index("&File") + 1
    for action, example in zip(example_actions, examples(), strict=True):
        action.trigger()
        doc = editor.document
        assert doc.to_dict() == model_io.load(example.path).to_dict()
        qtbot.waitUntil(lambda d=doc: window.simulation.document is d, timeout=5000)
        qtbot.waitUntil(
            lambda d=doc: (
                sorted(engine_model(window).body_name_of_index[1:]) == sorted(d.body_names())
            ),
            timeout=20000,
        )


def test_rename_in_place_and_delete_key_in_the_tree(studio, qtbot):
    window = studio(example_path("double_pendulum"))
    editor = window.model_editor
    tree = editor.tree
    tree.select_body("lower")
    index = tree.model.index_of("body:lower")
    tree.model.setData(index, "forearm")
    qtbot.waitUntil(lambda: "forearm" in editor.document.body_names(), timeout=2000)
    assert tree.current_key() == "body:forearm"
    tree.model.setData(tree.model.index_of("body:forearm"), "upper")
    qtbot.waitUntil(lambda: "already exists" in tree.message.text(), timeout=2000)
    assert editor.document.body_names() == ["upper", "forearm"]
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    tree.view.setFocus()
    qtbot.keyClick(tree.view, Qt.Key.Key_Delete)
    assert editor.document.body_names() == ["upper"]
    assert tree.current_key() == "body:upper"  # the removed body's parent


def test_drag_and_drop_re_parents_and_refuses_a_loop(studio, qtbot):
    window = studio(example_path("double_pendulum"))
    editor = window.model_editor
    model = editor.tree.model
    drag = model.mimeData([model.index_of("body:lower")])
    move = Qt.DropAction.MoveAction
    assert not model.dropMimeData(drag, move, -1, 0, model.index_of("ground"))
    qtbot.waitUntil(lambda: editor.document.body("lower").parent == "Ground", timeout=2000)
    qtbot.waitUntil(
        lambda: engine_model(window).mobilized_bodies["lower"].getParentMobilizedBody().isGround(),
        timeout=5000,
    )
    assert tree_texts(editor)[:3] == ["Ground", "  upper", "  lower"]
    # Now upper under lower is fine, but then lower under upper would be a loop.
    drag = model.mimeData([model.index_of("body:upper")])
    model.dropMimeData(drag, move, -1, 0, model.index_of("body:lower"))
    qtbot.waitUntil(lambda: editor.document.body("upper").parent == "lower", timeout=2000)
    drag = model.mimeData([model.index_of("body:lower")])
    model.dropMimeData(drag, move, -1, 0, model.index_of("body:upper"))
    qtbot.waitUntil(lambda: "loop" in editor.tree.message.text(), timeout=2000)
    assert editor.document.body("lower").parent == "Ground"
    editor.actions["undo"].trigger()
    editor.actions["undo"].trigger()
    assert editor.document.body("lower").parent == "upper"


def test_save_action_asks_for_a_file_and_open_dialog_and_recent_menu(
    studio, qtbot, tmp_path, monkeypatch
):
    from PySide6.QtWidgets import QFileDialog

    window = studio()
    editor = window.model_editor
    target = tmp_path / "asked.mbs.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), ""))
    editor.actions["save"].trigger()  # no path yet (an example): Save asks where
    assert model_io.load(target) == editor.document
    assert editor.path == target

    other = studio(example_path("molecule"))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(target), ""))
    other.model_editor.actions["open"].trigger()
    assert other.model_editor.path == target
    assert other.model_editor.document.body_names() == ["link"]
    third = studio(example_path("molecule"))
    recent = third.model_editor.recent_menu.actions()[0]
    assert recent.toolTip() == str(target.resolve())
    recent.trigger()
    assert third.model_editor.path == target


def test_closing_with_unsaved_changes_asks_first(studio, qtbot):
    from PySide6.QtCore import QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QMessageBox

    window = studio()
    editor = window.model_editor
    editor.interactive = True
    editor.edit("mass", lambda d: d.set_body("link", mass=2.0, inertia=(0.6, 0.001, 0.6, 0, 0, 0)))
    answers = []

    def answer(button) -> None:
        """Click ``button`` of the next message box with the mouse."""

        def click() -> None:
            box = QApplication.activeModalWidget()
            if not isinstance(box, QMessageBox):
                QTimer.singleShot(20, click)
                return
            answers.append(button)
            QTest.mouseClick(box.button(button), Qt.MouseButton.LeftButton)

        QTimer.singleShot(20, click)

    answer(QMessageBox.StandardButton.Cancel)
    assert not window.close()
    assert window.isVisible() and editor.document.body("link").mass == 2.0
    # A bad file never asks (nothing would be replaced) and leaves the edit in place.
    assert not editor.open_path("/nonexistent/model.mbs.json", modal=False)
    assert len(answers) == 1
    answer(QMessageBox.StandardButton.Discard)
    assert window.close()
    assert len(answers) == 2
