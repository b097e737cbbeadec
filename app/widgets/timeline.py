"""Timeline: a strip under the 3-D view showing the recorded span of simulated time, the
displayed moment (a cursor) and the user's bookmarks.

Failures are marked in red below the bar; events (handled: green, reported: grey,
assemblies: purple) as ticks on the bar's lower edge, with their cause in the tooltip under
the pointer. Dragging with the left button asks for the recorded State under the pointer
(``scrubbed``); clicking within a few pixels of a bookmark or a mark snaps to it, and
double-clicking a bookmark asks to rename it (``bookmark_rename_requested(index)``).
Left/Right ask for the previous/next recorded State (``step_requested``); B asks for a
bookmark at the cursor (``bookmark_requested``). The widget only draws and asks: the owner
decides what is shown.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

MARGIN = 48  # px left and right of the bar, for the time labels
SNAP_PX = 5  # a press this close to a bookmark goes to the bookmark
#: Colours of the event marks by kind (app.history.event_log's kinds).
EVENT_COLOURS = {
    "handled": QColor(39, 174, 96),
    "reported": QColor(127, 140, 141),
    "assembled": QColor(142, 68, 173),
}


class Timeline(QWidget):
    """See the module docstring. Times are simulated seconds."""

    scrubbed = Signal(float)
    step_requested = Signal(int)
    bookmark_requested = Signal()
    bookmark_rename_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("timeline")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setToolTip(
            "Recorded history: drag to show a recorded State; Left/Right step one report; "
            "B adds a bookmark; double-click a bookmark to rename it"
        )
        self.start = 0.0
        self.end = 0.0
        self.cursor_time = 0.0
        self.bookmarks: list[tuple[float, str]] = []
        self.marks: list[tuple[float, str]] = []
        #: Events (time, kind, text): see set_event_marks.
        self.event_marks: list[tuple[float, str, str]] = []

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(400, 34)

    # -- state ----------------------------------------------------------------------------

    def set_span(self, start: float, end: float) -> None:
        if (start, end) != (self.start, self.end):
            self.start, self.end = start, end
            self.update()

    def set_cursor(self, t: float) -> None:
        if t != self.cursor_time:
            self.cursor_time = t
            self.update()

    def set_marks(self, marks: list[tuple[float, str]]) -> None:
        """Failures (time, message), drawn as red marks with the message as tooltip."""
        if marks != self.marks:
            self.marks = list(marks)
            if marks:
                self.setToolTip(f"t = {marks[-1][0]:.4g} s: {marks[-1][1]}")
            self.update()

    def set_event_marks(self, marks: list[tuple[float, str, str]]) -> None:
        """Events (time, kind, text): kind "handled", "reported" or "assembled"."""
        self.event_marks = list(marks)
        self.update()

    def mark_at(self, x: float) -> tuple[float, str] | None:
        """(time, text) of the failure or event mark nearest pixel column ``x``, if it is
        within a few pixels (failures first)."""
        best = None
        for t, text in self.marks + [(t, text) for t, _, text in self.event_marks]:
            d = abs(self.x_of(t) - x)
            if d <= SNAP_PX and (best is None or d < best[0]):
                best = (d, t, text)
        return None if best is None else (best[1], best[2])

    def set_bookmarks(self, bookmarks: list[tuple[float, str]]) -> None:
        self.bookmarks = list(bookmarks)
        self.update()

    # -- geometry -------------------------------------------------------------------------

    def _bar(self) -> QRectF:
        return QRectF(MARGIN, 8, max(1.0, self.width() - 2 * MARGIN), self.height() - 16)

    def x_of(self, t: float) -> float:
        """Pixel column of time ``t``."""
        bar = self._bar()
        span = self.end - self.start
        f = 0.0 if span <= 0 else (t - self.start) / span
        return bar.left() + min(max(f, 0.0), 1.0) * bar.width()

    def time_at(self, x: float) -> float:
        """Time under pixel column ``x`` (clamped to the recorded span)."""
        bar = self._bar()
        f = min(max((x - bar.left()) / bar.width(), 0.0), 1.0)
        return self.start + f * (self.end - self.start)

    # -- input ----------------------------------------------------------------------------

    def _scrub_to(self, x: float) -> None:
        for t, _ in self.bookmarks:
            if abs(self.x_of(t) - x) <= SNAP_PX:
                self.scrubbed.emit(t)
                return
        mark = self.mark_at(x)
        self.scrubbed.emit(self.time_at(x) if mark is None else mark[0])

    def event(self, event) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            index = self.bookmark_at(event.pos().x())
            mark = self.bookmarks[index] if index is not None else self.mark_at(event.pos().x())
            if mark is not None:
                QToolTip.showText(event.globalPos(), f"t = {mark[0]:.4g} s: {mark[1]}", self)
                return True
        return super().event(event)

    def mousePressEvent(self, event) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.end > self.start:
            self._scrub_to(event.position().x())
        super().mousePressEvent(event)

    def bookmark_at(self, x: float) -> int | None:
        """Index of the bookmark drawn within a few pixels of column ``x``, if any."""
        near = [(abs(self.x_of(t) - x), i) for i, (t, _) in enumerate(self.bookmarks)]
        near = [(d, i) for d, i in near if d <= SNAP_PX]
        return min(near)[1] if near else None

    def mouseDoubleClickEvent(self, event) -> None:
        index = self.bookmark_at(event.position().x())
        if event.button() == Qt.MouseButton.LeftButton and index is not None:
            self.bookmark_rename_requested.emit(index)
            return
        super().mouseDoubleClickEvent(event)

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton and self.end > self.start:
            self.scrubbed.emit(self.time_at(event.position().x()))
        super().mouseMoveEvent(event)

    def keyPressEvent(self, event) -> None:
        key = event.key()
        if key == Qt.Key.Key_Left:
            self.step_requested.emit(-1)
        elif key == Qt.Key.Key_Right:
            self.step_requested.emit(1)
        elif key == Qt.Key.Key_B:
            self.bookmark_requested.emit()
        else:
            super().keyPressEvent(event)

    # -- drawing --------------------------------------------------------------------------

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        bar = self._bar()
        painter.fillRect(self.rect(), palette.window())
        recorded = self.end > self.start
        painter.fillRect(bar, QColor(90, 110, 140) if recorded else QColor(160, 160, 160))
        painter.setPen(palette.windowText().color())
        text_flags = Qt.AlignmentFlag.AlignVCenter
        painter.drawText(
            QRectF(0, 0, MARGIN - 4, self.height()),
            text_flags | Qt.AlignmentFlag.AlignRight,
            f"{self.start:.2f}",
        )
        painter.drawText(
            QRectF(self.width() - MARGIN + 4, 0, MARGIN - 4, self.height()),
            text_flags | Qt.AlignmentFlag.AlignLeft,
            f"{self.end:.2f}",
        )
        painter.setBrush(QColor(52, 152, 219))
        painter.setPen(Qt.PenStyle.NoPen)
        for t, _ in self.bookmarks:
            x = self.x_of(t)
            painter.drawPolygon(
                QPolygonF([QPointF(x - 5, 0), QPointF(x + 5, 0), QPointF(x, bar.top() + 2)])
            )
        painter.setBrush(QColor(192, 57, 43))
        for t, _ in self.marks:
            x = self.x_of(t)
            bottom = self.height()
            painter.drawPolygon(
                QPolygonF(
                    [QPointF(x - 5, bottom), QPointF(x + 5, bottom), QPointF(x, bar.bottom() - 2)]
                )
            )
        painter.setPen(Qt.PenStyle.NoPen)
        for t, kind, _ in self.event_marks:
            if self.start <= t <= self.end:
                painter.setBrush(EVENT_COLOURS.get(kind, QColor(127, 140, 141)))
                x = self.x_of(t)
                painter.drawRect(QRectF(x - 1.5, bar.bottom() - 7, 3, 7))
        if self.end > self.start:
            x = self.x_of(self.cursor_time)
            painter.setPen(QPen(QColor(231, 76, 60), 3))
            painter.drawLine(QPointF(x, 2), QPointF(x, self.height() - 2))
        if self.hasFocus():
            painter.setPen(QPen(palette.highlight().color(), 1, Qt.PenStyle.DotLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        painter.end()
