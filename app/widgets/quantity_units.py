"""The SI unit of each plotted quantity, for the plot's legend: a q, u or udot column's from
its mobilizer (see coordinate_units: rad or m, rad/s or m/s, rad/s^2 or m/s^2, none for a
quaternion component), J for the energies, none for the constraint-error norms (mixed units)
and Measures."""

from __future__ import annotations

import re

from app.widgets.coordinate_units import QUATERNION_MOBILIZERS, q_kinds, u_kinds

ENERGIES = ("kinetic energy", "potential energy", "total energy")
_Q_UNIT = {"angle": "rad", "length": "m", "quat": ""}
_U_UNIT = {"rate": "rad/s", "speed": "m/s"}
_UDOT_UNIT = {"rate": "rad/s²", "speed": "m/s²"}
#: "q[3] link01.q3": the column's kind, and the body and coordinate its label names
_COLUMN = re.compile(r"^(q|u|udot)\[\d+\] (.+)\.[qu](\d+)$")


class QuantityUnits:
    """``unit(column)``: the unit of a sample column of a model with these mobilizer types
    (body -> type name) and q index ((body, which q) -> global index), "" if it has none."""

    def __init__(self, mobilizer_types: dict, q_index: dict) -> None:
        self._types = mobilizer_types
        self._q_index = q_index
        self._nq: dict[str, int] | None = None  # body -> its number of q (counted on use)

    def _count(self, body: str) -> int:
        if self._nq is None:
            self._nq = {}
            for name, _which in self._q_index:
                self._nq[name] = self._nq.get(name, 0) + 1
        return self._nq.get(body, 0)

    def unit(self, column: str) -> str:
        if column in ENERGIES:
            return "J"
        match = _COLUMN.match(column)
        if match is None:
            return ""
        kind, body, k = match.group(1), match.group(2), int(match.group(3))
        mobilizer = self._types.get(body)
        nq = self._count(body) if mobilizer is not None else 0
        if k >= nq:
            return ""
        if kind == "q":
            return _Q_UNIT[q_kinds(mobilizer, nq)[k]]
        quaternion = mobilizer in QUATERNION_MOBILIZERS and nq in (4, 7)
        nu = nq - 1 if quaternion else nq
        if k >= nu:
            return ""
        table = _U_UNIT if kind == "u" else _UDOT_UNIT
        return table[u_kinds(mobilizer, nu)[k]]

    def label(self, column: str) -> str:
        """``column`` with its unit in brackets, for a legend ("total energy (J)")."""
        unit = self.unit(column)
        return f"{column} ({unit})" if unit else column
