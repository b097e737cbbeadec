"""A plot value axis whose tick labels stay short when the visible range is tiny next to the
values: a conserved energy of 1.0787762500556 J that drifts by 1e-12 J would otherwise get
13-digit labels that all look alike. Then the ticks show the difference from an offset, and a
label written across the plot's top right corner says which offset
("Δ from 1.0787762500557"): written along the axis, as axis titles are, its 17 digits would not
fit the height of a docked plot."""

from __future__ import annotations

import math

import pyqtgraph as pg

#: Offset labels are used when the values are this many times larger than the visible span.
OFFSET_RATIO = 1e5


def tick_offset(low: float, high: float) -> float | None:
    """The offset to subtract from tick values on a visible range [low, high], or None when
    plain labels stay short. The offset is the range's middle rounded to the span's decade, so
    it has few digits and stays put while the range moves within that decade."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return None
    span = abs(high - low)
    magnitude = max(abs(low), abs(high))
    if span == 0.0 or magnitude < OFFSET_RATIO * span:
        return None
    step = 10.0 ** math.floor(math.log10(span))
    return round(0.5 * (low + high) / step) * step


def offset_text(offset: float, low: float, high: float) -> str:
    """``offset`` written with the digits that tell it apart at the span of [low, high]."""
    step = 10.0 ** math.floor(math.log10(abs(high - low)))
    digits = min(17, max(1, math.ceil(math.log10(abs(offset) / step)) + 1)) if offset else 1
    return f"{offset:.{digits}g}"


def difference_text(difference: float, spacing: float) -> str:
    """A tick's difference from the offset, with the digits the tick spacing needs (so that
    rounding noise such as -9.99e-14 for -1e-13 does not show)."""
    if abs(difference) < 1e-3 * spacing:
        return "0"
    digits = max(1, math.ceil(math.log10(abs(difference) / spacing) - 1e-9) + 1)
    return f"{difference:+.{digits}g}"


class OffsetAxis(pg.AxisItem):
    """A left/right value axis labelling ticks relative to ``tick_offset`` of its range."""

    def __init__(self, orientation: str = "left", **kwargs) -> None:
        super().__init__(orientation, **kwargs)
        self.offset: float | None = None
        #: "Δ from <offset>" across the top right corner of the linked view, hidden while the
        #: ticks show plain values.
        self.offset_label = pg.LabelItem("", justify="right")
        self.offset_label.setVisible(False)

    def tickStrings(self, values, scale, spacing):  # noqa: N802 (pyqtgraph's name)
        low, high = (v * scale for v in self.range)
        offset = tick_offset(low, high) if not self.logMode else None
        self._show_offset(offset, low, high)
        if offset is None:
            return super().tickStrings(values, scale, spacing)
        return [difference_text(v * scale - offset, spacing * scale) for v in values]

    def _show_offset(self, offset: float | None, low: float, high: float) -> None:
        if offset == self.offset:
            return
        self.offset = offset
        label = self.offset_label
        if offset is None:
            label.setVisible(False)
            return
        view = self.linkedView()
        if view is not None and label.parentItem() is not view:
            label.setParentItem(view)
            label.anchor(itemPos=(1, 0), parentPos=(1, 0), offset=(-4, 0))
        label.setText(f"Δ from {offset_text(offset, low, high)}", color=self.textPen().color())
        label.setVisible(True)
