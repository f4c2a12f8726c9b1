"""transcript-v1 on the format seam: its replay, peek, check, summary, export and diff.

The v1 machinery (``replay``, ``reader``, ``repair``, ``session``) is the writer's and
the scale engine's; this module only says how each read path reaches it.
"""

from __future__ import annotations

import os
from typing import IO, TYPE_CHECKING, Any, ClassVar

from ..model import (
    Compaction,
    Item,
    Part,
    RunContext,
    ToolOp,
    Transcript,
    Usage,
    classify_op,
)
from ..text import count
from .base import Builder, TranscriptFormat

if TYPE_CHECKING:
    from ..exportdoc import Document, View
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
        return transcript_of(self.state, self.path, writer_alive)


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


def op_state(op: dict[str, Any], answered: bool, writer_alive: bool | None) -> str:
    """A v1 operation record's state: its outcome once settled, else what the file shows."""
    if op.get("settled"):
        outcome = op.get("outcome")
        return outcome if isinstance(outcome, str) else "outcome-unknown"
    if answered:
        return "unsettled-answered"
    return classify_op(has_result=False, writer_alive=writer_alive)


def transcript_of(state: ReplayState, path: str, writer_alive: bool | None) -> Transcript:
    """A v1 replay in the neutral model. Its items are packed (``ItemColumn``): a message
    line's parts are read again by its span when the item is asked for, not kept."""
    from ..indexing import loads_payload
    from ..item_column import STICKY, ItemColumn, Items
    from ..parts import PartSource
    from ..replay import payload_of
    from ..usage import tally_state

    events = state.events
    lines = state.event_lines
    column = ItemColumn()
    source = events.source
    if source is not None:
        column.source = PartSource(
            lambda span: _parts(payload_of(loads_payload(source.read(span))))
        )
    answered: set[str] = set()
    index_of: dict[str, int] = {}
    folded, elided = state.folded_by, state.elided
    for position in state.message_events:
        envelope = events[position]
        payload = payload_of(envelope)
        mid = str(envelope.get("id", ""))
        kept = events.kept(position)
        ts = envelope.get("ts")
        index = column.append(
            _parts(payload),
            int(lines[position]),
            role=_role(payload),
            ts=ts if isinstance(ts, str) else None,
            sticky=bool(payload.get("sticky")),
            span=kept if isinstance(kept, int) else 0,
            ident=mid,
        )
        marks = [mark for mark, ids in (("folded", folded), ("elided", elided)) if mid in ids]
        if marks:
            column.set_marks(index, marks)
        tcid = payload.get("tool-call-id")
        if isinstance(tcid, str):
            answered.add(tcid)
        index_of[mid] = index
    entries: list[int | Item] = []
    for mid, body, sticky, stub in state.entries:
        found = index_of.get(mid)
        if found is None:
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
    raw = Items(column)
    messages = Items(column, entries=entries)
    ops = [
        ToolOp(
            call_id=str(op.get("call-id", "")),
            tool=str(op.get("tool", "")),
            state=op_state(op, op.get("call-id") in answered, writer_alive),  # type: ignore[arg-type]
            arguments=op.get("arguments"),
            run_id=op.get("run-id") if isinstance(op.get("run-id"), str) else None,
            started=op.get("dispatched-at"),
            ended=op.get("settled-at"),
            duration=op.get("duration") if isinstance(op.get("duration"), int | float) else None,
        )
        for op in state.tool_ops
    ]
    compactions = compactions_of(state)
    usage = Usage.of_totals(tally_state(state).transcript)
    contexts = []
    for context in state.run_contexts:
        facts = context.get("facts") if isinstance(context, dict) else None
        contexts.append(
            RunContext(facts=[tuple(f) for f in facts if isinstance(f, list) and len(f) == 2])
            if isinstance(facts, list)
            else RunContext()
        )
    return Transcript(
        format=NAME,
        path=path,
        meta=dict(state.meta),
        messages=messages,
        raw=raw,
        tool_operations=ops,
        compactions=compactions,
        usage=usage,
        warnings=list(state.warnings),
        lines=state.last_line,
        extra={"grants": state.grants},
        writer_alive=writer_alive,
    )


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
    role = payload.get("role")
    return role if isinstance(role, str) else "user"


def _parts(payload: dict[str, Any]) -> list[Part]:
    """A message line's parts: its text, its tool calls; a tool message's result."""
    content = payload.get("content")
    parts = [Part("text", content if isinstance(content, str) else "")]
    calls = payload.get("tool-calls")
    if isinstance(calls, list):
        for call in calls:
            if isinstance(call, dict):
                function = call.get("function")
                function = function if isinstance(function, dict) else {}
                parts.append(
                    Part(
                        "tool-call",
                        str(function.get("arguments", "")),
                        call_id=str(call.get("id", "")),
                        name=str(function.get("name", "")),
                        data=function.get("arguments"),
                    )
                )
    tcid = payload.get("tool-call-id")
    if isinstance(tcid, str):
        parts = [Part("tool-result", parts[0].text, call_id=tcid)]
    return parts
