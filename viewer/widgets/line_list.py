"""``LineList``: the Line-API base of every scroll view (Textual's ``Log`` is the model).

A list of items, each one or more lines tall, with a cursor on one item. Subclasses
say how tall the items are (``heights``, see ``viewer.heights``) and what lines one
renders (``item_lines``); this class draws only the lines on screen, caches rendered
items in an ``LRUCache``, moves the cursor and pages, and sticks to the end: being
scrolled to the end is following it, scrolling away stops it.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from rich.console import Console
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
from textual.widget import Widget

from session_core.fold import spans

from ..heights import HeightIndex, Heights
from ..safe import one_line


def component_style(widget: Widget, component: str, fallback: Mapping[str, str]) -> Style:
    """A component class's style, or a fallback when the stylesheet lacks it."""
    try:
        style = widget.get_component_rich_style(component, partial=True)
    except KeyError:
        style = Style()
    if style:
        return style
    spec = fallback.get(component, "")
    return Style.parse(spec) if spec else Style()


JUMP_ROOM = 4  # lines kept below where a jump lands: a toast's height (``jump_to``)

_JUMP_LABELS = {"call": "tool call", "error": "error", "compaction": "compaction"}


def jump_failed(what: str, direction: int, on_one: bool = False) -> str:
    """What to tell the user when a jump (a call, an error, a compaction) finds nothing."""
    return nothing_more(jump_label(what), direction, on_one)


def nothing_more(what: str, direction: int, on_one: bool) -> str:
    """ "No ``what`` after the cursor." (or before it); "after this one" where the cursor
    is on one (on a compaction's summary, "after the cursor" read as if it were not one),
    never where it is not (there "this one" read as a reference to one not there)."""
    where = "after" if direction > 0 else "before"
    return f"No {what} {where} {'this one' if on_one else 'the cursor'}."


def jump_label(what: str) -> str:
    """What a jump looks for, in words."""
    return _JUMP_LABELS[what]


def highlight(line: Text, term: str, style: Style) -> None:
    """Every occurrence of ``term`` (folded: any case) in ``line`` styled as a match."""
    for start, end in spans(line.plain, term):
        line.stylize(style, start, end)


EMPTY_INDENT = " "  # a note's rows begin past the cursor's column, where a row's text does


def empty_lines(note: str | None, width: int, console: Console) -> list[Text]:
    """What an empty list or table says in its first rows (every tab's one rule): ``note``,
    dim, wrapped to ``width`` past the cursor's column (``EMPTY_INDENT``), as a table's
    header and a row's text begin (at column 0, under a header one cell in, it read as
    another tab's)."""
    if not note or width <= len(EMPTY_INDENT):
        return []
    said = Text(note, style="dim", end="")
    lines = said.wrap(console, width - len(EMPTY_INDENT))
    return [Text(EMPTY_INDENT, end="") + line for line in lines]


class LineList(ScrollView, can_focus=True):
    """Items ``0 .. len(heights) - 1``; ``render_line`` finds the item under a line."""

    GUTTER: ClassVar[int] = 1  # cells left of the content (the cursor's bar)
    HEADER: ClassVar[int] = 0  # lines that stay put above the items (a table's header)
    CACHE_ITEMS: ClassVar[int] = 400  # rendered items kept
    # a component class's style where the stylesheet (a user's theme) gives it none
    FALLBACK_STYLES: ClassVar[Mapping[str, str]] = {}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "move(1)", "Next", show=False),
        Binding("k,up", "move(-1)", "Previous", show=False),
        Binding("g,home", "first", "Top", show=False),
        Binding("G,end", "last", "Bottom", show=False),
        Binding("pagedown,space", "page(1)", "Page down", show=False),
        Binding("pageup,b", "page(-1)", "Page up", show=False),
    ]

    cursor: reactive[int] = reactive(-1, always_update=True, init=False)

    @dataclass
    class Moved(Message):
        """The cursor moved (or the items changed under it)."""

        view: LineList

        @property
        def control(self) -> LineList:
            return self.view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.heights: Heights = HeightIndex()
        self._cache: LRUCache[int, list[Strip]] = LRUCache(self.CACHE_ITEMS)
        self._empty: tuple[int, list[Text]] | None = None  # (``_empty_lines``: width, lines)
        self._base: Style | None = None  # ``rich_style``, until the styles change
        self._styles: dict[str, Style] = {}  # component classes' styles, likewise
        self._width = 0
        self._page_rows = 0  # ``page_height`` at the last resize
        self._unsized_scroll = False  # the cursor was moved before the widget had a size
        self.stick_to_end = False
        self.matches: list[int] = []  # the items a search found, in order
        self.match_pos = -1  # the match the cursor was last moved to

    # -- what a subclass says -------------------------------------------------------

    def item_lines(self, index: int, width: int, selected: bool) -> list[Text]:
        """Item ``index``'s lines, at most its height of them, ``width`` cells wide."""
        raise NotImplementedError

    def width_changed(self) -> None:
        """The width changed: measure again the heights that depend on it."""

    def moved(self) -> Message:
        """The message the cursor's moves post."""
        return self.Moved(self)

    def header_strip(self, y: int) -> Strip:
        """Line ``y`` of the ``HEADER`` lines."""
        raise NotImplementedError

    def virtual_width(self) -> int:
        """How wide the lines are (0: cut to the width, nothing to scroll across)."""
        return 0

    def crop(self, strip: Strip, scroll_x: int, width: int) -> Strip:
        """The part of a line on screen."""
        return strip.crop_extend(scroll_x, scroll_x + width, self.base_style)

    def component(self, name: str) -> Style:
        """Component class ``name``'s style (``FALLBACK_STYLES``' where the stylesheet has
        none), kept until the styles change: each line drawn asks for several."""
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = component_style(self, name, self.FALLBACK_STYLES)
        return style

    @property
    def base_style(self) -> Style:
        """The widget's own style, which every line drawn asks for: Textual's
        ``rich_style`` works it out through every ancestor each time (a fifth of a fast
        follow's drawing), so it is kept until the styles change."""
        if self._base is None:
            self._base = self.rich_style
        return self._base

    # -- geometry -------------------------------------------------------------------

    def item_count(self) -> int:
        return len(self.heights)

    @property
    def content_width(self) -> int:
        """The cells a line's content has: the width, but the scrollbar and the gutter (a
        line drawn under the scrollbar lost its last cells)."""
        width = self.scrollable_content_region.width or self.size.width or 80
        return max(20, width - self.GUTTER)

    def update_size(self) -> None:
        self.virtual_size = Size(self.virtual_width(), self.heights.total + self.HEADER)
        self._empty = None  # (the items changed, or were measured again: so may the note)

    @property
    def page_height(self) -> int:
        """Lines of items on screen."""
        return max(1, (self.scrollable_content_region.height or self.size.height) - self.HEADER)

    @property
    def is_at_end(self) -> bool:
        return self.scroll_y >= self.max_scroll_y - 1

    @property
    def follows_end(self) -> bool:
        """New items move the cursor to the last one: the view is at its end with the
        cursor on the last item (or nowhere)."""
        return self.stick_to_end and (self.cursor < 0 or self.cursor >= self.item_count() - 1)

    def on_resize(self, event: events.Resize) -> None:
        if self.size.width != self._width:
            self._width = self.size.width
            self.width_changed()
            self._cache.clear()
        self.update_size()
        rows, self._page_rows = self._page_rows, self.page_height
        if self._unsized_scroll:
            self._unsized_scroll = False
            self.call_after_refresh(self.scroll_to_cursor)
        if self.follows_end:  # taller or shorter: the end moved
            self.call_after_refresh(self._keep_end)
        elif self._page_rows < rows and self._cursor_within(rows):
            # Shorter (a pane below it grew): the cursor's item, shown before, stays shown.
            self.call_after_refresh(self.scroll_to_cursor)

    def _cursor_within(self, rows: int) -> bool:
        """The cursor's item was wholly on a view ``rows`` high, at the current scroll."""
        if not 0 <= self.cursor < len(self.heights):
            return False
        top = self.heights.prefix(self.cursor)
        return (
            self.scroll_y <= top and top + self.heights.height(self.cursor) <= self.scroll_y + rows
        )

    def _keep_end(self) -> None:
        """The end, kept on screen after a resize, unless the cursor left it meanwhile: a
        search that lands as its bar closes (the view grows) is not sent back to the end."""
        if self.follows_end:
            self.scroll_to_end()

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.stick_to_end = self.is_at_end

    def watch_cursor(self, old: int, new: int) -> None:
        self._cache.discard(old)
        self._cache.discard(new)
        self.refresh()
        self.post_message(self.moved())

    def invalidate(self, index: int | None = None) -> None:
        """Forget rendered items (one, or all) and repaint."""
        if index is None:
            self._cache.clear()
            self._empty = None
        else:
            self._cache.discard(index)
        self.refresh()

    def reset_items(self) -> None:
        """The items were replaced: forget everything, cursor to the last item."""
        self._cache.clear()
        self._empty = None
        self.update_size()
        self.set_reactive(LineList.cursor, self.item_count() - 1)
        self.stick_to_end = True
        self.follow_end()
        self.refresh()
        self.post_message(self.moved())

    def items_appended(self, before: int, was_at_end: bool) -> int:
        """Items ``before:`` are new: follow them if the view followed the end. Returns
        how many are new."""
        self.update_size()
        count = self.item_count()
        if count == before:
            return 0
        if was_at_end or self.cursor >= before - 1:
            if self.cursor >= before - 1:
                self.cursor = count - 1
            self.follow_end()
        self.refresh()
        return count - before

    def follow_end(self) -> None:
        self.scroll_end(animate=False, immediate=True)
        self.end_once_laid_out()

    def end_once_laid_out(self) -> None:
        """At the end again once the new height is laid out, unless a key moved the cursor
        or the view meanwhile: a fast writer's appends queue this nearly always, and a
        ``g``, a PageUp or a search landing before it runs is not thrown back to the end."""
        cursor = self.cursor

        def again() -> None:
            if self.stick_to_end and self.cursor == cursor:
                self.scroll_to_end()

        self.call_after_refresh(again)

    def scroll_to_end(self) -> None:
        # Forced: right after the items grew, the scrollbar (which allows a scroll) may
        # not be laid out yet.
        self.scroll_to(y=self.max_scroll_y, animate=False, force=True, immediate=True)
        self.stick_to_end = True

    def scroll_to_cursor(self) -> None:
        index = self.cursor
        if not 0 <= index < self.item_count():
            return
        if not self.size.height:  # (not laid out: its page of 1 row scrolled agentgo's
            self._unsized_scroll = True  # first call to the top, its run's row above it)
            return
        top = self.heights.prefix(index)
        bottom = top + self.heights.height(index)
        height = self.page_height
        # (forced: rows just come may call for a scrollbar not laid out yet, and Textual
        # ignores a scroll of a widget that shows none; the offset is still bounded)
        if top < self.scroll_y or bottom - top > height:
            self.scroll_to(y=top, animate=False, force=True, immediate=True)
        elif bottom > self.scroll_y + height:
            self.scroll_to(y=bottom - height, animate=False, force=True, immediate=True)

    def cursor_screen_row(self) -> int | None:
        """The row of the screen the cursor's item starts on (None: no cursor)."""
        if not 0 <= self.cursor < len(self.heights):
            return None
        return self.heights.prefix(self.cursor) - int(self.scroll_y)

    def cursor_to_screen_row(self, row: int) -> None:
        """Scroll so that the cursor's item starts on screen row ``row`` (as near as the
        rows above it allow), and is on screen whatever its height."""
        if not 0 <= self.cursor < len(self.heights):
            return
        top = max(0, self.heights.prefix(self.cursor) - max(0, row))
        self.scroll_to(y=top, animate=False, immediate=True)
        self.scroll_to_cursor()

    def move_to(self, index: int) -> None:
        count = self.item_count()
        if not count:
            return
        self.cursor = max(0, min(index, count - 1))
        self.scroll_to_cursor()
        if self.cursor == count - 1:
            self.stick_to_end = True

    def jump_to(self, index: int) -> None:
        """``move_to`` for a jump (a match, the next failed call), with ``JUMP_ROOM``
        lines kept below it where it lands low on screen: the toast that a jump past
        the last one brings (bottom right) hid the row the one before had moved to."""
        self.move_to(index)
        top = self.heights.prefix(self.cursor)
        bottom = top + self.heights.height(self.cursor)
        height = self.page_height
        room = min(JUMP_ROOM, height - (bottom - top))
        if room > 0 and bottom > self.scroll_y + height - room:
            self.scroll_to(y=bottom - height + room, animate=False, immediate=True)

    def item_at(self, y: int) -> int:
        return self.heights.find(max(0, min(y, self.heights.total - 1)))

    # -- jumps and matches ----------------------------------------------------------

    def jump(self, found: Callable[[int], bool], direction: int) -> bool:
        """The cursor to the next item (``direction`` 1) or the previous one (-1) that is
        ``found``; False when there is none."""
        count = self.item_count()
        start = self.cursor if self.cursor >= 0 else (-1 if direction > 0 else count)
        index = start + direction
        while 0 <= index < count:
            if found(index):
                self.jump_to(index)
                return True
            index += direction
        return False

    def jump_or_say(self, found: Callable[[int], bool], direction: int, what: str) -> bool:
        """``jump``; where there is none, the user is told so (``nothing_more``): "No
        ``what`` after the cursor." (``what``: a noun and what it is, "run that did not
        finish")."""
        if self.jump(found, direction):
            return True
        on_one = 0 <= self.cursor < self.item_count() and found(self.cursor)
        self.notify(nothing_more(what, direction, on_one), timeout=2)
        return False

    def first_match(self) -> None:
        """The cursor to the first match at or after it (else the first of all)."""
        if self.matches:
            after = [i for i, m in enumerate(self.matches) if m >= max(self.cursor, 0)]
            self.match_pos = after[0] if after else 0
            self.jump_to(self.matches[self.match_pos])

    def is_match(self, index: int) -> bool:
        """Whether the search found item ``index``."""
        matches = self.matches
        at = bisect.bisect_left(matches, index)
        return at < len(matches) and matches[at] == index

    def search_said(self, term: str, searching: tuple[int, int] | None) -> str:
        """What the header says of a search of ``term`` here (empty: none): how far one
        under way has looked (``searching``: rows looked, matches found), else where the
        cursor is among the matches: ``2/5``, ``–/5`` on none of them, ``none``. (Each
        search said it its own way: ``0/0`` or ``none``, and ``–/5`` of a match the
        cursor had reached by other keys than ``n``.)"""
        if not term:
            return ""
        said = f"/{one_line(term, 30)}: "
        if searching is not None:
            looked, found = searching
            done = 100 * looked // max(self.item_count(), 1)
            return f"{said}searching {done}% · {found:,} so far"
        matches = self.matches
        if not matches:
            return said + "none"
        on = self.is_match(self.cursor)
        return f"{said}{bisect.bisect_left(matches, self.cursor) + 1 if on else '–'}/{len(matches)}"

    def step_match(self, direction: int) -> bool:
        """The cursor to the next or the previous match, round the end; False: none."""
        if not self.matches:
            return False
        if direction > 0:
            later = [i for i, m in enumerate(self.matches) if m > self.cursor]
            self.match_pos = later[0] if later else 0
        else:
            earlier = [i for i, m in enumerate(self.matches) if m < self.cursor]
            self.match_pos = earlier[-1] if earlier else len(self.matches) - 1
        self.jump_to(self.matches[self.match_pos])
        return True

    # -- actions --------------------------------------------------------------------

    def holds_cursor(self, index: int) -> bool:
        """Whether the cursor may rest on item ``index`` (not a blank spacer row)."""
        return True

    def _holding(self, index: int, step: int) -> int:
        """``index``, or the nearest item past it in ``step``'s direction that may hold
        the cursor (else the nearest the other way; ``index`` where there is none)."""
        count = self.item_count()
        for direction in (step or 1, -(step or 1)):
            at = index
            while 0 <= at < count:
                if self.holds_cursor(at):
                    return at
                at += direction
        return index

    def action_move(self, step: int) -> None:
        index = self.cursor + step if self.cursor >= 0 else 0
        self.move_to(self._holding(max(0, min(index, self.item_count() - 1)), step))

    def action_first(self) -> None:
        self.move_to(0)
        self.scroll_home(animate=False, immediate=True)

    def action_last(self) -> None:
        self.move_to(self.item_count() - 1)
        self.scroll_to_end()

    def action_page(self, direction: int) -> None:
        self.scroll_to(
            y=self.scroll_y + direction * max(1, self.page_height - 1),
            animate=False,
            immediate=True,
        )
        if not self.item_count():
            return
        top = int(self.scroll_y)
        index = self.item_at(top)
        if self.heights.prefix(index) < top and index + 1 < self.item_count():
            index += 1  # the first item that starts on screen
        self.cursor = self._holding(index, 1)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not self.item_count():
            return
        y = int(self.scroll_y) + offset.y - self.HEADER
        if 0 <= y < self.heights.total and offset.y >= self.HEADER:
            self.cursor = self._holding(self.item_at(y), 1)
            self.focus()

    # -- drawing --------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base = None
        self._styles.clear()
        self._cache.clear()
        self._empty = None

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        if y < self.HEADER:
            return self.crop(self.header_strip(y), scroll_x, width)
        absolute = scroll_y + y - self.HEADER
        if absolute >= self.heights.total:
            said = self._empty_lines(width) if self.heights.total == 0 else []
            if absolute < len(said):
                text = said[absolute]
                text.stylize_before(self.base_style)
                return Strip(list(text.render(self.app.console))).crop(0, width).simplify()
            return Strip.blank(width, self.base_style)
        index = self.heights.find(absolute)
        strips = self.item_strips(index)
        offset = absolute - self.heights.prefix(index)
        if not 0 <= offset < len(strips):
            return Strip.blank(width, self.base_style)
        return self.crop(strips[offset], scroll_x, width)

    def _empty_lines(self, width: int) -> list[Text]:
        """Nothing to show, and why (``empty_note``), wrapped to the width (at 80 columns
        one row cut the note's key hint off): made once for the rows of a draw, not for
        each (a filter's note may count every item), until the items are shown again."""
        if self._empty is None or self._empty[0] != width:
            self._empty = (width, empty_lines(self.empty_note(), width, self.app.console))
        return self._empty[1]

    def empty_note(self) -> str | None:
        """What an empty list says in its first row (None: nothing)."""
        return None

    def item_strips(self, index: int) -> list[Strip]:
        strips = self._cache.get(index)
        if strips is None:
            console = self.app.console
            base = self.base_style
            strips = []
            lines = self.item_lines(index, self.content_width, index == self.cursor)
            for line in lines[: self.heights.height(index)]:
                line.stylize_before(base)
                line.end = ""
                strips.append(Strip(list(line.render(console))).simplify())
            self._cache[index] = strips
        return strips

    def rendered_text(self, index: int) -> str:
        """The plain text an item renders to (for tests and copying)."""
        return "\n".join("".join(s.text for s in strip) for strip in self.item_strips(index))


__all__ = [
    "EMPTY_INDENT",
    "LineList",
    "component_style",
    "empty_lines",
    "highlight",
    "jump_failed",
    "nothing_more",
]
