"""The worker's body-fixed decorations of a model, made again only for the bodies an edit changed.

A System's Topology-stage decorations (``viz.system_decorations.static_decorations``) are,
in order: each body's own decorations (body 0, 1, ...), then the default sketch body by body
(Ground's frame; each other body's frame, its mobilizer's frames and bones, its mass
centre), with those of the other subsystems before or after them in subsystem order (made
anew each time). What one body adds to each
of the two matter sections depends only on its document spec (geometry and contact surfaces;
frames, mass centre, whether it has mass), its own index and its parent's index, and on the
model-wide drawing settings (default geometry shown, length scale, hints, Ground's geometry).

``collect(built, state, body_names, previous)`` makes the same decorations in the same order
as ``static_decorations``, as a ``KeyedGeometry``, and keeps, per body, where its part of each
section lies. Given the ``BodyDecorations`` of the model shown before (``previous``), each
body whose spec is the very same object (specs are immutable; an edit replaces only the specs
it changes), at the same index, under the same name and with its parent at the same index,
keeps its decorations and their fingerprints: only the changed bodies' are made and
fingerprinted. An edit that adds a leaf or re-parents one body thus costs O(changed bodies)
Python plus whole-array copies, not a pass over every decoration of the model. A body whose
index moved (removing a body renumbers the later ones) is made again.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass

import numpy as np

from app.simulation.state_carry import slots
from engine.common.exceptions import StageTooLowError
from engine.common.stage import Stage
from engine.multibody.default_geometry import DefaultSketch, body_decorations
from viz.decoration_keys import KeyedGeometry, fingerprints_of, match

#: What the last ``collect`` made rather than kept: the bodies whose decorations it made and
#: the decorations it fingerprinted (a test's count of the work an edit does).
LAST_MADE = {"bodies": 0, "decorations": 0}


@dataclass(frozen=True)
class BodyDecorations:
    """A model's body-fixed decorations (``geometry``) and where each body's lie in it.

    ``own`` and ``sketch`` are (nbodies, 2) arrays of (first position, count) of each body
    index's own decorations and default-sketch items in ``geometry``; ``specs`` the document
    spec of each body index (None for Ground or a body without one); ``names`` the body
    names by index; ``parents`` each body's parent index (-1 for Ground); ``settings`` the
    model-wide values the drawing depends on."""

    geometry: KeyedGeometry
    own: np.ndarray
    sketch: np.ndarray
    specs: tuple
    names: tuple
    parents: np.ndarray
    settings: tuple
    #: for each decoration of ``geometry``, its position in the geometry it was kept from
    #: (that of the ``previous`` given to ``collect``), -1 for one made now
    kept_from: np.ndarray | None = None
    #: the serial of the geometry ``kept_from`` points into (None: nothing kept)
    kept_serial: int | None = None


def _settings(built, matter) -> tuple:
    data = getattr(built, "data", None)
    return (
        matter.getShowDefaultGeometry(),
        float(matter.getSystem().getDefaultLengthScale()),
        None if data is None else data.hints,
        None if data is None else tuple(data.ground_geometry),
    )


def _keeps(previous: BodyDecorations | None, settings: tuple, specs, names, parents) -> list:
    """For each body index, whether ``previous`` holds its decorations as they are now: the
    same spec object, name and parent (compared as whole sequences)."""
    n = len(specs)
    if previous is None or previous.settings != settings:
        return [False] * n
    old_specs, old_names = previous.specs, previous.names
    m = min(n, len(old_specs), len(old_names))
    keep = np.zeros(n, dtype=bool)
    keep[:m] = (
        np.fromiter(map(operator.is_, specs[:m], old_specs[:m]), dtype=bool, count=m)
        & np.fromiter(map(operator.is_not, specs[:m], itertools.repeat(None)), bool, m)
        & np.fromiter(map(operator.eq, names[:m], old_names[:m]), dtype=bool, count=m)
        & (previous.parents[:m] == parents[:m])
    )
    keep[0] = True  # (Ground: the settings hold its geometry)
    return keep.tolist()


def collect(built, state, body_names=None, previous: BodyDecorations | None = None):
    """The Topology-stage decorations of ``built``'s System in ``state`` (realized to at
    least Topology) as ``static_decorations`` makes them, with those of the bodies unchanged
    since ``previous`` kept (see the module docstring)."""
    system, matter = built.system, built.matter
    if state.getSystemStage() < Stage.Topology:
        raise StageTooLowError(
            "collecting decorations needs the State realized to Topology",
            needed=Stage.Topology,
            current=state.getSystemStage(),
        )
    n = matter.getNumBodies()
    names = tuple(built.body_name_of_index)
    data = getattr(built, "data", None)
    by_name = {} if data is None else {b.name: b for b in data.bodies}
    specs = (None, *map(by_name.get, names[1:n])) + (None,) * max(0, n - max(len(names), 1))
    parents = np.asarray(matter._topo(state).parent, dtype=np.intp)  # noqa: SLF001
    settings = _settings(built, matter)
    keep = _keeps(previous, settings, specs, names, parents)
    keep_at = np.flatnonzero(np.asarray(keep, dtype=bool))
    changed = np.flatnonzero(~np.asarray(keep, dtype=bool)).tolist()
    placements: dict = {}
    sketch = DefaultSketch(settings[1]) if settings[0] else None
    sections = (0, 1) if sketch is not None else (0,)
    spans = np.zeros((2, n, 2), dtype=np.intp)
    made_parts = []
    offset = 0
    for section in sections:
        # each body's count: kept from ``previous``, or that of the part made now
        counts = np.zeros(n, dtype=np.intp)
        if len(keep_at):
            counts[keep_at] = (previous.own if section == 0 else previous.sketch)[keep_at, 1]
        parts = {}
        for b in changed:
            part = (
                body_decorations(matter, b, placements)
                if section == 0
                else sketch.of_body(matter, b)
            )
            parts[b] = part
            counts[b] = len(part)
        made_parts.append(parts)
        spans[section, :, 1] = counts
        spans[section, :, 0] = offset + np.cumsum(counts) - counts
        offset += int(counts.sum())
    made = len(changed)
    # the matter's items in order: those kept copied at once from ``previous``, then the new
    old = previous.geometry if previous is not None else ()
    items_at = np.empty(offset, dtype=object)
    source = np.full(offset, -1, dtype=np.intp)  # position in ``old`` of each item kept
    if len(keep_at):
        old_items = np.fromiter(old, dtype=object, count=len(old))
        for section in sections:
            old_spans = previous.own if section == 0 else previous.sketch
            counts = spans[section, keep_at, 1]
            to = slots(spans[section, keep_at, 0], counts)
            source[to] = slots(old_spans[keep_at, 0], counts)
            items_at[to] = old_items[source[to]]
    for section in sections:
        for b, part in made_parts[section].items():
            first = int(spans[section, b, 0])
            for k, item in enumerate(part):
                items_at[first + k] = item
    items = items_at.tolist()
    matter_items = len(items)
    before: list = []
    after: list = []
    seen_matter = False
    for i in range(system.getNumSubsystems()):
        sub = system.getSubsystem(i)
        if sub is matter:
            seen_matter = True
            continue
        sub.calcDecorativeGeometryAndAppendImpl(
            state, Stage.Topology, after if seen_matter else before
        )
    decorations = before + items + after
    source_all = np.full(len(decorations), -1, dtype=np.intp)
    source_all[len(before) : len(before) + matter_items] = source
    kept = source_all >= 0
    hashes = np.empty(len(decorations), dtype=np.int64)
    bodies = np.empty(len(decorations), dtype=np.intp)
    if kept.any():
        hashes[kept] = previous.geometry.hashes[source_all[kept]]
        bodies[kept] = previous.geometry.bodies[source_all[kept]]
    fresh = np.flatnonzero(~kept)
    new_items = [decorations[k] for k in fresh]
    hashes[fresh] = fingerprints_of(new_items)
    LAST_MADE.update(bodies=made, decorations=len(new_items))
    bodies[fresh] = [_body_of(g) for g in new_items]
    geometry = KeyedGeometry.of_parts(decorations, bodies, hashes, body_names)
    spans[:, :, 0] += len(before)
    serial = getattr(previous.geometry, "serial", None) if previous is not None else None
    return BodyDecorations(
        geometry, spans[0], spans[1], specs, names, parents, settings, source_all, serial
    )


def pair(record: BodyDecorations, drawn) -> None:
    """Pair ``record.geometry`` with ``drawn`` (the KeyedGeometry shown before) as
    ``KeyedGeometry.pair_with`` does: a decoration kept from ``drawn`` pairs with the one it
    was kept from (``match`` would pair them so: the same fingerprint on the same body under
    the same name, in the same order), and only those made now are matched (``match``)
    against the drawn ones not kept, so an edit that leaves most bodies alone is paired at
    O(changed decorations) instead of sorting every fingerprint. Falls back to the whole
    ``pair_with`` when ``record`` was not collected from ``drawn``."""
    geometry = record.geometry
    kept_from = record.kept_from
    if (
        not isinstance(drawn, KeyedGeometry)
        or not len(drawn.hashes)
        or kept_from is None
        or record.kept_serial != drawn.serial
    ):
        geometry.pair_with(drawn)
        return
    pairing = np.full(len(geometry), -1, dtype=np.intp)
    kept = kept_from >= 0
    pairing[kept] = kept_from[kept]
    fresh = np.flatnonzero(~kept)
    if len(fresh):
        free = np.ones(len(drawn), dtype=bool)
        free[kept_from[kept]] = False
        free_at = np.flatnonzero(free)
        found = match(
            _Keys(drawn.bodies[free_at], drawn.hashes[free_at], drawn.body_names),
            _Keys(geometry.bodies[fresh], geometry.hashes[fresh], geometry.body_names),
        )
        if found is None:  # (ambiguous: as pair_with finds it)
            geometry.pair_with(drawn)
            return
        hit = found >= 0
        pairing[fresh[hit]] = free_at[found[hit]]
    geometry.paired = (drawn.serial, pairing)


@dataclass(frozen=True)
class _Keys:
    """Part of a KeyedGeometry's keys, as ``match`` reads them."""

    bodies: np.ndarray
    hashes: np.ndarray
    body_names: tuple | None


def _body_of(decoration) -> int:
    try:
        return int(decoration.getBodyId())
    except Exception:  # noqa: BLE001  (not a decoration: the Scene reports and skips it)
        return 0
