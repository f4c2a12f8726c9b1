"""``BlockView``: a Line-API list of blocks of varying height, drawn a line at a time.

The model screen's panes (conversation, diff, details) hold 100,000s of blocks for a
big file: each block's height is asked for cheaply (``block_height``), its lines only
when it is on screen (``block_lines``), and rendered strips sit in a small LRU cache.
Heights are kept as a prefix-sum list rebuilt with ``accumulate`` (C speed) per update.
``LinesView`` is the simple case: one wrapped line of text per block.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Hashable, Sequence
from itertools import accumulate
from typing import ClassVar

from rich.cells import chop_cells
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..safe import inert

MAX_WRAPPED = 400  # lines one wrapped line may take (a 1 MB line is not drawn in full)


class BlockView(ScrollView, can_focus=True):
    """Blocks ``0 .. block_count() - 1``, a cursor on one, sticking to the end when there."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "block-view--cursor",
        "block-view--match",
    }

    DEFAULT_CSS = """
    BlockView {
        height: 1fr;
        background: $surface;
        & > .block-view--cursor { color: $accent; text-style: bold; }
        & > .block-view--match { background: $warning 40%; text-style: bold; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "move(1)", "Next", show=False),
        Binding("k,up", "move(-1)", "Previous", show=False),
        Binding("g,home", "first", "Top", show=False),
        Binding("G,end", "last", "Bottom", show=False),
        Binding("pagedown,space", "page(1)", "Page down", show=False),
        Binding("pageup,b", "page(-1)", "Page up", show=False),
    ]

    cursor: reactive[int] = reactive(-1, always_update=True, init=False)

    class Moved(Message):
        """The cursor moved (or the blocks changed under it)."""

        def __init__(self, view: BlockView) -> None:
            super().__init__()
            self.view = view

        @property
        def control(self) -> BlockView:
            return self.view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._heights: list[int] = []
        self._tops: list[int] = [0]
        self._cache: LRUCache[int, list[Strip]] = LRUCache(300)
        self._width = 0
        self.stick_to_end = False
        self.highlight = ""  # a search term shown highlighted (lower case)

    # -- what a subclass says -------------------------------------------------------

    def block_count(self) -> int:
        return 0

    def block_height(self, index: int, width: int) -> int:
        return len(self.block_lines(index, width))

    def block_lines(self, index: int, width: int) -> list[Text]:
        raise NotImplementedError

    def block_heights(self, count: int, width: int) -> list[int] | None:
        """Every block's height at once, where a subclass knows them faster (None: ask
        ``block_height`` for each)."""
        return None

    def block_key(self, index: int) -> Hashable:
        """What identifies a block across updates (the cursor stays on it)."""
        return index

    def block_marked(self, index: int) -> bool:
        """A block drawn with a bar in its gutter (folded by a compaction, ...)."""
        return False

    # -- geometry -------------------------------------------------------------------

    @property
    def content_width(self) -> int:
        return max(20, (self.size.width or 80) - 2)

    def reload(self, *, keep_key: Hashable | None = None, to_end: bool | None = None) -> None:
        """The blocks changed: measure them again and keep the cursor on its block.

        ``to_end``: put the cursor on the last block (None: when it was there).
        """
        at_end = self.follows_end if to_end is None else to_end
        old = self.cursor
        if keep_key is None and 0 <= old < len(self._heights):
            keep_key = self._safe_key(old)
        count = self.block_count()
        width = self.content_width
        heights = self.block_heights(count, width)
        self._heights = (
            heights if heights is not None else [self.block_height(i, width) for i in range(count)]
        )
        self._tops = [0, *accumulate(self._heights)]
        self._cache.clear()
        self.virtual_size = Size(0, self._tops[-1])  # lines are cut to the width: no x scroll
        if count == 0:
            self.cursor = -1
        elif at_end:
            self.cursor = count - 1
            self.stick_to_end = True
            self.call_after_refresh(self.scroll_to_end)
        elif keep_key is not None:
            self.cursor = self._find_key(keep_key, old)
        elif old >= count:
            self.cursor = count - 1
        self.refresh()
        self.post_message(self.Moved(self))

    def _safe_key(self, index: int) -> Hashable | None:
        try:
            return self.block_key(index)
        except IndexError:
            return None

    def _find_key(self, key: Hashable, near: int) -> int:
        count = len(self._heights)
        if 0 <= near < count and self.block_key(near) == key:
            return near
        for index in range(count):
            if self.block_key(index) == key:
                return index
        return max(0, min(near, count - 1))

    def remeasure(self, index: int) -> None:
        """One block's height changed (folded or expanded)."""
        if not 0 <= index < len(self._heights):
            return
        self._heights[index] = self.block_height(index, self.content_width)
        self._tops = [0, *accumulate(self._heights)]
        self._cache.discard(index)
        self.virtual_size = Size(0, self._tops[-1])  # lines are cut to the width: no x scroll
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        if self.size.width != self._width:
            self._width = self.size.width
            self.reload(to_end=self.follows_end)
        elif self.follows_end:  # taller or shorter: the end moved
            self.call_after_refresh(self.scroll_to_end)

    @property
    def follows_end(self) -> bool:
        count = len(self._heights)
        return self.stick_to_end and (self.cursor < 0 or self.cursor >= count - 1)

    @property
    def is_at_end(self) -> bool:
        return self.scroll_y >= self.max_scroll_y - 1

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        # Being at the end is what follows the end; scrolling away stops it.
        self.stick_to_end = self.is_at_end

    def watch_cursor(self, old: int, new: int) -> None:
        self._cache.discard(old)
        self._cache.discard(new)
        self.refresh()
        self.post_message(self.Moved(self))

    def scroll_to_end(self) -> None:
        # Forced: right after the blocks grew, the scrollbar (which allows a scroll) may
        # not be laid out yet.
        self.scroll_to(y=self.max_scroll_y, animate=False, force=True, immediate=True)

    def top_of(self, index: int) -> int:
        return self._tops[index]

    def scroll_to_cursor(self) -> None:
        index = self.cursor
        if not 0 <= index < len(self._heights):
            return
        top, bottom = self._tops[index], self._tops[index + 1]
        height = self.scrollable_content_region.height or self.size.height
        if top < self.scroll_y or bottom - top > height:
            self.scroll_to(y=top, animate=False, force=True, immediate=True)
        elif bottom > self.scroll_y + height:
            self.scroll_to(y=bottom - height, animate=False, force=True, immediate=True)

    def move_to(self, index: int) -> None:
        count = len(self._heights)
        if not count:
            return
        self.cursor = max(0, min(index, count - 1))
        self.scroll_to_cursor()
        if self.cursor == count - 1:
            self.stick_to_end = True

    # -- actions --------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        self.move_to(self.cursor + step if self.cursor >= 0 else 0)

    def action_first(self) -> None:
        self.move_to(0)
        self.scroll_home(animate=False, immediate=True)

    def action_last(self) -> None:
        self.move_to(len(self._heights) - 1)
        self.scroll_to_end()
        self.stick_to_end = True

    def action_page(self, direction: int) -> None:
        height = self.scrollable_content_region.height or self.size.height
        self.scroll_to(
            y=self.scroll_y + direction * max(1, height - 1), animate=False, immediate=True
        )
        if self._heights:
            self.cursor = self._block_at(int(self.scroll_y))

    def _block_at(self, y: int) -> int:
        return max(0, min(bisect_right(self._tops, y) - 1, len(self._heights) - 1))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and self._heights:
            y = int(self.scroll_y) + offset.y
            if y < self._tops[-1]:
                self.cursor = self._block_at(y)

    # -- drawing --------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def component_style(self, name: str) -> Style:
        return self.get_component_rich_style(name, partial=True)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        absolute = scroll_y + y
        if absolute >= self._tops[-1]:
            return Strip.blank(width, self.rich_style)
        index = self._block_at(absolute)
        strips = self._cache.get(index)
        if strips is None:
            strips = self._render_block(index)
            self._cache[index] = strips
        offset = absolute - self._tops[index]
        strip = strips[offset] if offset < len(strips) else Strip.blank(width, self.rich_style)
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style)

    def _render_block(self, index: int) -> list[Strip]:
        lines = self.block_lines(index, self.content_width)
        height = self._heights[index] if index < len(self._heights) else len(lines)
        selected = index == self.cursor
        mark = "▌ " if selected else ("┃ " if self.block_marked(index) else "  ")
        gutter = self.component_style("block-view--cursor") if selected else Style(dim=True)
        match = self.component_style("block-view--match")
        console = self.app.console
        base = self.rich_style
        strips: list[Strip] = []
        for line in lines[:height]:
            if self.highlight:
                _highlight(line, self.highlight, match)
            text = Text(mark, style=gutter, end="") + line
            text.stylize_before(base)
            strips.append(Strip(list(text.render(console))).simplify())
        return strips


def _highlight(line: Text, term: str, style: Style) -> None:
    plain = line.plain.lower()
    start = plain.find(term)
    while start >= 0:
        line.stylize(style, start, start + len(term))
        start = plain.find(term, start + len(term))


def wrap(text: str, width: int, style: str | Style = "", indent: str = "") -> list[Text]:
    """``text`` (made inert) as lines of at most ``width`` cells, cut by cells, not words."""
    out: list[Text] = []
    room = max(1, width - len(indent))
    for raw in inert_lines(text):
        for chunk in chop_cells(raw, room)[:MAX_WRAPPED] or [""]:
            out.append(Text(indent + chunk, style=style, end="", no_wrap=True))
    return out


def inert_lines(text: str) -> list[str]:
    """``text``'s lines, each made inert (control characters shown, never obeyed)."""
    return [inert(line) for line in text.split("\n")]


Entry = tuple[str, str]  # (style, text): one logical line of a ``LinesView``


class LinesView(BlockView):
    """Blocks that are lines of text, each wrapped to the width (details, the diff)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: Sequence[Entry] = ()

    def set_entries(self, entries: Sequence[Entry], *, to_end: bool = False) -> None:
        self.entries = entries
        self.reload(to_end=to_end)
        if not to_end:
            self.cursor = 0 if entries else -1
            self.scroll_home(animate=False, immediate=True)

    def block_count(self) -> int:
        return len(self.entries)

    def block_height(self, index: int, width: int) -> int:
        _style, text = self.entries[index]
        if 2 * len(text) < width and "\n" not in text:
            return 1  # short enough whatever its characters' widths
        return len(wrap(text, width))

    def block_lines(self, index: int, width: int) -> list[Text]:
        style, text = self.entries[index]
        return wrap(text, width, style)

    def plain(self) -> str:
        return "\n".join(text for _style, text in self.entries)


__all__ = ["BlockView", "Entry", "LinesView", "inert_lines", "wrap"]
