"""The Codex builder: rollout lines, in file order, into the neutral model.

It keeps only what the model needs (items, operations, runs, running totals): a
``token_count`` leaves its numbers, not its dict, and repeated ``turn_context`` lines
share one context. ``transcript`` copies lists and settles the few open operations,
so it is cheap enough to call after every live batch.

The same conversation is written up to three times by some writers: as response
items, as newer ``item_completed`` events and as older ``user_message`` /
``agent_message`` / ``agent_reasoning`` events. It is shown once, from the best
source the file has (the others stay in the raw view as ``event`` items).

``CodexBuilder`` is the top layer: feeding and the model. What it keeps is
``state``'s; turns, tool calls, response items, the view's rewrites (compaction,
rollback) and event lines are read in by the layers below it (``turns``, ``calls``,
``responses``, ``rewrites``, ``events``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
import orjson

from ...column_items import Items
from ...model import Item, RunContext, Transcript, Usage
from ...parts import Part
from ...text import str_or_none
from ...tool_ops import OpState, ToolOp, classify_op
from ...utf8 import BlockLines
from ..builders import Builder
from . import LINE_TYPES, NAME, fork_copy, lines, rows
from . import usage as tokens
from .context import section_text
from .event_words import event_parts
from .events import _LEGACY, _THOUGHT, CodexEvents
from .fork_copy import ForkCopy
from .items import (
    CALL_TYPES,
    NOT_SENT,
    OUTPUT_TYPES,
    agent_message_of,
    content_parts,
    output_of,
    response_item,
    result_part,
)
from .ops import CodexOps
from .responses import prompt_of
from .state import NONE, RESPONSE, RUNLESS
from .tools import compact, decode_output

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


# A message another agent sent this one, as delivered (a line type of ``LINE_TYPES``, the
# ones the format names: a line of any other is kept raw, ``other_record``).
INTER_AGENT = "inter_agent_communication"


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


class CodexBuilder(CodexEvents):
    # -- feeding ----------------------------------------------------------------------
    #
    # Two ways in, one set of rules: ``feed_line`` decodes the hot lines into typed
    # Structs (``lines``) and ``feed`` reads any parsed record as a dict; both turn what
    # they read into the same few facts and hand them to the same methods (below, and
    # in the layers it stands on: ``events``, ``rewrites``, ``responses``, ``calls``,
    # ``turns``, ``state``).

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
                self._record(record, line, ts, other=kind not in LINE_TYPES)
            return
        try:
            if kind == "response_item":  # (its harness metadata beside it: upstream's)
                self._response(payload, line, ts, record.get("metadata"))
            elif kind == "event_msg":
                self._event(payload, line, ts)
            elif kind == "turn_context":
                self._turn_context(payload, line, ts)
            elif kind == "session_meta":
                self._session_meta(payload, line, ts)
            elif kind == "compacted":
                self._compacted(payload, line, ts)
            elif kind == INTER_AGENT:  # (the item the model is given: an agent message)
                self._response(agent_message_of(payload), line, ts)
            else:
                self._record(record, line, ts, other=True)
        except Exception as err:  # a shape no writer was seen to write: kept, never fatal
            self._unreadable(err, record, line, ts)

    def _bare(self, record: dict[str, Any], kind: Any, line: int, ts: str | None) -> None:
        """A line of a rollout from before the ``payload`` lines (Codex CLI of mid 2025):
        its bare header is the session's meta, a bare response item is one, and its
        ``record_type`` markers (and anything else) are kept as records."""
        try:
            if kind in BARE_ITEMS:
                if self.bare and (kind in OUTPUT_TYPES or record.get("role") == "user"):
                    self._bare_input(ts)
                if self.bare and kind == "message" and record.get("role") == "user":
                    self._bare_prompt(record, line, ts)
                self._response(record, line, ts)
            elif kind is None and "id" not in self.meta and is_legacy_header(record):
                self.bare = True
                self._session_meta(record, line, ts)
            else:  # (an older writer's ``record_type`` marker, or a type not named)
                self._record(record, line, ts, other="record_type" not in record)
        except Exception as err:  # as ``feed`` does
            self._unreadable(err, record, line, ts)

    def _bare_input(self, ts: str | None) -> None:
        """What the model is given next (a call's output, a user message) in a rollout of
        bare items: its outputs since the last input were one response, a request of its
        own, and its writer wrote no ``token_count`` (its usage unknown, counted among the
        responses that could have reported, as a turn's last one is at its end)."""
        self._unanswered(self.open_run if self.open_run >= 0 else RUNLESS, ts)

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
        if self.keeps_line():
            self._add([self.bad_line_part(raw, why)], line, "system", "record", None, keep=True)

    def _record(
        self, record: dict[str, Any], line: int, ts: str | None, other: bool = False
    ) -> None:
        """A line kept as it is (a type not known, one that could not be read as Codex);
        ``other``: of a type the format does not name, listed as such (``other_record``)."""
        name = str(record.get("type", record.get("record_type")))
        part = self.kept_line(name, record)
        self._add([part], line, "system", "record", ts, keep=True)
        if other:
            self.other_record(line, record.get("type"), record)

    def _session_meta(self, payload: dict[str, Any], line: int, ts: str | None) -> None:
        part = Part("other", compact(payload), name="session_meta")
        self._add([part], line, "system", "meta", ts, keep=True)
        if "id" in self.meta:
            return  # a resumed or forked file repeats its ancestors' meta: the first names it
        for key in _META_KEYS:
            if key in payload:
                self.meta[key] = payload[key]
        self.tally.forked = bool(payload.get("forked_from_id"))
        self.tally.based = builds_on_history(payload)
        parent = payload.get("forked_from_id")
        start = own_history_start(payload)
        if start is not None and not self.tally.based:
            self.tally.forked = True
            self.fork_copy = ForkCopy.marked(start[0], start[1])
        elif isinstance(parent, str) and parent and not self.tally.based:
            self.fork_copy = ForkCopy(parent)
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
        if line_type == INTER_AGENT:
            payload, line_type = agent_message_of(payload), "response_item"
        if line_type != "response_item":
            return []
        if payload.get("type") in OUTPUT_TYPES:
            outcome = decode_output(output_of(payload))
            return [result_part(outcome, payload.get("call_id"))]
        return response_item(payload, "", 0, None, record.get("metadata")).parts

    shown_parts = staticmethod(rows.shown_parts)

    # -- the model --------------------------------------------------------------------

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        messages: Sequence[Item]
        ops: Sequence[ToolOp]
        fork = self.fork_copy
        if fork is not None:  # (its copy fed whole: its usage the parent's)
            fork_copy.settle(self)
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
        usage = tally.usage()
        unreported = self._output_unreported()  # (the report of its last output not written)
        if unreported:
            usage.responses += 1
            if self.open_run >= 0:  # (its turn's: a copy, as a snapshot keeps runs)
                run = runs[self.open_run]
                unknown = Usage.total([run.usage, Usage(responses=1)])
                runs[self.open_run] = dataclasses.replace(run, usage=unknown)
        self._unreported_last(unreported)
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
        warnings = self.warnings_said(writer_alive)
        if tally.seed_untold:
            warnings.append(tokens.SEED_UNTOLD)
        said = None if fork is None else fork.warning()
        # (none where the fork's count started again from 0: that told its copy)
        if said is not None and not any(run.copied for run in self.runs):
            warnings.append(said)
        return Transcript(
            format=NAME,
            responses_counted=True,
            path=self.path,
            meta=meta,
            messages=messages,
            raw=Items(self.raw),
            tool_operations=ops,
            compactions=list(self.compactions),
            runs=runs,
            usage=usage,
            warnings=warnings,
            lines=self.lines,
            extra=extra,
            other_records=list(self.other_records),
            writer_alive=writer_alive,
            parent=str_or_none(meta.get("parent-thread-id")),
            # (a bare header's lines say no time: its time is when the rollout began)
            header_timed_alone=self.bare,
        )

    def _unreported_last(self, pending: bool) -> None:
        """The last output's item says its usage unknown while no report came after it (the
        writer died, or has not written it yet); said back where one came since."""
        item = self.last_response if pending else -1
        said, unknown = self.said_unknown
        if said == item:
            return
        if said >= 0 and unknown is not None:
            self.response_usage.forget(said, unknown)
        unknown = Usage(responses=1) if item >= 0 else None
        if unknown is not None:
            self.response_usage.set(item, unknown)
        self.said_unknown = (item, unknown)


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


def own_history_start(payload: dict[str, Any]) -> tuple[str, int] | None:
    """A paginated subagent's header (0.15x): its parent's thread and the file's last line
    of the parent's history copied into it, which the header's
    ``subagent_history_start_ordinal`` tells (the ordinal of the subagent's first line of
    its own; a line's ordinal is its line number less one). None: no such header, or one
    whose copy is no more than its own header."""
    start = payload.get("subagent_history_start_ordinal")
    if type(start) is not int or start < 2:
        return None
    source = payload.get("source")
    spawn = source.get("subagent") if isinstance(source, dict) else None
    spawn = spawn.get("thread_spawn") if isinstance(spawn, dict) else None
    for parent in (
        payload.get("forked_from_id"),
        payload.get("parent_thread_id"),
        spawn.get("parent_thread_id") if isinstance(spawn, dict) else None,
    ):
        if isinstance(parent, str) and parent:
            return parent, start
    return None


def builds_on_history(payload: dict[str, Any]) -> bool:
    """Does a ``session_meta`` build on history kept in another file (a paginated fork)?"""
    return isinstance(payload.get("history_base"), dict)


__all__ = [
    "BARE_ITEMS",
    "LEGACY_HEADER_KEYS",
    "NAME",
    "CodexBuilder",
    "builds_on_history",
    "is_legacy_header",
]
