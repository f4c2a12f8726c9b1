"""The small records the builder keeps: responses, calls, turns, compaction boundaries."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...model import Part, PartRef, ToolOp, Usage

if TYPE_CHECKING:
    from ...item_column import ItemIds
    from .sidechains import InFile


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
    calls: list[str] = field(default_factory=list)
    # Its largest counts (input, output, cache read, cache write) over its lines, as
    # int64s (``NO_COUNT``: none reported; a list, past their range: ``usage.counts``).
    tokens: array[int] | list[int | None] = field(default_factory=lambda: _NO_COUNTS[:])
    stop: str | None = None
    run: int = -1
    order: int = -1  # its place among the file's responses (``builder.responses``)


@dataclass(slots=True)
class Call:
    """A tool_use and, once it came, the tool_result naming it."""

    call_id: str
    tool: str
    part: Part | PartRef  # the tool_use block (its input read from it: it may be lazy)
    line: int
    message_id: str
    side: bool
    run: int
    started: str | None
    result_part: Part | PartRef | None = None  # the tool_result block (text and detail)
    result_line: int | None = None
    result_node: int = -1
    is_error: bool = False
    interrupted: bool = False
    ended: str | None = None
    duration: float | None = None
    agent: str | None = None
    op: ToolOp | None = None  # its operation, made once it is settled
    sidechain: InFile | None = None  # its subagent's lines in this file (1.0.x)

    @property
    def arguments(self) -> Any:
        return self.part.data

    @property
    def result(self) -> str | None:
        return self.result_part.text if self.result_part is not None else None


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
