"""transcript-v1's neutral model, made from the replay's facts (``V1Model``): items read
from their lines only when built, operations made only when asked for (``V1Ops``), runs
with their contexts, compactions and elisions as overlays. The format's declaration and
its live model are ``formats.v1``."""

from __future__ import annotations

import bisect
from array import array
from itertools import compress
from typing import TYPE_CHECKING, Any, cast

from ...events import payload_of
from ...model import (
    Compaction,
    Item,
    Part,
    Run,
    RunContext,
    ToolOp,
    Transcript,
    Usage,
)
from ...text import as_str, compact_json

if TYPE_CHECKING:
    from ...replay import Compaction as ReplayCompaction
    from ...replay import ReplayState


from .contexts import V1RunContext
from .items import (
    CODE,
    FLAGS,
    HEIGHT,
    MESSAGE_VERBATIM,
    PARTS,
    TELLS,
    V1ItemFacts,
    measured,
    message_item,
    message_parts,
)
from .ops import V1Op, V1Ops
from .overlays import Overlays, compaction_parts, elision_parts, made_compaction

NAME = "transcript-v1"


def transcript_of(state: ReplayState, path: str, writer_alive: bool | None) -> Transcript:
    """A v1 replay in the neutral model, once (a followed replay keeps a ``V1Model``)."""
    return V1Model(state).transcript(path, writer_alive)


class V1Model:
    """The neutral model of one replay, kept from one snapshot to the next.

    Its items are packed (``ItemColumn``) from the facts the replay took of each message
    line (role, lines, tool calls, the call it answers): a line read from the file is not
    read again for a snapshot, only when its item is built (drawn, copied, searched),
    with its timestamp. A snapshot takes only the message lines new since the last one
    and makes again only the tool operations that were not settled yet, each read from
    its lines only when asked for (``V1Op``): following a big file costs what the new
    lines cost, not the whole file again.
    """

    def __init__(self, state: ReplayState) -> None:
        from ...item_column import ItemColumn
        from ...usage import UsageTally

        self.state = state
        self.column = ItemColumn()
        self.column.facts = V1ItemFacts(self)
        self.column_at = array("i")  # per event: its item's index in the column, or -1
        self.event_of = array("i")  # per item: its event (its position in the replay)
        # Of the items not reached through their body's position: messages kept as dicts
        # (not lines), compaction and elision lines.
        self.index_of: dict[str, int] = {}
        self.line_of: dict[str, int] = {}  # compaction and elision id -> its line
        # The call ids tool messages answer, of the operations not settled yet (and of
        # the calls not dispatched): those whose state it moves.
        self.answered: set[str] = set()
        self._let_go_of = 0  # answers let go of since the set was made again
        self._shared: set[str] = set()  # call ids more than one operation has
        self.usage = UsageTally()
        self._events = 0  # events looked at for the column
        self._compactions: dict[str, ReplayCompaction] = {}
        self._made: list[Compaction] = []  # the compactions in the model
        self._elisions_taken = 0  # elision records whose lines are items
        # An elision line's span -> where its records are (``_elision_records``): its
        # item's parts are made again from them, not kept (10,000s of lines at 1 GB).
        self._elided_at: dict[int, tuple[int, int]] = {}
        self._overlays = (0, 0)  # compactions and elisions the built items were marked for
        self._ops_taken = 0  # dispatch lines taken
        self._by_call: dict[str, int] = {}  # call id -> its (last) operation
        self._undispatched: dict[str, tuple[int, str]] = {}  # call id -> its event, tool
        self._early: set[str] = set()  # call ids dispatched before a message called them
        self._open: list[int] = []  # operations not settled at the last snapshot
        self._contexts: list[RunContext] = []  # of the run-context lines, in file order
        self._number: dict[str, int] = {}  # run id -> its place among the runs
        self._first = array("l")  # per run: its first run-context line
        self._latest: dict[str, int] = {}  # run id -> its last run-context line
        self._order: list[str] = []  # the run ids, by their first run-context line
        self._runs_made: list[Run] = []  # each run as the last snapshot made it
        # What moves a run made before: the runs with a call still out (then), the run
        # the messages were tallied to (then), the operations looked at (their runs).
        self._pending_runs: set[str] = set()
        self._tallied_to: str | None = None
        self._ops_seen = 0
        # A message line's shape (its facts' key) -> its item's role code, height, parts,
        # whether it answers or makes a call (``items.measured``).
        self._shapes: dict[int, tuple[int, int, int, bool]] = {}

    def advance(self) -> None:
        """Take what the replay applied since: its new lines' items and operations (those
        not settled are made again by the snapshot, for the writer it is told of)."""
        self._add_lines()
        self._take_operations()

    def transcript(self, path: str, writer_alive: bool | None) -> Transcript:
        from ...events import LazyPayload
        from ...item_column import STICKY, Items

        state = self.state
        self._add_lines()
        overlays = (len(state.compactions), len(state.elisions))
        if overlays != self._overlays:
            self._overlays = overlays
            self.column.changed_all()  # their marks are asked for again
        column, column_at, index_of = self.column, self.column_at, self.index_of
        flags = column.flags
        entries = array("l")  # column indexes; -1 - k: own[k] (``Items``)
        add = entries.append
        own: list[Item] = []
        for mid, body, sticky, stub in state.entries:
            found = column_at[body.index] if type(body) is LazyPayload else index_of.get(mid, -1)
            if found < 0:
                item = message_item(mid, dict(body), 0)
                item.sticky, item.stub = sticky, stub
                own.append(item)
                add(-len(own))
                continue
            # As the raw item it is (the two views share it: an elided one carries its
            # stub), sticky as the replay says (marked again only where that changed).
            if bool(flags[found] & STICKY) != bool(sticky):
                (column.flag if sticky else column.unflag)(found, STICKY)
            add(found)
        self.usage.update(state)
        return Transcript(
            format=NAME,
            path=path,
            meta=dict(state.meta),
            messages=Items(column, entries=entries, own=own),
            raw=Items(column),
            tool_operations=(ops := self._operations(writer_alive)),
            compactions=self._overlay_records(),
            runs=self._runs(ops, writer_alive),
            usage=Usage.of_totals(self.usage.transcript),
            warnings=list(state.warnings),
            lines=state.last_line,
            extra={"grants": state.grants},
            writer_alive=writer_alive,
        )

    def _add_lines(self) -> None:
        """The lines replayed since the last snapshot that are items of the raw view, into
        the column: each message line (one kept by its span from its facts alone, one
        kept otherwise, appended live as a dict or its bytes, as its parts), and each
        compaction and elision line as what it did."""
        state, column = self.state, self.column
        events, lines = state.events, state.event_lines
        source = events.source
        if column.source is None and source is not None:
            # (A followed file's source comes with its first lines.) What is read again.
            from ...parts import PartSource

            def load(span: int) -> list[Part]:
                taken = self._elided_at.get(span)
                if taken is not None:  # an elision line: what it stubbed, not its line
                    return elision_parts(self.state.elisions, *taken)
                return message_parts(payload_of(self.envelope_at(span)))

            column.source = PartSource(load)
            column.line_source, column.verbatim = source, MESSAGE_VERBATIM
        self.column_at.extend([-1] * (len(lines) - len(self.column_at)))
        kinds = events.kinds
        start, stop = self._events, len(kinds)
        if start == stop:
            return
        # The message lines between one compaction or elision line and the next go in
        # together (``_add_messages``), found without a step per line.
        marks: list[int] = []
        for kind in ("compaction", "elision"):
            at = start
            while True:
                try:
                    at = kinds.index(kind, at, stop)
                except ValueError:
                    break
                marks.append(at)
                at += 1
        unknown = state.unknown_events
        marks.extend(unknown[bisect.bisect_left(unknown, start) :])
        messages = state.message_events
        first = bisect.bisect_left(messages, start)
        for mark in [*sorted(marks), stop]:
            end = bisect.bisect_left(messages, mark, first)
            if end > first:
                self._add_messages(messages[first:end].tolist())
            first = end
            if mark < stop:
                kind = kinds[mark]
                if kind in ("compaction", "elision"):
                    self._add_overlay(mark, kind)
                else:
                    self._add_unknown(mark, kind)
        self._events = stop

    def _add_messages(self, positions: list[int]) -> None:
        """These message lines' items (in file order, no other item between them): those
        kept by their span appended unread (``extend_unread``), measured from their facts,
        each shape once (``FactsColumn.shape_keys``); then what their answers and calls
        tell of the operations."""
        state, column = self.state, self.column
        events = state.events
        facts = events.facts
        kept = list(map(events.kept, positions))
        base = len(column)
        try:
            spans: array[int] | None = array("q", kept)  # type: ignore[arg-type]
        except TypeError:  # (a line appended live as its dict or bytes)
            spans = None
        if column.source is None or spans is None or 0 in spans:
            for position, line_kept in zip(positions, kept, strict=True):
                self._add_message(position, line_kept)
            self._take_answers_and_calls(positions)
            return
        shapes, code = self._shapes, column.code
        keys = facts.shape_keys(positions)
        for key in set(keys).difference(shapes):
            shape = facts.shape_of_key(key)
            if shape is not None:
                role, text_lines, reasoning, pairs, answers = shape
                shapes[key] = measured(code(role), text_lines, reasoning, pairs, answers)
        rows = list(map(shapes.get, keys))
        if None in rows:  # (a line that says more than its key)
            for at, row in enumerate(rows):
                if row is None:
                    role, text_lines, reasoning, pairs, tcid = facts.shape(positions[at])
                    answers = tcid is not None
                    rows[at] = measured(code(role), text_lines, reasoning, pairs, answers)
        sized = cast("list[tuple[int, int, int, bool]]", rows)
        lines = state.event_lines
        column.extend_unread(
            array("l", map(lines.__getitem__, positions)),
            spans,
            array("H", map(CODE, sized)),
            bytes(map(HEIGHT, sized)),
            bytes(map(PARTS, sized)),
            list(map(events.ids.__getitem__, positions)),
        )
        column_at = self.column_at
        for index, position in enumerate(positions, base):
            column_at[position] = index
        self.event_of.extend(positions)
        self._take_answers_and_calls(list(compress(positions, map(TELLS, sized))))

    def _add_message(self, position: int, kept: dict[str, Any] | bytes | int) -> None:
        """One message line's item: kept by its span, appended unread; else as its parts."""
        column, facts = self.column, self.state.events.facts
        mid = self.state.events.ids[position]
        role, height, reasoning, pairs, tcid = facts.shape(position)
        if type(kept) is int and kept and column.source is not None:
            _code, height, parts, _tells = measured(0, height, reasoning, pairs, tcid is not None)
            index = column.append_unread(
                int(self.state.event_lines[position]),
                kept,
                role=role,
                height=height,
                nparts=parts,
                ident=mid,
            )
        else:
            index = self._append_message(position, kept, mid, role)
        self.column_at[position] = index
        self.event_of.append(position)

    def _take_answers_and_calls(self, positions: list[int]) -> None:
        """What these message lines (in file order) tell of the operations: the call ids
        they answer whose operation may still move, the calls no dispatch line named yet."""
        answers, at, cids, names = self.state.events.facts.call_texts(positions)
        answered, by_call = self.answered, self._by_call
        if answers:
            # (A call id of an operation settled already is never asked for again.)
            shared, is_settled = self._shared, self.state.tool_ops.is_settled
            known = by_call.keys() & answers
            answered.update(cid for cid in answers if cid not in known)
            for cid in known:
                if not is_settled(by_call[cid]) or cid in shared:
                    answered.add(cid)
        early, undispatched = self._early, self._undispatched
        if early.isdisjoint(cids):  # (a call dispatched before its message: rare)
            undispatched.update(zip(cids, zip(at, names, strict=True), strict=True))
            return
        for cid, position, name in zip(cids, at, names, strict=True):
            if cid in early:
                early.discard(cid)
            else:
                undispatched[cid] = (position, name)

    def _append_message(
        self, position: int, kept: dict[str, Any] | bytes | int, mid: str, role: str
    ) -> int:
        """A message line not kept by its span alone, into the column as its parts."""
        envelope = self.state.events[position]
        ts = envelope.get("ts")
        index = self.column.append(
            message_parts(payload_of(envelope)),
            int(self.state.event_lines[position]),
            role=role,
            ts=ts if isinstance(ts, str) else None,
            ident=mid,
            keep=True,
        )
        if type(kept) is dict:
            self.index_of[mid] = index
        return index

    def _add_overlay(self, position: int, kind: str) -> None:
        """A compaction or elision line, as the raw view shows it: what it folded (its
        summary after) or what it stubbed."""
        state, column = self.state, self.column
        eid = state.events.ids[position]
        line = int(state.event_lines[position])
        self.line_of[eid] = line
        envelope = state.events.read(position)  # (for its ts: not kept in the cache)
        ts = envelope.get("ts")
        span = 0
        if kind == "compaction":
            record = self._compactions.get(eid)
            if record is None:  # the ones applied since: taken in
                for c in state.compactions[len(self._compactions) :]:
                    self._compactions[c.id] = c
                record = self._compactions.get(eid)
            parts = compaction_parts(record, self.line_of)
        else:
            taken = self._elision_records(eid)
            parts = elision_parts(self.state.elisions, *taken)
            kept = state.events.kept(position)
            if type(kept) is int and column.source is not None:
                span = kept  # its parts made again from its records when asked for
                self._elided_at[span] = taken
        index = column.append(
            parts,
            line,
            role="user" if kind == "compaction" else "system",
            kind=kind,
            ts=ts if isinstance(ts, str) else None,
            span=span,
            ident=eid,
            keep=not span,
        )
        self.index_of[eid] = index
        self.column_at[position] = index
        self.event_of.append(position)

    def _add_unknown(self, position: int, kind: str) -> None:
        """A line of a type this reader does not know, as it is (the raw view keeps it)."""
        state = self.state
        envelope = state.events.read(position)
        ts = envelope.get("ts")
        index = self.column.append(
            [Part("other", compact_json(envelope), name=kind)],
            int(state.event_lines[position]),
            role="system",
            kind="record",
            ts=ts if isinstance(ts, str) else None,
            ident=state.events.ids[position],
            keep=True,
        )
        self.column_at[position] = index
        self.event_of.append(position)

    def _elision_records(self, eid: str) -> tuple[int, int]:
        """Where the records of elision line ``eid`` are in the replay's elisions (the
        next ones not taken: an elision line applies its records in one go)."""
        elisions, taken = self.state.elisions, self._elisions_taken
        while taken < len(elisions) and elisions[taken].elision_id != eid:
            taken += 1
        end = taken
        while end < len(elisions) and elisions[end].elision_id == eid:
            end += 1
        self._elisions_taken = end
        return taken, end

    def _overlay_records(self) -> Overlays:
        """The compactions (the new ones made, the others kept), then the elisions, each
        made when asked for: a big file has 10,000s of them, an object each was MBs."""
        state, made = self.state, self._made
        made.extend(made_compaction(c, self.line_of) for c in state.compactions[len(made) :])
        return Overlays(made, state.elisions, len(state.elisions), self.line_of)

    _line: tuple[int, dict[str, Any]] = (0, {})  # the last line read again: its span, parsed

    def envelope_at(self, span: int) -> dict[str, Any]:
        """The line at ``span`` parsed again (the last one is kept: an item built reads
        its parts, its timestamp and its flags from it)."""
        at, envelope = self._line
        if at != span:
            from ...indexing import loads_payload

            source = self.state.events.source
            envelope = loads_payload(source.read(span)) if source is not None else {}
            envelope = envelope if isinstance(envelope, dict) else {}
            self._line = (span, envelope)
        return envelope

    def _envelope_of(self, index: int) -> dict[str, Any]:
        """The line of item ``index``, parsed (a line kept by its span: read again)."""
        span = self.column.span[index]
        if span:
            try:
                return self.envelope_at(span)
            except (OSError, ValueError):
                return {}
        envelope: dict[str, Any] = self.state.events[self.event_of[index]]
        return envelope

    def stamp(self, index: int) -> str | None:
        """The timestamp of item ``index``'s line."""
        ts = self._envelope_of(index).get("ts")
        return ts if isinstance(ts, str) else None

    def flags_of(self, index: int) -> list[str]:
        """What a message line says of itself beside its content, as marks."""
        payload = payload_of(self._envelope_of(index))
        flags = [key for key in ("sysprompt", *FLAGS) if payload.get(key)]
        depth = payload.get("depth")
        if depth is not None:
            flags.append(f"depth {as_str(depth)}")
        finish = payload.get("finish-reason")
        if finish is not None:
            flags.append(f"finish {as_str(finish)}")
        return flags

    def marks_of(self, mid: str) -> list[str]:
        """A message's marks: folded by a compaction, stubbed by an elision."""
        state = self.state
        return [
            m for m, ids in (("folded", state.folded_by), ("elided", state.elided)) if mid in ids
        ]

    def _take_operations(self) -> None:
        """The operations dispatched since: their calls no longer undispatched, each
        findable by its call id, the ones not settled noted (a snapshot makes those
        again; the settled ones are made when asked for, ``V1Ops``)."""
        state = self.state
        records = state.tool_ops
        taken = self._ops_taken
        if len(records) == taken:
            return
        undispatched, early, by_call = self._undispatched, self._early, self._by_call
        # Each operation's index as the int object the replay keeps for its dispatch line
        # (``operation_index``): 100,000s of them, 28 bytes each, are not made twice.
        ids, dispatch_event, kept_as = (
            state.events.ids,
            records.dispatch_event,
            state.operation_index,
        )
        for index, cid in enumerate(records.call_ids[taken:], taken):
            if undispatched.pop(cid, None) is None:
                early.add(cid)  # dispatched before the line that calls it
            if cid in by_call and cid not in self._shared:  # dispatched again (rare)
                self._shared.add(cid)
                self._answer_again(cid)
            same = kept_as(ids[dispatch_event(index)])
            by_call[cid] = same if same == index else index  # (its id dispatched again)
        if len(records) - taken > 1024:  # a dict keeps its size: not that of a whole file
            self._undispatched = dict(undispatched)
        is_settled, still = records.is_settled, self._open
        settled: list[int] = []
        for index in range(taken, len(records)):
            (settled if is_settled(index) else still).append(index)
        self._let_go(settled)
        self._ops_taken = len(records)

    def _let_go(self, settled: list[int]) -> None:
        """The answers of these settled operations' calls are not asked for again (an
        operation's state is its outcome once settled): not kept, unless another
        operation has the same call id."""
        answered, shared, call_ids = self.answered, self._shared, self.state.tool_ops.call_ids
        for index in settled:
            cid = call_ids[index]
            if cid in answered and cid not in shared:
                answered.discard(cid)
                self._let_go_of += 1
        if self._let_go_of > 4096 and self._let_go_of > 2 * len(answered):
            self.answered = set(answered)  # a set keeps its size: not that of a whole file
            self._let_go_of = 0

    def _answer_again(self, cid: str) -> bool:
        """Whether a tool message so far answers ``cid`` (one whose answer was let go of,
        ``_let_go``): looked for in the replay's facts, and kept again."""
        facts = self.state.events.facts
        if any(tcid == cid for _at, _calls, tcid in facts.call_facts(self.state.message_events)):
            self.answered.add(cid)
            return True
        return False

    def _is_answered(self, cid: str) -> bool:
        return cid in self.answered or (cid in self._by_call and self._answer_again(cid))

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
        for index in self._open:
            made[index] = V1Op.of(state, index, self.answered, writer_alive)
            (still if not records.is_settled(index) else settled).append(index)
        self._open = still
        self._let_go(settled)
        # The calls no dispatch line names, after: a crash state of their own.
        lines, ids = state.event_lines, state.events.ids
        never: list[ToolOp] = [
            ToolOp(
                call_id=cid,
                tool=name,
                state="undispatched-answered" if self._is_answered(cid) else "never-dispatched",
                line=int(lines[position]),
                message_id=ids[position],
            )
            for cid, (position, name) in self._undispatched.items()
        ]
        return V1Ops(self, self._ops_taken, made, never)

    def _runs(self, ops: V1Ops, writer_alive: bool | None) -> list[Run]:
        """A run for each run id, from the run-context line that starts it to the next
        run's (a later line for the same id gives its context again); its usage is the
        messages' in between (``UsageTally``). It is running while an operation of it has
        no result, and so is the last run while the writer lives (interrupted once the
        writer is gone); else finished.

        Made again are only the runs something since the last snapshot can have moved
        (a new context line of theirs, the messages tallied to them, an operation of
        theirs, a call of theirs out then or now, the last two runs): following a file
        with 10,000s of runs costs what its new lines touch."""
        state = self.state
        contexts, lines = state.run_contexts, state.event_lines
        number, first, latest, order = self._number, self._first, self._latest, self._order
        made = self._runs_made
        touched: set[str | None] = set()
        for index in range(len(self._contexts), len(contexts)):
            line = int(lines[contexts.event(index)])
            self._contexts.append(V1RunContext.of(state, index, line))
            run_id = contexts.run_ids[index]
            if run_id not in number:  # run id -> its first run-context line, and its last
                number[run_id] = len(order)
                first.append(index)
                order.append(run_id)
            latest[run_id] = index
            touched.add(run_id)
        if len(made) < len(order) and made:
            touched.add(order[len(made) - 1])  # it ends where the next one starts now
        if order:
            touched.add(order[-1])
        pending = {op.run_id for op in ops.unsettled() if op.state in ("running", "interrupted")}
        touched |= pending | self._pending_runs
        self._pending_runs = {run_id for run_id in pending if run_id is not None}
        if self._tallied_to is not None:
            touched.add(self._tallied_to)
        self._tallied_to = self.usage.run
        op_runs = state.tool_ops.run_ids
        touched.update(op_runs[self._ops_seen :])
        self._ops_seen = len(op_runs)
        # (Each new run is among those touched: the placeholders are made below.)
        made.extend([None] * (len(order) - len(made)))  # type: ignore[list-item]
        messages = state.message_events
        tallies = self.usage.runs
        for moved in touched:
            at = number.get(moved) if moved is not None else None
            if moved is None or at is None:
                continue  # (the messages before any run, or an operation's unknown run)
            begin = contexts.event(first[at])
            end = contexts.event(first[at + 1]) if at + 1 < len(order) else None
            run_state: Any = "finished"
            if moved in pending or (end is None and writer_alive):
                run_state = "interrupted" if writer_alive is False else "running"
            totals = tallies.get(moved)
            made[at] = Run(
                id=moved,
                state=run_state,
                line=int(lines[begin]),
                end_line=None if end is None else int(lines[end]) - 1,
                started=state.run_started[first[at]],
                usage=Usage.of_totals(totals) if totals is not None else Usage(),
                context=self._contexts[latest[moved]],
                items=bisect.bisect_left(messages, len(lines) if end is None else end)
                - bisect.bisect_left(messages, begin),
            )
        return list(made)
