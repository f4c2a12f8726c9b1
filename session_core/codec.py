"""JSON, ids, timestamps and digests, byte-compatible with the reference writer."""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import json
import math
import uuid
from datetime import UTC, datetime
from typing import Any

import orjson

from .json_out import leaves_mapped

_LINE_OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
_CANON_OPTS = orjson.OPT_SORT_KEYS

# Unicode's White_Space: what the reference's ``.trim`` takes off (Python's ``str.strip``
# takes U+001C-U+001F too, which are not white space to Unicode nor to JSON).
WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def dump_line(envelope: dict[str, Any]) -> bytes:
    """One envelope as its line: sorted keys, compact, UTF-8, one ``\\n``."""
    try:
        return orjson.dumps(envelope, option=_LINE_OPTS)
    except orjson.JSONEncodeError:
        return orjson.dumps(_exact_big_ints(envelope), option=_LINE_OPTS)


def _exact_big_ints(value: Any) -> Any:
    """``value`` with every integer orjson cannot write (beyond 64 bits) as its digits,
    which the reference's JSON::Fast writes (a Raku Int has no bound). Only on the
    path where orjson refused, so the common write pays nothing."""
    return leaves_mapped(value, _exact_big_int)


def _exact_big_int(value: Any) -> Any:
    if isinstance(value, int) and not -(1 << 63) <= value < 1 << 64:
        return orjson.Fragment(str(int(value)))
    return value


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_float(item) for item in value)
    return False


def not_finite(value: Any, line: bytes | None = None) -> str | None:
    """Where ``value`` (a record's data, once it encodes as ``line``) holds a number that
    is not finite, said (``usage.cost is NaN``), or None. JSON has no NaN nor infinity:
    orjson (and the reference's JSON::Fast) would write ``null``, an unknown where a
    number was given, without a word, so a writer refuses it. Looked for in all that
    orjson writes on its own that can hold one: dicts, lists and tuples (their
    subclasses too), dataclass instances (``_written_fields``), an enum member's value;
    an ``orjson.Fragment``, written as it is and not to be looked into, by reading
    ``line`` back (a NaN in it made a line that is no JSON)."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                said = "NaN" if math.isnan(item) else "infinite"
                return f"{where or 'the value'} is {said} (JSON has no NaN nor infinity)"
        elif isinstance(item, dict):
            stack.extend((f"{where}.{key}" if where else str(key), v) for key, v in item.items())
        elif isinstance(item, list | tuple):
            stack.extend((f"{where}[{index}]", v) for index, v in enumerate(item))
        elif isinstance(item, enum.Enum):
            stack.append((where, item.value))
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            stack.extend(
                (f"{where}.{name}" if where else name, v) for name, v in _written_fields(item)
            )
        elif isinstance(item, orjson.Fragment) and line is not None:
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError as err:
                return f"{where or 'the value'} is an orjson.Fragment that is no JSON ({err})"
    return None


def _written_fields(instance: Any) -> list[tuple[str, Any]]:
    """A dataclass instance's attributes as orjson writes them: those of its
    ``__dict__`` (its fields', where its slots keep them), but any named with a leading
    underscore."""
    attributes = getattr(instance, "__dict__", None)
    if attributes is None:
        names = [field.name for field in dataclasses.fields(instance)]
        attributes = {name: getattr(instance, name, None) for name in names}
    return [(name, v) for name, v in attributes.items() if not name.startswith("_")]


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, non-ASCII as is. Unknown objects are stringified."""
    try:
        return orjson.dumps(value, option=_CANON_OPTS, default=str).decode("utf-8")
    except orjson.JSONEncodeError:
        exact = _exact_big_ints(value)
        return orjson.dumps(exact, option=_CANON_OPTS, default=str).decode("utf-8")


def data_digest(value: Any) -> str:
    """sha256 (lower-case hex) of ``canonical_json(value)``."""
    return _sha256_hex(canonical_json(value).encode("utf-8"))


def canonical_arguments(arguments: Any) -> str:
    """The canonical arguments string: a JSON text re-rendered canonically, else verbatim."""
    if arguments is None:
        return ""
    if isinstance(arguments, dict | list | tuple):
        return canonical_json(arguments)
    text = str(arguments)
    trimmed = text.strip(WHITE_SPACE)
    if not trimmed.startswith(("{", "[")):
        return text
    try:
        parsed = orjson.loads(trimmed)
    except orjson.JSONDecodeError:
        return text
    if _has_float(parsed):
        # orjson reads an integer beyond 64 bits as a float; JSON::Fast keeps it whole.
        with contextlib.suppress(ValueError):
            parsed = json.loads(trimmed)
    return canonical_json(parsed)


def arguments_digest(arguments: Any) -> str:
    """``data_digest`` of the canonical arguments *string* (its JSON encoding is hashed)."""
    return data_digest(canonical_arguments(arguments))


def section_digest(name: str, rendered: str) -> str:
    """A run-context section's digest: ``data_digest([name, rendered])``."""
    return data_digest([name, rendered])


def content_digest(content: str) -> str:
    """Plain sha256 of the UTF-8 bytes (an artifact's digest)."""
    return _sha256_hex(content.encode("utf-8"))


def _sha256_hex(data: bytes) -> str:
    # (hashlib imported here, not at the top: it loads OpenSSL, most of a megabyte of
    # every viewer's RSS, for digests only a writer, an export or an artifact takes)
    import hashlib

    return hashlib.sha256(data).hexdigest()


def new_id() -> str:
    return str(uuid.uuid4())


def now_ts() -> str:
    """UTC ISO-8601 with six fraction digits and a ``Z``, as the reference writes it."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
