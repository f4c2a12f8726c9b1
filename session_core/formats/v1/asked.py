"""Which call of its id a v1 tool message answers: the one asked last before it, as the
exports give it (``exportdoc_v1``, ``tool_ops.ask_of``): an id the model used again is
another call. And which call ids tool messages answer at all, by number (``CallMarks``)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...replay import ReplayState


def answered_ops(
    state: ReplayState, indices: Iterable[int], answered: Callable[[int], bool]
) -> set[int]:
    """Of operations ``indices``, those a tool message answers: an answer belongs to the
    call of its id asked last before it (``tool_ops.ask_of``, as the exports give it:
    ``exportdoc_v1``), an operation to the one asked last before its dispatch. An id the
    model used again is another call: an older operation never answered is not answered
    by the newer call's answer. ``answered``: whether a tool message answers the call id
    (by its number in the texts) at all (an id none answers is not looked for)."""
    records = state.tool_ops
    call_id = records.texts.text
    found: set[int] = set()
    numbers = records.call_numbers
    for index in indices:
        number = numbers[index]
        if not answered(number):
            continue
        if _answers_its_call(state, records.dispatch_event(index), call_id(number)):
            found.add(index)
    return found


def _answers_its_call(state: ReplayState, dispatched: int, cid: str) -> bool:
    """Whether a tool message answers the call of id ``cid`` that the operation dispatched
    at event ``dispatched`` is of: between the message asking for it last before the
    dispatch (else the first after it) and the next other message asking for that id.
    Looked for from the dispatch out, by the message lines' facts (no line read): the
    ask and the answer are mostly a few lines from it."""
    facts, ids, messages = state.events.facts, state.events.ids, state.message_events
    at = bisect_left(messages, dispatched)
    asker: str | None = None  # the message id of the call's ask
    for event, calls, tcid in facts.call_facts(messages[p] for p in range(at - 1, -1, -1)):
        if tcid == cid:
            return True  # (between its ask and its dispatch)
        if calls and any(call == cid for call, _name in facts.calls(event)):
            asker = ids[event]
            break
    for event, calls, tcid in facts.call_facts(messages[p] for p in range(at, len(messages))):
        if tcid == cid:
            return True
        if calls and any(call == cid for call, _name in facts.calls(event)):
            if asker is None:
                asker = ids[event]  # (no ask before it: the first is its own)
            elif ids[event] != asker:
                return False  # (another call of that id: the answers after it are its)
    return False


CHUNK = 8192  # message lines whose call numbers are taken at once (``CallMarks``)


class CallMarks:
    """What ``check`` and ``replay`` need of every call id without a str of each: per
    text number (``Events.texts``), whether a tool message answers it (``answered``),
    and the calls the message lines ask for that no dispatch line names, once per id,
    in their order (``undispatched``: event, call id's number, tool's number). A big
    file has 100,000s of call ids; sets of their strs were about 50 MB of a 1 GB check."""

    __slots__ = ("answered", "undispatched")

    def __init__(self, state: ReplayState) -> None:
        records, texts = state.tool_ops, state.events.texts
        numbers = records.call_numbers  # (numbered now: the texts are all there)
        seen = bytearray(len(texts))  # dispatched, or met as undispatched already
        for number in numbers:
            seen[number] = 1
        answered = bytearray(len(texts))
        undispatched: list[tuple[int, int, int]] = []
        facts, messages = state.events.facts, state.message_events
        for start in range(0, len(messages), CHUNK):
            answers, at, cids, names = facts.call_numbers(messages[start : start + CHUNK])
            more = len(texts) - len(seen)  # (facts not taken in the read number theirs now)
            if more > 0:
                seen += bytes(more)
                answered += bytes(more)
            for number in answers:
                answered[number] = 1
            for event, cid, name in zip(at, cids, names, strict=True):
                if not seen[cid]:
                    seen[cid] = 1
                    undispatched.append((event, cid, name))
        self.answered = answered
        self.undispatched = undispatched

    def answers(self, number: int) -> bool:
        """Whether a tool message answers the call id of ``number``."""
        return bool(self.answered[number])
