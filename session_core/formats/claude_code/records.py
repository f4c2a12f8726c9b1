"""The small records the builder keeps: responses, turns, compaction boundaries (its
calls are columns: ``calls.CallColumn``)."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...model import Usage

if TYPE_CHECKING:
    from .uuids import ItemIds


NO_COUNT = -(1 << 63)  # a response's count not reported (``Response.tokens``)
_NO_COUNTS = array("q", [NO_COUNT] * 4)


@dataclass(slots=True)
class Response:
    """One API response: its item's facts and the largest usage its split lines reported."""

    id: str  # its item's id
    side: bool
    raw: int  # its index in the raw view
    model: str | None
    lines: int = 1
    usage: Usage | None = None
    priced: str | None = None  # the model its usage is priced as
    stale: bool = False  # its lines' usage changed since its Usage was made
    nodes: array[int] = field(default_factory=lambda: array("i"))  # (no int objects)
    calls: array[int] = field(default_factory=lambda: array("i"))  # its calls (``CallColumn``)
    # Its largest counts (input, output, cache read, cache write) over its lines, as
    # int64s (``NO_COUNT``: none reported; a list, past their range: ``usage.counts``).
    tokens: array[int] | list[int | None] = field(default_factory=lambda: _NO_COUNTS[:])
    stop: str | None = None
    run: int = -1
    order: int = -1  # its place among the file's responses (``builder.responses``)


@dataclass(slots=True)
class RunMark:
    """A turn: from a real prompt to its turn_duration or the next prompt."""

    id: str
    line: int
    prompt: str
    started: str | None
    end_line: int | None = None
    ended: str | None = None
    duration: float | None = None
    finished: bool = False
    cut: bool = False  # "[Request interrupted by user]"
    command: bool = False  # a slash command started it
    stop_line: int = 0  # the last stop_hook_summary (the model stopped; Stop hooks ran)
    response_line: int = 0  # the last line of a response in it
    last_line: int = 0
    last_ts: str | None = None
    items: int = 0
    responses: list[Response] = field(default_factory=list)


@dataclass(slots=True)
class Boundary:
    """A compact_boundary (or a microcompact_boundary: ``elision``)."""

    id: str
    line: int
    node: int
    elision: bool
    record: dict[str, Any]
    before: int  # the last main-chain conversation node before it (-1: none)
    ts: str | None
    summary: str = ""
    summary_item: str | None = None
    # A preserved segment (``compactMetadata.preservedSegment``): its head and tail
    # nodes, and the head's parent in the file (where the folded chain starts).
    head: int = -1
    tail: int = -1
    cut: int = -1
    kept_raw: list[int] = field(default_factory=list)  # the segment's items (raw indexes)
    folded: bytes | None = None  # the chain it folded, once worked out (per node 1: in it)
    folded_ids: ItemIds | None = None  # its conversation items' ids
