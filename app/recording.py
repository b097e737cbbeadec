"""Recording the 3-D view: File > Save image…, Save image at size…, and Record video.

* Save image… writes the view as drawn (window resolution) to a PNG, read through
  vtkWindowToImageFilter (grabbing the Qt widget gives black for VTK views).
* Save image at size… asks for a width and height, then renders the same scene (camera,
  overlays) offscreen at that size (viz.capture.capture_scene_at).
* Record video (a checkable action on the toolbar, Ctrl+Shift+R) asks for an .mp4 file and
  records every frame the view draws, at wall-clock pace, through the existing encoder
  (app.video_recorder, imageio-ffmpeg) with the simulated time drawn into the frames. While
  recording, a red "REC" indicator with the elapsed time sits in the status bar. Stopping
  shows a progress dialog while the last frames are encoded.

The file to write is asked with ``choose_path`` (a QFileDialog by default; tests replace it).
"""

from __future__ import annotations

import functools
import time
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction, QColor, QIcon, QKeySequence, QPainter, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressDialog,
    QSpinBox,
)

from app.video_recorder import VideoRecorder
from viz.capture import MAX_CAPTURE_SIDE, capture_scene_at, capture_window
from viz.offscreen import write_png

REC_STYLE = "QLabel { color: white; background: #d0021b; padding: 1px 6px; font-weight: bold; }"
VIDEO_FPS = 30.0


@functools.cache
def record_icon(size: int = 32) -> QIcon:
    """A red disc: the usual record symbol, one QIcon per size for the process (Qt caches the
    pixmaps it derives from an icon, such as the greyed one of a disabled action, in
    QPixmapCache under the icon's source pixmap: every window shares them)."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor("#d0021b"))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawEllipse(4, 4, size - 8, size - 8)
    painter.end()
    return QIcon(pixmap)


def _menu(window: QMainWindow, title: str) -> QMenu:
    for action in window.menuBar().actions():
        if action.text().replace("&", "") == title and action.menu() is not None:
            return action.menu()
    return window.menuBar().addMenu(f"&{title}")


class ImageSizeDialog(QDialog):
    """Width and height (pixels) for Save image at size…, starting at the view's size."""

    def __init__(self, width: int, height: int, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("imageSizeDialog")
        self.setWindowTitle("Image size")
        layout = QFormLayout(self)
        self.width_box = QSpinBox()
        self.width_box.setObjectName("imageWidthBox")
        self.height_box = QSpinBox()
        self.height_box.setObjectName("imageHeightBox")
        for box, value in ((self.width_box, width), (self.height_box, height)):
            box.setRange(16, MAX_CAPTURE_SIDE)
            box.setSuffix(" px")
            box.setValue(value)
        layout.addRow("Width", self.width_box)
        layout.addRow("Height", self.height_box)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addRow(buttons)

    def size_chosen(self) -> tuple[int, int]:
        return self.width_box.value(), self.height_box.value()


class RecordingController(QObject):
    """See the module docstring. ``actions``: "save_image", "save_image_sized", "record"."""

    def __init__(self, window: QMainWindow, panel) -> None:
        super().__init__(window)
        self.window = window
        self.panel = panel
        self.viewport = window.viewport
        self.recorder: VideoRecorder | None = None
        self.last_video: Path | None = None
        self.size_dialog: ImageSizeDialog | None = None
        self.progress: QProgressDialog | None = None
        self._start = 0.0
        self.last_message = ""  # the last result shown in the status bar
        self.actions: dict[str, QAction] = {}

        save = QAction("Save &image…", window)
        save.setObjectName("saveImageAction")
        save.setShortcut(QKeySequence("Ctrl+Shift+I"))
        save.setToolTip("Save the 3-D view as a PNG at the window's resolution (Ctrl+Shift+I)")
        save.triggered.connect(self.save_image_dialog)
        sized = QAction("Save image at si&ze…", window)
        sized.setObjectName("saveImageSizedAction")
        sized.setToolTip("Save the 3-D view as a PNG of a chosen width and height")
        sized.triggered.connect(self.save_sized_image_dialog)
        record = QAction(record_icon(), "Record video", window)
        record.setObjectName("recordAction")
        record.setCheckable(True)
        record.setShortcut(QKeySequence("Ctrl+Shift+R"))
        record.setToolTip("Record the 3-D view to an MP4 video; again to stop (Ctrl+Shift+R)")
        record.triggered.connect(self._record_triggered)
        self.actions = {"save_image": save, "save_image_sized": sized, "record": record}

        file_menu = _menu(window, "File")
        first = next((a for a in file_menu.actions() if a.text() == "&Quit"), None)
        file_menu.insertActions(first, [save, sized, record])
        if first is not None:
            file_menu.insertSeparator(first)
        window.toolbar.addSeparator()
        window.toolbar.addAction(record)

        self.indicator = QLabel("")
        self.indicator.setObjectName("recordingIndicator")
        self.indicator.setStyleSheet(REC_STYLE)
        self.indicator.setToolTip("Recording the 3-D view")
        self.indicator.hide()
        window.statusBar().addPermanentWidget(self.indicator)
        self._clock = QTimer(self)
        self._clock.timeout.connect(self._show_elapsed)
        self.viewport.render_window.AddObserver("EndEvent", self._frame_drawn)

    # -- files ----------------------------------------------------------------------------------

    def choose_path(self, caption: str, default: str, file_filter: str) -> str:
        """Ask for a file to write (replaceable, e.g. by tests)."""
        path, _ = QFileDialog.getSaveFileName(self.window, caption, default, file_filter)
        return path

    def _ask(self, caption: str, default: str, file_filter: str, suffix: str) -> Path | None:
        text = self.choose_path(caption, default, file_filter)
        if not text:
            return None
        path = Path(text)
        if path.suffix.lower() != suffix:
            path = path.with_name(path.name + suffix)
        return path

    def _report(self, message: str) -> None:
        self.last_message = message
        self.window.statusBar().showMessage(message, 8000)

    def _failed(self, what: str, exc: Exception) -> None:
        QMessageBox.warning(self.window, "mbstudio", f"{what}:\n{exc}")

    # -- images ---------------------------------------------------------------------------------

    def save_image_dialog(self) -> None:
        path = self._ask("Save image of the view", "view.png", "PNG image (*.png)", ".png")
        if path is not None:
            self.save_image(path)

    def save_image(self, path, size: tuple[int, int] | None = None) -> Path:
        """Write the view to ``path`` as PNG: as drawn, or rendered at ``size`` (w, h)."""
        path = Path(path)
        try:
            if size is None:
                self.viewport.render_window.Render()
                image = capture_window(self.viewport.render_window)
            else:
                image = capture_scene_at(self.viewport.scene, *size)
                self.viewport.request_render()
            write_png(image, path)
        except Exception as exc:  # noqa: BLE001  (a failed save is reported, nothing is lost)
            self._failed(f"Could not save {path}", exc)
            return path
        h, w = image.shape[:2]
        self._report(f"Saved a {w} x {h} image to {path}")
        return path

    def save_sized_image_dialog(self) -> None:
        w, h = self.viewport.render_window.GetSize()
        self.size_dialog = ImageSizeDialog(w, h, self.window)
        self.size_dialog.accepted.connect(self._sized_accepted)
        self.size_dialog.open()

    def _sized_accepted(self) -> None:
        dialog, self.size_dialog = self.size_dialog, None
        if dialog is None:
            return
        size = dialog.size_chosen()
        dialog.deleteLater()
        path = self._ask(
            f"Save a {size[0]} x {size[1]} image of the view",
            "view.png",
            "PNG image (*.png)",
            ".png",
        )
        if path is not None:
            self.save_image(path, size)

    # -- video ----------------------------------------------------------------------------------

    @property
    def recording(self) -> bool:
        return self.recorder is not None

    def _record_triggered(self, checked: bool) -> None:
        if checked and not self.recording:
            path = self._ask("Record video of the view", "run.mp4", "MP4 video (*.mp4)", ".mp4")
            if path is None or not self.start_recording(path):
                self.actions["record"].setChecked(False)
        elif not checked and self.recording:
            self.stop_recording()

    def start_recording(self, path) -> bool:
        try:
            self.recorder = VideoRecorder(path, fps=VIDEO_FPS)
        except (ValueError, RuntimeError, OSError) as exc:
            self._failed(f"Cannot record to {path}", exc)
            return False
        self._start = time.perf_counter()
        self.actions["record"].setChecked(True)
        self.actions["record"].setText("Stop recording")
        self.indicator.show()
        self._show_elapsed()
        self._clock.start(250)
        self._show_time()
        self.viewport.request_render()
        return True

    def _show_time(self) -> None:
        snap = self.panel.snapshot
        if self.recording and snap is not None:
            self.viewport.scene.set_overlay_text(sim_time=snap.time)

    def _show_elapsed(self) -> None:
        seconds = int(time.perf_counter() - self._start)
        self.indicator.setText(f"\u25cf REC {seconds // 60:02d}:{seconds % 60:02d}")

    def _frame_drawn(self, *_args) -> None:
        """After each frame of the view: hand it to the recorder, with the time drawn in."""
        recorder = self.recorder
        if recorder is None:
            return
        self._show_time()  # for the next frame; this one shows the time set before it
        recorder.offer(capture_window(self.viewport.render_window), time.perf_counter())

    def stop_recording(self, wait: bool = False) -> Path | None:
        """Stop recording; the rest is encoded with a progress dialog (``wait``: block until
        the file is complete)."""
        recorder, self.recorder = self.recorder, None
        if recorder is None:
            return None
        recorder.finish()
        self._clock.stop()
        self.indicator.hide()
        self.actions["record"].setChecked(False)
        self.actions["record"].setText("Record video")
        self.viewport.scene.set_overlay_text()
        self.viewport.request_render()
        self.last_video = recorder.path
        total = max(recorder.pending, 1)
        self.progress = QProgressDialog("Encoding the video…", "", 0, total, self.window)
        self.progress.setObjectName("encodingProgress")
        self.progress.setWindowTitle("Record video")
        self.progress.setCancelButton(None)
        self.progress.setMinimumDuration(300)
        self.progress.setWindowModality(Qt.WindowModality.WindowModal)
        poll = QTimer(self.progress)

        def update() -> None:
            if self.progress is None:
                return
            self.progress.setValue(total - min(recorder.pending, total))
            if recorder.done:
                poll.stop()
                self.progress.close()
                self.progress = None
                self._finished(recorder)

        poll.timeout.connect(update)
        poll.start(50)
        if wait:
            recorder.wait(60)
            update()
        return recorder.path

    def _finished(self, recorder: VideoRecorder) -> None:
        if recorder.error:
            self._failed(
                f"The video {recorder.path} could not be written", RuntimeError(recorder.error)
            )
            return
        note = f" ({recorder.dropped} frames dropped)" if recorder.dropped else ""
        self._report(f"Saved {recorder.written} video frames to {recorder.path}{note}")

    def shutdown(self) -> None:
        """Finish a recording in progress (the window is closing)."""
        if self.recording:
            self.stop_recording(wait=True)


def install_recording(window: QMainWindow, panel) -> RecordingController:
    """Add Save image…, Save image at size… and Record video to ``window``."""
    return RecordingController(window, panel)
