"""Worker benchmark (not a test): what a structural edit of a large chain costs the simulation
worker, without a window.

The script opens an N-link Ball chain (``bench_edits.chain_file``) in a ``SimulationSession``
(not started) and applies edits to its document, each handed to the session's
``rebuild`` command as the worker applies it (``_cmd_rebuild`` under the State lock, then the
snapshot published): the middle body's mass and inertia changed and back (applied in place),
a leaf added under the middle body and removed, a 10-body subtree
re-parented and back, the middle body's mobilizer changed (Ball to Pin) and back, the middle
body renamed and back (applied in place: no new System). Before each
edit the heap is settled as the studio's worker settles it when idle (``model_heap``: a full
collection, then everything frozen), and the session counts as having frozen it.

For each edit it prints the wall-clock and worker-thread CPU seconds of the rebuild and, apart,
``young_gc``: the seconds of the young-generation collections that the objects the edit made
set off right after it (a collection of generations 0 and 1, as the next allocations would
run on whichever thread allocates), and ``faults``: the process's minor page faults during the
rebuild (pages of fresh memory touched for the first time). ``--profile PREFIX`` writes a
cProfile of each edit of the last round (``PREFIX_LABEL.prof``). ``--default-malloc`` leaves
glibc malloc's thresholds as they are (the studio's start raises them: ``malloc_tuning``).

Run: ``python benchmarks/bench_worker_edits.py --bodies 20000 [--rounds 2]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import pathlib
import resource
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


class ModelVersion:
    """One version of a document's content, as the studio hands it to ``rebuild``."""

    def __init__(self, document) -> None:
        self.data = document.data
        self.base_dir = getattr(document, "base_dir", None)


def _doubled(values) -> tuple:
    return tuple(2.0 * v for v in values)


def edits(n: int):
    """(label, document edit) of each structural edit, in order (each undone by a later)."""
    mid = f"b{n // 2}"
    moved = f"b{n // 2 + 10}"
    return [
        ("mass", lambda d: d.set_body(mid, mass=0.2, inertia=_doubled(d.body(mid).inertia))),
        (
            "mass back",
            lambda d: d.set_body(
                mid, mass=d.body(f"b{n // 2 - 1}").mass, inertia=d.body(f"b{n // 2 - 1}").inertia
            ),
        ),
        ("add", lambda d: d.add_body(dataclasses.replace(d.body(mid), name="extra", parent=mid))),
        ("remove", lambda d: d.remove_body("extra")),
        ("reparent", lambda d: d.set_body(moved, parent="b3")),
        ("reparent back", lambda d: d.set_body(moved, parent=f"b{n // 2 + 9}")),
        ("mobilizer", lambda d: d.set_body(mid, mobilizer="Pin")),
        ("mobilizer back", lambda d: d.set_body(mid, mobilizer="Ball")),
        ("rename", lambda d: d.rename_body(mid, "middle")),
        ("rename back", lambda d: d.rename_body("middle", mid)),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bodies", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--profile", metavar="PREFIX")
    parser.add_argument(
        "--default-malloc",
        action="store_true",
        help="leave glibc malloc's thresholds at their defaults (the studio's start raises them)",
    )
    args = parser.parse_args()
    from bench_edits import chain_file, keep_freed_memory_as_the_studio

    if not args.default_malloc:
        keep_freed_memory_as_the_studio()

    from app.document import build, model_io
    from app.simulation import collection
    from app.simulation.session import SimulationSession

    path = chain_file(pathlib.Path(tempfile.mkdtemp()), args.bodies)
    with collection.paused():
        document = model_io.load(path)
        session = SimulationSession(build(ModelVersion(document), True))
    session.want_cache = False
    session._heap_frozen = True  # noqa: SLF001  (as the studio's worker after its first settle)
    for round_ in range(args.rounds):
        for label, edit in edits(args.bodies):
            edit(document)
            model = ModelVersion(document)
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            profiler = None
            if args.profile and round_ == args.rounds - 1:
                import cProfile

                profiler = cProfile.Profile()
                profiler.enable()
            faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            wall, cpu = time.perf_counter(), time.thread_time()
            kinds = frozenset({"parameters" if label.startswith("mass") else "topology"})
            with session._state.getStateLock():  # noqa: SLF001
                session._cmd_rebuild(model, kinds)  # noqa: SLF001
            session._publish(with_cache=False)  # noqa: SLF001
            wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
            faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(f"{args.profile}_{label.replace(' ', '_')}.prof")
            young = time.perf_counter()
            gc.collect(0)
            gc.collect(1)
            young = time.perf_counter() - young
            error = session._error  # noqa: SLF001
            print(
                f"round {round_} {label:15s} wall {wall:.3f}  cpu {cpu:.3f}  young_gc {young:.3f}"
                + f"  faults {faults}"
                + (f"  ERROR {error}" if error else ""),
                flush=True,
            )
    gc.unfreeze()


if __name__ == "__main__":
    main()
