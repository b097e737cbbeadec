"""Fingerprints of decorations, so a Scene redraws only the decorations an edit changed.

A model edit rebuilds the System, and with it every DecorativeGeometry object; most of them
draw exactly what the previous ones drew, possibly on a body whose MobilizedBodyIndex moved
(removing a body renumbers those after it). ``KeyedGeometry`` is a tuple of decorations that
also carries, per decoration, its body index and a 64-bit fingerprint of everything else about
it (kind, X_BD, sizes, appearance, userRef), plus the model's body names by index. The worker
thread that collects the decorations makes it (a few microseconds per decoration, with no VTK),
and ``match`` pairs a new KeyedGeometry's decorations with the drawn one's using whole-array
numpy operations only: the GUI thread's cost is then proportional to the decorations that
changed, not to the model.

Two decorations match when their fingerprints are equal and the old one's body maps, by name,
to the new one's body. Equal fingerprints of different content would need a 64-bit hash
collision; a collision that makes the pairing ambiguous is detected and gives no pairing (the
Scene then draws everything afresh).
"""

from __future__ import annotations

import itertools
import pickle
from enum import Enum

import numpy as np

from engine.common.decorations.base import Representation
from engine.math.rotation import Rotation
from engine.math.transform import Transform

_PLAIN = (float, int, str, bool, type(None))
#: Attribute types whose values hash by value as they are.
_HASHABLE = frozenset((*_PLAIN, Representation))
_UNIQUE = itertools.count(1)
_SERIALS = itertools.count(1)
_MIX = np.uint64(0x9E3779B97F4A7C15)


def _value_key(value):
    """A hashable stand-in for one attribute value of a decoration (equal values, equal keys)."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is np.ndarray:
        return (value.dtype.str, value.shape, value.tobytes())
    if kind is Transform:
        return (value._R._m.tobytes(), value._p.tobytes())  # noqa: SLF001
    if kind is Rotation:
        return value._m.tobytes()  # noqa: SLF001
    if isinstance(value, Enum):
        return (kind.__qualname__, value.value)
    if isinstance(value, (tuple, list)):
        return (kind.__name__, tuple(_value_key(v) for v in value))
    return pickle.dumps(value, protocol=5)


def fingerprint(decoration) -> int:
    """A 64-bit hash of everything about ``decoration`` but its body index.

    A decoration that cannot be fingerprinted (an attribute that cannot be pickled) gets a
    value of its own that matches nothing else.
    """
    try:
        parts = [type(decoration)]
        add = parts.append
        for name, value in decoration.__dict__.items():
            kind = type(value)
            if kind is np.ndarray:
                add(value.tobytes())
            elif kind is Transform:
                add(value._R._m.tobytes())  # noqa: SLF001
                add(value._p.tobytes())  # noqa: SLF001
            elif kind in _HASHABLE:
                add(0 if name == "_bodyId" else value)
            else:
                add(_value_key(value))
        return hash(tuple(parts))
    except Exception:  # noqa: BLE001  (unpicklable userRef and the like: never matched)
        return hash(("unmatched", next(_UNIQUE)))


def _fingerprints(decorations):
    """``fingerprint`` of each of ``decorations``, taken once per distinct set of attribute
    objects: decorations copied from one prototype (a body template's, the default sketch's)
    share every attribute object but their body index, and so their fingerprint. The
    attribute objects are identified by ``id`` (a Transform by its arrays') while
    ``decorations`` holds them all alive."""
    memo: dict = {}
    body_at: dict = {}  # attribute names (in order) -> position of _bodyId in them
    for decoration in decorations:
        attributes = getattr(decoration, "__dict__", None)
        if attributes is None:
            yield fingerprint(decoration)
            continue
        names = tuple(attributes)
        at = body_at.get(names)
        if at is None:
            at = body_at[names] = names.index("_bodyId") if "_bodyId" in names else -1
        # (a Transform by its read-only arrays: each body's copy of one frame shares them)
        ids = [
            (id(v._R._m), id(v._p)) if type(v) is Transform else id(v)  # noqa: SLF001
            for v in attributes.values()
        ]
        if at >= 0:
            ids[at] = 0
        key = (type(decoration), names, *ids)
        value = memo.get(key)
        if value is None:
            value = memo[key] = fingerprint(decoration)
        yield value


def fingerprints_of(decorations) -> np.ndarray:
    """``fingerprint`` of each of ``decorations`` (int64), each distinct set of attribute
    objects fingerprinted once (``_fingerprints``)."""
    return np.fromiter(_fingerprints(decorations), dtype=np.int64, count=len(decorations))


def _body_of(decoration) -> int:
    try:
        return int(decoration.getBodyId())
    except Exception:  # noqa: BLE001  (not a decoration: the Scene reports and skips it)
        return 0


class KeyedGeometry(tuple):
    """A tuple of decorations with ``bodies`` (each one's body index), ``hashes`` (each one's
    ``fingerprint``, int64) and ``body_names`` (the model's body names by index, or None).

    It is an ordinary tuple to everything that iterates decorations. The fingerprints are
    taken when it is made: its decorations must not be changed afterwards. ``serial`` tells
    KeyedGeometry apart; ``paired`` is (the serial of another KeyedGeometry, ``match`` of it
    with this one) once ``pair_with`` made it."""

    bodies: np.ndarray
    hashes: np.ndarray
    body_names: tuple | None
    serial: int
    paired: tuple | None

    def __new__(cls, geometry=(), body_names=None):
        self = super().__new__(cls, geometry)
        n = len(self)
        self.bodies = np.fromiter((_body_of(g) for g in self), dtype=np.intp, count=n)
        self.hashes = np.fromiter(_fingerprints(self), dtype=np.int64, count=n)
        self.body_names = None if body_names is None else tuple(body_names)
        self.serial = next(_SERIALS)
        self.paired = None
        return self

    @classmethod
    def of_parts(cls, geometry, bodies, hashes, body_names=None) -> KeyedGeometry:
        """A KeyedGeometry of ``geometry`` whose body indices and fingerprints are known
        (``bodies``, ``hashes``: those of the same decorations in another KeyedGeometry, or
        taken by ``fingerprints_of``), so they are not taken again."""
        self = tuple.__new__(cls, geometry)
        self.bodies = np.asarray(bodies, dtype=np.intp)
        self.hashes = np.asarray(hashes, dtype=np.int64)
        self.body_names = None if body_names is None else tuple(body_names)
        self.serial = next(_SERIALS)
        self.paired = None
        return self

    def pair_with(self, drawn: KeyedGeometry | None) -> None:
        """Pair these decorations with those of ``drawn`` now (``match``), on the thread that
        made them (the simulation worker after an edit): a Scene showing ``drawn`` that is
        given these then uses this pairing instead of making it on the GUI thread. Only the
        serial of ``drawn`` is kept, not ``drawn``."""
        if isinstance(drawn, KeyedGeometry) and len(drawn.hashes):
            self.paired = (drawn.serial, match(drawn, self))

    def head(self, n: int, drawn: KeyedGeometry | None = None) -> KeyedGeometry:
        """The first ``n`` decorations as a KeyedGeometry (their fingerprints not taken
        again), paired with ``drawn`` (an earlier, shorter head of this one: its decorations
        are the first ones here) for a Scene that draws a large model in steps. The whole
        (``n == len(self)``) has this one's serial, so that a later edit's pairing with this
        KeyedGeometry holds for the Scene that drew it in steps."""
        n = max(0, min(int(n), len(self)))
        out = tuple.__new__(KeyedGeometry, self[:n])
        out.bodies, out.hashes = self.bodies[:n], self.hashes[:n]
        out.body_names = self.body_names
        out.serial = self.serial if n == len(self) else next(_SERIALS)
        out.paired = None
        if drawn is not None:
            pairing = np.full(n, -1, dtype=np.intp)
            k = min(len(drawn), n)
            pairing[:k] = np.arange(k, dtype=np.intp)
            out.paired = (drawn.serial, pairing)
        return out

    def __reduce__(self):
        return (KeyedGeometry, (tuple(self), self.body_names))


def keyed(geometry, body_names=None) -> KeyedGeometry:
    """``geometry`` as a KeyedGeometry (itself if it already is one and no names are given)."""
    if isinstance(geometry, KeyedGeometry) and body_names is None:
        return geometry
    return KeyedGeometry(geometry, body_names)


def same_drawing(old, new) -> bool:
    """Whether two KeyedGeometry draw the same: equal fingerprints on equal bodies."""
    return (
        isinstance(old, KeyedGeometry)
        and isinstance(new, KeyedGeometry)
        and len(old) == len(new)
        and np.array_equal(old.bodies, new.bodies)
        and np.array_equal(old.hashes, new.hashes)
    )


def body_map(old_names, new_names, n_old: int) -> np.ndarray:
    """For each old body index (``n_old`` of them), its new index, or -1 if it is gone.

    Bodies are followed by name; a body whose name vanished while the body at the same index
    got a name the old model did not have was renamed in place and keeps its index. With no
    names, every index maps to itself.
    """
    if old_names is None or new_names is None:
        return np.arange(n_old, dtype=np.intp)
    out = np.full(n_old, -1, dtype=np.intp)
    m = min(n_old, len(old_names), len(new_names))
    old_head = np.empty(m, dtype=object)
    old_head[:] = old_names[:m]
    new_head = np.empty(m, dtype=object)
    new_head[:] = new_names[:m]
    same = np.flatnonzero(old_head == new_head)  # bodies that kept their index
    out[same] = same
    rest = np.ones(max(n_old, len(old_names)), dtype=bool)
    rest[same] = False
    rest = np.flatnonzero(rest[: min(n_old, len(old_names))])
    if len(rest):  # bodies that moved (or went): followed by name
        taken = np.zeros(len(new_names), dtype=bool)
        taken[same] = True
        new_index = {new_names[j]: j for j in np.flatnonzero(~taken).tolist()}
        old_set = set(old_names)
        for i in rest.tolist():
            j = new_index.get(old_names[i])
            if j is None and i < len(new_names) and new_names[i] not in old_set:
                j = i  # renamed in place
            if j is not None:
                out[i] = j
    return out


def _ranked(keys: np.ndarray) -> np.ndarray:
    """``keys`` (uint64) mixed with each one's rank among its equals, so equal decorations on
    one body pair up one to one."""
    if not len(keys):
        return keys
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    starts = np.r_[True, ordered[1:] != ordered[:-1]]
    first = np.maximum.accumulate(np.where(starts, np.arange(len(keys)), 0))
    rank = np.empty(len(keys), dtype=np.uint64)
    rank[order] = (np.arange(len(keys)) - first).astype(np.uint64)
    with np.errstate(over="ignore"):
        return keys ^ ((rank + np.uint64(1)) * _MIX)


def _combined(hashes: np.ndarray, bodies: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        mixed = hashes.view(np.uint64) + bodies.astype(np.uint64) * _MIX
        return mixed ^ (mixed >> np.uint64(29))


def match(old, new) -> np.ndarray | None:
    """For each decoration of ``new``, the index of the decoration of ``old`` it draws the same
    as (its body followed by name), or -1 for a new one; None when the pairing is ambiguous.

    ``old`` and ``new`` are KeyedGeometry, or anything with their ``bodies``, ``hashes`` and
    ``body_names``."""
    n_old_bodies = int(old.bodies.max()) + 1 if len(old.bodies) else 0
    names = old.body_names
    mapping = body_map(names, new.body_names, max(n_old_bodies, len(names or ())))
    mapped = mapping[old.bodies] if len(old.bodies) else old.bodies
    alive = np.flatnonzero(mapped >= 0)
    old_keys = _ranked(_combined(old.hashes[alive], mapped[alive]))
    new_keys = _ranked(_combined(new.hashes, new.bodies))
    if len(np.unique(old_keys)) != len(old_keys) or len(np.unique(new_keys)) != len(new_keys):
        return None
    _, in_new, in_old = np.intersect1d(new_keys, old_keys, assume_unique=True, return_indices=True)
    out = np.full(len(new.hashes), -1, dtype=np.intp)
    out[in_new] = alive[in_old]
    return out
