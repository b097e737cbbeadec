"""What the engine benchmarks share (bench_dynamics.py, bench_integration.py).

* The model description: a list of ``Link`` (parent, joint, X_PF translation, mass
  properties), the Pin/Ball chains and the 32-dof humanoid, under gravity ``GRAVITY`` along
  -y.
* ``build_ours``: such a model in mbstudio's engine.
* The Simbody side: ``simbody_model_lines`` writes the text file that the C++ programs read
  (through ``simbody_bench_model.h``), ``build_simbody_program`` compiles one of them against
  Debian's libsimbody-dev, or against a Release build of the same Simbody 3.7 made by
  ``build_simbody_release.sh`` (``simbody_release_prefix``), cached in the temp dir;
  ``run_simbody_program`` runs it.
* ``machine_line``: CPU, load, Python and time, printed above the figures.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import platform
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = ROOT / "benchmarks"
GRAVITY = 9.81
SIMBODY_CAVEAT = "Simbody = Debian build with debug assertions, ~1.5-3x slower than Release"
#: Where build_simbody_release.sh installs its Release build of Simbody 3.7 (unless
#: $MBSTUDIO_SIMBODY_RELEASE names another prefix).
SIMBODY_RELEASE_DEFAULT = Path.home() / ".cache" / "mbstudio" / "simbody-3.7-release"
SIMBODY_RELEASE_NOTE = (
    "simbody_rel = the same program against a Release build of Simbody 3.7 "
    "(benchmarks/build_simbody_release.sh)"
)


def simbody_release_prefix() -> Path | None:
    """The install prefix of a Release build of Simbody ($MBSTUDIO_SIMBODY_RELEASE, else
    ``SIMBODY_RELEASE_DEFAULT``), or None if none is installed there."""
    prefix = Path(os.environ.get("MBSTUDIO_SIMBODY_RELEASE", SIMBODY_RELEASE_DEFAULT))
    if not (prefix / "include" / "simbody" / "Simbody.h").exists():
        return None
    return prefix


# --------------------------------------------------------------------------- models
@dataclass
class Link:
    """One body: parent index (0 = Ground), joint kind, translation of the inboard frame F
    in the parent (X_PF, no rotation; X_BM = identity), mass, mass center and central
    inertia (in B)."""

    parent: int
    joint: str  # "pin" | "ball" | "free"
    p_PF: np.ndarray
    mass: float
    com: np.ndarray
    I_com: np.ndarray  # 3x3 central inertia, in B

    def inertia_about_origin(self) -> np.ndarray:
        c = self.com
        return self.I_com + self.mass * (c @ c * np.eye(3) - np.outer(c, c))


def make_link(
    parent: int, joint: str, p, mass=1.0, com=(0.0, -0.5, 0.0), I=(0.08, 0.01, 0.08)
) -> Link:
    """A Link with a diagonal central inertia ``I``; by default a 1 m, 1 kg link hanging
    along -y from its joint."""
    return Link(parent, joint, np.asarray(p, float), mass, np.asarray(com, float), np.diag(I))


def chain_links(n: int, joint: str, **props) -> list[Link]:
    """``n`` links, each 1 m below its parent's joint (the first at the Ground origin)."""
    return [make_link(i, joint, (0, 0, 0) if i == 0 else (0, -1.0, 0), **props) for i in range(n)]


def humanoid_links() -> list[Link]:
    """A free-floating 32-dof humanoid: Free pelvis, Ball torso, shoulders, hips and
    ankles, Pin neck, elbows and knees."""
    links: list[Link] = []

    def add(parent, joint, p, mass, com, I) -> int:
        links.append(make_link(parent, joint, p, mass, com, I))
        return len(links)

    pelvis = add(0, "free", (0, 0, 0), 10.0, (0, 0, 0), (0.1, 0.1, 0.1))
    torso = add(pelvis, "ball", (0, 0.1, 0), 25.0, (0, 0.25, 0), (0.4, 0.2, 0.4))
    add(torso, "pin", (0, 0.5, 0), 5.0, (0, 0.1, 0), (0.02, 0.02, 0.02))  # head
    for side in (-1.0, 1.0):
        upper = add(torso, "ball", (0.2 * side, 0.45, 0), 2.0, (0, -0.15, 0), (0.02, 0.005, 0.02))
        add(upper, "pin", (0, -0.3, 0), 1.5, (0, -0.12, 0), (0.01, 0.003, 0.01))  # forearm
    for side in (-1.0, 1.0):
        thigh = add(pelvis, "ball", (0.1 * side, -0.1, 0), 8.0, (0, -0.2, 0), (0.1, 0.02, 0.1))
        shin = add(thigh, "pin", (0, -0.45, 0), 4.0, (0, -0.2, 0), (0.05, 0.01, 0.05))
        add(shin, "ball", (0, -0.42, 0), 1.0, (0, -0.03, 0.05), (0.003, 0.003, 0.001))  # foot
    return links


# --------------------------------------------------------------------------- our engine
def build_ours(links: list[Link]):
    """(system, matter): ``links`` in our engine, under gravity along -y."""
    from engine import (
        Body,
        Force,
        GeneralForceSubsystem,
        Inertia,
        MassProperties,
        MobilizedBody,
        MultibodySystem,
        SimbodyMatterSubsystem,
        Transform,
        Vec3,
    )

    system = MultibodySystem()
    matter = SimbodyMatterSubsystem(system)
    forces = GeneralForceSubsystem(system)
    Force.Gravity(forces, matter, Vec3(0, -1, 0), GRAVITY)
    mobods = [matter.Ground()]
    kinds = {"pin": MobilizedBody.Pin, "ball": MobilizedBody.Ball, "free": MobilizedBody.Free}
    for link in links:
        body = Body.Rigid(
            MassProperties(link.mass, Vec3(*link.com), Inertia(link.inertia_about_origin()))
        )
        mobods.append(
            kinds[link.joint](mobods[link.parent], Transform(Vec3(*link.p_PF)), body, Transform())
        )
    return system, matter


# --------------------------------------------------------------------------- Simbody C++
def simbody_model_lines(links: list[Link], q, u) -> list[str]:
    """The model file lines of simbody_bench_model.h: one ``body`` line per link, then
    Simbody's ``q`` and ``u``."""

    def numbers(values) -> str:
        return " ".join(repr(float(x)) for x in values)

    lines = []
    for link in links:
        I = link.inertia_about_origin()
        vals = [*link.p_PF, link.mass, *link.com]
        vals += [I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]]
        lines.append(f"body {link.parent} {link.joint} " + numbers(vals))
    lines.append("q " + numbers(q))
    lines.append("u " + numbers(u))
    return lines


def build_simbody_program(name: str, release: Path | None = None) -> tuple[Path | None, str]:
    """Compile benchmarks/<name>.cpp against Debian's libsimbody-dev, or against the Release
    build installed at ``release`` (cached in the temp dir, rebuilt when it or
    simbody_bench_model.h is newer); (binary, note)."""
    src = BENCH_DIR / f"{name}.cpp"
    header = BENCH_DIR / "simbody_bench_model.h"
    out_dir = Path(tempfile.gettempdir()) / "mbstudio_bench"
    out_dir.mkdir(exist_ok=True)
    if release is None:
        exe = out_dir / name
    else:  # one binary per Release prefix (its libraries are found through the rpath)
        tag = hashlib.sha1(str(release.resolve()).encode()).hexdigest()[:10]
        exe = out_dir / f"{name}_release_{tag}"
    newest_input = max(src.stat().st_mtime, header.stat().st_mtime)
    if exe.exists() and exe.stat().st_mtime > newest_input:
        return exe, ""
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        return None, "no C++ compiler (apt-get install g++)"
    if release is not None:
        libs = sorted(release.glob("lib*/**/libSimTKsimbody.so"))
        if not libs:
            return None, f"no libSimTKsimbody.so under {release}"
        libdir = libs[0].parent
        flags = [f"-I{release / 'include' / 'simbody'}", "-DNDEBUG", f"-L{libdir}"]
        # (an RPATH, not a RUNPATH: it also finds libSimTKsimbody's own SimTK libraries)
        flags += ["-Wl,--disable-new-dtags", f"-Wl,-rpath,{libdir}"]
        flags += ["-lSimTKsimbody", "-lSimTKmath", "-lSimTKcommon"]
    else:
        try:
            flags = subprocess.run(
                ["pkg-config", "--cflags", "--libs", "simbody"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
        except (OSError, subprocess.CalledProcessError):
            return None, "libsimbody-dev not found (apt-get install libsimbody-dev)"
    flags = [f for f in flags if not f.startswith("-std=")]
    cmd = [cxx, "-O2", "-std=c++17", f"-I{BENCH_DIR}", str(src), "-o", str(exe), *flags]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return None, f"{src.name} did not compile:\n" + proc.stderr[-2000:]
    return exe, ""


def release_simbody_program(name: str, notes: list[str]) -> Path | None:
    """``build_simbody_program(name)`` against the Release build, or None with the reason
    appended to ``notes``."""
    prefix = simbody_release_prefix()
    if prefix is None:
        notes.append(
            "simbody_rel skipped: no Release build of Simbody "
            "(run benchmarks/build_simbody_release.sh)"
        )
        return None
    exe, why = build_simbody_program(name, release=prefix)
    if exe is None:
        notes.append(f"simbody_rel skipped: {why}")
    return exe


def run_simbody_program(exe: Path, lines: list[str]) -> str:
    """Run a Simbody benchmark program on a model file made of ``lines``; its stdout."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write("\n".join(lines) + "\n")
        path = fh.name
    try:
        return subprocess.run([str(exe), path], capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(path)


# --------------------------------------------------------------------------- report
def machine_line() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    now = datetime.datetime.now(datetime.UTC)
    return (
        f"{cpu}, {os.cpu_count()} logical CPUs, load {load:.1f}, Python "
        f"{platform.python_version()}, {now:%Y-%m-%d %H:%M} UTC"
    )


#: where the benchmark scripts write their tables (``--results``)
RESULTS_FILE = Path(__file__).resolve().parent / "RESULTS.md"


def write_results_section(path: Path, key: str, lines: list[str]) -> None:
    """Replace the section ``key`` of the Markdown file ``path`` (the lines between
    ``<!-- begin key -->`` and ``<!-- end key -->``) with ``lines``; append the section if
    the file has none."""
    begin, end = f"<!-- begin {key} -->", f"<!-- end {key} -->"
    text = path.read_text() if path.exists() else ""
    block = "\n".join([begin, *lines, end])
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        tail = rest.split(end, 1)[1]
        text = head + block + tail
    else:
        text = text.rstrip("\n") + ("\n\n" if text else "") + block + "\n"
    path.write_text(text)
