"""How an item's parts are drawn (``ItemParts``): each folded to its head, or in full
(capped), a tool call with its operation's state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text

from session_core.item_heights import FOLD_LINES, blank_head
from session_core.model import (
    Item,
    Part,
    ToolOp,
)
from session_core.parts import WordedPart, reasoning_said
from session_core.search import args_preview, call_arguments
from session_core.text import count, named, tool_name
from session_core.tool_ops import state_tone

from ..safe import one_line
from .block_view import BlockView, wrap
from .item_text import (
    BLANK_READ,
    arguments_shown,
    as_json,
    blank_note,
    capped,
    image_placeholder,
    is_cut,
    media_word,
    result_said,
)

PREVIEW_LINES = FOLD_LINES  # lines a folded text part shows
MAX_TEXT = 200_000  # characters an expanded part shows (the rest: copy it)


# A call whose id a later message's call took again: its operation is that call's.
REUSED_ID = "state not known: a later call has its id"


class ItemParts(BlockView):
    """Draws ``ops``'s calls and every other part, in the view's component styles."""

    ops: Mapping[str, ToolOp]

    def _s(self, name: str) -> Any:
        return self.component(f"items--{name}")

    def _op_state(self, part: Part, item: Item | None) -> tuple[str, str, str | None, str]:
        """A tool call's (label, tone, progress, state) from its operation: its id's last,
        unless that is a later message's call of the same id (a writer that numbers its
        calls again), whose state is not this call's."""
        op = self.ops.get(part.call_id or "")
        if op is None:
            return "no operation", "dim", None, ""
        if (
            item is not None
            and item.line
            and op.message_id not in (None, item.id)
            and (op.line or 0) > item.line
        ):
            return REUSED_ID, "dim", None, ""
        # (a call cut off keeps the last output it gave: what a crash left on screen)
        progress = op.progress if op.state in ("running", "interrupted") else None
        return op.label, state_tone(op.state), progress, op.state

    def _part_folded(self, part: Part, width: int, item: Item | None = None) -> list[Text]:
        room = max(10, width - 4)
        if part.kind == "text":
            lines = part.head.split("\n", PREVIEW_LINES)
            more = len(lines) > PREVIEW_LINES
            shown = [Text("  " + one_line(line, room), end="") for line in lines[:PREVIEW_LINES]]
            if blank_head(part.head):  # (blank lines say nothing: the rule ``text_rows`` uses)
                # (more that is blank too is a blank text: said so; a text longer than
                # its head is read whole to tell, up to BLANK_READ)
                head = part.head
                whole = head if part.size <= len(head) else None
                if whole is None and not head.strip() and part.size <= BLANK_READ:
                    whole = part.text
                blank = whole is not None and not whole.strip()
                note = blank_note(whole or "") if blank else "(blank lines, then more: enter)"
                # (the note alone, in the one row ``text_rows`` measures it at)
                return [Text("  " + note, self._s("dim"), end="")]
            elif more and not is_cut(lines[PREVIEW_LINES - 1], room):  # (a cut line's … says it)
                shown[-1].append(" …", self._s("dim"))
            return shown
        if part.kind == "reasoning":  # (of no text: nothing to expand, none offered)
            said = reasoning_said(part, f"{count(part.size, 'char')}; enter expands")
            return [Text(f"  ▸ {said}", self._s("reasoning"))]
        if part.kind == "tool-call":
            label, tone, progress, _state = self._op_state(part, item)
            line = Text("  → ", self._s("call"), end="")
            line.append(one_line(tool_name(part.name), 40), self._s("call"))
            line.append(f"  [{label}]  ", self._s(tone))
            line.append(one_line(call_arguments(part), room))
            if progress:  # (after what was called: its output hid the command)
                line.append(f"  {one_line(progress, 60)}", self._s("info"))
            line.truncate(width, overflow="ellipsis")
            return [line]
        if part.kind == "tool-result":
            line = Text("  ← ", self._s("bad" if part.is_error else "tool"), end="")
            line.append(
                "error  " if part.is_error else "result  ",
                self._s("bad" if part.is_error else "dim"),
            )
            head, goes_on, is_note = result_said(part, room)  # (the same plain and .zst)
            line.append(head, self._s("dim") if is_note else "")
            if goes_on:
                line.append(" …", self._s("dim"))
            line.truncate(width, overflow="ellipsis")
            return [line]
        if part.kind == "image":
            word = media_word(part.name)
            placeholder = image_placeholder(part.head or part.name or "", room, word)
            return [Text(f"  {placeholder}", self._s("image"))]
        body = part.head or args_preview(part.data)
        line = Text(f"  {one_line(named(part.name, part.kind), 30)}: ", self._s("record"), end="")
        line.append(one_line(body, room), self._s("record"))
        line.truncate(width, overflow="ellipsis")
        return [line]

    def _part_full(self, part: Part, width: int, item: Item | None = None) -> list[Text]:
        if part.kind == "text":
            if not part.text.strip():
                return [Text("  " + blank_note(part.text), self._s("dim"), end="")]
            return wrap(_capped(part.text), width, indent="  ", words=True)
        if part.kind == "reasoning":
            heading = [Text("  ▾ reasoning", self._s("reasoning"))]
            return heading + wrap(
                _capped(part.text), width, self._s("reasoning"), "    ", words=True
            )
        if part.kind == "tool-call":
            label, tone, progress, state = self._op_state(part, item)
            head = Text(f"  → {one_line(tool_name(part.name), 60)}", self._s("call"), end="")
            head.append(f"  [{label}]", self._s(tone))
            head.append(f"  {one_line(part.call_id or '', 60)}", self._s("dim"))
            lines = [head]
            lines += wrap(
                _capped(arguments_shown(part.data) if part.data is not None else part.text),
                width,
                indent="    ",
            )
            if progress:
                cut = state == "interrupted"
                said = "its last output, before it was cut off:" if cut else "progress:"
                lines.append(Text(f"    {said}", self._s("info")))
                lines += wrap(_capped(progress), width, indent="    ")
            return lines
        if part.kind == "tool-result":
            style = self._s("bad" if part.is_error else "tool")
            word = "error" if part.is_error else "result"
            head = Text(
                f"  ← {word} for {one_line(part.call_id or '?', 60)}",
                style,
            )
            if not part.text.strip():
                return [head, Text("    " + blank_note(part.text), self._s("dim"), end="")]
            return [head, *wrap(_capped(part.text), width, indent="    ")]
        if part.kind == "image":  # (its words; a text document's text after them)
            words, _, rest = part.text.partition("\n")
            shown = self._part_folded(Part("image", text=words, name=part.name), width, item)
            return [*shown, *wrap(_capped(rest), width, indent="    ")] if rest else shown
        head = Text(f"  {one_line(named(part.name, part.kind), 60)}:", self._s("record"))
        if type(part) is WordedPart:  # (its row's words, then what it says as written)
            head.append(f" {one_line(part.words, max(10, width - 4))}")
            head.truncate(width, overflow="ellipsis")
        body = part.text or as_json(part.data)
        return [head, *wrap(_capped(body), width, self._s("record"), "    ")]


def _capped(text: str) -> str:
    return capped(text, MAX_TEXT, "c copies all")
