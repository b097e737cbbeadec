"""The model tree's depth: the full depth, or, asked whether it is deeper than a limit, an
answer as soon as one body is deeper (a 20,000-body chain listed parents first is known to
be too deep to nest at its 17th body, not after reading every body)."""

from __future__ import annotations

import random
from dataclasses import dataclass

from app.tree.tree_model import MAX_NESTED_DEPTH, tree_depth


@dataclass
class Body:
    name: str
    parent: str


class Counted(list):
    """Bodies that count how many of them were read (iterated over)."""

    read = 0

    def __iter__(self):
        for b in super().__iter__():
            self.read += 1
            yield b


def chain(n: int) -> list[Body]:
    return [Body(f"b{i}", "Ground" if i == 0 else f"b{i - 1}") for i in range(n)]


def star(n: int, arms: int) -> list[Body]:
    """``arms`` chains of ``n // arms`` bodies from Ground."""
    out = []
    for a in range(arms):
        out += [
            Body(f"a{a}_{i}", "Ground" if i == 0 else f"a{a}_{i - 1}") for i in range(n // arms)
        ]
    return out


def test_full_depth_with_and_without_a_limit():
    for bodies, depth in ((chain(40), 40), (star(60, 6), 10), ([], 0)):
        assert tree_depth(bodies) == depth
        shuffled = list(bodies)
        random.Random(1).shuffle(shuffled)
        assert tree_depth(shuffled) == depth
        for order in (bodies, shuffled):
            limited = tree_depth(order, MAX_NESTED_DEPTH)
            if depth <= MAX_NESTED_DEPTH:
                assert limited == depth
            else:
                assert limited > MAX_NESTED_DEPTH


def test_a_deep_chain_is_known_deeper_than_the_limit_at_its_first_body_past_it():
    bodies = Counted(chain(20000))
    assert tree_depth(bodies, MAX_NESTED_DEPTH) > MAX_NESTED_DEPTH
    assert bodies.read == MAX_NESTED_DEPTH + 1
    shallow = Counted(star(2000, 200))  # ten levels: every body is read
    assert tree_depth(shallow, MAX_NESTED_DEPTH) == 10
    assert shallow.read == 2000
