"""transcript-v1's neutral model, made from the replay's facts (``V1Model``): items read
from their lines only when built, operations made only when asked for (``V1Ops``, kept
by ``calls.V1Calls``), runs with their contexts, compactions and elisions as overlays.
The format's declaration and its live model are ``formats.v1``."""

from __future__ import annotations

import bisect
from array import array
from itertools import compress
from typing import TYPE_CHECKING, Any, cast

from ...events import REFUSED, line_text, payload_of
from ...indexed import ListLike
from ...message import raku_str
from ...model import (
    Compaction,
    Item,
    Part,
    Run,
    Transcript,
    Usage,
)
from ...open_work import dispatched_work
from ...text import as_str, finish_mark
from .ops import cut_off_state

if TYPE_CHECKING:
    from ...replay import Compaction as ReplayCompaction
    from ...replay import ReplayState


from .calls import V1Calls
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
    refused_parts,
    unknown_parts,
)
from .line_ends import V1LineEnds
from .ops import V1Ops
from .others import OtherRecords
from .overlays import Overlays, compaction_parts, elision_parts, made_compaction, replay_counts

NAME = "transcript-v1"
PROMPT_WITHIN = 64  # messages into a run its prompt is looked for in (a run that starts with
# none is said to have none)


def transcript_of(state: ReplayState, path: str, writer_alive: bool | None) -> Transcript:
    """A v1 replay in the neutral model, once (a followed replay keeps a ``V1Model``)."""
    return V1Model(state).transcript(path, writer_alive)


class V1Model(V1Calls):
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
        from ...node_id_column import NodeIdColumn
        from ...usage import UsageTally

        self.state = state
        # Per item: its event (its position in the replay), in file order: an event's
        # item is found by bisection (not an index per event: 2.7 MB at 1 GB).
        self.event_of = array("i")
        # An item's id is its line's, kept packed by the replay, and so is the span it is
        # read again by (``span``): neither is kept here again.
        self.column = NodeIdColumn(self.event_of, state.events.ids)
        self.column.facts = V1ItemFacts(self)
        self.column.span_of = self.span
        # Of the items not reached through their body's position: messages kept as dicts
        # (not lines), compaction and elision lines.
        self.index_of: dict[str, int] = {}
        self.line_of: dict[str, int] = {}  # compaction and elision id -> its line
        self._start_calls(state)
        self.usage = UsageTally()
        self._events = 0  # events looked at for the column
        self._compactions: dict[str, ReplayCompaction] = {}
        self._made: list[Compaction] = []  # the compactions in the model
        self._elisions_taken = 0  # elision records whose lines are items
        # An elision line's span -> where its records are (``_elision_records``): its
        # item's parts are made again from them, not kept (10,000s of lines at 1 GB).
        self._elided_at: dict[int, tuple[int, int]] = {}
        self._unknown_at: dict[int, str] = {}  # a line of a type not known: span -> type
        self._overlays = (0, 0)  # compactions and elisions the built items were marked for
        self._contexts_seen = 0  # run-context lines looked at
        self._number: dict[str, int] = {}  # run id -> its place among the runs
        self._first = array("l")  # per run: its first run-context line
        self._latest: dict[str, int] = {}  # run id -> its last run-context line
        self._order: list[str] = []  # the run ids, by their first run-context line
        # A message line's shape (its facts' key) -> its item's role code, height, parts,
        # whether it answers or makes a call (``items.measured``).
        self._shapes: dict[int, tuple[int, int, int, bool]] = {}

    def advance(self) -> None:
        """Take what the replay applied since: its new lines' items and operations (those
        not settled are made again by the snapshot, for the writer it is told of)."""
        self._add_lines()
        self._take_operations()

    def transcript(self, path: str, writer_alive: bool | None) -> Transcript:
        from ...column_items import Items
        from ...events import LazyPayload
        from ...item_column import STICKY

        state = self.state
        self._add_lines()
        overlays = (len(state.compactions), len(state.elisions))
        if overlays != self._overlays:
            self._overlays = overlays
            self.column.changed_all()  # their marks are asked for again
        column, event_of, index_of = self.column, self.event_of, self.index_of
        flags = column.flags
        entries = array("i")  # column indexes; -1 - k: own[k] (``Items``)
        add = entries.append
        own: list[Item] = []
        found, items = -1, len(event_of)
        for mid, body, sticky, stub in state.entries:
            if type(body) is LazyPayload:
                # Its item: mostly the one after the last entry's (the entries are in
                # file order), else looked for (the items' events are in file order).
                at, found = body.index, found + 1
                if found >= items or event_of[found] != at:
                    found = bisect.bisect_left(event_of, at)
                    found = found if found < items and event_of[found] == at else -1
            else:
                found = index_of.get(mid, -1)
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
            responses_counted=True,
            path=path,
            meta=dict(state.meta),
            messages=Items(column, entries=entries, own=own),
            raw=Items(column),
            tool_operations=(ops := self._operations(writer_alive)),
            compactions=self._overlay_records(),
            runs=self._runs(ops, writer_alive),
            # (what was left in flight, in ``check``'s words, counted from this snapshot's
            # operations: those not settled, and the calls not dispatched, made already)
            left_open=dispatched_work(*ops.open_states(), cut_off_state(state, writer_alive)),
            usage=Usage.of_totals(self.usage.transcript),
            warnings=list(state.warnings),
            lines=state.last_line,
            extra={"grants": state.grants},
            writer_alive=writer_alive,
            other_records=OtherRecords(state),
            line_ends=V1LineEnds(state, len(state.event_lines)),
        )

    def _add_lines(self) -> None:
        """The lines replayed since the last snapshot that are items of the raw view, into
        the column: each message line (one kept by its span from its facts alone, one
        kept otherwise, appended live as a dict or its bytes, as its parts), and each
        compaction and elision line as what it did."""
        state, column = self.state, self.column
        events = state.events
        source = events.source
        if column.source is None and source is not None:
            # (A followed file's source comes with its first lines.) What is read again.
            from ...parts import PartSource

            def load(span: int) -> list[Part]:
                taken = self._elided_at.get(span)
                if taken is not None:  # an elision line: what it stubbed, not its line
                    return elision_parts(self.state.elisions, *taken)
                kind = self._unknown_at.get(span)
                if kind == REFUSED:  # a line not applied: its bytes as they are
                    return refused_parts(line_text(source.read(span)))
                if kind is not None:  # a line of a type not known: as it is
                    return unknown_parts(self.envelope_at(span), kind)
                return message_parts(payload_of(self.envelope_at(span)))

            column.source = PartSource(load)
            column.line_source, column.verbatim = source, MESSAGE_VERBATIM
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
        # Every message line of the batch measured at once (``_measure``), then appended
        # in runs between those lines; what they tell of the operations taken after.
        messages = state.message_events
        first = bisect.bisect_left(messages, start)
        positions = messages[first : bisect.bisect_left(messages, stop, first)].tolist()
        sized = self._measure(positions)
        at = 0
        for mark in [*sorted(marks), stop]:
            end = bisect.bisect_left(messages, mark, first + at) - first
            if end > at:
                self._add_messages(positions, at, end, sized)
            at = end
            if mark < stop:
                kind = kinds[mark]
                if kind in ("compaction", "elision"):
                    self._add_overlay(mark, kind)
                else:
                    self._add_unknown(mark, kind)
        self._events = stop
        if positions:
            tells = positions if sized is None else list(compress(positions, map(TELLS, sized)))
            self._take_answers_and_calls(tells)

    def _measure(self, positions: list[int]) -> list[tuple[int, int, int, bool]] | None:
        """These message lines' items as ``measured`` from their facts, each shape once
        (``FactsColumn.shape_keys``); None where a line is kept as its dict or bytes
        (appended live: ``_add_message`` takes them one at a time)."""
        column, events = self.column, self.state.events
        if column.source is None or not events.all_spans(positions):
            return None
        facts = events.facts
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
        return cast("list[tuple[int, int, int, bool]]", rows)

    def _add_messages(
        self,
        positions: list[int],
        start: int,
        stop: int,
        sized: list[tuple[int, int, int, bool]] | None,
    ) -> None:
        """Message lines ``positions[start:stop]`` (no other item between them) as items,
        ``sized`` by ``_measure``: appended unread (``extend_unread``)."""
        state = self.state
        if sized is None:
            for position in positions[start:stop]:
                self._add_message(position, state.events.kept(position))
            return
        these, sized = positions[start:stop], sized[start:stop]
        lines = state.event_lines
        self.column.extend_unread(
            array("i", map(lines.__getitem__, these)),
            None,
            array("H", map(CODE, sized)),
            bytes(map(HEIGHT, sized)),
            bytes(map(PARTS, sized)),
        )
        self.event_of.extend(these)

    def _add_message(self, position: int, kept: dict[str, Any] | bytes | int) -> None:
        """One message line's item: kept by its span, appended unread; else as its parts."""
        column, facts = self.column, self.state.events.facts
        mid = self.state.events.ids[position]
        role, height, reasoning, pairs, tcid = facts.shape(position)
        if type(kept) is int and kept and column.source is not None:
            _code, height, parts, _tells = measured(0, height, reasoning, pairs, tcid is not None)
            column.append_unread(
                int(self.state.event_lines[position]),
                kept,
                role=role,
                height=height,
                nparts=parts,
            )
        else:
            self._append_message(position, kept, mid, role)
        self.event_of.append(position)

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
            span=span,
            keep=not span,
            read_ts=True,  # (read from its line when it is built: ``stamp``)
        )
        self.index_of[eid] = index
        self.event_of.append(position)

    def _add_unknown(self, position: int, kind: str) -> None:
        """A line of a type this reader does not know, as it is (the raw view keeps it):
        read again by its span when built, where it has one."""
        state, column = self.state, self.column
        kept = state.events.kept(position)
        if type(kept) is int and column.source is not None:
            self._unknown_at[kept] = kind
            parts = [Part("other", "", name=kind)]  # (its measure: one part, not text)
            span = kept
        elif kind == REFUSED:
            parts = refused_parts(str(state.events.read(position)["line"]))
            span = 0
        else:
            parts = unknown_parts(state.events.read(position), kind)
            span = 0
        column.append(
            parts,
            int(state.event_lines[position]),
            role="system",
            kind="record",
            span=span,
            keep=not span,
            read_ts=True,  # (read from its line when it is built: ``stamp``)
        )
        self.event_of.append(position)

    def _elision_records(self, eid: str) -> tuple[int, int]:
        """Where the records of elision line ``eid`` are in the replay's elisions (the
        next ones not taken: an elision line applies its records in one go)."""
        elisions, taken = self.state.elisions, self._elisions_taken
        while taken < len(elisions) and elisions.elision_id(taken) != eid:
            taken += 1
        end = taken
        # (its own line's: the same line written again is another, its records its own;
        # the first took both lines' records, the second "nothing")
        own = elisions.line_number(taken) if taken < len(elisions) else -1
        while end < len(elisions) and elisions.line_number(end) == own:
            end += 1
        self._elisions_taken = end
        return taken, end

    def _overlay_records(self) -> Overlays:
        """The compactions (the new ones made, the others kept), then the elisions, each
        made when asked for: a big file has 10,000s of them, an object each was MBs."""
        state, made = self.state, self._made
        made.extend(made_compaction(c, self.line_of) for c in state.compactions[len(made) :])
        counts = replay_counts(state)  # (as ``check``, ``diff`` and the export count them)
        return Overlays(made, state.elisions, len(state.elisions), self.line_of, counts)

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
        span = self.column.span_at(index)
        if span:
            try:
                return self.envelope_at(span)
            except (OSError, ValueError):
                return {}
        envelope: dict[str, Any] = self.state.events[self.event_of[index]]
        return envelope

    def span(self, index: int) -> int:
        """The span item ``index``'s line is kept by (``ItemColumn.span_of``)."""
        kept = self.state.events.kept(self.event_of[index])
        return kept if type(kept) is int else 0

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
        finish = finish_mark(payload.get("finish-reason"))
        if finish is not None:
            flags.append(finish)
        return flags

    def marks_of(self, mid: str) -> list[str]:
        """A message's marks: folded by a compaction, stubbed by an elision."""
        state = self.state
        return [
            m for m, ids in (("folded", state.folded_by), ("elided", state.elided)) if mid in ids
        ]

    def _runs(self, ops: V1Ops, writer_alive: bool | None) -> V1Runs:
        """A run for each run id, from the run-context line that starts it to the next
        run's (a later line for the same id gives its context again); its usage is the
        messages' in between (``UsageTally``). It is running while an operation of it has
        no result, and so is the last run while the writer lives (interrupted once the
        writer is gone, or once another run began after the operation:
        ``ops.superseded_ops``); else finished, but where the file ends on no answer of
        the model's (``ops.cut_off_state``: interrupted, or running while the writer may
        be at work). Each is made when asked for (``V1Runs``): only the new run-context
        lines are looked at here."""
        order = self._order
        self._take_contexts()
        pending: dict[str | None, str] = {}  # run -> running, if any of its is, else interrupted
        for op in ops.unsettled():
            if op.state == "running" or (op.state == "interrupted" and op.run_id not in pending):
                pending[op.run_id] = op.state
        if order and order[-1] not in pending:  # (the file ends on no answer: cut off?)
            cut = cut_off_state(self.state, writer_alive)
            if cut is not None:
                pending[order[-1]] = cut
        return V1Runs(self, pending, writer_alive)

    def _take_contexts(self) -> None:
        """The run-context lines since: each new run id's place, and each id's first and
        last line."""
        contexts = self.state.run_contexts
        number, first, latest, order = self._number, self._first, self._latest, self._order
        for index in range(self._contexts_seen, len(contexts)):
            run_id = contexts.run_ids[index]
            if run_id not in number:  # run id -> its first run-context line, and its last
                number[run_id] = len(order)
                first.append(index)
                order.append(run_id)
            latest[run_id] = index
        self._contexts_seen = len(contexts)

    def _first_context(self, run_id: str) -> int:
        self._take_contexts()
        place = self._number.get(run_id)
        return -1 if place is None else self._first[place]

    def run(self, at: int, runs: V1Runs) -> Run:
        """Run ``at`` of the snapshot ``runs`` (its last run ends with the file then)."""
        state = self.state
        contexts, lines, first = state.run_contexts, state.event_lines, self._first
        run_id = self._order[at]
        begin = contexts.event(first[at])
        end = contexts.event(first[at + 1]) if at + 1 < len(runs) else None
        run_state: Any = "finished"
        if run_id in runs.pending:  # as its operations are (``superseded_ops``: not running)
            run_state = runs.pending[run_id]
        elif end is None and runs.writer_alive:
            run_state = "running"
        totals = self.usage.runs.get(run_id)
        latest = self._latest[run_id]
        messages = state.message_events
        stop = runs.events if end is None else end
        started = state.run_started[first[at]]
        # (its last line's time, and its first user message: a line read each; a line a
        # follow kept without applying it has none, nor do the lines it ends on)
        last = stop - 1
        kinds = state.events.kinds
        while last > begin and kinds[last] == REFUSED:
            last -= 1
        ended = as_str(state.events.read(last).get("ts")) or None if stop > begin else None
        made = Run(
            id=run_id,
            state=run_state,
            line=int(lines[begin]),
            end_line=None if end is None else int(lines[end]) - 1,
            started=started,
            ended=ended,
            prompt=self._prompt(bisect.bisect_left(messages, begin), stop),
            usage=Usage.of_totals(totals) if totals is not None else Usage(),
            context=V1RunContext.of(state, latest, int(lines[contexts.event(latest)])),
            items=bisect.bisect_left(messages, stop) - bisect.bisect_left(messages, begin),
        )
        if run_state != "running":  # (finished or cut off: it took to its last line)
            made.end_at(int(lines[last]) if end is None else made.end_line, ended)
        return made

    def _prompt(self, first: int, stop: int) -> str | None:
        """The text of the first user message from message ``first`` on, before event
        ``stop`` (within ``PROMPT_WITHIN`` messages)."""
        state = self.state
        messages, facts = state.message_events, state.events.facts
        for at in messages[first : first + PROMPT_WITHIN]:
            if at >= stop:
                break
            if facts.role(at) == "user":
                return raku_str(payload_of(state.events.read(at)).get("content"))
        return None


class V1Runs(ListLike[Run]):
    """The runs of one snapshot, each made when indexed (``V1Model.run``): a big file
    has 10,000s of runs, and a ``Run`` each, with its usage and context, was MBs kept."""

    __slots__ = ("_model", "_n", "events", "pending", "writer_alive")

    def __init__(self, model: V1Model, pending: dict[str | None, str], writer_alive: bool | None):
        self._model = model
        self._n = len(model._order)
        self.events = len(model.state.event_lines)  # the replay's, at the snapshot
        self.pending = pending  # the runs with an operation running (or interrupted)
        self.writer_alive = writer_alive

    def __len__(self) -> int:
        return self._n

    def _one(self, index: int) -> Run:
        return self._model.run(index, self)

    def count_state(self, state: str) -> int:
        """How many runs are in ``state`` (``runs.runs_in_state``), none made: each is as
        ``V1Model.run`` says, ``pending``'s where it names the run, else finished, but the
        last running while its writer lives. (The header counts them at every draw: made
        each, 33,000 runs at 100 MB took 40 ms a draw.)"""
        n = self._n
        if not n:
            return 0
        number, pending = self._model._number, self.pending
        held = [s for r, s in pending.items() if r is not None and number.get(r, n) < n]
        found, settled = held.count(state), n - len(held)
        if self._model._order[n - 1] not in pending and self.writer_alive:
            settled -= 1  # (the last: running)
            found += state == "running"
        return found + (settled if state == "finished" else 0)
