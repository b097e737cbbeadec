"""The plot list's filter finds, through NameSearch, exactly the names a test of every name
finds (in order), for texts matching none, a few or most names, and names or texts with
newlines; after a rename the list's filter is not a test of every name."""

from __future__ import annotations

import pytest

from app.simulation.name_search import NameSearch
from app.simulation.samples import QuantityNames


def _names(n: int) -> list[str]:
    out = []
    for b in range(n):
        out += [f"q[{4 * b + k}] b{b}.q{k}" for k in range(4)]
        out += [f"u[{3 * b + k}] b{b}.u{k}" for k in range(3)]
    return [*out, "kinetic energy", "total energy", "|qerr|"]


TEXTS = [" b7.", " b1", "b1", "q", "u[", "energy", "zzz", "]", ".q0", "|", "y", "[0]", " b299."]


@pytest.mark.parametrize("text", TEXTS)
def test_matches_are_those_of_a_test_of_every_name(text):
    lower = _names(300)
    assert NameSearch(lower).matches(text) == [i for i, n in enumerate(lower) if text in n]


def test_newlines_in_names_or_text_fall_back_to_testing_every_name():
    lower = ["a\nb", "b", "ab", "a"]
    search = NameSearch(lower)
    assert not search.plain
    assert search.matches("b") == [0, 1, 2] and search.matches("a\nb") == [0]
    assert NameSearch(["ab", "b"]).matches("b\na") == []
    assert NameSearch([]).matches("x") == []


def test_a_renamed_table_is_searched_without_testing_every_name():
    names = QuantityNames(_names(2000))
    assert names.matches(" b5.") == [i for i, n in enumerate(names.lower) if " b5." in n]
    renamed = names.changed({35 + k: f"q[{20 + k}] knee.q{k}" for k in range(4)})
    tested: list[str] = []

    class Counting(str):
        def __contains__(self, item):  # (a name tested by ``in``)
            tested.append(item)
            return super().__contains__(item)

    renamed.lower[:] = [Counting(n) for n in renamed.lower]
    assert renamed.matches(" knee.") == [35, 36, 37, 38]
    assert tested == []


def test_names_made_from_searched_ones_have_their_search_made_with_them():
    """A model made from one whose names were searched (an added or removed body: the
    worker makes the new names) has its search made with its names, not at the plot list's
    next filter on the GUI thread."""
    before = QuantityNames(_names(50))
    unsearched = QuantityNames(_names(51), before, kept=[(0, 0, 350)])
    assert unsearched._search is None  # (nothing searched yet: made at the first filter)
    before.matches(" b5.")
    after = QuantityNames(_names(51), before, kept=[(0, 0, 350)])
    made = after._search
    assert made is not None and made.lower is after.lower
    assert after.matches(" b50.") == [i for i, n in enumerate(after.lower) if " b50." in n]
    assert after._search is made
