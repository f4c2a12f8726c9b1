"""The Codex builder: rollout lines, in file order, into the neutral model.

It keeps only what the model needs (items, operations, runs, running totals): a
``token_count`` leaves its numbers, not its dict, and repeated ``turn_context`` lines
share one context. ``transcript`` copies lists and settles the few open operations,
so it is cheap enough to call after every live batch.

The same conversation is written up to three times by some writers: as response
items, as newer ``item_completed`` events and as older ``user_message`` /
``agent_message`` / ``agent_reasoning`` events. It is shown once, from the best
source the file has (the others stay in the raw view as ``event`` items).

``CodexBuilder`` is the top layer: feeding, events and the model. What it keeps is
``state``'s; turns, tool calls, response items and the view's rewrites (compaction,
rollback) are read in by the layers below it (``turns``, ``calls``, ``responses``,
``rewrites``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
import orjson

from ...column_items import Items
from ...item_heights import shape_height, text_rows
from ...model import Item, RunContext, Transcript, Usage
from ...parts import Part
from ...text import str_or_none
from ...tool_ops import OpState, ToolOp, classify_op
from ...utf8 import BlockLines
from ..builders import Builder
from . import NAME, lines, rows
from . import usage as tokens
from .completed import completed_tool
from .context import section_text
from .event_words import ERRORS, NOT_A_NAME, event_parts, thread_name
from .items import (
    CALL_TYPES,
    NOT_SENT,
    OUTPUT_TYPES,
    completed_item,
    content_parts,
    output_of,
    response_item,
    result_part,
)
from .ops import CodexOps
from .responses import injected, prompt_of
from .rewrites import CodexRewrites
from .state import _PACKED, COMPLETED, EVENT, NONE, RESPONSE
from .tools import compact, decode_output

_LEGACY = {
    "user_message": "user",
    "agent_message": "assistant",
    "agent_reasoning": "assistant",
    "agent_reasoning_raw_content": "assistant",  # (the raw reasoning a reasoning item holds)
}
_THOUGHT = frozenset(("agent_reasoning", "agent_reasoning_raw_content"))  # their key: "text"
_ENDED: dict[str, Any] = {
    "task_complete": "finished",
    "turn_complete": "finished",
    "turn_aborted": "aborted",
}

# The response items an older writer wrote bare, with no ``{timestamp, type, payload}``.
BARE_ITEMS = frozenset(("message", "reasoning", *CALL_TYPES, *OUTPUT_TYPES, *NOT_SENT))
# What an older rollout's bare header holds beside its id and timestamp (one is enough).
LEGACY_HEADER_KEYS = ("instructions", "git", "originator", "cli_version")
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


# The id of a header that holds nothing else (a rollout's is a uuid: another log's first
# line of an id and a time is not taken for one).
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def is_legacy_header(record: dict[str, Any]) -> bool:
    """The first line of a rollout from before the ``{timestamp, type, payload}`` lines
    (Codex CLI of mid 2025): a bare ``{id, timestamp, instructions, git?, ...}``; the
    earliest writers left ``instructions`` out where a user had none: ``{id, timestamp}``."""
    return (
        isinstance(record.get("id"), str)
        and isinstance(record.get("timestamp"), str)
        and (
            any(key in record for key in LEGACY_HEADER_KEYS)
            or (len(record) == 2 and _UUID.fullmatch(record["id"]) is not None)
        )
        and "payload" not in record
    )


class CodexBuilder(CodexRewrites):
    # -- feeding ----------------------------------------------------------------------
    #
    # Two ways in, one set of rules: ``feed_line`` decodes the hot lines into typed
    # Structs (``lines``) and ``feed`` reads any parsed record as a dict; both turn what
    # they read into the same few facts and hand them to the same methods (below, and
    # in the layers it stands on: ``rewrites``, ``responses``, ``calls``, ``turns``, ``state``).

    def feed_line(self, raw: bytes, line: int) -> None:
        # The typed path needs the line's span: what it does not decode is read again
        # from the file (every item it makes is packed by span).
        if self.span and self.raw.source is not None:
            if len(raw) == self.context_size and self._repeated_context(raw, line):
                return
            decoded = lines.decode(raw)
            if decoded is not None and self._typed(decoded, raw, line):
                return  # else it does not fit the rules' facts: nothing was done
        super().feed_line(raw, line)

    def take_lines(
        self, raws: Sequence[bytes | memoryview], numbers: Sequence[int], spans: Sequence[int]
    ) -> None:
        if not spans or self.raw.source is None:
            super().take_lines(raws, numbers, spans)
            return
        self._batch(raws, numbers, spans, cut=False)

    def feed_lines(self, raws: Sequence[bytes], lines: Sequence[int], spans: Sequence[int]) -> None:
        if self.raw.source is None:
            super().feed_lines(raws, lines, spans)
            return
        self._batch(raws, lines, spans, cut=True)

    def _batch(
        self,
        raws: Sequence[bytes | memoryview],
        numbers: Sequence[int],
        spans: Sequence[int],
        *,
        cut: bool,
    ) -> None:
        # ``take_line`` (``cut``: ``feed_line``, the lines cut already) and ``feed_line``
        # in one loop, for the lines that need neither's care (a known span, no CR, an
        # object's first byte): a load's every line.
        decode, decode_ascii = lines.decode, lines.decode_ascii
        rules = _TYPED
        orjson_path = Builder.feed_line
        block_ascii = BlockLines().ascii  # (then a line is decoded as a view, uncopied)
        for raw_line, line, span in zip(raws, numbers, spans, strict=True):
            self.span = span
            size = self.line_bytes = len(raw_line)
            if not span or (not cut and (not size or raw_line[0] != 123 or raw_line[-1] == 13)):
                if cut:
                    self.lines = line
                    self.feed_line(bytes(raw_line), line)
                else:
                    self.take_line(bytes(raw_line), line)
                continue
            if line > self.lines:
                self.lines = line
            if size == self.context_size and self._repeated_context(raw_line, line):
                continue
            raw: bytes | memoryview
            if type(raw_line) is memoryview:
                if block_ascii(raw_line):
                    raw = raw_line
                    decoded = decode_ascii(raw)
                else:
                    raw = bytes(raw_line)
                    decoded = decode(raw)
            else:
                raw = raw_line
                decoded = decode(raw)
            if decoded is not None:
                payload = decoded.payload  # ``_typed``'s, inline: once for every line
                try:
                    if rules[type(payload)](self, payload, raw, line, decoded.timestamp):
                        continue
                except Exception as err:
                    self._unreadable(err, orjson.loads(raw), line, decoded.timestamp)
                    continue
            orjson_path(self, bytes(raw), line)

    def _typed(self, decoded: lines.Line, raw: bytes, line: int) -> bool:
        """A typed line read by its kind's rules; False when it does not fit their facts
        (nothing was done: the dict path reads it). (``take_lines`` has it inline.)"""
        ts = decoded.timestamp
        try:
            return _TYPED[type(decoded.payload)](self, decoded.payload, raw, line, ts)
        except Exception as err:  # as ``feed`` does
            self._unreadable(err, orjson.loads(raw), line, ts)
            return True

    def feed(self, record: dict[str, Any], line: int) -> None:
        kind = record.get("type")
        payload = record.get("payload")
        ts = str_or_none(record.get("timestamp"))
        if not isinstance(payload, dict):
            if "payload" not in record:  # maybe an older writer's bare line
                self._bare(record, kind, line, ts)
            else:
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

    def _bare(self, record: dict[str, Any], kind: Any, line: int, ts: str | None) -> None:
        """A line of a rollout from before the ``payload`` lines (Codex CLI of mid 2025):
        its bare header is the session's meta, a bare response item is one, and its
        ``record_type`` markers (and anything else) are kept as records."""
        try:
            if kind in BARE_ITEMS:
                if self.bare and kind == "message" and record.get("role") == "user":
                    self._bare_prompt(record, line, ts)
                self._response(record, line, ts)
            elif kind is None and "id" not in self.meta and is_legacy_header(record):
                self.bare = True
                self._session_meta(record, line, ts)
            else:
                self._record(record, line, ts)
        except Exception as err:  # as ``feed`` does
            self._unreadable(err, record, line, ts)

    def _bare_prompt(self, record: dict[str, Any], line: int, ts: str | None) -> None:
        """A person's prompt in a rollout of bare items (it has no task or prompt events):
        it starts a turn, ended by the next prompt, as a 0.4x ``user_message`` does."""
        if prompt_of(content_parts(record.get("content"))) is None:
            return  # context Codex injected: no prompt
        if self.implicit:
            self._end_implicit(self.runs[self.open_run])
        if self.open_run < 0:
            self._prompted(line, ts)

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

    def bad_line(self, line: int, raw: bytes, why: str) -> None:
        super().bad_line(line, raw, why)
        self._add([self.bad_line_part(raw, why)], line, "system", "record", None, keep=True)

    def _record(self, record: dict[str, Any], line: int, ts: str | None) -> None:
        """A line kept as it is (a type not known, one that could not be read as Codex)."""
        name = str(record.get("type", record.get("record_type")))
        part = self.kept_line(name, record)
        self._add([part], line, "system", "record", ts, keep=True)

    def _session_meta(self, payload: dict[str, Any], line: int, ts: str | None) -> None:
        part = Part("other", compact(payload), name="session_meta")
        self._add([part], line, "system", "meta", ts, keep=True)
        if "id" in self.meta:
            return  # a resumed or forked file repeats its ancestors' meta: the first names it
        for key in _META_KEYS:
            if key in payload:
                self.meta[key] = payload[key]
        self.tally.forked = bool(payload.get("forked_from_id"))
        base = payload.get("base_instructions", payload.get("instructions"))
        if base is not None:
            self.base_instructions = section_text(base)
            sections = [("base_instructions", self.base_instructions)]
            self.header_context = RunContext(sections=sections, line=line)
        source = payload.get("source")
        spawn = source.get("subagent") if isinstance(source, dict) else None
        spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
        if isinstance(spawn, dict):
            for key in ("parent_thread_id", "depth", "agent_nickname", "agent_role"):
                if key in spawn:
                    self.meta[key.replace("_", "-")] = spawn[key]

    # -- events -----------------------------------------------------------------------

    def _event(self, payload: dict[str, Any], line: int, ts: str | None) -> None:
        kind = str_or_none(payload.get("type"))
        if kind == "token_count":
            self._token_count(self.tally.feed(payload, self.model, ts), line, ts)
            return
        if kind in _LEGACY:
            text = payload.get("text" if kind in _THOUGHT else "message")
            text = text if isinstance(text, str) else compact(text)
            self._legacy(kind, text, line, ts, injected(payload.get("kind")))
            return
        if kind == "thread_rolled_back":
            self._rolled_back(payload, line, ts)
            return
        if kind == "item_completed":
            shown = self._item_completed(payload, f"L{line}", line, ts)
            if shown is None:
                parts, role = [Part("other", compact(payload), name=kind)], "system"
            else:  # (kept: the parts are not what the line says as they are)
                parts, role = shown.parts, shown.role
            model = self.model if role == "assistant" else None  # (its turn's, as a response's)
            self._add(parts, line, role, "event", ts, keep=True, model=model)
            return
        if kind == "task_started":
            self._start_run(str_or_none(payload.get("turn_id")), line, ts)
        elif kind in _ENDED:
            turn, reason = str_or_none(payload.get("turn_id")), str_or_none(payload.get("reason"))
            self._end_run(_ENDED[kind], turn, line, ts, reason)
        elif kind in ("exec_command_end", "patch_apply_end", "mcp_tool_call_end"):
            self._late_outcome(kind, payload)
        elif kind == "thread_name_updated" and payload.get("thread_id") in (
            None,
            self.meta.get("id"),
        ):
            # The name the user gave this thread (the latest: none where it was cleared; a
            # name that is no string changes nothing); a fork's copy of its parent's names
            # the parent.
            name = thread_name(payload)
            if name is not NOT_A_NAME:
                self.thread_name = name if isinstance(name, str) else None
        packed = self._by_span()
        parts = _PACKED if packed else event_parts(kind, payload)
        self._add(parts, line, "system", "error" if kind in ERRORS else "event", ts)

    def _typed_token_count(
        self, payload: lines.TokenCount, raw: bytes | memoryview, line: int, ts: str | None
    ) -> bool:
        info = payload.info
        if info is None and (payload.input_tokens or payload.output_tokens):
            return False  # usage flat on the event (2025): the dict path reads it
        tally = self.tally
        tally.limits_json(bytes(payload.rate_limits))
        if info is None:
            said = tally.take(False, None, None, None, self.model, ts)
        else:
            said = tally.take(
                True,
                info.model_context_window,
                info.total_token_usage,
                info.last_token_usage,
                self.model,
                ts,
            )
        self._token_count(said, line, ts)
        return True

    def _typed_said(
        self,
        payload: lines.UserMessage | lines.AgentMessage,
        raw: bytes | memoryview,
        line: int,
        ts: str | None,
    ) -> bool:
        said = injected(payload.kind) if type(payload) is lines.UserMessage else False
        self._legacy(lines.TAG[type(payload)], payload.message, line, ts, said)
        return True

    def _typed_thought(
        self, payload: lines.AgentReasoning, raw: bytes | memoryview, line: int, ts: str | None
    ) -> bool:
        self._legacy("agent_reasoning", payload.text, line, ts)
        return True

    def _typed_turn(
        self,
        payload: lines.TaskStarted | lines.Ended,
        raw: bytes | memoryview,
        line: int,
        ts: str | None,
    ) -> bool:
        if type(payload) is lines.TaskStarted:
            self._start_run(payload.turn_id, line, ts)
        else:
            reason = payload.reason if type(payload) is lines.TurnAborted else None
            self._end_run(_ENDED[lines.TAG[type(payload)]], payload.turn_id, line, ts, reason)
        self._packed(line, self.system, self.event, 0, ts, 2)
        return True

    def _legacy(
        self, kind: str, text: str, line: int, ts: str | None, injected: bool = False
    ) -> None:
        """An older writer's ``user_message`` / ``agent_message`` / ``agent_reasoning``;
        ``injected``: a user message Codex wrote of its own (no prompt, no turn)."""
        role = _LEGACY[kind]
        thought = kind in _THOUGHT
        if role == "assistant":
            self._spoken()  # (a model output: its report is no repeat)
        if kind == "user_message" and not injected:
            if self.open_run < 0 or self.implicit:  # a prompt outside a turn starts one
                if self.implicit:
                    self._end_implicit(self.runs[self.open_run])
                self._prompted(line, ts)
            self._prompt(text)
        if self.best < EVENT and self._by_span():
            # Shown from the response items: its item read again by span, its height that
            # of its one part (``folded_height``'s, without making the part).
            height = 2 if thought else shape_height(text_rows(text), 0)
            self._packed(line, self.raw.code(role), self.event, 0, ts, height)
            return
        part = Part("reasoning" if thought else "text", text)
        if self.best >= EVENT:
            self.best = EVENT
            self._shown(EVENT, Item(f"L{line}", role, [part], line, ts=ts))
            self.lazy([part])  # kept in that view: its long text stays in the file
        self._add([part], line, role, "event", ts)

    def _prompt(self, text: str) -> None:
        """What the person typed (a user_message, or 0.149+'s UserMessage item) is its
        turn's prompt: the turn's first user response item may be injected context."""
        run = self._run()
        if run is not None and self.open_run not in self.prompt_from_event:
            run.prompt = text
            self.prompt_from_event.add(self.open_run)

    def _item_completed(
        self, payload: dict[str, Any], item_id: str, line: int, ts: str | None
    ) -> Item | None:
        """A newer writer's completed item: the conversation's message or tool call it
        is (None: neither)."""
        item = payload.get("item")
        if not isinstance(item, dict):
            return None
        conversation = completed_item(item, item_id, line, ts)
        if conversation is not None:
            if conversation.role == "assistant":
                self._spoken()
                conversation.model = self.model  # (its turn's, as a response item's)
            if item.get("type") == "UserMessage":
                self._prompt("\n".join(p.text for p in conversation.parts if p.kind == "text"))
            if self.best >= COMPLETED:
                self._settle_source(COMPLETED)
                self._shown(COMPLETED, conversation)
            return conversation
        run = self._run()
        tool = completed_tool(item, item_id, line, ts, run.id if run is not None else None)
        if tool is None:
            return None
        shown, op = tool
        self._spoken()  # (the model's call)
        if self.best >= COMPLETED:
            self._settle_source(COMPLETED)
            # Sent as a call and its answer, as response items say the same: two messages.
            call = [p for p in shown.parts if p.kind != "tool-result"]
            answer = [p for p in shown.parts if p.kind == "tool-result"]
            self._shown(COMPLETED, Item(shown.id, "assistant", call, line, ts=ts, model=self.model))
            if answer:
                self._shown(COMPLETED, Item(f"{shown.id}.result", "tool", answer, line, ts=ts))
            self.tier_ops.append(op)
        return shown

    def _answered(self) -> bool:
        """Did the open prompted run end with the assistant's message, no call left?"""
        open_run, unstated = self.open_run, self.unstated  # (no output answers those)
        return self.answered and not any(
            self.op_run[i] == open_run and i not in unstated for i in self.pending
        )

    @staticmethod
    def line_parts(record: dict[str, Any]) -> list[Part]:
        """The parts of a line fed as a packed item, again (a lazy part's text and data)."""
        payload = record.get("payload")
        line_type = record.get("type")
        if "payload" not in record and line_type in BARE_ITEMS:
            payload, line_type = record, "response_item"  # an older writer's bare item
        if not isinstance(payload, dict):
            return []
        if line_type == "turn_context":
            return [Part("other", compact(payload), name="turn_context")]
        if line_type == "event_msg":
            kind = str_or_none(payload.get("type"))
            if kind in _LEGACY:
                text = payload.get("text" if kind in _THOUGHT else "message")
                text = text if isinstance(text, str) else compact(text)
                return [Part("reasoning" if kind in _THOUGHT else "text", text)]
            if kind == "token_count":  # packed only when it reports its own total
                total = tokens.reported_total(payload)
                if total is not None:
                    return [Part("other", tokens.so_far(total), name="token_count")]
            return event_parts(kind, payload)
        if line_type != "response_item":
            return []
        if payload.get("type") in OUTPUT_TYPES:
            outcome = decode_output(output_of(payload))
            return [result_part(outcome, str_or_none(payload.get("call_id")))]
        return response_item(payload, "", 0, None).parts

    shown_parts = staticmethod(rows.shown_parts)

    # -- the model --------------------------------------------------------------------

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        messages: Sequence[Item]
        ops: Sequence[ToolOp]
        runs = list(self.runs)  # an ended run no longer changes: only open ones are copied
        for index, run in enumerate(runs):
            if run.state == "running":
                copy = dataclasses.replace(run, usage=Usage.total([run.usage]))
                if writer_alive is False:
                    prompted = index == self.open_run and self.implicit
                    following = runs[index + 1].line if index + 1 < len(runs) else None
                    self._cut_off(copy, following, prompted)
                    if prompted and self._answered() and not self.prompted_ends:
                        copy.state = "finished"  # a prompted run: its answer came last
                runs[index] = copy
        if self.best in (RESPONSE, NONE):
            messages = Items(self.raw, entries=self.view.codes, own=self.view.own)
            column = self.op_items
            states: dict[int, OpState] = {}  # the pending ones' at this snapshot
            for index in self.pending:
                run_index = self.op_run[index]
                if self._unstated_done(index, runs):
                    states[index] = "completed"  # (``_settle_unstated``, at this snapshot)
                    continue
                cut = run_index >= 0 and self.runs[run_index].state != "running"
                states[index] = classify_op(
                    has_result=False, interrupted=cut, writer_alive=writer_alive
                )
            ops = CodexOps(column, len(column), states)
        else:
            messages = list(self.tier_view[self.best])
            runs = self._tier_runs(runs)
            ops = list(self.tier_ops)
        tally = self.tally
        meta = dict(self.meta)
        if self.thread_name is not None:
            meta["title"] = self.thread_name
        if tally.context_window is not None:
            meta["model-context-window"] = tally.context_window
        extra: dict[str, Any] = {
            "run-contexts": list(self.run_contexts),
            "rate-limits": tally.rate_limits,
            "total-token-usage": tokens.to_json(tally.last_total, tally.writes),
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
            parent=str_or_none(meta.get("parent-thread-id")),
            # (a bare header's lines say no time: its time is when the rollout began)
            header_timed_alone=self.bare,
        )


# Each typed payload's rules, by its Struct (a turn context's payload is left Raw).
_TYPED: dict[type, Callable[[CodexBuilder, Any, bytes | memoryview, int, str | None], bool]] = {
    lines.TokenCount: CodexBuilder._typed_token_count,
    lines.UserMessage: CodexBuilder._typed_said,
    lines.AgentMessage: CodexBuilder._typed_said,
    lines.AgentReasoning: CodexBuilder._typed_thought,
    lines.TaskStarted: CodexBuilder._typed_turn,
    lines.TaskComplete: CodexBuilder._typed_turn,
    lines.TurnComplete: CodexBuilder._typed_turn,
    lines.TurnAborted: CodexBuilder._typed_turn,
    lines.FunctionCall: CodexBuilder._typed_call,
    lines.CustomToolCall: CodexBuilder._typed_call,
    lines.LocalShellCall: CodexBuilder._typed_call,
    lines.WebSearchCall: CodexBuilder._typed_call,
    lines.FunctionCallOutput: CodexBuilder._typed_output,
    lines.CustomToolCallOutput: CodexBuilder._typed_output,
    lines.Message: CodexBuilder._typed_message,
    lines.Reasoning: CodexBuilder._typed_reasoning,
    msgspec.Raw: CodexBuilder._typed_context,
}

__all__ = ["BARE_ITEMS", "LEGACY_HEADER_KEYS", "NAME", "CodexBuilder", "is_legacy_header"]
