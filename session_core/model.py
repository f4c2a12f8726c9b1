"""The neutral model every format is read into: what the viewer, exports and browser show.

A format turns its lines into a ``Transcript``: conversation items (a role and parts),
tool operations with one state vocabulary, compactions and elisions as overlays,
runs with their contexts, and usage. Nothing downstream of it needs to know which
format a file was (a format's own extra panes excepted).

Two views of the conversation: ``raw`` is every line of the file in file order (lines
that are not messages included, as ``kind="record"`` items, so nothing is dropped);
``messages`` is the replayed view, what the model is sent next.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .item_ends import LAST_LOOK, LineEnds, last_stamp
from .other_records import OtherRecord
from .overlay_said import OverlayCounts
from .parts import LazyPart, Part, PartRef, PartSource, answering, said_beside, said_text
from .resumed import Resumed
from .runs import COPIED_CUT, COPIED_USAGE, Run, RunContext, RunState
from .subagent import Subagent
from .text import count, json_count
from .tool_ops import (
    STATE_LABELS,
    STATE_TONES,
    LazyToolOp,
    OpsByCall,
    OpState,
    ToolOp,
    classify_op,
    op_states,
    op_tools,
    ops_by_call,
    ops_in_state,
    packed_tools,
    unsettled_ops,
)
from .usage_totals import Usage, made_none

if TYPE_CHECKING:
    from .open_work import OpenWork

# -- conversation --------------------------------------------------------------------


LAZY_TEXT = 512  # characters of a part's text above which it is read again when asked for
LAZY_LINE = 2048  # bytes of a line above which its parts' structured data is read again


def make_lazy(parts: list[Part], source: PartSource | None, key: Any, line_bytes: int) -> None:
    """Turn, in place, the parts of one line whose text is long (or, on a long line, that
    carry structured data) into ``LazyPart``s read again from ``source`` when asked for."""
    if source is None:
        return
    long_line = line_bytes > LAZY_LINE
    for index, part in enumerate(parts):
        if type(part) is not Part:
            continue
        if len(part.text) > LAZY_TEXT or (long_line and part.data is not None):
            parts[index] = LazyPart(part, source, key, index)


@dataclass(slots=True)
class Item:
    """One conversation item: a message, or (in the raw view) any other line.

    ``kind`` says what the line is: ``message`` for what the model sees or said, or the
    format's own word for everything else (``meta``, ``command``, ``hook``, ``queued``,
    ``summary``, ``compaction``, ``record`` for a line kept as it is, ...). ``marks``
    flag what the raw view shows beside it: ``sidechain``, ``branch`` (not on the
    active chain), ``folded`` (a compaction replaced it), ``elided``, ``sticky``. An
    elided item whose elision left a stub in its place (v1's) carries that ``stub``: the
    conversation shows it, the original one key away.
    """

    id: str
    role: str
    parts: list[Part] = field(default_factory=list)
    line: int = 0  # first line of the file it came from (1-based; 0: not from a line)
    kind: str = "message"
    ts: str | None = None
    model: str | None = None
    usage: Usage | None = None  # this response's usage (assistant items)
    marks: list[str] = field(default_factory=list)
    sticky: bool = False
    lines: int = 1  # how many lines of the file it took (split responses take several)
    stub: str | None = None  # what the model is sent in its place (an elision's), if not it
    # Where it took several lines: its last line and that line's time (0: ``line`` is its
    # last; a run of progress lines, a response split over lines, ends seconds later).
    last_line: int = 0
    last_ts: str | None = None

    @property
    def end(self) -> tuple[int, str | None]:
        """Its last line and that line's time."""
        return (self.last_line, self.last_ts) if self.last_line else (self.line, self.ts)

    @property
    def text(self) -> str:
        """The text parts, joined: what a search or a preview reads first."""
        return "\n".join(p.text for p in self.parts if p.kind == "text")

    def tool_calls(self) -> list[dict[str, Any]]:
        """Its tool calls as the replay and ``peek`` write them: id, name, arguments, in
        written order; one whose id is no string (a Claude Code ``"id": 7``: no operation)
        is said raw in ``content`` instead (``said_in_content``), never a ``null`` id."""
        return [
            {"id": p.call_id, "name": p.name, "arguments": p.data}
            for p in self.parts
            if p.kind == "tool-call" and p.call_id is not None
        ]

    def to_json(self) -> dict[str, Any]:
        """The replay JSON of a message: id, role, content, and its tool calls or answer."""
        # (an image's words and an unknown block as written, among its text as the views
        # show them: ``said_text``)
        out: dict[str, Any] = {"id": self.id, "role": self.role, "content": said_text(self.parts)}
        calls = self.tool_calls()
        if calls:
            out["tool-calls"] = calls
        answers = answering(self.parts)
        if answers:
            out["tool-call-id"] = answers[0].call_id
            if len(answers) > 1:  # (one line answering several calls: each named)
                out["tool-call-ids"] = [p.call_id for p in answers]
            text = said_beside(self.parts, answers)
            if text:  # said beside the results (a hook's text, an interruption's)
                out["text"] = text
            out["content"] = "\n".join(p.text for p in answers)
        if self.stub is not None:  # what is sent: the stub, not what it replaced
            out["content"] = self.stub
            out.pop("text", None)
        reasoning = [p.text for p in self.parts if p.kind == "reasoning"]
        if reasoning:
            out["reasoning"] = "\n".join(reasoning)
        if self.sticky:
            out["sticky"] = True
        if self.kind != "message":
            out["kind"] = self.kind
        if self.ts is not None:
            out["ts"] = self.ts
        if self.model is not None:
            out["model"] = self.model
        return out


# -- compactions, runs ---------------------------------------------------------------

# The marks that say why an item of the raw view is no longer sent: folded into a
# compaction's summary, or dropped by a rollback (a Codex ``thread_rolled_back``, shown as
# a compaction whose trigger is "rollback").
FOLDED, ROLLED_BACK = "folded", "rolled-back"
NOT_SENT_MARKS = (FOLDED, ROLLED_BACK)
ROLLBACK = "rollback"  # the trigger of a rollback's compaction
# What every surface says of an overlay whose effect no request shows yet (``unsent``).
UNSENT = "not sent yet: no model request since"


def projection_dropped(where: str) -> str:
    """What every surface says of a message an agentgo projection dropped, that no
    request since holds (``where``: the projection's line, as that surface writes one)."""
    return f"dropped by the projection at {where}: not sent next"


@dataclass(slots=True)
class Compaction:
    """A compaction (what it folded into a summary) or an elision (what it stubbed)."""

    id: str
    kind: Literal["compaction", "elision"]
    line: int
    summary: str = ""
    folded: Sequence[str] = field(default_factory=list)  # item ids replaced by it
    # Of an elision's ``folded``, those it replaced by nothing (an agentgo projection
    # dropped them): not sent, where the others are sent as their stubs.
    dropped: Sequence[str] = field(default_factory=list)
    kept: Sequence[str] = field(default_factory=list)  # item ids the model still sees after it
    # Of ``kept``, the item that holds its own summary (a Claude Code summary line), sent
    # first: not a message it kept (None: its summary is on no line of its own, or none).
    summary_id: str | None = None
    trigger: str | None = None  # "manual" | "auto" | ...
    # (v1's and agentgo's as written, ``text.written_count``: said by ``count_text``)
    tokens_before: int | None = None
    tokens_after: int | None = None
    ts: str | None = None
    # No model request follows it yet, so what it folded is not known (an agentgo context
    # event: the request after it decides, and none is written yet): ``UNSENT``.
    unsent: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "line": self.line,
            "summary": self.summary,
            "folded": list(self.folded),
            "trigger": self.trigger,
            "tokens-before": json_count(self.tokens_before),
            "tokens-after": json_count(self.tokens_after),
        }
        if self.kept:
            out["kept"] = list(self.kept)
        if self.dropped:
            out["dropped"] = list(self.dropped)
        if self.unsent:
            out["unsent"] = True
        return out


def unsent_overlays(compactions: Sequence[Compaction]) -> list[Compaction]:
    """The overlays no model request follows yet (``Compaction.unsent``): the last ones,
    as a request after an overlay follows every one before it; read from the end (v1's
    tens of thousands are not made to ask)."""
    out: list[Compaction] = []
    for index in range(len(compactions) - 1, -1, -1):
        overlay = compactions[index]
        if not overlay.unsent:
            break
        out.append(overlay)
    return out[::-1]


def unsent_said(compactions: Sequence[Compaction]) -> str:
    """The overlays no model request follows yet, counted as the header and the Diff
    tab's first row say them: ``(1 compaction not sent yet)``; none: empty."""
    unsent = unsent_overlays(compactions)
    if not unsent:
        return ""
    return f"({', '.join(overlay_counts(unsent).said(detail=False))} not sent yet)"


def overlay_kind(overlay: Compaction) -> tuple[str, str]:
    """What an overlay is, and what it did to the items it names: a compaction folded
    them, an elision stubbed them, a rollback dropped them (it summarised nothing)."""
    if overlay.kind == "elision":
        return "elision", "stubbed"
    if overlay.trigger == ROLLBACK:
        return "rollback", "dropped"
    return "compaction", "folded"


def overlay_counts(compactions: Sequence[Compaction]) -> OverlayCounts:
    """The overlays counted by what they are: a rollback dropped turns, it summarised
    nothing, so it is no compaction; an elision is one record (its id and line), however
    many overlays hold what it stubbed (v1's, one a message), with the messages it
    stubbed each once. A sequence that knows its counts without making each overlay
    tells them (v1's ``Overlays``: a big file has tens of thousands)."""
    known = getattr(compactions, "counted", None)
    if known is not None:
        counted: OverlayCounts = known()
        return counted
    folded = rolled = unknown = 0
    records: set[tuple[str, int]] = set()
    stubbed: set[str] = set()
    dropped: set[str] = set()
    for overlay in compactions:
        if overlay.kind == "elision":
            if (overlay.id, overlay.line) not in records:
                records.add((overlay.id, overlay.line))
                unknown += overlay.unsent
            if not overlay.unsent:
                gone = set(overlay.dropped)
                dropped |= gone
                stubbed.update(i for i in overlay.folded if i not in gone)
        elif overlay.trigger == ROLLBACK:
            rolled += 1
        else:
            folded += 1
    return OverlayCounts(
        folded, len(records), rolled, len(stubbed), len(dropped - stubbed), unknown
    )


# -- the whole file ------------------------------------------------------------------


def rows_json(
    rows: Sequence[Item] | Sequence[ToolOp], fragments: bool = False
) -> Iterator[dict[str, Any]]:
    """Each item's (or operation's) ``to_json()``, in order: a sequence that makes them
    when asked for (``Items``, ``CodexOps``) writes them without making them to keep
    (``fragments``: a long string may come as its JSON, an ``orjson.Fragment``)."""
    made = getattr(rows, "json_rows", None)
    if callable(made):
        found: Iterator[dict[str, Any]] = made(fragments)
        return found
    return (row.to_json() for row in rows)


@dataclass(slots=True)
class Transcript:
    """One file read into the neutral model (read-only: nothing here writes)."""

    format: str
    path: str
    meta: dict[str, Any] = field(default_factory=dict)
    # Either may be a lazy sequence (``Items``) whose items are built when indexed.
    messages: Sequence[Item] = field(default_factory=list)  # the replayed view
    raw: Sequence[Item] = field(default_factory=list)  # every line, file order
    # (a list, or a sequence that makes each operation when asked for: v1's)
    tool_operations: Sequence[ToolOp] = field(default_factory=list)
    compactions: Sequence[Compaction] = field(default_factory=list)  # and elisions
    runs: Sequence[Run] = field(default_factory=list)  # (v1's: each made when asked for)
    usage: Usage = field(default_factory=Usage)  # the file's own responses
    subagents: list[Subagent] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    lines: int = 0  # lines read
    extra: dict[str, Any] = field(default_factory=dict)  # the format's own replay keys
    writer_alive: bool | None = None  # None: not known (not looked at)
    parent: str | None = None  # the session this file is a subagent of, where it says
    # Every line with its time where ``raw``'s items leave lines out (v1's dispatch, settle
    # and run-context lines, read back when asked): what ``last_time`` looks back over.
    line_ends: LineEnds | None = None
    # Its lines after the first say no time of their own, the first's (a header's) is
    # when it began (a mid-2025 Codex rollout): its last time is not that one.
    header_timed_alone: bool = False
    resumed: Resumed | None = None  # a resumed session's file: its copied lines' usage
    # Its format counts every model output a response, reported or not (the built-in
    # ones): none counted is none made (a plugin's that counts none: usage unknown).
    responses_counted: bool = False
    # Its records of a type the format does not name, as written (``other_records``)
    other_records: Sequence[OtherRecord] = field(default_factory=list)
    # Why the folder its subagents' files are listed from could not be (``Permission
    # denied``): more of them may be there than ``subagents`` holds, their usage unknown
    subagents_unlisted: str | None = None
    left_open: OpenWork | None = None  # its format's own read of it (v1's); None: ``open_work``

    def made_no_response(self) -> bool:
        """No model response could have reported (``usage_totals.NO_RESPONSE``): its
        format counts every one (``responses_counted``), none is counted, and no turn says
        the model answered (a Codex one with no report)."""
        if not (self.responses_counted and self.usage.unrequested):
            return False  # (asked at every draw: v1's runs are made when asked, each read)
        return made_none(self.usage, any(run.answered for run in self.runs))

    def last_time(self, look: int = LAST_LOOK) -> str | None:
        """The timestamp (as written) of the file's last line that has one, among the last
        ``look`` items, or lines (``line_ends``; a writer's bookkeeping lines may have
        none): ``last_stamp``."""
        ends = self.raw if self.line_ends is None else self.line_ends
        return last_stamp(ends, look, self.header_timed_alone)

    @property
    def usage_with_subagents(self) -> Usage | None:
        """The file's usage and its linked subagents' together (None without subagents):
        a subagent in the file itself is in the file's usage already, not added again."""
        if not self.subagents:
            return None
        return Usage.total([self.usage, *(s.usage for s in self.subagents if not s.in_file)])

    def subagents_left_out(self) -> str | None:
        """Why ``usage_with_subagents`` is a lower bound by its subagents, the one rule of
        every surface (the browser's ``≥``, the export's "at least", ``replay``'s
        ``usage-with-subagents-partial``): ``5 subagents not counted`` (a file missing,
        past the reader's bound, reporting no usage), ``1 read in part``; None: every one
        counted whole (an earlier session's, its calls copied, is not this one's)."""
        missing = sum(1 for s in self.subagents if not (s.counted or s.earlier))
        cut = sum(1 for s in self.subagents if s.in_part)
        said = [f"{count(missing, 'subagent')} not counted"] if missing else []
        if cut:
            many = f"{cut:,}" if said else count(cut, "subagent")
            said.append(f"{many} read in part")
        if self.subagents_unlisted is not None:
            said.append("more may be in a folder that cannot be read")
        return " and ".join(said) or None

    def _least(self) -> str:
        """``at least `` before a count of subagents where their folder could not be read."""
        return "at least " if self.subagents_unlisted is not None else ""

    def subagents_text(self) -> str:
        """``3 subagents``, ``200 of 1,878 subagents`` where only those count in
        ``usage_with_subagents`` (files missing, past the reader's bound, or reporting no
        usage), ``(1 read in part)`` where a file's read left a line out (``in_part``);
        and the earlier session's not read (a resumed file's copied calls': ``earlier``)."""
        mine = [s for s in self.subagents if not s.earlier]
        total = self._least() + count(len(mine), "subagent")
        counted = sum(1 for s in mine if s.counted)
        said = total if counted == len(mine) else f"{counted:,} of {total}"
        cut = sum(1 for s in mine if s.in_part)
        said = f"{said} ({cut:,} read in part)" if cut else said
        return said + self._earlier_text()

    def _earlier_text(self) -> str:
        """``, and 1 of the earlier session's not read`` (none: empty)."""
        earlier = sum(1 for s in self.subagents if s.earlier)
        return f", and {earlier:,} of the earlier session's not read" if earlier else ""

    def with_subagents_text(self) -> str:
        """What ``usage_with_subagents`` holds, in words: ``with 3 subagents``; where none
        is counted, the file's usage alone, and why (``1 subagent, its usage unknown``:
        never "with 0 of 1"); where this file reported no usage of its own, the
        subagents' alone (a total would take the unknown for 0): ``3 subagents alone
        (this file's unknown)``; where it reported no cost (a model without a price), that
        the cost is theirs alone."""
        if not any(s.counted for s in self.subagents):
            return self._none_counted_text()
        if not self.usage.known:
            return f"{self.subagents_text()} alone (this file's unknown)"
        both = self.usage_with_subagents
        if self.usage.cost is None and both is not None and both.cost is not None:
            return f"with {self.subagents_text()} (the cost theirs alone: this file's unknown)"
        return f"with {self.subagents_text()}"

    def _none_counted_text(self) -> str:
        """No subagent's usage counted: whether their files were read (their usage
        unknown) or not; those of the earlier session (``earlier``) said so."""
        mine = [s for s in self.subagents if not s.earlier]
        many = len(mine)
        if not many:  # (a resumed file's copied calls': the earlier session's alone)
            earlier = count(len(self.subagents), "subagent")
            return f"{earlier}, the earlier session's (copied calls), not read"
        read = sum(1 for s in mine if s.lines_read)
        if many == 1:
            said = "1 subagent, its usage unknown" if read else "1 subagent, its file not read"
        elif read:
            said = f"{many:,} subagents, none of their usage known"
        else:
            said = f"{many:,} subagents, none of their files read"
        return self._least() + said + self._earlier_text()

    def json_parts(self, fragments: bool = False) -> Iterator[tuple[str, Any]]:
        """The replay JSON's keys in order (shared/spec/api.md: the shared keys, then the
        format's own); the long lists as iterators, built an element at a time.
        ``fragments``: for a writer that dumps them with orjson, a long string may come as
        its JSON copied from the file (an ``orjson.Fragment``)."""
        parts: list[tuple[str, Any]] = [
            ("format", self.format),
            ("meta", self.meta),
            ("messages", rows_json(self.messages, fragments)),
            ("tool-operations", rows_json(self.tool_operations, fragments)),
            ("compactions", [c.to_json() for c in self.compactions]),
            ("usage", self.usage.to_json()),
            ("warnings", list(self.warnings)),
            ("other-records", [r.to_json() for r in self.other_records]),
            ("runs", (r.to_json() for r in self.runs)),
        ]
        if self.subagents:
            both = self.usage_with_subagents
            parts.append(("subagents", [s.to_json() for s in self.subagents]))
            parts.append(("usage-with-subagents", both.to_json() if both is not None else None))
            # (added: some linked subagent's usage is not in it, and the header's words why)
            partial = self.subagents_left_out() is not None
            parts.append(("usage-with-subagents-partial", partial))
            parts.append(("usage-with-subagents-said", self.with_subagents_text()))
        if self.resumed is not None:  # (of ``usage``: the copied lines' part of it)
            parts.extend(self.resumed.json_parts())
        yield from parts
        taken = {key for key, _value in parts}
        for key, value in self.extra.items():
            if key not in taken:  # the shared keys win over a format's own of the same name
                yield key, value

    def to_json(self) -> dict[str, Any]:
        """The neutral model as JSON, whole: what ``replay`` prints of a Claude Code or Codex
        file (of a v1 or agentgo file it prints that format's own view: ``views.replay_any``)."""
        return {
            key: list(value) if isinstance(value, Iterator) else value
            for key, value in self.json_parts()
        }

    def op_for_call(self, call_id: str) -> ToolOp | None:
        for op in self.tool_operations:
            if op.call_id == call_id:
                return op
        return None


__all__ = [
    "COPIED_CUT",
    "COPIED_USAGE",
    "FOLDED",
    "NOT_SENT_MARKS",
    "ROLLBACK",
    "ROLLED_BACK",
    "STATE_LABELS",
    "STATE_TONES",
    "UNSENT",
    "Compaction",
    "Item",
    "LazyPart",
    "LazyToolOp",
    "OpState",
    "OpsByCall",
    "OverlayCounts",
    "Part",
    "PartRef",
    "PartSource",
    "Run",
    "RunContext",
    "RunState",
    "Subagent",
    "ToolOp",
    "Transcript",
    "Usage",
    "classify_op",
    "make_lazy",
    "op_states",
    "op_tools",
    "ops_by_call",
    "ops_in_state",
    "overlay_counts",
    "overlay_kind",
    "packed_tools",
    "projection_dropped",
    "unsent_overlays",
    "unsent_said",
    "unsettled_ops",
]
