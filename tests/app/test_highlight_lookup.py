"""The selected body's highlight shells are found through the drawn KeyedGeometry's body
indices: the same shells as a pass over every decoration, without asking each decoration
of the model for its body (a 20,000-body chain draws 120,000)."""

from __future__ import annotations

import types

import numpy as np

from app.document import build
from app.document.examples import chain50
from app.simulation_ui import SimulationPanel
from engine import State
from engine.common.decorations.base import DecorativeGeometry
from viz.decoration_keys import KeyedGeometry
from viz.system_decorations import static_decorations


def test_the_highlight_reads_the_bodies_of_the_keyed_geometry(monkeypatch):
    built = build(chain50(12))
    drawn = KeyedGeometry(static_decorations(built.system, State(built.state)))
    by_pass = SimulationPanel._highlight(types.SimpleNamespace(), tuple(drawn), 5)
    calls = []
    real = DecorativeGeometry.getBodyId
    monkeypatch.setattr(
        DecorativeGeometry, "getBodyId", lambda self: (calls.append(1), real(self))[1]
    )
    shells = SimulationPanel._highlight(types.SimpleNamespace(), drawn, 5)
    assert calls == []
    assert len(shells) == len(by_pass) > 0
    for a, b in zip(shells, by_pass, strict=True):
        assert type(a) is type(b) and a.getBodyId() == b.getBodyId() == 5
        assert np.array_equal(a.getScaleFactors(), b.getScaleFactors())
