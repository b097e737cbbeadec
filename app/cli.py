"""``mbstudio`` command line.

``mbstudio [MODEL]`` opens the studio. Headless subcommands (``mbstudio render ...``,
``mbstudio simulate ...``) are added with :func:`register_command`; ``main`` dispatches on the
first argument, so a model file and a subcommand never clash in one argparse parser.

Nothing heavy is imported at module level: ``mbstudio --help`` and the no-display message work
without importing Qt or VTK.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

PROG = "mbstudio"


@dataclass(frozen=True)
class Command:
    """A subcommand: ``configure`` adds its arguments, ``run`` executes it and returns the exit
    code."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


COMMANDS: dict[str, Command] = {}


def register_command(
    name: str,
    help: str,
    configure: Callable[[argparse.ArgumentParser], None],
    run: Callable[[argparse.Namespace], int],
) -> Command:
    if name in COMMANDS:
        raise ValueError(f"command {name!r} is already registered")
    if name.startswith("-") or Path(name).suffix:
        raise ValueError(f"command name {name!r} could be mistaken for an option or a model file")
    COMMANDS[name] = cmd = Command(name, help, configure, run)
    return cmd


def positive_float(text: str) -> float:
    """argparse type of the subcommands' times, intervals and accuracies: a finite number > 0."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(v) and v > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return v


def nonnegative_float(text: str) -> float:
    """argparse type of a finite number >= 0 (a time from the start, say)."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(v) and v >= 0):
        raise argparse.ArgumentTypeError(f"must be a number >= 0, got {text}")
    return v


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mbstudio")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_studio_parser() -> argparse.ArgumentParser:
    commands = "".join(f"\n  {PROG} {c.name:<10} {c.help}" for c in COMMANDS.values())
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="mbstudio: multibody dynamics studio. With no command, opens the studio.",
        epilog=(f"commands:{commands}\n\n" if commands else "")
        + f"`{PROG} COMMAND --help` describes a command.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("model", nargs="?", type=Path, metavar="MODEL", help="model file to open")
    parser.add_argument(
        "--reset-layout", action="store_true", help="forget the saved window size and dock layout"
    )
    parser.add_argument(
        "--screenshot",
        type=Path,
        metavar="PNG",
        help="save a screenshot of the window once it has drawn, then exit",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    return parser


# -- display detection ----------------------------------------------------------------------------


def _x_display_reachable(display: str) -> bool:
    """False only when DISPLAY names a local X server (":N") whose socket does not answer."""
    match = re.fullmatch(r"(?:unix)?:(\d+)(?:\.\d+)?", display)
    if not match:
        return True  # remote or unusual display: let Qt try
    path = f"/tmp/.X11-unix/X{match.group(1)}"
    for address in ("\0" + path, path):  # abstract socket first, as libxcb does
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(1.0)
            try:
                sock.connect(address)
                return True
            except OSError:
                continue
    return False


def display_problem(env: Mapping[str, str] | None = None) -> str | None:
    """Why a window cannot open here, or None when it can (as far as can be told without Qt)."""
    env = os.environ if env is None else env
    if not sys.platform.startswith("linux") or env.get("QT_QPA_PLATFORM"):
        return None
    if env.get("WAYLAND_DISPLAY"):
        return None
    display = env.get("DISPLAY")
    if not display:
        return "no display: DISPLAY is not set"
    if not _x_display_reachable(display):
        return f"no display: the X server at DISPLAY={display} does not answer"
    return None


def no_display_message(problem: str) -> str:
    headless = ", ".join(f"`{PROG} {name}`" for name in COMMANDS)
    headless_line = (
        f"  Without a window: {headless} (see `{PROG} --help`)."
        if headless
        else f"  Headless commands that need no window (`{PROG} render`, `{PROG} simulate`) "
        "are coming."
    )
    return (
        f"{PROG}: {problem}, so the studio window cannot open.\n"
        f"  Run it in a desktop session, or on a virtual screen: xvfb-run -a {PROG} [MODEL]\n"
        f"{headless_line}"
    )


# -- the studio -----------------------------------------------------------------------------------


def run_studio(args: argparse.Namespace) -> int:
    from app.simulation.malloc_tuning import keep_freed_memory

    keep_freed_memory()  # before the threads start: the models' freed arrays are kept for reuse
    problem = display_problem()
    if problem:
        print(no_display_message(problem), file=sys.stderr)
        return 2
    if args.model is not None and not args.model.is_file():
        print(f"{PROG}: model file not found: {args.model}", file=sys.stderr)
        return 2

    import signal

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from app.gc_freeze import freeze_imported_modules
    from app.main_window import MainWindow, app_icon, grab_window

    freeze_imported_modules()  # full garbage collections then skip the modules' objects
    qapp = QApplication.instance() or QApplication([PROG])
    qapp.setOrganizationName("mbstudio")
    qapp.setApplicationName("mbstudio")
    qapp.setWindowIcon(app_icon())
    model = args.model
    if model is None:  # the default example opens on launch
        from app.document.examples import default_example_path

        model = default_example_path()
    window = MainWindow(model_path=model, restore_layout=not args.reset_layout)
    window.show()
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C in the terminal quits

    if args.screenshot is not None:
        target: Path = args.screenshot

        def shoot() -> None:
            window.viewport.render_window.Render()
            if not grab_window(window).save(str(target)):
                print(f"{PROG}: could not write {target}", file=sys.stderr)
                qapp.exit(1)
                return
            print(f"{PROG}: screenshot saved to {target}")
            window.close()

        QTimer.singleShot(1000, shoot)
    status = qapp.exec()
    from app.simulation.session import join_abandoned

    join_abandoned(timeout=120.0)  # a worker still compiling when the window closed
    return status


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in COMMANDS:
            cmd = COMMANDS[argv[0]]
            parser = argparse.ArgumentParser(prog=f"{PROG} {cmd.name}", description=cmd.help)
            cmd.configure(parser)
            return cmd.run(parser.parse_args(argv[1:]))
        return run_studio(build_studio_parser().parse_args(argv))
    except SystemExit as exc:  # argparse's --help, --version and usage errors
        if exc.code is None:
            return 0
        return exc.code if isinstance(exc.code, int) else 2
    except KeyboardInterrupt:  # Ctrl-C before a command's own handling (loading the engine)
        print(f"{PROG}: interrupted by SIGINT", file=sys.stderr)
        from app.headless import exit_after_signal

        # Gone now, as after a command's own interruption: the interpreter's teardown can
        # take seconds, and a second SIGINT during it would end the process by the signal.
        exit_after_signal(130)


# Headless subcommands register themselves on import (render, simulate).
import app.headless  # noqa: E402, F401
import app.history.commands  # noqa: E402, F401

# `mbstudio sweep` (studies on Dask) and `mbstudio import` (URDF) register themselves on import.
import app.importers.urdf.command  # noqa: E402, F401
import app.studies.command  # noqa: E402, F401
