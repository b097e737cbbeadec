"""URDF import benchmark (not a test): a ~30-dof humanoid with its meshes, from the file to
the first frame drawn in the studio.

In a real studio window (run under ``xvfb-run -a`` without a display), with the window already
open on an empty model, the time from dropping Talos (``talos_reduced.urdf`` of
example-robot-data: 32 revolute joints, 60 links, 41 STL meshes) into the studio until the 3-D
view has drawn a frame with the robot, split into: parsing and converting the URDF, building
the engine System and starting the simulation, and drawing the first frame (reading the meshes).
A second import of the same file shows the effect of the mesh caches.

Run: ``python benchmarks/bench_urdf_import.py [--urdf PATH]``. Target: first frame < 5 s.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def talos() -> Path:
    from importlib.metadata import distribution

    dist = distribution("example-robot-data")
    return (
        Path(dist.locate_file("cmeel.prefix/share/example-robot-data/robots/talos_data/robots"))
        / "talos_reduced.urdf"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--urdf", type=Path, default=None)
    args = parser.parse_args()
    path = args.urdf or talos()

    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    qapp = QApplication.instance() or QApplication([])
    from app.importers.urdf import import_urdf
    from app.main_window import MainWindow

    settings = QSettings(os.devnull, QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, restore_layout=False)
    window.model_editor.interactive = False
    window.show()
    for _ in range(20):
        qapp.processEvents()
    import_urdf(path)  # import yourdfpy and lxml once, as a running studio has

    viewport = window.viewport
    for attempt in ("first import (cold mesh caches)", "second import (warm caches)"):
        frames_before = viewport.frames_rendered
        c0 = time.process_time()
        t0 = time.perf_counter()
        result = import_urdf(path)
        t1 = time.perf_counter()
        ok = window.urdf_import.import_path(path)
        assert ok, window.model_editor.last_error
        t2 = time.perf_counter()
        deadline = t2 + 60
        while viewport.frames_rendered == frames_before:
            qapp.processEvents()
            if time.perf_counter() > deadline:
                print("no frame within 60 s")
                return 1
        viewport.render_window.Render()
        t3 = time.perf_counter()
        c3 = time.process_time()
        dofs = sum(1 for b in result.data.bodies if b.mobilizer != "Weld")
        print(
            f"{attempt}: {path.name}: {len(result.data.bodies)} bodies, {dofs} dof, "
            f"{len(result.meshes)} meshes\n"
            f"  parse + convert {t1 - t0:.2f} s; import into the studio (again, with build "
            f"and simulation start) {t2 - t1:.2f} s; to first frame {t3 - t2:.2f} s; "
            f"total from drop to first frame {t3 - t1:.2f} s (CPU time of the studio process "
            f"for both imports: {c3 - c0:.2f} s)"
        )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
