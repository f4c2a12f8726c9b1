"""The small records the builder keeps: turns and compaction boundaries (its calls and
responses are columns: ``calls.CallColumn``, ``responses.Responses``)."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...model import Compaction
from ...parts import CHANGED

if TYPE_CHECKING:
    from ...column_items import ItemIds
    from ...item_column import ItemColumn


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
    """A compact_boundary (or a microcompact_boundary: ``elision``; or a
    content-replacement line, an elision too: ``replaced``)."""

    id: str
    line: int
    node: int
    elision: bool
    record: dict[str, Any]
    before: int  # the last main-chain conversation node before it (-1: none)
    ts: str | None
    summary_at: int = -1  # the raw item whose text is its summary (-1: none said)
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
    # A content-replacement line's: each call id whose result the model was sent a
    # preview of instead, and that preview (None: a microcompact's, its ids said apart)
    replaced: dict[str, str] | None = None


class PackedSummary(Compaction):
    """A compaction whose summary is read again from its summary line when asked (that
    line's item's text parts, as its item shows them), or is kept as UTF-8: a summary
    is tens of KB, held by every compaction of the session, and a ``str`` with one
    character beyond Latin-1 (an emoji) takes 2 or 4 bytes a character (a 1 GB
    session's 520 summaries held 12.7 MB as ``str``, 3 MB as UTF-8)."""

    __slots__ = ("at", "column", "utf8")

    @property
    def summary(self) -> str:
        column = self.column
        if column is None:
            return self.utf8.decode("utf-8", "surrogatepass")
        # (its line's text parts; a line no longer that line is said to be, as its item
        # says it: the summary was "", and its Diff row and export block went unsaid)
        return "\n".join(
            p.text
            for p in column.parts_of(self.at)
            if p.kind == "text" or (p.kind == "other" and p.text == CHANGED)
        )

    @summary.setter
    def summary(self, text: str) -> None:
        self.utf8 = text.encode("utf-8", "surrogatepass")
        self.column: ItemColumn | None = None
        self.at = -1

    def read_from(self, column: ItemColumn, at: int) -> None:
        """Its summary is the text of ``column``'s item ``at``."""
        self.column, self.at, self.utf8 = column, at, b""
