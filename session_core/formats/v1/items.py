"""transcript-v1's items in the neutral model: a message line's parts and its item's
measure (from the replay's facts of the line), and what the replay tells of an item
when it is built (``V1ItemFacts``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from ...events import REFUSED
from ...item_facts import ItemFacts, Verbatim
from ...item_heights import shape_height
from ...json_out import compact_json
from ...message import raku_str
from ...model import Item, Part, Usage
from ...parts import tool_call_part

if TYPE_CHECKING:
    from .model import V1Model


class V1ItemFacts(ItemFacts):
    """What a v1 item is told by the replay when it is built: its marks and usage (from
    the message's facts), and the timestamp of a line appended unread."""

    def __init__(self, model: V1Model) -> None:
        self.model = model

    def ts(self, index: int, span: int) -> str | None:
        return self.model.stamp(index)

    def usage(self, index: int) -> Usage | None:
        model = self.model
        position = model.event_of[index]
        facts = model.state.events.facts
        if not facts.is_message(position):
            return None
        reported = facts.usage(position)
        if reported is None and facts.role(position) != "assistant":
            return None
        return Usage.from_message_usage(reported)

    def marks(self, index: int, ident: str) -> list[str]:
        model = self.model
        kind = model.column.kind_of(index)
        if kind == "compaction":  # (its summary: a later compaction or elision may take it)
            return model.marks_of(ident)
        if kind != "message":
            return []
        return [*model.flags_of(index), *model.marks_of(ident)]

    def stub(self, index: int, ident: str) -> str | None:
        elisions = self.model.state.elided.get(ident)
        return elisions[-1].stub if elisions else None

    def stubs(self) -> dict[str, str]:
        return {ident: found[-1].stub for ident, found in self.model.state.elided.items() if found}


def measured(
    code: int, text_lines: int, reasoning: bool, pairs: int, answers: bool
) -> tuple[int, int, int, bool]:
    """A message item's role code, folded height and parts, and whether it answers or
    makes a call, from its line's shape (``FactsColumn.shape``): a tool result alone,
    else its text, reasoning and calls (as ``message_parts`` makes them)."""
    if answers:
        return code, 2, 1, True
    others = reasoning + pairs
    height = min(shape_height(text_lines, others), 255)
    return code, height, min(1 + others, 255), pairs > 0


CODE, HEIGHT, PARTS, TELLS = (itemgetter(at) for at in range(4))  # of ``measured``'s
FLAGS = ("outcome-unknown", "cancelled", "injected")  # a message's flags shown as marks


def message_item(mid: str, payload: dict[str, Any], line: int) -> Item:
    return Item(
        mid, message_role(payload), message_parts(payload), line, sticky=bool(payload.get("sticky"))
    )


def message_role(payload: dict[str, Any]) -> str:
    """A message's role, as its facts say it (``facts.message_facts``)."""
    return raku_str(payload.get("role")) or "user"


# What ``message_parts`` makes a message's texts and names of: these keys' values, as
# they are where they are strings (null ``content`` or ``reasoning``: no text; any other
# value is made text as the reference makes it, ``message.raku_str``). A line where one
# holds anything else, anywhere in it, is read whole by a search; an elision line's item
# is not its line's (not a message).
_WS = rb"[ \t\r\n]*+"  # (possessive: not given back to the look-ahead)
MESSAGE_VERBATIM = Verbatim(
    frozenset({"message"}),
    re.compile(
        rb'"(?:content|reasoning)"' + _WS + b":" + _WS + rb'(?!"|null)'
        rb'|"(?:name|arguments)"' + _WS + b":" + _WS + rb'(?!")'
    ),
    re.compile(rb'"tool-calls"' + _WS + b":" + _WS + rb"\[" + _WS + rb"(?!\])"),
)


def message_parts(payload: Mapping[str, Any]) -> list[Part]:
    """A message line's parts: its text, its reasoning, its tool calls; a tool message's
    result (failed where it says ``is-error``). Its facts say as much (``V1Model``
    measures an item from them): the lines of ``raku_str(content)``, a reasoning part where
    the reasoning is truthy, a call for each tool-call object."""
    parts = [Part("text", raku_str(payload.get("content")))]
    reasoning = payload.get("reasoning")
    if reasoning:
        parts.append(Part("reasoning", raku_str(reasoning)))
    calls = payload.get("tool-calls")
    if isinstance(calls, list):
        for call in calls:
            if isinstance(call, dict):
                function = call.get("function")
                function = function if isinstance(function, dict) else {}
                parts.append(tool_call_part(call.get("id", ""), function.get("name", ""), function))
    tcid = payload.get("tool-call-id")
    if tcid is not None:
        failed = bool(payload.get("is-error"))
        parts = [Part("tool-result", parts[0].text, call_id=raku_str(tcid), is_error=failed)]
    return parts


def refused_parts(text: str) -> list[Part]:
    """A line a follow kept without applying it (``ReplayState.keep_refused``), as it
    is (the raw view's ``record``)."""
    return [Part("other", text, name=REFUSED)]


def unknown_parts(envelope: dict[str, Any], kind: str) -> list[Part]:
    """A line of a type this reader does not know, as it is (the raw view's ``record``)."""
    return [Part("other", compact_json(envelope), name=kind)]
