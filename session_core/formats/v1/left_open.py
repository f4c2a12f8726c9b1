"""What a v1 file's writer left open, as ``check`` counts it: the one count ``check``,
the browser's row (``scan_v1``) and the exports say it by, in ``open_work``'s words (the
viewer's header counts its snapshot's operations: ``model.V1Model.transcript``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...open_work import OpenWork, dispatched_work
from ...text import ops_said
from .ops import cut_off_state, open_states

if TYPE_CHECKING:
    from ...replay import ReplayState


def check_ops(state: ReplayState, writer_alive: bool | None) -> list[str]:
    """``check``'s words on the operations: how many ``replay`` lists (``ops_said``, as
    every format's check says it), then what was left open (``left_open``)."""
    pending, calls, listed = open_states(state, writer_alive)
    cut = cut_off_state(state, writer_alive)
    return ops_said(listed) + dispatched_work(pending, calls, cut).said()


def left_open(state: ReplayState, writer_alive: bool | None) -> list[str]:
    """The operations not settled (each by its state), the calls no dispatch line names,
    and a file that ends on no answer of the model's, as ``replay`` tells each by its
    writer (``writer_alive``); empty where nothing was left open."""
    return v1_open_work(state, writer_alive).said()


def v1_open_work(state: ReplayState, writer_alive: bool | None) -> OpenWork:
    """``left_open``'s count (``open_work.dispatched_work``)."""
    pending, calls, _listed = open_states(state, writer_alive)
    return dispatched_work(pending, calls, cut_off_state(state, writer_alive))
