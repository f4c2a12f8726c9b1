"""The Codex builder: rollout lines, in file order, into the neutral model.

It keeps only what the model needs (items, operations, runs, running totals): a
``token_count`` leaves its numbers, not its dict, and repeated ``turn_context`` lines
share one context. ``transcript`` copies lists and settles the few open operations,
so it is cheap enough to call after every live batch.

The same conversation is written up to three times by some writers: as response
items, as newer ``item_completed`` events and as older ``user_message`` /
``agent_message`` / ``agent_reasoning`` events. It is shown once, from the best
source the file has (the others stay in the raw view as ``event`` items).
"""

from __future__ import annotations

import dataclasses
from array import array
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import msgspec
import orjson

from ...item_column import FOLDED_MARK, ItemColumn, Items
from ...model import Compaction, Item, Run, RunContext, Transcript, Usage
from ...parts import Part, PartRef, ref_of
from ...text import str_or_none
from ...tool_ops import LazyToolOp, OpState, ToolOp, classify_op
from ..base import Builder
from . import lines
from . import usage as tokens
from .compaction import replay
from .completed import completed_tool
from .context import changed, run_context, turn_id_and_model
from .items import (
    CALL_TYPES,
    NOT_SENT,
    OUTPUT_TYPES,
    STICKY_ROLES,
    call_id_from,
    call_key,
    call_name_of,
    completed_item,
    fingerprint,
    message_key,
    reasoning_key,
    reasoning_parts_of,
    response_item,
    result_part,
)
from .lines import block_texts, text_blocks
from .ops import OpColumn, PackedOp
from .tools import Outcome, compact, decode_output

NAME = "codex"
RESPONSE, COMPLETED, EVENT, NONE = 0, 1, 2, 3  # where the conversation is read from
_LEGACY = {"user_message": "user", "agent_message": "assistant", "agent_reasoning": "assistant"}
_ENDED: dict[str, Any] = {
    "task_complete": "finished",
    "turn_complete": "finished",
    "turn_aborted": "aborted",
}
# An item packed by span keeps no parts; at feed time all it needs of them is its folded
# height, which a one-part item that is not text has whatever its text.
_PACKED = [Part("other")]
# The fixed texts of token counts, one list shared by every item that says them.
_FIXED = {
    text: [Part("other", text, name="token_count")]
    for text in (tokens.REPEAT, tokens.NO_USAGE, tokens.NO_LIMITS_ONLY)
}
_META_KEYS = (
    "id",
    "timestamp",
    "cwd",
    "originator",
    "cli_version",
    "source",
    "model_provider",
    "git",
    "forked_from_id",
)
_CONTEXT_CACHE = 4096  # distinct turn contexts remembered (repeats share one)


def seconds_between(start: str | None, end: str | None) -> float | None:
    if start is None or end is None:
        return None
    try:
        delta = datetime.fromisoformat(end) - datetime.fromisoformat(start)
    except (ValueError, TypeError):
        return None
    seconds = delta.total_seconds()
    return seconds if seconds >= 0 else None


class CodexBuilder(Builder):
    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.meta: dict[str, Any] = {}
        # Every line's item, packed (its parts read again by span when asked for).
        self.raw = ItemColumn("L")
        # The replayed view from response items: raw indexes, and items of its own (a
        # compaction's replacement history); appended to, replaced at a compaction.
        self.view: list[int | Item] = []
        self.view_keys = array("q")  # their fingerprints, parallel to ``view``
        self.best = NONE
        self.tier_view: dict[int, list[Item]] = {COMPLETED: [], EVENT: []}
        self.tier_ops: list[ToolOp] = []
        self.ops: list[ToolOp] = []
        self.op_run = array("l")  # each op's run (index, -1: none)
        self.op_items = OpColumn(self.raw)  # each op's call and result items, when packed
        self.op_by_call: dict[str, int] = {}
        self.pending: dict[int, None] = {}  # ops with no result yet (ordered set)
        self.late_failure: dict[str, int] = {}  # exit codes from *_end events, by call id
        self.compactions: list[Compaction] = []
        self.runs: list[Run] = []
        self.run_contexts: list[dict[str, Any]] = []  # each run's context, what changed
        self.open_run = -1
        self.run_by_turn: dict[str, int] = {}
        self.prompt_from_event: set[int] = set()
        self.previous_context: RunContext | None = None
        self.waiting_context: RunContext | None = None  # a context before its task_started
        self.contexts: dict[int, RunContext] = {}
        # The latest typed turn context's payload (its bytes) and its context, turn, model.
        self.context_raw: msgspec.Raw | None = None
        self.context_facts: tuple[RunContext, str | None, str | None] = (RunContext(), None, None)
        self.section_texts: dict[str, str] = {}
        # One copy of what repeats: tool names, contexts' facts (as tuples and as lists).
        self.tools: dict[str, str] = {}
        self.fact_tuples: dict[tuple[str, str], tuple[str, str]] = {}
        self.fact_lists: dict[tuple[str, str], list[str]] = {}
        self.model: str | None = None
        self.tally = tokens.TokenTally()
        self.context_tokens: int | None = None  # the last request's input (context) size
        self.awaiting_after: Compaction | None = None
        self.last_response = -1  # the raw index of the latest model output awaiting usage

    # -- feeding ----------------------------------------------------------------------
    #
    # Two ways in, one set of rules: ``feed_line`` decodes the hot lines into typed
    # Structs (``lines``) and ``feed`` reads any parsed record as a dict; both turn what
    # they read into the same few facts and hand them to the same methods below.

    def feed_line(self, raw: bytes, line: int) -> None:
        # The typed path needs the line's span: what it does not decode is read again
        # from the file (every item it makes is packed by span).
        if self.span and self.raw.source is not None:
            decoded = lines.decode(raw)
            if decoded is not None:
                ts = decoded.timestamp
                try:
                    if type(decoded) is lines.EventLine:
                        done = self._typed_event(decoded.payload, line, ts)
                    elif type(decoded) is lines.ResponseLine:
                        done = self._typed_response(decoded.payload, line, ts)
                    else:
                        assert type(decoded) is lines.ContextLine
                        done = self._typed_context(decoded.payload, raw, line, ts)
                except Exception as err:  # as ``feed`` does
                    self._unreadable(err, orjson.loads(raw), line, ts)
                    return
                if done:
                    return  # else it does not fit the rules' facts: nothing was done
        super().feed_line(raw, line)

    def feed(self, record: dict[str, Any], line: int) -> None:
        kind = record.get("type")
        payload = record.get("payload")
        ts = str_or_none(record.get("timestamp"))
        if not isinstance(payload, dict):
            self._record(record, line, ts)
            return
        try:
            if kind == "response_item":
                self._response(payload, line, ts)
            elif kind == "event_msg":
                self._event(payload, line, ts)
            elif kind == "turn_context":
                self._turn_context(payload, line, ts)
            elif kind == "session_meta":
                self._session_meta(payload, line, ts)
            elif kind == "compacted":
                self._compacted(payload, line, ts)
            else:
                self._record(record, line, ts)
        except Exception as err:  # a shape no writer was seen to write: kept, never fatal
            self._unreadable(err, record, line, ts)

    def _unreadable(
        self, err: Exception, record: dict[str, Any], line: int, ts: str | None
    ) -> None:
        self.warnings.append(
            f"line {line} could not be read as Codex ({type(err).__name__}: {err}), "
            "and was kept as it is"
        )
        raw = self.raw
        if not len(raw) or raw.line[-1] != line:
            self._record(record, line, ts)

    def set_source(self, source: Any) -> None:
        super().set_source(source)
        if self.part_source is not None:
            self.raw.source = self.part_source  # spans fed before stay readable

    def _by_span(self) -> bool:
        """Is the line being fed kept by its span (its parts read again when asked for)?"""
        return bool(self.span) and self.raw.source is not None

    def _add(
        self,
        parts: list[Part],
        line: int,
        role: str,
        kind: str,
        ts: str | None,
        *,
        keep: bool = False,
        model: str | None = None,
        sticky: bool = False,
    ) -> int:
        """One raw item (its parts read again by span unless ``keep``); its index."""
        return self.raw.append(
            parts,
            line,
            role=role,
            kind=kind,
            ts=ts,
            model=model,
            sticky=sticky,
            span=self.span,
            keep=keep,
        )

    def _ref(self, index: int, part: Part | None) -> Part | PartRef:
        """What an operation keeps of its item's (only) part: where it is in the file when
        the item is packed by span, else the part."""
        source = self.raw.source
        if self.raw.parts[index] is None and source is not None:
            return PartRef.at(source, self.span, 0)
        assert part is not None  # an item kept whole keeps its parts
        return ref_of(part)

    def bad_line(self, line: int, raw: bytes, why: str) -> None:
        super().bad_line(line, raw, why)
        text = raw.decode("utf-8", "replace")
        self._add([Part("other", text)], line, "system", "record", None, keep=True)

    def _record(self, record: dict[str, Any], line: int, ts: str | None) -> None:
        name = str(record.get("type"))
        part = Part("other", compact(record), name=name)
        self._add([part], line, "system", "record", ts, keep=True)

    def _session_meta(self, payload: dict[str, Any], line: int, ts: str | None) -> None:
        part = Part("other", compact(payload), name="session_meta")
        self._add([part], line, "system", "meta", ts, keep=True)
        if "id" in self.meta:
            return  # a resumed or forked file repeats its ancestors' meta: the first names it
        for key in _META_KEYS:
            if key in payload:
                self.meta[key] = payload[key]
        source = payload.get("source")
        spawn = source.get("subagent") if isinstance(source, dict) else None
        spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
        if isinstance(spawn, dict):
            for key in ("parent_thread_id", "depth", "agent_nickname", "agent_role"):
                if key in spawn:
                    self.meta[key.replace("_", "-")] = spawn[key]

    # -- response items ---------------------------------------------------------------

    def _response(self, payload: dict[str, Any], line: int, ts: str | None) -> None:
        kind = payload.get("type")
        item_id = f"L{line}"
        if kind in OUTPUT_TYPES:
            outcome = decode_output(payload.get("output"))
            call_id = str_or_none(payload.get("call_id"))
            key = call_key(kind, call_id, str_or_none(payload.get("id")))
            part = result_part(outcome, call_id)
            index = self._sent(kind, [part], "tool", "message", False, key, line, ts)
            self._output(call_id, outcome, index, line, ts, part)
            return
        item = response_item(payload, item_id, line, ts)
        if kind in NOT_SENT:
            if self.best != RESPONSE:
                self._settle_source(RESPONSE)
            self._add(item.parts, line, item.role, "record", ts)
            return
        key = message_key(item.role, item.parts) if kind == "message" else fingerprint(payload)
        # A call named by its line alone is kept whole: ``line_parts`` does not know it.
        keep = kind in CALL_TYPES and item.parts[0].call_id == item_id
        index = self._sent(kind, item.parts, item.role, item.kind, item.sticky, key, line, ts, keep)
        if kind in CALL_TYPES:
            part = item.parts[0]
            tool = part.name or "?"
            self._call(
                kind, part.call_id or item_id, tool, payload.get("status"), index, line, ts, part
            )

    def _typed_response(self, payload: lines.ResponsePayload, line: int, ts: str | None) -> bool:
        kind = lines.TAG[type(payload)]
        if isinstance(payload, lines._Output):
            outcome = decode_output(payload.output)
            call_id = payload.call_id
            key = call_key(kind, call_id, payload.id)
            index = self._sent(kind, _PACKED, "tool", "message", False, key, line, ts)
            self._output(call_id, outcome, index, line, ts, None)
        elif isinstance(payload, lines._Call):
            if not payload.call_id and not payload.id:
                return False  # named by its line: kept whole (the dict path)
            call_id = call_id_from(payload.call_id, payload.id, "")
            key = call_key(kind, payload.call_id, payload.id)
            index = self._sent(kind, _PACKED, "assistant", "message", False, key, line, ts)
            tool = call_name_of(kind, payload.name) or "?"
            self._call(kind, call_id, tool, payload.status, index, line, ts, None)
        elif type(payload) is lines.Message:
            texts = text_blocks(payload.content)
            if texts is None:
                return False  # a block that is not text: the dict path reads it
            role = payload.role or "user"
            parts = [Part("text", text) for text in texts]
            key = message_key(role, parts)
            self._sent(kind, parts, role, "message", role in STICKY_ROLES, key, line, ts)
        else:
            assert type(payload) is lines.Reasoning
            summary = block_texts(payload.summary)
            encrypted = payload.encrypted_content
            parts = reasoning_parts_of(summary, block_texts(payload.content), encrypted)
            key = reasoning_key(encrypted, summary)
            self._sent(kind, parts, "assistant", "message", False, key, line, ts)
        return True

    def _sent(
        self,
        kind: Any,
        parts: list[Part],
        role: str,
        item_kind: str,
        sticky: bool,
        key: int,
        line: int,
        ts: str | None,
        keep: bool = False,
    ) -> int:
        """A response item the model sees: a raw item, and an entry of the replayed view
        (``key`` its fingerprint). Its index."""
        if self.best != RESPONSE:
            self._settle_source(RESPONSE)
        model = self.model if role == "assistant" else None
        index = self.raw.append(  # ``_add``'s, inline: once for every response item
            parts,
            line,
            role=role,
            kind=item_kind,
            ts=ts,
            model=model,
            sticky=sticky,
            span=self.span,
            keep=keep,
        )
        if role == "assistant":
            self.last_response = index
        self.view.append(index)
        self.view_keys.append(key)
        if self.open_run >= 0:
            run = self.runs[self.open_run]
            run.items += 1
            if kind == "message" and role == "user" and run.prompt is None:
                run.prompt = "\n".join(p.text for p in parts if p.kind == "text")
        return index

    def _call(
        self,
        kind: Any,
        call_id: str,
        tool: str,
        status: Any,
        index: int,
        line: int,
        ts: str | None,
        part: Part | None,
    ) -> None:
        run = self._run()
        run_id = run.id if run is not None else None
        tool = self.tools.setdefault(tool, tool)  # one copy of each name
        at = len(self.ops)
        op: LazyToolOp
        if self.raw.parts[index] is None:  # packed: the rest is read from its items
            column = self.op_items
            op = PackedOp.packed(column, column.add(index), call_id, tool, run_id)
        else:
            op = LazyToolOp(
                call_id=call_id,
                tool=tool,
                state="running",
                args_from=self._ref(index, part),
                line=line,
                run_id=run_id,
                message_id=f"L{line}",
                started=ts,
            )
            self.op_items.add(-1)
        self.ops.append(op)
        self.op_run.append(self.open_run)
        self.op_by_call[call_id] = at
        if kind == "web_search_call" and status in ("completed", "failed"):
            op.state = status
            op.ended = ts
        else:
            self.pending[at] = None

    def _output(
        self,
        call_id: str | None,
        outcome: Outcome,
        index: int,
        line: int,
        ts: str | None,
        part: Part | None,
    ) -> None:
        at = self.op_by_call.get(call_id) if call_id is not None else None
        if at is None:
            return  # an answer to a call this file does not have (kept as its item)
        op = self.ops[at]
        duration = outcome.duration or seconds_between(op.started, ts)
        if isinstance(op, PackedOp) and self.raw.parts[index] is None:
            self.op_items.answered(at, index, duration)  # its result and outcome: its item's
        else:
            ref = self._ref(index, part)
            if isinstance(op, LazyToolOp):
                op._result_from = ref  # its text (and outcome), read from the (maybe packed) part
                if self.raw.parts[index] is None:
                    op._detail_from = ref  # the outcome is the part's data, read again too
                else:
                    op.detail = outcome.detail
            else:
                op.result = outcome.text
                op.detail = outcome.detail
            op.result_line = line
            op.ended = ts
            op.duration = duration
        failed = outcome.failed
        code = self.late_failure.pop(op.call_id, None)
        if code is not None and outcome.exit_code is None:
            failed = True
            op.detail = {**(outcome.detail or {}), "exit_code": code}
        op.state = classify_op(has_result=True, failed=failed, interrupted=outcome.interrupted)
        self.pending.pop(at, None)

    # -- compaction -------------------------------------------------------------------

    def _compacted(self, payload: dict[str, Any], line: int, ts: str | None) -> None:
        cid = f"L{line}"
        raw = self.raw
        replayed = replay(self.view, self.view_keys, raw.id_of, payload, cid, line, ts)
        folded = set(replayed.folded)
        for entry in self.view:
            if isinstance(entry, Item):
                if entry.id in folded and "folded" not in entry.marks:
                    entry.marks.append("folded")
            elif raw.id_of(entry) in folded:
                raw.flag(entry, FOLDED_MARK)
        self.view, self.view_keys = replayed.view, array("q", replayed.keys)
        message = str_or_none(payload.get("message")) or ""
        parts = [Part("text", message)] if message else []
        parts.append(Part("other", replayed.note, name="compacted"))
        self._add(parts, line, "system", "compaction", ts, keep=True)
        compaction = Compaction(
            id=cid,
            kind="compaction",
            line=line,
            summary=message,
            folded=replayed.folded,
            kept=replayed.kept,
            tokens_before=self.context_tokens,
            ts=ts,
        )
        self.compactions.append(compaction)
        self.awaiting_after = compaction

    # -- events -----------------------------------------------------------------------

    def _event(self, payload: dict[str, Any], line: int, ts: str | None) -> None:
        kind = str_or_none(payload.get("type"))
        if kind == "token_count":
            self._token_count(self.tally.feed(payload, self.model), line, ts)
            return
        if kind in _LEGACY:
            text = payload.get("text" if kind == "agent_reasoning" else "message")
            self._legacy(kind, text if isinstance(text, str) else compact(text), line, ts)
            return
        if kind == "item_completed":
            parts = self._item_completed(payload, f"L{line}", line, ts)
            if parts is None:
                parts = [Part("other", compact(payload), name=kind)]
            self._add(parts, line, "system", "event", ts, keep=True)  # not what the line says
            return
        if kind == "task_started":
            self._start_run(str_or_none(payload.get("turn_id")), line, ts)
        elif kind in _ENDED:
            self._end_run(_ENDED[kind], str_or_none(payload.get("turn_id")), line, ts)
        elif kind in ("exec_command_end", "patch_apply_end", "mcp_tool_call_end"):
            self._late_outcome(kind, payload)
        packed = self._by_span()
        parts = _PACKED if packed else [Part("other", compact(payload), name=str(kind))]
        self._add(parts, line, "system", "event", ts)

    def _typed_event(self, payload: lines.EventPayload, line: int, ts: str | None) -> bool:
        kind = lines.TAG[type(payload)]
        if type(payload) is lines.TokenCount:
            tally = self.tally
            tally.limits_json(bytes(payload.rate_limits))
            info = payload.info
            if info is None:
                said = tally.take(False, None, None, None, self.model)
            else:
                said = tally.take(
                    True,
                    info.model_context_window,
                    info.total_token_usage,
                    info.last_token_usage,
                    self.model,
                )
            self._token_count(said, line, ts)
            return True
        if type(payload) is lines.AgentReasoning:
            self._legacy(kind, payload.text, line, ts)
            return True
        if isinstance(payload, lines.UserMessage | lines.AgentMessage):
            self._legacy(kind, payload.message, line, ts)
            return True
        if type(payload) is lines.TaskStarted:
            self._start_run(payload.turn_id, line, ts)
        else:
            assert isinstance(payload, lines.Ended)
            self._end_run(_ENDED[kind], payload.turn_id, line, ts)
        self.raw.append(_PACKED, line, role="system", kind="event", ts=ts, span=self.span)
        return True

    def _legacy(self, kind: str, text: str, line: int, ts: str | None) -> None:
        """An older writer's ``user_message`` / ``agent_message`` / ``agent_reasoning``."""
        role = _LEGACY[kind]
        parts = [Part("reasoning" if kind == "agent_reasoning" else "text", text)]
        run = self._run()
        if (
            kind == "user_message"
            and run is not None
            and self.open_run not in self.prompt_from_event
        ):
            run.prompt = text  # what the person typed (the response item may carry more)
            self.prompt_from_event.add(self.open_run)
        if self.best >= EVENT:
            self.best = EVENT
            self.tier_view[EVENT].append(Item(f"L{line}", role, parts, line, ts=ts))
            self.lazy(parts)  # kept in that view: its long text stays in the file
        self._add(parts, line, role, "event", ts)

    def _item_completed(
        self, payload: dict[str, Any], item_id: str, line: int, ts: str | None
    ) -> list[Part] | None:
        item = payload.get("item")
        if not isinstance(item, dict):
            return None
        conversation = completed_item(item, item_id, line, ts)
        if conversation is not None:
            if self.best >= COMPLETED:
                self._settle_source(COMPLETED)
                self.tier_view[COMPLETED].append(conversation)
            return conversation.parts
        run = self._run()
        tool = completed_tool(item, item_id, line, ts, run.id if run is not None else None)
        if tool is None:
            return None
        shown, op = tool
        if self.best >= COMPLETED:
            self._settle_source(COMPLETED)
            self.tier_view[COMPLETED].append(shown)
            self.tier_ops.append(op)
        return shown.parts

    def _settle_source(self, best: int) -> None:
        """A better source of the conversation appeared: drop what the worse ones gave."""
        self.best = best
        for tier in (COMPLETED, EVENT):
            if tier > best:
                self.tier_view[tier] = []
        if best < COMPLETED:
            self.tier_ops = []

    def _late_outcome(self, kind: str, payload: dict[str, Any]) -> None:
        """An ``*_end`` event's word on a call, for outputs that do not say how it ended."""
        call_id = str_or_none(payload.get("call_id"))
        if call_id is None:
            return
        code: int | None = None
        if kind == "exec_command_end":
            value = payload.get("exit_code")
            code = value if isinstance(value, int) and not isinstance(value, bool) else None
        elif kind == "patch_apply_end":
            code = 1 if payload.get("success") is False else None
        else:
            result = payload.get("result")
            code = 1 if isinstance(result, dict) and "Err" in result else None
        if not code:
            return
        index = self.op_by_call.get(call_id)
        op = self.ops[index] if index is not None else None
        if op is not None and op.result_line is not None:
            if op.state == "completed":
                op.state = "failed"
                op.detail = {**(op.detail or {}), "exit_code": code}
        else:
            self.late_failure[call_id] = code

    # -- runs and their contexts ------------------------------------------------------

    def _run(self) -> Run | None:
        return self.runs[self.open_run] if self.open_run >= 0 else None

    def _start_run(self, turn: str | None, line: int, ts: str | None) -> None:
        previous = self._run()
        if previous is not None:  # a new turn while one is open: that one never ended
            previous.state = "interrupted"
            previous.end_line = line
        turn = turn or f"L{line}"
        self.open_run = len(self.runs)
        self.runs.append(Run(id=turn, state="running", line=line, started=ts))
        self.run_by_turn[turn] = self.open_run
        if self.waiting_context is not None:
            self._assign_context(self.open_run, self.waiting_context)
            self.waiting_context = None

    def _end_run(self, state: Any, turn: str | None, line: int, ts: str | None) -> None:
        index = self.run_by_turn.get(turn, self.open_run) if turn is not None else self.open_run
        if index < 0:  # the file starts inside a turn (a resumed one)
            index = len(self.runs)
            self.runs.append(Run(id=turn or f"L{line}", state="running", line=line))
        run = self.runs[index]
        run.state = state
        run.end_line = line
        run.ended = ts
        run.duration = seconds_between(run.started, ts)
        if index == self.open_run:
            self.open_run = -1

    def _turn_context(self, payload: dict[str, Any], line: int, ts: str | None) -> None:
        text = compact(payload)
        context = self._context_for(hash(text), payload, line)
        parts = _PACKED if self._by_span() else [Part("other", text, name="turn_context")]
        turn, model = turn_id_and_model(payload)
        self._context(context, parts, turn, model, line, ts)

    def _typed_context(self, payload: msgspec.Raw, raw: bytes, line: int, ts: str | None) -> bool:
        # A turn's context is written again before every model request, the same bytes:
        # those are not parsed again (its first time, it is keyed as the dict path keys it).
        if not raw.isascii() and not lines.rest_is_utf8(raw, payload):
            return False
        if payload == self.context_raw:
            context, turn, model = self.context_facts
        else:
            try:
                parsed = orjson.loads(memoryview(payload))  # it checks the payload's UTF-8
            except orjson.JSONDecodeError:
                return False
            if type(parsed) is not dict:
                return False
            context = self._context_for(hash(compact(parsed)), parsed, line)
            turn, model = turn_id_and_model(parsed)
            self.context_raw, self.context_facts = payload, (context, turn, model)
        self._context(context, _PACKED, turn, model, line, ts)
        return True

    def _context_for(self, key: int, payload: dict[str, Any], line: int) -> RunContext:
        """The run context of a ``turn_context`` payload (``key``: its compact text's hash)."""
        context = self.contexts.get(key)
        if context is None:
            if len(self.contexts) >= _CONTEXT_CACHE:
                self.contexts.clear()
            context = self.contexts[key] = run_context(payload, line)
            # Every turn's context differs (its turn_id) but repeats its instructions:
            # one copy of each text is kept, not one per turn.
            shared = self.section_texts
            if len(shared) >= _CONTEXT_CACHE:
                shared.clear()
            context.sections = [(n, shared.setdefault(t, t)) for n, t in context.sections]
            facts = self.fact_tuples
            if len(facts) >= _CONTEXT_CACHE:
                facts.clear()
            context.facts = [facts.setdefault(f, f) for f in context.facts]
        return context

    def _context(
        self,
        context: RunContext,
        parts: list[Part],
        turn: str | None,
        model: str | None,
        line: int,
        ts: str | None,
    ) -> None:
        # Its instructions stay in the file (``_add``'s, inline: once for every context).
        self.raw.append(parts, line, role="system", kind="context", ts=ts, span=self.span)
        if model is not None:
            self.model = model
            self.meta.setdefault("model", model)
        index = self.run_by_turn.get(turn, self.open_run) if turn is not None else self.open_run
        if index >= 0:
            if self.runs[index].context is None:
                self._assign_context(index, context)
        else:
            self.waiting_context = context

    def _assign_context(self, index: int, context: RunContext) -> None:
        run = self.runs[index]
        run.context = context
        self.run_contexts.append(
            {
                "run-id": run.id,
                "line": context.line,
                "facts": [self._fact_list(f) for f in context.facts],
                "sections": [name for name, _ in context.sections],
                "changed": changed(self.previous_context, context),
            }
        )
        self.previous_context = context

    def _fact_list(self, fact: tuple[str, str]) -> list[str]:
        """A fact as the JSON's ``[name, value]``, one list for every run that has it."""
        shared = self.fact_lists
        found = shared.get(fact)
        if found is None:
            if len(shared) >= _CONTEXT_CACHE:
                shared.clear()
            found = shared[fact] = list(fact)
        return found

    # -- usage ------------------------------------------------------------------------

    def _token_count(
        self, said: tuple[tokens.Note, Usage | None, int, bool], line: int, ts: str | None
    ) -> None:
        """One ``token_count`` folded in; a new response's usage goes to its turn and item."""
        note, usage, size, own = said
        if usage is not None:
            run = self._run()
            if run is not None:
                run.usage.add(usage)
            if self.last_response >= 0:
                self.raw.set_usage(self.last_response, usage)
                self.last_response = -1
            if size > 0:
                self.context_tokens = size
                if self.awaiting_after is not None:
                    self.awaiting_after.tokens_after = size
                    self.awaiting_after = None
        if isinstance(note, str):
            parts, keep = _FIXED[note], True  # one list shared
        elif own and self._by_span():
            parts, keep = _PACKED, False  # ``line_parts`` says it again
        else:
            parts, keep = [Part("other", tokens.so_far(note), name="token_count")], True
        self.raw.append(parts, line, role="system", kind="event", ts=ts, span=self.span, keep=keep)

    @staticmethod
    def line_parts(record: dict[str, Any]) -> list[Part]:
        """The parts of a line fed as a packed item, again (a lazy part's text and data)."""
        payload = record.get("payload")
        if not isinstance(payload, dict):
            return []
        line_type = record.get("type")
        if line_type == "turn_context":
            return [Part("other", compact(payload), name="turn_context")]
        if line_type == "event_msg":
            kind = str_or_none(payload.get("type"))
            if kind in _LEGACY:
                text = payload.get("text" if kind == "agent_reasoning" else "message")
                text = text if isinstance(text, str) else compact(text)
                return [Part("reasoning" if kind == "agent_reasoning" else "text", text)]
            if kind == "token_count":  # packed only when it reports its own total
                total = tokens.reported_total(payload)
                if total is not None:
                    return [Part("other", tokens.so_far(total), name="token_count")]
            return [Part("other", compact(payload), name=str(kind))]
        if line_type != "response_item":
            return []
        if payload.get("type") in OUTPUT_TYPES:
            outcome = decode_output(payload.get("output"))
            return [result_part(outcome, str_or_none(payload.get("call_id")))]
        return response_item(payload, "", 0, None).parts

    # -- the model --------------------------------------------------------------------

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        messages: Sequence[Item]
        if self.best in (RESPONSE, NONE):
            messages = Items(self.raw, entries=self.view)
            ops = list(self.ops)
            for index in self.pending:
                op = ops[index]
                run_index = self.op_run[index]
                cut = run_index >= 0 and self.runs[run_index].state != "running"
                state: OpState = classify_op(
                    has_result=False, interrupted=cut, writer_alive=writer_alive
                )
                if state != op.state:
                    ops[index] = dataclasses.replace(op, state=state)
        else:
            messages = list(self.tier_view[self.best])
            ops = list(self.tier_ops)
        runs = list(self.runs)  # an ended run no longer changes: only open ones are copied
        for index, run in enumerate(runs):
            if run.state == "running":
                copy = dataclasses.replace(run, usage=Usage.total([run.usage]))
                if writer_alive is False:
                    copy.state = "interrupted"
                runs[index] = copy
        tally = self.tally
        meta = dict(self.meta)
        if tally.context_window is not None:
            meta["model-context-window"] = tally.context_window
        extra: dict[str, Any] = {
            "run-contexts": list(self.run_contexts),
            "rate-limits": tally.rate_limits,
            "total-token-usage": tokens.to_json(tally.last_total),
            "token-count-events": tally.events,
            "token-count-reports": tally.reports,
        }
        return Transcript(
            format=NAME,
            path=self.path,
            meta=meta,
            messages=messages,
            raw=Items(self.raw),
            tool_operations=ops,
            compactions=list(self.compactions),
            runs=runs,
            usage=tally.usage(),
            warnings=list(self.warnings),
            lines=self.lines,
            extra=extra,
            writer_alive=writer_alive,
        )


__all__ = ["NAME", "CodexBuilder"]
