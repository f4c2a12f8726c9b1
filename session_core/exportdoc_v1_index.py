"""What a v1 export keeps for the whole file, and its lookups by id: each line's
first event, each message's last copy, call ids numbered with the events asking for and
answering them and their operations, and each operation's state."""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from typing import Any

from .exportdoc import Tone, View, _preview, _s, by_ask
from .formats.v1.ops import answered_last, op_state, superseded_ops, undispatched_states
from .model import STATE_LABELS
from .packed_ids import BATCH, PackedIds, Texts
from .replay import Compaction, ReplayState, payload_of
from .tool_ops import ask_of, state_tone
from .usage import tally_state


class V1Index:
    """Builds a v1 document as it is rendered: what it keeps for the whole file is
    small (each id's first line and each message id's last copy, packed and found by
    hash; call ids numbered, with int columns), and a message's text (or an answer's,
    for its call's preview) is read again by its span when its turn comes."""

    def __init__(
        self, state: ReplayState, path: str, view: View, writer_alive: bool | None
    ) -> None:
        self.state, self.path, self.view = state, path, view
        events = state.events
        # Each id's first line (where a message or an operation is said to be), packed
        # and found by hash: a dict of every line's id and time was most of a big export.
        self.firsts = PackedIds("first")
        ids = events.ids
        for start in range(0, len(ids), BATCH):
            self.firsts.extend(ids.texts(start, min(start + BATCH, len(ids))))
        self.compactions: dict[str, Compaction] = {c.id: c for c in state.compactions}
        # Call ids, numbered as first met (packed: a dict entry and a str each was most of
        # what a 1 GB export kept), and per number: the event of the last message asking,
        # of its first answer, and its (last) operation (-1: none).
        self.calls = Texts()
        self.call_at = array("i")
        self.first_answer = array("i")
        self.op_index = array("i")
        self.more_answers: dict[int, list[int]] = {}  # a call answered again: every answer
        self.call_order = array("i")  # the numbers of the calls asked, as first asked
        self.first_ask = array("i")  # per number: the event that first asks for it
        # A call id another message asks for again (a writer that numbers its calls again
        # after a compaction, say) is another call: per such number, the event where each
        # message first asks for it, in order, and by (number, message id).
        self.asked_by: dict[int, list[int]] = {}
        self.asked_at: dict[tuple[int, str], int] = {}
        # Each message id's last message (whose content an answer's preview shows).
        self.lasts = PackedIds("last")
        for index in state.message_events:
            payload = payload_of(events[index])
            mid = ids[index]
            self.lasts.append(mid)
            for call in _calls(payload):
                number = self._number(_s(call.get("id")))
                if self.call_at[number] < 0:
                    self.call_order.append(number)
                    self.first_ask[number] = index
                elif ids[self.call_at[number]] != mid:  # (not the message again)
                    askers = self.asked_by.get(number)
                    if askers is None:
                        first = self.first_ask[number]
                        askers = self.asked_by[number] = [first]
                        self.asked_at[(number, ids[first])] = first
                    if (number, mid) not in self.asked_at:
                        self.asked_at[(number, mid)] = index
                        askers.append(index)
                self.call_at[number] = index
            tcid = payload.get("tool-call-id")
            if tcid is not None:
                number = self._number(_s(tcid))
                first = self.first_answer[number]
                if first < 0:
                    self.first_answer[number] = index
                else:
                    self.more_answers.setdefault(number, [first]).append(index)
        self.more_ops: dict[int, list[int]] = {}  # a call id dispatched again: every op
        for index, cid in enumerate(state.tool_ops.call_ids):
            number = self._number(cid)
            if self.op_index[number] >= 0:
                self.more_ops.setdefault(number, [self.op_index[number]]).append(index)
            self.op_index[number] = index
        # A reused id's answers and operations, each given to the call it is of (``asker``)
        # once: per (number, the event asking), its answers and its last operation.
        self.answers_of: dict[tuple[int, int], list[int]] = {}
        self.op_at: dict[tuple[int, int], int] = {}
        for number, asks in self.asked_by.items():
            for ask, answers in by_ask(asks, ((a, a) for a in self._every_answer(number))).items():
                self.answers_of[(number, ask)] = answers
            ops = self.more_ops.get(number) or [self.op_index[number]]
            for ask, of_it in by_ask(asks, ((self.dispatch(i), i) for i in ops if i >= 0)).items():
                self.op_at[(number, ask)] = of_it[-1]
        self.superseded = superseded_ops(state)
        self.undispatched = undispatched_states(state, writer_alive)
        self.answered_last = answered_last(state, writer_alive)
        self.tally = tally_state(state)
        self.writer_alive = writer_alive

    def preview(self, mid: str) -> str:
        """What the model is sent of message ``mid`` (its last copy), in brief: read again
        when a call's result is shown (kept for every answer, it was a big file's most)."""
        if self.view == "replayed":  # what the model is sent: a stub replaces a content
            entry = self.state.live_entry(mid)
            if entry is not None and entry[3] is not None:
                return _preview(entry[3])
        node = self.lasts.find(mid)
        if node < 0:
            return ""
        event = self.state.message_events[node]
        return _preview(_s(payload_of(self.state.events[event]).get("content")))

    def _number(self, cid: str) -> int:
        number = self.calls.number(cid)
        if number == len(self.call_at):  # (a new one)
            for column in (self.call_at, self.first_answer, self.op_index, self.first_ask):
                column.append(-1)
        return number

    def _every_answer(self, number: int) -> list[int]:
        first = self.first_answer[number]
        return self.more_answers.get(number) or ([first] if first >= 0 else [])

    def answers(self, cid: str, asked: int | None = None) -> list[int]:
        """The events of the tool messages answering call ``cid`` (raw file, in order);
        ``asked``: of the call asked at that event (``asks``) alone."""
        number = self.calls.find(cid)
        if number < 0:
            return []
        if asked is None or number not in self.asked_by:
            return self._every_answer(number)
        return self.answers_of.get((number, asked), [])

    def asks(self, number: int) -> list[int]:
        """The events where the messages asking for call id ``number`` first ask for it,
        in order: each is a call of its own."""
        return self.asked_by.get(number) or [self.first_ask[number]]

    def asker(self, number: int, event: int) -> int:
        """Which call of id ``number`` event ``event`` (an answer, an operation) is of
        (``ask_of``: the last asked before it, else the first)."""
        return ask_of(self.asks(number), event)

    def asked_in(self, cid: str, eid: str) -> int | None:
        """The event where message ``eid`` asks for call ``cid`` (``asks``), None if none."""
        number = self.calls.find(cid)
        if number < 0:
            return None
        if number in self.asked_by:
            return self.asked_at.get((number, eid))
        first = self.first_ask[number]
        return first if first >= 0 and self.state.events.ids[first] == eid else None

    def line_of(self, eid: str) -> int | None:
        node = self.firsts.find(eid)
        return None if node < 0 else self.state.event_lines[node]

    def ts_of(self, eid: str) -> str:
        node = self.firsts.find(eid)
        return "" if node < 0 else _s(self.state.events[node].get("ts"))

    def anchor(self, eid: str) -> str:
        return f"line-{self.line_of(eid) or 0}"

    def where(self, eid: str) -> str:
        line = self.line_of(eid)
        return f"line {line}" if line is not None else f"id {eid}"

    def answered_at(self, answers: list[int]) -> str:
        ids = self.state.events.ids
        return ", ".join(self.where(ids[a]) for a in answers)

    def op_of(self, cid: str, asked: int | None = None) -> int:
        """The index of call ``cid``'s (last) operation, -1 if none; ``asked``: of the
        call asked at that event (``asks``) alone."""
        number = self.calls.find(cid)
        if number < 0 or asked is None or number not in self.asked_by:
            return -1 if number < 0 else self.op_index[number]
        return self.op_at.get((number, asked), -1)

    def dispatch(self, index: int) -> int:
        """The event of operation ``index``'s dispatch."""
        return self.firsts.find(_s(self.state.tool_ops[index].get("op-id")))

    def op(self, cid: str, asked: int | None = None) -> dict[str, Any] | None:
        index = self.op_of(cid, asked)
        return None if index < 0 else self.state.tool_ops[index]

    def last_copy(self, asked: int) -> int:
        """The event of the last copy of the message at event ``asked``."""
        node = self.lasts.find(self.state.events.ids[asked])
        return asked if node < 0 else self.state.message_events[node]

    def call_event(self, cid: str) -> int:
        """The event of the (last) message that asks for call ``cid``, -1 if none."""
        number = self.calls.find(cid)
        return -1 if number < 0 else self.call_at[number]

    def call(self, cid: str, asked: int | None = None) -> tuple[str, str] | None:
        """The (name, arguments) of the last call of that id the file asks for, or of the
        one asked at event ``asked``, as the last copy of its message says (None: no
        message asks for it)."""
        index = self.call_event(cid) if asked is None else self.last_copy(asked)
        if index < 0:
            return None
        found: Mapping[str, Any] = {}
        for call in _calls(payload_of(self.state.events[index])):
            if _s(call.get("id")) == cid:
                found = call
        function = found.get("function")
        function = function if isinstance(function, dict) else {}
        return _s(function.get("name")), _s(function.get("arguments"))

    def op_state(self, cid: str, asked: int | None = None) -> tuple[str, Tone]:
        """The operation's state in the one vocabulary (``model.STATE_LABELS``);
        ``asked``: of the call asked at that event (``asks``)."""
        index = self.op_of(cid, asked)
        answered = bool(self.answers(cid, asked))
        state: str
        if index < 0:
            event = self.call_event(cid) if asked is None else self.last_copy(asked)
            state = self.undispatched(event, answered)
        else:
            op = self.state.tool_ops[index]
            gone = not op.get("settled") and self.superseded(index)
            alive = False if gone else self.writer_alive
            state = op_state(op, answered, alive, self.answered_last(index))
            if state == "interrupted":
                state = "running-dead"
        return STATE_LABELS.get(state, state), state_tone(state)  # type: ignore[return-value]


def _calls(payload: Mapping[str, Any]) -> list[dict[str, Any]]:
    calls = payload.get("tool-calls")
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
