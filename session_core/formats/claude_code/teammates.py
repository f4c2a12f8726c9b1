"""An agent team's teammates (2.1.x): the spawn call, and the teammate's reply.

``Agent`` with a ``team_name`` is answered at once, ``toolUseResult {"status":
"teammate_spawned", "teammate_id": "name@team", "agent_id": "name@team", …}``: the call
only started its teammate (``lines.LAUNCHED``), which works on (in its own file where it
runs in the session's process, as a background agent's does) and reports to the lead in
a user line, ``Another Claude session sent a message:\\n<teammate-message
teammate_id="name" color=… summary=…>…</teammate-message>`` (its bare name). Where no
file of the teammate's was read, its first reply after the spawn ends the call
(``replies``): completed, from the call to the reply.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .background import Outcome
    from .calls import CallColumn

TAG = "<teammate-message"
# (a literal opening and one attribute's quoted value, within a bounded span: linear in
# the text's length, a text of openings that never close too)
_FROM = re.compile(r'<teammate-message\s[^<>]{0,400}?\bteammate_id="([^"<>]{0,200})"')


def bare(teammate: str) -> str:
    """A teammate's name as its messages give it: its id without the ``@team``."""
    return teammate.split("@", 1)[0]


def heard(calls: CallColumn, text: str, ts: str | None) -> None:
    """A user line's ``text`` (of a file with a spawn not replied to yet): each teammate
    whose message it is has replied to its spawns before now (the first reply kept)."""
    if TAG not in text:
        return
    names = {bare(name) for name in _FROM.findall(text)}
    for at, name in calls.teammate.items():
        if name in names and at not in calls.replied:
            calls.replied[at] = ts


def replies(calls: CallColumn, count: int) -> dict[int, Outcome]:
    """The spawns among the first ``count`` calls whose teammate replied: each as the
    outcome its file would give of a finished run (completed, from the call to the
    reply)."""
    return {
        at: ("completed", calls.started(at), ts) for at, ts in calls.replied.items() if at < count
    }


__all__ = ["TAG", "bare", "heard", "replies"]
