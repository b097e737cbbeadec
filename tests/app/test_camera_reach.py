"""The room the camera frames when a model is opened (app.camera_reach)."""

from __future__ import annotations

import numpy as np
import pytest

from app.camera_reach import reach_box


def test_a_pendulum_on_a_pin_sweeps_a_disc_no_higher_than_it_starts():
    # a 1 m pendulum hinged at (0, 1.5, 0) about z, 60 degrees out: its bob at the right
    bob = np.array([np.sin(np.pi / 3), 1.5 - np.cos(np.pi / 3), 0.0])
    points, ids = bob[None], np.array([1])
    hinged = [(np.array([0.0, 1.5, 0.0]), np.array([1]), np.array([0.0, 0.0, 1.0]))]
    box = reach_box(points, ids, hinged, np.array([], dtype=np.int64), (0.0, 1.0, 0.0))
    assert box == pytest.approx((-1.0, 1.0, 0.5, bob[1], 0.0, 0.0))


def test_a_ball_joint_sweeps_a_sphere_and_a_free_body_falls_to_the_floor():
    points = np.array([[1.0, 2.0, 0.0], [3.0, 4.0, 1.0]])
    ids = np.array([1, 2])
    hinged = [(np.array([0.0, 2.0, 0.0]), np.array([1]), None)]
    box = reach_box(points, ids, hinged, np.array([2]), (0.0, 1.0, 0.0))
    # sphere of radius 1 about the pivot (no higher than the top point, y = 4), free body 2
    # down to the ground plane y = 0
    assert box == pytest.approx((-1.0, 3.0, 0.0, 4.0, -1.0, 1.0))
    assert reach_box(np.zeros((0, 3)), np.zeros(0), [], np.array([]), (0, 1, 0)) is None
