"""engine.warm_jit: the set-up hook that fills numba's on-disk cache."""

from __future__ import annotations

import engine
from engine.multibody.mobilizers.dispatch import MOBILIZER_MODULES


def test_warm_jit_covers_every_mobilizer_and_the_core_operators() -> None:
    summary = engine.warm_jit()
    assert summary["failed"] == {}
    assert set(summary["mobilizers"]) == {m.NAME for m in MOBILIZER_MODULES.values()}
    for op in (
        "calcM",
        "multiplyByMInv",
        "multiplyByM",
        "calcResidualForceIgnoringConstraints",
        "multiplyBySystemJacobian",
        "multiplyByNDot",
    ):
        assert op in summary["operators"]
