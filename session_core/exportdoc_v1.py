"""The export document of a transcript-v1 replay: the conversation (replayed or raw),
tool operations, run contexts and usage per run, built as the renderer reaches them."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping
from typing import Any

from .artifacts import ARTIFACT_SAID, artifact_status
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
    View,
    _message_usage,
    _s,
    _usage_fact,
    _usage_rows,
    answers_flag,
    arguments_cell,
    document_title,
    elision_marks,
    noting_calls,
)
from .exportdoc_v1_index import V1Index, _calls
from .formats.v1.left_open import v1_open_work
from .formats.v1.model import NAME
from .formats.v1.overlays import replay_counts
from .json_out import readable_json
from .message_usage import counts_as_turn, v1_usage
from .op_running import bound_between, took_said
from .open_work import IN_FLIGHT, open_work_said
from .overlay_said import OVERLAYS_FACT
from .replay import Compaction, ReplayState, payload_of
from .text import Name, count, count_text, duration_text, finish_mark, str_or_none
from .titles import v1_first_prompt
from .tool_ops import ToolOp
from .usage import NO_RUN

# The line types the raw view exports as what they did (read), and those it leaves out
# (what they did is in the tool operations, the header); any other, as written.
_SHOWN_AS_READ = frozenset({"message", "compaction", "run-context", "grants", "elision"})
_NOT_SHOWN = frozenset({"session-meta", "tool-dispatched", "tool-settled"})


class _Settled(ToolOp):
    """A v1 operation as the timing rule reads it: its dispatch and its settle are lines
    of their own (``V1Op.one_line``), so at one time it took ``0s``, not ``?``."""

    __slots__ = ()

    def one_line(self) -> bool:
        return False


class _V1(V1Index):
    """Builds a v1 document as it is rendered, from its index (``V1Index``): a
    message's text (or an answer's, for its call's preview) is read again by its span
    when its turn comes."""

    def op_details(self, op: dict[str, Any]) -> list[str]:
        out = []
        for key in ("idempotency", "run-id", "round", "reason", "error"):
            if op.get(key) is not None:
                out.append(f"{key} {_s(op.get(key))}")
        if isinstance(op.get("duration"), int | float):
            out.append(f"duration {_duration(op['duration'])}")
        artifact = op.get("artifact")
        if isinstance(artifact, dict):  # (its state as the viewer says it beside it)
            status = artifact_status(self.path, artifact.get("file"))
            said = ARTIFACT_SAID.get(status.state, status.state)
            out.append(f"artifact {_s(artifact.get('file'))} ({said})")
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
            flags.append(answers_flag(name, _s(tcid)))
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
        # (each as ``diff`` and the Diff tab say it: one rule, ``count_text``'s)
        tokens = f"{count_text(record.tokens_before)} → {count_text(record.tokens_after)}"
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
            # Of a type this reader does not know: the line as written, read again by its
            # span (not parsed: a newer writer's keys too).
            text = events.written(index)
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
            return [Note(f"line {line}: elision of {count(len(named), 'message')}", "warn")]
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
                _duration(op.get("duration"))
                or self.till_answer(op, answers)
                or self.took_between(op, answers)
                or self.till_run_end(op, answers),
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

    def took_between(self, op: Mapping[str, Any], answers: list[int]) -> str:
        """How long an operation settled with no ``duration`` took, by the viewer's rule
        (``op_running.took_said``): from its dispatch to its settle as its lines' times
        say, else ``?`` ("" not settled)."""
        settled = op.get("settled-at")
        if settled is None:
            return ""
        timed = _Settled(  # (what the rule reads of it; settled: an end, its state no matter)
            _s(op.get("call-id")),
            _s(op.get("tool")),
            "completed",
            started=str_or_none(op.get("dispatched-at")),
            ended=_s(settled),
            result_line=self.state.event_lines[answers[0]] if answers else None,
        )
        return took_said(timed)

    def till_answer(self, op: Mapping[str, Any], answers: list[int]) -> str:
        """How long an operation answered, not settled, ran at least: till its answer, as
        the viewer's ``took`` says it ("" settled, not answered, or a time not known)."""
        if op.get("settled-at") is not None or not answers:
            return ""
        answered = self.ts_of(self.state.events.ids[answers[0]])
        bound = bound_between(str_or_none(op.get("dispatched-at")), answered, None)
        return "" if bound is None else f"{bound.text} (till its answer)"

    def till_run_end(self, op: Mapping[str, Any], answers: list[int]) -> str:
        """How long an operation neither settled nor answered ran at least, as the Tools
        tab's ``took`` says it (``op_running.ran_at_least``): from its dispatch to its
        run's last line ("" where that is not known, or says nothing: under 0.01 s)."""
        if op.get("settled-at") is not None or answers:
            return ""
        end = self.run_end(_s(op.get("run-id")))
        bound = (
            None if end is None else bound_between(str_or_none(op.get("dispatched-at")), end, None)
        )
        return "" if bound is None else bound.text

    def run_end(self, run_id: str) -> str | None:
        """The time of run ``run_id``'s last line, as the Runs tab ends it: the line before
        the next run's first run-context line, or the file's last (a run not named: the
        file's); None where that line says no time."""
        state = self.state
        contexts, events = state.run_contexts, state.events
        ids = [contexts.run_ids[i] for i in range(len(contexts))]
        stop = len(state.event_lines)
        if run_id in ids:
            seen = set(ids[: ids.index(run_id) + 1])
            after = (i for i in range(ids.index(run_id) + 1, len(ids)) if ids[i] not in seen)
            following = next(after, None)
            stop = stop if following is None else contexts.event(following)
        last = stop - 1
        while last > 0 and events.kinds[last] == REFUSED:
            last -= 1
        return str_or_none(events.read(last).get("ts")) if last >= 0 else None

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
            ("meta", readable_json(state.meta)),
            ("message lines", f"{state.message_count:,}"),
            ("messages sent next", f"{len(state.entries):,}"),
            (OVERLAYS_FACT, ", ".join(replay_counts(state).said("compaction", "elision"))),
            ("usage", _usage_fact(self.tally)),
        ]
        in_flight = open_work_said(v1_open_work(state, self.writer_alive))
        if in_flight is not None:  # (what its writer left open: ``check``'s words)
            facts.insert(-2, (IN_FLIGHT, in_flight))
        if state.grants:
            facts.append(("grants", readable_json(state.grants)))
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
