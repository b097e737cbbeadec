"""The stdlib-only set-up behind ``python3 -m app.bootstrap studio|test``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from app import bootstrap

ROOT = Path(__file__).resolve().parents[2]


def test_bootstrap_imports_only_the_standard_library():
    # -S: no site-packages (as under a bare system python3); run from the checkout's root.
    code = (
        "import sys\n"
        "import app.bootstrap\n"
        "top = {m.split('.')[0] for m in sys.modules}\n"
        "print(sorted(top - set(sys.stdlib_module_names) - {'app', '__main__'}))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-S", "-c", code], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_parse_dpkg_status():
    output = (
        "xvfb installed\n"
        "libgl1 installed\n"
        "libgl1:i386 config-files\n"
        "libxcb-icccm4 not-installed\n"
        "xauth half-configured\n"
    )
    assert bootstrap.parse_dpkg_status(output) == {"xvfb", "libgl1"}


def test_debian_package_list_covers_the_guide():
    for name in ("xvfb", "xauth", "libxcb-icccm4", "libxcb-keysyms1", "libxcb-cursor0", "libgl1"):
        assert name in bootstrap.DEBIAN_PACKAGES


@pytest.fixture
def fake_checkout(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    monkeypatch.setattr(bootstrap, "ROOT", tmp_path)
    monkeypatch.setattr(bootstrap, "STAMP", tmp_path / ".venv" / "stamp")
    (tmp_path / ".venv").mkdir()
    calls = []
    monkeypatch.setattr(bootstrap, "_run", lambda cmd, **kw: calls.append(list(cmd)))
    return tmp_path, calls


def test_install_is_skipped_while_pyproject_is_unchanged(fake_checkout, capsys):
    root, calls = fake_checkout
    bootstrap.install_project()
    assert len(calls) == 1 and calls[0][1:4] == ["-m", "pip", "install"]
    assert "-e" in calls[0] and ".[test]" in calls[0]

    bootstrap.install_project()
    assert len(calls) == 1
    assert "[setup] up to date" in capsys.readouterr().out

    (root / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "2"\n')
    bootstrap.install_project()
    assert len(calls) == 2

    bootstrap.install_project(force=True)
    assert len(calls) == 3


def test_failed_install_leaves_no_stamp(fake_checkout, monkeypatch):
    root, _ = fake_checkout

    def fail(cmd, **kw):
        raise bootstrap.SetupError("pip failed")

    monkeypatch.setattr(bootstrap, "_run", fail)
    with pytest.raises(bootstrap.SetupError):
        bootstrap.install_project()
    assert not bootstrap.STAMP.exists()


def test_check_steps_run_ruff_then_pytest_under_xvfb(monkeypatch):
    monkeypatch.setattr(bootstrap.shutil, "which", lambda name: f"/usr/bin/{name}")
    steps = bootstrap.check_steps(["-x", "tests/app"], Path("/tmp/x/Xauthority"))
    names = [name for name, _ in steps]
    assert names == ["ruff check", "ruff format --check", "pytest"]
    assert steps[0][1][1:] == ["check", "."]
    assert steps[1][1][1:] == ["format", "--check", "."]
    pytest_cmd = steps[2][1]
    assert pytest_cmd[:6] == [
        "xvfb-run",
        "-a",
        "-f",
        "/tmp/x/Xauthority",
        "-s",
        "-screen 0 1280x1024x24",
    ]
    assert pytest_cmd[-2:] == ["-x", "tests/app"]
    run = pytest_cmd[pytest_cmd.index("pytest") + 1 : -2]
    assert run[0] == "-n" and int(run[1]) >= 2 and run[2:] == ["--dist", "loadgroup"]


def test_the_caller_chooses_the_test_workers():
    assert bootstrap.parallel_args(["-n", "1"]) == []
    assert bootstrap.parallel_args(["-n3"]) == []
    assert bootstrap.parallel_args(["-p", "no:xdist", "tests/engine"]) == []
    assert bootstrap.parallel_args(["-x"])[0] == "-n"


def test_check_steps_without_xvfb_or_display_fail(monkeypatch):
    monkeypatch.setattr(bootstrap.shutil, "which", lambda name: None)
    monkeypatch.delenv("DISPLAY", raising=False)
    with pytest.raises(bootstrap.SetupError, match="xvfb"):
        bootstrap.check_steps([], Path("/tmp/x/Xauthority"))


def test_run_tests_returns_first_failure(monkeypatch, capsys):
    monkeypatch.setattr(
        bootstrap, "check_steps", lambda args, xauth: [("a", ["a"]), ("b", ["b"]), ("c", ["c"])]
    )
    codes = {"a": 0, "b": 3, "c": 5}
    monkeypatch.setattr(
        bootstrap.subprocess,
        "run",
        lambda cmd, **kw: subprocess.CompletedProcess(cmd, codes[cmd[0]]),
    )
    assert bootstrap.run_tests([]) == 3
    assert "FAILED: b (exit 3), c (exit 5)" in capsys.readouterr().out
    codes["b"] = codes["c"] = 0
    assert bootstrap.run_tests([]) == 0
    codes["a"] = -15  # killed by SIGTERM
    assert bootstrap.run_tests([]) == 143


@pytest.mark.parametrize("argv", [[], ["nope"], ["--bogus", "test"], ["setup", "extra"]])
def test_bad_usage_returns_2_without_setting_up(argv, monkeypatch):
    monkeypatch.setattr(bootstrap, "setup", lambda **kw: pytest.fail("set-up ran"))
    assert bootstrap.main(argv) == 2


def test_commands_run_after_setup(monkeypatch):
    order = []
    monkeypatch.setattr(bootstrap, "setup", lambda force=False: order.append(("setup", force)))
    monkeypatch.setitem(bootstrap.COMMANDS, "test", lambda args: order.append(args) or 4)
    assert bootstrap.main(["--force-setup", "test", "-k", "x"]) == 4
    assert order == [("setup", True), ["-k", "x"]]


def test_ci_script_runs_the_test_command():
    script = ROOT / ".ci" / "run"
    assert script.stat().st_mode & 0o111, ".ci/run is not executable"
    assert "python3 -m app.bootstrap test" in script.read_text()
    readme = (ROOT / "README.md").read_text()
    assert "python3 -m app.bootstrap test" in readme
    assert "python3 -m app.bootstrap studio" in readme


def test_engine_requirements_are_the_kernels_packages_of_pyproject():
    text = (ROOT / "pyproject.toml").read_text()
    found = bootstrap.engine_requirements(text)
    names = [re.match(r"[A-Za-z0-9_.-]+", r).group(0) for r in found]
    assert sorted(names) == ["numba", "numpy", "scipy"]
    assert any(r.startswith("numba>=") and "<" in r for r in found)  # the pinned minor


def test_the_engine_packages_go_in_first_and_the_warm_up_starts_before_the_rest(fake_checkout):
    root, calls = fake_checkout
    (root / "pyproject.toml").write_text(
        '[project]\nname = "x"\ndependencies = ["numpy>=2,<3", "vtk>=9", "numba>=0.68,<0.69"]\n'
    )
    bootstrap.install_project(meanwhile=lambda: calls.append(["warm-up started"]))
    assert calls[0][-2:] == ["numpy>=2,<3", "numba>=0.68,<0.69"]
    assert calls[1] == ["warm-up started"]
    assert calls[2][-2:] == ["-e", ".[test]"]
    calls.clear()
    bootstrap.install_project(meanwhile=lambda: calls.append(["warm-up started"]))
    assert calls == []  # up to date: the set-up starts the warm-up itself


class _FakeWarmUp:
    def __init__(self, log):
        self.log = log
        log.append("start")

    def wait(self):
        self.log.append("wait")

    def stop(self):
        self.log.append("stop")


@pytest.mark.parametrize("versions_change", [False, True])
def test_setup_waits_for_the_warm_up_and_redoes_it_if_the_install_changed_numba(
    fake_checkout, monkeypatch, versions_change
):
    events = []
    after = "2.4 1.16 0.68.0" if versions_change else "2.3 1.16 0.68.0"
    versions = iter(["2.3 1.16 0.68.0", after])
    monkeypatch.setattr(bootstrap, "ensure_debian_packages", lambda: None)
    monkeypatch.setattr(bootstrap, "ensure_venv", lambda: None)
    monkeypatch.setattr(bootstrap, "LOCK", fake_checkout[0] / "lock")
    monkeypatch.setattr(bootstrap, "engine_package_versions", lambda: next(versions))
    monkeypatch.setattr(bootstrap.WarmUp, "start", classmethod(lambda cls: _FakeWarmUp(events)))

    def install(force=False, meanwhile=None):
        events.append("engine packages")
        meanwhile()
        events.append("the rest")

    monkeypatch.setattr(bootstrap, "install_project", install)
    bootstrap.setup()
    if versions_change:
        assert events == ["engine packages", "start", "the rest", "stop", "start", "wait"]
    else:
        assert events == ["engine packages", "start", "the rest", "wait"]


def test_a_failing_warm_up_process_stops_the_others_and_fails_the_setup(tmp_path):
    team = tmp_path / "team"
    team.mkdir()
    workers = [
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]),
        subprocess.Popen([sys.executable, "-c", "raise SystemExit(3)"]),
    ]
    warm_up = bootstrap.WarmUp(workers, team)
    with pytest.raises(bootstrap.SetupError, match="failed"):
        warm_up.wait()
    assert workers[0].returncode is not None  # stopped, not waited for a minute
    assert not team.exists()


def test_the_warm_up_runs_one_process_per_core_within_two_and_four(monkeypatch):
    for cores, processes in ((1, 2), (2, 2), (3, 3), (16, 4)):
        monkeypatch.setattr(bootstrap.os, "cpu_count", lambda cores=cores: cores)
        assert bootstrap.warm_up_processes() == processes
