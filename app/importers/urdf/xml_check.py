"""First pass over a URDF file with lxml: well-formed XML, known joint types, numbers where
numbers belong, links and joints that refer to each other and form a tree.

Everything found is reported with the element and its line, so a user can go and fix the
file; the URDF library that reads the file afterwards (yourdfpy) reports no lines.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from app.importers.urdf.errors import Finding, UrdfImportError

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")

# attribute -> how many numbers it holds (None: any number >= 1), for the URDF elements below
_NUMERIC = {
    "origin": {"xyz": 3, "rpy": 3},
    "mass": {"value": 1},
    "inertia": {k: 1 for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")},
    "axis": {"xyz": 3},
    "limit": {"lower": 1, "upper": 1, "effort": 1, "velocity": 1},
    "dynamics": {"damping": 1, "friction": 1},
    "mimic": {"multiplier": 1, "offset": 1},
    "box": {"size": 3},
    "cylinder": {"radius": 1, "length": 1},
    "sphere": {"radius": 1},
    "mesh": {"scale": None},
    "color": {"rgba": 4},
}


@dataclass
class Outline:
    """Line numbers of a URDF's links and joints, and its tree: ``parent_joint[link]`` is the
    joint whose child the link is; ``root`` is the link no joint moves."""

    lines: dict[str, int] = field(default_factory=dict)  # "link NAME"/"joint NAME" -> line
    parent_joint: dict[str, str] = field(default_factory=dict)
    root: str = ""

    def line(self, kind: str, name: str) -> int:
        return self.lines.get(f"{kind} {name}", 0)


def _tag(element) -> str:
    return element.tag if isinstance(element.tag, str) else ""


def check(path: Path, text: bytes | None = None) -> Outline:
    """Check the URDF at ``path`` (or its bytes ``text``); raise UrdfImportError listing every
    problem found, or return its Outline."""
    from lxml import etree

    try:
        data = path.read_bytes() if text is None else text
    except OSError as exc:
        raise UrdfImportError(path, [Finding("file", f"cannot be read: {exc}")]) from None
    try:
        root = etree.fromstring(data, etree.XMLParser(remove_comments=True))
    except etree.XMLSyntaxError as exc:
        line = exc.lineno or 0
        msg = str(exc.msg or exc).split(" (line")[0]
        raise UrdfImportError(path, [Finding("XML", f"malformed XML: {msg}", line)]) from None
    if _tag(root) != "robot":
        raise UrdfImportError(
            path,
            [Finding(f"<{_tag(root)}>", "the root element must be <robot>", root.sourceline or 0)],
        )
    findings: list[Finding] = []
    outline = Outline()
    _check_numbers(root, findings)

    links: dict[str, int] = {}
    for el in root.findall("link"):
        name = el.get("name")
        if not name:
            findings.append(Finding("<link>", "has no name", el.sourceline))
            continue
        if name in links:
            findings.append(
                Finding(f"link {name!r}", f"is defined twice (first on line {links[name]})", 0)
            )
        links[name] = el.sourceline
        outline.lines[f"link {name}"] = el.sourceline

    joints: dict[str, int] = {}
    children: dict[str, tuple[str, int]] = {}
    parent_of: dict[str, str] = {}
    for el in root.findall("joint"):
        line = el.sourceline
        name = el.get("name")
        if not name:
            findings.append(Finding("<joint>", "has no name", line))
            continue
        what = f"joint {name!r}"
        if name in joints:
            findings.append(Finding(what, f"is defined twice (first on line {joints[name]})", line))
        joints[name] = line
        outline.lines[f"joint {name}"] = line
        jtype = el.get("type")
        if jtype not in JOINT_TYPES:
            findings.append(
                Finding(
                    what,
                    f"unknown joint type {jtype!r} (URDF knows {', '.join(JOINT_TYPES)})",
                    line,
                )
            )
        ends = {}
        for end in ("parent", "child"):
            e = el.find(end)
            link = e.get("link") if e is not None else None
            if not link:
                findings.append(Finding(what, f"has no <{end} link=...>", line))
            elif link not in links:
                findings.append(Finding(what, f"its {end} link {link!r} is not defined", line))
            else:
                ends[end] = link
        if len(ends) < 2:
            continue
        child, parent = ends["child"], ends["parent"]
        if child in children:
            other, other_line = children[child]
            findings.append(
                Finding(
                    what,
                    f"kinematic loop: link {child!r} is already the child of joint {other!r} "
                    f"(line {other_line}); a URDF must be a tree (close loops with constraints "
                    "after import)",
                    line,
                )
            )
            continue
        children[child] = (name, line)
        parent_of[child] = parent
        outline.parent_joint[child] = name
        if jtype in ("revolute", "prismatic", "continuous", "planar"):
            axis = el.find("axis")
            xyz = axis.get("xyz") if axis is not None else None
            if xyz is not None and _floats(xyz) is not None and not any(_floats(xyz)):
                findings.append(Finding(what, "its axis is the zero vector", axis.sourceline))

    for link in links:  # a cycle: following the parents comes back to the link
        seen, at = set(), link
        while at in parent_of and at not in seen:
            seen.add(at)
            at = parent_of[at]
        if at in seen and at == link:
            findings.append(
                Finding(
                    f"link {link!r}",
                    "kinematic loop: it is its own ancestor through joints "
                    + ", ".join(repr(outline.parent_joint[x]) for x in sorted(seen)),
                    links[link],
                )
            )
            break
    roots = [name for name in links if name not in parent_of]
    if not links:
        findings.append(Finding("<robot>", "has no links", root.sourceline))
    elif len(roots) > 1 and not findings:
        findings.append(
            Finding(
                "<robot>",
                f"has {len(roots)} links that no joint connects ({', '.join(map(repr, roots))}); "
                "a URDF must be one tree",
                root.sourceline,
            )
        )
    if findings:
        raise UrdfImportError(path, findings)
    outline.root = roots[0]
    return outline


def _floats(text: str) -> list[float] | None:
    try:
        values = [float(v) for v in text.split()]
    except ValueError:
        return None
    return values if all(math.isfinite(v) for v in values) else None


def _check_numbers(root, findings: list[Finding]) -> None:
    for el in root.iter():
        attrs = _NUMERIC.get(_tag(el))
        if not attrs:
            continue
        for attr, n in attrs.items():
            text = el.get(attr)
            if text is None:
                continue
            values = _floats(text)
            if values is None or (n is not None and len(values) != n):
                want = "a number" if n == 1 else f"{n} numbers"
                findings.append(
                    Finding(f"<{_tag(el)} {attr}>", f"must be {want}, got {text!r}", el.sourceline)
                )
