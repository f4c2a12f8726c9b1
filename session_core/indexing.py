"""The index pass of a v1 replay: only what the indexes need of a line, decoded natively.

A replay validates every line and keeps, of most of them, only a few facts
(their id and type; a message's stickiness; an operation's call id, run id
and outcome...). ``msgspec`` decodes a line straight into a ``Struct`` that
names only those fields: every other field (a message's content, a tool's
arguments, a 100 KB result) is checked and skipped without being built, which
takes less time than ``orjson`` building the whole line. Payloads are parsed
(with orjson) only when something asks for them (``events.LazyPayload``).

The index pass never decides anything on its own: a line it does not take
in full (a type it has no struct for, a field of an unexpected type, JSON it
rejects) goes to the plain path, ``orjson.loads`` and ``ReplayState.feed``,
whose verdicts and warnings are the replay's. What msgspec does not check in
a skipped field is checked after it: UTF-8 (``utf8.is_utf8``). One difference is
left: a number beyond a double's range in a skipped field (``1e400``), which
JSON's grammar allows and orjson refuses, passes the index pass; the line is
then parsed by the standard library's ``json`` when asked for (``loads_payload``).
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import sys
import threading
from collections.abc import Iterator, Mapping
from typing import Any

import msgspec
import orjson

from .facts import _ROLES, LINES_COUNTED
from .item_heights import JSON_SPACE_FIRST, json_blank_head, text_rows
from .json_out import holds_non_finite
from .message import raku_str
from .message_usage import reported_cost, said
from .text import as_written

_Raw = msgspec.Raw
_NO = msgspec.Raw(b"")  # a field the line does not have


class Fn(msgspec.Struct):
    name: str | None = None


class Call(msgspec.Struct):
    id: str | None = None
    function: Fn | None = None


class Usage(msgspec.Struct, rename="kebab"):
    prompt_tokens: int | float | None = None
    completion_tokens: int | float | None = None
    total_tokens: int | float | None = None
    cache_read_tokens: int | float | None = None
    cost: int | float | None = None


class LazyBody(msgspec.Struct, rename="kebab"):
    """What a replay needs of a message, dispatch or settle payload (facts taken late)."""

    sticky: bool | None = None
    sysprompt: bool | None = None
    depth: int | None = None
    call_id: str | None = None
    run_id: str | None = None
    tool: str | None = None
    op_id: str | None = None
    outcome: str | None = None


def body_is_sticky(body: LazyBody | None) -> bool:
    """``message.payload_is_sticky`` of a payload the index pass decoded."""
    return body is not None and (
        bool(body.sticky) or bool(body.sysprompt) or body.depth is not None
    )


class LazyEnvelope(msgspec.Struct):
    id: str
    type: str
    v: int
    payload: LazyBody | None = None


class FactsBody(LazyBody):
    """``LazyBody`` and a message's facts (``facts.message_facts``): the viewer's pass."""

    role: str | None = None
    content: msgspec.Raw = _NO
    tool_calls: list[Call] | None = None
    tool_call_id: str | None = None
    usage: Usage | None = None
    reasoning: msgspec.Raw = _NO
    is_error: msgspec.Raw = _NO


class FactsEnvelope(msgspec.Struct):
    id: str
    type: str
    v: int
    payload: FactsBody | None = None


# The types the index pass takes in full; every other line goes the plain way.
INDEXED = frozenset(("message", "tool-dispatched", "tool-settled"))

LAZY = msgspec.json.Decoder(LazyEnvelope)
FACTS = msgspec.json.Decoder(FactsEnvelope)
# What a typed decode raises where it cannot take a line (the plain path says why):
# msgspec raises ``RecursionError``, not a ``DecodeError``, past the depth it goes to.
IndexError_ = (msgspec.DecodeError, msgspec.ValidationError, RecursionError)


def truthy(raw: msgspec.Raw) -> bool:
    """``bool()`` of the JSON value ``raw`` (absent: False), without building it."""
    if not raw:
        return False
    text = bytes(raw)
    head = text[:1]
    if head == b'"':
        return len(text) > 2
    if head in (b"[", b"{"):
        return bool(text[1:-1].strip())
    if head == b"t":
        return True
    if head in (b"f", b"n"):
        return False
    try:
        return float(text) != 0
    except ValueError:
        return True


def content_lines(raw: msgspec.Raw, limit: int) -> int:
    """Lines of the JSON string ``raw`` (its newlines + 1, or 1 where those a folded row
    shows are blank: ``item_heights.text_rows``), counted up to ``limit``; a missing or
    non-string content counts as its ``str()``, as ``facts`` does.

    Counted in the JSON text itself, without decoding it: each ``\\n`` escape whose
    backslash is not itself escaped is a newline; the first ``limit - 1`` end it.
    A ``\\u000…`` escape (``\\u000a`` is a newline too) has the text decoded."""
    if not raw:
        return 1
    text = bytes(raw)
    if text[:1] != b'"':  # (not a string, rare: its text, as ``facts`` makes it)
        lines = _decoded_lines(text, limit)
        return 1 if lines > 1 and text_rows(raku_str(loads_payload(text))) == 1 else lines
    find = text.find
    count = 0
    at = find(b"\\n")
    while at >= 0:
        back = at
        while back and text[back - 1] == 92:  # the backslashes before this one
            back -= 1
        if not (at - back) & 1:  # an odd run of backslashes: this one escapes the n
            count += 1
            if count + 1 >= limit:
                break
        at = find(b"\\n", at + 2)
    else:
        if b"\\u000" in text:
            lines = _decoded_lines(text, limit)
            return 1 if lines > 1 and json_blank_head(text) else lines
    # (a text whose folded rows are all blank folds to one note: ``text_rows``, as
    # ``facts`` says; told from the string's leading whitespace as written)
    if count and text[1] in JSON_SPACE_FIRST and json_blank_head(text):
        return 1
    return count + 1  # (``limit`` at most: the loop stops there)


def _decoded_lines(text: bytes, limit: int) -> int:
    return min(raku_str(loads_payload(text)).count("\n") + 1, limit)


def usage_numbers(usage: Usage) -> tuple[int | None, int | None, int | None, int | None, Any]:
    """Input, output, total (given or summed), cache read and cost, as ``v1_usage``."""
    inp, out, tot, cache, cost = (
        usage.prompt_tokens,
        usage.completion_tokens,
        usage.total_tokens,
        usage.cache_read_tokens,
        usage.cost,
    )
    # (a token count, as ``message_usage._int``: an integer never below 0, else unknown)
    inp = inp if type(inp) is int and inp >= 0 else None
    out = out if type(out) is int and out >= 0 else None
    tot = tot if type(tot) is int and tot >= 0 else None
    cache = cache if type(cache) is int and cache >= 0 else None
    if cost is not None and (type(cost) is not float or not 0.0 <= cost < math.inf):
        cost = reported_cost(cost)  # (finite, never below 0: else unknown)
    if tot is None and inp is not None and out is not None:
        tot = inp + out
    return inp, out, tot, cache, cost


def loads_payload(raw: bytes, *, mend: bool = True) -> Any:
    """A line parsed again (``ValueError``: not JSON): orjson, or, where orjson refuses it
    only for a number beyond a double's range (``1e400``: JSON's grammar allows it, a
    typed decode skips it, msgspec and orjson will not build it), the standard library's
    parser, which reads the number as infinity; nested deeper than orjson reads,
    ``deeper``; a lone surrogate escape, ``mended`` (``mend``)."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        if err.msg != _BEYOND_A_DOUBLE:
            value = mended(raw) if mend else deeper(raw, err)
            if value is not UNMENDED:
                return value
            fixed = _lone_surrogates_replaced(bytes(raw)) if mend else None
            if fixed is None:
                raise
            try:  # (a lone surrogate before such a number: both, as each is read)
                return _loads_beyond_a_double(fixed)
            except ValueError:
                raise err from None
    # (a lone surrogate after it: mended too, never a str Python alone would hold)
    fixed = _lone_surrogates_replaced(bytes(raw)) if mend else None
    return _loads_beyond_a_double(raw if fixed is None else fixed)


UNMENDED: Any = object()


def mended(raw: bytes | memoryview) -> Any:
    """A line orjson refused only for a lone UTF-16 surrogate escape (``"\\ud83d"``: what
    Node's ``JSON.stringify`` writes of a string cut inside an emoji's pair, so Claude
    Code's lines hold them), parsed with each such escape read as U+FFFD, or only for
    being nested deeper than it reads (``deeper``); ``UNMENDED`` when neither, or the
    line is still refused. Asked only where orjson refused."""
    data = bytes(raw)
    fixed = _lone_surrogates_replaced(data)
    try:
        return orjson.loads(data if fixed is None else fixed)
    except orjson.JSONDecodeError as err:
        return deeper(data if fixed is None else fixed, err)


def deeper(raw: bytes | memoryview, refused: orjson.JSONDecodeError) -> Any:
    """A line orjson ``refused`` only for being nested deeper than it reads (1,024
    levels), read as the index pass's msgspec reads it (it takes, and skips, a value as
    deep as Python's recursion limit lets it: ``allow_deep_values``), so that every path
    reads alike a line the index pass took (with a number beyond a double in it too, as
    ``loads_payload`` reads one); what lies deeper than orjson reads is cut off
    (``cut_too_deep``). A line nested deeper than ``MOST_LEVELS`` is read by no path:
    how deep a parser goes depends on the frames in use where it is called, so the
    bound is counted, and the parse given room past it. ``UNMENDED`` for any other
    refusal, or where the line is still refused."""
    if refused.msg != _DEEPER_THAN_ORJSON or nesting(raw) > MOST_LEVELS:
        return UNMENDED
    with _levels_for(MOST_LEVELS):
        try:
            value = msgspec.json.decode(raw)
        except msgspec.ValidationError:  # (a number beyond a double: JSON allows it)
            try:
                return _loads_beyond_a_double(bytes(raw))
            except ValueError:
                return UNMENDED
        except (msgspec.MsgspecError, RecursionError):
            return UNMENDED
    return cut_too_deep(value)


# Levels a line may be nested and still be read: at least what the index pass takes
# (it goes as deep as the recursion limit, ``RECURSION_LIMIT``, less its frames in use).
MOST_LEVELS = 10_000
_LEVELS = threading.Lock()
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"')


def nesting(raw: bytes | memoryview) -> int:
    """How deep ``raw``'s lists and objects go (its strings left out)."""
    depth = most = 0
    for byte in _STRINGS.sub(b"", bytes(raw)):
        if byte == 91 or byte == 123:  # [ {
            depth += 1
            most = max(most, depth)
        elif byte == 93 or byte == 125:  # ] }
            depth -= 1
    return most


@contextlib.contextmanager
def _levels_for(levels: int) -> Iterator[None]:
    """Python's recursion limit raised by ``levels`` and some while a line is read (one
    at a time; never left lower than it was)."""
    with _LEVELS:
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(limit + levels + 1_000)
        try:
            yield
        finally:
            sys.setrecursionlimit(max(limit, sys.getrecursionlimit() - levels - 1_000))


DEPTH = 1024  # levels of a value every path reads (orjson's), shows and walks
CUT = f"(nested deeper than {DEPTH:,} levels: not read further)"


def cut_too_deep(value: Any) -> Any:
    """``value`` (a list or an object, as JSON decodes) with each list or object nested
    deeper than ``DEPTH`` levels put as ``CUT``: every reader, pane and export then walks
    no deeper than a value orjson reads. Walked with a stack, not by recursion."""
    level = [(value, 1)]
    while level:
        item, depth = level.pop()
        keys = item.keys() if isinstance(item, dict) else range(len(item))
        for key in keys:
            inner = item[key]
            if isinstance(inner, dict | list):
                if depth == DEPTH:
                    item[key] = CUT
                else:
                    level.append((inner, depth + 1))
    return value


def loads_mended(raw: bytes | memoryview) -> Any:
    """``orjson.loads``, then (where it refuses) ``mended``: ``JSONDecodeError`` as orjson
    raised it when neither reads the line. For the paths where a refused line is rare.
    A number beyond a double (``1e400``) is JSON, read as every format's replay reads it
    (``loads_payload``)."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        if err.msg == _BEYOND_A_DOUBLE:
            return loads_payload(bytes(raw))
        value = mended(raw)
        if value is UNMENDED:
            raise
        return value


def concatenated(raw: bytes | memoryview) -> list[dict[str, Any]] | None:
    """A line orjson refused that is two or more JSON objects with no line break between
    them (``{…}{…}``: Claude Code writes a record straight after a line whose newline it
    never wrote), each read as a line is (orjson, then ``mended``); None when the line is
    anything else (a torn tail among them: its last object is not whole). Asked only
    where orjson and ``mended`` refused the line; the standard library's ``raw_decode``
    says where each object ends."""
    try:
        text = bytes(raw).decode("utf-8").strip(" \t\r")
    except UnicodeDecodeError:
        return None
    if not text.startswith("{"):
        return None
    find_end = _OBJECTS.raw_decode
    found: list[dict[str, Any]] = []
    at, size = 0, len(text)
    while at < size:
        try:
            _value, end = find_end(text, at)
        except (ValueError, RecursionError):
            return None
        piece = text[at:end].encode("utf-8")
        try:
            value = orjson.loads(piece)
        except orjson.JSONDecodeError:
            value = mended(piece)
        if type(value) is not dict:
            return None
        found.append(value)
        at = end
        while at < size and text[at] in " \t\r":
            at += 1
    return found if len(found) > 1 else None


_OBJECTS = json.JSONDecoder()


def head_record(raw: bytes | memoryview) -> Any:
    """A line as format detection reads it: parsed (mended where orjson refuses it), or
    the first record of a line of several (``concatenated``: the format then says how
    it reads such a line); ``None`` when it is no JSON."""
    try:
        return loads_mended(raw)
    except orjson.JSONDecodeError:
        records = concatenated(raw)
        return None if records is None else records[0]


def _lone_surrogates_replaced(raw: bytes) -> bytes | None:
    """``raw`` with each ``\\uD800``-``\\uDFFF`` escape that is not half of a pair turned
    into ``\\ufffd`` (None: none was). A backslash in JSON is always inside a string."""
    out = bytearray()
    at = 0
    changed = False
    while (slash := raw.find(b"\\", at)) >= 0:
        if raw[slash + 1 : slash + 2] != b"u":
            out += raw[at : slash + 2]  # another escape (``\\\\`` among them): as it is
            at = slash + 2
            continue
        unit = _hex(raw[slash + 2 : slash + 6])
        end = slash + 6
        if unit is not None and 0xD800 <= unit <= 0xDBFF:
            low = _hex(raw[end + 2 : end + 6]) if raw[end : end + 2] == b"\\u" else None
            if low is not None and 0xDC00 <= low <= 0xDFFF:
                end += 6  # a whole pair
                unit = None
        if unit is not None and 0xD800 <= unit <= 0xDFFF:
            out += raw[at:slash] + b"\\ufffd"
            changed = True
        else:
            out += raw[at:end]
        at = end
    if not changed:
        return None
    out += raw[at:]
    return bytes(out)


def _hex(digits: bytes) -> int | None:
    if len(digits) != 4:
        return None
    try:
        return int(digits, 16)
    except ValueError:
        return None


_BEYOND_A_DOUBLE = "number is infinity when parsed as double"  # (orjson's words)
_DEEPER_THAN_ORJSON = "depth limit exceeded"  # (orjson's words: it reads 1,024 levels)


def _not_json(literal: str) -> Any:
    raise ValueError(f"{literal} is not JSON")


RECURSION_LIMIT = 10_000


def allow_deep_values() -> None:
    """Python's recursion limit raised (never lowered) so that a value nested as deep as
    orjson reads (1,024 levels) can be read by the standard library's parser, shown,
    copied and walked: the default (1,000, less the frames in use) is lower. Importing
    ``session_core`` raises it. It also bounds how deep msgspec goes, so how deep a
    line is read at all (``deeper``)."""
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)


def _loads_beyond_a_double(raw: bytes) -> Any:
    """The standard library's parser held to what orjson takes but for the number: UTF-8
    only (not the UTF-16 it would guess from some bytes), no ``NaN`` or ``Infinity``; as
    deep as msgspec reads (``deeper``), cut where orjson's depth ends."""
    allow_deep_values()
    # Refused as orjson refuses (its error, which every reader catches): the standard
    # library's own escaped every reader but this one's callers (``{"id": 1e398194-…``,
    # a uuid unquoted, is a number beyond a double to orjson, then not JSON: a traceback).
    try:
        text = bytes(raw).decode("utf-8")
        try:
            value = json.loads(text, parse_constant=_not_json)
        except ValueError as err:
            if isinstance(err, json.JSONDecodeError) or not _INT_TOO_LONG.search(str(err)):
                raise
            # An integer longer than Python converts (``sys.get_int_max_str_digits``,
            # 4,300 digits) is JSON too, and far beyond a double: infinity, as ``1e400``.
            value = json.loads(text, parse_constant=_not_json, parse_int=_int_or_double)
    except RecursionError:
        raise orjson.JSONDecodeError("nested too deep", "", 0) from None
    except json.JSONDecodeError as err:
        raise orjson.JSONDecodeError(err.msg, err.doc, err.pos) from None
    except ValueError as err:  # (not UTF-8; NaN or Infinity)
        raise orjson.JSONDecodeError(str(err), "", 0) from None
    return cut_too_deep(value) if isinstance(value, dict | list) else value


# Python's refusal of an integer longer than it converts from text.
_INT_TOO_LONG = re.compile(r"integer string conversion")


def _int_or_double(digits: str) -> int | float:
    """An integer as ``json`` reads one, or, too long to convert (beyond a double by far),
    as a double: infinity."""
    try:
        return int(digits)
    except ValueError:
        return float(digits)


def written_field(
    raw: bytes | memoryview, key: str, value: Any, at: tuple[str | int, ...] = ()
) -> Any:
    """``value``, the field ``key`` of the line ``raw`` (of the object ``at`` leads to in
    it: ``("payload",)``), for a refusal to quote (``text.as_written``): where it holds a
    number beyond a double (read as infinity, which JSON writes ``null``), with that
    number as the line wrote it (``1e400``: an ``orjson.Fragment`` of its text); else
    itself. Only a refusal asks (the line is parsed again)."""
    if not raw or not holds_non_finite(value):
        return value
    try:
        found = json.loads(
            bytes(raw).decode("utf-8"), parse_float=_kept_as_written, parse_constant=_not_json
        )
    except (ValueError, RecursionError):
        return value
    for step in at:
        if isinstance(found, dict) and isinstance(step, str):
            found = found.get(step)
        elif isinstance(found, list) and isinstance(step, int) and 0 <= step < len(found):
            found = found[step]
        else:
            return value
    return found.get(key, value) if isinstance(found, dict) else value


def field_said(
    record: Mapping[str, Any],
    key: str,
    want: str | None,
    raw: bytes | memoryview = b"",
    at: tuple[str | int, ...] = (),
) -> str:
    """A refusal's words for ``record``'s field ``key``, not ``want``, by one rule: ``no
    KEY`` where the record left it out; else what it wrote, quoted (``KEY 5, not a
    string``: ``null`` and ``5`` are written, not missing; ``raw``, ``at``: the line and
    where the record is in it, ``written_field``); ``want`` None: the caller says it."""
    if key not in record:
        return f"no {key}"
    said = f"{key} {as_written(written_field(raw, key, record[key], at))}"
    return said if want is None else f"{said}, not {want}"


def _kept_as_written(text: str) -> Any:
    number = float(text)
    return number if math.isfinite(number) else orjson.Fragment(text.encode())


def message_fields(body: FactsBody | None) -> tuple[Any, ...]:
    """A message's facts from the index pass: exactly ``facts.payload_fields`` of its payload."""
    if body is None:
        return ("user", 1, False, 0, (), None, False, None, False)
    role = body.role
    if role is None:
        role = ""
    calls: tuple[tuple[str, str], ...] = ()
    count = 0
    raw_calls = body.tool_calls
    if raw_calls is not None:
        count = len(raw_calls)
        found = []
        for call in raw_calls:
            function = call.function
            found.append((call.id or "", (function.name if function is not None else None) or ""))
        calls = tuple(found)
    tcid = body.tool_call_id
    usage = body.usage
    reported = None if usage is None else said(*usage_numbers(usage))
    return (
        _ROLES.get(role) or role or "user",
        content_lines(body.content, LINES_COUNTED),
        truthy(body.reasoning),
        count,
        calls,
        tcid,
        role == "assistant" or reported is not None,
        reported,
        truthy(body.is_error),
    )
