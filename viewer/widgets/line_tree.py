"""``LineTree``: a tree drawn a line at a time, for trees that grow by tens of thousands.

Textual's ``Tree`` lays out every line again (a ``_TreeLine`` and a measure per
node) after any change, and looks through every line for a relabelled node: a
followed agentgo session's call tree, 20,000 calls deep into a 1 GB file, spent
most of the UI thread there. This tree keeps its visible rows as a list. A node
added under the last row's branch (what a growing run does) is appended to it; any
other change marks the rows stale, and they are laid out again, once, when next
asked for. Only the lines on screen are rendered, through ``LineList``'s cache.

Nodes are keyed by the owner's data (any hashable); labels are ``Text`` (never parsed
as markup). Every node starts expanded.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import ClassVar, Generic, TypeVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip

from ..heights import Uniform
from .line_list import LineList

K = TypeVar("K", bound=Hashable)

GUIDE_SPACE, GUIDE_LINE, GUIDE_LAST, GUIDE_CROSS = "   ", "│  ", "└─ ", "├─ "
TOGGLE_OPEN, TOGGLE_SHUT = "▼ ", "▶ "
# The cursor's row begins with ``▌`` (as a table's does): not told by colour alone.
CURSOR_MARK, NO_MARK = "▌", " "


class _Node(Generic[K]):
    __slots__ = ("children", "depth", "expanded", "key", "label", "parent")

    def __init__(self, key: K, label: Text, parent: _Node[K] | None) -> None:
        self.key = key
        self.label = label
        self.parent = parent
        self.children: list[_Node[K]] = []
        self.expanded = True
        self.depth: int = 0 if parent is None else parent.depth + 1


class _Rows(Uniform):
    """The tree's visible rows as ``LineList`` heights (one line each); asking for their
    count lays stale rows out first, so every path of the base class sees a settled
    tree."""

    def __init__(self, tree: LineTree[K]) -> None:  # (no count kept: the tree's is read)
        self._tree = tree
        self.each = 1

    @property
    def count(self) -> int:  # type: ignore[override]
        return len(self._tree._visible_rows())


class LineTree(LineList, Generic[K]):
    """Nodes keyed by ``K`` under top-level nodes (no root shown), with a cursor row."""

    GUTTER: ClassVar[int] = 0

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "line-tree--cursor",
        "line-tree--guides",
        "line-tree--toggle",
    }

    DEFAULT_CSS = """
    LineTree {
        background: $surface;
        color: $foreground;
        & > .line-tree--guides { color: $primary 50%; }
        & > .line-tree--toggle { color: $accent; }
        & > .line-tree--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .line-tree--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "fold", "Fold / unfold", show=False),
        Binding("left", "shut_or_parent", "Fold, or to the parent", show=False),
        Binding("right", "open_or_child", "Unfold, or to the first child", show=False),
    ]

    @dataclass
    class Highlighted(Message):
        """The cursor is on the node ``key`` (or on no node: ``None``)."""

        tree: LineTree[Hashable]
        key: Hashable | None

        @property
        def control(self) -> LineTree[Hashable]:
            return self.tree

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._by_key: dict[K, _Node[K]] = {}
        self._top: list[_Node[K]] = []
        self._rows: list[_Node[K]] = []
        self._row_of: dict[K, int] = {}
        self._stale = False  # rows to lay out again before they are read
        self._sized = 0  # the row count the virtual size was last set for
        self.heights = _Rows(self)

    # -- building -------------------------------------------------------------------

    def __contains__(self, key: object) -> bool:
        return key in self._by_key

    def add(self, key: K, label: Text, parent: K | None = None) -> None:
        """A node ``key`` as the last child of ``parent`` (``None``: at the top level)."""
        if key in self._by_key:
            raise ValueError(f"{key!r} is in the tree already")
        above = None if parent is None else self._by_key[parent]
        node = _Node(key, label, above)
        self._by_key[key] = node
        (self._top if above is None else above.children).append(node)
        self._cache.clear()  # (siblings' guides and a parent's toggle change)
        self.refresh()
        if self._stale or not self._shown(node):
            return
        if above is None or self._ends_rows(above):
            self._row_of[key] = len(self._rows)
            self._rows.append(node)
        else:
            self._stale = True  # (inside the rows: laid out again when next read)

    def set_label(self, key: K, label: Text) -> None:
        node = self._by_key[key]
        node.label = label
        row = self._row_of.get(key)
        if not self._stale and row is not None:
            self.invalidate(row)

    def label_of(self, key: K) -> Text:
        return self._by_key[key].label

    def clear(self) -> None:
        self._by_key.clear()
        self._top.clear()
        self._rows.clear()
        self._row_of.clear()
        self._stale = False
        self._sized = 0
        self.set_reactive(LineList.cursor, -1)
        self._cache.clear()
        self.update_size()
        self.refresh()

    def _shown(self, node: _Node[K]) -> bool:
        parent = node.parent
        while parent is not None:
            if not parent.expanded:
                return False
            parent = parent.parent
        return True

    def _ends_rows(self, node: _Node[K]) -> bool:
        """The last row is ``node`` or below it: a new last child of it goes last."""
        if not self._rows:
            return False
        last: _Node[K] | None = self._rows[-1]
        while last is not None and last.depth >= node.depth:
            if last is node:
                return True
            last = last.parent
        return False

    def _visible_rows(self) -> list[_Node[K]]:
        if self._stale:
            self._lay_out()
        return self._rows

    def _lay_out(self) -> None:
        """Every visible row again (one pass), the cursor kept on its node."""
        at = self.cursor
        keep = self._rows[at] if 0 <= at < len(self._rows) else None
        rows: list[_Node[K]] = []
        stack = list(reversed(self._top))
        while stack:
            node = stack.pop()
            rows.append(node)
            if node.expanded and node.children:
                stack.extend(reversed(node.children))
        self._rows = rows
        self._row_of = {node.key: row for row, node in enumerate(rows)}
        self._stale = False
        self._cache.clear()
        if keep is not None:
            self.set_reactive(LineList.cursor, self._row_of.get(keep.key, -1))

    # -- the cursor -----------------------------------------------------------------

    @property
    def cursor_key(self) -> K | None:
        rows = self._visible_rows()
        return rows[self.cursor].key if 0 <= self.cursor < len(rows) else None

    def moved(self) -> Message:
        return self.Highlighted(self, self.cursor_key)  # type: ignore[arg-type]

    def move_to_key(self, key: K) -> bool:
        """The cursor to ``key``'s row, its ancestors unfolded; False if there is none."""
        node = self._by_key.get(key)
        if node is None:
            return False
        parent = node.parent
        while parent is not None:
            if not parent.expanded:
                parent.expanded = True
                self._stale = True
            parent = parent.parent
        self._visible_rows()
        self._resize()
        self.move_to(self._row_of[key])
        return True

    def is_expanded(self, key: K) -> bool:
        return self._by_key[key].expanded

    def set_expanded(self, key: K, expanded: bool) -> None:
        """Fold or unfold ``key``; the cursor, if it was below it, goes to it."""
        node = self._by_key[key]
        if node.expanded == expanded or not node.children:
            return
        below = self.cursor_key
        node.expanded = expanded
        self._stale = True
        self._visible_rows()
        self._resize()
        self.refresh()
        if below is not None and below not in self._row_of:
            self.move_to(self._row_of[key])

    def action_fold(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.set_expanded(key, not self._by_key[key].expanded)

    def action_shut_or_parent(self) -> None:
        key = self.cursor_key
        if key is None:
            return
        node = self._by_key[key]
        if node.expanded and node.children:
            self.set_expanded(key, False)
        elif node.parent is not None:
            self.move_to(self._row_of[node.parent.key])

    def action_open_or_child(self) -> None:
        key = self.cursor_key
        if key is None:
            return
        node = self._by_key[key]
        if node.children and not node.expanded:
            self.set_expanded(key, True)
        elif node.children:
            self.move_to(self._row_of[node.children[0].key])

    def on_click(self, event: events.Click) -> None:
        # The base's handler (called after this one) moves the cursor; a click on a
        # node's toggle, or a double click on its row, folds or unfolds it too.
        offset = event.get_content_offset(self)
        if offset is None:
            return
        rows = self._visible_rows()
        row = int(self.scroll_y) + offset.y
        if 0 <= row < len(rows) and rows[row].children:
            node = rows[row]
            x = offset.x + int(self.scroll_x) - len(NO_MARK) - len(GUIDE_SPACE) * node.depth
            on_toggle = 0 <= x < len(TOGGLE_OPEN)
            if (event.chain == 1) if on_toggle else (event.chain == 2):
                self.set_expanded(node.key, not node.expanded)

    # -- drawing --------------------------------------------------------------------

    def _resize(self) -> None:
        if self._sized != len(self._rows):
            self._sized = len(self._rows)
            self.update_size()

    def render_lines(self, crop: Region) -> list[Strip]:
        self._visible_rows()
        self._resize()  # (rows added since the last paint)
        return super().render_lines(crop)

    def _style(self, name: str) -> Style:
        return self.component(f"line-tree--{name}")

    def item_lines(self, index: int, width: int, selected: bool) -> list[Text]:
        node = self._visible_rows()[index]
        line = Text(CURSOR_MARK if selected else NO_MARK, no_wrap=True, end="")
        if node.depth:
            guides = []
            above = node.parent
            while above is not None and above.depth:
                guides.append(GUIDE_SPACE if _is_last(above, self._top) else GUIDE_LINE)
                above = above.parent
            guides.reverse()
            guides.append(GUIDE_LAST if _is_last(node, self._top) else GUIDE_CROSS)
            line.append("".join(guides), self._style("guides"))
        if node.children:
            line.append(TOGGLE_OPEN if node.expanded else TOGGLE_SHUT, self._style("toggle"))
        line.append_text(node.label)
        if line.cell_len > width:  # (a row wider than the pane says so: cut with …)
            line.truncate(width, overflow="ellipsis")
        if selected:
            line.pad_right(max(0, width - line.cell_len))
            line.stylize(self._style("cursor"))
        return [line]


def _is_last(node: _Node[K], top: list[_Node[K]]) -> bool:
    siblings = top if node.parent is None else node.parent.children
    return siblings[-1] is node


__all__ = ["LineTree"]
