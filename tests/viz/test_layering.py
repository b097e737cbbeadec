"""viz modules other than viz/qt_*.py import neither Qt nor anything from app."""

from __future__ import annotations

import pathlib
import subprocess
import sys

VIZ = pathlib.Path(__file__).resolve().parents[2] / "viz"


def test_only_qt_modules_import_qt():
    for path in VIZ.glob("*.py"):
        text = path.read_text()
        if path.name.startswith("qt_"):
            continue
        for banned in ("PySide6", "PyQt", "vtkmodules.qt", "from app", "import app"):
            assert banned not in text, f"{path.name} must not use {banned}"


def test_importing_the_scene_loads_no_qt():
    code = (
        "import sys, viz.scene, viz.offscreen; "
        "bad = [m for m in sys.modules if m.startswith(('PySide6', 'PyQt'))]; "
        "assert not bad, bad"
    )
    root = str(VIZ.parent)
    subprocess.run([sys.executable, "-c", code], check=True, cwd=root)
