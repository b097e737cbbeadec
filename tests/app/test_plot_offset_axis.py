"""A flat curve (a conserved energy drifting by 1e-12 J) gets short tick labels relative to an
offset named in a label across the plot's corner, instead of 13-digit labels that all look
alike; an ordinary curve keeps plain labels."""

from __future__ import annotations

import numpy as np
import pytest

from app.simulation.samples import SampleBuffer
from app.widgets.offset_axis import offset_text, tick_offset

pytestmark = pytest.mark.gui


def test_offset_only_when_the_span_is_tiny_next_to_the_values():
    assert tick_offset(0.0, 3.0) is None
    assert tick_offset(1000.0, 1000.5) is None
    assert tick_offset(5.0, 5.0) is None
    offset = tick_offset(1.0787762500554, 1.0787762500560)
    assert offset is not None and abs(offset - 1.0787762500557) < 1e-12
    assert offset_text(offset, 1.0787762500554, 1.0787762500560) == "1.0787762500557"
    assert tick_offset(-6000.000001, -6000.000002) is not None


def _shown_ticks(axis) -> list[str]:
    low, high = axis.range
    strings = []
    for spacing, values in axis.tickValues(low, high, axis.height()):
        strings += axis.tickStrings(values, 1.0, spacing)
    return strings


def test_a_flat_energy_curve_gets_short_labels_and_an_offset(qtbot):
    from app.widgets.plots import PlotsWidget

    buffer = SampleBuffer(["t", "total energy"], 1000)
    widget = PlotsWidget()
    qtbot.addWidget(widget)
    widget.resize(700, 300)
    widget.show()
    qtbot.waitExposed(widget)
    widget.set_buffer(buffer)
    for t in np.linspace(0.0, 2.0, 100):
        buffer.append(np.array([t, 1.0787762500554 + 3e-13 * t * t]))
    widget.refresh()
    qtbot.wait(100)
    axis = widget.plot.getAxis("left")
    ticks = _shown_ticks(axis)
    assert ticks and max(len(s) for s in ticks) <= 9, ticks
    assert axis.offset is not None
    assert axis.offset_label.isVisible()
    assert axis.offset_label.text.startswith("Δ from 1.0787762500")
    # each label plus the offset is the tick's value
    low, high = axis.range
    for spacing, values in axis.tickValues(low, high, axis.height()):
        for v, s in zip(values, axis.tickStrings(values, 1.0, spacing), strict=True):
            assert abs(axis.offset + float(s) - v) <= 0.01 * spacing

    # a curve that varies by order 1 goes back to plain labels and no offset label
    for t in np.linspace(2.0, 4.0, 100):
        buffer.append(np.array([t, np.sin(t)]))
    widget.refresh()
    qtbot.wait(100)
    _shown_ticks(axis)
    assert axis.offset is None and not axis.offset_label.isVisible()


def test_differences_show_the_digits_the_spacing_needs():
    from app.widgets.offset_axis import difference_text

    assert difference_text(-9.99e-14, 1e-13) == "-1e-13"
    assert difference_text(4.5e-12, 5e-13) == "+4.5e-12"
    assert difference_text(1e-12, 5e-13) == "+1e-12"
    assert difference_text(2e-20, 1e-13) == "0"
