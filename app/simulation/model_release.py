"""A dropped model freed by reference counting: the engine's reference cycles broken.

An engine System is a web of reference cycles: the System holds its subsystems and each
subsystem its System, the matter subsystem holds its mobilized bodies and each body its
matter subsystem, a force subsystem its elements and each element its subsystem. Dropping the
last outside reference to a System therefore frees nothing; only a full collection of the
cyclic garbage collector does, and for a 20,000-body model that walks every object of the
studio (the model shown then included) while holding every thread.

``break_cycles`` empties the attribute dictionaries of those owners (the System, its
subsystems, the matter's bodies and constraints, the force elements) of a model nobody uses
any more: what they held is then freed by reference counting as soon as the last outside
reference goes, in a few hundredths of a second instead of a collection. Only for a model no
thread uses and nothing will read again (a stopped session's): the emptied objects are
unusable.
"""

from __future__ import annotations

import weakref


def _owners(system) -> list:
    """The objects of ``system`` that take part in its reference cycles."""
    out = [system]
    for i in range(system.getNumSubsystems()):
        sub = system.getSubsystem(i)
        out.append(sub)
        if hasattr(sub, "getNumBodies"):
            out.extend(sub.getMobilizedBody(b) for b in range(sub.getNumBodies()))
            out.extend(sub.getConstraint(c) for c in range(sub.getNumConstraints()))
        if hasattr(sub, "getNumForces"):
            out.extend(sub.getForce(f) for f in range(sub.getNumForces()))
    return out


def break_cycles(systems) -> list[weakref.ref]:
    """Empty the cycle-forming objects of each System in ``systems`` (distinct or not) and
    return weak references to the Systems: dead once the last outside references to them
    went (see the module docstring)."""
    refs = []
    seen: set[int] = set()
    for system in systems:
        if system is None or id(system) in seen:
            continue
        seen.add(id(system))
        owners = _owners(system)
        refs.append(weakref.ref(system))
        for obj in owners:
            values = getattr(obj, "__dict__", None)
            if values is not None:
                values.clear()
    return refs
