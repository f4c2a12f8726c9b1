"""A file's tool calls kept packed, and a snapshot's operations made from them when asked
for.

A long session has a tool call every few lines: as a record each (its call id, tool,
timestamps, the places of its parts, its operation once settled) they were the largest
thing the reader kept after the uuids. ``CallColumn`` keeps them as columns: where the
call's part and its result's part are (a line's span and the part's index), the raw
items of its response and result (whose ids, lines and timestamps the ``ItemColumn``
has), its own timestamp packed. A snapshot's ``tool_operations`` (``ClaudeOps``) makes
each ``LazyToolOp`` when asked for; one unanswered at the snapshot as it was then
(``OpenCalls``: its state, progress and links the snapshot's, whatever came since).
"""

from __future__ import annotations

import functools
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from ...indexed import ListLike
from ...model import OpsByCall, Part, PartRef, PartSource
from ...times import seconds_between
from ...tool_ops import LazyToolOp, OpsSequence, OpState, ToolOp, classify_op, op_json
from .blocks import answers_one, detail, flatten
from .held_ids import HeldIds

if TYPE_CHECKING:
    from ...item_column import ItemColumn
    from .records import RunMark
    from .sidechains import InFile

# A call's flags. PASSED: a later call took its id before it was answered (a result
# answers the latest call of its id, so none will ever answer it).
SIDE, ERROR, INTERRUPTED, NO_TS, PASSED = 1, 2, 4, 8, 16


def _state_of(flags: int) -> OpState:
    """The state of a call no later line changes (answered, or passed) by its flags."""
    passed = bool(flags & PASSED)
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
        "line",
        "open",
        "own",
        "own_result",
        "part",
        "raw",
        "response",
        "result",
        "result_part",
        "result_span",
        "run",
        "sidechain",
        "span",
        "tools",
        "ts_end",
        "ts_text",
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
        self.agent: dict[int, str] = {}  # the agent its result names (``name_agent``)
        self.agents_named = 0  # how many times one was: its last ones are the newest
        self.sidechain: dict[int, InFile] = {}  # its subagent's lines in this file (1.0.x)
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
        ended = raw.ts_of(result) if answered else None
        op = LazyToolOp.of(
            self.ids[at],
            self.tools[at],
            state,
            self.call_part(at),
            self.result_of(at) if answered else None,
            self.line[at],
            raw.line[result] if answered else None,
            run_id,
            raw.id_of(self.response[at]),
            progress,
            subagent,
            bool(self.flags[at] & SIDE),
            started,
            ended,
            seconds_between(started, ended) if answered else None,  # (from call to result)
        )
        side = (self.sidechain if sidechain is None else sidechain).get(at)
        if side is not None:
            op.subagent_line, op.subagent_item = side.line, side.ident
        return op

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
        if source is None or not span or not result_span:
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
            seconds_between(started, ended),
            side.line if side is not None else None,
            side.ident if side is not None else None,
        )

    def settled_state(self, at: int) -> OpState:
        """The state of an answered or passed call (whatever comes next)."""
        return _state_of(self.flags[at])


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
    message = record.get("message") if type(record) is dict else None
    content = message.get("content") if type(message) is dict else None
    if type(content) is not list or index >= len(content):
        return None
    block = content[index]
    if type(block) is not dict or block.get("type") != kind:
        return None
    return record, block


@functools.cache
def _flags_in_state(state: str) -> bytes:
    """For each flag byte, 1 where a settled call with those flags is in ``state``."""
    return bytes(_state_of(f) == state for f in range(256))


class OpenCalls:
    """The calls not answered at a snapshot (their indexes, in order), and what it knew
    to make their operations when asked for, as they were then: the last turn and
    whether the user cut it, whether the writer was alive, each call's progress output
    and the in-file subagents linked (copies). Not made with the snapshot: a response of
    2,000 parallel calls, followed as it is written, made each at every snapshot."""

    __slots__ = (
        "at",
        "last_cut",
        "last_run",
        "progress",
        "progress_at",
        "sidechain",
        "writer_alive",
    )

    def __init__(
        self,
        column: CallColumn,
        runs: Sequence[RunMark],
        writer_alive: bool | None,
        progress: Mapping[str, str],
        progress_at: Mapping[str, tuple[int, str | None]],
    ) -> None:
        self.at = sorted(column.open.values())
        self.last_run = len(runs) - 1
        self.last_cut = bool(runs) and runs[-1].cut
        self.writer_alive = writer_alive
        self.progress = dict(progress)
        self.progress_at = dict(progress_at)  # call id -> its latest progress line, time
        self.sidechain = dict(column.sidechain)

    def __contains__(self, index: int) -> bool:
        at = self.at
        found = bisect_left(at, index)
        return found < len(at) and at[found] == index

    def state(self, column: CallColumn, index: int) -> OpState:
        """Open call ``index``'s state at the snapshot."""
        run = column.run[index]
        # (a later prompt came instead, or the user cut its turn: it never will be)
        cut = run < self.last_run or (run >= 0 and self.last_cut)
        return classify_op(has_result=False, interrupted=cut, writer_alive=self.writer_alive)

    def in_state(self, column: CallColumn, state: str) -> int:
        """How many are in ``state`` (as ``state`` says each): running, those of the last
        turn while it may go on (a suffix: a call's turn is never before an earlier
        call's); interrupted, the others."""
        at = self.at
        running = 0
        if not self.last_cut and self.writer_alive is not False:
            running = len(at) - bisect_left(at, self.last_run, key=column.run.__getitem__)
        if state == "running":
            return running
        return len(at) - running if state == "interrupted" else 0

    def turns(self, column: CallColumn) -> set[int]:
        """The turns (their indexes) a call is open in, each found once by its calls'
        stretch (a call's turn is never before an earlier call's)."""
        at, run, found, start = self.at, column.run.__getitem__, set(), 0
        while start < len(at):
            turn = run(at[start])
            found.add(turn)
            start = bisect_right(at, turn, lo=start, key=run)
        return found


class Picked(ListLike[ToolOp]):
    """Some of a snapshot's operations, by their indexes, each made when asked for."""

    __slots__ = ("_at", "_ops")

    def __init__(self, ops: ClaudeOps, at: Sequence[int]) -> None:
        self._ops, self._at = ops, at

    def __len__(self) -> int:
        return len(self._at)

    def _one(self, index: int) -> ToolOp:
        return self._ops[self._at[index]]


class ClaudeOps(OpsSequence):
    """A snapshot's operations: the first ``count`` calls of the column, each made when
    asked for (and kept for the snapshot: a big file has tens of thousands, and a
    snapshot does not make them all): a settled one (answered, or passed) from the
    column, one ``opened`` (not answered at the snapshot) as it was then. ``runs``: the
    turns (for a call's turn id), ``paths``: the subagent files of the calls that name an
    agent."""

    __slots__ = ("_column", "_count", "_made", "_open", "_paths", "_runs")

    def __init__(
        self,
        column: CallColumn,
        count: int,
        opened: OpenCalls,
        runs: Sequence[RunMark],
        paths: Mapping[int, str | None],
    ) -> None:
        self._column = column
        self._count = count
        self._made: dict[int, ToolOp] = {}
        self._open = opened
        self._runs = runs
        self._paths = paths

    def __len__(self) -> int:
        return self._count

    def _one(self, index: int) -> ToolOp:
        op = self._made.get(index)
        if op is None:
            column, opened = self._column, self._open
            run = column.run[index]
            run_id = self._runs[run].id if run >= 0 else None
            subagent = self._paths.get(index)
            if index in opened:
                call_id = column.id_of(index)
                progress = opened.progress.get(call_id)
                state = opened.state(column, index)
                op = column.op(index, state, run_id, progress, subagent, True, opened.sidechain)
                op.progress_line, op.progress_ts = opened.progress_at.get(call_id, (None, None))
            else:
                op = column.op(index, column.settled_state(index), run_id, None, subagent)
            self._made[index] = op
        return op

    def json_rows(self, fragments: bool = False) -> Iterator[dict[str, Any]]:
        """Every operation's ``to_json()``, in order (``model.rows_json``): those made, or
        open, or whose parts are kept, from their objects; the others from the column
        without making them."""
        column, made, runs, paths = self._column, self._made, self._runs, self._paths
        opened = set(self._open.at)
        for index in range(self._count):
            row = None
            if index not in made and index not in opened:
                run = column.run[index]
                row = column.json_of(
                    index,
                    column.settled_state(index),
                    runs[run].id if run >= 0 else None,
                    paths.get(index),
                )
            yield row if row is not None else self[index].to_json()

    def state_of(self, index: int) -> OpState:
        """Operation ``index``'s state, without making it (``model.op_states``)."""
        op = self._made.get(index)
        if op is not None:
            return op.state
        column, opened = self._column, self._open
        return opened.state(column, index) if index in opened else column.settled_state(index)

    def count_state(self, state: str) -> int:
        """How many are in ``state`` (``model.ops_in_state``): the calls' flags counted
        (each flag byte as ``settled_state`` reads it), those open at the snapshot taken
        out and counted by their state then (``OpenCalls.in_state``)."""
        column = self._column
        flags = column.flags[: self._count]
        matches = _flags_in_state(state)
        found = flags.translate(matches).count(1)
        opened = self._open
        if opened.at:
            found -= bytes(map(flags.__getitem__, opened.at)).translate(matches).count(1)
            found += opened.in_state(column, state)
        return found

    def tool_column(self) -> list[str]:
        return self._column.tools

    def open_in_state(self, state: str) -> int:
        """How many of those not answered at the snapshot are in ``state``."""
        return self._open.in_state(self._column, state)

    def open_turns(self) -> set[int]:
        """The turns (indexes) with a call not answered at the snapshot."""
        return self._open.turns(self._column)

    def unsettled(self) -> Sequence[ToolOp]:
        """The operations that may be running or interrupted (``model.unsettled_ops``):
        those not answered, and those whose result says they were cut off (each made
        when asked for)."""
        count = self._count
        cut = (at for at in self._column.cut if at < count)
        return Picked(self, sorted({*self._open.at, *cut}))

    def by_call(self) -> Mapping[str, ToolOp]:
        """The operations by call id (``model.ops_by_call``): the latest of each."""
        key = self._column.ids.__getitem__
        return OpsByCall(self.find, lambda: map(key, range(self._count)))

    def find(self, call_id: str) -> ToolOp | None:
        at = self._column.find(call_id, self._count)
        return None if at < 0 else self[at]


__all__ = ["CallColumn", "ClaudeOps", "OpenCalls"]
