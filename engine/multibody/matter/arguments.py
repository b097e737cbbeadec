"""Argument checking shared by the matter subsystem's public operators: one helper per kind of
argument (a Vector of length n, a Vector_<SpatialVec> of body forces (nb, 2, 3), a Vec3 or other
small fixed-shape array, a MobilizedBodyIndex, an array added to in place).

Every check runs before anything is computed or any State entry is touched, and raises the
engine's typed error (InvalidArgumentError, IndexOutOfRangeError) whose message starts with
``what`` (the operator and its argument, as "multiplyByMInv: v"), says what was expected and
what was given. Accepted forms: any sequence or array of real numbers (lists, tuples, float32,
integer arrays) of the expected shape; refused: strings, None, ragged or wrongly shaped nesting,
complex, boolean and object values, NaN and infinities. A float64 ndarray of the expected
shape is used as it is (no copy).
"""

from __future__ import annotations

import numpy as np

from engine.common.exceptions import IndexOutOfRangeError, InvalidArgumentError
from engine.common.real_array import real_array
from engine.multibody.body_handle import MobilizedBodyHandle

_FLOAT64 = np.dtype(np.float64)
_NDARRAY = np.ndarray


def _require_finite(arr: np.ndarray, what: str) -> np.ndarray:
    if not np.isfinite(arr).all():
        raise InvalidArgumentError(f"{what}: values must be finite (no NaN or infinity)")
    return arr


def _zero_length(values) -> bool:
    """True for an empty argument (Simbody's zero-length Vector, meaning all zeros)."""
    return (type(values) is _NDARRAY and values.size == 0) or (
        isinstance(values, (list, tuple)) and len(values) == 0
    )


def sized_vector(values, n: int, what: str, empty_is_zeros: bool = False) -> np.ndarray:
    """A Vector argument as a float64 array of shape (n,); finiteness is left to the caller
    (a compiled kernel that checks it). With ``empty_is_zeros`` None or a zero-length
    argument is n zeros, as Simbody's empty Vector."""
    if type(values) is _NDARRAY and values.dtype is _FLOAT64 and values.shape == (n,):
        return values
    if empty_is_zeros and (values is None or _zero_length(values)):
        return np.zeros(n)
    arr = real_array(values, what, f"a vector of {n} numbers")
    if arr.shape != (n,):
        raise InvalidArgumentError(
            f"{what}: expected a vector of length {n}, got shape {arr.shape}"
        )
    return arr


def vector(values, n: int, what: str, empty_is_zeros: bool = False) -> np.ndarray:
    """A Vector argument as a finite float64 array of shape (n,) (see ``sized_vector``)."""
    return _require_finite(sized_vector(values, n, what, empty_is_zeros), what)


def sized_body_forces(values, nb: int, what: str, empty_is_zeros: bool = False) -> np.ndarray:
    """A Vector_<SpatialVec> of body forces, one [torque, force] per body, given as (nb, 2, 3)
    or (nb, 6), as a float64 (nb, 2, 3) array; finiteness is left to the caller. With
    ``empty_is_zeros`` None or a zero-length argument is all zeros."""
    if type(values) is _NDARRAY and values.dtype is _FLOAT64 and values.shape == (nb, 2, 3):
        return values
    if empty_is_zeros and (values is None or _zero_length(values)):
        return np.zeros((nb, 2, 3))
    arr = real_array(values, what, f"body forces of shape ({nb}, 2, 3)")
    if arr.shape == (nb, 6):
        return arr.reshape(nb, 2, 3)
    if arr.shape != (nb, 2, 3):
        raise InvalidArgumentError(
            f"{what}: expected body forces of shape ({nb}, 2, 3) (or ({nb}, 6)), got shape "
            f"{arr.shape}"
        )
    return arr


def body_forces(values, nb: int, what: str, empty_is_zeros: bool = False) -> np.ndarray:
    """Body forces as a finite float64 (nb, 2, 3) array (see ``sized_body_forces``)."""
    return _require_finite(sized_body_forces(values, nb, what, empty_is_zeros), what)


def finite_array(values, shape: tuple, what: str) -> np.ndarray:
    """A finite, C-contiguous float64 array of exactly ``shape`` (-1 = any length): a Vec3 is
    (3,), a SpatialVec (2, 3), a list of stations (-1, 3). (Contiguous, so that a strided
    argument gives the same sums, to the bit, as a contiguous one.)"""
    arr = real_array(values, what, f"numbers of shape {shape}")
    ok = arr.ndim == len(shape) and all(
        want == -1 or got == want for got, want in zip(arr.shape, shape, strict=True)
    )
    if not ok:
        raise InvalidArgumentError(f"{what}: expected shape {shape}, got shape {arr.shape}")
    return _require_finite(arr if arr.flags.c_contiguous else arr.copy(order="C"), what)


def vec3(values, what: str) -> np.ndarray:
    """A Vec3 argument as a finite float64 array of shape (3,)."""
    return finite_array(values, (3,), what)


def optional_vector(values, n: int, what: str) -> np.ndarray:
    """A finite length-n vector; None or an empty sequence means all zeros (as Simbody)."""
    return vector(values, n, what, empty_is_zeros=True)


def optional_body_forces(values, nb: int, what: str) -> np.ndarray:
    """Finite body forces as a contiguous (nb, 6) array from (nb, 2, 3) or (nb, 6); None or
    empty means all zeros."""
    return np.ascontiguousarray(body_forces(values, nb, what, empty_is_zeros=True)).reshape(nb, 6)


def writable_array(values, shape: tuple, what: str) -> np.ndarray:
    """An in/out argument the operator adds to in place: a writable float64 ndarray of
    exactly ``shape`` (a list or another dtype would not see the result)."""
    if (
        not isinstance(values, _NDARRAY)
        or values.dtype != _FLOAT64
        or values.shape != shape
        or not values.flags.writeable
    ):
        got = (
            f"a {'read-only ' if not values.flags.writeable else ''}{values.dtype} array of "
            f"shape {values.shape}"
            if isinstance(values, _NDARRAY)
            else type(values).__name__
        )
        raise InvalidArgumentError(
            f"{what}: expected a writable float64 ndarray of shape {shape}, which is added to "
            f"in place; got {got}"
        )
    return values


def output_array(out, shape: tuple, what: str, inputs: dict | None = None) -> np.ndarray:
    """An operator's ``out`` argument (numpy's convention: the result is written into it
    and it is returned): a writable, C-contiguous float64 ndarray of exactly ``shape``
    whose memory overlaps none of the ``inputs`` (name -> array; their byte bounds, as
    ``np.may_share_memory``). ``what`` names the operator."""
    if not (
        isinstance(out, _NDARRAY)
        and out.dtype == _FLOAT64
        and out.shape == shape
        and out.flags.writeable
        and out.flags.c_contiguous
        and out.flags.aligned
    ):
        if isinstance(out, _NDARRAY):
            kind = [] if out.flags.writeable else ["read-only"]
            kind += [] if out.flags.c_contiguous else ["non-contiguous"]
            got = " ".join([*kind, f"{out.dtype} array of shape {out.shape}"])
        else:
            got = type(out).__name__
        raise InvalidArgumentError(
            f"{what}: out: expected a writable C-contiguous float64 ndarray of shape "
            f"{shape}, got a {got}"
        )
    for name, values in (inputs or {}).items():
        if isinstance(values, _NDARRAY) and np.may_share_memory(out, values):
            raise InvalidArgumentError(f"{what}: out: must not share memory with the input {name}")
    return out


def body_index(matter, body, what: str) -> int:
    """A MobilizedBodyIndex from an int or a MobilizedBody of this matter subsystem."""
    if isinstance(body, MobilizedBodyHandle):
        if body.getMatterSubsystem() is not matter:
            raise InvalidArgumentError(f"{what}: the mobilized body belongs to another subsystem")
        return body.getMobilizedBodyIndex()
    if isinstance(body, (bool, np.bool_)) or not isinstance(body, (int, np.integer)):
        raise InvalidArgumentError(
            f"{what}: a body is given by its MobilizedBodyIndex (int) or MobilizedBody, "
            f"got {type(body).__name__} {body!r}"
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
    return isinstance(body, (MobilizedBodyHandle, int, np.integer))
