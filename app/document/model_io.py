"""The mbstudio model file: versioned JSON.

::

    {"schema": "mbstudio.model", "version": 3, "model": {name, hints, ground_geometry, bodies,
     constraints, forces, measures, ground_contact_surfaces, contact}}

Version 2 added ``measures``; version 3 added contact: ``contact_surfaces`` on bodies,
``ground_contact_surfaces`` and the ``contact`` settings. A file is written with the oldest
version that can hold the model (so older mbstudio versions keep reading models that do not
use the newer parts), and files of every older version load unchanged.

``load(path)`` returns a ModelDocument or raises ``ModelFileError`` naming the field (a
malformed file, a different schema, a newer version, an invalid model); nothing else happens.
``save(document, path)`` writes a temporary file in the same directory, flushes it to disk and
renames it over ``path`` (``os.replace``), so a crash never leaves a half-written model.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from glob import escape as glob_escape
from pathlib import Path

import numpy as np

from app.document.document import ModelDocument
from app.document.specs import ModelData, SpecError
from app.document.validation import DocumentError, validate

SCHEMA = "mbstudio.model"
VERSION = 3  # the newest version this mbstudio reads and writes
SUFFIX = ".mbs.json"


class ModelFileError(ValueError):
    """A model file that cannot be opened; ``field`` names the offending field (or "file")."""

    def __init__(self, path, field: str, message: str) -> None:
        self.path = str(path)
        self.field = field
        self.message = message
        super().__init__(f"{self.path}: {field}: {message}")


def to_json_dict(document: ModelDocument | ModelData) -> dict:
    data = document.data if isinstance(document, ModelDocument) else document
    return {"schema": SCHEMA, "version": file_version(data), "model": data.to_dict()}


def file_version(data: ModelData) -> int:
    """The oldest file version that can hold ``data`` (3 with contact, 2 with measures, else
    1)."""
    if data.has_contact():
        return 3
    return 2 if data.measures else 1


def dumps(document: ModelDocument | ModelData) -> str:
    return json.dumps(to_json_dict(document), indent=1) + "\n"


def _expect(cond: bool, path, field: str, message: str) -> None:
    if not cond:
        raise ModelFileError(path, field, message)


#: deepest nesting of JSON arrays/objects a model file may have (a model needs about 8)
MAX_DEPTH = 32
#: integers with more digits than this are read as floats (infinite: refused by the checks)
_MAX_INT_DIGITS = 400


def _parse_int(text: str):
    return int(text) if len(text) <= _MAX_INT_DIGITS else float(text)


def _check_structure(raw, path, strings: bool) -> None:
    """Refuse nesting deeper than MAX_DEPTH and (with ``strings``) strings that cannot be
    written as UTF-8 (lone surrogates), naming the field. Iterative (a deep file cannot
    exhaust the stack) and O(size); only containers are visited unless ``strings``."""
    todo = [(raw, (), 0)]
    while todo:
        value, where, depth = todo.pop()
        if isinstance(value, str):
            if not _is_utf8(value):
                raise ModelFileError(
                    path,
                    _where(where),
                    "contains a lone surrogate (\\ud800-\\udfff) that is not a character; "
                    "write the text as UTF-8",
                )
            continue
        if depth >= MAX_DEPTH:
            raise ModelFileError(
                path, _where(where), f"is nested too deeply (more than {MAX_DEPTH} levels)"
            )
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            if isinstance(item, (dict, list)) or (strings and isinstance(item, str)):
                todo.append((item, (where, key), depth + 1))
            if strings and isinstance(key, str) and not _is_utf8(key):
                raise ModelFileError(path, _where(where), "has a key with a lone surrogate")


def _where(where: tuple) -> str:
    """The JSON path (model.bodies[0].name) of a nested (parent, key) pair."""
    keys = []
    while where:
        where, key = where
        keys.append(f"[{key}]" if isinstance(key, int) else f".{key}")
    return "model" + "".join(reversed(keys))


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
#: every byte but the JSON brackets and the quote
_NOT_BRACKET = bytes(c for c in range(256) if c not in b'[]{}"')
#: +1 for an opening bracket, -1 for a closing one (indexed by byte)
_BRACKET_STEP = np.zeros(256, dtype=np.int8)
_BRACKET_STEP[list(b"[{")] = 1
_BRACKET_STEP[list(b"]}")] = -1


def _nesting_at_most(text: str, limit: int) -> bool:
    """True if the JSON ``text`` nests arrays and objects at most ``limit`` deep (the
    outermost counts 1). At C speed: escaped quotes and backslashes dropped, then every byte
    but brackets and quotes, then the strings' contents (between pairs of quotes); the depth
    is the largest running sum of +1 per opening and -1 per closing bracket."""
    b = text.encode("utf-8", "surrogatepass")
    if b"\\" in b:
        b = b.replace(b"\\\\", b"").replace(b'\\"', b"")
    b = b.translate(None, _NOT_BRACKET)
    b = b"".join(b.split(b'"')[::2])
    if not b:
        return True
    steps = _BRACKET_STEP[np.frombuffer(b, dtype=np.uint8)]
    return int(np.cumsum(steps, dtype=np.int64).max()) <= limit


#: JSON whitespace (what the standard decoder skips between tokens)
_WHITESPACE = re.compile(r"[ \t\n\r]*")
#: Containers this many levels deep (the file's object, the model, its lists of bodies,
#: forces...) are taken apart by ``_decode``; each value inside them is one decoder call.
_SPLIT_LEVELS = 3
_DECODER = json.JSONDecoder(parse_int=_parse_int)


class _MalformedError(ValueError):
    """The text is not JSON: ``json.loads`` is asked again for its own wording of the error."""


def _decode(text: str):
    """``json.loads(text, parse_int=_parse_int)``, made of many short calls of the standard
    decoder: the outer objects and lists (``_SPLIT_LEVELS``) are walked here and every value
    inside them (a body, a force) is decoded by one call. The standard decoder holds the
    interpreter for the whole text in one call (a 20,000-body file: a third of a second, every
    other thread held, the GUI's too); between these calls the interpreter passes to any
    thread that waits. Malformed text raises what ``json.loads`` raises for it."""
    try:
        value, end = _value(text, _WHITESPACE.match(text).end(), _SPLIT_LEVELS)
        if _WHITESPACE.match(text, end).end() != len(text):
            raise _MalformedError
        return value
    except _MalformedError:
        pass
    except json.JSONDecodeError:
        pass
    return json.loads(text, parse_int=_parse_int)  # raises, worded as the standard decoder


def _value(text: str, at: int, levels: int):
    """(the JSON value that starts at ``at``, the index after it); objects and arrays
    ``levels`` deep are walked here, anything else decoded in one call."""
    opening = text[at : at + 1]
    if levels <= 0 or opening not in ("{", "["):
        return _DECODER.raw_decode(text, at)
    closing = "}" if opening == "{" else "]"
    out: dict | list = {} if opening == "{" else []
    at = _WHITESPACE.match(text, at + 1).end()
    if text[at : at + 1] == closing:
        return out, at + 1
    while True:
        if opening == "{":
            if text[at : at + 1] != '"':
                raise _MalformedError
            key, at = json.decoder.scanstring(text, at + 1)
            at = _WHITESPACE.match(text, at).end()
            if text[at : at + 1] != ":":
                raise _MalformedError
            item, at = _value(text, _WHITESPACE.match(text, at + 1).end(), levels - 1)
            out[key] = item
        else:
            item, at = _value(text, at, levels - 1)
            out.append(item)
        at = _WHITESPACE.match(text, at).end()
        separator = text[at : at + 1]
        if separator == closing:
            return out, at + 1
        if separator != ",":
            raise _MalformedError
        at = _WHITESPACE.match(text, at + 1).end()


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def loads(text: str, path="<string>") -> ModelDocument:
    if text.startswith("\ufeff"):  # a UTF-8 byte-order mark, as some editors write
        text = text[1:]
    try:
        raw = _decode(text)
    except json.JSONDecodeError as exc:
        raise ModelFileError(
            path, "file", f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    except RecursionError:
        raise ModelFileError(
            path, "file", f"is nested too deeply (more than {MAX_DEPTH} levels)"
        ) from None
    except ValueError as exc:
        raise ModelFileError(path, "file", f"not valid JSON ({exc})") from None
    _expect(isinstance(raw, dict), path, "file", "must contain a JSON object")
    model = raw.get("model")
    if isinstance(model, (dict, list)):
        # a lone surrogate can only come from a \\uD800-\\uDFFF escape or from the text itself
        strings = not _is_utf8(text) or _SURROGATE_ESCAPE.search(text) is not None
        if strings or not _nesting_at_most(text, MAX_DEPTH + 1):  # the file's object and model
            _check_structure(model, path, strings)
    for key in raw:
        _expect(_is_utf8(key), path, "file", "has a key with a lone surrogate")
    _expect("schema" in raw, path, "schema", f"is missing (expected {SCHEMA!r})")
    _expect(raw["schema"] == SCHEMA, path, "schema", f"is {raw['schema']!r}, expected {SCHEMA!r}")
    _expect("version" in raw, path, "version", "is missing")
    version = raw["version"]
    _expect(
        isinstance(version, int) and not isinstance(version, bool),
        path,
        "version",
        f"must be a whole number, got {version!r}",
    )
    _expect(
        version <= VERSION,
        path,
        "version",
        f"is {version}, newer than this mbstudio reads (up to {VERSION}); update mbstudio",
    )
    _expect(version >= 1, path, "version", f"must be >= 1, got {version}")
    _expect(isinstance(raw.get("model"), dict), path, "model", "is missing or not an object")
    model = raw["model"]
    _expect(
        version >= 2 or "measures" not in model,
        path,
        "model.measures",
        "needs file version 2 (this file says version 1)",
    )
    if version < 3:
        _check_no_contact(model, version, path)
    try:
        data = ModelData.from_dict(model)
    except SpecError as exc:
        raise ModelFileError(path, f"model.{exc.field}", exc.message) from None
    try:
        validate(data)
    except DocumentError as exc:
        field = _field_path(data, exc)
        raise ModelFileError(path, field, exc.message) from None
    return ModelDocument(data, validated=True)


def _check_no_contact(model: dict, version: int, path) -> None:
    """Refuse contact fields in a file older than version 3 (they did not exist then)."""
    for key in ("ground_contact_surfaces", "contact"):
        _expect(
            key not in model,
            path,
            f"model.{key}",
            f"needs file version 3 (this file says version {version})",
        )
    bodies = model.get("bodies")
    for i, b in enumerate(bodies if isinstance(bodies, list) else ()):
        _expect(
            not (isinstance(b, dict) and "contact_surfaces" in b),
            path,
            f"model.bodies[{i}].contact_surfaces",
            f"needs file version 3 (this file says version {version})",
        )


def _field_path(data: ModelData, exc: DocumentError) -> str:
    """The JSON path of a DocumentError's field, e.g. model.bodies[1].mass."""
    t = exc.target
    for i, b in enumerate(data.bodies):
        if t == b.name:
            return f"model.bodies[{i}].{exc.field}"
    for prefix, section in (
        ("constraint ", "constraints"),
        ("force ", "forces"),
        ("measure ", "measures"),
    ):
        if t.startswith(prefix):
            where = f"model.{section}[{t.split()[1]}]"
            if exc.field in ("type", "args", "name"):
                return f"{where}.{exc.field}"
            return f"{where}.args.{exc.field}"
    if t == "hints":
        return f"model.hints.{exc.field}"
    if t == "contact":
        return f"model.contact.{exc.field}"
    if t == "Ground":
        return f"model.ground_{exc.field}"
    return f"model.{exc.field}"


def load(path) -> ModelDocument:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ModelFileError(path, "file", "does not exist") from None
    except UnicodeDecodeError:
        raise ModelFileError(path, "file", "is not UTF-8 text (not a model file?)") from None
    except OSError as exc:
        raise ModelFileError(path, "file", f"cannot be read: {exc.strerror or exc}") from None
    document = loads(text, path)
    document.base_dir = path.resolve().parent  # relative mesh file names start here
    return document


def _file_mode(path: Path) -> int:
    """The existing file's permissions, or the usual ones for a new file (0666 & ~umask)."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _leftover_temporaries(path: Path) -> None:
    """Remove temporary files an interrupted save of ``path`` left behind (those whose
    writer process no longer runs)."""
    directory = path.parent if str(path.parent) else Path(".")
    for tmp in directory.glob(f".{glob_escape(path.name)}.*.tmp"):
        pid = tmp.name[len(path.name) + 2 : -len(".tmp")].split(".")[0]
        if pid.isdigit() and _process_alive(int(pid)):
            continue  # another save is writing it right now
        try:
            tmp.unlink()
        except OSError:
            pass


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def save(document: ModelDocument | ModelData, path) -> None:
    """Write atomically: temporary file in the same directory, fsync, os.replace. Saving to
    a symbolic link writes the file it points to (the link stays a link); temporary files a
    killed save left behind are removed."""
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    text = dumps(document)
    directory = path.parent if str(path.parent) else Path(".")
    _leftover_temporaries(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=directory)
    try:
        os.chmod(tmp, _file_mode(path))
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
