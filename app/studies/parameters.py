"""Study parameters: ``--set`` sweeps, ``--perturb`` distributions and paths into a model document.

A *parameter path* names one number in the model document (the ``"model"`` object of a
``.mbs.json`` file), as dot-separated segments:

- the first segment is a body name (``upper.mass``), an element name from the constraints,
  forces or measures (``gravity.magnitude`` reads the element's ``args``), or a top-level key
  of the model (``hints.time_scale``, ``forces[0].args.magnitude``);
- later segments are keys, each optionally followed by list indices (``com[1]``,
  ``X_PF.p[1]``); a trailing number on a list-valued key is an index too (``q0`` is ``q[0]``,
  ``com1`` is ``com[1]``).

A body's ``q``/``u`` that the document leaves to the mobilizer's defaults is filled in from the
built model before it is changed (see :func:`fill_default_state`).

Sweep values (``PATH=VALUES``): ``a:b:n`` is n evenly spaced values from a to b inclusive,
``v1,v2,...`` a list, ``v`` one value. Perturbations (``PATH~DIST``) add a random draw to the
value: ``normal(mean,std)`` or ``uniform(low,high)``.

A study's runs are the Cartesian product of the sweeps (the first ``--set`` varies slowest),
each repeated ``samples`` times with fresh perturbation draws. Run ``i`` draws from
``numpy.random.default_rng(SeedSequence(seed, spawn_key=(i,)))``, so a run's values depend on
the seed and its index only, never on which worker runs it or in what order.
"""

from __future__ import annotations

import copy
import itertools
import math
import re
from dataclasses import dataclass, field

import numpy as np


class ParameterError(ValueError):
    """A ``--set``/``--perturb`` text or a parameter path that cannot be used; the message
    says what is wrong and what is expected."""


_SEGMENT = re.compile(r"^([^\[\]]+)((?:\[\d+\])*)$")
_TRAILING_INDEX = re.compile(r"^([A-Za-z_]+?)(\d+)$")
_TOP_LEVEL = ("bodies", "forces", "constraints", "measures", "hints", "ground_geometry", "name")
_ELEMENT_SECTIONS = ("constraints", "forces", "measures")


@dataclass(frozen=True)
class ParameterPath:
    """A parsed parameter path (``text`` as the user wrote it). ``resolve`` turns it into the
    concrete JSON path (keys and list indices) inside one model dict."""

    text: str
    segments: tuple[tuple[str, tuple[int, ...]], ...]

    @classmethod
    def parse(cls, text: str) -> ParameterPath:
        text = text.strip()
        if not text:
            raise ParameterError("empty parameter path (expected e.g. upper.mass or lower.q0)")
        segments = []
        for part in text.split("."):
            m = _SEGMENT.match(part)
            if not m:
                raise ParameterError(
                    f"bad parameter path {text!r}: segment {part!r} is not NAME or NAME[i]"
                )
            indices = tuple(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
            segments.append((m.group(1), indices))
        if len(segments) < 2 and segments[0][0] not in _TOP_LEVEL:
            raise ParameterError(
                f"bad parameter path {text!r}: expected BODY.FIELD or ELEMENT.ARG "
                "(e.g. upper.mass, lower.q0, gravity.magnitude)"
            )
        return cls(text, tuple(segments))

    def __str__(self) -> str:
        return self.text

    def resolve(self, model: dict) -> tuple:
        """The concrete path (a tuple of dict keys and list indices) of this parameter in the
        model dict ``model``; raises ParameterError naming what does not exist."""
        (first, first_idx), rest = self.segments[0], list(self.segments[1:])
        if first in _TOP_LEVEL:
            path: list = [first, *first_idx]
        else:
            path = self._named(model, first)
            if first_idx:
                raise ParameterError(f"{self.text}: {first!r} names a body or element, not a list")
        node = _walk(model, path, self.text)
        for key, indices in rest:
            if isinstance(node, dict) and key not in node:
                if path[0] in _ELEMENT_SECTIONS and len(path) == 2 and "args" in node:
                    path.append("args")  # an element's numbers are its arguments
                    node = node["args"]
                m = _TRAILING_INDEX.match(key)
                if key not in node and m and isinstance(node.get(m.group(1)), list):
                    key, indices = m.group(1), (int(m.group(2)), *indices)
            path.append(key)
            path.extend(indices)
            node = _walk(model, path, self.text)
        if isinstance(node, bool) or not isinstance(node, int | float):
            raise ParameterError(
                f"{self.text}: is {_describe(node)}, not a number (name one number, e.g. "
                "com[1] rather than com)"
            )
        return tuple(path)

    def _named(self, model: dict, name: str) -> list:
        for i, body in enumerate(model.get("bodies", [])):
            if body.get("name") == name:
                return ["bodies", i]
        for section in _ELEMENT_SECTIONS:
            for i, element in enumerate(model.get(section, [])):
                if element.get("name") == name:
                    return [section, i]
        bodies = [b.get("name") for b in model.get("bodies", [])]
        elements = [
            e.get("name") for s in _ELEMENT_SECTIONS for e in model.get(s, []) if e.get("name")
        ]
        raise ParameterError(
            f"{self.text}: no body or named element {name!r} in the model "
            f"(bodies: {', '.join(bodies) or 'none'}; elements: {', '.join(elements) or 'none'})"
        )


def _describe(node) -> str:
    if isinstance(node, dict):
        return f"an object with keys {', '.join(node)}"
    if isinstance(node, list):
        return f"a list of {len(node)}"
    return repr(node)


def _walk(model: dict, path: list, text: str):
    node = model
    for i, key in enumerate(path):
        where = _path_text(path[: i + 1])
        if isinstance(key, int):
            if not isinstance(node, list):
                raise ParameterError(f"{text}: {where} is not a list")
            if key >= len(node):
                raise ParameterError(f"{text}: {where} is out of range (length {len(node)})")
        elif not isinstance(node, dict) or key not in node:
            keys = ", ".join(node) if isinstance(node, dict) else ""
            raise ParameterError(
                f"{text}: {where} does not exist" + (f" (there is: {keys})" if keys else "")
            )
        elif node[key] is None:
            raise ParameterError(f"{text}: {where} is not set in the model")
        node = node[key]
    return node


def _path_text(path) -> str:
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else key)
    return out


def get_value(model: dict, path: tuple) -> float:
    node = model
    for key in path:
        node = node[key]
    return float(node)


def set_value(model: dict, path: tuple, value: float) -> None:
    node = model
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = float(value)


def fill_default_state(model: dict, defaults: dict[str, tuple[list, list]]) -> dict:
    """A copy of ``model`` whose bodies without ``q``/``u`` get them from ``defaults``
    (body name -> (q, u) of the built model's default State), so ``lower.q0`` can be set."""
    model = copy.deepcopy(model)
    for body in model.get("bodies", []):
        q, u = defaults.get(body.get("name"), (None, None))
        if body.get("q") is None and q is not None:
            body["q"] = [float(v) for v in q]
        if body.get("u") is None and u is not None:
            body["u"] = [float(v) for v in u]
    return model


# -- sweep values and distributions ------------------------------------------------------------
def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ParameterError(f"{what}: {text.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise ParameterError(f"{what}: {text.strip()!r} is not a finite number")
    return value


def parse_values(text: str, what: str = "values") -> tuple[float, ...]:
    """``a:b:n`` (n evenly spaced values, a and b included), ``v1,v2,...`` or ``v``."""
    text = text.strip()
    if not text:
        raise ParameterError(f"{what}: no values (expected a:b:n, v1,v2,... or v)")
    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise ParameterError(f"{what}: range {text!r} must be START:STOP:COUNT")
        start, stop = _number(parts[0], what), _number(parts[1], what)
        try:
            count = int(parts[2])
        except ValueError:
            raise ParameterError(f"{what}: COUNT in {text!r} must be a whole number") from None
        if count < 1:
            raise ParameterError(f"{what}: COUNT in {text!r} must be at least 1")
        if count == 1:
            return (start,)
        return tuple(float(v) for v in np.linspace(start, stop, count))
    return tuple(_number(v, what) for v in text.split(","))


@dataclass(frozen=True)
class Sweep:
    """``--set PATH=VALUES``: the parameter takes each of ``values`` in turn."""

    path: ParameterPath
    values: tuple[float, ...]

    @classmethod
    def parse(cls, text: str) -> Sweep:
        name, sep, values = text.partition("=")
        if not sep:
            raise ParameterError(
                f"--set {text!r}: expected PATH=VALUES (e.g. upper.mass=1:5:9 or lower.q0=0.1,0.2)"
            )
        path = ParameterPath.parse(name)
        return cls(path, parse_values(values, f"--set {path}"))


DISTRIBUTIONS = {"normal": ("mean", "std"), "uniform": ("low", "high")}


@dataclass(frozen=True)
class Perturbation:
    """``--perturb PATH~DIST(a,b)``: a draw from DIST is added to the parameter's value."""

    path: ParameterPath
    distribution: str
    args: tuple[float, ...]

    @classmethod
    def parse(cls, text: str) -> Perturbation:
        name, sep, dist = text.partition("~")
        usage = "expected PATH~normal(MEAN,STD) or PATH~uniform(LOW,HIGH)"
        if not sep:
            raise ParameterError(f"--perturb {text!r}: {usage}")
        path = ParameterPath.parse(name)
        m = re.fullmatch(r"\s*([a-z]+)\s*\((.*)\)\s*", dist)
        if not m or m.group(1) not in DISTRIBUTIONS:
            raise ParameterError(f"--perturb {text!r}: {usage}")
        kind = m.group(1)
        args = tuple(_number(a, f"--perturb {path}") for a in m.group(2).split(","))
        if len(args) != 2:
            names = ",".join(a.upper() for a in DISTRIBUTIONS[kind])
            raise ParameterError(f"--perturb {text!r}: {kind} takes two numbers: {kind}({names})")
        if kind == "normal" and args[1] < 0:
            raise ParameterError(f"--perturb {text!r}: the standard deviation must be >= 0")
        if kind == "uniform" and args[1] < args[0]:
            raise ParameterError(f"--perturb {text!r}: uniform needs LOW <= HIGH")
        return cls(path, kind, args)

    def draw(self, rng: np.random.Generator) -> float:
        a, b = self.args
        if self.distribution == "normal":
            return float(rng.normal(a, b))
        return float(rng.uniform(a, b))

    def __str__(self) -> str:
        return f"{self.path}~{self.distribution}({self.args[0]!r},{self.args[1]!r})"


@dataclass(frozen=True)
class RunSpec:
    """One run of a study: its index, sweep point, replicate (Monte-Carlo sample) and the
    values written into the model (parameter path text -> value), with the perturbation
    draws that went into them (path text -> draw)."""

    run: int
    point: int
    replicate: int
    values: dict[str, float] = field(default_factory=dict)
    deltas: dict[str, float] = field(default_factory=dict)


def plan_runs(
    model: dict,
    sweeps: list[Sweep],
    perturbations: list[Perturbation],
    samples: int = 1,
    seed: int = 0,
) -> list[RunSpec]:
    """Every run of the study, in run-index order (see the module docstring). ``model`` is the
    model dict the paths are checked against (ParameterError if one does not resolve)."""
    if samples < 1:
        raise ParameterError(f"--samples must be at least 1, got {samples}")
    seen: set[str] = set()
    for s in sweeps:
        if s.path.text in seen:
            raise ParameterError(f"--set {s.path}: given twice")
        seen.add(s.path.text)
    resolved = {}
    for item in [*sweeps, *perturbations]:
        resolved[item.path.text] = item.path.resolve(model)
    base = {text: get_value(model, path) for text, path in resolved.items()}
    runs = []
    grid = itertools.product(*(s.values for s in sweeps))
    for point, combo in enumerate(grid):
        for replicate in range(samples):
            index = point * samples + replicate
            values = dict(base)
            values.update({s.path.text: v for s, v in zip(sweeps, combo, strict=True)})
            deltas = {}
            if perturbations:
                rng = run_rng(seed, index)
                for p in perturbations:
                    d = p.draw(rng)
                    deltas[p.path.text] = deltas.get(p.path.text, 0.0) + d
                    values[p.path.text] += d
            values = {k: values[k] for k in resolved}
            runs.append(RunSpec(index, point, replicate, values, deltas))
    return runs


def run_rng(seed: int, run: int) -> np.random.Generator:
    """The random generator of run ``run`` of a study seeded with ``seed``."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(run,)))


def apply_values(model: dict, values: dict[str, float]) -> dict:
    """A copy of ``model`` with each parameter path set to its value."""
    model = copy.deepcopy(model)
    for text, value in values.items():
        set_value(model, ParameterPath.parse(text).resolve(model), value)
    return model
