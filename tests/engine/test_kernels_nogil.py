"""The compiled multibody kernels release the GIL (so the studio's GUI thread keeps running
while a worker thread simulates): every numba dispatcher in engine.multibody.kernels, the
finiteness check and the gravity kernel is compiled with nogil=True, except the O(n) matter
operators' kernels Python calls (``short_kernel_jit``: a call of a few microseconds at
most, for which releasing the GIL would cost a quarter of a small tree's work)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from numba.core import config
from numba.core.registry import CPUDispatcher

import engine.multibody.kernels as kernels_pkg


def _dispatchers():
    modules = [
        importlib.import_module(f"{kernels_pkg.__name__}.{m.name}")
        for m in pkgutil.iter_modules(kernels_pkg.__path__)
    ]
    modules += [
        importlib.import_module("engine.common.finite"),
        importlib.import_module("engine.forces.gravity_kernel"),
    ]
    for mod in modules:
        for name, obj in vars(mod).items():
            if isinstance(obj, CPUDispatcher) and obj.__module__ == mod.__name__:
                yield f"{mod.__name__}.{name}", obj


@pytest.mark.skipif(config.DISABLE_JIT, reason="no dispatchers when numba runs pure Python")
def test_every_multibody_kernel_releases_the_gil():
    found = dict(_dispatchers())
    assert "engine.multibody.kernels.stage_kernels.position_stage" in found
    assert len(found) > 20
    holding = {name for name, d in found.items() if not d.targetoptions.get("nogil")}
    operators = "engine.multibody.kernels.checked_operators."
    assert holding == {
        f"{operators}checked_m_inverse_times",
        f"{operators}m_times",
        f"{operators}jacobian_times",
        f"{operators}jacobian_transpose_times",
        "engine.multibody.kernels.checked_residual.residual_forces_from_table",
    }
