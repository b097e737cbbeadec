# ruff: noqa: N806  (Simbody monogram names: X_PF, X_BM)
"""Edits a built System takes in place, as Simbody lets its values be set on an existing one.

An edit that changes only bodies' mass properties, mobilizer frames (X_PF, X_BM) or initial
q/u, the Gravity force's direction and magnitude, or the System's hints leaves the System's
bodies, mobilizers and State layout as they are: ``plan(old, new)`` finds such an edit
(None for any other), and ``apply(built, edit)`` sets the new values on the existing
MobilizedBody and Force handles (``setDefaultMassProperties``, ``setDefaultInboardFrame``,
``setDefaultQ``, ``setDefaultDownDirection``, ...), realizes the System's Topology and
Model again (only the changed bodies' topology rows are made again) and makes the
BuiltModel's initial State. The cost is O(changed bodies) plus that realization, where a
rebuild from scratch makes every body, template and decoration again. An edit that only
renames bodies (``renames``) changes nothing of the System at all (``renamed``).

``apply`` checks the new values as ``build`` does (the same BuildError, naming the body) and
on a refusal puts the old values back before raising, so the System is the one it was.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from app.document.builder import (
    BuildError,
    _check_dynamics,
    _check_quaternion,
    apply_hints,
    mass_properties,
    transform,
)
from app.document.specs import BodySpec, ElementSpec, Hints, ModelData

#: Body fields an edit may change in place; the others (name, parent, mobilizer, options,
#: geometry, contact surfaces) need a new System.
BODY_FIELDS = ("mass", "com", "inertia", "X_PF", "X_BM", "q", "u")
#: Force types whose arguments an edit may change in place.
GRAVITY = "Gravity"


@dataclass(frozen=True)
class InPlaceEdit:
    """What ``plan`` found: (index, old, new) of each changed body and force, the old and new
    hints, and whether the drawing changes (frames or mass centres move, the hints change)."""

    bodies: tuple[tuple[int, BodySpec, BodySpec], ...]
    forces: tuple[tuple[int, ElementSpec, ElementSpec], ...]
    hints: tuple[Hints, Hints] | None
    redraw: bool

    def reversed(self) -> InPlaceEdit:
        """The edit that puts the old values back."""
        return InPlaceEdit(
            tuple((i, new, old) for i, old, new in self.bodies),
            tuple((i, new, old) for i, old, new in self.forces),
            None if self.hints is None else (self.hints[1], self.hints[0]),
            self.redraw,
        )


def _same_but_values(old: BodySpec, new: BodySpec) -> bool:
    """Whether ``new`` differs from ``old`` only in BODY_FIELDS (and keeps a given q)."""
    if new.q is None and old.q is not None:
        return False  # (the type's default q: rebuilt, as its Euler-angle form differs)
    return replace(new, **{f: getattr(old, f) for f in BODY_FIELDS}) == old


def _drawn_differently(old: BodySpec, new: BodySpec) -> bool:
    """Whether the default sketch of the body changes (frames, mass centre, mass 0 or not)."""
    return (
        old.X_PF != new.X_PF
        or old.X_BM != new.X_BM
        or old.com != new.com
        or (float(old.mass) > 0.0) != (float(new.mass) > 0.0)
    )


def plan(old: ModelData | None, new: ModelData) -> InPlaceEdit | None:
    """The in-place edit that turns a System built from ``old`` into one of ``new``, or None
    when ``new`` needs a new System (O(n) identity tests: the specs are immutable)."""
    if old is None or len(old.bodies) != len(new.bodies) or len(old.forces) != len(new.forces):
        return None
    if (
        old.ground_geometry != new.ground_geometry
        or old.constraints != new.constraints
        or old.measures != new.measures
        or old.ground_contact_surfaces != new.ground_contact_surfaces
        or old.contact != new.contact
    ):
        return None
    changed = [
        (i, a, b) for i, (a, b) in enumerate(zip(old.bodies, new.bodies, strict=True)) if a is not b
    ]
    bodies = []
    for i, a, b in changed:
        if a == b:
            continue
        if not _same_but_values(a, b):
            return None
        bodies.append((i, a, b))
    forces = []
    for i, (a, b) in enumerate(zip(old.forces, new.forces, strict=True)):
        if a is b or a == b:
            continue
        if not (a.type == b.type == GRAVITY and replace(b, args=a.args) == a):
            return None
        forces.append((i, a, b))
    hints = None if old.hints == new.hints else (old.hints, new.hints)
    redraw = hints is not None or any(_drawn_differently(a, b) for _, a, b in bodies)
    return InPlaceEdit(tuple(bodies), tuple(forces), hints, redraw)


#: At most this many bodies renamed by one edit are recognised as renames (``renames``).
MAX_RENAMES = 8


def renames(old: ModelData | None, new: ModelData) -> dict[str, str] | None:
    """The bodies renamed (old name -> new name) when ``new`` is ``old`` with only bodies
    renamed (and the references to them, as ``ModelDocument.rename_body`` renames them), else
    None. The engine System knows no names, so such an edit needs no change of the System."""
    if old is None or len(old.bodies) != len(new.bodies):
        return None
    pairs = [
        (a.name, b.name)
        for a, b in zip(old.bodies, new.bodies, strict=True)
        if a is not b and a.name != b.name
    ]
    if not pairs or len(pairs) > MAX_RENAMES:
        return None
    from app.document.document import renamed_content

    # (``new`` is a validated content: equal to ``old`` renamed, it is that rename. Names
    # swapped by several edits are not told apart here: renamed in turn they never equal it.)
    data = old
    for a, b in pairs:
        data = renamed_content(data, a, b)
    return dict(pairs) if data == new else None


def renamed(built, names: dict[str, str], new: ModelData):
    """A BuiltModel of ``built``'s very System with its bodies renamed (``names``: old ->
    new) and ``new`` as its content."""
    import copy

    out = copy.copy(built)
    out.data = new.copy()
    out.mobilized_bodies = {names.get(k, k): mb for k, mb in built.mobilized_bodies.items()}
    out.body_name_of_index = [names.get(k, k) for k in built.body_name_of_index]
    out.contact_surfaces = [(names.get(k, k), i) for k, i in built.contact_surfaces]
    return out


def apply(built, edit: InPlaceEdit, new: ModelData) -> None:
    """Set ``edit``'s new values on ``built``'s System, realize it again and make
    ``built.state`` (the initial State of ``new``); ``built.data`` becomes ``new``. A
    BuildError leaves ``built`` with its old values (realized again)."""
    old = built.data
    try:
        _set_values(built, edit)
        _realize(built, new)
    except BuildError:
        _set_values(built, edit.reversed())
        _realize(built, old)
        raise
    built.data = new.copy()


def _set_values(built, edit: InPlaceEdit) -> None:
    """Set the new values of ``edit`` (every one checked before the first is set)."""
    from engine.common.exceptions import SimTKError

    steps = []
    for _, old, b in edit.bodies:
        mobod = built.mobilized_bodies[b.name]
        try:
            if (old.mass, old.com, old.inertia) != (b.mass, b.com, b.inertia):
                steps.append((mobod.setDefaultMassProperties, mass_properties(b)))
            if old.X_PF != b.X_PF:
                steps.append((mobod.setDefaultInboardFrame, transform(b.X_PF)))
            if old.X_BM != b.X_BM:
                steps.append((mobod.setDefaultOutboardFrame, transform(b.X_BM)))
            if b.q is not None and old.q != b.q:
                _check_quaternion(b)
                steps.append((mobod.setDefaultQ, np.asarray(b.q, dtype=np.float64)))
        except (SimTKError, ValueError, TypeError, ArithmeticError) as exc:
            raise BuildError(f"body {b.name!r}", str(exc)) from exc
    for i, _, e in edit.forces:
        force = built.force_elements[i]
        steps.append((force.setDefaultDownDirection, np.asarray(e.args["down"], dtype=float)))
        steps.append((force.setDefaultMagnitude, float(e.args["magnitude"])))
    try:
        for setter, value in steps:
            setter(value)
    except (SimTKError, ValueError, TypeError, ArithmeticError) as exc:
        raise BuildError("system", str(exc)) from exc
    if edit.hints is not None:
        apply_hints(built.system, edit.hints[1])


def _realize(built, data: ModelData) -> None:
    """Realize the System's Topology and Model again and make its initial State of
    ``data`` (initial u set, checked through Acceleration as ``build`` does)."""
    from engine.common.exceptions import SimTKError

    system = built.system
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        try:
            # a System whose topology the edit invalidated makes a new default State: that
            # one itself is the initial State (no copy of its cache); else the default State
            # is the model's before, kept by it, and a copy is made
            fresh = not system.systemTopologyHasBeenRealized()
            state = system.realizeDefaultState() if fresh else system.realizeTopology()
            system.realizeModel(state)
            for b in data.bodies:
                if b.u is not None:
                    built.mobilized_bodies[b.name].setU(state, np.asarray(b.u, dtype=np.float64))
        except (SimTKError, ArithmeticError) as exc:
            raise BuildError("system", str(exc)) from exc
    _check_dynamics(data, system, state, realize_copy=False)  # (its variables stay as set)
    built.state = state
