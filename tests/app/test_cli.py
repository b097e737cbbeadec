"""``mbstudio`` command line: argument handling and the no-display path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app import cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def no_display(monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland check is Linux-only")
def test_no_display_returns_2_with_message(no_display, capsys):
    assert cli.main([]) == 2
    err = capsys.readouterr().err
    assert "no display" in err
    assert "DISPLAY is not set" in err
    assert "xvfb-run" in err
    assert "mbstudio render" in err  # points at the headless commands


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11/Wayland check is Linux-only")
def test_unreachable_x_server_returns_2(monkeypatch, capsys):
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setenv("DISPLAY", ":3917")  # no X server there
    assert cli.main([]) == 2
    assert "does not answer" in capsys.readouterr().err


def test_python_m_app_without_display_exits_2_without_importing_qt():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.pop("QT_QPA_PLATFORM", None)
    code = (
        "import sys\n"
        "from app.cli import main\n"
        "rc = main([])\n"
        "assert not any(m.startswith(('PySide6', 'vtkmodules')) for m in sys.modules)\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 2, proc.stderr
    assert "no display" in proc.stderr
    whole = subprocess.run(
        [sys.executable, "-m", "app"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert whole.returncode == 2, whole.stderr
    assert "Aborted" not in whole.stderr and "no display" in whole.stderr


def test_help_and_version(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "usage: mbstudio" in out and "MODEL" in out
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("mbstudio ")


def test_bad_option_returns_2(capsys):
    assert cli.main(["--no-such-option"]) == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def test_missing_model_file_returns_2(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")  # get past the display check
    assert cli.main([str(tmp_path / "nope.json")]) == 2
    assert "model file not found" in capsys.readouterr().err


def test_registered_subcommand_is_dispatched(monkeypatch, capsys):
    monkeypatch.setattr(cli, "COMMANDS", {})
    seen = {}

    def configure(parser):
        parser.add_argument("--frames", type=int, default=1)

    def run(args):
        seen["frames"] = args.frames
        return 7

    cli.register_command("render", "render a model to images", configure, run)
    assert cli.main(["render", "--frames", "3"]) == 7
    assert seen == {"frames": 3}
    assert cli.main(["--help"]) == 0
    assert "mbstudio render" in capsys.readouterr().out
    with pytest.raises(ValueError):
        cli.register_command("render", "again", configure, run)
    with pytest.raises(ValueError):
        cli.register_command("model.json", "looks like a file", configure, run)


def test_console_script_is_declared():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["mbstudio"] == "app.cli:main"
