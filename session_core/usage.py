"""Token and cost usage: per message, per run and per transcript, for both formats.

Missing is unknown, never zero. A total is ``None`` until at least one turn
reported that field, and every total carries how many turns reported it out of
how many could have, so "2,590 tokens" is never shown for a transcript where
one turn in four said nothing.

What counts as a turn:

* transcript-v1: every assistant message line in the file (and any other
  message line that carries a ``usage`` extra). Folded or elided messages still
  count: their tokens were spent. Usage is read from the ``usage`` extra
  (``prompt-tokens``, ``completion-tokens``, ``total-tokens``, ``cost``); a
  message without ``total-tokens`` but with both token counts totals their sum.
* agentgo-v1: every model call attempt (``model_request``/``model_exec_end``) but
  one the API refused (``refused_end``: an error, no message, no usage); usage is
  ``model_exec_end``'s ``usage`` (``input_tokens``, ``output_tokens``,
  ``cache_read_tokens``, ``cost``). A call without its terminal event did not
  report.

Runs (transcript-v1): a ``run-context`` line starts its run; every message line
after it, up to the next ``run-context`` line, belongs to that run. Messages
before the first ``run-context`` line belong to ``NO_RUN``. A run named only by
``tool-dispatched`` lines (no ``run-context`` of its own) is listed too, with no
messages of its own. Runs (agentgo-v1): a call belongs to its record's ``run_id``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .message_usage import MessageUsage, agentgo_usage, exec_end_usage
from .text import cost_text
from .usage_totals import NO_RESPONSE

if TYPE_CHECKING:
    from .agentgo.stored import Committed
    from .agentgo.view import AgentGoView, Call
    from .replay import ReplayState  # (v1's: an agentgo open imports none of it)

NO_RUN = "(no run)"


@dataclass(slots=True)
class Usage:
    """Totals over turns; each field ``None`` until a turn reported it."""

    turns: int = 0  # turns that count (could have reported)
    reported: int = 0  # turns that carried any usage at all
    input: int | None = None
    output: int | None = None
    total: int | None = None
    cache_read: int | None = None
    cost: float | None = None
    # how many turns reported each field
    total_reported: int = 0
    cost_reported: int = 0
    # tokens of no named kind: a total reported alone, or what a total holds past its counts
    total_only: int | None = None
    in_part: int = 0  # turns whose tokens are known in part (``MessageUsage.in_part``)

    def add(self, usage: MessageUsage | None) -> None:
        """Count one turn and what it reported (``None``: it reported nothing)."""
        self.turns += 1
        if usage is None:
            return
        self.reported += 1
        # (each token once, as every view counts it: ``MessageUsage.counted``)
        inp, out, cache, rest = usage.counted()
        if inp is not None:
            self.input = inp + (self.input or 0)
        if out is not None:
            self.output = out + (self.output or 0)
        if cache is not None:
            self.cache_read = cache + (self.cache_read or 0)
        if rest is not None:
            self.total_only = rest + (self.total_only or 0)
        if inp is not None or out is not None or cache is not None or rest is not None:
            # (``usage.tokens``, from the counts at hand: every message of a replay)
            tokens = (inp or 0) + (out or 0) + (cache or 0) + (rest or 0)
            self.total = tokens + (self.total or 0)
        if usage.total is not None:
            self.total_reported += 1
        elif usage.in_part:
            self.in_part += 1
        if usage.cost is not None:
            self.cost = usage.cost + (self.cost or 0.0)
            self.cost_reported += 1

    @property
    def complete(self) -> bool:
        """Every turn reported its tokens (and there was at least one turn)."""
        return self.turns > 0 and self.total_reported == self.turns

    def describe_tokens(self) -> str:
        """``2,590``, ``2,590 (3 of 4 responses reported)``, or ``unknown``."""
        return _describe(f"{self.total:,}" if self.total is not None else None, self)

    def describe_cost(self) -> str:
        value = cost_text(self.cost) if self.cost is not None else None
        return _describe(value, self, cost=True)


def _describe(value: str | None, usage: Usage, cost: bool = False) -> str:
    """As the neutral model says it (``usage_totals.Usage``): how many responses reported
    any usage, how many their tokens in part, and of those that reported, how many were
    priced (those that reported nothing are said apart, not as a price missing)."""
    if usage.turns == 0:
        return NO_RESPONSE if value is None else value
    # ("responses": a turn of agentgo's is several model calls, each one reporting)
    notes = []
    if cost and usage.reported and usage.cost_reported < usage.reported:
        notes.append(f"{usage.cost_reported} of {usage.reported} priced")
    if usage.reported != usage.turns:
        plural = "s" if usage.turns != 1 else ""
        notes.append(f"{usage.reported} of {usage.turns} response{plural} reported")
    if not cost and usage.in_part:
        notes.append(f"{usage.in_part} reported in part")
    said = value if value is not None else "unknown"
    return f"{said} ({', '.join(notes)})" if notes else said


@dataclass(slots=True)
class UsageTally:
    """Per transcript and per run totals of a v1 replay, kept up to date incrementally.

    ``update(state)`` reads only the envelopes added since the last call, so a
    follower can call it on every append (linear overall).
    """

    transcript: Usage = field(default_factory=Usage)
    runs: dict[str, Usage] = field(default_factory=dict)  # in order of first appearance
    run: str = NO_RUN  # the run the next message line belongs to
    seen: int = 0  # events already counted
    contexts_seen: int = 0  # of state.run_contexts
    ops_seen: int = 0  # of state.tool_ops

    def _run_usage(self, run_id: str) -> Usage:
        usage = self.runs.get(run_id)
        if usage is None:
            usage = self.runs[run_id] = Usage()
        return usage

    def update(self, state: ReplayState) -> None:
        """Count the envelopes added since the last call, from the facts kept at replay
        (run-context and tool-dispatched lines are met in the order replay kept them)."""
        events = state.events
        kinds = events.kinds
        message, context = kinds.known("message"), kinds.known("run-context")
        dispatch = kinds.known("tool-dispatched")
        facts = events.facts
        transcript = self.transcript
        current: Usage | None = None  # the run's totals, once a turn counts there
        start = self.seen
        for position, kind in enumerate(kinds.codes[start:], start):
            if kind == message and facts.turn(position):
                usage = facts.usage(position)
                transcript.add(usage)
                if current is None:
                    current = self._run_usage(self.run)
                current.add(usage)
            elif kind == context:
                run_id = state.run_contexts.run_ids[self.contexts_seen]
                self.contexts_seen += 1
                self.run = run_id or NO_RUN
                current = self._run_usage(self.run)
            elif kind == dispatch:
                op_run = state.tool_ops.run_ids[self.ops_seen]
                self.ops_seen += 1
                if op_run is not None:
                    self._run_usage(op_run)
        self.seen = len(events)


def tally_state(state: ReplayState) -> UsageTally:
    tally = UsageTally()
    tally.update(state)
    return tally


def tally_agentgo(view: AgentGoView) -> UsageTally:
    """Per session and per run totals of an ``AgentGoView`` (model calls are the turns)."""
    calls = (view.calls[key] for key in view.call_order)
    return tally_model_calls(
        view,
        (
            (call, model_call_usage(call))
            for call in calls
            if is_model_call(call) and responded(call)
        ),
    )


def refused_end(data: dict[str, Any]) -> bool:
    """A ``model_exec_end`` of a call the API refused (a 429, an overload): an error with
    no message, no partial one and no usage. It made no response (the spec: "success has
    ``message``; failure has ``error`` and maybe ``partial_message``"), so none that
    could have reported usage: it is not counted among those that did not."""
    return (
        bool(data.get("error"))
        and data.get("message") is None
        and data.get("partial_message") is None
        and exec_end_usage(data) is None
    )


def responded(call: Call) -> bool:
    """Did a model call make a response (not one ``refused_end`` says the API refused)?"""
    return not call.model_failed or not refused_end(call.result or {})


def tally_model_calls(
    view: AgentGoView, usages: Iterable[tuple[Call, MessageUsage | None]]
) -> UsageTally:
    """The totals of ``view``'s model calls, each with its usage (in call order), every run
    listed first: what ``tally_agentgo`` counts, from usages already read."""
    tally = UsageTally()
    for run_id in view.run_order:
        tally._run_usage(run_id)
    for call, usage in usages:
        tally.transcript.add(usage)
        tally._run_usage(call.run_id or NO_RUN).add(usage)
    return tally


OPEN_CALLS = 64  # the model calls at a session's end that a snapshot adds afresh


@dataclass(slots=True)
class GrowingTally:
    """``tally_model_calls`` of a session that grows, a snapshot at a time, without adding
    every call again: the totals of the calls before ``upto`` are kept, and a snapshot
    adds only the calls after them, in the same order (so its sums are the same to the
    last bit). A call before ``upto`` that changes (``changed``) starts it again."""

    upto: int = 0  # the calls before this index (in call order) are in ``kept``
    kept: UsageTally = field(default_factory=UsageTally)
    open_calls: int = OPEN_CALLS

    def changed(self, index: int) -> None:
        if index < self.upto:
            self.upto, self.kept = 0, UsageTally()

    def tally(
        self,
        view: AgentGoView,
        usages: dict[int, MessageUsage | None],
        runs: Collection[str] | None = None,
    ) -> UsageTally:
        """The totals of ``usages`` (model call index -> its usage, in index order): the
        session's, and every run's, or only ``runs``'s (a snapshot's runs made again: a
        dict of every run was a big file's cost per snapshot)."""
        order, calls, kept = view.call_order, view.calls, self.kept
        tail: list[tuple[int, MessageUsage | None]] = []
        for index, used in reversed(usages.items()):
            if index < self.upto:
                break
            tail.append((index, used))
        tail.reverse()
        settled = max(self.upto, tail[-1][0] + 1 - self.open_calls) if tail else self.upto
        at = 0
        for index, used in tail:  # calls a new snapshot is unlikely to change: kept
            if index >= settled:
                break
            kept.transcript.add(used)
            kept._run_usage(calls[order[index]].run_id or NO_RUN).add(used)
            at += 1
        self.upto = settled
        out = UsageTally(transcript=replace(kept.transcript))
        if runs is None:
            out.runs = {run_id: kept.runs.get(run_id) or Usage() for run_id in view.run_order}
            for run_id, used_in in kept.runs.items():
                out.runs.setdefault(run_id, used_in)
        else:
            out.runs = {run_id: kept.runs.get(run_id) or Usage() for run_id in runs}
        copied: set[str] = set()
        for index, used in tail[at:]:
            out.transcript.add(used)
            run_id = calls[order[index]].run_id or NO_RUN
            if runs is not None and run_id not in runs:
                continue
            if run_id not in copied:  # (kept's own totals are never changed here)
                out.runs[run_id] = replace(out.runs.get(run_id) or Usage())
                copied.add(run_id)
            out.runs[run_id].add(used)
        return out


class FedCallUsage:
    """Each model call's usage, taken from its ``model_exec_end`` as the view is fed
    (``read_view``'s ``fed``), so nothing is read again: a snapshot's model, and a
    check, whose view keeps no record to read back."""

    __slots__ = ("_refused", "_taken")

    def __init__(self) -> None:
        # call index (in call_order) -> (its model_exec_end's record index, its usage)
        self._taken: dict[int, tuple[int, MessageUsage | None]] = {}
        self._refused: set[int] = set()  # the model_exec_end records of refused calls

    def fed(self, view: AgentGoView, record: dict[str, Any]) -> None:
        """``record``, the last ``view`` took: a model call's end noted."""
        if record.get("type") == "model_exec_end":
            at = len(view.records) - 1
            index = view.records.calls[at]
            if index >= 0:
                data = record.get("data")
                used = exec_end_usage(data)
                self._taken[index] = (at, used)
                if used is None and isinstance(data, dict) and refused_end(data):
                    self._refused.add(at)

    def responded(self, index: int, call: Call) -> bool:
        """Did model call ``index`` make a response (one that could report usage)? Not
        where the API refused it (``refused_end``), as fed, else as read again."""
        if not call.model_failed:  # (the common case: nothing read)
            return True
        taken = self._taken.get(index)
        if taken is not None and taken[0] == call.result_at:
            return call.result_at not in self._refused
        return not refused_end(call.result or {})

    def of(self, index: int, call: Call) -> MessageUsage | None:
        """Call ``index``'s usage: its latest end's as fed, else read from its record."""
        taken = self._taken.get(index)
        if taken is not None and taken[0] == call.result_at:
            return taken[1]
        return model_call_usage(call)

    def tally(self, view: AgentGoView) -> UsageTally:
        """``tally_agentgo``'s totals from the usages fed (a view whose records are not
        kept: every model call's end was fed, and one without an end reported none)."""
        calls = enumerate(view.calls[key] for key in view.call_order)
        return tally_model_calls(
            view,
            (
                (call, self.of(i, call))
                for i, call in calls
                if is_model_call(call) and self.responded(i, call)
            ),
        )


def model_call_usage(call: Call) -> MessageUsage | None:
    """A model call's usage: its ``model_exec_end``'s (None: it reported none, or has none)."""
    return exec_end_usage(call.result)


def shown_usage(
    view: AgentGoView,
    committed: Committed,
    message: dict[str, Any],
    fed: FedCallUsage | None = None,
) -> MessageUsage | None:
    """What a committed message shows it used (the viewer's row, the exports): its own
    ``usage``, else, where the spec's writer put it on the ``model_exec_end`` alone, the
    usage of the model call that produced it (``Committed.usage_call``; ``fed``: as
    taken while fed, else read again). Shown only: the totals count each call once."""
    said = agentgo_usage(message.get("usage"))  # (``{}``: no number, as a usage of null)
    if said is not None or committed.usage_call < 0:
        return said
    index = committed.usage_call
    return (fed or FedCallUsage()).of(index, view.calls[view.call_order[index]])


def is_response(committed: Committed, message: dict[str, Any]) -> bool:
    """Is a committed message a model's response, whose usage is said with it (unknown
    where none was reported, never left unsaid): one with a usage of its own, or the
    message a model call produced (``Committed.usage_call``)."""
    return committed.usage_call >= 0 or agentgo_usage(message.get("usage")) is not None


def is_model_call(call: Call) -> bool:
    """A model call: by its kind, or by a model record about it (from what the view kept:
    no record is read again)."""
    return call.kind == "model" or call.request_at >= 0 or call.result_at >= 0
