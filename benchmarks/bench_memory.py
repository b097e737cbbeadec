"""Memory benchmark (not a test): what the studio keeps per GUI cycle (issue 22).

In real windows (run under ``xvfb-run -a -s "-screen 0 1280x1024x24"`` when there is no
display), after three warm-up cycles, ``--cycles`` cycles of one kind, sent as real input:

- ``window``: open the double pendulum in a new window, F5, Shift+F5, Ctrl+Q, delete it;
- ``edit``: in one window on the double pendulum, click ``upper`` in the model tree, type a new
  mass into the Properties form, rename it and rename it back, click Add body then Remove,
  Ctrl+Z, Ctrl+Shift+Z (seven edits, each rebuilt by the worker and drawn before the next);
- ``examples``: File > Examples > pendulum, double pendulum, four-bar (three opens), each run
  a little with F5 / Shift+F5.

Every ``cycles / 10`` cycles it prints the resident size (after a full collection and
``malloc_trim``, so freed heap is not counted) and the bytes malloc holds allocated; at the
end the growth per cycle, overall and over the second half (a leak grows both alike, the
allocator's warming up only the first). The load average is printed: the machine may be
shared.

Run: ``python benchmarks/bench_memory.py window|edit|examples [--cycles 100]``.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import pathlib
import sys
import tempfile
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MB = 2**20


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


_LIBC = ctypes.CDLL("libc.so.6")
_LIBC.mallinfo2.restype = _MallInfo2


def resident_mb() -> float:
    import psutil

    gc.collect()
    _LIBC.malloc_trim(0)
    return psutil.Process().memory_info().rss / MB


def allocated_mb() -> float:
    """Bytes malloc holds allocated (every arena, mmapped blocks included), in MB."""
    info = _LIBC.mallinfo2()
    return (info.uordblks + info.hblkhd) / MB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("window", "edit", "examples"))
    parser.add_argument("--cycles", type=int, default=100)
    args = parser.parse_args()

    from PySide6.QtCore import QSettings, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    from app.document.examples import example_path
    from app.main_window import MainWindow

    settings = QSettings(
        os.path.join(tempfile.mkdtemp(prefix="bench-memory-"), "studio.ini"),
        QSettings.Format.IniFormat,
    )

    def wait_until(condition, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise TimeoutError("the studio did not answer")
            QTest.qWait(5)

    def settle() -> None:
        for _ in range(3):
            QTest.qWait(20)
            QApplication.sendPostedEvents(None, 0)
        gc.collect()

    def activate(window) -> None:
        window.raise_()
        window.activateWindow()
        if QApplication.activeWindow() is not window:  # no window manager under Xvfb
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                QApplication.setActiveWindow(window)
        wait_until(lambda: QApplication.activeWindow() is window, 5.0)

    def new_window(path):
        window = MainWindow(model_path=path, settings=settings)
        window.model_editor.interactive = False
        window.show()
        QTest.qWaitForWindowExposed(window)
        if path is not None:
            wait_until(lambda: window.simulation.snapshot is not None)
        return window

    def run_a_little(window, to: float = 0.0) -> None:
        panel = window.simulation
        activate(window)
        QTest.keyClick(window, Qt.Key.Key_F5)
        wait_until(lambda: panel.snapshot.running and panel.snapshot.time > to)
        activate(window)
        QTest.keyClick(window, Qt.Key.Key_F5, Qt.KeyboardModifier.ShiftModifier)
        wait_until(lambda: not panel.snapshot.running)

    def window_cycle() -> None:
        window = new_window(example_path("double_pendulum"))
        run_a_little(window)
        QTest.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
        window.deleteLater()
        del window
        settle()

    def click_row(window, key: str) -> None:
        tree = window.model_editor.tree
        index = tree.model.index_of(key)
        tree.view.scrollTo(index)
        pos = tree.view.visualRect(index).center()
        QTest.mouseClick(tree.view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
        wait_until(lambda: window.model_editor.properties.key == key, 5.0)

    def type_into(window, key: str, text: str) -> None:
        props = window.model_editor.properties
        wait_until(lambda: key in props.fields, 5.0)
        field = props.field(key)
        QTest.mouseClick(field, Qt.MouseButton.LeftButton)
        QTest.keyClick(field, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        QTest.keyClicks(field, text)
        QTest.keyClick(field, Qt.Key.Key_Return)

    def edit_cycle(window) -> None:
        editor, panel = window.model_editor, window.simulation
        shown = [panel.snapshot.model_serial]

        def rebuilt() -> None:
            wait_until(lambda: panel.snapshot.model_serial > shown[0])
            shown[0] = panel.snapshot.model_serial

        activate(window)
        click_row(window, "body:upper")
        mass = editor.document.body("upper").mass
        type_into(window, "mass", "2" if mass != 2.0 else "3")
        rebuilt()
        type_into(window, "name", "arm")
        rebuilt()
        click_row(window, "body:arm")
        type_into(window, "name", "upper")
        rebuilt()
        click_row(window, "body:upper")
        QTest.mouseClick(editor.tree.add_body_button, Qt.MouseButton.LeftButton)
        rebuilt()
        QTest.mouseClick(editor.tree.remove_button, Qt.MouseButton.LeftButton)
        rebuilt()
        activate(window)
        QTest.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        rebuilt()
        redo = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
        QTest.keyClick(window, Qt.Key.Key_Z, redo)
        rebuilt()

    def open_example(window, key: str) -> None:
        bar = window.menuBar()
        file_action = next(a for a in bar.actions() if a.text() == "&File")
        QTest.mouseClick(
            bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(file_action).center()
        )
        file_menu = file_action.menu()
        wait_until(file_menu.isVisible, 5.0)
        examples = window.model_editor.examples_menu
        pos = file_menu.actionGeometry(examples.menuAction()).center()
        QTest.mouseClick(file_menu, Qt.MouseButton.LeftButton, pos=pos)
        wait_until(examples.isVisible, 5.0)
        action = examples.findChild(type(file_action), f"example_{key}")
        pos = examples.actionGeometry(action).center()
        QTest.mouseClick(examples, Qt.MouseButton.LeftButton, pos=pos)
        for _ in range(3):  # menus may stay up under QTest on Xvfb
            popup = QApplication.activePopupWidget()
            if popup is None:
                break
            popup.close()

    def examples_cycle(window) -> None:
        panel = window.simulation
        for key in ("pendulum", "double_pendulum", "four_bar"):
            session = panel.session
            open_example(window, key)
            wait_until(lambda s=session: panel.session is not s)
            session = None
            wait_until(lambda: panel._model_serial is not None)
            run_a_little(window, 0.05)
        settle()

    window = None
    if args.kind == "window":
        cycle = window_cycle
    elif args.kind == "edit":
        window = new_window(example_path("double_pendulum"))
        cycle = lambda: edit_cycle(window)  # noqa: E731
    else:
        window = new_window(None)
        cycle = lambda: examples_cycle(window)  # noqa: E731

    print(f"load average {os.getloadavg()[0]:.1f}", flush=True)
    for _ in range(3):  # imports, compiled code, caches
        cycle()
    settle()
    marks = [(0, resident_mb())]
    every = max(1, args.cycles // 10)
    start = time.monotonic()
    for i in range(1, args.cycles + 1):
        cycle()
        if i % every == 0 or i == args.cycles:
            settle()
            marks.append((i, resident_mb()))
            print(
                f"cycle {i}: resident {marks[-1][1]:.1f} MB "
                f"(+{marks[-1][1] - marks[0][1]:.1f}), allocated {allocated_mb():.1f} MB, "
                f"{(time.monotonic() - start) / i:.2f} s per cycle",
                flush=True,
            )
    (n0, r0), (n1, r1) = marks[0], marks[-1]
    half_n, half_r = marks[len(marks) // 2]
    print(
        f"{args.kind}: {(r1 - r0) / (n1 - n0):.3f} MB per cycle over {n1 - n0} cycles, "
        f"{(r1 - half_r) / (n1 - half_n):.3f} MB per cycle over the second half; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    if window is not None:
        window.close()
    from app.simulation.session import join_abandoned

    join_abandoned(5.0)
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
