"""How tall an item is folded in the conversation view (a header, then the first lines of
its first parts): worked out from its parts, or from the shape of its line alone."""

from __future__ import annotations

import re
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
    """Whether a text's first ``FOLD_LINES`` lines (those a folded row shows) are blank,
    each whole: a word past an indent makes its line no blank one (a head's line cut
    inside its indent ends on ``…``: ``parts.preview``, so the head says the same)."""
    end = -1
    for _ in range(FOLD_LINES):
        end = text.find("\n", end + 1)
        if end < 0:
            break
    return not (text if end < 0 else text[:end]).strip()


# Every character ``str.isspace`` (and so ``strip``) takes, in Python 3.11's Unicode:
# ``test_blank_text`` checks it against ``isspace`` over all of Unicode.
SPACES = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def _json_space() -> re.Pattern[bytes]:
    """A run of whitespace in a JSON string as written: each character raw (UTF-8) or
    as its escape, in any case of hex digits (writers differ)."""
    tokens = [rb" ", rb"\\[ntrf]"]  # (the usual first: \b is no whitespace)
    for char in SPACES:
        if ord(char) > 0x20:  # (JSON has no raw control characters)
            tokens.append(re.escape(char.encode()))
        hexes = "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in f"{ord(char):04x}")
        tokens.append(rb"\\u" + hexes.encode())
    return re.compile(b"(?:" + b"|".join(tokens) + b")*")


_JSON_SPACE = _json_space()
# The bytes such a run can begin with (a raw space, an escape, a lead byte of a raw
# space past ASCII): a JSON string beginning with any other begins with a word, told
# without ``json_blank_head`` (a quarter of texts begin with a byte past ASCII).
JSON_SPACE_FIRST = frozenset({0x20, 0x5C} | {c.encode()[0] for c in SPACES if ord(c) > 0x7F})
_JSON_NEWLINES = (b"\\n", b"\\u000a", b"\\u000A")


def json_blank_head(text: bytes) -> bool:
    """``blank_head`` of the JSON string ``text`` (``"``-quoted, as written), told from
    its leading whitespace alone: nothing decoded, nothing read past its first word."""
    # (most begin with raw spaces then a word: told from a few bytes, not the pattern)
    head = text[1:65].lstrip(b" ")
    if head and head[0] not in JSON_SPACE_FIRST and head[0] != 0x22:
        return False
    found = _JSON_SPACE.match(text, 1)
    end = found.end() if found else 1
    if text[end : end + 1] == b'"':  # (a raw ``"`` ends the string: it is all blank)
        return True
    # (every escape in the run is whitespace: each ``\\n`` in it is a newline)
    spaces = text[1:end]
    return sum(spaces.count(newline) for newline in _JSON_NEWLINES) >= FOLD_LINES


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
    "JSON_SPACE_FIRST",
    "SPACES",
    "blank_head",
    "folded_height",
    "grown_height",
    "json_blank_head",
    "shape_height",
    "text_rows",
]
