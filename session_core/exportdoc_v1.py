"""The export document of a transcript-v1 replay: the conversation (replayed or raw),
tool operations, run contexts and usage per run, built as the renderer reaches them."""

from __future__ import annotations

import itertools
import json
import math
from array import array
from collections.abc import Iterator, Mapping
from typing import Any

from .events import REFUSED
from .exportdoc import (
    UNSHOWN_CALLS,
    CallItem,
    CallKey,
    Document,
    Heading,
    Item,
    Mark,
    MessageItem,
    Note,
    PrintedOnce,
    Section,
    Table,
    TextBlock,
    Tone,
    View,
    _message_usage,
    _preview,
    _s,
    _usage_fact,
    _usage_rows,
    arguments_cell,
    by_ask,
    document_title,
    elision_marks,
    noting_calls,
)
from .formats.v1.model import NAME
from .formats.v1.ops import answered_last, op_state, superseded_ops, undispatched_states
from .message_usage import counts_as_turn, v1_usage
from .model import STATE_LABELS
from .packed_ids import BATCH, PackedIds, Texts
from .replay import Compaction, ReplayState, payload_of
from .text import Name, count, duration_text, finish_mark
from .times import seconds_between
from .titles import v1_first_prompt
from .tool_ops import ask_of, state_tone
from .usage import NO_RUN, tally_state

# The line types the raw view exports as what they did (read), and those it leaves out
# (what they did is in the tool operations, the header); any other, as written.
_SHOWN_AS_READ = frozenset({"message", "compaction", "run-context", "grants", "elision"})
_NOT_SHOWN = frozenset({"session-meta", "tool-dispatched", "tool-settled"})


class _V1:
    """Builds a v1 document as it is rendered: what it keeps for the whole file is
    small (each id's first line and each message id's last copy, packed and found by
    hash; call ids numbered, with int columns), and a message's text (or an answer's,
    for its call's preview) is read again by its span when its turn comes."""

    def __init__(
        self, state: ReplayState, path: str, view: View, writer_alive: bool | None
    ) -> None:
        self.state, self.path, self.view = state, path, view
        events = state.events
        # Each id's first line (where a message or an operation is said to be), packed
        # and found by hash: a dict of every line's id and time was most of a big export.
        self.firsts = PackedIds("first")
        ids = events.ids
        for start in range(0, len(ids), BATCH):
            self.firsts.extend(ids.texts(start, min(start + BATCH, len(ids))))
        self.compactions: dict[str, Compaction] = {c.id: c for c in state.compactions}
        # Call ids, numbered as first met (packed: a dict entry and a str each was most of
        # what a 1 GB export kept), and per number: the event of the last message asking,
        # of its first answer, and its (last) operation (-1: none).
        self.calls = Texts()
        self.call_at = array("i")
        self.first_answer = array("i")
        self.op_index = array("i")
        self.more_answers: dict[int, list[int]] = {}  # a call answered again: every answer
        self.call_order = array("i")  # the numbers of the calls asked, as first asked
        self.first_ask = array("i")  # per number: the event that first asks for it
        # A call id another message asks for again (a writer that numbers its calls again
        # after a compaction, say) is another call: per such number, the event where each
        # message first asks for it, in order, and by (number, message id).
        self.asked_by: dict[int, list[int]] = {}
        self.asked_at: dict[tuple[int, str], int] = {}
        # Each message id's last message (whose content an answer's preview shows).
        self.lasts = PackedIds("last")
        for index in state.message_events:
            payload = payload_of(events[index])
            mid = ids[index]
            self.lasts.append(mid)
            for call in _calls(payload):
                number = self._number(_s(call.get("id")))
                if self.call_at[number] < 0:
                    self.call_order.append(number)
                    self.first_ask[number] = index
                elif ids[self.call_at[number]] != mid:  # (not the message again)
                    askers = self.asked_by.get(number)
                    if askers is None:
                        first = self.first_ask[number]
                        askers = self.asked_by[number] = [first]
                        self.asked_at[(number, ids[first])] = first
                    if (number, mid) not in self.asked_at:
                        self.asked_at[(number, mid)] = index
                        askers.append(index)
                self.call_at[number] = index
            tcid = payload.get("tool-call-id")
            if tcid is not None:
                number = self._number(_s(tcid))
                first = self.first_answer[number]
                if first < 0:
                    self.first_answer[number] = index
                else:
                    self.more_answers.setdefault(number, [first]).append(index)
        self.more_ops: dict[int, list[int]] = {}  # a call id dispatched again: every op
        for index, cid in enumerate(state.tool_ops.call_ids):
            number = self._number(cid)
            if self.op_index[number] >= 0:
                self.more_ops.setdefault(number, [self.op_index[number]]).append(index)
            self.op_index[number] = index
        # A reused id's answers and operations, each given to the call it is of (``asker``)
        # once: per (number, the event asking), its answers and its last operation.
        self.answers_of: dict[tuple[int, int], list[int]] = {}
        self.op_at: dict[tuple[int, int], int] = {}
        for number, asks in self.asked_by.items():
            for ask, answers in by_ask(asks, ((a, a) for a in self._every_answer(number))).items():
                self.answers_of[(number, ask)] = answers
            ops = self.more_ops.get(number) or [self.op_index[number]]
            for ask, of_it in by_ask(asks, ((self.dispatch(i), i) for i in ops if i >= 0)).items():
                self.op_at[(number, ask)] = of_it[-1]
        self.superseded = superseded_ops(state)
        self.undispatched = undispatched_states(state, writer_alive)
        self.answered_last = answered_last(state, writer_alive)
        self.tally = tally_state(state)
        self.writer_alive = writer_alive

    def preview(self, mid: str) -> str:
        """What the model is sent of message ``mid`` (its last copy), in brief: read again
        when a call's result is shown (kept for every answer, it was a big file's most)."""
        if self.view == "replayed":  # what the model is sent: a stub replaces a content
            entry = self.state.live_entry(mid)
            if entry is not None and entry[3] is not None:
                return _preview(entry[3])
        node = self.lasts.find(mid)
        if node < 0:
            return ""
        event = self.state.message_events[node]
        return _preview(_s(payload_of(self.state.events[event]).get("content")))

    def _number(self, cid: str) -> int:
        number = self.calls.number(cid)
        if number == len(self.call_at):  # (a new one)
            for column in (self.call_at, self.first_answer, self.op_index, self.first_ask):
                column.append(-1)
        return number

    def _every_answer(self, number: int) -> list[int]:
        first = self.first_answer[number]
        return self.more_answers.get(number) or ([first] if first >= 0 else [])

    def answers(self, cid: str, asked: int | None = None) -> list[int]:
        """The events of the tool messages answering call ``cid`` (raw file, in order);
        ``asked``: of the call asked at that event (``asks``) alone."""
        number = self.calls.find(cid)
        if number < 0:
            return []
        if asked is None or number not in self.asked_by:
            return self._every_answer(number)
        return self.answers_of.get((number, asked), [])

    def asks(self, number: int) -> list[int]:
        """The events where the messages asking for call id ``number`` first ask for it,
        in order: each is a call of its own."""
        return self.asked_by.get(number) or [self.first_ask[number]]

    def asker(self, number: int, event: int) -> int:
        """Which call of id ``number`` event ``event`` (an answer, an operation) is of
        (``ask_of``: the last asked before it, else the first)."""
        return ask_of(self.asks(number), event)

    def asked_in(self, cid: str, eid: str) -> int | None:
        """The event where message ``eid`` asks for call ``cid`` (``asks``), None if none."""
        number = self.calls.find(cid)
        if number < 0:
            return None
        if number in self.asked_by:
            return self.asked_at.get((number, eid))
        first = self.first_ask[number]
        return first if first >= 0 and self.state.events.ids[first] == eid else None

    def line_of(self, eid: str) -> int | None:
        node = self.firsts.find(eid)
        return None if node < 0 else self.state.event_lines[node]

    def ts_of(self, eid: str) -> str:
        node = self.firsts.find(eid)
        return "" if node < 0 else _s(self.state.events[node].get("ts"))

    def anchor(self, eid: str) -> str:
        return f"line-{self.line_of(eid) or 0}"

    def where(self, eid: str) -> str:
        line = self.line_of(eid)
        return f"line {line}" if line is not None else f"id {eid}"

    def answered_at(self, answers: list[int]) -> str:
        ids = self.state.events.ids
        return ", ".join(self.where(ids[a]) for a in answers)

    def op_of(self, cid: str, asked: int | None = None) -> int:
        """The index of call ``cid``'s (last) operation, -1 if none; ``asked``: of the
        call asked at that event (``asks``) alone."""
        number = self.calls.find(cid)
        if number < 0 or asked is None or number not in self.asked_by:
            return -1 if number < 0 else self.op_index[number]
        return self.op_at.get((number, asked), -1)

    def dispatch(self, index: int) -> int:
        """The event of operation ``index``'s dispatch."""
        return self.firsts.find(_s(self.state.tool_ops[index].get("op-id")))

    def op(self, cid: str, asked: int | None = None) -> dict[str, Any] | None:
        index = self.op_of(cid, asked)
        return None if index < 0 else self.state.tool_ops[index]

    def last_copy(self, asked: int) -> int:
        """The event of the last copy of the message at event ``asked``."""
        node = self.lasts.find(self.state.events.ids[asked])
        return asked if node < 0 else self.state.message_events[node]

    def call_event(self, cid: str) -> int:
        """The event of the (last) message that asks for call ``cid``, -1 if none."""
        number = self.calls.find(cid)
        return -1 if number < 0 else self.call_at[number]

    def call(self, cid: str, asked: int | None = None) -> tuple[str, str] | None:
        """The (name, arguments) of the last call of that id the file asks for, or of the
        one asked at event ``asked``, as the last copy of its message says (None: no
        message asks for it)."""
        index = self.call_event(cid) if asked is None else self.last_copy(asked)
        if index < 0:
            return None
        found: Mapping[str, Any] = {}
        for call in _calls(payload_of(self.state.events[index])):
            if _s(call.get("id")) == cid:
                found = call
        function = found.get("function")
        function = function if isinstance(function, dict) else {}
        return _s(function.get("name")), _s(function.get("arguments"))

    def op_state(self, cid: str, asked: int | None = None) -> tuple[str, Tone]:
        """The operation's state in the one vocabulary (``model.STATE_LABELS``);
        ``asked``: of the call asked at that event (``asks``)."""
        index = self.op_of(cid, asked)
        answered = bool(self.answers(cid, asked))
        state: str
        if index < 0:
            event = self.call_event(cid) if asked is None else self.last_copy(asked)
            state = self.undispatched(event, answered)
        else:
            op = self.state.tool_ops[index]
            gone = not op.get("settled") and self.superseded(index)
            alive = False if gone else self.writer_alive
            state = op_state(op, answered, alive, self.answered_last(index))
            if state == "interrupted":
                state = "running-dead"
        return STATE_LABELS.get(state, state), state_tone(state)  # type: ignore[return-value]

    def op_details(self, op: dict[str, Any]) -> list[str]:
        out = []
        for key in ("idempotency", "run-id", "round", "reason", "error"):
            if op.get(key) is not None:
                out.append(f"{key} {_s(op.get(key))}")
        if isinstance(op.get("duration"), int | float):
            out.append(f"duration {_duration(op['duration'])}")
        artifact = op.get("artifact")
        if isinstance(artifact, dict):
            out.append(f"artifact {_s(artifact.get('file'))}")
        out.append(f"dispatched at {self.where(_s(op.get('op-id')))}")
        if op.get("settle-id"):
            out.append(f"settled at {self.where(_s(op.get('settle-id')))}")
        return out

    def call_items(self, eid: str, payload: Mapping[str, Any]) -> list[CallItem]:
        items = []
        for call in _calls(payload):
            cid = _s(call.get("id"))
            asked = self.asked_in(cid, eid)
            name, arguments = self.call(cid, asked) or ("", "")
            status, tone = self.op_state(cid, asked)
            op = self.op(cid, asked)
            item = CallItem(name, cid, arguments, status, tone, self.op_details(op) if op else [])
            item.asked_in = eid
            answers = self.answers(cid, asked)
            if answers:
                first = self.state.events.ids[answers[0]]
                folded = self.view == "replayed" and not self.state.is_live(first)
                note = " (folded by a compaction; see the raw view)" if folded else ""
                item.result = f"result: {self.where(first)}{note}: {self.preview(first)}"
                if len(answers) > 1:
                    item.result += f" (+{len(answers) - 1} more answers)"
                item.result_anchor = None if folded else self.anchor(first)
            else:
                item.result = "no tool message answers this call"
            items.append(item)
        return items

    def message(self, eid: str, payload: Mapping[str, Any], content: str) -> MessageItem:
        role = _s(payload.get("role")) or "user"
        facts = [self.where(eid), self.ts_of(eid), f"id {eid}"]
        flags = []
        for key in ("sticky", "sysprompt", "is-error", "outcome-unknown", "cancelled", "injected"):
            if payload.get(key):
                flags.append("ERROR" if key == "is-error" else key)
        if payload.get("depth") is not None:
            flags.append(f"depth {_s(payload.get('depth'))}")
        finish = finish_mark(payload.get("finish-reason"))
        if finish is not None:
            flags.append(finish)
        tcid = payload.get("tool-call-id")
        if tcid is not None:
            number = self.calls.find(_s(tcid))  # (the call this answers: asked before it)
            at = self.firsts.find(eid)
            asked = self.call(_s(tcid), self.asker(number, at) if number >= 0 else None)
            name = "?" if asked is None else asked[0]
            flags.append(f"answers {name} ({_s(tcid)})")
        item = MessageItem(self.anchor(eid), role, facts, content, flags)
        if payload.get("reasoning") is not None:
            item.blocks.append(("reasoning", _s(payload.get("reasoning"))))
        item.calls = self.call_items(eid, payload)
        item.usage = _message_usage(v1_usage(payload), counts_as_turn(payload))
        return item

    def summary(self, record: Compaction, content: str) -> MessageItem:
        item = MessageItem(
            self.anchor(record.id),
            "compaction",
            [self.where(record.id), record.ts, f"id {record.id}"],
            content,
        )
        tokens = (
            f"{'unknown' if record.tokens_before is None else record.tokens_before} → "
            f"{'unknown' if record.tokens_after is None else record.tokens_after}"
        )
        item.marks.append(
            Mark(
                "info",
                f"compaction summary: folds {count(len(record.folded), 'message')} through "
                f"{self.where(record.through)}, keeps {len(record.kept)} sticky; "
                f"tokens {tokens}; fallback {'yes' if record.fallback else 'no'}",
            )
        )
        return item

    def conversation(self) -> Section:
        title = (
            "Conversation (what the model is sent next)"
            if self.view == "replayed"
            else "Conversation (every line as written)"
        )
        return Section(title, "conversation", self.conversation_items())

    def conversation_items(self) -> Iterator[Item]:
        if self.view == "replayed":
            for eid, body, _sticky, stub in self.state.entries:
                record = self.compactions.get(eid)
                content = stub if stub is not None else _s(body.get("content"))
                item = self.summary(record, content) if record else self.message(eid, body, content)
                item.marks += elision_marks(self.state.elided.get(eid, []), raw=False)
                yield item
            return
        lines = self.state.event_lines
        for index in range(len(lines)):
            yield from self.raw_items(index, int(lines[index]))

    def raw_items(self, index: int, line: int) -> list[Item]:
        """What the raw view exports of envelope ``index`` (at ``line``): a message as
        the replay shows it, what a line of another type did, or the line as written."""
        events = self.state.events
        kind = events.kinds[index]
        if kind in _NOT_SHOWN:
            return []
        if kind not in _SHOWN_AS_READ:
            # Not applied (a crash tail), or of a type this reader does not know: the line
            # as written, read again by its span (not parsed: a newer writer's keys too).
            text = events.written(index)
            if kind == REFUSED:
                return [TextBlock(f"line {line}: not applied (a crash tail, as written)", text)]
            return [TextBlock(f"line {line}: {kind} line (as written)", text)]
        envelope = events[index]
        eid = _s(envelope.get("id"))
        payload = payload_of(envelope)
        if kind in ("message", "compaction"):
            record = self.compactions.get(eid)
            if kind == "compaction" and record is None:
                return []
            original = record.summary if record else _s(payload.get("content"))
            item = (
                self.summary(record, original) if record else self.message(eid, payload, original)
            )
            folded = self.state.folded_by.get(eid)
            if folded is not None:
                item.marks.append(Mark("warn", f"folded by the compaction at {self.where(folded)}"))
            said = self.state.elided.get(eid, [])
            item.marks += elision_marks(said, raw=True, folded=folded is not None)
            return [item]
        if kind == "run-context":
            return [Note(f"line {line}: run {_s(payload.get('run-id'))} begins (run context)")]
        if kind == "grants":
            return [Note(f"line {line}: grants {_s(payload.get('grants'))}")]
        if kind == "elision":
            items = payload.get("items")
            named = (
                {_s(i.get("id")) for i in items if isinstance(i, dict)}
                if isinstance(items, list)
                else ()
            )
            return [Note(f"line {line}: elision of {len(named)} message(s)", "warn")]
        return []

    def tool_ops(self, shown: set[CallKey] | None = None) -> Section:
        """The operations' table; ``shown`` (filled as the conversation was written): each
        call it does not hold follows whole, its arguments and every answer."""
        section = Section("Tool operations", "tool-operations")
        if not len(self.state.tool_ops) and not self.call_order:
            section.items = [Note("No tool calls in this transcript.")]
            return section
        headers = ["state", "tool", "call id", "run", "round", "idempotency", "dispatched"]
        headers += ["settled", "duration", "error / reason", "answered at", "arguments"]
        table = Table(headers, self.tool_op_rows())
        section.items = itertools.chain((table,), self.unshown_calls(shown))
        return section

    def unshown_calls(self, shown: set[CallKey] | None) -> Iterator[Item]:
        if shown is None:
            return
        said = False
        ids = self.state.events.ids
        for number, asked in ((n, at) for n in self.call_order for at in self.asks(n)):
            cid = self.calls.text(number)
            if (ids[asked], cid) in shown:
                continue
            if not said:
                said = True
                yield Note(UNSHOWN_CALLS)
            name, arguments = self.call(cid, asked) or ("", "")
            status, _tone = self.op_state(cid, asked)
            where = self.where(ids[asked])
            yield TextBlock(f"{cid} · {name} · {status} · {where}: arguments", arguments)
            for answer in self.answers(cid, asked):
                content = _s(payload_of(self.state.events[answer]).get("content"))
                yield TextBlock(
                    f"{cid}: result ({self.where(self.state.events.ids[answer])})", content
                )

    def tool_op_rows(self) -> Iterator[list[str]]:
        for op in self.state.tool_ops:
            cid = _s(op.get("call-id"))
            number = self.calls.find(cid)  # (the call it ran: the last asked before it)
            dispatched = self.firsts.find(_s(op.get("op-id")))
            asked = self.asker(number, dispatched) if number >= 0 and dispatched >= 0 else None
            status, _tone = self.op_state(cid, asked)
            answers = self.answers(cid, asked)
            yield [
                status,
                _s(op.get("tool")),
                cid,
                _s(op.get("run-id")),
                _s(op.get("round")),
                _s(op.get("idempotency")),
                f"{self.where(_s(op.get('op-id')))} {_s(op.get('dispatched-at'))}",
                _s(op.get("settled-at")),
                _duration(op.get("duration")) or self.till_answer(op, answers),
                _s(op.get("error") or op.get("reason")),
                self.answered_at(answers),
                arguments_cell(op.get("arguments")),
            ]
        for number in self.call_order:
            if self.op_index[number] >= 0:
                continue
            cid = self.calls.text(number)
            status, _tone = self.op_state(cid)
            name, arguments = self.call(cid) or ("", "")
            answers = self.answers(cid)
            where = self.where(self.state.events.ids[self.call_at[number]])
            answered = self.answered_at(answers)
            said = arguments_cell(arguments or None)
            yield [status, name, cid, "", "", "", f"asked at {where}", "", "", "", answered, said]

    def till_answer(self, op: Mapping[str, Any], answers: list[int]) -> str:
        """How long an operation answered, not settled, ran at least: till its answer, as
        the viewer's ``took`` says it ("" settled, not answered, or a time not known)."""
        if op.get("settled-at") is not None or not answers:
            return ""
        answered = self.ts_of(self.state.events.ids[answers[0]])
        seconds = seconds_between(_s(op.get("dispatched-at")), answered)
        return "" if seconds is None else f"≥{duration_text(seconds)} (till its answer)"

    def run_contexts(self) -> Section:
        return Section("Run contexts", "run-contexts", self.run_context_items())

    def run_context_items(self) -> Iterator[Item]:
        if not self.state.run_contexts:
            yield Note("No run contexts in this transcript.")
        printed = PrintedOnce()  # (a body by its digest)
        for rc in self.state.run_contexts:
            run = _s(rc.get("run-id"))
            yield Heading(
                f"run {run} · {self.where(rc['id'])} · {rc['ts']} · digest {rc['digest']}"
            )
            facts = [[_s(k) for k in fact[:2]] + [""] * (2 - len(fact[:2])) for fact in rc["facts"]]
            if facts:
                yield Table(["fact", "value"], facts)
            for sec in rc["sections"]:
                name, digest = _s(sec.get("name")), _s(sec.get("digest"))
                body = sec.get("rendered")
                if not isinstance(body, str):
                    body = self.state.run_context_section(digest)
                if body is None:
                    where = sec.get("rendered-in")
                    yield Note(
                        f"section {name} (digest {digest}): body not in this transcript"
                        + (f" (rendered in {_s(where)})" if where else ""),
                        "warn",
                    )
                else:
                    yield printed.section(
                        run, name, digest, f"section {name} (digest {digest})", body
                    )

    def document(self) -> Document:
        state = self.state
        facts = [
            ("file", Name(self.path)),
            ("format", "transcript-v1"),
            ("view", self.view),
            ("meta", json.dumps(state.meta, ensure_ascii=False)),
            ("message lines", f"{state.message_count:,}"),
            ("messages sent next", f"{len(state.entries):,}"),
            ("compactions / elisions", f"{len(state.compactions)} / {len(state.elisions)}"),
            ("usage", _usage_fact(self.tally)),
        ]
        if state.grants:
            facts.append(("grants", json.dumps(state.grants, ensure_ascii=False)))
        usage = Section(
            "Usage per run",
            "usage",
            [
                _usage_rows(self.tally),
                Note(
                    "A run-context line starts its run; the messages after it, up to the next "
                    f"run-context line, belong to that run ({NO_RUN}: before any run "
                    "context). Turns are assistant messages; unknown is never counted as zero."
                ),
            ],
        )
        conversation = self.conversation()
        # (the calls the conversation shows, noted as it is written: the operations after
        # it give the others whole, a replayed view's calls a compaction folded)
        shown: set[CallKey] | None = set() if self.view == "replayed" else None
        if shown is not None:
            conversation.items = noting_calls(conversation.items, shown)
        sections = [conversation, self.tool_ops(shown), self.run_contexts(), usage]
        if state.warnings:
            sections.append(
                Section("Warnings", "warnings", [Note(w, "bad") for w in state.warnings])
            )
        agent = _s(state.meta.get("agent")) or "transcript"  # (where the meta has no title)
        title = document_title(
            state.meta, NAME, v1_first_prompt(state), f"{agent} — tailscope export"
        )
        return Document(title, facts, sections)


def _calls(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    calls = payload.get("tool-calls")
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


def _duration(value: Any) -> str:
    """A settle's duration as the viewer says it; as written where it is no number (a
    hand-written file)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value):  # (1e400 or -1e400: no duration, as replay's null)
            return ""
        if value >= 0:
            return duration_text(value)
    return "" if value is None else f"{_s(value)} s"


def v1_document(
    state: ReplayState, path: str, view: View, writer_alive: bool | None = None
) -> Document:
    return _V1(state, path, view, writer_alive).document()
