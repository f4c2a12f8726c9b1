"""The Codex builder's turns (``CodexTurns``): runs started and ended by task events,
their contexts (``turn_context`` lines, one copy of what repeats), and each
``token_count``'s usage folded into its turn and its response's item."""

from __future__ import annotations

import bisect
import dataclasses
import re
from typing import Any

import msgspec
import orjson

from ...model import Run, RunContext, Usage
from ...parts import Part
from . import lines
from . import usage as tokens
from .context import changed, context_key, run_context, turn_id_and_model
from .state import _PACKED, RUNLESS, CodexState
from .tools import compact

# The fixed texts of token counts, one list shared by every item that says them.
_FIXED = {
    text: [Part("other", text, name="token_count")]
    for text in (tokens.REPEAT, tokens.NO_USAGE, tokens.NO_LIMITS_ONLY)
}
# A turn context line's head as writers write it, its timestamp a JSON string of
# printable ASCII with no escapes (so that the text is the value).
_CONTEXT_HEAD = re.compile(
    rb'\{"timestamp":"([\x20\x21\x23-\x5b\x5d-\x7e]*)","type":"turn_context","payload":'
)
_CONTEXT_CACHE = 4096  # distinct turn contexts remembered (repeats share one)
_LOOK_BACK = 20  # a cut-off run's last lines looked at for its time (as ``last_time``)


class CodexTurns(CodexState):
    # -- runs and their contexts ------------------------------------------------------
    def _start_run(self, turn: str | None, line: int, ts: str | None) -> None:
        previous = self._run()
        if previous is not None and self.implicit:
            if turn is not None and (not previous.items or previous.id == turn):
                # its prompt came just before it (or its context named it)
                self._adopt(previous, turn)
                return
            self._end_implicit(previous)
        elif previous is not None:  # a new turn while one is open: that one never ended
            self._unanswered(self.open_run, ts)
            self._cut_off(previous, line)
        turn = turn or f"L{line}"
        self._runless_begin()  # (what came before is no part of it)
        self.open_run = len(self.runs)
        self.turn_reports = self.tally.reports
        self.runs.append(Run(id=turn, state="running", line=line, started=ts))
        self.run_by_turn[turn] = self.open_run
        if self.waiting_context is not None:
            self._assign_context(self.open_run, self.waiting_context)
            self.waiting_context = self.waiting_turn = None
        else:  # (until a turn context gives its own)
            self.runs[-1].context = self.header_context

    def _prompted(self, line: int, ts: str | None) -> None:
        """A prompt (``user_message``) outside any turn: older writers wrote no
        ``task_started``, so it starts one (ended by the next prompt or a turn event)."""
        self._start_run(self.waiting_turn, line, ts)  # the turn a context named, if one did
        self.implicit = True
        self.answered = False
        self.implicit_last = (line, ts)

    def _end_implicit(self, run: Run) -> None:
        """A prompted run that a later one follows: it ended with its last response item
        (finished when that was the assistant's message, else cut off)."""
        self._unanswered(self.open_run, self.implicit_last[1])
        run.state = "finished" if self.answered else "interrupted"
        run.end_at(*self.implicit_last)
        if run.state == "finished":
            self._settle_unstated(self.open_run)
        self.implicit = False
        self.open_run = -1
        self._runless_begin()

    def _settle_unstated(self, run_index: int) -> None:
        """The calls of run ``run_index`` that say no status of their own (``unstated``):
        completed, as it finished, ended where they were written (upstream writes a
        ``web_search_call`` once it is done)."""
        if not self.unstated:
            return
        column = self.op_items
        for at in [at for at in self.unstated if self.op_run[at] == run_index]:
            del self.unstated[at]
            if at in self.pending:
                own = column.own.get(at)
                if own is not None:
                    own.ended = own.started
                column.settle(at, "completed", at_call=True)
                call_id = column.call_id(at)
                if column.waiting.get(call_id) == at:
                    del column.waiting[call_id]
                del self.pending[at]

    def _unstated_done(self, at: int, runs: list[Run]) -> bool:
        """Whether the pending op ``at`` is a status-less call done at a snapshot of
        ``runs``: its run finished; in no run, the model spoke after it."""
        done = self.unstated.get(at)
        if done is None:
            return False
        run = self.op_run[at]
        return done if run < 0 else runs[run].state == "finished"

    def _cut_off(self, run: Run, stop: int | None, prompted: bool = False) -> None:
        """``run`` never ended (a later turn began at line ``stop``, or its writer is
        gone: None): *interrupted*, at the last of its lines before ``stop`` that says a
        time (``prompted``: the open prompted run, at its last response item, as
        ``_end_implicit`` ends one)."""
        run.state = "interrupted"
        if prompted:
            run.end_at(*self.implicit_last)
            return
        raw, lines = self.raw, self.raw.line
        at = len(lines) if stop is None else bisect.bisect_left(lines, stop)
        if not at or lines[at - 1] < run.line:
            return  # (no line of its own read: its end not known)
        # At the last of its lines that says a time (a line that could not be read says
        # none: the whole read has it as an item, a followed one holds a torn last line
        # back), else its last line read.
        end, ts = lines[at - 1], None
        for index in range(at - 1, max(-1, at - 1 - _LOOK_BACK), -1):
            if lines[index] < run.line:
                break
            ts = raw.ts_of(index)
            if ts:
                end = lines[index]
                break
        run.end_at(end, ts)

    def _adopt(self, run: Run, turn: str) -> None:
        """The ``task_started`` of a prompted run that has nothing yet (or that its context
        named already): that run is its turn."""
        old, run.id = run.id, turn
        self.run_by_turn[turn] = self.open_run
        for entry in self.run_contexts[-1:]:
            if entry["run-id"] == old:
                entry["run-id"] = turn
        self.implicit = False

    def _end_run(
        self, state: Any, turn: str | None, line: int, ts: str | None, reason: Any = None
    ) -> None:
        """A turn's end event: its state, and why (``turn_aborted``'s reason, a str)."""
        index = self.run_by_turn.get(turn, self.open_run) if turn is not None else self.open_run
        if index == self.open_run:  # (the outputs since the last report are the open run's)
            self._unanswered(index if index >= 0 else RUNLESS, ts)
        made = index < 0
        if made:  # the file starts inside a turn (a resumed one): its lines are the run's
            index = len(self.runs)
            # (its usage: the reports since the previous run ended, counted in no run)
            usage = self.runless_usage
            self.runs.append(Run(id=turn or f"L{line}", state="running", line=line, usage=usage))
            self.runs[index].answered = self.runless_answered
            self.runs[index].items = self.runless_items  # (the items shown before its end)
            for counts in self.tier_items.values():
                if RUNLESS in counts:
                    counts[index] = counts.pop(RUNLESS)
            if self.unknown_at[1] == RUNLESS:
                self.unknown_at = (self.unknown_at[0], index)
            for at in range(self.runless_from, len(self.op_run)):
                if at in self.unstated:  # (settled as the run's, below or when shown)
                    self.op_run[at] = index
        run = self.runs[index]
        run.state = state
        run.reason = reason if isinstance(reason, str) and reason else None
        run.end_at(line, ts)
        if state == "finished":
            self._settle_unstated(index)
        if index == self.open_run:
            # (a ``task_complete``: writers that wrote no task events wrote turn_aborted)
            self.prompted_ends = self.prompted_ends or (self.implicit and state == "finished")
            self.open_run = -1
            self.implicit = False
        if made or self.open_run < 0:
            self._runless_begin()

    def _turn_context(self, payload: dict[str, Any], line: int, ts: str | None) -> None:
        context = self._context_for(context_key(payload), payload, line)
        if self._by_span():
            parts = _PACKED
        else:
            parts = [Part("other", compact(payload), name="turn_context")]
        turn, model = turn_id_and_model(payload)
        self._context(context, parts, turn, model, line, ts)

    def _typed_context(
        self, payload: msgspec.Raw, raw: bytes | memoryview, line: int, ts: str | None
    ) -> bool:
        # A turn's context is written again before every model request, the same bytes:
        # those are not parsed again (its first time, it is keyed as the dict path keys it).
        # (A view is of an all-ASCII block: no UTF-8 to check.)
        if type(raw) is bytes and not raw.isascii() and not lines.rest_is_utf8(raw, payload):
            return False
        if payload == self.context_raw:
            context, turn, model = self.context_facts
            self.context_size = len(raw)
        else:
            try:
                parsed = orjson.loads(memoryview(payload))  # it checks the payload's UTF-8
            except orjson.JSONDecodeError:
                return False
            if type(parsed) is not dict:
                return False
            context = self._context_for(context_key(parsed), parsed, line)
            turn, model = turn_id_and_model(parsed)
            # A copy: a payload decoded from a view would keep the whole block it is in.
            self.context_raw = msgspec.Raw(bytes(payload))
            self.context_facts = (context, turn, model)
            self.context_size, self.context_tail = len(raw), bytes(payload) + b"}"
        self._context(context, _PACKED, turn, model, line, ts)
        return True

    def _repeated_context(self, raw: bytes | memoryview, line: int) -> bool:
        """A line that is the latest typed turn context's payload again, behind a plain
        ``{"timestamp": ..., "type": "turn_context", "payload": `` (a repeat, as most
        are): read as ``_typed_context`` reads it, without decoding its payload (those
        bytes were read already). False, nothing done, for any other line."""
        head = _CONTEXT_HEAD.match(raw)
        tail = self.context_tail
        if head is None or len(raw) != head.end() + len(tail):
            return False
        if type(raw) is memoryview:
            raw = bytes(raw)  # (a view compared with bytes goes a byte at a time)
        if not raw.endswith(tail):
            return False
        context, turn, model = self.context_facts
        self._context(context, _PACKED, turn, model, line, head.group(1).decode())
        return True

    def _context_for(self, key: int, payload: dict[str, Any], line: int) -> RunContext:
        """The run context of a ``turn_context`` payload (``key``: its compact text's hash)."""
        context = self.contexts.get(key)
        if context is None:
            if len(self.contexts) >= _CONTEXT_CACHE:
                self.contexts.clear()
            context = self.contexts[key] = run_context(payload, line)
            base = self.base_instructions
            if base and "base_instructions" not in payload:  # (the session's, each turn's)
                context.sections.insert(0, ("base_instructions", base))
            # Every turn's context differs (its turn_id) but repeats its instructions:
            # one copy of each text is kept, not one per turn (the previous context's
            # when it is the same text, else the one kept of it).
            shared = self.section_texts
            if len(shared) >= _CONTEXT_CACHE:
                shared.clear()
            last = dict(self.last_sections)
            context.sections = [
                (n, last[n] if last.get(n) == t else shared.setdefault(t, t))
                for n, t in context.sections
            ]
            self.last_sections = context.sections
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
        if parts is _PACKED:
            self._packed(line, self.system, self.context_kind, 0, ts, 2)
        else:
            self._append(parts, line, ts, role="system", kind="context", span=self.span)
        self.last_response, self.early_usage = -1, None  # a model request begins
        if model is not None:
            if model != self.model:
                self.model_code = self.raw.code(model)
            self.model = model
            self.meta.setdefault("model", model)
        index = self.run_by_turn.get(turn, self.open_run) if turn is not None else self.open_run
        if index >= 0:
            had = self.runs[index].context
            if had is None or had is self.header_context:
                self._assign_context(index, context)
        else:
            self.waiting_context, self.waiting_turn = context, turn

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

    def _parents_history(self, through: int = 0) -> None:
        """A fork's own count began: the responses before are its parent's, copied (the
        parent's file counts them). Their usage is taken off the turns and items, as the
        session's total leaves it out; a turn before this one is the parent's copy (one
        begun by line ``through``, where the copy's end is known: ``fork_copy``)."""
        self.tally.fork_began = False
        self.response_usage.clear()
        self.runless_usage = Usage()
        self.unknown_at = (-1, -1)
        for index, run in enumerate(self.runs):  # (copies: a snapshot keeps the old ones)
            if through:
                copied = run.copied or (run.line or 0) <= through
            else:
                copied = run.copied or index != self.open_run
            self.runs[index] = dataclasses.replace(run, usage=Usage(), copied=copied)

    def _gap_share(self, usage: Usage) -> None:
        """The usage of the latest response whose report said none, known now from a
        later total (``TokenTally.cover``): its item's, and its turn's with it (a new
        run, as a snapshot keeps an ended one as it was)."""
        self.tally.gap_share = None
        item, index = self.unknown_at
        self.unknown_at = (-1, -1)
        if item >= 0:
            self.response_usage.set(item, usage)
        if index == RUNLESS:
            self.runless_usage.add(dataclasses.replace(usage, responses=0))
        elif index >= 0:
            run = self.runs[index]
            total = Usage.total([run.usage])
            total.add(dataclasses.replace(usage, responses=0))  # (counted already)
            self.runs[index] = dataclasses.replace(run, usage=total)

    def _unanswered(self, index: int, ts: str | None) -> None:
        """Turn ``index`` (``RUNLESS``: the lines outside any run) ends on a model output
        no ``token_count`` came after: that response's usage is unknown, said by its item
        and its turn and counted among the responses that could have reported, as one
        whose report said no usage is (a later total of the file's own may tell it:
        ``TokenTally.cover``). Once a turn, never for a common line."""
        if not self._output_unreported():
            return
        usage = self.tally.unanswered(self.model, ts)
        if usage is None:
            return
        if index == RUNLESS:
            self.runless_usage.add(usage)
        else:  # (the open run: a snapshot copied it, as ``_token_count`` adds to it)
            self.runs[index].usage.add(usage)
        self.unknown_at = (self.last_response, index)
        if self.last_response >= 0:
            self.response_usage.set(self.last_response, usage)
            self.last_response = -1

    def _token_count(
        self, said: tuple[tokens.Note, Usage | None, int, bool], line: int, ts: str | None
    ) -> None:
        """One ``token_count`` folded in; a new response's usage goes to its turn and item
        (one whose usage is unknown too: its item says so, ``Usage(responses=1)``)."""
        note, usage, size, own = said
        if self.tally.fork_began:
            self._parents_history()
        if self.tally.gap_share is not None:
            self._gap_share(self.tally.gap_share)
        if usage is not None:
            run = self._run()
            if run is not None:
                run.usage.add(usage)
                if self.implicit:  # its answer's usage is the prompted run's too
                    self.implicit_last = (line, ts)
            else:  # the run an end event makes takes it
                self.runless_usage.add(usage)
            if not usage.reported:
                at = self.open_run if run is not None else RUNLESS
                self.unknown_at = (self.last_response, at)
            if self.last_response >= 0:
                self.response_usage.set(self.last_response, usage)
                self.last_response = -1
                self.usage_first = False  # (this writer reports after the output, here)
            elif usage.reported:  # before the request's output (older writers): its
                self.early_usage = usage  # first item takes it
            if size > 0:
                self.context_tokens = size
                if self.awaiting_after is not None:
                    self.awaiting_after.tokens_after = size
                    self.awaiting_after = None
        if isinstance(note, str):
            parts = _FIXED[note]  # one list shared
        elif own and self._by_span():  # ``line_parts`` says it again
            # (``_packed``'s, inline: a token count is every fifth line)
            index = self.raw.append_packed(
                line, self.span, self.system, self.event, 0, None, 2, 1, False, ts is not None
            )
            if ts is not None:
                self.stamps.put(index, ts)
            return
        else:
            parts = [Part("other", tokens.so_far(note), name="token_count")]
        index = self.raw.append(  # (``_append``'s, inline)
            parts,
            line,
            role="system",
            kind="event",
            span=self.span,
            keep=True,
            read_ts=ts is not None,
        )
        if ts is not None:
            self.stamps.put(index, ts)


__all__ = ["CodexTurns"]
