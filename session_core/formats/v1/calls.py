"""transcript-v1's tool operations in the neutral model, as ``V1Model`` keeps them from
one snapshot to the next (``V1Calls``): the calls the message lines make and answer,
matched with the dispatch lines by call id, each call id kept as its number in the
replay's texts; the operations not settled made again by each snapshot (``V1Ops``)."""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from itertools import compress, filterfalse
from operator import not_
from typing import TYPE_CHECKING

from ...model import ToolOp
from .asked import answered_ops
from .ops import (
    UndispatchedOp,
    V1Op,
    V1Ops,
    answered_last,
    superseded_ops,
    undispatched_states,
)

if TYPE_CHECKING:
    from ...replay import ReplayState

_SOME = -1  # (``_SOME.__lt__``: an operation's index, not -1 for none)


class V1Calls:
    """A ``V1Model``'s operations (a part of it: ``_start_calls`` is its start)."""

    state: ReplayState

    def _start_calls(self, state: ReplayState) -> None:
        # Call ids are kept as their numbers in the replay's texts (``Events.texts``).
        self.texts = state.events.texts
        # The call ids tool messages answer, of the operations not settled yet (and of
        # the calls not dispatched): those whose state it moves.
        self.answered: set[int] = set()
        self._let_go_of = 0  # answers let go of since the set was made again
        self._shared: set[int] = set()  # call ids more than one operation has
        self._ops_taken = 0  # dispatch lines taken
        # Call id -> its (last) operation, -1 for none: an array by the call id's number
        # (a dict of them was 8 MB at 1 GB); as long as the texts (``_op_of_all``).
        self._op_of = array("i")
        self._undispatched: dict[int, tuple[int, int]] = {}  # call id -> its event, tool
        # The calls of the message lines taken since the dispatch lines were (call ids,
        # their events, tools), held until those are (``_take_operations``).
        self._calls: list[tuple[list[int], list[int], list[int]]] = []
        self._open: list[int] = []  # operations not settled at the last snapshot

    def _first_context(self, run_id: str) -> int:
        """The index of ``run_id``'s first run-context line, -1 for none (``V1Model``'s,
        kept as the lines come: the run ids' list searched was a snapshot's 0.7 ms an
        operation left unsettled in an earlier run, at 1 GB)."""
        raise NotImplementedError

    def _take_answers_and_calls(self, positions: list[int]) -> None:
        """What these message lines (in file order) tell of the operations: the call ids
        they answer whose operation may still move, the calls no dispatch line named yet
        (held until the dispatch lines of the same batch are taken: ``_take_operations``)."""
        answers, at, cids, names = self.state.events.facts.call_numbers(positions)
        answered = self.answered
        if answers:
            # (A call id of an operation settled already is never asked for again.)
            shared = self._shared
            op_of = self._op_of_all()
            known = set(compress(answers, map(_SOME.__lt__, map(op_of.__getitem__, answers))))
            answered.update(filterfalse(known.__contains__, answers))
            if self._open:  # (only those not settled when taken may not be now)
                calls = list(known)
                taken_open = set(self._open)
                calls = list(
                    compress(calls, map(taken_open.__contains__, map(op_of.__getitem__, calls)))
                )
                still = self.state.tool_ops.unsettled_flags(map(op_of.__getitem__, calls))
                answered.update(compress(calls, still))
            answered.update(shared.intersection(known))
        if cids:  # (held until the dispatch lines of the same batch are taken)
            self._calls.append((cids, at, names))

    def _op_of_all(self) -> array[int]:
        """``_op_of``, as long as the texts (a text that is no operation's call id: -1)."""
        op_of = self._op_of
        missing = len(self.texts) - len(op_of)
        if missing > 0:
            op_of.extend(array("i", [-1]) * missing)
        return op_of

    def operation_of(self, call_id: int) -> int:
        """The last operation of call id ``call_id`` (its number), -1 for none."""
        op_of = self._op_of
        return op_of[call_id] if 0 <= call_id < len(op_of) else -1

    def _hold_calls(self, dispatched: set[int]) -> None:
        """The calls held (``_take_answers_and_calls``) that wait for their dispatch line, in
        their order: those of a call id neither ``dispatched`` now nor by an earlier batch
        (a message line written again, or a call dispatched before its message, does not
        wait: a whole read, which takes them in one batch, says so)."""
        undispatched, op_of = self._undispatched, self._op_of_all()
        for cids, at, names in self._calls:
            waits = [cid not in dispatched and op_of[cid] < 0 for cid in cids]
            if any(waits):
                where = zip(compress(at, waits), compress(names, waits), strict=True)
                undispatched.update(zip(compress(cids, waits), where, strict=True))
        self._calls = []

    def _take_operations(self) -> None:
        """The operations dispatched since: their calls no longer undispatched, each
        findable by its call id, the ones not settled noted (a snapshot makes those
        again; the settled ones are made when asked for, ``V1Ops``)."""
        state = self.state
        records = state.tool_ops
        taken, now = self._ops_taken, len(records)
        dispatched = records.call_numbers[taken:now].tolist()
        undispatched, op_of = self._undispatched, self._op_of_all()
        once = set(dispatched)
        self._hold_calls(once)
        for cid in once.intersection(undispatched.keys()):
            del undispatched[cid]
        shared = self._shared
        for index, cid in enumerate(dispatched, taken):
            if op_of[cid] >= 0 and cid not in shared:  # a call id dispatched again (rare)
                shared.add(cid)
                self._answer_again(cid)
            op_of[cid] = index
        if now - taken > 1024:  # a dict keeps its size: not that of a whole file
            self._undispatched = dict(self._undispatched)
        still = records.unsettled_flags(range(taken, now))
        self._open.extend(compress(range(taken, now), still))
        self._let_go(compress(range(taken, now), map(not_, still)))
        self._ops_taken = now

    def _let_go(self, settled: Iterable[int]) -> None:
        """The answers of these settled operations' calls are not asked for again (an
        operation's state is its outcome once settled): not kept, unless another
        operation has the same call id."""
        answered, call_ids = self.answered, self.state.tool_ops.call_numbers
        if answered:  # (none, mostly: an answer comes after its operation settled)
            gone = answered.intersection(map(call_ids.__getitem__, settled))
            gone.difference_update(self._shared)
            answered.difference_update(gone)
            self._let_go_of += len(gone)
        if self._let_go_of > 4096 and self._let_go_of > 2 * len(answered):
            self.answered = set(answered)  # a set keeps its size: not that of a whole file
            self._let_go_of = 0

    def _answer_again(self, cid: int) -> bool:
        """Whether a tool message so far answers ``cid`` (one whose answer was let go of,
        ``_let_go``): looked for in the replay's facts, and kept again."""
        facts, text = self.state.events.facts, self.texts.text(cid)
        if any(tcid == text for _at, _calls, tcid in facts.call_facts(self.state.message_events)):
            self.answered.add(cid)
            return True
        return False

    def _id_answered(self, call_id: int) -> bool:
        """Whether a tool message answers the call id of number ``call_id`` (an
        operation's not settled at the last snapshot: ``answered`` holds theirs)."""
        return call_id in self.answered

    def _is_answered(self, cid: int) -> bool:
        return cid in self.answered or (self.operation_of(cid) >= 0 and self._answer_again(cid))

    def _operations(self, writer_alive: bool | None) -> V1Ops:
        """Every operation (``V1Ops``): the ones not settled made again (their state
        moves with the answers and the writer), the settled ones made when asked for.
        None is read from its lines until one of its fields that only they hold is asked
        for (``V1Op``)."""
        self._take_operations()
        state = self.state
        records = state.tool_ops
        made: dict[int, ToolOp] = {}
        still: list[int] = []
        settled: list[int] = []
        superseded = superseded_ops(state, self._first_context)
        last = answered_last(state, writer_alive)
        answered = answered_ops(state, self._open, self._id_answered)
        for index in self._open:
            alive = False if superseded(index) else writer_alive
            made[index] = V1Op.of(state, index, index in answered, alive, last)
            (still if not records.is_settled(index) else settled).append(index)
        self._open = still
        self._let_go(settled)
        # The calls no dispatch line names, after: a crash state of their own.
        text = self.texts.text
        undispatched = undispatched_states(state, writer_alive)
        never: list[ToolOp] = [
            UndispatchedOp.of(
                state,
                position,
                text(cid),
                text(name),
                undispatched(position, self._is_answered(cid)),
            )
            for cid, (position, name) in self._undispatched.items()
        ]
        return V1Ops(self, self._ops_taken, made, never)
