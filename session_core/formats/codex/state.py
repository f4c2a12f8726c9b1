"""What the Codex builder keeps while it reads (``CodexState``), and what every part of it
asks of that: whether a line is kept by its span, where an operation's part is, the open
run, and which source of the conversation is the best the file has shown so far.

The builder is layered, each layer a module: ``CodexState`` (here), ``CodexTurns``
(``turns``: runs, their contexts and usage), ``CodexCalls`` (``calls``: tool calls
paired with their outputs), ``CodexResponses`` (``responses``: the response items of
the replayed view), ``CodexRewrites`` (``rewrites``: the view compacted or rolled back),
``CodexEvents`` (``events``: event lines) and ``CodexBuilder`` (``builder``: feeding and
the model).
"""

from __future__ import annotations

import dataclasses
from array import array
from typing import Any, ClassVar

import msgspec

from ...item_column import ItemColumn
from ...model import Compaction, Item, Run, RunContext, Usage
from ...parts import Part, PartRef, ref_of
from ...tool_ops import ToolOp
from ..builders import RawColumnBuilder
from . import usage as tokens
from .compaction import MadeItems
from .fork_copy import ForkCopy
from .ops import OpColumn
from .stamps import CodexFacts
from .user_turns import View

RESPONSE, COMPLETED, EVENT, NONE = 0, 1, 2, 3  # where the conversation is read from
RUNLESS = -2  # (``unknown_at``'s turn: outside any run, the run an end event makes)
# An item packed by span keeps no parts; at feed time all it needs of them is its folded
# height, which a one-part item that is not text has whatever its text.
_PACKED = [Part("other")]


class CodexState(RawColumnBuilder):
    # (a tolerant reader, as Claude Code's; no Codex rollout is known to hold such a line)
    joins_lines: ClassVar[bool] = True

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.meta: dict[str, Any] = {}
        # Every line's item, packed (its parts read again by span when asked for).
        self.raw = ItemColumn("L")
        self.response_usage = self.raw.facts = CodexFacts(self.raw)
        self.stamps = self.response_usage.stamps  # its items' timestamps, packed
        # The replayed view from response items: raw indexes, and items of its own (a
        # compaction's replacement history); appended to, replaced at a compaction.
        self.view = View()
        self.view_keys = array("q")  # their fingerprints, parallel to ``view``
        self.best = NONE
        self.tier_view: dict[int, list[Item]] = {COMPLETED: [], EVENT: []}
        # How many of each view's items each run has (by its index): its ``items`` when
        # that view is shown (response items count theirs in ``run.items`` as they come).
        self.tier_items: dict[int, dict[int, int]] = {COMPLETED: {}, EVENT: {}}
        self.tier_ops: list[ToolOp] = []
        self.op_run = array("i")  # each op's run (index, -1: none; an int32, as OpColumn's)
        self.op_items = OpColumn(self.raw)  # every operation, packed (found by call id)
        self.pending: dict[int, None] = {}  # ops with no result yet (ordered set)
        # Pending calls settled by their status that wrote none (a ``web_search_call``'s
        # is optional; upstream writes it once done): completed when their turn finishes;
        # one in no turn, once the model spoke after it (True), as an output answers a call.
        self.unstated: dict[int, bool] = {}
        # The last hosted tool search's operation (-1: none): the output the server
        # writes after it, naming no call, is its result (``_hosted_output``).
        self.hosted_search = -1
        self.late_failure: dict[str, int] = {}  # exit codes from *_end events, by call id
        self.late_duration: dict[str, float] = {}  # an MCP end event's, by call id
        self.thread_name: str | None = None  # the latest ``thread_name_updated``'s: the title
        self.compactions: list[Compaction] = []
        self.made_items = MadeItems()  # what ``compacted`` lines made: a later one folds them
        # The call ids a compaction's history holds: an output of one of those answers a
        # call folded there, not one this file never had (``_output``'s warning).
        self.compacted_calls: set[str] = set()
        self.runs: list[Run] = []
        self.run_contexts: list[dict[str, Any]] = []  # each run's context, what changed
        self.open_run = -1
        # Lines outside any run (the file starts inside a turn, a resumed one): where
        # their ops begin, whether the model spoke there, their status-less calls it has
        # not spoken after, their responses' usage. A run its end event makes
        # (``_end_run``) takes them.
        self.runless_from = 0
        self.runless_answered = False
        self.runless_waiting: list[int] = []
        self.runless_usage = Usage()
        self.runless_items = 0  # (response items; each view's under ``RUNLESS``)
        # The open run was started by a prompt, not a task_started (older writers wrote
        # none): whether its last response item is an assistant's message, and where.
        self.implicit = False
        self.answered = False
        self.implicit_last: tuple[int, str | None] = (0, None)
        # A prompted run was ended by a ``task_complete``: its writer says when a turn
        # ends, so a last one without its end was cut off once the writer is gone, its
        # answer or not.
        self.prompted_ends = False
        self.run_by_turn: dict[str, int] = {}
        self.bare = False  # a rollout of bare items (mid 2025): its prompts start its turns
        self.prompt_from_event: set[int] = set()
        self.previous_context: RunContext | None = None
        self.waiting_context: RunContext | None = None  # a context before its task_started
        self.waiting_turn: str | None = None  # the turn it names
        self.contexts: dict[int, RunContext] = {}
        # The latest typed turn context's payload (its bytes) and its context, turn, model.
        self.context_raw: msgspec.Raw | None = None
        self.context_facts: tuple[RunContext, str | None, str | None] = (RunContext(), None, None)
        # That line's length and what ends it (the payload and its ``}``): a line of that
        # length that is the same context again is known without decoding it.
        self.context_size = -1
        self.context_tail = b""
        self.section_texts: dict[str, str] = {}
        # The session's own instructions (``session_meta``'s): every turn's first section.
        self.base_instructions: str | None = None
        # Those as a run's context where no ``turn_context`` gives one (a bare rollout has
        # none): what every turn was told, from the header's line. A turn context replaces it.
        self.header_context: RunContext | None = None
        self.last_sections: list[tuple[str, str]] = []  # the latest new context's
        # One copy of what repeats: tool names, contexts' facts (as tuples and as lists).
        self.tools: dict[str, str] = {}
        self.fact_tuples: dict[tuple[str, str], tuple[str, str]] = {}
        self.fact_lists: dict[tuple[str, str], list[str]] = {}
        self.model: str | None = None
        # The raw column's codes of the roles and kinds the hot lines make, and the model's.
        code = self.raw.code
        self.system, self.event = code("system"), code("event")
        self.context_kind, self.message = code("context"), code("message")
        self.model_code = 0  # no model
        self.tally = tokens.TokenTally()
        # A fork's copy of its parent's history (None: no fork, or a paginated one, which
        # holds none of its parent's lines): where it ends, told by the parent's file.
        self.fork_copy: ForkCopy | None = None
        self.context_tokens: int | None = None  # the last request's input (context) size
        self.awaiting_after: Compaction | None = None
        self.last_response = -1  # the raw index of the latest model output awaiting usage
        # A model request's usage that came before its output (older writers): the first
        # assistant item of the request takes it. Each request opens with a turn_context.
        self.early_usage: Usage | None = None
        # The latest response whose usage is unknown: its item and turn (-1: none;
        # ``RUNLESS``: the lines outside any run), which take its usage where a later
        # total tells it (``TokenTally.gap_share``).
        self.unknown_at = (-1, -1)
        # The latest report came before its output (older writers, ``early_usage``): a
        # turn that ends on an output is no sign that output's report is missing, one
        # the model answered in with no report since it began (``turn_reports``) is.
        # Told by each report (one after its output clears it), not once for the file.
        self.usage_first = False
        self.turn_reports = 0  # the reports with usage info before the open turn began
        # The item a snapshot said has its usage unknown, its report not written (yet):
        # the next snapshot takes that back where a report came (``_unreported_last``).
        self.said_unknown: tuple[int, Usage | None] = (-1, None)

    def _by_span(self) -> bool:
        """Is the line being fed kept by its span (its parts read again when asked for)?"""
        return bool(self.span) and self.raw.source is not None

    def _packed(
        self,
        line: int,
        role: int,
        kind: int,
        model: int,
        ts: str | None,
        height: int,
        nparts: int = 1,
        sticky: bool = False,
    ) -> int:
        """``raw.append_packed`` of the line being fed, its timestamp kept in ``stamps``."""
        index = self.raw.append_packed(
            line, self.span, role, kind, model, None, height, nparts, sticky, ts is not None
        )
        if ts is not None:
            self.stamps.put(index, ts)
        return index

    def _append(self, parts: list[Part], line: int, ts: str | None, **how: Any) -> int:
        """``raw.append`` (``how``: its keywords), the timestamp kept in ``stamps``."""
        if ts is None:
            return self.raw.append(parts, line, **how)
        index = self.raw.append(parts, line, read_ts=True, **how)
        self.stamps.put(index, ts)
        return index

    def _ref(self, index: int, part: Part | None) -> Part | PartRef:
        """What an operation keeps of its item's (only) part: where it is in the file when
        the item is packed by span, else the part."""
        source = self.raw.source
        if self.raw.parts[index] is None and source is not None:
            return PartRef.at(source, self.span, 0)
        assert part is not None  # an item kept whole keeps its parts
        return ref_of(part)

    def prompted(self) -> bool:
        """The first prompt is known: its turn's event said it, or a later turn began (a
        user response item's text is its turn's prompt until the event comes). One given
        encrypted is none (``Run.sealed``: no title), as ``model_first_prompt`` reads it."""
        for index, run in enumerate(self.runs):
            if run.prompt and not run.prompt.isspace() and not run.sealed:
                return index in self.prompt_from_event or index < len(self.runs) - 1
        return False

    def _run(self) -> Run | None:
        return self.runs[self.open_run] if self.open_run >= 0 else None

    def _spoken(self) -> None:
        """A model output came: its token report is no repeat (``TokenTally.spoke``), and
        its run made a model request, whether or not a report says its usage."""
        self.tally.spoke = True
        if self.open_run >= 0:
            self.runs[self.open_run].answered = True
        else:
            self._runless_spoken()

    def _output_unreported(self) -> bool:
        """Did the open turn (or the lines outside any) end on a model output with no
        report of its usage (``TokenTally.spoke``, after it or, where a request's usage
        comes first, anywhere in the turn)?"""
        tally = self.tally
        if not tally.spoke:
            return False
        if not self.usage_first:
            return True
        answered = self.runs[self.open_run].answered if self.open_run >= 0 else False
        return answered and tally.reports == self.turn_reports

    def _runless_spoken(self) -> None:
        """A model output outside any run: the run its end makes was answered, and the
        status-less calls before it are done."""
        self.runless_answered = True
        for at in self.runless_waiting:
            if at in self.unstated:
                self.unstated[at] = True
        self.runless_waiting.clear()

    def _runless_begin(self) -> None:
        """No run is open from here: what comes is no earlier run's."""
        self.runless_from = len(self.op_run)
        self.runless_answered = False
        self.runless_waiting.clear()
        self.runless_usage = Usage()  # (a new one: a run made took the last as its own)
        self.runless_items = 0
        for counts in self.tier_items.values():
            counts.pop(RUNLESS, None)
        item, index = self.unknown_at
        if index == RUNLESS:  # (what comes of it later is no run's)
            self.unknown_at = (item, -1)

    def _shown(self, tier: int, item: Item) -> None:
        """``item`` of the view from ``tier``'s lines (``item_completed`` ones, or older
        events), counted in the open run's items there."""
        self.tier_view[tier].append(item)
        counts, at = self.tier_items[tier], self.open_run if self.open_run >= 0 else RUNLESS
        counts[at] = counts.get(at, 0) + 1

    def _tier_runs(self, runs: list[Run]) -> list[Run]:
        """``runs`` (a snapshot's) with the items the shown view has of each (copies where
        that differs: a snapshot keeps an ended run as it was)."""
        counts = self.tier_items.get(self.best)
        if not counts:
            return runs
        return [
            dataclasses.replace(run, items=counts[index])
            if counts.get(index, run.items) != run.items
            else run
            for index, run in enumerate(runs)
        ]

    def _settle_source(self, best: int) -> None:
        """A better source of the conversation appeared: drop what the worse ones gave."""
        self.best = best
        for tier in (COMPLETED, EVENT):
            if tier > best:
                self.tier_view[tier] = []
                self.tier_items[tier] = {}
        if best < COMPLETED:
            self.tier_ops = []


__all__ = ["COMPLETED", "EVENT", "NONE", "RESPONSE", "CodexState"]
