"""The studio's start keeps a large model's freed arrays for the next one (issue 22: a structural
edit of a 20,000-body model builds a new ~100 MB State; when malloc hands the old one's memory
back to the system, every page of the new one costs a page fault).

Each check runs in a fresh interpreter (malloc's thresholds are process-wide and can only be
raised once): it goes through the studio's start (``mbstudio``'s ``run_studio``, stopped at
its display check), then allocates and frees 64 MB of 1 MB NumPy arrays four times, on the
main thread and on a second thread, and counts the minor page faults of each round."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc mallopt")

ROOT = pathlib.Path(__file__).resolve().parents[2]

PROBE = """
import json, resource, sys, threading
import numpy as np
import app.cli as cli

cli.display_problem = lambda: "no display in this check"
status = cli.run_studio(cli.build_studio_parser().parse_args([]))
assert status == 2, status

def rounds(out):
    for _ in range(4):
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        arrays = [np.ones(2**17) for _ in range(64)]  # 64 arrays of 1 MB, written
        out.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
        del arrays

main, worker = [], []
thread = threading.Thread(target=rounds, args=(worker,))
thread.start()
thread.join()
rounds(main)
print(json.dumps({"main": main, "worker": worker}))
"""


def _faults() -> dict[str, list[int]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    env.pop("GLIBC_TUNABLES", None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "no display in this check" in done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_the_studio_start_keeps_freed_arrays_for_reuse():
    faults = _faults()
    first = faults["worker"][0]  # the first 64 MB: fresh memory, about 16,000 pages of 4 kB
    assert first > 2000, f"the first round did not fault its pages in: {faults}"
    # Later rounds, on either thread, reuse what the one before freed: no page is new.
    later = faults["worker"][1:] + faults["main"]
    assert max(later) < first / 20, f"freed arrays handed back to the system: {faults}"
