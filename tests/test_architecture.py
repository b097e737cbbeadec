"""Import rules between the layers, checked on the source with ``ast``:

* engine/ imports no GUI or rendering code (Qt, VTK, pyqtgraph) and neither viz nor app;
* viz/ does not import app;
* in viz/, only modules named ``viz/qt_*.py`` may import Qt.

Imports inside functions, relative imports and ``importlib.import_module("...")`` /
``__import__("...")`` calls with a literal name all count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

QT = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "PySide2", "pyqtgraph", "vtkmodules.qt")
ENGINE_FORBIDDEN = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "PySide2", "vtk", "vtkmodules")
ENGINE_FORBIDDEN += ("pyqtgraph", "viz", "app")


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, module: str, is_package: bool = False) -> set[str]:
    """Absolute names of every module that ``source`` (the module ``module``) imports."""
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".") if package else []
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Call):
            func = node.func
            called = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else ""
            )
            if (
                called in ("import_module", "__import__")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                names.add(node.args[0].value)
    return names


def _matches(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def violations(path: Path, root: Path = ROOT) -> list[str]:
    """Rule breaks in one source file of engine/, viz/ or app/."""
    rel = path.relative_to(root)
    layer = rel.parts[0]
    module = _module_name(path, root)
    imports = imported_modules(path.read_text(), module, path.name == "__init__.py")
    found: dict[str, str] = {}  # one message per forbidden package, naming the first import
    for name in sorted(imports):
        if layer == "engine" and _matches(name, ENGINE_FORBIDDEN):
            key = next(p for p in ENGINE_FORBIDDEN if _matches(name, (p,)))
            found.setdefault(key, f"{rel}: engine must not import {name}")
        elif layer == "viz":
            if _matches(name, ("app",)):
                found.setdefault("app", f"{rel}: viz must not import {name}")
            elif _matches(name, QT) and not (len(rel.parts) == 2 and path.name.startswith("qt_")):
                key = next(p for p in QT if _matches(name, (p,)))
                found.setdefault(key, f"{rel}: only viz/qt_*.py may import Qt ({name})")
    return list(found.values())


def _sources() -> list[Path]:
    return sorted(p for layer in ("engine", "viz", "app") for p in (ROOT / layer).rglob("*.py"))


def test_layers_respect_import_rules():
    sources = _sources()
    assert any(p.parts[-2] == "app" for p in sources)  # the walk found the tree
    problems = [v for path in sources for v in violations(path)]
    assert not problems, "\n".join(problems)


# -- the checker itself must catch what it is meant to ------------------------------------------


@pytest.mark.parametrize(
    ("relpath", "source", "expected"),
    [
        ("engine/multibody/body.py", "import numpy as np\n", []),
        ("engine/multibody/body.py", "from PySide6.QtCore import QObject\n", ["PySide6"]),
        ("engine/math/vec.py", "def f():\n    import vtk\n", ["vtk"]),
        ("engine/math/vec.py", "from vtkmodules.vtkCommonCore import vtkPoints\n", ["vtkmodules"]),
        ("engine/math/vec.py", "import pyqtgraph as pg\n", ["pyqtgraph"]),
        ("engine/math/vec.py", "import importlib\nimportlib.import_module('shiboken6')\n", ["sh"]),
        ("engine/math/vec.py", "__import__('viz.scene')\n", ["viz"]),
        ("engine/math/vec.py", "from .rotation import Rotation\n", []),
        ("engine/math/vec.py", "import vtkfoo\nimport application\n", []),
        ("viz/scene.py", "import vtkmodules.vtkRenderingCore\n", []),
        ("viz/scene.py", "from app.main_window import MainWindow\n", ["app"]),
        ("viz/scene.py", "from . import qt_view\nfrom .qt_view import View\n", []),
        ("viz/sub/mesh.py", "from .. import app\n", []),  # that is viz.app, not app
        ("engine/math/vec.py", "from ..viz import x\n", []),  # engine.viz
        ("viz/scene.py", "from PySide6.QtWidgets import QWidget\n", ["PySide6"]),
        ("viz/scene.py", "from vtkmodules.qt.QVTKRenderWindowInteractor import X\n", ["vtkm"]),
        ("viz/sub/qt_view.py", "import PySide6\n", ["PySide6"]),
        ("viz/qt_view.py", "from PySide6.QtWidgets import QWidget\nimport pyqtgraph\n", []),
        ("viz/qt_view.py", "import app\n", ["app"]),
        ("app/main_window.py", "from PySide6.QtWidgets import QWidget\nimport viz\n", []),
    ],
)
def test_checker_flags_forbidden_imports(tmp_path, relpath, source, expected):
    path = tmp_path / relpath
    path.parent.mkdir(parents=True)
    path.write_text(source)
    found = violations(path, root=tmp_path)
    assert len(found) == len(expected), found
    for message, fragment in zip(found, expected, strict=True):
        assert fragment in message
