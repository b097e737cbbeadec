"""Saving through a symbolic link writes the file it points to, and temporary files left by
a killed save are removed by the next save (issue 22)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.document.model_io import load, save

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"


def test_saving_through_a_symlink_writes_through_it(tmp_path):
    real = tmp_path / "real" / "model.mbs.json"
    real.parent.mkdir()
    real.write_text((EXAMPLES / "pendulum.mbs.json").read_text())
    link = tmp_path / "link.mbs.json"
    link.symlink_to(real)
    document = load(EXAMPLES / "double_pendulum.mbs.json")
    save(document, link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert load(real).data == document.data
    assert list(tmp_path.glob(".*.tmp")) == [] and list(real.parent.glob(".*.tmp")) == []


def test_a_temporary_file_left_by_a_killed_save_is_cleaned_up(tmp_path):
    target = tmp_path / "model.mbs.json"
    # a save killed after creating its temporary file: the process is gone, the file stays
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    leftover = tmp_path / f".model.mbs.json.{dead.stdout.strip()}.abc123.tmp"
    leftover.write_text("half a model")
    old_style = tmp_path / ".model.mbs.json.x7k2q9.tmp"
    old_style.write_text("{")
    other = tmp_path / ".other.mbs.json.1.abc.tmp"
    other.write_text("not ours")
    save(load(EXAMPLES / "pendulum.mbs.json"), target)
    assert not leftover.exists() and not old_style.exists()
    assert other.exists()
    assert load(target).data.name == "Pendulum"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, other.name])
