"""The model tree looks for the nearest surviving ancestor of a removed selected body one
ancestor at a time: finding the parent reads the bodies up to it, not every body's parent
(a 20,000-body chain made a map of 20,000 parents for every removal); the ancestors it
gives, all of them when asked for, are those of the body in order, Ground last."""

from __future__ import annotations

from app.document import BodySpec, ModelData
from app.tree.tree_widget import ModelTreeWidget


class _CountedBodies(list):
    """The bodies of a model, counting how many are read by iteration."""

    read = 0

    def __iter__(self):
        for body in super().__iter__():
            _CountedBodies.read += 1
            yield body


def _chain(n: int) -> ModelData:
    bodies = [BodySpec(f"b{i}", parent="Ground" if i == 0 else f"b{i - 1}") for i in range(n)]
    data = ModelData(name="chain", bodies=bodies)
    data.bodies = _CountedBodies(data.bodies)
    return data


def test_the_parent_is_found_without_reading_every_body():
    data = _chain(1000)
    _CountedBodies.read = 0
    ancestors = ModelTreeWidget._ancestors("body:b10", data)  # noqa: SLF001
    assert next(iter(ancestors)) == "b9"
    assert _CountedBodies.read <= 11


def test_every_ancestor_in_order():
    data = _chain(30)
    got = list(ModelTreeWidget._ancestors("body:b20", data))  # noqa: SLF001
    assert got == [f"b{i}" for i in range(19, -1, -1)] + ["Ground"]
    assert list(ModelTreeWidget._ancestors("body:b2", data)) == ["b1", "b0", "Ground"]  # noqa: SLF001
    assert list(ModelTreeWidget._ancestors("forces:0", data)) == []  # noqa: SLF001
