"""Micro benchmark of the VTK scene: frames per second and per-frame Python update cost.

Renders offscreen at 1280x800 (no display needed) with the default hints (ground plane and sky),
N bodies each decorated with one shape (spheres, bricks and cylinders in turn, per-body colours),
all bodies moving every frame. Reports:

- fps with the Scene's default policy (many identical shapes are instanced automatically),
- fps with every decoration drawn as its own actor (instancing disabled), for comparison,
- the Python cost of ``Scene.update_poses`` per frame, per 1000 bodies.

Run: ``python benchmarks/bench_viz.py [--frames 120] [--size 1280x800] [--uniform]``.
Software OpenGL (llvmpipe) shares the CPU with everything else: fps depends on machine load, so
the load average and the process CPU time per frame are printed too.
Targets: >= 60 fps at 100 bodies, >= 25 fps at 1000 bodies, update < 2 ms per 1000 bodies.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import resource
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from engine.common.decorative_geometry import (  # noqa: E402
    DecorativeBrick,
    DecorativeCylinder,
    DecorativeSphere,
)
from viz.scene import Scene  # noqa: E402


def decorations(n: int) -> list:
    rng = np.random.default_rng(0)
    shapes = [
        lambda: DecorativeSphere(0.12),
        lambda: DecorativeBrick((0.1, 0.08, 0.12)),
        lambda: DecorativeCylinder(0.07, 0.12),
    ]
    return [
        shapes[i % 3]().setBodyId(i + 1).setColor(tuple(rng.uniform(0.2, 1.0, 3))) for i in range(n)
    ]


def poses(n: int, t: float) -> np.ndarray:
    """Ground plus n bodies on a spinning, bobbing grid, each body turning about its y axis."""
    side = int(np.ceil(np.sqrt(n)))
    i = np.arange(n)
    x_gb = np.tile(np.eye(4), (n + 1, 1, 1))
    angle = t + 0.1 * i
    c, s = np.cos(angle), np.sin(angle)
    x_gb[1:, 0, 0], x_gb[1:, 0, 2], x_gb[1:, 2, 0], x_gb[1:, 2, 2] = c, s, -s, c
    spacing = 0.35
    x_gb[1:, 0, 3] = (i % side - side / 2) * spacing
    x_gb[1:, 2, 3] = (i // side - side / 2) * spacing
    x_gb[1:, 1, 3] = 0.3 + 0.1 * np.sin(2 * t + 0.3 * i)
    return x_gb


def cpu_seconds() -> float:
    """User + system CPU time of this process, all threads (llvmpipe renders on threads)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def measure(n: int, frames: int, size: tuple[int, int], instancing: bool, uniform: bool) -> dict:
    threshold = 32 if instancing else 10**9
    scene = Scene(instancing_threshold=threshold)
    window = scene.attach_offscreen(*size)
    scene.set_hints(up=(0, 1, 0), uniform_background=uniform, length_scale=0.5)
    scene.set_geometry(decorations(n))
    scene.update_poses(poses(n, 0.0))
    scene.render()  # first frame: context, shaders, camera
    window.WaitForCompletion()
    all_poses = [poses(n, 0.02 * k) for k in range(frames)]
    update_s = 0.0
    cpu0 = cpu_seconds()
    start = time.perf_counter()
    for x_gb in all_poses:
        t0 = time.perf_counter()
        scene.update_poses(x_gb)
        update_s += time.perf_counter() - t0
        scene.render()
        window.WaitForCompletion()
    elapsed = time.perf_counter() - start
    cpu = cpu_seconds() - cpu0
    result = {
        "cpu_ms": 1e3 * cpu / frames,
        "bodies": n,
        "actors": scene.num_actors(),
        "fps": frames / elapsed,
        "update_ms": 1e3 * update_s / frames,
    }
    scene.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--frames", type=int, default=120)
    parser.add_argument("--size", default="1280x800")
    parser.add_argument("--uniform", action="store_true", help="plain background, no ground")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x"))
    background = "uniform background" if args.uniform else "ground plane + sky gradient"
    print(f"offscreen {size[0]}x{size[1]}, {background}, {args.frames} frames, all bodies moving")
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(
        f"{'bodies':>7} {'mode':>8} {'actors':>7} {'fps':>6} {'cpu ms/frame':>13} "
        f"{'update ms':>10} {'update ms/1000 bodies':>22}"
    )
    for n in (100, 1000):
        for instancing in (True, False):
            r = measure(n, args.frames, size, instancing, args.uniform)
            mode = "default" if instancing else "actors"
            per_k = r["update_ms"] * 1000.0 / n
            print(
                f"{n:>7} {mode:>8} {r['actors']:>7} {r['fps']:>6.1f} {r['cpu_ms']:>13.1f} "
                f"{r['update_ms']:>10.3f} {per_k:>22.3f}"
            )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print("mode 'default' instances many identical shapes; 'actors' draws one actor each.")


if __name__ == "__main__":
    main()
