"""Fixtures for offscreen viz tests: a Scene in a small offscreen window (no Qt, no DISPLAY)."""

from __future__ import annotations

import pytest

from tests.viz.helpers import HEIGHT, WIDTH
from viz.scene import Scene


@pytest.fixture
def make_scene():
    """Factory for Scenes attached to offscreen windows; all are closed at teardown."""
    scenes = []

    def make(width=WIDTH, height=HEIGHT, uniform=True, **kwargs) -> Scene:
        scene = Scene(**kwargs)
        scene.attach_offscreen(width, height)
        scene.set_hints(uniform_background=uniform)
        scenes.append(scene)
        return scene

    yield make
    for scene in scenes:
        scene.close()


@pytest.fixture
def scene(make_scene) -> Scene:
    """A 200x150 scene, white background, camera on +Z looking at the origin with +Y up.

    At the origin's depth the view spans about x in [-2.1, 2.1] and y in [-1.6, 1.6].
    """
    s = make_scene()
    s.set_camera(position=(0, 0, 6), focal_point=(0, 0, 0), view_up=(0, 1, 0))
    return s
