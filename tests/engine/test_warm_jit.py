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
        "RungeKuttaMerson steps",
        "RungeKuttaMerson single steps",
        "RungeKuttaFeldberg steps",
    ):
        assert op in summary["operators"]


def test_warm_jit_compiles_the_fused_and_integrator_kernels() -> None:
    from engine.integrators.error_norm import _relative_scaling
    from engine.integrators.merson_compiled.attempt import merson_attempt
    from engine.integrators.merson_compiled.steps import merson_steps
    from engine.integrators.step_control import adjusted_step_size, trial_step_end
    from engine.multibody.kernels.checked_residual import residual_forces_from_table
    from engine.multibody.kernels.fused_stages import realize_stages_from_table
    from engine.multibody.kernels.quaternion_projection import remove_quaternion_norm_errors
    from engine.multibody.kernels.weighted_error_norm import weighted_error_norm

    engine.warm_jit()
    for kernel in (
        realize_stages_from_table,
        residual_forces_from_table,
        merson_attempt,
        merson_steps,
        adjusted_step_size,
        trial_step_end,
        _relative_scaling,
        weighted_error_norm,
        remove_quaternion_norm_errors,
    ):
        assert kernel.signatures, kernel


def test_a_cache_made_from_other_sources_is_forgotten(tmp_path) -> None:
    from engine.jit_warmup import forget_stale_kernels

    package = tmp_path / "pkg"
    (package / "sub" / "__pycache__").mkdir(parents=True)
    (package / "kernel.py").write_text("x = 1\n")
    (package / "sub" / "callee.py").write_text("y = 2\n")
    cached = [package / "sub" / "__pycache__" / f"callee.f-1.py311.{ext}" for ext in ("nbi", "nbc")]
    for path in cached:
        path.write_bytes(b"machine code")
    assert forget_stale_kernels(package) == 2  # no fingerprint yet: the cache is unknown
    assert not any(path.exists() for path in cached)
    for path in cached:
        path.write_bytes(b"machine code")
    assert forget_stale_kernels(package) == 0  # same sources: kept
    assert all(path.exists() for path in cached)
    (package / "sub" / "callee.py").write_text("y = 3\n")  # a callee changed
    assert forget_stale_kernels(package) == 2
    assert not any(path.exists() for path in cached)
    (package / "new.py").write_text("")  # a file added
    (package / "sub" / "__pycache__" / "k.nbi").write_bytes(b"")
    assert forget_stale_kernels(package) == 1


def test_the_parts_together_warm_what_the_whole_warms() -> None:
    import pytest

    from engine.jit_warmup import PARTS

    whole = engine.warm_jit()["operators"]
    parts = [engine.warm_jit(part) for part in PARTS]
    assert all(part["failed"] == {} for part in parts)
    assert sorted(parts[0]["operators"] + parts[1]["operators"]) == sorted(whole)
    assert "RungeKuttaMerson steps" in parts[0]["operators"]
    assert "calcM" in parts[1]["operators"] and "ensemble" in parts[1]["operators"]
    with pytest.raises(ValueError, match="part"):
        engine.warm_jit("everything")
