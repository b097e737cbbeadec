"""The O(n) validation paths decide as the exact per-body checks do (issue 22: loading a
20,000-body chain was quadratic)."""

from __future__ import annotations

import numpy as np
import pytest

from app.document.specs import BodySpec, ModelData
from app.document.validation import (
    DocumentError,
    _clearly_physical,
    check_mass_properties,
    check_parents,
    validate,
)


def _chain(n: int) -> list[BodySpec]:
    return [BodySpec(f"b{i}", "Ground" if i == 0 else f"b{i - 1}") for i in range(n)]


def test_a_long_chain_validates_and_a_loop_at_its_end_is_found():
    bodies = _chain(3000)
    validate(ModelData(bodies=bodies))
    looped = [BodySpec("x", "y"), BodySpec("y", "x"), *bodies]
    with pytest.raises(DocumentError, match="its own ancestor"):
        check_parents(ModelData(bodies=looped))
    # a loop reached through a long tail
    tail = [BodySpec(f"t{i}", f"t{i + 1}") for i in range(500)] + [BodySpec("t500", "t0")]
    with pytest.raises(DocumentError, match="its own ancestor"):
        check_parents(ModelData(bodies=tail))


def test_the_batched_mass_property_check_accepts_only_what_the_exact_check_accepts():
    rng = np.random.default_rng(22)
    bodies = []
    for i in range(400):
        mass = float(rng.choice([0.0, 1e-3, 1.0, 50.0]))
        com = tuple(float(v) for v in rng.normal(0, rng.choice([0.0, 0.1, 2.0]), 3))
        moments = rng.uniform(0, 3, 3) * rng.choice([0.0, 1.0, 1.0])
        products = rng.normal(0, rng.choice([0.0, 0.3, 2.0]), 3)
        bodies.append(BodySpec(f"b{i}", mass=mass, com=com, inertia=(*moments, *products)))
    clearly = _clearly_physical(bodies)
    assert clearly.any() and not clearly.all()
    for body, fine in zip(bodies, clearly, strict=True):
        if fine:  # every body the batch lets through passes the engine's exact check
            check_mass_properties(body.mass, body.com, body.inertia, body.name)
