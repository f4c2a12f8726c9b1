"""How tall an item is folded in the conversation view (a header, then the first lines of
its first parts): worked out from its parts, or from the shape of its line alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (facts.py uses ``blank_head``: model imports it)
    from .model import Part

FOLD_PARTS = 8  # parts a folded item shows (the viewer's conversation)
FOLD_LINES = 3  # lines a folded text part shows


def folded_height(parts: Sequence[Part]) -> int:
    """The rows a folded item takes in the conversation view (a header, then its parts)."""
    if len(parts) == 1 and parts[0].kind != "text":  # most lines: one part, not text
        return 2
    height = 1 + sum(_part_height(part) for part in parts[:FOLD_PARTS])
    return height + (1 if len(parts) > FOLD_PARTS else 0)


def _part_height(part: Part) -> int:
    """One part's rows in ``folded_height``: a text's first lines, as the view draws
    them; the same for a part and its lazy stand-in (whose head keeps those lines)."""
    if part.kind == "text":
        return text_rows(part.head)
    return 1


def text_rows(text: str) -> int:
    """The rows a folded text shows: its first lines, or one where they are all blank
    (a note says what they are: blank lines say nothing)."""
    if text[:1].isspace() and blank_head(text):  # (most texts begin with a word)
        return 1
    return min(FOLD_LINES, text.count("\n") + 1)


def blank_head(text: str) -> bool:
    """Whether a text's first ``FOLD_LINES`` lines (those a folded row shows) are blank."""
    end = -1
    for _ in range(FOLD_LINES):
        end = text.find("\n", end + 1)
        if end < 0:
            break
    return not (text if end < 0 else text[:end]).strip()


def grown_height(height: int, before: int, parts: Sequence[Part]) -> int:
    """``folded_height`` of an item of ``before`` parts (``height`` rows) with ``parts``
    added: it grows by the parts still shown, as ``folded_height`` counts them."""
    height -= 1 if before > FOLD_PARTS else 0
    height += sum(_part_height(part) for part in parts[: max(0, FOLD_PARTS - before)])
    return height + (1 if before + len(parts) > FOLD_PARTS else 0)


def shape_height(text_lines: int, others: int) -> int:
    """``folded_height`` of an item of one text part of ``text_lines`` lines then ``others``
    parts that are not text, known without the parts (a replay's facts of its line)."""
    shown = min(others, FOLD_PARTS - 1)
    more = 1 if 1 + others > FOLD_PARTS else 0
    return 1 + min(FOLD_LINES, text_lines) + shown + more


__all__ = [
    "FOLD_LINES",
    "FOLD_PARTS",
    "blank_head",
    "folded_height",
    "grown_height",
    "shape_height",
    "text_rows",
]
