"""A snapshot's operations (``ClaudeOps``), made from the file's calls (``calls.CallColumn``)
when asked for; those not answered at the snapshot (``OpenCalls``) as they were then; a
launched call's state as its subagent's file says (``ClaudeOps.settle``).
"""

from __future__ import annotations

import functools
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...indexed import ListLike
from ...model import OpsByCall
from ...tool_ops import OpsSequence, OpState, ToolOp, classify_op
from . import teammates
from .calls import CallColumn, state_of_flags

if TYPE_CHECKING:
    from .background import Outcome
    from .records import RunMark


@functools.cache
def _flags_in_state(state: str) -> bytes:
    """For each flag byte, 1 where a settled call with those flags is in ``state``."""
    return bytes(state_of_flags(f) == state for f in range(256))


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

    __slots__ = ("_column", "_count", "_made", "_open", "_paths", "_runs", "_settled", "_stopped")

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
        # a launched call's state and duration as its subagent's file says (``settle``)
        self._settled: dict[int, tuple[OpState, float | None]] = {}
        # ...those of them its file says the user stopped (their last turn aborted): ended,
        # no longer only launched (``ToolOp.launched``: not in flight, ``open_work``)
        self._stopped: set[int] = set()

    def __len__(self) -> int:
        return self._count

    def launched(self) -> dict[str, int]:
        """The calls only launched in the background (their results ``async_launched``),
        by id: what became of them is their subagents' files' to say (``settle``)."""
        column, count = self._column, self._count
        return {column.id_of(at): at for at in column.launched if at < count}

    def replied(self) -> dict[int, Outcome]:
        """The teammate spawns whose teammate replied (``teammates.replies``)."""
        return teammates.replies(self._column, self._count)

    def settle(
        self, index: int, state: OpState, duration: float | None, stopped: bool = False
    ) -> None:
        """Launched call ``index`` is in ``state`` (running, completed, …), as its
        subagent's file says, after ``duration`` seconds (None: not known); ``stopped``:
        the user stopped it (interrupted, it ended: not cut off)."""
        self._settled[index] = (state, duration)
        if stopped:
            self._stopped.add(index)
        else:
            self._stopped.discard(index)
        op = self._made.get(index)
        if op is not None:
            op.state, op.duration = state, duration
            op.launched = not stopped

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
                settled = self._settled.get(index)
                if settled is not None:
                    op.state, op.duration = settled
                    op.launched = index not in self._stopped
            self._made[index] = op
        return op

    def json_rows(self, fragments: bool = False) -> Iterator[dict[str, Any]]:
        """Every operation's ``to_json()``, in order (``model.rows_json``): those made, or
        open, or whose parts are kept, from their objects; the others from the column
        without making them."""
        column, made, runs, paths = self._column, self._made, self._runs, self._paths
        opened = {*self._open.at, *self._settled}
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
        settled = self._settled.get(index)
        if settled is not None:
            return settled[0]
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
        for index, (now, _took) in self._settled.items():  # (as their files say)
            found += (now == state) - matches[flags[index]]
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
        launched = (at for at in self._column.launched if at < count)
        return Picked(self, sorted({*self._open.at, *cut, *launched}))

    def by_call(self) -> Mapping[str, ToolOp]:
        """The operations by call id (``model.ops_by_call``): the latest of each."""
        key = self._column.ids.__getitem__
        return OpsByCall(self.find, lambda: map(key, range(self._count)))

    def find(self, call_id: str) -> ToolOp | None:
        at = self._column.find(call_id, self._count)
        return None if at < 0 else self[at]


__all__ = ["ClaudeOps", "OpenCalls"]
