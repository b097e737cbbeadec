"""While a studio window is open, only the GUI thread runs the cyclic garbage collector: a
collection on the simulation worker would destroy Qt objects there and can deadlock with
the GUI thread (app.simulation.collection)."""

from __future__ import annotations

import gc
import threading

import pytest
from PySide6.QtCore import Qt

from app.simulation import collection

pytestmark = pytest.mark.gui


def test_a_playing_window_collects_garbage_on_the_gui_thread_only(open_example, qtbot):
    names: list[str] = []

    def record(phase: str, info: dict) -> None:
        if phase == "start":
            names.append(threading.current_thread().name)

    window = open_example("double_pendulum")
    assert not gc.isenabled() and collection.owner() is threading.main_thread()
    gc.callbacks.append(record)
    try:
        play = window.toolbar.widgetForAction(window.sim_actions["play"])
        qtbot.mouseClick(play, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: window.simulation.snapshot.time > 1.0, timeout=30000)
        qtbot.wait(1500)
        pause = window.toolbar.widgetForAction(window.sim_actions["pause"])
        qtbot.mouseClick(pause, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not window.simulation.snapshot.running, timeout=10000)
    finally:
        gc.callbacks.remove(record)
    assert names, "no garbage collection ran while the model played"
    assert set(names) == {threading.main_thread().name}, names


def test_closing_the_last_window_hands_collection_back(open_example):
    window = open_example("double_pendulum")
    assert collection.owner() is threading.main_thread()
    window.close()
    assert collection.owner() is None and gc.isenabled()
