"""agentgo's neutral model (``AgentGoModel``): an ``AgentGoView`` as the viewer, the
exports and the browser read every format, kept a snapshot at a time (only what the view
gained since the last is taken), with the tool operations it makes (``AgentGoOp``)."""

from __future__ import annotations

import bisect
import dataclasses
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...column_items import Items
from ...indexing import loads_payload
from ...item_column import ItemColumn
from ...model import (
    Compaction,
    Item,
    Part,
    PartSource,
    ToolOp,
    Transcript,
    Usage,
    classify_op,
)
from ...other_records import OtherRecord, OthersWhenAsked
from ...text import finish_mark
from ...times import seconds_between
from ...tool_ops import OpField, OpState, ask_in_run
from .asked import (
    asked_calls,
    is_tool_execution,
    message_parts,
    op_call_id,
    unstarted_state,
)
from .ops_made import AgentGoOps
from .raw_rows import RawRows, file_line
from .runs_made import RunsMade

if TYPE_CHECKING:
    from ...agentgo.calls import Call
    from ...agentgo.folds import ContextFolds
    from ...agentgo.records import Records
    from ...agentgo.stored import Committed
    from ...agentgo.view import AgentGoView
    from ...message_usage import MessageUsage
    from ...usage import UsageTally

NAME = "agentgo-v1"


def _record_parts(record: dict[str, Any]) -> list[Part]:
    """The parts of a ``message_end`` record read again (a changed line raises)."""
    data = record.get("data")
    message = data.get("message") if isinstance(data, dict) else None
    if record.get("type") != "message_end" or not isinstance(message, dict):
        raise ValueError("not the message_end record it was")
    return message_parts(message)


def _parts_reader(records: Records) -> Callable[[int], list[Part]]:
    """A committed message's parts read again by its record's span, from ``records``'s file
    (its source: a followed file's comes with its first lines). It holds nothing of the
    model, whose bound method kept it (its asked calls, the operations executions took)
    alive with the transcript."""

    def load(span: int) -> list[Part]:
        source = records.source
        if source is None:
            raise OSError("no file to read again")
        record = loads_payload(source.read(span))  # (as the skim took it)
        if type(record) is not dict:
            raise ValueError("not a record")
        return _record_parts(record)

    return load


class _FromCall(OpField[Any]):
    """An ``AgentGoOp`` field read from its call's records when asked for; a value set
    (not None) replaces the reading."""

    __slots__ = ("field", "read", "slot")

    def __init__(self, name: str, slot: str, read: Callable[[Call], Any]) -> None:
        self.field = ToolOp.__dict__[name]  # the dataclass's slot
        self.slot = slot  # the op's slot holding the call (None: the field is kept)
        self.read = read

    def get(self, op: AgentGoOp) -> Any:
        call = getattr(op, self.slot)
        return self.read(call) if call is not None else self.field.__get__(op, ToolOp)

    def __set__(self, op: AgentGoOp, value: Any) -> None:
        if value is not None:
            setattr(op, self.slot, None)
        self.field.__set__(op, value)


def _arguments(call: Call) -> Any:
    start = call.tool_start or {}
    return start.get("args", start.get("arguments"))


def _result(call: Call) -> str | None:
    end = call.tool_end
    return None if end is None else str(end.get("result", ""))


class AgentGoOp(ToolOp):
    """A tool call of an agentgo session as a tool operation: its arguments and result
    are read again from the call's records when asked for, not copied into it."""

    __slots__ = ("_args_call", "_result_call")
    _args_call: Call | None
    _result_call: Call | None

    arguments = _FromCall("arguments", "_args_call", _arguments)
    result = _FromCall("result", "_result_call", _result)

    @classmethod
    def of(cls, call: Call, state: OpState) -> AgentGoOp:
        op = cls.__new__(cls)
        op._args_call = op._result_call = call
        for name in ("arguments", "result", "detail", "result_line", "message_id"):
            ToolOp.__dict__[name].__set__(op, None)
        op.progress = op.subagent = op.duration = None
        op.subagent_line = op.subagent_item = op.progress_line = op.progress_ts = None
        op.call_id, op.tool, op.state = op_call_id(call), call.name, state
        op.line = file_line(call.first_line, call.first_seq)
        op.run_id, op.sidechain, op.launched = call.run_id, False, False
        # Ended at its tool_exec_end; one with none (interrupted, running) did not end at
        # its last line: that is when it was last seen.
        ended = call.tool_end_at >= 0
        op.started = call.first_time
        op.ended = (call.last_time or None) if ended else None
        op.last_seen = None if ended else call.last_time or None
        op.answered = None  # (settled by its tool_exec_end, or not answered)
        if ended:  # from its tool_exec_start to its tool_exec_end
            op.duration = seconds_between(call.first_time, call.last_time)
            store = call.store
            if store is not None and store.lines[call.tool_end_at]:
                ToolOp.__dict__["result_line"].__set__(op, store.lines[call.tool_end_at])
        return op

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolOp):
            return NotImplemented
        return self.to_json() == other.to_json() and self.state == other.state

    __hash__ = None  # type: ignore[assignment]


class AgentGoModel:
    """An agentgo view in the neutral model, kept up to date a snapshot at a time.

    Each ``transcript`` takes only what the view gained since the last: committed
    messages go into an ``ItemColumn`` (a header each; a message's parts read again
    from its record's span when asked for), the calls its new records touched become
    (or update) their tool operation or usage; the rest is facts the view keeps. So a
    snapshot of a big session costs what changed, not the session.
    """

    def __init__(self, view: AgentGoView) -> None:
        from ...usage import FedCallUsage, GrowingTally

        self.view = view
        self.column = ItemColumn()
        self.column.source = PartSource(_parts_reader(view.records))
        self._messages = 0  # of view.messages, in the column
        self._records = 0  # of view.records, whose calls were looked at
        self._ops: dict[int, ToolOp] = {}  # call index (in call_order) -> its operation
        self._op_order: list[int] = []  # the keys of _ops, in call order
        self._op_list: list[ToolOp] = []  # ... their operations (a snapshot's copy of it)
        # A call id -> the calls whose operations have it (in call order), and the last
        # one's operation: what a snapshot's ``by_call`` says, kept as they are made.
        self._with_id: dict[str, list[int]] = {}
        self._last_with_id: dict[str, ToolOp] = {}
        self._pending: set[int] = set()  # operations without a result: their state moves
        self._usage: dict[int, MessageUsage | None] = {}  # model call index -> its usage
        self._usage_sorted = True
        self._totals = GrowingTally()  # what a snapshot adds of the model calls' usage
        self._fed_usage = FedCallUsage()  # a call's usage taken as its end was fed
        self._folds: ContextFolds | None = None  # what each context event folded, once found
        self._model: str | None = None  # its first model call's model (``_first_model``)
        self._model_seen = 0
        self._made: list[Compaction] = []  # the context events as compactions, so far
        self._made_at = 0  # ... as of this many records
        self._own: list[Item] = []  # what requests held that none committed is, as items
        self._stubs: dict[int, str] = {}  # the stubs the column was told, as of then
        self._folded = 0  # ... and how many of the folded messages it was told
        self._dropped: set[int] = set()  # ... and which messages a projection dropped
        self._found = 0  # the events whose folds the column was told of
        self._prompts: dict[str | None, str] = {}  # run id -> its first user message's text
        # A tool call's id -> the seqs of the messages that asked for it, their items (an
        # operation's ``message_id``, the ask its execution is of: ``ask_in_run``; ``m``
        # goes there) and their runs; and the operations whose ask may change: made
        # before any asked, or named by another run's ask before their own run's came.
        self._asked: dict[str, tuple[list[int], list[str], list[str]]] = {}
        self._unsure: set[int] = set()
        # The calls asked for that no execution is of yet, by (call id, the asking
        # item): each an operation of its own after the executions' (never dispatched,
        # or not yet while its run is open), as v1's calls no dispatch line names are;
        # and those an execution took (``_taken``: one that leaves goes back).
        self._unstarted: dict[tuple[str, str], ToolOp] = {}
        self._taken: dict[tuple[str, str], ToolOp] = {}
        self._rows = RawRows(view)  # the raw view's rows of its own, made once each
        self._runs = RunsMade(view)  # its runs as made, each again when touched

    def fed(self, record: dict[str, Any], span: int) -> None:
        """The view just took ``record`` (its span in ``records.source``): a committed
        message goes into the column now, and a model call's usage is noted, from the
        parsed record (a snapshot then need not read them again)."""
        view = self.view
        kind = record.get("type")
        if kind == "message_end":
            if len(view.messages) == self._messages + 1:  # it was committed, and in order
                self._take_message(view.messages[-1], record["data"]["message"], span)
        elif kind == "model_exec_end":  # (what ``FedCallUsage.fed`` notes; asked of it alone)
            self._fed_usage.fed(view, record)

    def transcript(self, path: str, writer_alive: bool | None) -> Transcript:
        view = self.view
        self._take_messages()
        ops = self._operations(writer_alive)
        made = self._runs
        wanted = made.wanted()  # (the runs the new records, messages or calls touched)
        order = view.run_order
        touched = {order[at] for at in wanted}
        tally = self._tally(touched)
        runs = made.runs(wanted, tally, self._prompts)
        n = len(self.column)
        return Transcript(
            format=NAME,
            responses_counted=True,
            path=path,
            meta={
                "session-id": view.session_id,
                "version": view.version,
                "started": view.started,
                "model": self._first_model(),
            },
            messages=self._sent(n),
            raw=self._rows.items(self.column, n, touched),
            tool_operations=ops,
            compactions=self._compactions(),
            runs=runs,
            usage=Usage.of_totals(tally.transcript),
            warnings=list(view.warnings),
            lines=view.last_line,
            writer_alive=writer_alive,
            other_records=OthersWhenAsked(functools.partial(_others, view, view.last_line)),
        )

    def _first_model(self) -> str | None:
        """Its first model call's model, as the browser's row says it (the header said
        version=1 alone): looked for in the calls not looked at yet, kept once found."""
        view = self.view
        order = view.call_order
        while self._model is None and self._model_seen < len(order):
            self._model = view.calls[order[self._model_seen]].model
            self._model_seen += 1
        return self._model

    def _context_folds(self) -> ContextFolds:
        from ...agentgo.folds import ContextFolds

        if self._folds is None:
            self._folds = ContextFolds(self.view)
        return self._folds

    def _compactions(self) -> list[Compaction]:
        """The context events as compactions and elisions (what each folded is found when
        a pane asks for it: ``agentgo.folds.ContextFolds``)."""
        from ...agentgo.folds import context_compactions

        events = len(self.view.context_events)
        if not events:
            return []
        records = len(self.view.records)
        # (each made once, its fold found when asked; made again while the last is not
        # sent yet and records came since: a request may have followed it)
        if len(self._made) != events or (self._made[-1].unsent and self._made_at != records):
            self._made = context_compactions(self.view, self._context_folds())
            self._made_at = records
        return list(self._made)

    def _sent(self, n: int) -> Items:
        """What the model is sent next (``ContextFolds.sent``): with no context event,
        every committed message; after one, what the requests since held, a message
        they held as another answer to its call marked elided with that as its stub,
        and what they held that none committed is (a summary) as an item of its own."""
        from ...agentgo.messages import message_role, message_text

        if not self.view.context_events:
            return Items(self.column, n)
        folds = self._context_folds()
        entries = folds.sent(n)
        own = self._own
        if len(folds.own) > len(own):
            # A message holding a compaction's summary is that summary (a compaction's
            # item, as every format's: ``x`` found none in agentgo's conversation).
            said = [
                data["summary"]
                for _seq, _run, kind, data in self.view.context_events
                if kind == "context_compacted" and isinstance(data.get("summary"), str)
            ]
            for message in folds.own[len(own) :]:
                text = message_text(message)
                summary = any(s.strip() and s in text for s in said)
                own.append(
                    Item(
                        f"sent-{len(own) + 1}",
                        message_role(message),
                        message_parts(message),
                        kind="summary" if summary else "message",
                    )
                )
        column = self.column
        if folds.found != self._found:  # (the stubs change only with an event found)
            self._found = folds.found
            for index in self._stubs.keys() - folds.stubs.keys():
                column.stubs.pop(index, None)
                column.set_marks(index, [m for m in column.marks.get(index, ()) if m != "elided"])
            for index, stub in folds.stubs.items():
                if self._stubs.get(index) != stub:
                    column.stubs[index] = stub
                    marks = column.marks.get(index, [])
                    column.set_marks(index, marks if "elided" in marks else [*marks, "elided"])
            self._stubs = dict(folds.stubs)
            # What a compaction or a projection dropped is marked folded, as every
            # format's is (once); a message a later request holds again is sent, unmarked.
            for index in self._dropped - folds.dropped.keys():
                column.set_marks(index, [m for m in column.marks.get(index, ()) if m != "folded"])
            for index in [*folds.dropped.keys() - self._dropped, *folds.folded[self._folded :]]:
                marks = column.marks.get(index, [])
                if "folded" not in marks:
                    column.set_marks(index, ["folded", *marks])
            self._dropped = set(folds.dropped)
            self._folded = len(folds.folded)
        return Items(column, entries=entries, own=own)

    def operations(self, writer_alive: bool | None) -> tuple[list[ToolOp], UsageTally]:
        """The tool operations and usage totals as of now (what a snapshot shows of the
        calls), each named by the message that asked for it (the messages taken first)."""
        return list(self._operations(writer_alive)), self._tally()

    def _operations(self, writer_alive: bool | None) -> AgentGoOps:
        view = self.view
        view.writer_alive = writer_alive
        self._take_messages()
        self._take_calls()
        ops = self._ops
        for index in list(self._pending):
            op = ops[index]
            state = self._state(view.calls[view.call_order[index]])
            if state != op.state:
                self._set_op(index, self._op(index, view.calls[view.call_order[index]], state))
        for index in list(self._unsure):  # (its message, or its run's, came after it)
            call, op = view.calls[view.call_order[index]], ops[index]
            if self._ask_of(op.call_id, call)[0] != op.message_id:  # (a new one: a
                self._set_op(index, self._op(index, call, op.state))  # keeps its own)
        made = self._op_list.copy()
        by_call = self._last_with_id.copy()  # (the last of an id: the calls not started's)
        for key, op in self._unstarted.items():
            state = unstarted_state(view, op.run_id)
            if op.state != state:  # (made again: an earlier snapshot keeps its own)
                op = self._unstarted[key] = dataclasses.replace(op, state=state)
            made.append(op)
            by_call[op.call_id] = op
        return AgentGoOps(made, by_call)

    def _op(self, index: int, call: Call, state: OpState) -> AgentGoOp:
        """Call ``index``'s operation, named by the message that asked for it."""
        op = AgentGoOp.of(call, state)
        old = self._ops.get(index)
        if old is not None and old.message_id is not None:  # (it keeps its ask till named)
            ToolOp.__dict__["message_id"].__set__(op, old.message_id)
        self._name(index, op, call)
        return op

    def _name(self, index: int, op: ToolOp, call: Call) -> None:
        """Name operation ``index`` by the message whose call of its id the execution
        ``call`` is (``ask_in_run``: its run's, and an id a later message uses again is
        another call); unsure while none asked, or another run's ask alone did. An ask
        it leaves that no other operation is of goes back among the calls not started."""
        caller, own = self._ask_of(op.call_id, call)
        if own:
            self._unsure.discard(index)
        else:
            self._unsure.add(index)
        before = op.message_id
        if caller is None or caller == before:
            return
        ToolOp.__dict__["message_id"].__set__(op, caller)
        taken = self._unstarted.pop((op.call_id, caller), None)
        if taken is not None:
            self._taken[(op.call_id, caller)] = taken
        if before is not None:
            self._left(index, op.call_id, before)

    def _ask_of(self, call_id: str, call: Call) -> tuple[str | None, bool]:
        """The item of the message whose call of ``call_id`` the execution ``call`` is
        (``ask_in_run``; None: none asked), and whether that message is of its run."""
        asked = self._asked.get(call_id)
        if asked is None:
            return None, False
        seqs, items, runs = asked
        at = ask_in_run(seqs, runs, call.first_seq, call.run_id)
        return items[at], runs[at] == call.run_id

    def _left(self, index: int, call_id: str, ask: str) -> None:
        """Operation ``index`` is no longer of the call ``ask`` asked for: that call is
        unstarted again where no other operation is of it, in the order of the asks (as
        a whole read makes them)."""
        key = (call_id, ask)
        if key not in self._taken or any(
            at != index and (other.call_id, other.message_id) == key
            for at, other in self._ops.items()
        ):
            return
        self._unstarted[key] = self._taken.pop(key)
        ordered = sorted(self._unstarted.items(), key=lambda kv: int(kv[0][1][4:]))
        self._unstarted = dict(ordered)  # (by the asking message's seq: ``seq-N``)

    def _take_messages(self) -> None:
        """The committed messages not taken as they were fed, into the column (read
        again: a view read whole, ``read_view``)."""
        messages = self.view.messages
        records = self.view.records
        for index in range(self._messages, len(messages)):
            committed = messages[index]
            self._take_message(committed, committed.message, records.span(committed.at))

    def _take_message(self, committed: Committed, message: dict[str, Any], span: int) -> None:
        from ...agentgo.messages import message_role  # (not at start: a v1 file needs none)
        from ...usage import shown_usage

        parts = message_parts(message)
        ident = f"seq-{committed.seq}"
        index = self.column.append(
            parts,
            file_line(committed.line, committed.seq),
            role=message_role(message),
            ts=committed.time,
            span=span if self.view.records.source is not None else 0,
            ident=ident,
        )
        finish = finish_mark(message.get("stop_reason"))  # (as a v1 message says it)
        if finish is not None:
            self.column.set_marks(index, [finish])
        for call_id, part in asked_calls(parts).items():
            seqs, items, runs = self._asked.setdefault(call_id, ([], [], []))
            seqs.append(committed.seq)
            items.append(ident)
            runs.append(committed.run_id)
            self._unstarted[(call_id, ident)] = ToolOp(
                call_id,
                part.name or "",
                "not-dispatched-yet",
                arguments=part.data,
                line=file_line(committed.line, committed.seq),
                run_id=committed.run_id,
                message_id=ident,
            )
        # What the message cost (shown with it): its own usage, else its model call's
        used = shown_usage(self.view, committed, message, self._fed_usage)
        # (a response's: ``usage.is_response``, whose own usage ``shown_usage`` read
        # already; None: not reported)
        if used is not None or committed.usage_call >= 0:
            self.column.set_usage(index, Usage.from_message_usage(used))
        self._runs.items[committed.run_id] += 1
        self._runs.touched.add(committed.run_id)
        if committed.run_id not in self._prompts and message.get("kind") == "user":
            from ...agentgo.view import message_text

            self._prompts[committed.run_id] = message_text(message)  # (its run's first)
        self._messages += 1

    def _take_calls(self) -> None:
        """The calls the records fed since the last snapshot are about: each one's
        operation (a tool call) or usage (a model call) made again."""
        from ...usage import NO_RUN, is_model_call

        view = self.view
        calls = view.records.calls
        touched = {at for at in calls[self._records :] if at >= 0}
        self._records = len(calls)
        order = view.call_order
        runs = self._runs.touched
        for index in sorted(touched):
            call = view.calls[order[index]]
            runs.add(call.run_id or NO_RUN)  # (its usage's run: ``GrowingTally``'s)
            if is_model_call(call) and not self._fed_usage.responded(index, call):
                self._drop_op(index)  # (refused: no response, no usage to count)
                self._forget_usage(index)
            elif is_model_call(call):
                self._totals.changed(index)
                self._drop_op(index)
                if index not in self._usage and self._usage and index < next(reversed(self._usage)):
                    self._usage_sorted = False  # a call that turned out a model call late
                self._usage[index] = self._fed_usage.of(index, call)
            elif is_tool_execution(call):
                self._forget_usage(index)
                self._set_op(index, self._op(index, call, self._state(call)))
                if call.tool_end_at < 0:
                    self._pending.add(index)
                else:
                    self._pending.discard(index)
            else:
                self._drop_op(index)
                self._forget_usage(index)

    def _set_op(self, index: int, op: ToolOp) -> None:
        """Call ``index``'s operation is ``op``: in its place among the operations."""
        order = self._op_order
        old = self._ops.get(index)
        if old is not None:
            self._op_list[bisect.bisect_left(order, index)] = op
        elif not order or index > order[-1]:
            order.append(index)
            self._op_list.append(op)
        else:
            at = bisect.bisect_left(order, index)
            order.insert(at, index)
            self._op_list.insert(at, op)
        self._ops[index] = op
        if old is not None and old.call_id != op.call_id:
            self._without_id(index, old.call_id)
        if old is None or old.call_id != op.call_id:
            bisect.insort(self._with_id.setdefault(op.call_id, []), index)
        self._last_with_id[op.call_id] = self._ops[self._with_id[op.call_id][-1]]

    def _without_id(self, index: int, call_id: str) -> None:
        """Call ``index``'s operation no longer has ``call_id``."""
        calls = self._with_id[call_id]
        calls.remove(index)
        if calls:
            self._last_with_id[call_id] = self._ops[calls[-1]]
        else:
            del self._with_id[call_id], self._last_with_id[call_id]

    def _forget_usage(self, index: int) -> None:
        """A call that is no model call (any more): its usage out of the totals."""
        if index in self._usage:
            del self._usage[index]
            self._totals.changed(index)

    def _drop_op(self, index: int) -> None:
        if (op := self._ops.pop(index, None)) is not None:
            self._without_id(index, op.call_id)
            at = bisect.bisect_left(self._op_order, index)
            del self._op_order[at], self._op_list[at]
            self._pending.discard(index)
            self._unsure.discard(index)

    def _state(self, call: Call) -> OpState:
        view = self.view
        run_dead = call.run_id in view.runs and view.run_status(call.run_id) == "interrupted"
        return classify_op(
            has_result=call.tool_end_at >= 0,
            failed=call.tool_end_at >= 0 and call.tool_failed,
            writer_alive=False if run_dead else view.writer_alive,
        )

    def _tally(self, runs: set[str] | None = None) -> UsageTally:
        """The usage totals: the session's, and each run's (only ``runs``'s, if given)."""
        if not self._usage_sorted:
            self._usage = dict(sorted(self._usage.items()))
            self._usage_sorted = True
        return self._totals.tally(self.view, self._usage, runs)


def transcript_of(view: AgentGoView, path: str, writer_alive: bool | None) -> Transcript:
    """An agentgo view in the neutral model: committed messages, tool calls, runs, usage."""
    return AgentGoModel(view).transcript(path, writer_alive)


def _others(view: AgentGoView, upto: int) -> list[OtherRecord]:
    """The view's records of a type the spec does not name, up to line ``upto`` (those
    of the snapshot: a followed view reads on), as written."""
    return [
        OtherRecord(line, record.get("type"), record)
        for line, record in view.other_records()
        if line <= upto
    ]
