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
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ...item_column import FOLDED_MARK, ItemColumn, Items
from ...model import (
    Compaction,
    Item,
    LazyToolOp,
    OpState,
    Part,
    Run,
    RunContext,
    ToolOp,
    Transcript,
    Usage,
    classify_op,
    ref_of,
)
from ...text import str_or_none
from ..base import Builder
from . import usage as tokens
from .compaction import replay
from .completed import completed_tool
from .context import changed, run_context, turn_id_and_model
from .items import (
    CALL_TYPES,
    NOT_SENT,
    OUTPUT_TYPES,
    completed_item,
    fingerprint,
    message_key,
    response_item,
)
from .tools import compact, decode_output

NAME = "codex"
RESPONSE, COMPLETED, EVENT, NONE = 0, 1, 2, 3  # where the conversation is read from
_LEGACY = {"user_message": "user", "agent_message": "assistant", "agent_reasoning": "assistant"}
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
        self.view_keys: list[int] = []  # their fingerprints, parallel to ``view``
        self.best = NONE
        self.tier_view: dict[int, list[Item]] = {COMPLETED: [], EVENT: []}
        self.tier_ops: list[ToolOp] = []
        self.ops: list[ToolOp] = []
        self.op_run: list[int] = []  # each op's run (index, -1: none)
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
        self.section_texts: dict[str, str] = {}
        self.model: str | None = None
        self.tally = tokens.TokenTally()
        self.context_tokens: int | None = None  # the last request's input (context) size
        self.awaiting_after: Compaction | None = None
        self.last_response = -1  # the raw index of the latest model output awaiting usage

    # -- feeding ----------------------------------------------------------------------

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
        if self.best != RESPONSE:
            self._settle_source(RESPONSE)
        kind = payload.get("type")
        item_id = f"L{line}"
        outcome = decode_output(payload.get("output")) if kind in OUTPUT_TYPES else None
        if outcome is not None:
            part = Part(
                "tool-result",
                outcome.text,
                call_id=str_or_none(payload.get("call_id")),
                is_error=outcome.failed,
                data=outcome.detail,
            )
            item = Item(item_id, "tool", [part], line, ts=ts)
        else:
            item = response_item(payload, item_id, line, ts)
        if kind in NOT_SENT:
            self._add(item.parts, line, item.role, "record", ts)
            return
        model = self.model if item.role == "assistant" else None
        index = self._add(
            item.parts, line, item.role, item.kind, ts, model=model, sticky=item.sticky
        )
        if item.role == "assistant":
            self.last_response = index
        key = message_key(item.role, item.parts) if kind == "message" else fingerprint(payload)
        self.lazy(item.parts)  # after its fingerprint: long texts stay in the file
        self.view.append(index)
        self.view_keys.append(key)
        run = self._run()
        if run is not None:
            run.items += 1
            if kind == "message" and item.role == "user" and run.prompt is None:
                run.prompt = item.text
        if kind in CALL_TYPES:
            self._call(payload, item, line, ts)
        elif outcome is not None:
            self._output(payload, outcome, line, ts, item.parts[0])

    def _call(self, payload: dict[str, Any], item: Item, line: int, ts: str | None) -> None:
        part = item.parts[0]
        run = self._run()
        op = LazyToolOp(
            call_id=part.call_id or item.id,
            tool=part.name or "?",
            state="running",
            args_from=ref_of(part),
            line=line,
            run_id=run.id if run is not None else None,
            message_id=item.id,
            started=ts,
        )
        index = len(self.ops)
        self.ops.append(op)
        self.op_run.append(self.open_run)
        self.op_by_call[op.call_id] = index
        status = payload.get("status")
        if payload.get("type") == "web_search_call" and status in ("completed", "failed"):
            op.state = status
            op.ended = ts
        else:
            self.pending[index] = None

    def _output(
        self, payload: dict[str, Any], outcome: Any, line: int, ts: str | None, part: Part
    ) -> None:
        call_id = str_or_none(payload.get("call_id"))
        index = self.op_by_call.get(call_id) if call_id is not None else None
        if index is None:
            return  # an answer to a call this file does not have (kept as its item)
        op = self.ops[index]
        if isinstance(op, LazyToolOp):
            op._result_from = ref_of(part)  # its text, read from the (maybe lazy) part
        else:
            op.result = outcome.text
        op.result_line = line
        op.ended = ts
        op.detail = outcome.detail
        op.duration = outcome.duration or seconds_between(op.started, ts)
        failed = outcome.failed
        code = self.late_failure.pop(op.call_id, None)
        if code is not None and outcome.exit_code is None:
            failed = True
            op.detail = {**(op.detail or {}), "exit_code": code}
        op.state = classify_op(has_result=True, failed=failed, interrupted=outcome.interrupted)
        self.pending.pop(index, None)

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
        self.view, self.view_keys = replayed.view, replayed.keys
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
        item_id = f"L{line}"
        parts: list[Part] | None = None
        role = "system"
        if kind == "token_count":
            parts = [Part("other", self._token_count(payload), name="token_count")]
        elif kind == "task_started":
            self._start_run(payload, line, ts)
        elif kind in ("task_complete", "turn_complete"):
            self._end_run("finished", payload, line, ts)
        elif kind == "turn_aborted":
            self._end_run("aborted", payload, line, ts)
        elif kind in _LEGACY:
            role = _LEGACY[kind]
            parts = self._legacy(kind, payload, item_id, role, line, ts)
        elif kind == "item_completed":
            parts = self._item_completed(payload, item_id, line, ts)
        elif kind in ("exec_command_end", "patch_apply_end", "mcp_tool_call_end"):
            self._late_outcome(kind, payload)
        if parts is None:
            parts = [Part("other", compact(payload), name=str(kind))]
        made_up = kind == "token_count" or kind == "item_completed"  # not what the line says
        if not made_up:
            self.lazy(parts)
        self._add(parts, line, role, "event", ts, keep=made_up)

    def _legacy(
        self, kind: str, payload: dict[str, Any], item_id: str, role: str, line: int, ts: str | None
    ) -> list[Part]:
        field = "text" if kind == "agent_reasoning" else "message"
        text = payload.get(field)
        text = text if isinstance(text, str) else compact(text)
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
            self.tier_view[EVENT].append(Item(item_id, role, parts, line, ts=ts))
        return parts

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

    def _start_run(self, payload: dict[str, Any], line: int, ts: str | None) -> None:
        previous = self._run()
        if previous is not None:  # a new turn while one is open: that one never ended
            previous.state = "interrupted"
            previous.end_line = line
        turn = str_or_none(payload.get("turn_id")) or f"L{line}"
        self.open_run = len(self.runs)
        self.runs.append(Run(id=turn, state="running", line=line, started=ts))
        self.run_by_turn[turn] = self.open_run
        if self.waiting_context is not None:
            self._assign_context(self.open_run, self.waiting_context)
            self.waiting_context = None

    def _end_run(self, state: Any, payload: dict[str, Any], line: int, ts: str | None) -> None:
        turn = str_or_none(payload.get("turn_id"))
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
        key = hash(text)
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
        parts = [Part("other", text, name="turn_context")]
        self._add(parts, line, "system", "context", ts)  # its instructions stay in the file
        turn, model = turn_id_and_model(payload)
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
                "facts": [list(f) for f in context.facts],
                "sections": [name for name, _ in context.sections],
                "changed": changed(self.previous_context, context),
            }
        )
        self.previous_context = context

    # -- usage ------------------------------------------------------------------------

    def _token_count(self, payload: dict[str, Any]) -> str:
        """Fold one ``token_count`` in; a new response's usage goes to its turn and item."""
        text, usage, size = self.tally.feed(payload, self.model)
        if usage is None:
            return text
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
        return text

    @staticmethod
    def line_parts(record: dict[str, Any]) -> list[Part]:
        """A response item's parts again (a lazy part's text and data)."""
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
            return [Part("other", compact(payload), name=str(kind))]
        if line_type != "response_item":
            return []
        if payload.get("type") in OUTPUT_TYPES:
            outcome = decode_output(payload.get("output"))
            return [
                Part(
                    "tool-result",
                    outcome.text,
                    call_id=str_or_none(payload.get("call_id")),
                    is_error=outcome.failed,
                    data=outcome.detail,
                )
            ]
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
