"""What a v1 file's writer left open, in ``check``'s words: the one list ``check``, the
browser's row (``scan_v1``) and the viewer's header say it by."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ...text import count, ops_said
from ...tool_ops import state_label
from .ops import check_states, cut_off_state

if TYPE_CHECKING:
    from ...replay import ReplayState

CUT_OFF_SAID = {  # (``ops.unanswered_end``)
    "interrupted": "cut off: its last message is no answer of the model's",
    "running": "ends on no answer of the model's: its writer may still be at work",
}


def check_ops(state: ReplayState, writer_alive: bool | None) -> list[str]:
    """``check``'s words on the operations: how many ``replay`` lists (``ops_said``, as
    every format's check says it), then what was left open (``left_open``)."""
    states, listed = check_states(state, writer_alive)
    return ops_said(listed) + _left_open(state, writer_alive, states)


def left_open(state: ReplayState, writer_alive: bool | None) -> list[str]:
    """The operations not settled (and of them the answered ones), the calls no dispatch
    line names, and a file that ends on no answer of the model's, as ``replay`` tells
    each by its writer (``writer_alive``); empty where nothing was left open."""
    return _left_open(state, writer_alive, check_states(state, writer_alive)[0])


def _left_open(state: ReplayState, writer_alive: bool | None, states: Counter[str]) -> list[str]:
    parts = []
    if state.pending_count:
        # (and of them, the answered ones: settle never landed, or not written yet)
        answered = [
            f"{states[said]} {state_label(said)}"
            for said in ("unsettled-answered", "not-settled-yet")
            if states[said]
        ]
        also = f" ({'; '.join(answered)})" if answered else ""
        parts.append(f"{count(state.pending_count, 'tool operation')} pending{also}")
    for said in ("never-dispatched", "not-dispatched-yet"):
        if states[said]:
            parts.append(f"{count(states[said], 'call')} {state_label(said)}")
    cut = cut_off_state(state, writer_alive)  # (as its runs say it)
    if cut is not None:
        parts.append(CUT_OFF_SAID[cut])
    return parts
