"""ModelDocument: the editable model (Qt-free), its edits, validation and change notifications.

Every edit goes through a method here. The method applies the edit to a copy, validates the
whole copy (``validation.validate``) and only then replaces the content and notifies the
listeners, so an invalid edit raises ``DocumentError`` and changes nothing.

Listeners are called as ``fn(change)`` with ``change.kind``:

- ``"topology"``: bodies, mobilizer types or parents, constraints or forces were added or
  removed: rebuild the System and carry q/u over by body name (``builder.carry_state``);
- ``"parameters"``: numbers changed (mass properties, frames, geometry, colours, element
  arguments, names) but not the State layout: rebuild and copy q/u as they are;
- ``"hints"``: only System hints changed (``builder.apply_hints`` needs no rebuild);
- ``"initial_state"``: a body's initial q/u changed (affects the initial State only).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from app.document.registry import MOBILIZER_DEFAULT_OPTIONS, element_types
from app.document.specs import (
    GROUND,
    BodySpec,
    ContactSettings,
    ContactSurfaceSpec,
    ElementSpec,
    GeometrySpec,
    Hints,
    ModelData,
    ground_plane_frame,
)
from app.document.validation import DocumentError, validate

CHANGE_KINDS = ("topology", "parameters", "hints", "initial_state")
ELEMENT_SECTIONS = ("constraints", "forces", "measures")

#: Body fields whose change alters the System topology (State layout).
TOPOLOGY_FIELDS = {"parent", "mobilizer"}
INITIAL_STATE_FIELDS = {"q", "u"}


@dataclass(frozen=True)
class Change:
    """What an edit changed: ``kind`` (one of CHANGE_KINDS), ``target`` (a body name,
    ``"constraints"``, ``"forces"``, ``"hints"``, ``"document"``) and the changed ``fields``."""

    kind: str
    target: str = ""
    fields: tuple[str, ...] = ()


Listener = Callable[[Change], None]


class ModelDocument:
    """A multibody model being edited. ``document.data`` is the current (read-only) content.
    ``base_dir`` is the directory relative file names in it (meshes) start from (the file's
    directory once loaded; None: the current directory)."""

    base_dir: Path | None = None

    def __init__(self, data: ModelData | None = None, validated: bool = False) -> None:
        """``validated``: ``data`` has just passed validate() (the loader's own check)."""
        data = ModelData() if data is None else data.copy()
        if not validated:
            validate(data)
        self._data = data
        self._children_cache: tuple | None = None  # (content, children map)
        self._listeners: list[Listener] = []
        self.revision = 0  # increases with every edit

    # -- content ----------------------------------------------------------------------------------
    @property
    def data(self) -> ModelData:
        return self._data

    @property
    def name(self) -> str:
        return self._data.name

    @property
    def bodies(self) -> list[BodySpec]:
        return list(self._data.bodies)

    @property
    def constraints(self) -> list[ElementSpec]:
        return list(self._data.constraints)

    @property
    def forces(self) -> list[ElementSpec]:
        return list(self._data.forces)

    @property
    def measures(self) -> list[ElementSpec]:
        return list(self._data.measures)

    def measure_names(self) -> list[str]:
        return [m.name for m in self._data.measures]

    def unique_measure_name(self, base: str) -> str:
        names = set(self.measure_names())
        if base not in names:
            return base
        k = 2
        while f"{base}{k}" in names:
            k += 1
        return f"{base}{k}"

    @property
    def hints(self) -> Hints:
        return self._data.hints

    @property
    def ground_geometry(self) -> list[GeometrySpec]:
        return list(self._data.ground_geometry)

    def body(self, name: str) -> BodySpec:
        try:
            return self._data.body(name)
        except KeyError:
            raise DocumentError("name", f"no body named {name!r}") from None

    def body_names(self) -> list[str]:
        return [b.name for b in self._data.bodies]

    def _children_map(self) -> dict[str, list[str]]:
        """Each body's (and Ground's) children's names, in document order; made once per
        content (the form of a body asks for its descendants on every refresh)."""
        cached = self._children_cache
        if cached is not None and cached[0] is self._data:
            return cached[1]
        children: dict[str, list[str]] = {}
        for b in self._data.bodies:
            children.setdefault(b.parent, []).append(b.name)
        self._children_cache = (self._data, children)
        return children

    def _carry_children_map(self, data: ModelData, added=None, gone=frozenset()) -> None:
        """Give ``data`` (the content about to be committed: this content with the bodies
        named in ``gone`` left out, or ``added`` appended last) the children map made from
        this content's, so an edit's listeners do not make it again from every body. A
        body appended last is its parent's last child in document order."""
        old = self._children_map()
        children = {p: kids for p, kids in old.items() if p not in gone}
        if gone:
            parents = {self._data.bodies[i].parent for i in self._indices_of(gone)}
            for p in parents - gone:
                kept = [c for c in children.get(p, ()) if c not in gone]
                if kept:
                    children[p] = kept
                else:
                    children.pop(p, None)
        if added is not None:
            children[added.parent] = [*children.get(added.parent, ()), added.name]
        self._children_cache = (data, children)

    def _indices_of(self, names) -> list[int]:
        return [i for i, b in enumerate(self._data.bodies) if b.name in names]

    def children(self, name: str) -> list[str]:
        return list(self._children_map().get(name, ()))

    def descendants(self, name: str) -> list[str]:
        """The bodies outboard of ``name``, breadth first (O(n) once per content, then
        O(descendants))."""
        children = self._children_map()
        out: list[str] = []
        queue = deque(children.get(name, ()))
        while queue:
            n = queue.popleft()
            out.append(n)
            queue.extend(children.get(n, ()))
        return out

    def to_dict(self) -> dict:
        return self._data.to_dict()

    def snapshot(self) -> ModelData:
        return self._data.copy()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ModelDocument) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    # -- listeners --------------------------------------------------------------------------------
    def add_listener(self, fn: Listener) -> None:
        self._listeners.append(fn)

    def remove_listener(self, fn: Listener) -> None:
        if fn in self._listeners:
            self._listeners.remove(fn)

    def _commit(self, candidate: ModelData, change: Change) -> None:
        validate(candidate, previous=self._data)
        self._data = candidate
        self.revision += 1
        for fn in list(self._listeners):
            fn(change)

    # -- whole document ---------------------------------------------------------------------------
    def restore(self, data: ModelData, kind: str = "topology", target: str = "document") -> None:
        """Replace the whole content (undo/redo, open); validated like any edit."""
        self._commit(data.copy(), Change(kind, target))

    def set_name(self, name: str) -> None:
        d = self._data.copy()
        d.name = str(name)
        self._commit(d, Change("parameters", "document", ("name",)))

    # -- bodies -----------------------------------------------------------------------------------
    def unique_body_name(self, base: str = "body") -> str:
        names = set(self.body_names())
        if base not in names and base != GROUND:
            return base
        k = 1
        while f"{base}{k}" in names:
            k += 1
        return f"{base}{k}"

    def add_body(self, body: BodySpec, index: int | None = None) -> None:
        d = self._data.copy()
        if any(b.name == body.name for b in d.bodies):
            raise DocumentError("name", f"a body named {body.name!r} already exists", body.name)
        last = index is None or index >= len(d.bodies)
        d.bodies.insert(len(d.bodies) if index is None else index, body)
        if last:
            self._carry_children_map(d, added=body)
        self._commit(d, Change("topology", body.name, ("bodies",)))

    def remove_body(self, name: str) -> list[str]:
        """Remove body ``name``, its descendants and the constraints and forces that use them;
        returns the removed body names."""
        self.body(name)
        gone = {name, *self.descendants(name)}
        removed = [b.name for b in self._data.bodies if b.name in gone]
        d = self._data.copy()
        d.bodies = [b for b in d.bodies if b.name not in gone]
        for section in ELEMENT_SECTIONS:
            kept = []
            for e in getattr(d, section):
                spec = element_types(section).get(e.type)
                used = {e.args.get(a) for a in spec.body_args()} if spec else set()
                if not used & gone:
                    kept.append(e)
            setattr(d, section, kept)
        d.measures = _without_dangling_measures(d.measures)
        self._carry_children_map(d, gone=gone)
        self._commit(d, Change("topology", name, ("bodies",)))
        return removed

    def rename_body(self, old: str, new: str) -> None:
        """Rename a body, updating its children's parent and every constraint and force that
        names it."""
        self.body(old)  # raises if there is no such body
        if new == old:
            return
        if new in self.body_names():
            raise DocumentError("name", f"a body named {new!r} already exists", old)
        d = renamed_content(self._data, old, new)
        self._carry_renamed_children_map(d, old, new)
        self._commit(d, Change("parameters", new, ("name",)))

    def _carry_renamed_children_map(self, data: ModelData, old: str, new: str) -> None:
        """Give ``data`` (this content with body ``old`` renamed ``new``) the children map of
        this content, if made, with the renamed body under its new name, in its parent's
        list and as the parent of its children (the other bodies' lists are shared)."""
        cached = self._children_cache
        if cached is None or cached[0] is not self._data:
            return  # not made for this content: made from the new one when asked
        children = dict(cached[1])
        parent = self._data.body(old).parent
        children[parent] = [new if c == old else c for c in children[parent]]
        if old in children:
            children[new] = children.pop(old)
        self._children_cache = (data, children)

    def set_body(self, name: str, **fields) -> None:
        """Change fields of body ``name`` (any BodySpec field but ``name``; use rename_body).

        Changing the mobilizer type resets its options, q and u unless they are given too.
        """
        if "name" in fields:
            raise DocumentError("name", "use rename_body to rename a body", name)
        old = self.body(name)
        if "mobilizer" in fields and fields["mobilizer"] != old.mobilizer:
            fields.setdefault(
                "mobilizer_params", dict(MOBILIZER_DEFAULT_OPTIONS.get(fields["mobilizer"], {}))
            )
            fields.setdefault("q", None)
            fields.setdefault("u", None)
        try:
            new = replace(old, **fields)
        except TypeError as exc:
            raise DocumentError(next(iter(fields), "body"), str(exc), name) from None
        changed = tuple(k for k in fields if getattr(old, k) != getattr(new, k))
        if not changed:
            return
        d = self._data.copy()
        d.bodies[d.body_index(name)] = new
        if "parent" in changed:
            # Keep parents before children (the order bodies are built in).
            d.bodies = _parents_first(d.bodies)
        else:  # the same names and parents: the same children map
            self._carry_children_map(d)
        if set(changed) & TOPOLOGY_FIELDS:
            kind = "topology"
        elif set(changed) <= INITIAL_STATE_FIELDS:
            kind = "initial_state"
        else:
            kind = "parameters"
        self._commit(d, Change(kind, name, changed))

    def set_geometry(self, body: str, geometry: Iterable[GeometrySpec]) -> None:
        """Replace the geometry of ``body`` (or of Ground)."""
        geometry = list(geometry)
        if body == GROUND:
            d = self._data.copy()
            d.ground_geometry = geometry
            self._commit(d, Change("parameters", GROUND, ("geometry",)))
        else:
            self.set_body(body, geometry=tuple(geometry))

    def geometry_of(self, body: str) -> list[GeometrySpec]:
        return self.ground_geometry if body == GROUND else list(self.body(body).geometry)

    # -- contact ----------------------------------------------------------------------------------
    def contact_surfaces_of(self, body: str) -> list[ContactSurfaceSpec]:
        """The contact surfaces of ``body`` (or of Ground)."""
        if body != GROUND:
            self.body(body)  # raises if there is no such body
        return self._data.contact_surfaces_of(body)

    def set_contact_surfaces(self, body: str, surfaces: Iterable[ContactSurfaceSpec]) -> None:
        """Replace the contact surfaces of ``body`` (or of Ground). The State layout does not
        change (a "parameters" change)."""
        surfaces = list(surfaces)
        old = self.contact_surfaces_of(body)
        for k, c in enumerate(surfaces):
            if c.shape == "mesh" and c.params.get("file") and c not in old:
                from app.document.contact_builder import check_contact_mesh

                check_contact_mesh(c, f"contact_surfaces[{k}]", body, self.base_dir)
        if body == GROUND:
            d = self._data.copy()
            d.ground_contact_surfaces = surfaces
            self._commit(d, Change("parameters", GROUND, ("contact_surfaces",)))
        else:
            self.set_body(body, contact_surfaces=tuple(surfaces))

    def add_ground_plane(self, material=None) -> int:
        """Add a ground half space whose surface is the drawn floor (through the origin,
        perpendicular to the up direction, filling the space below it); returns its index
        among Ground's contact surfaces."""
        plane = ContactSurfaceSpec(
            "halfspace", {}, ground_plane_frame(self._data.hints.up), cliques=()
        )
        if material is not None:
            plane = replace(plane, material=material)
        surfaces = [*self._data.ground_contact_surfaces, plane]
        self.set_contact_surfaces(GROUND, surfaces)
        return len(surfaces) - 1

    def set_contact_settings(self, **fields) -> None:
        """Change the System's contact settings (``transition_velocity``,
        ``track_dissipated_energy``)."""
        try:
            settings = replace(self._data.contact, **fields)
        except TypeError as exc:
            raise DocumentError(next(iter(fields), "contact"), str(exc), "contact") from None
        if settings == self._data.contact:
            return
        d = self._data.copy()
        d.contact = settings
        self._commit(d, Change("parameters", "contact", tuple(fields)))

    @property
    def contact(self) -> ContactSettings:
        return self._data.contact

    # -- constraints and forces -------------------------------------------------------------------
    def add_element(self, section: str, element: ElementSpec, index: int | None = None) -> int:
        """Add a constraint (``section="constraints"``), force or measure; returns its index."""
        d = self._data.copy()
        items = getattr(d, _section(section))
        index = len(items) if index is None else index
        items.insert(index, element)
        self._commit(d, Change("topology", section, ("add",)))
        return index

    def remove_element(self, section: str, index: int) -> ElementSpec:
        d = self._data.copy()
        items = getattr(d, _section(section))
        if not 0 <= index < len(items):
            raise DocumentError("index", f"there is no {section[:-1]} {index}", section)
        removed = items.pop(index)
        if section == "measures":  # and every measure built on it
            d.measures = _without_dangling_measures(d.measures)
        self._commit(d, Change("topology", section, ("remove",)))
        return removed

    def set_element(self, section: str, index: int, **fields) -> None:
        """Change ``args`` (merged into the existing arguments) or ``name`` of an element."""
        d = self._data.copy()
        items = getattr(d, _section(section))
        if not 0 <= index < len(items):
            raise DocumentError("index", f"there is no {section[:-1]} {index}", section)
        old = items[index]
        new = old
        if "args" in fields:
            new = replace(new, args={**old.args, **dict(fields.pop("args"))})
        if "name" in fields:
            new = replace(new, name=str(fields.pop("name")))
        if fields:
            raise DocumentError(next(iter(fields)), "only args and name can be changed", section)
        if new == old:
            return
        items[index] = new
        if section == "measures" and new.name != old.name:
            if old.name and new.name in {m.name for m in items if m is not new}:
                raise DocumentError(
                    "name", f"a measure named {new.name!r} already exists", f"measure {index}"
                )
            d.measures = [_renamed_operands(m, old.name, new.name) for m in items]
        self._commit(d, Change("parameters", section, ("args",)))

    # -- hints ------------------------------------------------------------------------------------
    def set_hints(self, **fields) -> None:
        try:
            hints = replace(self._data.hints, **fields)
        except TypeError as exc:
            raise DocumentError(next(iter(fields), "hints"), str(exc), "hints") from None
        if hints == self._data.hints:
            return
        d = self._data.copy()
        d.hints = hints
        kind = "hints"
        if hints.up != self._data.hints.up:
            # ground planes on the old floor follow it to the new one
            old_floor = ground_plane_frame(self._data.hints.up)
            planes = [
                replace(c, X=ground_plane_frame(hints.up))
                if c.shape == "halfspace" and c.X == old_floor
                else c
                for c in d.ground_contact_surfaces
            ]
            if planes != d.ground_contact_surfaces:
                d.ground_contact_surfaces = planes
                kind = "parameters"
        self._commit(d, Change(kind, "hints", tuple(fields)))


def _section(section: str) -> str:
    if section not in ELEMENT_SECTIONS:
        raise DocumentError(
            "section", f"must be 'constraints', 'forces' or 'measures', got {section!r}"
        )
    return section


def _operands(m: ElementSpec) -> list[str]:
    from app.document.measure_types import MEASURE_TYPES, measure_args

    spec = MEASURE_TYPES.get(m.type)
    return [m.args.get(a) for a in measure_args(spec)] if spec else []


def _without_dangling_measures(measures: list[ElementSpec]) -> list[ElementSpec]:
    """Drop the measures whose operands are gone (transitively, in document order)."""
    kept: list[ElementSpec] = []
    names: set[str] = set()
    for m in measures:
        if all(o in names for o in _operands(m)):
            kept.append(m)
            names.add(m.name)
    return kept


def _renamed_operands(m: ElementSpec, old: str, new: str) -> ElementSpec:
    from app.document.measure_types import MEASURE_TYPES, measure_args

    spec = MEASURE_TYPES.get(m.type)
    if spec is None:
        return m
    args = dict(m.args)
    for a in measure_args(spec):
        if args.get(a) == old:
            args[a] = new
    return m if args == m.args else replace(m, args=args)


def _parents_first(bodies: list[BodySpec]) -> list[BodySpec]:
    """Stable order in which every parent comes before its children (if the tree has no loop;
    with a loop the order is left as is and validation refuses it)."""
    placed = {GROUND}
    for b in bodies:  # the usual case, O(n): the list is already parents first
        if b.parent not in placed:
            break
        placed.add(b.name)
    else:
        return list(bodies)
    placed = {GROUND}
    out: list[BodySpec] = []
    pending = list(bodies)
    while pending:
        progress = False
        rest = []
        for b in pending:
            if b.parent in placed:
                out.append(b)
                placed.add(b.name)
                progress = True
            else:
                rest.append(b)
        if not progress:
            return list(bodies)
        pending = rest
    return out


def renamed_content(data: ModelData, old: str, new: str) -> ModelData:
    """A copy of ``data`` with body ``old`` renamed ``new``: its children's parent and every
    constraint, force and measure argument that names it too (not validated: see
    ``ModelDocument.rename_body``)."""
    d = data.copy()
    d.bodies = [
        replace(b, name=new)
        if b.name == old
        else (replace(b, parent=new) if b.parent == old else b)
        for b in d.bodies
    ]
    for section in ELEMENT_SECTIONS:
        out = []
        for e in getattr(d, section):
            spec = element_types(section).get(e.type)
            args = dict(e.args)
            for a in spec.body_args() if spec else ():
                if args.get(a) == old:
                    args[a] = new
            out.append(replace(e, args=args))
        setattr(d, section, out)
    return d
