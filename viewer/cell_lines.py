"""How many lines rich's ``chop_cells`` cuts a line into, counted without cutting it.

``chop_cells`` walks a line a grapheme at a time in Python: a followed Claude Code
diff's 536 summaries of CJK and emoji took 0.5 s of the UI thread to be measured. Where
no character of a line is zero-width (no combining mark, joiner or variation selector),
each character is a grapheme one or two cells wide, and the cut is found by regexes over
the line with each wide character written as two: a line is the longest run of at most
``room`` cells that does not end inside a wide character. The regexes' classes come
from rich's own cell table, so both measure alike.
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from rich._unicode_data import load as load_cell_table
from rich.cells import cell_len, chop_cells, get_character_cell_size

_WIDE_START = "\x00"  # a wide character's two cells: a line holding either character
_WIDE_REST = "\x01"  # is never counted here (both are zero-width in rich's table)
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


@cache
def _bmp_classes() -> tuple[re.Pattern[str], str]:
    """(any zero-width character of the BMP, the class of its two-cell ones), as rich
    measures them. Only the BMP: there ``re`` tests a class by a bitmap, where a class
    that holds astral ranges is a list of them to go through for every character."""
    widths = load_cell_table("auto").widths

    def ranges(width: int) -> str:
        return "".join(
            rf"\u{low:04x}-\u{min(high, 0xFFFF):04x}"
            for low, high, each in widths
            if each == width and low <= 0xFFFF
        )

    return re.compile(rf"[{ranges(0)}\x00-\x1f\x7f-\x9f\u200d\ufe0f]"), f"[{ranges(2)}]"


@lru_cache(maxsize=32)
def _line_of(room: int) -> re.Pattern[str]:
    """One cut line: up to ``room`` cells, backing off one rather than split a wide one."""
    return re.compile(f".{{1,{room}}}(?!{_WIDE_REST})", re.DOTALL)


def chopped_count(line: str, room: int) -> int | None:
    """``len(chop(line, room))``, or None where that needs ``chop`` itself
    (a zero-width character, which joins the one before, or a room under two cells)."""
    if room < 2:
        return None
    zero, wide = _bmp_classes()
    if zero.search(line):
        return None
    astral = set(_ASTRAL.findall(line))  # emoji and the like: few, asked one by one
    if astral:
        sizes = {char: get_character_cell_size(char) for char in astral}
        if 0 in sizes.values():
            return None
        wide_astral = "".join(char for char, size in sizes.items() if size == 2)
        if wide_astral:
            wide = f"{wide}|[{wide_astral}]"
    cells = re.sub(wide, _WIDE_START + _WIDE_REST, line)
    return len(_line_of(room).findall(cells))


def chop(line: str, room: int) -> list[str]:
    """``line`` cut into pieces of at most ``room`` cells as ``cell_len`` measures them
    (a piece of one character wider than ``room`` alone): rich's ``chop_cells``, and a
    piece of it that ``cell_len`` measures wider (rich 15 joins zero-width joiners into
    graphemes that ``chop_cells`` sized apart: ``"\u200d\u200d000"`` one piece of 3 cells
    at a room of 2) cut again by its measured prefixes."""
    pieces = chop_cells(line, room)
    if all(cell_len(piece) <= room for piece in pieces):
        return pieces
    out: list[str] = []
    for piece in pieces:
        while cell_len(piece) > room and len(piece) > 1:
            end = 1
            while end < len(piece) and cell_len(piece[: end + 1]) <= room:
                end += 1
            out.append(piece[:end])
            piece = piece[end:]
        out.append(piece)
    return out


__all__ = ["chop", "chopped_count"]
