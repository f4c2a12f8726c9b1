"""transcript-v1 on the format seam: its replay, peek, check, summary, export and diff.

The v1 machinery (``replay``, ``reader``, ``repair``, ``session``) is the writer's and
the scale engine's; this module only says how each read path reaches it.
"""

from __future__ import annotations

import bisect
import os
from array import array
from typing import IO, TYPE_CHECKING, Any, ClassVar

from ..item_column import ItemFacts
from ..model import (
    Compaction,
    Item,
    Part,
    Run,
    RunContext,
    ToolOp,
    Transcript,
    Usage,
    classify_op,
)
from ..parts import tool_call_part
from ..records import ToolOps
from ..text import as_str, count
from ..tool_ops import OpState
from .base import Builder, LiveModel, TranscriptFormat

if TYPE_CHECKING:
    from ..exportdoc import Document, View
    from ..following import FollowUpdate
    from ..peeking import PeekResult
    from ..replay import ReplayState
    from ..scan import FileRead

NAME = "transcript-v1"


class V1Builder(Builder):
    """A v1 replay fed record by record (a line that breaks a rule is a warning)."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        from ..replay import ReplayState

        self.state = ReplayState(path)
        self._model: V1Model | None = None

    def feed(self, record: dict[str, Any], line: int) -> None:
        from ..errors import TranscriptError
        from ..reader import check_envelope

        state = self.state
        try:
            check_envelope(record, line, self.path)
            if not state.event_lines and record["type"] != "session-meta":
                raise TranscriptError("is not session-meta; a transcript starts with one")
            state.feed(record, line)
        except TranscriptError as err:
            self.warnings.append(f"line {line}: {err.reason} (not applied)")

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        self.state.warnings[:0] = [w for w in self.warnings if w not in self.state.warnings]
        if self._model is None:
            self._model = V1Model(self.state)
        return self._model.transcript(self.path, writer_alive)


class V1Live(LiveModel):
    """The live model of a v1 file: ``follow``'s raw lines applied by ``LiveTranscript``
    (the index pass the v1 screen uses), the neutral model a ``V1Model`` of its replay."""

    def __init__(self, fmt: TranscriptFormat, path: str) -> None:
        super().__init__(fmt, path)
        from ..live import LiveTranscript

        self.replay = LiveTranscript(path)
        self._model: V1Model | None = None

    def apply(self, update: FollowUpdate) -> bool:
        self.note(update)
        self.replay.apply(update)  # a reset starts its state again
        return update.reset

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        state = self.replay.state
        if self._model is None or self._model.state is not state:
            self._model = V1Model(state)
        return self._model.transcript(self.path, writer_alive)


class V1Format(TranscriptFormat):
    name: ClassVar[str] = NAME
    title: ClassVar[str] = "transcript-v1"
    writable: ClassVar[bool] = True
    locks: ClassVar[bool] = True
    first_line: ClassVar[str] = "a session-meta line"
    parsed_updates: ClassVar[bool] = False

    def claims(self, record: dict[str, Any]) -> bool:
        return record.get("type") == "session-meta" and "v" in record

    def builder(self, path: str) -> Builder:
        return V1Builder(path)

    def live(self, path: str) -> LiveModel:
        return V1Live(self, path)

    def _state(self, path: str | os.PathLike[str]) -> ReplayState:
        from ..reader import replay_file

        return replay_file(path, tolerate_tail=True)

    def open(self, path: str | os.PathLike[str], *, writer_alive: bool | None = None) -> Transcript:
        where = os.fspath(path)
        return transcript_of(self._state(where), where, writer_alive)

    def replay_json(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        from ..views import replay_json

        return replay_json(self._state(path), writer_alive=self.writer_alive(path))

    def write_replay(self, path: str | os.PathLike[str], out: IO[bytes]) -> None:
        from ..views import write_replay

        write_replay(self._state(path), out, writer_alive=self.writer_alive(path))

    def check(self, path: str | os.PathLike[str]) -> str:
        # The replay's counts, not its JSON view: a check reads no message body.
        state = self._state(path)
        note = f"{NAME}, {count(len(state.entries), 'message')}"
        pending = state.pending_count
        if pending:
            note += f", {count(pending, 'tool operation')} pending"
        for warning in state.warnings:
            note += f"; warning: {warning}"
        return note

    def peek_into(self, result: PeekResult) -> None:
        from ..peeking import peek_v1

        peek_v1(result)

    def document(self, path: str | os.PathLike[str], view: View = "replayed") -> Document:
        from ..exportdoc import v1_document

        where = os.fspath(path)
        return v1_document(self._state(where), where, view)

    def diff(self, path: str | os.PathLike[str]) -> str:
        from ..diff import render_diff

        return render_diff(self._state(path), os.fspath(path))

    def summarise_file(self, read: FileRead) -> None:
        from .. import scan

        scan.v1_summary(read)


def op_state(op: dict[str, Any], answered: bool, writer_alive: bool | None) -> OpState:
    """A v1 operation record's state: its outcome once settled, else what the file shows."""
    outcome = op.get("outcome") if op.get("settled") else None
    if op.get("settled") and not isinstance(outcome, str):
        outcome = "outcome-unknown"
    return state_of(outcome, answered, writer_alive)


def state_of(outcome: str | None, answered: bool, writer_alive: bool | None) -> OpState:
    """A v1 operation's state from its settle's outcome (None: not settled), whether a
    tool message answers its call and whether the writer is alive."""
    if outcome is not None:
        return outcome  # type: ignore[return-value]
    if answered:
        return "unsettled-answered"
    return classify_op(has_result=False, writer_alive=writer_alive)


def transcript_of(state: ReplayState, path: str, writer_alive: bool | None) -> Transcript:
    """A v1 replay in the neutral model, once (a followed replay keeps a ``V1Model``)."""
    return V1Model(state).transcript(path, writer_alive)


class V1Model:
    """The neutral model of one replay, kept from one snapshot to the next.

    Its items are packed (``ItemColumn``) from the facts the replay took of each message
    line (role, lines, tool calls, the call it answers): a line read from the file is not
    read again for a snapshot, only when its item is built (drawn, copied, searched),
    with its timestamp. A snapshot takes only the message lines new since the last one
    and makes again only the tool operations that were not settled yet, each read from
    its lines only when asked for (``V1Op``): following a big file costs what the new
    lines cost, not the whole file again.
    """

    def __init__(self, state: ReplayState) -> None:
        from ..item_column import ItemColumn
        from ..usage import UsageTally

        self.state = state
        self.column = ItemColumn()
        self.column.facts = _V1Facts(self)
        self.column_at = array("l")  # per event: its message's index in the column, or -1
        self.index_of: dict[str, int] = {}  # of the messages kept as dicts (no line)
        self.answered: set[str] = set()
        self.usage = UsageTally()
        self._messages = 0  # message lines in the column
        self._overlays = (0, 0)  # compactions and elisions the built items were marked for
        self._ops: list[ToolOp] = []
        self._open: list[int] = []  # operations not settled at the last snapshot
        self._contexts: list[RunContext] = []  # of the run-context lines, in file order
        self._started: list[str | None] = []  # each run-context line's ts, in file order

    def transcript(self, path: str, writer_alive: bool | None) -> Transcript:
        from ..events import LazyPayload
        from ..item_column import STICKY, Items

        state = self.state
        self._add_messages()
        overlays = (len(state.compactions), len(state.elisions))
        if overlays != self._overlays:
            self._overlays = overlays
            self.column.changed_all()  # their marks are asked for again
        column, column_at, index_of = self.column, self.column_at, self.index_of
        entries: list[int | Item] = []
        for mid, body, sticky, stub in state.entries:
            found = column_at[body.index] if type(body) is LazyPayload else index_of.get(mid, -1)
            if found < 0:
                item = _item(mid, dict(body), 0)
            elif stub is not None:
                # The stub in its message's place (the message's own parts are not read).
                role, line = column.role_of(found), column.line[found]
                item = Item(mid, role, [Part("text", stub)], line, marks=["elided"])
            else:
                # As the raw item it is (the two views share it), sticky as the replay says.
                (column.flag if sticky else column.unflag)(found, STICKY)
                entries.append(found)
                continue
            item.sticky = sticky
            entries.append(item)
        self.usage.update(state)
        return Transcript(
            format=NAME,
            path=path,
            meta=dict(state.meta),
            messages=Items(column, entries=entries),
            raw=Items(column),
            tool_operations=(ops := self._operations(writer_alive)),
            compactions=compactions_of(state),
            runs=self._runs(ops, writer_alive),
            usage=Usage.of_totals(self.usage.transcript),
            warnings=list(state.warnings),
            lines=state.last_line,
            extra={"grants": state.grants},
            writer_alive=writer_alive,
        )

    def _add_messages(self) -> None:
        """The message lines replayed since the last snapshot, into the column: a line
        kept by its span from its facts alone, one kept otherwise (appended live, as a
        dict or its bytes) as its parts."""
        from ..item_column import shape_height
        from ..replay import payload_of

        state, column = self.state, self.column
        events, lines = state.events, state.event_lines
        facts, ids = events.facts, events.ids
        source = events.source
        if column.source is None and source is not None:
            # (A followed file's source comes with its first lines.) What is read again.
            from ..indexing import loads_payload
            from ..parts import PartSource

            def load(span: int) -> list[Part]:
                envelope = loads_payload(source.read(span))
                self._stamp = (span, envelope.get("ts"))
                return _parts(payload_of(envelope))

            column.source = PartSource(load)
        column_at = self.column_at
        column_at.extend([-1] * (len(lines) - len(column_at)))
        unread = column.source is not None
        positions = state.message_events
        for position in positions[self._messages :]:
            kept = events.kept(position)
            mid = ids[position]
            tcid = facts.answers(position)
            if unread and type(kept) is int and kept:
                if tcid is not None:
                    height, nparts = 2, 1  # its result, alone
                else:
                    others = facts.reasoning(position) + len(facts.calls(position))
                    height = shape_height(facts.lines(position), others)
                    nparts = 1 + others
                index = column.append_unread(
                    int(lines[position]),
                    kept,
                    role=facts.role(position),
                    height=height,
                    nparts=nparts,
                    ident=mid,
                )
            else:
                envelope = events[position]
                ts = envelope.get("ts")
                index = column.append(
                    _parts(payload_of(envelope)),
                    int(lines[position]),
                    role=facts.role(position),
                    ts=ts if isinstance(ts, str) else None,
                    ident=mid,
                    keep=True,
                )
                if type(kept) is dict:
                    self.index_of[mid] = index
            if tcid is not None:
                self.answered.add(tcid)
            column_at[position] = index
        self._messages = len(positions)

    _stamp: tuple[int, Any] = (0, None)  # the last line read again: its span and ts

    def stamp(self, span: int) -> str | None:
        """The timestamp of the message line at ``span`` (read with its parts, mostly)."""
        at, ts = self._stamp
        if at != span:
            from ..indexing import loads_payload

            source = self.state.events.source
            try:
                ts = loads_payload(source.read(span)).get("ts") if source is not None else None
            except (OSError, ValueError):
                ts = None
        return ts if isinstance(ts, str) else None

    def marks_of(self, mid: str) -> list[str]:
        """A message's marks: folded by a compaction, stubbed by an elision."""
        state = self.state
        return [
            m for m, ids in (("folded", state.folded_by), ("elided", state.elided)) if mid in ids
        ]

    def _operations(self, writer_alive: bool | None) -> list[ToolOp]:
        """Every operation: the settled ones as they were made, the others made again
        (their state moves with the answers and the writer). None is read from its lines
        until one of its fields that only they hold is asked for (``V1Op``)."""
        records, ops = self.state.tool_ops, self._ops
        fresh = [*self._open, *range(len(ops), len(records))]
        ops.extend([_NO_OP] * (len(records) - len(ops)))
        self._open = []
        for index in fresh:
            ops[index] = V1Op.of(records, index, self.answered, writer_alive)
            if not records.is_settled(index):
                self._open.append(index)
        return list(ops)

    def _runs(self, ops: list[ToolOp], writer_alive: bool | None) -> list[Run]:
        """A run for each run id, from the run-context line that starts it to the next
        run's (a later line for the same id gives its context again); its usage is the
        messages' in between (``UsageTally``). It is running while an operation of it has
        no result, and so is the last run while the writer lives (interrupted once the
        writer is gone); else finished."""
        state = self.state
        contexts, lines = state.run_contexts, state.event_lines
        for index in range(len(self._contexts), len(contexts)):
            line = int(lines[contexts.event(index)])
            record = contexts[index]
            self._contexts.append(_context(state, record, line))
            self._started.append(record.get("ts") or None)
        first: dict[str, int] = {}  # run id -> its first run-context line, and its last
        latest: dict[str, int] = {}
        for index, run_id in enumerate(contexts.run_ids):
            first.setdefault(run_id, index)
            latest[run_id] = index
        pending = {op.run_id for op in ops if op.state in ("running", "interrupted")}
        messages = state.message_events
        order = list(first)
        runs: list[Run] = []
        for number, run_id in enumerate(order):
            begin = contexts.event(first[run_id])
            end = contexts.event(first[order[number + 1]]) if number + 1 < len(order) else None
            run_state: Any = "finished"
            if run_id in pending or (end is None and writer_alive):
                run_state = "interrupted" if writer_alive is False else "running"
            totals = self.usage.runs.get(run_id)
            runs.append(
                Run(
                    id=run_id,
                    state=run_state,
                    line=int(lines[begin]),
                    end_line=None if end is None else int(lines[end]) - 1,
                    started=self._started[first[run_id]],
                    usage=Usage.of_totals(totals) if totals is not None else Usage(),
                    context=self._contexts[latest[run_id]],
                    items=bisect.bisect_left(messages, len(lines) if end is None else end)
                    - bisect.bisect_left(messages, begin),
                )
            )
        return runs


class _V1Facts(ItemFacts):
    """What a v1 item is told by the replay when it is built: its marks and usage (from
    the message's facts), and the timestamp of a line appended unread."""

    def __init__(self, model: V1Model) -> None:
        self.model = model

    def ts(self, index: int, span: int) -> str | None:
        return self.model.stamp(span)

    def usage(self, index: int) -> Usage | None:
        state = self.model.state
        position = state.message_events[index]
        facts = state.events.facts
        if facts.role(position) != "assistant" and facts.usage(position) is None:
            return None
        return Usage.from_message_usage(facts.usage(position))

    def marks(self, index: int, ident: str) -> list[str]:
        return self.model.marks_of(ident)


MISSING = "[this section's body is not in the transcript]"  # the line carrying it is gone


def _context(state: ReplayState, record: dict[str, Any], line: int) -> RunContext:
    """A run-context line's facts and its sections' bodies (wherever they are carried)."""
    facts = [(str(k), str(v)) for f in record.get("facts", []) if len(f) == 2 for k, v in [f]]
    sections = []
    for section in record.get("sections", []):
        body = state.run_context_section(str(section.get("digest", "")))
        sections.append((str(section.get("name", "")), body if body is not None else MISSING))
    return RunContext(facts=facts, sections=sections, line=line)


class V1Op(ToolOp):
    """A v1 operation: its call id, run id and state from what the replay kept of it; its
    tool, arguments and times read from its lines (``ToolOps``) when first asked for."""

    __slots__ = ("_index", "_read", "_records")
    _records: ToolOps
    _index: int
    _read: bool

    @classmethod
    def of(
        cls, records: ToolOps, index: int, answered: set[str], writer_alive: bool | None
    ) -> V1Op:
        op = cls.__new__(cls)
        op._records, op._index, op._read = records, index, False
        op.call_id = records.call_ids[index]
        op.run_id = records.run_ids[index]
        op.state = state_of(records.outcome(index), op.call_id in answered, writer_alive)
        for name in _FROM_LINES:
            _SLOTS[name].__set__(op, None)
        op.line, op.sidechain = 0, False
        for name in ("result", "detail", "result_line", "message_id", "progress", "subagent"):
            _SLOTS[name].__set__(op, None)
        return op

    def record(self) -> dict[str, Any]:
        """The operation's record as its lines say (``records.operation``)."""
        record: dict[str, Any] = self._records[self._index]
        return record

    def _fill(self) -> None:
        record = self.record()
        duration = record.get("duration")
        values = {
            "tool": str(record.get("tool", "")),
            "arguments": record.get("arguments"),
            "started": record.get("dispatched-at"),
            "ended": record.get("settled-at"),
            "duration": duration if isinstance(duration, int | float) else None,
        }
        for name, value in values.items():
            _SLOTS[name].__set__(self, value)
        self._read = True


class _FromLines:
    """A ``V1Op`` field read from its lines when first asked for."""

    def __init__(self, name: str) -> None:
        self.slot = _SLOTS[name]

    def __get__(self, op: V1Op | None, owner: type | None = None) -> Any:
        if op is None:
            return self
        if not op._read:
            op._fill()
        return self.slot.__get__(op, V1Op)

    def __set__(self, op: V1Op, value: Any) -> None:
        if not op._read:
            op._fill()
        self.slot.__set__(op, value)


_SLOTS: dict[str, Any] = {name: ToolOp.__dict__[name] for name in ToolOp.__slots__}
_FROM_LINES = ("tool", "arguments", "started", "ended", "duration")
for _name in _FROM_LINES:
    setattr(V1Op, _name, _FromLines(_name))


_NO_OP = ToolOp(call_id="", tool="", state="running")


def compactions_of(state: ReplayState) -> list[Compaction]:
    """A v1 replay's compactions, then its elisions, in the neutral model."""
    return [
        Compaction(
            id=c.id,
            kind="compaction",
            line=0,
            summary=c.summary,
            folded=list(c.folded),
            kept=list(c.kept),
            tokens_before=c.tokens_before,
            tokens_after=c.tokens_after,
            ts=c.ts,
        )
        for c in state.compactions
    ] + [
        Compaction(id=e.elision_id, kind="elision", line=0, summary=e.stub, folded=[e.message_id])
        for e in state.elisions
    ]


def _item(mid: str, payload: dict[str, Any], line: int) -> Item:
    return Item(mid, _role(payload), _parts(payload), line, sticky=bool(payload.get("sticky")))


def _role(payload: dict[str, Any]) -> str:
    """A message's role, as its facts say it (``facts.message_facts``)."""
    return as_str(payload.get("role")) or "user"


def _parts(payload: dict[str, Any]) -> list[Part]:
    """A message line's parts: its text, its reasoning, its tool calls; a tool message's
    result (failed where it says ``is-error``). Its facts say as much (``V1Model``
    measures an item from them): the lines of ``as_str(content)``, a reasoning part where
    the reasoning is truthy, a call for each tool-call object."""
    parts = [Part("text", as_str(payload.get("content")))]
    reasoning = payload.get("reasoning")
    if reasoning:
        parts.append(Part("reasoning", as_str(reasoning)))
    calls = payload.get("tool-calls")
    if isinstance(calls, list):
        for call in calls:
            if isinstance(call, dict):
                function = call.get("function")
                function = function if isinstance(function, dict) else {}
                parts.append(tool_call_part(call.get("id", ""), function.get("name", ""), function))
    tcid = payload.get("tool-call-id")
    if tcid is not None:
        failed = bool(payload.get("is-error"))
        parts = [Part("tool-result", parts[0].text, call_id=as_str(tcid), is_error=failed)]
    return parts
