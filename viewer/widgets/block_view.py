"""``BlockView``: a Line-API list of blocks of varying height, drawn a line at a time.

The model screen's panes (conversation, diff, details) hold 100,000s of blocks for a
big file: each block's height is asked for cheaply (``block_height``), its lines only
when it is on screen (``block_lines``), and rendered strips sit in a small LRU cache.
Heights are ``Measured``: a prefix-sum list rebuilt with ``accumulate`` (C speed) per update.
``LinesView`` is the simple case: one wrapped line of text per block.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Hashable, Sequence
from typing import ClassVar

from rich.cells import cell_len
from rich.console import Console
from rich.style import Style
from rich.text import Text

from ..cell_lines import chop, chopped_count
from ..heights import Measured
from ..safe import clip, inert
from .line_list import LineList, highlight

MAX_WRAPPED = 400  # lines one wrapped line may take (a 1 MB line is not drawn in full)


class BlockView(LineList):
    """Blocks ``0 .. block_count() - 1``, a cursor on one, sticking to the end when there."""

    GUTTER = 2
    CACHE_ITEMS = 300

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "block-view--cursor",
        "block-view--match",
    }

    DEFAULT_CSS = """
    BlockView {
        height: 1fr;
        background: $surface;
        scrollbar-gutter: stable;  /* (a scrollbar come or gone changes no line's wrap) */
        & > .block-view--cursor { color: $accent; text-style: bold; }
        /* (its own colour too: a tool line's, orange, on the 40% blend of $warning
           came out the same orange in 256 colours, the match unreadable) */
        & > .block-view--match { color: $background; background: $warning; text-style: bold; }
    }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.heights: Measured = Measured()
        self.highlight = ""  # a search term shown highlighted (lower case)
        # The cursor's block when the view last went empty (a live compaction whose
        # summary is a line later than its boundary): the cursor goes back near it
        # when blocks come, not nowhere.
        self._lost_key: Hashable | None = None

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

    def reload(
        self,
        *,
        keep_key: Hashable | None = None,
        to_end: bool | None = None,
        near: int | None = None,
    ) -> None:
        """The blocks changed: measure them again and keep the cursor on its block.

        ``to_end``: put the cursor on the last block (None: when it was there);
        ``near``: where ``keep_key``'s block is now, if known (else near the cursor).
        """
        at_end = self.follows_end if to_end is None else to_end
        old = self.cursor
        if keep_key is None and 0 <= old < len(self.heights):
            keep_key = self._safe_key(old)
        if keep_key is None and old < 0:
            keep_key = self._lost_key
        self._lost_key = None
        count = self.block_count()
        width = self.content_width
        heights = self.block_heights(count, width)
        self.heights = Measured(
            heights if heights is not None else [self.block_height(i, width) for i in range(count)]
        )
        self._cache.clear()
        self.update_size()
        if count == 0:
            self.cursor = -1
            self._lost_key = None if at_end else keep_key
        elif at_end:
            self.cursor = count - 1
            # At the end now, in the frame that shows the blocks (a big file's end is its
            # first screen), and again once the new height is laid out.
            self.scroll_to_end()
            self.end_once_laid_out()
        elif keep_key is not None:
            self.cursor = self._find_key(keep_key, old if near is None else near)
        elif old >= count:
            self.cursor = count - 1
        self.refresh()
        self.post_message(self.moved())

    def _safe_key(self, index: int) -> Hashable | None:
        try:
            return self.block_key(index)
        except IndexError:
            return None

    def _find_key(self, key: Hashable, near: int) -> int:
        count = len(self.heights)
        if 0 <= near < count and self.block_key(near) == key:
            return near
        for index in range(count):
            if self.block_key(index) == key:
                return index
        return self.block_instead(key, near, count)

    def block_instead(self, key: Hashable, near: int, count: int) -> int:
        """Where the cursor goes when its block is gone (``key``, at ``near``): the
        block now at its place."""
        return max(0, min(near, count - 1))

    def remeasure(self, index: int) -> None:
        """One block's height changed (folded or expanded)."""
        if not 0 <= index < len(self.heights):
            return
        self.heights.set(index, self.block_height(index, self.content_width))
        self.update_size()
        self.invalidate(index)

    def width_changed(self) -> None:
        self.reload(to_end=self.follows_end)

    # -- drawing --------------------------------------------------------------------

    def item_lines(self, index: int, width: int, selected: bool) -> list[Text]:
        mark = "▌ " if selected else ("┃ " if self.block_marked(index) else "  ")
        gutter = self.component("block-view--cursor") if selected else Style(dim=True)
        match = self.component("block-view--match")
        lines: list[Text] = []
        for line in self.block_lines(index, width)[: self.heights.height(index)]:
            if self.highlight:
                highlight(line, self.highlight, match)
            lines.append(Text(mark, style=gutter, end="") + line)
        return lines


def wrap(
    text: str, width: int, style: str | Style = "", indent: str = "", *, words: bool = False
) -> list[Text]:
    """``text`` (made inert) as lines of at most ``width`` cells, cut by cells (``words``:
    between words where it can, prose's way, a line's modest indent hanging; a word
    longer than a line is cut by cells). A line past ``MAX_WRAPPED`` rows says on its
    last how much of it is not shown (it was cut there silently)."""
    out: list[Text] = []
    room = max(1, width - len(indent))
    for raw in inert_lines(text):
        hang = ""
        if words and cell_len(raw) > room:
            body = raw.lstrip(" ")
            if len(raw) - len(body) <= room // 2:  # (an indent the library glued to a word)
                hang = " " * (len(raw) - len(body))
            else:
                body = raw
            inner = room - len(hang)
            try:
                wrapped = [
                    line.plain
                    for line in Text(body[: inner * (MAX_WRAPPED + 1)]).wrap(
                        _WRAPPING, inner, overflow="fold"
                    )
                ]
            except IndexError:  # (Rich cutting a run of joiners it measured wrong: by cells)
                wrapped = [body]
            chunks = [
                piece  # (one the library measured short, zero-width joiners say: by cells)
                for line in wrapped
                for piece in ([line] if cell_len(line) <= inner else chop(line, inner))
            ]
        else:
            body = raw
            chunks = chop(raw, room) if cell_len(raw) > room else [raw]
        if len(chunks) > MAX_WRAPPED:
            shown = chunks[: MAX_WRAPPED - 1]
            left = len(body) - sum(map(len, shown))
            said = f"… {left:,} more characters of this line not shown"
            chunks = [*shown, clip(said, room - len(hang))]
        for chunk in chunks or [""]:
            out.append(Text(indent + hang + chunk, style=style, end="", no_wrap=True))
    return out


_WRAPPING = Console(file=io.StringIO(), width=1000)  # (Text.wrap's console: its tab size)


def inert_lines(text: str) -> list[str]:
    """``text``'s lines, each made inert (control characters shown, never obeyed)."""
    return [inert(line) for line in text.split("\n")]


Entry = tuple[str, str]  # (style, text): one logical line of a ``LinesView``


def entry_height(entry: Entry, width: int) -> int:
    """How many lines ``entry`` wraps to at ``width``: ``len(wrap(text, width))``, no
    line made."""
    lines = inert_lines(entry[1])  # (a control character is shown as up to 6)
    if len(lines) == 1 and 2 * len(lines[0]) < width:
        return 1  # short enough whatever its characters' widths
    room = max(1, width)
    return sum(_wrapped(line, room) for line in lines)


def prose_height(entry: Entry, width: int) -> int:
    """How many lines ``entry`` wraps to between words at ``width`` (``wrap``'s
    ``words``: prose's way)."""
    lines = inert_lines(entry[1])
    if len(lines) == 1 and 2 * len(lines[0]) < width:
        return 1  # short enough whatever its characters' widths
    return len(wrap(entry[1], width, words=True))


def _wrapped(line: str, room: int) -> int:
    """How many lines ``wrap`` cuts one inert line into."""
    if line.isascii():  # (inert: ASCII is printable)
        cut = -(-len(line) // room)
    elif cell_len(line) <= room:  # (as ``wrap`` keeps it whole: a joiner's line may
        cut = 1  # measure less than its characters chopped one by one)
    else:
        counted = chopped_count(line, room)
        cut = len(chop(line, room)) if counted is None else counted
    return min(max(cut, 1), MAX_WRAPPED)


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
        return entry_height(self.entries[index], width)

    def block_heights(self, count: int, width: int) -> list[int] | None:
        """Entries that know their heights say them (``ModelDiff``: a row an item, each
        one line, none built to be measured)."""
        heights = getattr(self.entries, "heights", None)
        return None if heights is None else heights(width, self.measurer(width))

    def measurer(self, width: int) -> Callable[[Entry], int]:
        """How a row's height at ``width`` is measured, for ``block_heights``."""
        return lambda entry: entry_height(entry, width)

    def block_lines(self, index: int, width: int) -> list[Text]:
        style, text = self.entries[index]
        return wrap(text, width, style)

    def plain(self) -> str:
        return "\n".join(text for _style, text in self.entries)


class ProseLines(LinesView):
    """A ``LinesView`` of a few entries of prose (a run's or a subagent's detail), wrapped
    between words: each height is its wrapping's, made (they were cut mid-word)."""

    def block_height(self, index: int, width: int) -> int:
        return len(self.block_lines(index, width))

    def block_heights(self, count: int, width: int) -> list[int] | None:
        return None  # (each measured by wrapping it: a detail's entries are few)

    def block_lines(self, index: int, width: int) -> list[Text]:
        style, text = self.entries[index]
        return wrap(text, width, style, words=True)


__all__ = ["BlockView", "Entry", "LinesView", "ProseLines", "inert_lines", "prose_height", "wrap"]
