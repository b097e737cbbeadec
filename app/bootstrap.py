"""Two-command developer set-up: ``python3 -m app.bootstrap studio`` and ``... test``.

Runs under the system ``python3`` before anything is installed, so it uses the standard library
only. Every command first makes sure that

1. the Debian packages Qt, VTK and Xvfb need are present (installed with apt-get when running as
   root; otherwise the missing ones are named),
2. ``.venv`` exists and holds this project installed editable with the ``test`` extra (skipped
   when the stamp in ``.venv`` matches the current ``pyproject.toml``, so a re-run is fast),
3. numba's on-disk cache is warm (``engine.warm_jit()``, if the engine provides it); on an
   install the engine's own packages (numpy, scipy, numba) go in first and the warm-up compiles
   while pip installs the rest,

and then runs:

* ``studio [ARGS...]``: the studio, ``.venv/bin/python -m app ARGS...``;
* ``test [PYTEST ARGS...]``: ``ruff check .``, ``ruff format --check .`` and pytest under
  ``xvfb-run`` (its own virtual X server); the exit code is that of the first failing step;
* ``setup``: nothing more.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
VENV_BIN = VENV / "bin"
VENV_PYTHON = VENV_BIN / "python"
STAMP = VENV / ".mbstudio-setup-stamp"
LOCK = ROOT / ".mbstudio-setup.lock"
EXTRAS = "test"
MIN_PYTHON = (3, 11)
#: The packages the engine's compiled kernels import (the numba warm-up needs only these).
ENGINE_PACKAGES = ("numpy", "scipy", "numba")
# Bump when the install steps change, to force one reinstall everywhere.
SETUP_REVISION = "1"

# What Qt's xcb platform plugin, VTK's OpenGL window and xvfb-run need on Debian 12
# (see shared/guides/headless-gui.md).
DEBIAN_PACKAGES = (
    "xvfb",
    "xauth",
    "libgl1",
    "libegl1",
    "libxkbcommon-x11-0",
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-image0",
    "libxcb-keysyms1",
    "libxcb-randr0",
    "libxcb-render-util0",
    "libxcb-shape0",
    "libxcb-xfixes0",
    "libxcb-xkb1",
    "libxcb-glx0",
    "libx11-xcb1",
    "libfontconfig1",
    "libdbus-1-3",
    "libglib2.0-0",
)
XVFB_SERVER_ARGS = "-screen 0 1280x1024x24"

USAGE = """\
usage: python3 -m app.bootstrap [--force-setup] {studio,test,setup} [ARGS...]

  studio [ARGS...]   set up, then start the studio (ARGS go to `mbstudio`)
  test [ARGS...]     set up, then run ruff and pytest under xvfb-run (ARGS go to pytest)
  setup              set up only

  --force-setup      reinstall the Python packages even if .venv is up to date
"""


class SetupError(RuntimeError):
    """A set-up step failed; the message says which and how."""


def log(message: str) -> None:
    print(f"[setup] {message}", flush=True)


def _run(cmd: Sequence[str | os.PathLike[str]], *, quiet: bool = False, **kwargs) -> None:
    """Run ``cmd``; raise SetupError on failure (showing its output if it was captured)."""
    if quiet:
        kwargs.update(stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    proc = subprocess.run([os.fspath(c) for c in cmd], check=False, **kwargs)
    if proc.returncode != 0:
        if quiet and proc.stdout:
            sys.stdout.write(proc.stdout)
        raise SetupError(f"`{shlex.join(os.fspath(c) for c in cmd)}` exited {proc.returncode}")


# -- Debian packages ------------------------------------------------------------------------------


def parse_dpkg_status(output: str) -> set[str]:
    """Names of installed packages in ``dpkg-query -W -f='${Package} ${db:Status-Status}\\n'``."""
    installed = set()
    for line in output.splitlines():
        name, _, status = line.strip().partition(" ")
        if status.strip() == "installed":
            installed.add(name.split(":")[0])
    return installed


def missing_debian_packages(packages: Iterable[str]) -> list[str]:
    """The packages dpkg does not list as installed ([] on a system without dpkg)."""
    packages = list(packages)
    if not packages or shutil.which("dpkg-query") is None:
        return []
    proc = subprocess.run(
        ["dpkg-query", "-W", "-f=${Package} ${db:Status-Status}\\n", *packages],
        capture_output=True,
        text=True,
        check=False,
    )  # exits 1 when some package is unknown; stdout still lists the known ones
    installed = parse_dpkg_status(proc.stdout)
    return [p for p in packages if p not in installed]


def _debian_python_without_ensurepip() -> bool:
    """Debian's own python3 ships ``venv`` without ``ensurepip`` until python3-venv is added."""
    return importlib.util.find_spec("ensurepip") is None and os.path.realpath(
        sys.executable
    ).startswith("/usr/bin/")


def ensure_debian_packages() -> None:
    wanted = list(DEBIAN_PACKAGES)
    if not VENV_PYTHON.exists() and _debian_python_without_ensurepip():
        wanted.append("python3-venv")
    missing = missing_debian_packages(wanted)
    if not missing:
        return
    if os.geteuid() != 0 or shutil.which("apt-get") is None:
        log(
            "missing Debian packages (GUI tests need them); as root run: apt-get install "
            + " ".join(missing)
        )
        return
    log(f"installing Debian packages: {' '.join(missing)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    apt = ["apt-get", "-q", "-o", "DPkg::Lock::Timeout=300"]
    _run([*apt, "update"], quiet=True, env=env, stdin=subprocess.DEVNULL)
    _run(
        [*apt, "install", "-y", "--no-install-recommends", *missing],
        quiet=True,
        env=env,
        stdin=subprocess.DEVNULL,
    )


# -- virtual environment --------------------------------------------------------------------------


def ensure_venv() -> None:
    if VENV_PYTHON.exists():
        probe = subprocess.run([VENV_PYTHON, "-c", ""], capture_output=True, check=False)
        if probe.returncode == 0:
            return
        if not (VENV / "pyvenv.cfg").exists():
            raise SetupError(f"{VENV} exists but is not a working virtual environment")
        log(".venv is broken (its python does not start); recreating it")
        shutil.rmtree(VENV)
    if sys.version_info[:2] < MIN_PYTHON:
        found = sys.version.split()[0]
        raise SetupError(f"Python >= 3.11 is needed to create .venv; {sys.executable} is {found}")
    log(f"creating .venv with {sys.executable}")
    _run([sys.executable, "-m", "venv", VENV])


def setup_fingerprint() -> str:
    """Changes whenever a reinstall is due: pyproject.toml, the extras, the checkout's path."""
    digest = hashlib.sha256()
    for part in (SETUP_REVISION, EXTRAS, str(ROOT)):
        digest.update(part.encode() + b"\0")
    digest.update((ROOT / "pyproject.toml").read_bytes())
    return digest.hexdigest()


def engine_requirements(pyproject_text: str) -> list[str]:
    """The requirement strings of ``ENGINE_PACKAGES`` among pyproject's dependencies."""
    dependencies = tomllib.loads(pyproject_text).get("project", {}).get("dependencies", [])
    found = []
    for requirement in dependencies:
        name = re.match(r"[A-Za-z0-9_.-]*", requirement).group(0).lower()
        if name in ENGINE_PACKAGES:
            found.append(requirement)
    return found


def _pip_install(arguments: Sequence[str]) -> None:
    _run(
        [VENV_PYTHON, "-m", "pip", "install", "-q", "--disable-pip-version-check", *arguments],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
    )


def install_project(force: bool = False, meanwhile: Callable[[], None] | None = None) -> None:
    """Install the project editable with its extras, unless the stamp says it is up to date.

    With ``meanwhile``, the engine's packages are installed first and ``meanwhile()`` is
    called before the rest is installed (the set-up starts numba's warm-up there)."""
    fingerprint = setup_fingerprint()
    if not force and STAMP.exists() and STAMP.read_text().strip() == fingerprint:
        log("up to date")
        return
    log(f"installing Python packages into .venv (pip install -e '.[{EXTRAS}]'), may take minutes")
    STAMP.unlink(missing_ok=True)
    first = engine_requirements((ROOT / "pyproject.toml").read_text())
    if meanwhile is not None and first:
        _pip_install(first)
        meanwhile()
    _pip_install(["-e", f".[{EXTRAS}]"])
    STAMP.write_text(fingerprint + "\n")


def engine_package_versions() -> str:
    """The installed versions of ``ENGINE_PACKAGES`` in .venv ("" if they cannot be read)."""
    code = f"import importlib.metadata as m\nprint(*(m.version(p) for p in {ENGINE_PACKAGES!r}))"
    probe = subprocess.run(
        [VENV_PYTHON, "-c", code],
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    return probe.stdout.strip() if probe.returncode == 0 else ""


WARM_JIT_CODE = """\
import sys
import time
import engine
hook = getattr(engine, "warm_jit", None)
if callable(hook):
    t0 = time.perf_counter()
    team = sys.argv[1] if len(sys.argv) > 1 else None
    summary = hook(team=team) if team else hook()
    seconds = time.perf_counter() - t0
    tasks = ", ".join(f"{k} {v:.0f} s" for k, v in (summary or {}).get("tasks", {}).items())
    print(f"[setup] numba warm-up process done ({seconds:.1f} s): {tasks}", flush=True)
"""

#: whether the engine's warm_jit takes ``team`` (processes sharing its tasks)
TEAM_CODE = "import inspect, engine; print('team' in inspect.signature(engine.warm_jit).parameters)"


def warm_up_processes() -> int:
    """How many processes share the warm-up: one per core (numba compiles on one thread),
    two at least, four at most (its tasks depend on one another: more wait)."""
    return max(2, min(4, os.cpu_count() or 1))


class WarmUp:
    """numba's on-disk cache being filled: the engine's warm-up in ``warm_up_processes()``
    processes that share its tasks through a temporary directory (``engine.warm_jit(team=
    ...)``), or in one if the engine's warm_jit does not take a team. ``start()`` begins it,
    ``wait()`` waits for it and raises SetupError if a process failed (stopping the others,
    which could wait for its tasks)."""

    def __init__(self, workers: list[subprocess.Popen], team: Path | None) -> None:
        self.workers = workers
        self.team = team
        self.started = time.perf_counter()

    @classmethod
    def start(cls) -> WarmUp:
        listed = subprocess.run(
            [VENV_PYTHON, "-c", TEAM_CODE],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            check=False,
        )
        team = None
        commands = [[VENV_PYTHON, "-c", WARM_JIT_CODE]]
        if listed.returncode == 0 and listed.stdout.strip() == "True":
            team = Path(tempfile.mkdtemp(prefix="mbstudio-warm-up-"))
            commands = [[*commands[0], os.fspath(team)]] * warm_up_processes()
        workers = [
            subprocess.Popen(command, cwd=ROOT, stdin=subprocess.DEVNULL) for command in commands
        ]
        return cls(workers, team)

    def wait(self) -> None:
        try:
            while any(worker.poll() is None for worker in self.workers):
                if any(worker.poll() not in (None, 0) for worker in self.workers):
                    break
                time.sleep(0.2)
            codes = [worker.poll() for worker in self.workers]
        finally:
            self.stop()
        if any(code != 0 for code in codes):
            raise SetupError(f"warming numba's cache failed (exit codes {codes})")
        log(f"numba cache warm ({time.perf_counter() - self.started:.1f} s)")

    def stop(self) -> None:
        for worker in self.workers:
            if worker.poll() is None:
                worker.kill()
            worker.wait()
        if self.team is not None:
            shutil.rmtree(self.team, ignore_errors=True)


@contextlib.contextmanager
def _setup_lock() -> Iterator[None]:
    """Serialise set-ups of this checkout (two shells running the test command at once)."""
    with open(LOCK, "w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log("waiting for another set-up of this checkout to finish")
            fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def setup(force: bool = False) -> None:
    start = time.perf_counter()
    with _setup_lock():
        ensure_debian_packages()
        ensure_venv()
        warming: list[tuple[WarmUp, str]] = []

        def start_warm_up() -> None:  # once the engine's packages are in
            warming.append((WarmUp.start(), engine_package_versions()))

        try:
            install_project(force=force, meanwhile=start_warm_up)
        except BaseException:
            for warm_up, _ in warming:
                warm_up.stop()
            raise
        if warming and warming[0][1] != engine_package_versions():
            log("the full install changed numpy, scipy or numba: warming numba's cache again")
            warming.pop()[0].stop()
        warm_up = warming[0][0] if warming else WarmUp.start()
        warm_up.wait()
    log(f"ready ({time.perf_counter() - start:.1f} s)")


# -- commands -------------------------------------------------------------------------------------


def run_studio(args: Sequence[str]) -> int:
    python = os.fspath(VENV_PYTHON)
    sys.stdout.flush()
    os.execv(python, [python, "-m", "app", *args])
    return 0  # not reached


def parallel_args(pytest_args: Sequence[str]) -> list[str]:
    """pytest-xdist options for the test run: one worker per core (two at least, four at most),
    each drawing on an X display of its own (``tests/conftest.py``). None when the
    caller chose the workers (``-n``) or turned pytest-xdist off (``-p no:xdist``)."""
    chosen = any(a == "-n" or a.startswith(("-n", "--numprocesses")) for a in pytest_args)
    if chosen or "no:xdist" in pytest_args:
        return []
    workers = max(2, min(4, os.cpu_count() or 1))
    return ["-n", str(workers), "--dist", "loadgroup"]


def check_steps(pytest_args: Sequence[str], xauth_file: Path) -> list[tuple[str, list[str]]]:
    """The test command's steps as (name, argv) pairs; pytest last so its summary ends the log.

    xvfb-run gets its X authority file from us (``-f``): left to itself it makes a directory in
    /tmp and exits 5, hiding pytest's exit code, if that directory is gone at clean-up.
    """
    ruff = os.fspath(VENV_BIN / "ruff")
    pytest = [os.fspath(VENV_PYTHON), "-m", "pytest", *parallel_args(pytest_args), *pytest_args]
    if shutil.which("xvfb-run"):
        pytest = ["xvfb-run", "-a", "-f", os.fspath(xauth_file), "-s", XVFB_SERVER_ARGS, *pytest]
    elif os.environ.get("DISPLAY"):
        log(f"xvfb-run not found; running the GUI tests on DISPLAY={os.environ['DISPLAY']}")
    else:
        raise SetupError("xvfb-run not found and no DISPLAY: install the Debian package xvfb")
    return [
        ("ruff check", [ruff, "check", "."]),
        ("ruff format --check", [ruff, "format", "--check", "."]),
        ("pytest", pytest),
    ]


def run_tests(args: Sequence[str]) -> int:
    failures: list[tuple[str, int]] = []
    with tempfile.TemporaryDirectory(prefix="mbstudio-xvfb-") as tmp:
        for name, cmd in check_steps(args, Path(tmp) / "Xauthority"):
            print(f"[test] {shlex.join(cmd)}", flush=True)
            code = subprocess.run(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, check=False).returncode
            if code < 0:  # killed by a signal: report it as a shell would (128 + signal number)
                code = 128 - code
            if code != 0:
                failures.append((name, code))
    if failures:
        print(
            "[test] FAILED: " + ", ".join(f"{name} (exit {code})" for name, code in failures),
            flush=True,
        )
        return failures[0][1]
    return 0


COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "studio": run_studio,
    "test": run_tests,
    "setup": lambda args: 0,
}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    force = False
    while argv and argv[0].startswith("-"):
        option = argv.pop(0)
        if option in ("-h", "--help"):
            print(USAGE, end="")
            return 0
        if option != "--force-setup":
            print(f"unknown option {option}\n{USAGE}", end="", file=sys.stderr)
            return 2
        force = True
    if not argv or argv[0] not in COMMANDS:
        print(USAGE, end="", file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    if command == "setup" and rest:
        print(f"setup takes no arguments\n{USAGE}", end="", file=sys.stderr)
        return 2
    try:
        setup(force=force)
        return COMMANDS[command](rest)
    except SetupError as exc:
        log(f"FAILED: {exc}")
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
