"""A Line API list of items (one or more lines each) with a cursor: renders only what shows.

The agentgo conversation and timeline build on it. Subclasses say how many
items there are, how tall each is and what lines it renders; this class
scrolls, moves the cursor, sticks to the end when new items arrive while the
cursor is on the last one, and caches rendered strips (an ``LRUCache``, as Textual's
own ``Log`` does).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

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

CACHE_ITEMS = 400


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


class LineList(ScrollView, can_focus=True):
    """Items of a known height; ``render_line`` finds the item under a line and renders it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j,down", "move(1)", "Next", show=False),
        Binding("k,up", "move(-1)", "Previous", show=False),
        Binding("g,home", "first", "Top", show=False),
        Binding("G,end", "last", "Bottom", show=False),
        Binding("pagedown,space", "page(1)", "Page down", show=False),
        Binding("pageup,b", "page(-1)", "Page up", show=False),
    ]

    cursor: reactive[int] = reactive(-1, always_update=True)

    class Moved(Message):
        """The cursor moved (or the item under it changed)."""

        def __init__(self, view: LineList) -> None:
            super().__init__()
            self.view = view

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._cache: LRUCache[int, list[Strip]] = LRUCache(CACHE_ITEMS)
        self._width = 0

    # -- what subclasses provide ----------------------------------------------------

    def item_count(self) -> int:
        raise NotImplementedError

    def item_height(self, index: int) -> int:
        return 1

    def item_top(self, index: int) -> int:
        return index

    def item_at(self, y: int) -> int:
        return min(y, self.item_count() - 1)

    def total_height(self) -> int:
        return self.item_count()

    def item_lines(self, index: int, width: int, selected: bool) -> list[Text]:
        raise NotImplementedError

    def width_changed(self) -> None:
        """The width changed: recompute heights that depend on it."""

    # -- geometry -------------------------------------------------------------------

    def content_width(self) -> int:
        return max(20, (self.size.width or 80) - 1)

    def update_size(self) -> None:
        self.virtual_size = Size(self.size.width, self.total_height())

    @property
    def is_at_end(self) -> bool:
        return self.scroll_y >= self.max_scroll_y - 1

    def on_resize(self, event: events.Resize) -> None:
        if self.size.width != self._width:
            first_show = self._width == 0
            self._width = self.size.width
            if first_show and self.cursor == self.item_count() - 1:
                self.call_after_refresh(self.scroll_end, animate=False, immediate=True)
            self.width_changed()
            self._cache.clear()
        self.update_size()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()

    def watch_cursor(self, old: int, new: int) -> None:
        self._cache.discard(old)
        self._cache.discard(new)
        self.refresh()
        self.post_message(self.Moved(self))

    def invalidate(self, index: int | None = None) -> None:
        """Forget rendered strips (of one item, or all) and repaint."""
        if index is None:
            self._cache.clear()
        else:
            self._cache.discard(index)
        self.refresh()

    def reset_items(self) -> None:
        """The items were replaced: forget everything, cursor to the last item."""
        self._cache.clear()
        self.update_size()
        count = self.item_count()
        self.set_reactive(LineList.cursor, count - 1)
        self.scroll_end(animate=False, immediate=True)
        self.call_after_refresh(self._stick_to_end)  # once the new height is laid out
        self.refresh()
        self.post_message(self.Moved(self))

    def _stick_to_end(self) -> None:
        # Forced: until the new height is laid out, the scroll bar may not be there yet.
        if self.cursor == self.item_count() - 1:
            self.scroll_end(animate=False, immediate=True, force=True)

    def items_appended(self, before: int, was_at_end: bool) -> None:
        """Items ``before:`` are new: follow them if the cursor was on the last item."""
        self.update_size()
        count = self.item_count()
        if count == before:
            return
        if was_at_end or self.cursor >= before - 1:
            if self.cursor >= before - 1:
                self.cursor = count - 1
            self.scroll_end(animate=False, immediate=True)
            self.call_after_refresh(self._stick_to_end)
        self.refresh()

    def scroll_to_cursor(self) -> None:
        if not 0 <= self.cursor < self.item_count():
            return
        top = self.item_top(self.cursor)
        bottom = top + self.item_height(self.cursor)
        height = self.scrollable_content_region.height or self.size.height
        if top < self.scroll_y:
            self.scroll_to(y=top, animate=False, immediate=True)
        elif bottom > self.scroll_y + height:
            self.scroll_to(y=max(top, bottom - height), animate=False, immediate=True)

    def move_to(self, index: int) -> None:
        count = self.item_count()
        if not count:
            return
        self.cursor = max(0, min(index, count - 1))
        self.scroll_to_cursor()

    # -- rendering ------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        base = self.rich_style
        absolute = scroll_y + y
        if absolute >= self.total_height() or not self.item_count():
            return Strip.blank(width, base)
        index = self.item_at(absolute)
        strips = self._strips(index)
        offset = absolute - self.item_top(index)
        strip = strips[offset] if 0 <= offset < len(strips) else Strip.blank(width, base)
        return strip.crop_extend(scroll_x, scroll_x + width, base)

    def _strips(self, index: int) -> list[Strip]:
        cached = self._cache.get(index)
        if cached is not None:
            return cached
        console = self.app.console
        base = self.rich_style
        strips = []
        for line in self.item_lines(index, self.content_width(), index == self.cursor):
            line.stylize_before(base)
            line.no_wrap = True
            line.end = ""
            strips.append(Strip(list(line.render(console))).simplify())
        self._cache.set(index, strips)
        return strips

    def rendered_text(self, index: int) -> str:
        """The plain text an item renders to (for tests and copying)."""
        return "\n".join("".join(s.text for s in strip) for strip in self._strips(index))

    # -- actions --------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        self.move_to(self.cursor + step if self.cursor >= 0 else 0)

    def action_first(self) -> None:
        self.move_to(0)
        self.scroll_home(animate=False, immediate=True)

    def action_last(self) -> None:
        self.move_to(self.item_count() - 1)
        self.scroll_end(animate=False, immediate=True)

    def action_page(self, direction: int) -> None:
        count = self.item_count()
        if not count:
            return
        height = self.scrollable_content_region.height or self.size.height
        self.scroll_to(
            y=self.scroll_y + direction * max(1, height - 1), animate=False, immediate=True
        )
        top = min(max(0, int(self.scroll_y)), max(0, self.total_height() - 1))
        index = self.item_at(top)
        if self.item_top(index) < top and index + 1 < count:
            index += 1
        self.cursor = index

    def on_click(self, event: events.Click) -> None:
        if not self.item_count():
            return
        y = int(self.scroll_y) + event.y
        if 0 <= y < self.total_height():
            self.cursor = self.item_at(y)
            self.focus()
