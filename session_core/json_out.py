"""JSON written of values read from a transcript, whatever they hold.

orjson writes a value at most 254 levels deep, and a record may hold a value nested far
deeper (JSON's grammar sets no bound; orjson reads 1,024 levels): where orjson will not
write a value, the standard library's encoder does (ASCII, so that nothing it is handed
can fail to encode), and a value past that one's depth too is written as a note saying
so. A record shown, exported or printed never raises.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from functools import cache
from typing import IO, Any

import orjson

__all__ = [
    "TOO_DEEP",
    "EscapedC1",
    "beyond_said",
    "compact_json",
    "dumps",
    "escape_c1",
    "holds_non_finite",
    "json_bytes",
    "json_text",
    "readable_json",
]

TOO_DEEP = "(a value nested too deep to be written)"


def dumps(value: Any, option: int = 0) -> bytes:
    """``orjson.dumps(value, option=option, default=str)``, or what the standard library
    writes of it (the options ``OPT_INDENT_2``, ``OPT_SORT_KEYS``, ``OPT_NON_STR_KEYS`` and
    ``OPT_APPEND_NEWLINE`` kept)."""
    try:
        return orjson.dumps(value, option=option, default=str)
    except TypeError:  # (orjson.JSONEncodeError): too deep, or a key orjson will not take
        pass
    pretty = bool(option & orjson.OPT_INDENT_2)
    text = _standard(
        value,
        ensure_ascii=True,
        indent=2 if pretty else None,
        separators=None if pretty else (",", ":"),
        sort_keys=bool(option & orjson.OPT_SORT_KEYS),
    )
    return text.encode() + (b"\n" if option & orjson.OPT_APPEND_NEWLINE else b"")


def readable_json(value: Any, indent: int | None = None) -> str:
    """JSON of a value as a document shows it (``", "`` and ``": "`` between, characters
    as they are, ``indent``), by the rules of ``dumps``: a number beyond a double
    (``1e400``, read as infinity) written ``null``, as orjson writes it (the replay, the
    tools table, the diff), never ``Infinity``, which is no JSON."""
    return _standard(value, ensure_ascii=False, indent=indent)


def _standard(value: Any, **how: Any) -> str:
    """The standard library's JSON of a value, a non-finite number written ``null`` (as
    orjson writes it: one rule for a value read from a transcript); one too deep for it,
    ``TOO_DEEP``."""
    try:
        try:
            return json.dumps(value, default=str, allow_nan=False, **how)
        except ValueError:  # (a non-finite number: rare, so looked for only then)
            return json.dumps(_finite(value), default=str, **how)
    except (TypeError, ValueError, RecursionError):
        return json.dumps(TOO_DEEP)


def leaves_mapped(value: Any, leaf: Callable[[Any], Any]) -> Any:
    """``value`` (dicts, lists and tuples as JSON has them: a tuple a list) with each
    other value in it ``leaf(value)``."""
    if isinstance(value, dict):
        return {key: leaves_mapped(item, leaf) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [leaves_mapped(item, leaf) for item in value]
    return leaf(value)


def _finite(value: Any) -> Any:
    """A value with each non-finite number in it None."""
    return leaves_mapped(value, _finite_number)


def _finite_number(value: Any) -> Any:
    return None if isinstance(value, float) and not math.isfinite(value) else value


def holds_non_finite(value: Any) -> bool:
    """Whether ``value`` holds a non-finite number (a number beyond a double, ``1e400``,
    read as infinity: JSON holds no other)."""
    if isinstance(value, float):
        return not math.isfinite(value)
    if isinstance(value, dict):
        return any(holds_non_finite(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(holds_non_finite(item) for item in value)
    return False


# A number beyond a double quoted where its line's text is not at hand (not ``null``,
# which would read as a null written).
_BEYOND_SAID = orjson.Fragment(b"(a number beyond a double)")


def beyond_said(value: Any) -> Any:
    """``value`` with each non-finite number in it said to be beyond a double (as
    ``compact_json`` writes it)."""
    return leaves_mapped(value, _beyond_number_said)


def _beyond_number_said(value: Any) -> Any:
    return _BEYOND_SAID if isinstance(value, float) and not math.isfinite(value) else value


def compact_json(value: object) -> str:
    """Compact JSON of a value (what is not JSON as its ``str``): a record shown as it is."""
    return dumps(value, orjson.OPT_NON_STR_KEYS).decode()


# A C1 control character (U+0080-U+009F) in UTF-8: orjson writes it as it is, and a
# terminal may act on one (U+009B is CSI). JSON printed or exported writes it escaped,
# the same string to a JSON reader.
_C1 = re.compile(rb"\xc2([\x80-\x9f])")


def json_bytes(value: object, option: int = 0) -> bytes:
    """JSON of a value to show, a C1 control character escaped (``\\u009b``, as JSON
    writes other controls: a screen showed it ``\\x9b``, which is no JSON)."""
    return escape_c1(dumps(value, option))


def json_text(value: object, option: int = 0) -> str:
    """``json_bytes`` as text."""
    return json_bytes(value, option).decode()


def escape_c1(data: bytes, on_screen: bool = False) -> bytes:
    """JSON's bytes with each C1 control character written ``\\u009b``-style; ``on_screen``
    (JSON written to a terminal), DEL and the characters that reorder or hide text
    (``text.INVISIBLE``, tag characters) too, the same strings to a JSON reader. (Only
    there: looking for them costs a big replay's output a quarter more time.)"""
    if on_screen:
        data = _shown_pattern().sub(_json_escape, data)
    if b"\xc2" not in data:
        return data  # (most output: no such byte)
    return _C1.sub(lambda m: b"\\u00%02x" % m[1][0], data)


@cache
def _shown_pattern() -> re.Pattern[bytes]:
    from .text import INVISIBLE, TAGS  # (text needs this module: imported when asked)

    chars = ["\x7f", *INVISIBLE, *map(chr, TAGS)]
    shown = [re.escape(char.encode()) for char in chars]
    # A run of zero-width joiners that joins nothing (``text._LONE_JOINERS``: at a text's
    # start, or after white space), as JSON writes what comes before it: a string's
    # opening quote, or a white space character, raw or escaped (``\n``, ``\u001c``).
    # (A joiner after an escaped quote or backslash is escaped too: the same string.) The
    # joiner is matched first, what is before it looked at then: never at every byte.
    joiner = "\u200d".encode()
    before = [b'"', *map(_json_form, _spaces())]
    after = b"|".join(b"(?<=%s)" % re.escape(form + joiner) for form in before)
    shown.append(b"%s(?:%s)(?:%s)*" % (joiner, after, joiner))
    return re.compile(b"|".join(shown))


def _spaces() -> list[str]:
    """The white space characters (what a regular expression's ``\\s`` is)."""
    return [chr(code) for code in range(0x3001) if chr(code).isspace()]


def _json_form(char: str) -> bytes:
    """A white space character as JSON writes it."""
    said = {"\t": b"\\t", "\n": b"\\n", "\f": b"\\f", "\r": b"\\r"}.get(char)
    if said is not None:
        return said
    return b"\\u%04x" % ord(char) if ord(char) < 0x20 else char.encode()


def _json_escape(match: re.Match[bytes]) -> bytes:
    """A character as JSON escapes it (one beyond U+FFFF as its surrogate pair)."""
    units = match[0].decode().encode("utf-16-be")
    return b"".join(b"\\u%02x%02x" % (units[i], units[i + 1]) for i in range(0, len(units), 2))


class EscapedC1:
    """A binary stream written JSON, each write's C1 controls escaped (a write of
    ``write_parts`` is whole JSON values and punctuation, never part of a character);
    written to a terminal, what else ``escape_c1`` escapes on screen."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        isatty = getattr(out, "isatty", None)
        self.on_screen = bool(isatty()) if callable(isatty) else False

    def write(self, data: bytes) -> int:
        return self.out.write(escape_c1(data, self.on_screen))
