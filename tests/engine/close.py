"""The tolerance check the engine tests share."""

from __future__ import annotations

import numpy as np


def assert_close(
    actual, expected, what: str = "", tol: float = 1e-10, *, reshape: bool = False
) -> None:
    """Same shape, and max |actual - expected| <= tol * max(1, max |expected|).

    ``reshape``: compare ``actual`` in the shape of ``expected`` (reference outputs stored
    flattened); the sizes must still agree."""
    actual = np.asarray(actual, dtype=float)
    expected = np.asarray(expected, dtype=float)
    if reshape:
        assert actual.size == expected.size, f"{what}: {actual.size} values != {expected.size}"
        actual = actual.reshape(expected.shape)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    scale = max(1.0, float(np.max(np.abs(expected)))) if expected.size else 1.0
    err = float(np.max(np.abs(actual - expected))) if expected.size else 0.0
    assert err <= tol * scale, (
        f"{what}: max error {err:.3e} (scale {scale:.3g})\n{actual}\n{expected}"
    )
