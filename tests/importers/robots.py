"""Where the example-robot-data package (a test dependency) keeps its robot descriptions."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import pytest


def robots_dir() -> Path:
    try:
        dist = distribution("example-robot-data")
    except PackageNotFoundError:  # pragma: no cover - a missing test dependency
        pytest.fail("example-robot-data is a test dependency: pip install -e .[test]")
    return Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots"))


def robot(relative: str) -> Path:
    path = robots_dir() / relative
    assert path.is_file(), f"example-robot-data has no {relative}"
    return path


UR5 = "ur_description/urdf/ur5_robot.urdf"
PANDA = "panda_description/urdf/panda.urdf"
Z1 = "z1_description/urdf/z1.urdf"
KINOVA = "kinova_description/robots/kinova.urdf"
SOLO12 = "solo_description/robots/solo12.urdf"
TALOS = "talos_data/robots/talos_reduced.urdf"
