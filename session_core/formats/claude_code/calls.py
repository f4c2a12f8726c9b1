"""A file's tool calls kept packed, and a snapshot's operations made from them when asked
for.

A long session has a tool call every few lines: as a record each (its call id, tool,
timestamps, the places of its parts, its operation once settled) they were the largest
thing the reader kept after the uuids. ``CallColumn`` keeps them as columns: where the
call's part and its result's part are (a line's span and the part's index), the raw
items of its response and result (whose ids, lines and timestamps the ``ItemColumn``
has), its own timestamp packed. A snapshot's ``tool_operations`` (``call_ops.ClaudeOps``)
makes each ``LazyToolOp`` when asked for; one unanswered at the snapshot as it was then
(``call_ops.OpenCalls``: its state, progress and links the snapshot's, whatever came
since).
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from ...model import Part, PartRef, PartSource
from ...times import seconds_between
from ...tool_ops import LazyToolOp, OpState, classify_op, op_json
from .blocks import answers_one, detail, flatten, message_object
from .held_ids import HeldIds

if TYPE_CHECKING:
    from ...item_column import ItemColumn
    from .lines import Said
    from .sidechains import InFile

# A call's flags. PASSED: a later call took its id before it was answered (a result
# answers the latest call of its id, so none will ever answer it). LAUNCHED: its result
# says it only started in the background (``async_launched``: a background Agent, a
# Workflow); what became of it is its subagent's file's to say (``subagents.attach``).
SIDE, ERROR, INTERRUPTED, NO_TS, PASSED, LAUNCHED = 1, 2, 4, 8, 16, 32


def only_launched(flags: int) -> bool:
    """A call whose result only launched it (not cut off, no error): its outcome, and how
    long it ran, are its subagent's file's to say."""
    return bool(flags & LAUNCHED) and not flags & (PASSED | ERROR | INTERRUPTED)


def state_of_flags(flags: int) -> OpState:
    """The state of a call no later line changes (answered, or passed) by its flags."""
    passed = bool(flags & PASSED)
    if only_launched(flags):
        return "outcome-unknown"  # (until its subagent's file is read)
    return classify_op(
        has_result=not passed,
        failed=bool(flags & ERROR),
        interrupted=passed or bool(flags & INTERRUPTED),
    )


class CallColumn:
    """Every tool call of a file, in the order they came: each tool_use block of its own
    response is a call, even with an id an earlier call had (a resumed or retried
    session's; the same block written again in its response is not another call: the
    reader's). A result answers the latest call of its id. A call's part (and its
    result's) is where it is in the file, or, when its line can not be read again, the
    part itself (``own``)."""

    __slots__ = (
        "again",
        "agent",
        "agents_named",
        "cut",
        "flags",
        "ids",
        "launched",
        "line",
        "open",
        "own",
        "own_result",
        "part",
        "raw",
        "replied",
        "response",
        "result",
        "result_at",
        "result_part",
        "result_span",
        "run",
        "sidechain",
        "span",
        "teammate",
        "took",
        "tools",
        "ts_end",
        "ts_text",
        "workflow",
    )

    def __init__(self, raw: ItemColumn) -> None:
        self.raw = raw  # the builder's items (responses', results')
        self.ids = HeldIds()  # call ids (a call's number is its node there)
        # The ids more than one call has, each with its calls in order (rare: ``ids``
        # finds an id's first call alone).
        self.again: dict[str, list[int]] = {}
        self.tools: list[str] = []  # (interned: one str per tool)
        self.line = array("l")  # the line of its tool_use block
        self.span = array("q")  # that line's span (0: the part is in ``own``)
        self.part = array("i")  # the part's index among its line's
        self.response = array("i")  # its response's raw item (its message id)
        self.run = array("i")  # its turn (-1: before the first)
        self.ts_text = bytearray()  # its line's timestamp, packed (``ItemColumn``'s way)
        self.ts_end = array("Q")
        self.flags = bytearray()
        self.result = array("i")  # its result's raw item (-1: not answered)
        self.result_span = array("q")
        self.result_part = array("i")
        self.own: dict[int, Part] = {}
        self.own_result: dict[int, Part] = {}
        # A result's own line and time where its raw item's are not its: a server tool's
        # (web search), a block of the response that made the call, whose item is the
        # response's first line (few: a dict).
        self.result_at: dict[int, tuple[int, str | None]] = {}
        self.agent: dict[int, str] = {}  # the agent its result names (``name_agent``)
        self.agents_named = 0  # how many times one was: its last ones are the newest
        self.sidechain: dict[int, InFile] = {}  # its subagent's lines in this file (1.0.x)
        self.workflow: dict[int, str] = {}  # the Workflow run its result names (its runId)
        self.took: dict[int, float] = {}  # seconds its subagent ran, as its result says
        self.launched: list[int] = []  # the calls only launched (``LAUNCHED``), in order
        self.teammate: dict[int, str] = {}  # the teammate a spawn started (``teammates``)
        self.replied: dict[int, str | None] = {}  # when that teammate first replied
        # The calls not answered that are the latest of their id, in order, by id (most
        # lookups are of these: a result names one, and ``ids`` is looked up by a slower
        # path).
        self.open: dict[str, int] = {}
        # the calls cut off: their result says they were interrupted, or they are passed
        self.cut: list[int] = []

    def __len__(self) -> int:
        return len(self.line)

    def name_agent(self, at: int, agent: str) -> None:
        """Call ``at``'s result names ``agent``: at the end of ``agent`` (one named again
        moves there), so the last ``agents_named`` newly are its newest."""
        self.agent.pop(at, None)
        self.agent[at] = agent
        self.agents_named += 1

    def said_more(self, at: int, said: Said) -> None:
        """Call ``at``'s result says more than whether it was cut off: that it was only
        launched, the Workflow run it started, how long its subagent ran."""
        if said.launched:
            self.flags[at] |= LAUNCHED
            self.launched.append(at)
        if said.workflow:
            self.workflow[at] = said.workflow
        if said.teammate:
            self.teammate[at] = said.teammate
        if said.took is not None:
            self.took[at] = said.took

    def took_of(self, at: int, started: str | None, ended: str | None) -> float | None:
        """How long the call took: its subagent's own run time where its result says it,
        none where it was only launched (not finished then: a launch result's own
        ``totalDurationMs`` is no run of its subagent's), else from call to result."""
        flags = self.flags[at]
        if only_launched(flags):
            return None
        took = self.took.get(at)
        if took is not None:
            return took
        return None if flags & LAUNCHED else seconds_between(started, ended)

    def add(
        self,
        call_id: str,
        tool: str,
        part: Part,
        index: int,
        span: int,
        line: int,
        response: int,
        side: bool,
        run: int,
        ts: str | None,
    ) -> int:
        """A call whose part is the ``index``-th of the line at ``span`` (0: a line that
        can not be read again, the part kept); its index."""
        at, first = self.ids.add(call_id)
        if not first:
            calls = self.again.get(call_id)
            if calls is None:
                calls = self.again[call_id] = [self.ids.find(call_id)]
            calls.append(at)
        self.tools.append(tool)
        self.line.append(line)
        self.span.append(span)
        self.part.append(index)
        if not span:
            self.own[at] = part
        self.response.append(response)
        self.run.append(run)
        flags = SIDE if side else 0
        if ts is None:
            flags |= NO_TS
        elif ts:
            self.ts_text += ts.encode("utf-8", "surrogatepass")
        self.ts_end.append(len(self.ts_text))
        self.flags.append(flags)
        self.result.append(-1)
        self.result_span.append(0)
        self.result_part.append(0)
        passed = self.open.get(call_id)
        if passed is not None:  # (never answered now: its id's results are this call's)
            self.flags[passed] |= PASSED
            self.cut.append(passed)
        self.open[call_id] = at
        return at

    def answer(
        self,
        at: int,
        call_id: str,
        result: int,
        part: Part,
        index: int,
        span: int,
        is_error: bool,
        interrupted: bool,
    ) -> None:
        """The call is answered by ``part``, the ``index``-th of the raw item ``result``,
        whose line is at ``span`` (0: it can not be read again, the part kept)."""
        self.result[at] = result
        self.result_span[at] = span
        self.result_part[at] = index
        if not span:
            self.own_result[at] = part
        self.flags[at] |= (ERROR if is_error else 0) | (INTERRUPTED if interrupted else 0)
        if interrupted:
            self.cut.append(at)
        del self.open[call_id]

    def moved(self, at: int, response: int, line: int, span: int, index: int, part: Part) -> None:
        """Call ``at``'s block is the ``index``-th part of ``line`` (at ``span``), of
        ``response``'s item: its response written again there (Claude Code 2.0.x)."""
        self.response[at] = response
        self.line[at] = line
        self.span[at] = span
        self.part[at] = index
        if span:
            self.own.pop(at, None)
        else:
            self.own[at] = part

    def answered_again(
        self, at: int, result: int, part: Part, index: int, span: int, is_error: bool | None
    ) -> None:
        """Call ``at``, answered, moved to its response's copy, is answered by the copy's
        result (``answer``'s arguments): its result is that one."""
        self.result[at] = result
        self.result_span[at] = span
        self.result_part[at] = index
        if span:
            self.own_result.pop(at, None)
        else:
            self.own_result[at] = part
        self.result_at.pop(at, None)
        self.flags[at] = (self.flags[at] & ~ERROR) | (ERROR if is_error else 0)

    def answered_on(self, at: int, line: int, ts: str | None) -> None:
        """Call ``at``'s result is on ``line``, written at ``ts`` (not its item's)."""
        self.result_at[at] = (line, ts)

    def find(self, call_id: str, stop: int = -1) -> int:
        """The latest call of ``call_id`` (-1: none), of the first ``stop`` calls (-1:
        of all)."""
        if stop < 0:
            at = self.open.get(call_id)
            if at is not None:
                return at
        at = self.ids.find(call_id)
        if at >= 0 and self.again:
            calls = self.again.get(call_id)
            if calls is not None:
                upto = len(calls) if stop < 0 else bisect_left(calls, stop)
                return calls[upto - 1] if upto else -1
        return at if stop < 0 or at < stop else -1

    def id_of(self, at: int) -> str:
        return self.ids[at]

    def started(self, at: int) -> str | None:
        if self.flags[at] & NO_TS:
            return None
        start = self.ts_end[at - 1] if at else 0
        return self.ts_text[start : self.ts_end[at]].decode("utf-8", "surrogatepass")

    def call_part(self, at: int) -> Part | PartRef:
        """The tool_use block (its input read from it when asked for)."""
        span = self.span[at]
        source = self.raw.source
        if span and source is not None:
            return PartRef.at(source, span, self.part[at])
        return self.own[at]

    def result_of(self, at: int) -> Part | PartRef | None:
        """The tool_result block (its text and detail), once it came."""
        if self.result[at] < 0:
            return None
        span = self.result_span[at]
        source = self.raw.source
        if span and source is not None:
            return PartRef.at(source, span, self.result_part[at])
        return self.own_result[at]

    def result_node(self, at: int, nodes: Sequence[int]) -> int:
        """The node of its result's line (-1: none, or a line without uuid), by the raw
        items' nodes."""
        result = self.result[at]
        return nodes[result] if result >= 0 else -1

    def arguments(self, at: int) -> object:
        return self.call_part(at).data

    def op(
        self,
        at: int,
        state: OpState,
        run_id: str | None,
        progress: str | None,
        subagent: str | None,
        unanswered: bool = False,
        sidechain: Mapping[int, InFile] | None = None,
    ) -> LazyToolOp:
        """Its operation as it is now (its state and what is not kept here given); as it
        was at a snapshot it was not answered at (``unanswered``: a result come since is
        not its; ``sidechain``: the links the snapshot knew)."""
        raw = self.raw
        result = -1 if unanswered else self.result[at]
        answered = result >= 0
        started = self.started(at)
        result_line, ended = self.answered_where(at, result)
        launched = answered and only_launched(self.flags[at])
        if launched:  # (a launch result's time is no end: its subagent's file says one)
            ended = None
        took = None  # (a call and its result on one line: no time between them is known)
        if result_line is not None and result_line != self.line[at]:
            took = self.took_of(at, started, ended)
        op = LazyToolOp.of(
            self.ids[at],
            self.tools[at],
            state,
            self.call_part(at),
            self.result_of(at) if answered else None,
            self.line[at],
            result_line,
            run_id,
            raw.id_of(self.response[at]),
            progress,
            subagent,
            bool(self.flags[at] & SIDE),
            started,
            ended,
            took,
        )
        op.launched = launched
        side = (self.sidechain if sidechain is None else sidechain).get(at)
        if side is not None:
            op.subagent_line, op.subagent_item = side.line, side.ident
        return op

    def answered_where(self, at: int, result: int) -> tuple[int | None, str | None]:
        """The line and time of call ``at``'s result, the raw item ``result`` (-1: none)."""
        if result < 0:
            return None, None
        own = self.result_at.get(at)
        return own if own is not None else (self.raw.line[result], self.raw.ts_of(result))

    def json_of(
        self, at: int, state: OpState, run_id: str | None, subagent: str | None
    ) -> dict[str, Any] | None:
        """``op(at, state, run_id, None, subagent).to_json()`` of an answered call, written
        from its call's and its result's lines parsed once each (no op, part or reference
        made, no other block of the lines made into a part); None where that is not what
        its parts would give (a part kept, a line that can not be read, another block
        there): make the op then."""
        raw = self.raw
        source, result, span, result_span = raw.source, self.result[at], self.span[at], 0
        if result >= 0:
            result_span = self.result_span[at]
        if source is None or not span or not result_span or at in self.result_at:
            return None
        call = _block_of(source, span, self.part[at], "tool_use")
        answer = _block_of(source, result_span, self.result_part[at], "tool_result")
        if call is None or answer is None:
            return None
        record, block = answer
        # (``blocks.line_parts``: a user line's result that names its call has the detail)
        call_id = block.get("tool_use_id")
        named = isinstance(call_id, str) and call_id and record.get("type") == "user"
        started, ended = self.started(at), raw.ts_of(result)
        side = self.sidechain.get(at)
        return op_json(
            self.ids[at],
            self.tools[at],
            state,
            call[1].get("input"),
            self.line[at],
            flatten(block.get("content")),
            raw.line[result],
            run_id,
            raw.id_of(self.response[at]),
            detail(record.get("toolUseResult")) if named and answers_one(record) else None,
            None,
            subagent,
            self.took_of(at, started, ended),
            side.line if side is not None else None,
            side.ident if side is not None else None,
        )

    def settled_state(self, at: int) -> OpState:
        """The state of an answered or passed call (whatever comes next)."""
        return state_of_flags(self.flags[at])


def _block_of(
    source: PartSource, span: int, index: int, kind: str
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The line at ``span`` parsed (as ``PartSource`` parses it for its parts) and its
    message's ``index``-th block, when that block is of ``kind`` (None: not so)."""
    line = source.line(span)
    if line is None:
        return None
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    message = message_object(record.get("message")) if type(record) is dict else None
    content = message.get("content") if message is not None else None
    if type(content) is not list or index >= len(content):
        return None
    block = content[index]
    if type(block) is not dict or block.get("type") != kind:
        return None
    return record, block


__all__ = ["LAUNCHED", "CallColumn", "state_of_flags"]
