"""File > Import URDF… and dropping a .urdf onto the studio, in a real window."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QStyle, QStyleOptionButton

from tests.app.test_model_editor import tree_texts
from tests.importers.test_urdf_import import ARM, STL

pytestmark = pytest.mark.gui


@pytest.fixture
def window(qtbot, qsettings):
    from app.main_window import MainWindow

    w = MainWindow(settings=qsettings)
    w.model_editor.interactive = False  # no modal message boxes in tests
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.fixture
def arm_urdf(tmp_path):
    pkg = tmp_path / "botpkg"
    (pkg / "meshes").mkdir(parents=True)
    (pkg / "meshes" / "part.stl").write_text(STL)
    (pkg / "urdf").mkdir()
    path = pkg / "urdf" / "arm.urdf"
    path.write_text(ARM)
    return path


def _click_menu_item(qtbot, window, menu_title: str, action) -> None:
    bar = window.menuBar()
    top = next(a for a in bar.actions() if a.text().replace("&", "") == menu_title)
    qtbot.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(top).center())
    menu = top.menu()
    qtbot.waitUntil(menu.isVisible)
    qtbot.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(action).center())


def test_file_import_urdf_shows_the_links_in_the_tree(qtbot, window, arm_urdf):
    importer = window.urdf_import
    _click_menu_item(qtbot, window, "File", importer.action)
    qtbot.waitUntil(lambda: importer.dialog is not None and importer.dialog.isVisible())
    dialog = importer.dialog
    dialog.selectFile(str(arm_urdf))  # the file name through the dialog's API...
    buttons = dialog.findChild(QDialogButtonBox)
    open_button = buttons.button(QDialogButtonBox.StandardButton.Open)
    qtbot.waitUntil(open_button.isEnabled)
    qtbot.mouseClick(open_button, Qt.MouseButton.LeftButton)  # ...and a real click on Open
    qtbot.waitUntil(lambda: window.model_editor.document.name == "bot", timeout=10000)
    texts = [t.strip() for t in tree_texts(window.model_editor)]
    for link in ("base", "upper", "slider_link", "twin"):
        assert any(t.startswith(link) for t in texts), (link, texts)
    assert window.model_editor.path is None  # imported, not yet saved
    assert window.model_editor.is_modified() and window.isWindowModified()
    qtbot.waitUntil(lambda: window.simulation.session is not None, timeout=10000)
    built = window.simulation.session.built
    assert {"upper", "slider_link", "twin"} <= set(built.mobilized_bodies)


def _drop(window, path) -> bool:
    """Drag a file over the window and drop it; True when the drag was accepted."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    pos = window.rect().center()
    actions = Qt.DropAction.CopyAction
    enter = QDragEnterEvent(pos, actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier(0))
    QApplication.sendEvent(window, enter)
    if not enter.isAccepted():
        return False
    drop = QDropEvent(
        QPointF(QPoint(pos)), actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier(0)
    )
    QApplication.sendEvent(window, drop)
    return True


def test_dropping_a_urdf_on_the_window_imports_it(qtbot, window, arm_urdf, tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("not a robot")
    assert not _drop(window, other)  # only .urdf files are taken
    assert _drop(window, arm_urdf)
    qtbot.waitUntil(lambda: window.model_editor.document.name == "bot", timeout=10000)
    assert "upper" in window.model_editor.document.body_names()


def test_a_broken_urdf_is_reported_and_the_open_model_kept(qtbot, window, tmp_path):
    before = window.model_editor.document
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot name='x'>\n<link name='a'>\n</robot>\n")
    assert _drop(window, bad)
    qtbot.waitUntil(lambda: "malformed XML" in window.model_editor.last_error)
    assert "line 3" in window.model_editor.last_error
    assert window.model_editor.document is before


def test_a_joint_limit_stop_is_on_and_switched_off_in_the_tree(qtbot, window, arm_urdf):
    assert _drop(window, arm_urdf)
    editor = window.model_editor
    qtbot.waitUntil(lambda: editor.document.name == "bot", timeout=10000)
    index = next(i for i, f in enumerate(editor.document.forces) if f.type == "MobilityLinearStop")
    view = editor.tree.view
    item = editor.tree.model.index_of(f"forces:{index}")
    view.scrollTo(item)
    rect = view.visualRect(item)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    qtbot.waitUntil(lambda: editor.tree.current_key() == f"forces:{index}")
    box = editor.properties.field("args.enabled")
    assert box.isChecked()  # an imported robot's joint limits hold
    option = QStyleOptionButton()
    box.initStyleOption(option)
    indicator = box.style().subElementRect(QStyle.SubElement.SE_CheckBoxIndicator, option, box)
    qtbot.mouseClick(box, Qt.MouseButton.LeftButton, pos=indicator.center())
    qtbot.waitUntil(lambda: editor.document.forces[index].args["enabled"] is False)

    def engine_stop_disabled():
        built = window.simulation.session.built
        return built.force_elements[index].isDisabled(built.state)

    qtbot.waitUntil(engine_stop_disabled, timeout=10000)


def test_the_studio_offers_to_fix_tiny_masses(qtbot, window, tmp_path):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QMessageBox

    path = tmp_path / "light.urdf"
    path.write_text(
        '<robot name="light"><link name="a"/><link name="b"/>'
        '<joint name="j" type="continuous"><parent link="a"/><child link="b"/></joint></robot>'
    )
    window.model_editor.interactive = True
    asked = []

    def answer_yes():
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(50, answer_yes)
            return
        asked.append(box.text())
        yes = box.button(QMessageBox.StandardButton.Yes)
        qtbot.mouseClick(yes, Qt.MouseButton.LeftButton)

    QTimer.singleShot(50, answer_yes)
    assert _drop(window, path)
    qtbot.waitUntil(lambda: window.model_editor.document.name == "light", timeout=10000)
    assert asked and "link 'b'" in asked[0] and "1 g" in asked[0]
    assert window.model_editor.document.body("b").mass == 1e-3
    window.model_editor.interactive = False  # closing an unsaved import would ask


def _mesh_names(data) -> list[str]:
    return [g.params["file"] for b in data.bodies for g in b.geometry if g.kind == "mesh"]


def test_saving_an_imported_robot_writes_mesh_names_relative_to_the_file(
    qtbot, window, arm_urdf, tmp_path
):
    from app.document import model_io
    from app.document.mesh_cache import resolve

    assert _drop(window, arm_urdf)
    editor = window.model_editor
    qtbot.waitUntil(lambda: editor.document.name == "bot", timeout=10000)
    meshes = {str(resolve(f)) for f in _mesh_names(editor.document.data)}
    assert meshes == {str(arm_urdf.parent.parent / "meshes" / "part.stl")}
    target = tmp_path / "models" / "bot.mbs.json"
    target.parent.mkdir()
    assert editor.save_to(target)
    saved = model_io.load(target)
    names = _mesh_names(saved)
    assert names and all(n == "../botpkg/meshes/part.stl" for n in names)
    # the file and its meshes can move together: the names resolve from where it is read
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    (tmp_path / "botpkg").rename(moved / "botpkg")
    target.parent.rename(moved / "models")
    again = model_io.load(moved / "models" / "bot.mbs.json")
    assert {str(resolve(f, again.base_dir)) for f in _mesh_names(again)} == {
        str(moved / "botpkg" / "meshes" / "part.stl")
    }
    assert (moved / "botpkg" / "meshes" / "part.stl").is_file()
