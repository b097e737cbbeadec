"""Argument checking shared by the matter-subsystem operator mixins.

Every check runs before anything is computed and raises a typed error that names the operator,
what was expected and what was given.
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError


def body_index(matter, body, what: str) -> int:
    """A MobilizedBodyIndex from an int or a MobilizedBody of this matter subsystem."""
    from engine.multibody.mobilized_body import MobilizedBody

    if isinstance(body, MobilizedBody):
        if body.getMatterSubsystem() is not matter:
            raise InvalidArgumentError(f"{what}: the mobilized body belongs to another subsystem")
        return body.getMobilizedBodyIndex()
    if isinstance(body, (bool, np.bool_)) or not isinstance(body, (int, np.integer)):
        raise InvalidArgumentError(
            f"{what}: a body is given by its MobilizedBodyIndex (int) or MobilizedBody, "
            f"got {type(body).__name__}"
        )
    nb = matter.getNumBodies()
    if not 0 <= int(body) < nb:
        raise IndexOutOfRangeError(
            f"{what}: there is no mobilized body {int(body)}; the matter subsystem has {nb} "
            "bodies (0 = Ground)"
        )
    return int(body)


def is_single_body(body) -> bool:
    """True for the single-task overloads (one body), False for a list of bodies."""
    from engine.multibody.mobilized_body import MobilizedBody

    return isinstance(body, (MobilizedBody, int, np.integer))


def finite_array(values, shape: tuple, what: str) -> np.ndarray:
    """A float64 copy of ``values`` with exactly ``shape`` (-1 = any length) and finite."""
    try:
        arr = np.array(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"{what}: expected numbers of shape {shape}") from exc
    ok = arr.ndim == len(shape) and all(
        want == -1 or got == want for got, want in zip(arr.shape, shape, strict=True)
    )
    if not ok:
        raise InvalidArgumentError(f"{what}: expected shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InvalidArgumentError(f"{what}: values must be finite")
    return arr


def optional_vector(values, n: int, what: str) -> np.ndarray:
    """A length-n vector; None or an empty sequence means all zeros (as Simbody)."""
    if values is None or np.size(values) == 0:
        return np.zeros(n)
    return finite_array(np.ravel(values) if np.ndim(values) == 1 else values, (n,), what)


def optional_body_forces(values, nb: int, what: str) -> np.ndarray:
    """Body forces as a contiguous (nb, 6) array from (nb, 2, 3) or (nb, 6); None or empty
    means all zeros."""
    if values is None or np.size(values) == 0:
        return np.zeros((nb, 6))
    arr = np.asarray(values, dtype=np.float64)
    if arr.shape not in ((nb, 2, 3), (nb, 6)):
        raise InvalidArgumentError(
            f"{what}: expected one spatial force per body, shape ({nb}, 2, 3), got {arr.shape}"
        )
    if not np.all(np.isfinite(arr)):
        raise InvalidArgumentError(f"{what}: body forces must be finite")
    return np.ascontiguousarray(arr.reshape(nb, 6))
