"""A live plot refresh costs one repaint of the plot (pyqtgraph's automatic ranging is done
before painting, not inside the paint, where it scheduled a second full repaint)."""

from __future__ import annotations

import numpy as np
import pytest

from app.simulation.samples import SampleBuffer

pytestmark = pytest.mark.gui


def test_each_refresh_repaints_the_plot_once_and_follows_the_data(qtbot):
    import pyqtgraph as pg

    from app.widgets.plots import PlotsWidget

    buffer = SampleBuffer(["t", "a", "total energy"], 1000)
    widget = PlotsWidget()
    qtbot.addWidget(widget)
    widget.resize(600, 300)
    widget.show()
    qtbot.waitExposed(widget)
    widget.set_buffer(buffer)
    paints = []
    view = widget.plot
    original = type(view).paintEvent

    def counting(self, event):
        if self is view:
            paints.append(1)
        original(self, event)

    pg.GraphicsView.paintEvent = counting
    try:
        qtbot.wait(100)
        t = 0.0
        refreshes = 12
        paints.clear()
        for _k in range(refreshes):
            for _ in range(10):
                t += 0.01
                buffer.append(np.array([t, np.sin(t), np.cos(7 * t)]))
            assert widget.refresh() == 10
            qtbot.wait(60)
        assert refreshes <= len(paints) <= refreshes + 2
    finally:
        pg.GraphicsView.paintEvent = original
    # the view follows the data (automatic range over everything plotted)
    (x0, x1), (y0, y1) = widget.plot.plotItem.vb.viewRange()
    assert x0 <= 0.01 and x1 >= t - 1e-9
    data = buffer.all()[:, 2]
    assert y0 <= data.min() and y1 >= data.max()
