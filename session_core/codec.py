"""JSON, ids, timestamps and digests, byte-compatible with the reference writer."""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from typing import Any

import orjson

_LINE_OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
_CANON_OPTS = orjson.OPT_SORT_KEYS


def dump_line(envelope: dict[str, Any]) -> bytes:
    """One envelope as its line: sorted keys, compact, UTF-8, one ``\\n``."""
    return orjson.dumps(envelope, option=_LINE_OPTS)


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, non-ASCII as is. Unknown objects are stringified."""
    return orjson.dumps(value, option=_CANON_OPTS, default=str).decode("utf-8")


def data_digest(value: Any) -> str:
    """sha256 (lower-case hex) of ``canonical_json(value)``."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def canonical_arguments(arguments: Any) -> str:
    """The canonical arguments string: a JSON text re-rendered canonically, else verbatim."""
    if arguments is None:
        return ""
    if isinstance(arguments, dict | list | tuple):
        return canonical_json(arguments)
    text = str(arguments)
    trimmed = text.strip()
    if not trimmed.startswith(("{", "[")):
        return text
    try:
        return canonical_json(orjson.loads(trimmed))
    except orjson.JSONDecodeError:
        return text


def arguments_digest(arguments: Any) -> str:
    """``data_digest`` of the canonical arguments *string* (its JSON encoding is hashed)."""
    return data_digest(canonical_arguments(arguments))


def section_digest(name: str, rendered: str) -> str:
    """A run-context section's digest: ``data_digest([name, rendered])``."""
    return data_digest([name, rendered])


def content_digest(content: str) -> str:
    """Plain sha256 of the UTF-8 bytes (an artifact's digest)."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def new_id() -> str:
    return str(uuid.uuid4())


def now_ts() -> str:
    """UTC ISO-8601 with six fraction digits and a ``Z``, as the reference writes it."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
