"""``CommittedView``: the committed conversation (message_end) of an agentgo session.

A Line API list over ``AgentGoView.messages``: only the messages on screen are
rendered. Each message is a header line and its body, folded to a few lines
(``enter`` expands it, wrapped to the width). Text is made inert first.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.cells import chop_cells
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType

from session_core.agentgo.view import AgentGoView, Committed, message_text, thinking_text
from session_core.text import count

from ..agentgo_model import compact_json, source_time, tool_calls
from ..heights import HeightIndex
from ..safe import inert, one_line
from .line_list import LineList, component_style

FOLDED_LINES = 4
BODY_LINE_LIMIT = 2000  # logical lines of one expanded message

FALLBACK_STYLES: dict[str, str] = {
    "committed--user": "bold white on blue",
    "committed--assistant": "bold white on green",
    "committed--tool_result": "bold black on yellow",
    "committed--other": "bold reverse",
    "committed--meta": "dim",
    "committed--body": "",
    "committed--thinking": "dim italic",
    "committed--call": "bold cyan",
    "committed--error": "bold red",
    "committed--fold": "dim italic",
    "committed--cursor": "bold magenta",
}

Line = tuple[str, str]  # (inert text, style name)


def body_lines(message: dict[str, Any]) -> list[Line]:
    """A message's body as logical lines: thinking, text, tool calls."""
    out: list[Line] = []
    thinking = thinking_text(message).strip()
    for line in thinking.split("\n") if thinking else ():
        out.append((inert(("thinking: " if not out else "          ") + line), "thinking"))
    text = message_text(message)
    style = "error" if message.get("is_error") else "body"
    if text:
        for line in text.split("\n"):
            out.append((inert(line), style))
    for cid, name, arguments in tool_calls(message):
        out.append((f"→ {name}({compact_json(arguments, 400)})  [{cid}]", "call"))
    return out


class CommittedView(LineList):
    """Committed messages of the chosen run (``None``: all runs), folded by default."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(FALLBACK_STYLES)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_fold", "Expand"),
        Binding("c", "copy", "Copy", show=False),
    ]

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = AgentGoView()
        self.run_id: str | None = None
        self.items: list[int] = []  # indices into view.messages
        self.heights: HeightIndex = HeightIndex()
        self.lengths: list[int] = []  # logical body lines per item
        self.expanded: set[int] = set()  # indices into view.messages
        self._seen = 0

    def _style(self, name: str) -> Style:
        return component_style(self, f"committed--{name}", FALLBACK_STYLES)

    # -- feeding ------------------------------------------------------------------

    def set_view(self, view: AgentGoView, run_id: str | None) -> None:
        self.view = view
        self.run_id = run_id
        self.items = []
        self.lengths = []
        self.heights = HeightIndex()
        self.expanded.clear()
        self._seen = 0
        self._catch_up()
        self.reset_items()

    def refresh_messages(self) -> None:
        before = len(self.items)
        at_end = self.is_at_end
        self._catch_up()
        self.items_appended(before, at_end)

    def _catch_up(self) -> None:
        messages = self.view.messages
        for index in range(self._seen, len(messages)):
            committed = messages[index]
            if self.run_id is not None and committed.run_id != self.run_id:
                continue
            self.items.append(index)
            self.lengths.append(committed.lines)  # taken as it was fed: nothing is read
            self.heights.append(self._height(len(self.items) - 1))
        self._seen = len(messages)

    # -- geometry -------------------------------------------------------------------

    def _height(self, item: int) -> int:
        length = self.lengths[item]
        if self.items[item] in self.expanded:
            return 2 + max(1, len(self._wrapped(item, self.content_width)))
        return 2 + max(1, min(length, FOLDED_LINES)) + (1 if length > FOLDED_LINES else 0)

    def width_changed(self) -> None:
        for item, index in enumerate(self.items):
            if index in self.expanded:
                self.heights.set(item, self._height(item))

    # -- rendering ------------------------------------------------------------------

    def committed(self, item: int) -> Committed:
        return self.view.messages[self.items[item]]

    def _wrapped(self, item: int, width: int) -> list[Line]:
        out: list[Line] = []
        inner = max(10, width - 3)
        for text, style in body_lines(self.committed(item).message)[:BODY_LINE_LIMIT]:
            chunks = chop_cells(text, inner) if text else [""]
            out.extend((chunk, style) for chunk in chunks)
        return out

    def item_lines(self, index: int, width: int, selected: bool) -> list[Text]:
        committed = self.committed(index)
        message = committed.message
        kind = one_line(message.get("kind") or "?", 20)
        kind_style = kind if kind in ("user", "assistant", "tool_result") else "other"
        gutter = Text()
        gutter.append("▌" if selected else " ", self._style("cursor") if selected else Style())
        header = gutter.copy()
        header.append(f" {kind} ", self._style(kind_style))
        run = self.view.runs.get(committed.run_id)
        meta = f"  seq {committed.seq} · {source_time(committed.time)}"
        if self.view.partial and self.run_id is None:
            meta = "  run … ·" + meta[1:]  # the file's end only, while the rest loads
        elif run is not None and self.run_id is None:
            meta = f"  run {run.index + 1} ·" + meta[1:]
        header.append(meta, self._style("meta"))
        if message.get("tool_call_id") is not None:
            header.append(f" · ↩ {one_line(message.get('tool_call_id'), 30)}", self._style("call"))
        if message.get("is_error"):
            header.append("  is_error", self._style("error"))
        if message.get("stop_reason"):
            header.append(f" · {one_line(message.get('stop_reason'), 20)}", self._style("meta"))
        usage = message.get("usage")
        if isinstance(usage, dict):
            header.append(f" · usage {compact_json(usage, 60)}", self._style("meta"))
        lines = [header]
        inner = max(10, width - 3)
        if self.items[index] in self.expanded:
            body = self._wrapped(index, width)
            more = 0
        else:
            logical = body_lines(message)
            body = [(one_line(text, inner), style) for text, style in logical[:FOLDED_LINES]]
            more = len(logical) - len(body)
        if not body and not more:
            lines.append(gutter.copy() + Text("  (no text)", self._style("fold")))
        for text, style in body:
            line = gutter.copy()
            line.append("  ")
            line.append(text, self._style(style))
            lines.append(line)
        if more:
            line = gutter.copy()
            line.append(
                f"  … {more} more line{'s' if more != 1 else ''} (enter)", self._style("fold")
            )
            lines.append(line)
        lines.append(Text(""))
        return lines

    # -- actions --------------------------------------------------------------------

    def action_toggle_fold(self) -> None:
        item = self.cursor
        if not 0 <= item < len(self.items):
            return
        self.expanded.symmetric_difference_update({self.items[item]})
        self.heights.set(item, self._height(item))
        self.remeasured(item)

    def action_copy(self) -> None:
        if not 0 <= self.cursor < len(self.items):
            return
        message = self.committed(self.cursor).message
        text = message_text(message)
        self.app.copy_to_clipboard(text)
        self.app.notify(f"Copied {count(len(text), 'character')} to the clipboard.")
