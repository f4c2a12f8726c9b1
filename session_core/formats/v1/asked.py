"""Which call of its id a v1 tool message answers: the one asked last before it, as the
exports give it (``exportdoc_v1``, ``tool_ops.ask_of``): an id the model used again is
another call."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...replay import ReplayState


def answered_ops(
    state: ReplayState, indices: Iterable[int], answered: Callable[[str], bool]
) -> set[int]:
    """Of operations ``indices``, those a tool message answers: an answer belongs to the
    call of its id asked last before it (``tool_ops.ask_of``, as the exports give it:
    ``exportdoc_v1``), an operation to the one asked last before its dispatch. An id the
    model used again is another call: an older operation never answered is not answered
    by the newer call's answer. ``answered``: whether a tool message answers the call id
    at all (each caller's own: an id none answers is not looked for)."""
    records = state.tool_ops
    call_id = records.texts.text
    found: set[int] = set()
    for index in indices:
        cid = call_id(records.call_numbers[index])
        if answered(cid) and _answers_its_call(state, records.dispatch_event(index), cid):
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
