"""A Claude Code line's envelope, decoded once into typed facts.

The hot lines (``user``, ``assistant``, ``progress``: nearly every line of a real file)
are decoded by msgspec straight into ``Line``: only the fields named here are built; of
a tool result's ``toolUseResult`` (often the largest value of the line: a whole file
beside an Edit's patch) only what it says of the call (``ResultFacts``), of a block's
content nothing (undecoded bytes, read only where it may say the user interrupted). A
line whose fields do not have the types named here is decoded by orjson and its facts
taken by ``line_of``, with the same rules; every other line type is read as a dict.
"""

from __future__ import annotations

import math
from sys import intern
from typing import Any, NamedTuple

import msgspec
import orjson

from ...indexing import loads_mended, loads_payload
from ...int64 import Int, int64_or_none
from ...message_usage import reported_cost
from ...model import Part
from ...text import str_or_none
from ...utf8 import is_utf8
from . import blocks
from .blocks import flatten
from .teammates import bare

HOT = frozenset({"user", "assistant", "progress"})
# A result's ``status`` that says the call only started its agent, which works on
# (``Said.launched``): a background Agent's or Workflow's, an agent team's teammate's
LAUNCHED = frozenset({"async_launched", "teammate_spawned"})
# The kind a line repeated (its uuid read before) is fed as: shown, no node of the chain
DUPLICATE = "?duplicate"
INTERRUPTED = blocks.INTERRUPTED[:20].encode()  # in a line that says so


# The Structs' fields are in the order Claude Code writes them (msgspec looks the next
# key up first where the last one was), and none is tracked by the collector (none
# holds anything that could refer back to it). A count is an ``Int``: one beyond 64
# bits sends the line to the dict path, which reads it as unknown (``int64``).


class CacheCreation(msgspec.Struct, gc=False):
    """How a response's cache writes split by how long they are kept (2.1.x writers)."""

    ephemeral_1h_input_tokens: Int | None = None


class ServerToolUse(msgspec.Struct, gc=False):
    """How many requests the API's server tools made for a response (billed apart)."""

    web_search_requests: Int | None = None


class TokenUsage(msgspec.Struct, gc=False):
    input_tokens: Int | None = None
    cache_creation_input_tokens: Int | None = None
    cache_read_input_tokens: Int | None = None
    output_tokens: Int | None = None
    cache_creation: CacheCreation | None = None
    server_tool_use: ServerToolUse | None = None
    speed: str | None = None  # (2.1.x: "standard", or "fast": fast mode, priced apart)

    def searched(self) -> bool:
        """Did it report web searches (priced per search, which no price table here has)?"""
        used = self.server_tool_use
        return used is not None and bool(used.web_search_requests)


class Block(msgspec.Struct, gc=False):
    """A content block, as far as a line read again when shown needs it (``shape``):
    a tool call's input, a thinking text, a tool result's content are not decoded."""

    type: str | None = None
    text: str | None = None
    id: str | None = None
    name: str | None = None
    tool_use_id: str | None = None
    is_error: bool | None = None
    content: msgspec.Raw = msgspec.Raw(b"null")


class Message(msgspec.Struct, gc=False):
    model: str | None = None
    id: str | None = None
    role: str | None = None
    # Blocks from the file; the parsed value (str, list of dicts) from a dict.
    content: str | list[Block] | None = None
    stop_reason: str | None = None
    usage: TokenUsage | None = None


class ProgressData(msgspec.Struct, gc=False):
    type: str | None = None
    output: str | None = None
    agentId: str | None = None


class ResultFacts(msgspec.Struct, gc=False):
    """What a tool result's ``toolUseResult`` says of the call, without the rest of it."""

    interrupted: bool | None = None
    agentId: str | None = None
    # ``async_launched`` (with ``isAsync``): a background Agent or a Workflow only started;
    # ``teammate_spawned``: an agent team's teammate only started (``LAUNCHED``)
    status: str | None = None
    isAsync: bool | None = None
    runId: str | None = None  # a Workflow's run: its agents' folder, workflows/<runId>/
    totalDurationMs: float | None = None  # a subagent's own run time
    teammate_id: str | None = None  # an agent team's teammate spawned (``name@team``)
    agent_id: str | None = None  # (the same, where a writer gave this one alone)


class Said(NamedTuple):
    """What a result says of its call (``result_facts``)."""

    interrupted: bool = False
    agent: str | None = None
    launched: bool = False  # only started, in the background: not finished
    workflow: str | None = None  # the Workflow run it started
    took: float | None = None  # seconds its subagent ran, as its writer says
    teammate: str | None = None  # the teammate it spawned (``teammate_spawned``), bare


NOTHING_SAID = Said()


class ForkedFrom(msgspec.Struct, gc=False):
    """A fork's copied line (``/branch``, ``--fork-session``, 2.1.x): the session and line
    it copies (the line itself carries the fork's own ``sessionId``)."""

    sessionId: str | None = None
    messageUuid: str | None = None


_NOTHING = msgspec.Raw(b"null")
# A toolUseResult as the line's decoder takes it: the facts of an object, nothing of
# anything else (a list's items stay undecoded).
Result = ResultFacts | str | list[msgspec.Raw] | int | float | bool | None


class Line(msgspec.Struct, gc=False):
    parentUuid: str | None = None
    isSidechain: bool | None = None
    cwd: str | None = None
    sessionId: str | None = None
    version: str | None = None
    gitBranch: str | None = None
    slug: str | None = None
    agentId: str | None = None
    type: str | None = None
    # The message Claude Code wrote itself when an API call failed for good (model
    # ``<synthetic>``; its text "API Error: 529 …"): it gave the turn up.
    isApiErrorMessage: bool | None = None
    message: Message | None = None
    data: ProgressData | None = None
    requestId: str | None = None
    # ``Result`` from the file (undecoded, ``msgspec.Raw``, from a line whose result its
    # decoder refused); the decoded value from a dict.
    toolUseResult: Result = None
    parentToolUseID: str | None = None
    isMeta: bool | None = None
    isCompactSummary: bool | None = None
    uuid: str | None = None
    timestamp: str | None = None
    costUSD: float | None = None  # what the response cost, as older writers (1.0.x) said
    forkedFrom: ForkedFrom | None = None  # a fork's copy of its parent's line


class _RawResult(Line):
    """A line whose toolUseResult ``Line`` refuses (a number out of range, facts of other
    types): the result undecoded, its facts read from it as far as they can be."""

    toolUseResult: msgspec.Raw = _NOTHING  # type: ignore[assignment]


_LINE = msgspec.json.Decoder(Line)
_RAW_RESULT = msgspec.json.Decoder(_RawResult)
_FACTS = msgspec.json.Decoder(ResultFacts)
_NONE_SAID = ResultFacts()


def decode(raw: bytes | memoryview, ascii: bool = False) -> Line | None:
    """A hot line's facts; None when the line must be read as a dict (another type,
    a field of another type, not an object, not UTF-8: the dict path says which).
    ``msgspec.DecodeError``: not JSON. ``ascii``: the caller knows the line is."""
    try:
        line = _LINE.decode(raw)
    except msgspec.ValidationError:
        try:
            line = _RAW_RESULT.decode(raw)
        except (msgspec.ValidationError, RecursionError):
            return None
    except RecursionError:  # nested past msgspec's depth (``indexing.IndexError_``)
        return None
    if line.type not in HOT or not (ascii or is_utf8(raw)):  # what msgspec skipped too
        return None
    return line


def line_of(record: dict[str, Any]) -> Line:
    """The same facts from a parsed record (a field of another type counts as absent)."""
    message = record.get("message")
    if type(message) is not dict:  # (a bare string: its text; the rule is ``blocks``')
        message = blocks.message_object(message)
    data = record.get("data")
    return Line(
        type=str_or_none(record.get("type")),
        uuid=str_or_none(record.get("uuid")),
        parentUuid=str_or_none(record.get("parentUuid")),
        isSidechain=record.get("isSidechain") is True,
        isMeta=record.get("isMeta") is True,
        isCompactSummary=record.get("isCompactSummary") is True,
        isApiErrorMessage=record.get("isApiErrorMessage") is True,
        timestamp=str_or_none(record.get("timestamp")),
        requestId=str_or_none(record.get("requestId")),
        parentToolUseID=str_or_none(record.get("parentToolUseID")),
        sessionId=str_or_none(record.get("sessionId")),
        cwd=str_or_none(record.get("cwd")),
        gitBranch=str_or_none(record.get("gitBranch")),
        version=str_or_none(record.get("version")),
        slug=str_or_none(record.get("slug")),
        agentId=str_or_none(record.get("agentId")),
        message=_message_of(message) if message is not None else None,
        data=_data_of(data) if isinstance(data, dict) else None,
        toolUseResult=record.get("toolUseResult"),  # (see Line)
        costUSD=reported_cost(record.get("costUSD")),
        forkedFrom=_forked_of(record.get("forkedFrom")),
    )


def _forked_of(forked: Any) -> ForkedFrom | None:
    if not isinstance(forked, dict):
        return None
    return ForkedFrom(str_or_none(forked.get("sessionId")), str_or_none(forked.get("messageUuid")))


def _message_of(message: dict[str, Any]) -> Message:
    usage = message.get("usage")
    return Message(
        id=str_or_none(message.get("id")),
        role=str_or_none(message.get("role")),
        model=str_or_none(message.get("model")),
        stop_reason=str_or_none(message.get("stop_reason")),
        usage=_usage_of(usage) if isinstance(usage, dict) else None,
        content=message.get("content"),
    )


def _usage_of(usage: dict[str, Any]) -> TokenUsage:
    # (a count as the typed decode takes one: ``Int``)
    created = usage.get("cache_creation")
    hour = created.get("ephemeral_1h_input_tokens") if type(created) is dict else None
    server = usage.get("server_tool_use")
    searches = server.get("web_search_requests") if type(server) is dict else None
    hour, searches = int64_or_none(hour), int64_or_none(searches)
    return TokenUsage(
        input_tokens=int64_or_none(usage.get("input_tokens")),
        output_tokens=int64_or_none(usage.get("output_tokens")),
        cache_read_input_tokens=int64_or_none(usage.get("cache_read_input_tokens")),
        cache_creation_input_tokens=int64_or_none(usage.get("cache_creation_input_tokens")),
        cache_creation=None if hour is None else CacheCreation(hour),
        server_tool_use=None if searches is None else ServerToolUse(searches),
        speed=str_or_none(usage.get("speed")),
    )


def _data_of(data: dict[str, Any]) -> ProgressData:
    output = data.get("output")
    return ProgressData(
        type=str_or_none(data.get("type")),
        output=output if isinstance(output, str) else None,
        agentId=str_or_none(data.get("agentId")),
    )


def shape(content: str | list[Block] | None, line: bytes | memoryview | None) -> list[Part]:
    """The parts ``blocks.parts_of`` would make of this content, as far as feeding a line
    needs them (kinds, ids, names, errors, texts): its item is read again by span when
    shown. A tool result's text is read only where it may say the user interrupted (it
    may begin so, and ``line``, the line it came from, has the words; None: never)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [Part("text", text=content)]
    out: list[Part] = []
    for block in content:
        kind = block.type
        if kind == "text":
            text = block.text  # (none: kept as written, as a block of an unknown type is)
            out.append(Part("text", text=text) if text is not None else Part("other", name=kind))
        elif kind == "thinking":
            out.append(Part("reasoning"))
        elif kind == "redacted_thinking":
            out.append(Part("reasoning", text="[redacted thinking]", name="redacted_thinking"))
        elif kind == "tool_use":
            # A tool's name once for all its calls (tens of thousands of "Bash").
            out.append(Part("tool-call", call_id=block.id, name=intern(block.name or "?")))
        elif kind == "tool_result":
            said = line is not None and _may_begin(block.content) and INTERRUPTED in bytes(line)
            out.append(
                Part(
                    "tool-result",
                    text=_said(block.content) if said else "",
                    call_id=block.tool_use_id,
                    is_error=block.is_error is True,
                )
            )
        elif kind == "server_tool_use":  # (its input read again by span, as a call's)
            name = intern(block.name or kind)
            out.append(Part("other", call_id=block.id, name=name, server_call=True))
        elif kind in blocks.SERVER_RESULTS:  # (few: read whole, whether it failed too)
            text, failed = blocks.server_result(_decoded(block.content))
            out.append(
                Part("other", text=text, call_id=block.tool_use_id, name=kind, is_error=failed)
            )
        elif kind == "image":
            out.append(Part("image", text="[image]"))
        elif kind == "document":  # (an image part, as ``blocks.part_of`` makes it)
            out.append(Part("image", text="[document]", name=kind))
        else:
            out.append(Part("other", name=kind))
    return out


def _decoded(raw: msgspec.Raw) -> Any:
    """A raw value decoded (None: none, or not JSON)."""
    try:
        return orjson.loads(bytes(raw)) if raw else None
    except orjson.JSONDecodeError:
        return None


_NOT_TEXT = frozenset(b"{-0123456789tfn")  # a value whose text never begins with "["


def _may_begin(content: msgspec.Raw) -> bool:
    """Could this content's text (``flatten``) begin, after its blanks, with a "[" (as
    ``blocks.INTERRUPTED`` does)? False only when it can not: a string whose first
    character past its spaces is plain ASCII and no "[" (blanks other than spaces are
    escaped in JSON), or a value of no text of its own."""
    view = memoryview(content)
    at, end = 0, len(view)
    while at < end and view[at] in b" \t\r\n":
        at += 1
    if at == end:
        return False
    first = view[at]
    if first != 0x22:  # not a string: a list's texts are read
        return first not in _NOT_TEXT
    at += 1
    while at < end and view[at] == 0x20:
        at += 1
    return at == end or view[at] in b"[\\" or view[at] < 0x21 or view[at] >= 0x80


def _said(content: msgspec.Raw) -> str:
    try:
        return flatten(loads_mended(memoryview(content)))
    except orjson.JSONDecodeError:
        return ""


def result_value(value: Any) -> Any:
    """A ``toolUseResult`` as a Python value (decoded now if it is still bytes)."""
    if isinstance(value, msgspec.Raw):
        if value is _NOTHING:
            return None
        try:
            return orjson.loads(memoryview(value))
        except orjson.JSONDecodeError:  # JSON orjson refuses (a number out of its range)
            return None
    return value


def result_facts(value: Any) -> Said:
    """What a ``toolUseResult`` says of its call (``Said``), decoding no more than that."""
    if isinstance(value, ResultFacts):
        return _said_of(value)
    if isinstance(value, msgspec.Raw):
        if value is _NOTHING:
            return NOTHING_SAID
        try:
            facts = _FACTS.decode(value)
        except msgspec.DecodeError:  # not an object, or fields of other types
            return _facts_of(_lenient(value))
        return _said_of(facts)
    return _facts_of(value)


def _lenient(raw: msgspec.Raw) -> Any:
    """A result msgspec refused, read as every other path reads a line: a number beyond
    a double's range (``1e400``) as infinity, a lone surrogate mended, so that one odd
    field counts as absent and the others are kept (None: not JSON)."""
    try:
        return loads_payload(bytes(raw))
    except ValueError:
        return None


def _said_of(facts: ResultFacts) -> Said:
    if facts == _NONE_SAID:  # (most results: an object that says none of these)
        return NOTHING_SAID
    took = facts.totalDurationMs
    return Said(
        facts.interrupted is True,
        facts.agentId,
        facts.status in LAUNCHED or facts.isAsync is True,
        facts.runId,
        took / 1000 if took is not None and took >= 0 else None,
        _spawned(facts.status, facts.teammate_id or facts.agent_id),
    )


def _spawned(status: Any, teammate: Any) -> str | None:
    """The teammate a spawn's result names (bare, as its messages give it), if it is one."""
    if status != "teammate_spawned" or not isinstance(teammate, str) or not teammate:
        return None
    return bare(teammate)


def _facts_of(value: Any) -> Said:
    """The same from a parsed value (a field of another type counts as absent)."""
    if not isinstance(value, dict):
        return NOTHING_SAID
    said = value.get("totalDurationMs")
    took: float | None = None
    if isinstance(said, (int, float)) and not isinstance(said, bool) and 0 <= said < math.inf:
        took = said  # (1e400 is read as infinity: no duration)
    return Said(
        value.get("interrupted") is True,
        str_or_none(value.get("agentId")),
        str_or_none(value.get("status")) in LAUNCHED or value.get("isAsync") is True,
        str_or_none(value.get("runId")),
        took / 1000 if took is not None else None,
        _spawned(  # (one of another type is absent: the next is read, as ``ResultFacts``)
            value.get("status"),
            str_or_none(value.get("teammate_id")) or value.get("agent_id"),
        ),
    )


__all__ = [
    "HOT",
    "NOTHING_SAID",
    "Line",
    "Said",
    "decode",
    "line_of",
    "result_facts",
    "result_value",
    "shape",
]
