"""The small records the builder keeps: turns and compaction boundaries (its calls and
responses are columns: ``calls.CallColumn``, ``responses.Responses``)."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...column_items import ItemIds
    from ...model import Compaction


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
    responses: array[int] = field(default_factory=lambda: array("l"))  # (``Responses``)


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
    # The chain it folded, once worked out: a byte per node from ``folded_at`` (1: in it),
    # over its stretch of the file alone (a whole file's length each made 500
    # compactions of a 1 GB session cost hundreds of MB).
    folded: bytes | None = None
    folded_at: int = 0
    folded_ids: ItemIds | None = None  # its conversation items' ids
    # Its compaction as last made, and the summary item it was made with: made again
    # only once its summary has come (a snapshot does not make every boundary's again).
    made: Compaction | None = None
    made_with: str | None = None
