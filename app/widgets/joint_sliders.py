"""Joint sliders: one slider and spin box per coordinate, grouped by body.

Moving a slider while the simulation is paused poses the model: it asks the session to set that
q (the worker re-assembles when the model has constraints). While running the sliders follow the
simulation and are disabled.

Every row shows its unit: angles in degrees (the State holds radians), lengths in m. The spin
box shows the true value (after full turns an angle reads 400 deg, not 40); the slider covers
one turn and wraps. A quaternion orientation (Ball, Free, Ellipsoid, ...) is posed through
three body-fixed x-y-z angles in degrees, which always give a unit quaternion; its components
are never edited one by one.

A large model (more than ``LAZY_ABOVE`` bodies) gets rows only for the bodies in view: the
panel knows each body's group height, sizes its scrolled area for all of them, and creates the
groups that come within ``OVERSCAN`` screens of the view as it scrolls (dropping those that go
far out of it), so that opening a 20,000-body chain makes a few dozen rows, not 60,000.
``rows`` and ``euler_rows`` then hold the rows that exist; ``scroll_to_body`` brings a body's
group into view (and into being).
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from app.simulation.snapshot import joint_layout
from app.widgets.coordinate_units import (
    from_display,
    q_kinds,
    q_label,
    q_tooltip,
    to_display,
    unit,
)
from app.widgets.wheel_guard import guard_wheel

STEPS = 1000
SPIN_LIMIT = 1e9  # the spin box shows any value the State holds
#: Pixels of a spin box besides its text: frame, margins and the up/down buttons.
SPIN_CHROME = 40
STALE_FLUSH_MS = 300  # rows out of view show the latest snapshot this long after it came
LAZY_ABOVE = 200  # bodies: a larger model gets rows only for the bodies in (or near) view
OVERSCAN = 1.0  # screens above and below the view whose groups are made too
DROP_BEYOND = 3.0  # screens beyond the view past which made groups are dropped
GROUP_SPACING = 6  # pixels between two bodies' groups (the lazy layout)


def wrap_degrees(value: float) -> float:
    """``value`` wrapped into [-180, 180)."""
    return (value + 180.0) % 360.0 - 180.0


class _CoordinateRow(QWidget):
    """A slider and a spin box for one value in display units; ``changed`` emits the value
    (display units) when the user moves either."""

    changed = Signal(float)

    def __init__(self, name: str, lo: float, hi: float, suffix: str, wraps: bool) -> None:
        super().__init__()
        self.lo, self.hi, self.wraps = lo, hi, wraps
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setObjectName(f"slider_{name}")
        self.slider.setRange(0, STEPS)
        self.slider.setToolTip(f"{name}: drag to pose the model (paused only)")
        self.spin = QDoubleSpinBox()
        self.spin.setObjectName(f"spin_{name}")
        self.spin.setDecimals(4 if suffix != "deg" else 2)
        self.spin.setRange(-SPIN_LIMIT, SPIN_LIMIT)
        self.spin.setSingleStep((hi - lo) / 100)
        self.spin.setKeyboardTracking(False)
        if suffix:
            self.spin.setSuffix(f" {suffix}")
        # As wide as a value of up to four integer digits needs: sized for its 1e9 range it
        # would take the row and leave the slider a few pixels in a narrow Joints dock.
        sample = f"-0000.{'0' * self.spin.decimals()} {suffix}"
        self.spin.setFixedWidth(self.spin.fontMetrics().horizontalAdvance(sample) + SPIN_CHROME)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.spin)
        self._setting = False
        self._shown: float | None = None  # the value show_value last displayed
        self.slider.valueChanged.connect(self._from_slider)
        self.spin.valueChanged.connect(self._from_spin)

    def value(self) -> float:
        return self.spin.value()

    def _slider_position(self, value: float) -> int:
        v = wrap_degrees(value) if self.wraps else min(max(value, self.lo), self.hi)
        return round((v - self.lo) / (self.hi - self.lo) * STEPS)

    def show_value(self, value: float) -> None:
        """Display ``value`` (the true value in the spin box) without emitting ``changed``."""
        if value == self._shown or self.slider.isSliderDown() or self.spin.hasFocus():
            return
        self._shown = value
        # Signals blocked: nothing listens to a value shown (only to values the user sets).
        spin_blocked = self.spin.blockSignals(True)
        slider_blocked = self.slider.blockSignals(True)
        try:
            self.spin.setValue(value)
            self.slider.setValue(self._slider_position(value))
        finally:
            self.spin.blockSignals(spin_blocked)
            self.slider.blockSignals(slider_blocked)

    def set_value(self, value: float) -> None:
        """Set the value as a user would (emits ``changed``)."""
        self.spin.setValue(value)

    def _from_slider(self, pos: int) -> None:
        if self._setting:
            return
        self._shown = None
        value = self.lo + (self.hi - self.lo) * pos / STEPS
        self._setting = True
        self.spin.setValue(value)
        self._setting = False
        self.changed.emit(value)

    def _from_spin(self, value: float) -> None:
        if self._setting:
            return
        self._shown = None
        self._setting = True
        self.slider.setValue(self._slider_position(value))
        self._setting = False
        self.changed.emit(value)


def quaternion_to_xyz_degrees(quat) -> np.ndarray:
    from engine.math.rotation import Rotation

    q = np.asarray(quat, dtype=float)
    norm = float(np.linalg.norm(q))
    q = q / norm if norm > 0 else np.array([1.0, 0.0, 0.0, 0.0])
    angles = Rotation().setRotationFromQuaternion(q).convertRotationToBodyFixedXYZ()
    return np.degrees(np.asarray(angles, dtype=float))


def xyz_degrees_to_quaternion(angles) -> np.ndarray:
    from engine.math.rotation import Rotation

    rotation = Rotation().setRotationToBodyFixedXYZ(np.radians(np.asarray(angles, dtype=float)))
    return np.asarray(rotation.convertRotationToQuaternion().asVec4(), dtype=float)


class JointSliders(QWidget):
    """See the module docstring. ``set_model(mobilizer_types, q_index, length_scale)`` then
    ``update_snapshot``."""

    q_changed = Signal(str, int, float)  # body name, which q of that body, value (SI)
    #: A whole orientation: body name, its first q, the unit quaternion [w, x, y, z].
    quaternion_changed = Signal(str, int, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("jointSliders")
        self._inner = QWidget()
        self._layout = QVBoxLayout(self._inner)
        self._layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self._inner)
        self._scroll = scroll
        scroll.verticalScrollBar().valueChanged.connect(self._make_in_view_on_scroll)
        scroll.verticalScrollBar().valueChanged.connect(self._refresh_in_view)
        scroll.horizontalScrollBar().valueChanged.connect(self._refresh_in_view)
        #: The latest snapshot shown; rows left out of it are set when the timer fires.
        self._snap = None
        self._stale = False  # some row does not show ``_snap`` yet (it is out of view)
        self._new_rows = True
        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(STALE_FLUSH_MS)
        self._flush_timer.timeout.connect(self._flush)
        self.hint = QLabel("Pause to pose the model with the sliders.")
        self.hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(self.hint)
        layout.addWidget(scroll)
        #: (body, which q) -> row, for every coordinate edited directly (not quaternions).
        self.rows: dict[tuple[str, int], _CoordinateRow] = {}
        #: (body, axis 0..2) -> row of a quaternion orientation's x-y-z angle (deg).
        self.euler_rows: dict[tuple[str, int], _CoordinateRow] = {}
        self._global_index: dict[tuple[str, int], int] = {}
        self._kinds: dict[tuple[str, int], str] = {}
        self._quat_start: dict[str, int] = {}  # body -> which q its quaternion starts at
        self._boxes: dict[str, QGroupBox] = {}  # body -> its group of rows
        #: body -> (mobilizer type, its q numbers), in q order: what the rows show
        self._body_layout: dict[str, tuple[str, tuple[int, ...]]] = {}
        self._rows_enabled: bool | None = None  # whether every row is enabled (None: unknown)
        self._quat_shown: dict[str, tuple] = {}  # body -> the quaternion its angles show
        #: Lazy layout (more than LAZY_ABOVE bodies): bodies in order, their index, the top
        #: of each one's group in pixels (one more entry: the total height).
        self._lazy = False
        self._order: list[str] = []
        self._position: dict[str, int] = {}
        self._tops = np.zeros(1, dtype=np.int64)
        self._length_scale = 1.0
        self._group_heights: dict[int, int] = {}  # form rows -> group height (pixels)
        self._row_counts: dict[tuple[str, int], int] = {}  # (type, nq) -> form rows
        scroll.viewport().installEventFilter(self)

    def set_model(
        self,
        mobilizer_types: dict[str, str],
        q_index: dict[tuple[str, int], int],
        length_scale: float,
        layout: dict | None = None,
    ) -> None:
        """Show the sliders of a model whose bodies have ``mobilizer_types`` (body name ->
        mobilizer type name); ``q_index`` maps (body, which) to global q index, in q order;
        ``layout``: their ``joint_layout`` if already made (the worker makes it, see
        ModelInfo). The same joints again (an edit of masses or geometry) keep the sliders
        they have; an edit of a few joints (a body added, removed, renamed or given another
        mobilizer) replaces only those bodies' rows."""
        if layout is None:
            layout = joint_layout(mobilizer_types, q_index)
        old_layout = getattr(self, "_body_layout", None)
        old_scale = getattr(self, "_model_scale", None)
        self._global_index = q_index  # (never changed here; a new model gives a new one)
        if old_scale == float(length_scale) and (
            layout is old_layout
            or (layout == old_layout and list(layout) == list(old_layout))  # order too
        ):
            return
        self._model_scale = float(length_scale)
        self._new_rows = True  # the next snapshot sets every row, new ones included
        old_layout = old_layout or {}
        if len(layout) > LAZY_ABOVE:
            self._set_lazy(layout, length_scale, keep=old_scale == float(length_scale))
            return
        kept = [b for b in old_layout if layout.get(b) == old_layout[b]]
        gone = len(old_layout) - len(kept)
        if (
            self._lazy
            or old_scale is None
            or old_scale != float(length_scale)
            or gone > max(50, len(old_layout) // 2)
            or kept != [b for b in layout if old_layout.get(b) == layout[b]]
        ):
            self._rebuild(layout, length_scale)
            return
        kept_set = set(kept)
        for body in old_layout:
            if body not in kept_set:
                self._remove_body(body)
        position = 0
        for body, (kind, whichs) in layout.items():
            if body not in kept_set:
                self._layout.insertWidget(
                    position, self._body_box(body, kind, whichs, length_scale)
                )
            position += 1
        self._body_layout = layout
        self._rows_enabled = None

    def _rebuild(self, layout: dict, length_scale: float) -> None:
        """Replace every row: a new inner widget, so that the scroll area deletes the old one
        with all its rows at once (taking thousands of rows out one by one costs seconds).
        The new one is filled before it is shown: each group added to a shown widget would
        lay out all the groups before it again (O(n^2) for n bodies)."""
        self._lazy = False
        self._inner = QWidget()
        self._layout = QVBoxLayout(self._inner)
        self._layout.addStretch(1)
        self.rows.clear()
        self.euler_rows.clear()
        self._kinds.clear()
        self._quat_start.clear()
        self._quat_shown.clear()
        self._boxes = {}
        for body, (kind, whichs) in layout.items():
            self._layout.insertWidget(
                self._layout.count() - 1, self._body_box(body, kind, whichs, length_scale)
            )
        self._scroll.setWidget(self._inner)  # deletes the old one
        self._body_layout = layout

    def _remove_body(self, body: str) -> None:
        """Take the rows of ``body`` out (its joint is gone or changed)."""
        box = self._boxes.pop(body)
        kind, whichs = self._body_layout[body]
        for which in whichs:
            self.rows.pop((body, which), None)
            self._kinds.pop((body, which), None)
        for axis in range(3):
            self.euler_rows.pop((body, axis), None)
        self._quat_start.pop(body, None)
        self._quat_shown.pop(body, None)
        if self._layout is not None:
            self._layout.removeWidget(box)
        box.hide()
        box.deleteLater()

    def _body_box(self, body: str, kind: str, whichs: tuple, length_scale: float) -> QGroupBox:
        """The group of rows of one body's coordinates (registered in rows/euler_rows)."""
        kinds = q_kinds(kind, len(whichs))
        box = QGroupBox(f"{body} ({kind})")
        form = QFormLayout(box)
        if kinds[:4] == ["quat"] * 4:
            self._quat_start[body] = 0
            for axis, name in enumerate("xyz"):
                row = _CoordinateRow(f"{body}_{name}", -180.0, 180.0, "deg", wraps=True)
                row.slider.setToolTip(
                    f"{body}: body-fixed {name} angle of the x-y-z sequence (deg); "
                    "drag to pose (paused only)"
                )
                row.changed.connect(lambda _v, b=body: self._euler_moved(b))
                form.addRow(f"{name} angle (deg)", row)
                self.euler_rows[(body, axis)] = row
        for which in whichs:
            k = kinds[which]
            self._kinds[(body, which)] = k
            if k == "quat":
                continue
            if k == "angle":
                row = _CoordinateRow(f"{body}_q{which}", -180.0, 180.0, "deg", wraps=True)
            else:
                span = 2.0 * length_scale
                row = _CoordinateRow(f"{body}_q{which}", -span, span, unit(k), wraps=False)
            row.changed.connect(
                lambda v, b=body, w=which, k=k: self.q_changed.emit(b, w, from_display(k, v))
            )
            tip = f"{body}: {q_tooltip(kind, len(whichs), which)}; drag to pose (paused only)"
            row.slider.setToolTip(tip)
            label = QLabel(q_label(kind, len(whichs), which))
            label.setToolTip(tip)
            form.addRow(label, row)
            self.rows[(body, which)] = row
        guard_wheel(box)
        self._boxes[body] = box
        return box

    # -- lazy layout (large models) -------------------------------------------------------------

    def _form_rows(self, kind: str, nq: int) -> int:
        """How many rows a body's group has (three angles for a quaternion, one per other q)."""
        count = self._row_counts.get((kind, nq))
        if count is None:
            kinds = q_kinds(kind, nq)
            quat = kinds[:4] == ["quat"] * 4
            count = 3 * quat + sum(k != "quat" for k in kinds)
            self._row_counts[(kind, nq)] = count
        return count

    def _group_height(self, rows: int) -> int:
        """The height (pixels) of a group of ``rows`` rows, measured once on a sample group."""
        height = self._group_heights.get(rows)
        if height is None:
            box = QGroupBox("sample (Ball)")
            form = QFormLayout(box)
            for k in range(rows):
                form.addRow(f"q{k} (deg)", _CoordinateRow(f"sample{k}", -1.0, 1.0, "deg", True))
            height = box.sizeHint().height()
            box.deleteLater()
            self._group_heights[rows] = height
        return height

    def _set_lazy(self, layout: dict, length_scale: float, keep: bool) -> None:
        """Show ``layout`` lazily: keep the groups made for bodies whose joint is unchanged
        (``keep``), drop the others, place the groups anew and make those in view."""
        if not self._lazy or not keep:
            self._lazy = True
            self._inner = QWidget()
            self._layout = None
            self.rows.clear()
            self.euler_rows.clear()
            self._kinds.clear()
            self._quat_start.clear()
            self._quat_shown.clear()
            self._boxes = {}
            self._scroll.setWidget(self._inner)  # deletes the old one
        else:
            for body in list(self._boxes):
                if layout.get(body) != self._body_layout.get(body):
                    self._remove_body(body)
        self._body_layout = layout
        self._length_scale = float(length_scale)
        self._order = list(layout)
        self._position = {body: i for i, body in enumerate(self._order)}
        # one height per kind of joint (a chain has one or two), looked up per body at C speed
        height = {
            joint: self._group_height(self._form_rows(joint[0], len(joint[1]))) + GROUP_SPACING
            for joint in set(layout.values())
        }
        heights = np.fromiter(map(height.__getitem__, layout.values()), np.int64, len(layout))
        self._tops = np.concatenate(([0], np.cumsum(heights)))
        self._inner.setMinimumHeight(int(self._tops[-1]))
        self._rows_enabled = None
        width = self._inner.width()
        for body, box in self._boxes.items():
            self._place(body, box, width)
        self._make_in_view()

    def _place(self, body: str, box: QGroupBox, width: int) -> None:
        i = self._position[body]
        top = int(self._tops[i])
        box.setGeometry(0, top, width, int(self._tops[i + 1]) - top - GROUP_SPACING)

    def _make_in_view(self) -> None:
        """Make the groups within OVERSCAN screens of the view, drop those beyond
        DROP_BEYOND screens, and show the latest snapshot in the new ones."""
        if not self._lazy or not self._order:
            return
        view = max(self._scroll.viewport().height(), 200)
        top = self._scroll.verticalScrollBar().value()
        tops = self._tops
        first = max(int(np.searchsorted(tops, top - OVERSCAN * view, "right")) - 1, 0)
        last = int(np.searchsorted(tops, top + (1 + OVERSCAN) * view, "left"))
        keep_from = top - DROP_BEYOND * view
        keep_to = top + (1 + DROP_BEYOND) * view
        for body in list(self._boxes):
            i = self._position[body]
            if tops[i + 1] < keep_from or tops[i] > keep_to:
                self._remove_body(body)
        width = self._inner.width()
        made = False
        for body in self._order[first:last]:
            if body in self._boxes:
                continue
            kind, whichs = self._body_layout[body]
            box = self._body_box(body, kind, whichs, self._length_scale)
            box.setParent(self._inner)
            self._place(body, box, width)
            if self._rows_enabled is not None:
                for row in box.findChildren(_CoordinateRow):
                    row.setEnabled(self._rows_enabled)
            box.show()
            made = True
        if made and self._snap is not None:
            self._show_rows(self._snap, in_view_only=False)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802  (Qt's name)
        """The view resized: the groups take its width, and those that came into it are made."""
        if self._lazy and event.type() == QEvent.Type.Resize:
            QTimer.singleShot(0, self._fit_width)  # once the scroll area has sized its widget
        return False

    def _fit_width(self) -> None:
        if self._lazy:
            width = self._inner.width()
            for body, box in self._boxes.items():
                self._place(body, box, width)
            self._make_in_view()

    def scroll_to_body(self, body: str) -> None:
        """Scroll the group of ``body`` into view (made if the model is shown lazily)."""
        if self._lazy:
            i = self._position.get(body)
            if i is None:
                return
            bar = self._scroll.verticalScrollBar()
            top, bottom = int(self._tops[i]), int(self._tops[i + 1])
            view = self._scroll.viewport().height()
            if top < bar.value() or bottom > bar.value() + view:
                bar.setValue(top)
            self._make_in_view()
        elif body in self._boxes:
            self._scroll.ensureWidgetVisible(self._boxes[body], 0, 0)

    def _euler_moved(self, body: str) -> None:
        self._quat_shown.pop(body, None)
        angles = [self.euler_rows[(body, axis)].value() for axis in range(3)]
        self.quaternion_changed.emit(
            body, self._quat_start[body], xyz_degrees_to_quaternion(angles)
        )

    def all_rows(self) -> list[_CoordinateRow]:
        return [*self.rows.values(), *self.euler_rows.values()]

    def update_snapshot(self, snap) -> None:
        """Show the q of ``snap``. The rows in view are set now; the others (scrolled out of
        view, or the whole panel hidden) when they come into view (a scroll, the panel
        shown) or, paused, once no new snapshot has come for STALE_FLUSH_MS, so that
        scrubbing a long chain's history does not reformat a hundred rows nobody sees; while
        running, rows out of view are set only as they come into view (and all of them by
        the paused snapshot that ends the run). The first snapshot after a new set of rows
        sets them all."""
        paused = not snap.running
        self.hint.setVisible(not paused)
        if self._rows_enabled != paused:
            self._rows_enabled = paused
            for row in self.all_rows():
                if row.isEnabled() != paused:
                    row.setEnabled(paused)
        self._snap = snap
        new_rows, self._new_rows = self._new_rows, False
        if self._show_rows(snap, in_view_only=not new_rows):
            return
        if paused:
            self._flush_timer.start()
        else:  # (a flush a paused snapshot started is not wanted once running)
            self._flush_timer.stop()

    def _show_rows(self, snap, in_view_only: bool) -> bool:
        """Set the rows (those in view, or all) to the q of ``snap``; False if any row was
        left out."""
        complete = True
        q = snap.q
        for key, row in self.rows.items():
            if in_view_only and row.visibleRegion().isEmpty():
                complete = False
                continue
            i = self._global_index[key]
            if i < len(q):
                row.show_value(to_display(self._kinds[key], float(q[i])))
        for body, first in self._quat_start.items():
            rows = [self.euler_rows[(body, axis)] for axis in range(3)]
            if in_view_only and all(r.visibleRegion().isEmpty() for r in rows):
                complete = False
                continue
            idx = [self._global_index.get((body, first + k)) for k in range(4)]
            if any(i is None or i >= len(q) for i in idx):
                continue
            quat = tuple(float(q[i]) for i in idx)
            if self._quat_shown.get(body) == quat:
                continue  # shown already
            if any(r.slider.isSliderDown() or r.spin.hasFocus() for r in rows):
                continue  # the user is turning it: keep the angles as they are
            self._quat_shown[body] = quat
            angles = quaternion_to_xyz_degrees(quat)
            for row, angle in zip(rows, angles, strict=True):
                row.show_value(float(angle))
        self._stale = not complete
        if complete:
            self._flush_timer.stop()
        return complete

    def _make_in_view_on_scroll(self, *_args) -> None:
        self._make_in_view()

    def _refresh_in_view(self, *_args) -> None:
        """Rows that came into view show the latest snapshot."""
        if self._snap is not None and self._stale and self.isVisible():
            self._show_rows(self._snap, in_view_only=True)

    def _flush(self) -> None:
        if self._snap is not None:
            self._show_rows(self._snap, in_view_only=False)

    def showEvent(self, event) -> None:  # noqa: N802  (Qt's name)
        super().showEvent(event)
        QTimer.singleShot(0, self._refresh_in_view)  # once the rows are laid out
