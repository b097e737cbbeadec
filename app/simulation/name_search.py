"""NameSearch: which of many lower-case names contain a piece of text, found with one
``str.find`` per match in the names joined by newlines instead of a test per name.

The plot list of a 20,000-body model filters 200,000 quantity names by a body's name
(`` b12.``): a few matches among them. Joined once (``"\\n".join``), the text is searched at C
speed and each hit is mapped back to its name by the names' start offsets (``bisect``). Text
holding a newline, or names that do, are tested name by name; so are texts that match many
names (past ``SCAN_ABOVE`` of them, one comprehension is faster than a find per match).
"""

from __future__ import annotations

import bisect
import itertools

#: Above this share of the names matched, the rest is found by testing every name.
SCAN_ABOVE = 1 / 16


class NameSearch:
    """The names ``lower`` (lower-case strings) joined for searching; see the module
    docstring."""

    def __init__(self, lower: list[str]) -> None:
        self.lower = lower
        self.text = "\n".join(lower)
        lengths = map(len, lower)
        #: the offset of each name in ``text``
        self.starts = list(itertools.accumulate((n + 1 for n in lengths), initial=0))[:-1]
        #: no name holds a newline (each newline in ``text`` separates two names)
        self.plain = self.text.count("\n") == max(0, len(lower) - 1)

    def matches(self, low: str) -> list[int]:
        """The positions of the names that contain ``low`` (lower case, not empty)."""
        lower = self.lower
        if "\n" in low or not self.plain:
            return [i for i, name in enumerate(lower) if low in name]
        starts, find = self.starts, self.text.find
        limit = max(16, int(SCAN_ABOVE * len(lower)))
        out: list[int] = []
        at = find(low)
        while at >= 0:
            i = bisect.bisect_right(starts, at) - 1
            out.append(i)
            if len(out) > limit:  # many matches: test the rest name by name
                return out + [j for j in range(i + 1, len(lower)) if low in lower[j]]
            at = find(low, starts[i] + len(lower[i]) + 1)
        return out
