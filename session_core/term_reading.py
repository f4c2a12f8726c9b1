"""How a search reads for a term: the one decision of which texts it looks at as drawn,
and which lines it must read whole rather than rule out by their bytes (``reading``).

A line's bytes hold a term's text as JSON writes it. A term may be in what a view makes
of the text instead: the text drawn inert (``text.inert``: an ESC ``␛``, a C1 control
``\\x9b``, a bidi override ``\\u202e``, a lone joiner ``\\u200d``), on one line (a row's
newline ``⏎``, a name's tab ``␉``: ``text.search_drawn``), or a tool call's row
(``search.op_arguments``: its arguments reshaped). Every search asks ``reading`` of its
folded needle: ``fold.folder`` (draw the text first?), ``line_filter`` (which lines'
bytes can say no?) and ``search_skip`` / ``search.OpSearch`` (read a call's line whole?).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .text import CONTROL_TABLE, CR_MARK, JOINER, JOINER_MARK, NEWLINE_MARK, TAB_MARK

# Every mark the screen draws a character as (``CONTROL_TABLE``'s, one table for drawing
# and searching: a character added to it is found as drawn), folded as a needle is
# (the marks are ASCII escapes and symbols: ``casefold`` is ``fold.fold`` of them; a
# tag's ``\\U000e0048`` is ``\\u000e0048``). Not a tab's four spaces: a term's spaces are
# spaces, not a tab drawn.
DRAWN_MARKS = frozenset(
    mark.casefold() for mark in (*CONTROL_TABLE.values(), JOINER_MARK) if not mark.isspace()
)
# The marks a text drawn on one line shows that the conversation's drawing does not: a
# row's newline (``one_line``) and a name's tab (``name_line``), each one character. A
# term holding one is looked for in the text drawn so (``Reading.drawing``).
ONE_LINE_MARKS = frozenset((NEWLINE_MARK, TAB_MARK))
# A CRLF as the conversation shows it (``␍`` ending its line) and a name draws it: a term
# holding it is looked for where a CRLF is drawn so, not as a row's one ``⏎`` (where it
# was never found); ``⏎`` alone finds a CRLF as a row draws it, ``␍`` a lone CR too.
CRLF_DRAWN = CR_MARK + NEWLINE_MARK
# The marks of one character (the Control Pictures ``␛``, ``␡``), and the escapes' heads
# (``\\``) and lengths, longest first: where a term may hold an escape.
_PICTURES = frozenset(mark for mark in DRAWN_MARKS if len(mark) == 1)
_HEADS = frozenset(mark[0] for mark in DRAWN_MARKS if len(mark) > 1)
_LENGTHS = sorted({len(mark) for mark in DRAWN_MARKS if len(mark) > 1}, reverse=True)

# The characters beyond ASCII drawn as an escape of ASCII (a C1 control ``\\x9b``, a
# hidden mark ``\\u202e``, a tag, a lone joiner) that a line's bytes may hold raw (a
# lone surrogate is no UTF-8: only ever a ``\\u`` escape): a line holding one may hold
# an ASCII term as drawn where its bytes show no form of it (``line_filter``).
DRAWN_AS_ESCAPE = frozenset(
    chr(code)
    for code, mark in CONTROL_TABLE.items()
    if code >= 0x80 and mark.isascii() and not 0xD800 <= code < 0xE000
) | {JOINER}

# What a call's row (``search.op_arguments``) may hold that its arguments as written do
# not: the characters it reshapes (JSON's punctuation and escapes, the space between its
# main argument and the rest, a command's shell quoting, a patch's files' list) and
# numbers (written again), and the words a patch is said in.
_RESHAPED = frozenset(" \"\\{}[]:,'/()+0123456789")
_PATCH_WORDS = ("(a patch of no file)", " more)")


@dataclass(frozen=True, slots=True)
class Reading:
    """How a search of one folded needle reads texts and lines."""

    # The needle holds a mark as drawn (``DRAWN_MARKS``, whole: ``␛``, ``\\x9b``; or
    # ``ONE_LINE_MARKS``): each text is looked at drawn (``drawing``), and a line holding
    # a character drawn as an escape (``DRAWN_AS_ESCAPE``; for a needle beyond ASCII,
    # any character beyond ASCII) is read whole.
    drawn: bool
    # No line can be ruled out by its bytes: an empty needle, one with a newline, one
    # drawn with a space (drawn, a tab is four spaces; not where it is ``␉``).
    every_line: bool
    # A tool call's line is read whole: its row, reshaped, may hold the needle where its
    # arguments as written do not.
    call_lines: bool
    # How a text is drawn to be looked at (``text.search_drawn``): "" not at all, else
    # "inert" (as the conversation draws it), "one-line" (a newline ``⏎``, as a row
    # draws it), "one-line-cr" (a CRLF ``␍⏎``: ``CRLF_DRAWN``), "name" (a tab ``␉``
    # too, as a name is drawn) or "one-line-tab" (a tab ``␉``, a CRLF one ``⏎``).
    drawing: str = ""


def holds_drawn(needle: str) -> bool:
    """Whether the folded ``needle`` holds a mark the screen draws (``DRAWN_MARKS``)."""
    if not _PICTURES.isdisjoint(needle):
        return True
    for head in _HEADS:
        at = needle.find(head)
        while at >= 0:
            if any(needle[at : at + size] in DRAWN_MARKS for size in _LENGTHS):
                return True
            at = needle.find(head, at + 1)
    return False


@lru_cache(maxsize=256)
def reading(needle: str) -> Reading:
    """How a search reads for the folded ``needle`` (kept: ``fold.holds`` asks it of
    every text it looks in)."""
    drawing = ""
    if not ONE_LINE_MARKS.isdisjoint(needle):
        # (a tab's mark with a line's end ``⏎`` and no ``␍⏎``: a CRLF is one ``⏎``, as a
        # row draws a text's, not a name's ``␍⏎``; with no ``⏎``, a CRLF's ``␍`` kept, as
        # ``/␍`` finds it)
        crlf, tab = CRLF_DRAWN in needle, TAB_MARK in needle
        if tab:
            drawing = "one-line-tab" if NEWLINE_MARK in needle and not crlf else "name"
        else:
            drawing = "one-line-cr" if crlf else "one-line"
    elif holds_drawn(needle):
        drawing = "inert"
    drawn = bool(drawing)
    # (a space may be a tab drawn, but where a tab is drawn ``␉``)
    told_apart = drawing in ("name", "one-line-tab")  # (a tab drawn ``␉``)
    every_line = not needle or "\n" in needle or (drawn and not told_apart and " " in needle)
    call_lines = (
        drawn
        or not _RESHAPED.isdisjoint(needle)
        or not needle.isascii()  # (a ``\\u`` escape of the arguments as written, read)
        or not needle.isprintable()  # (an escaped control character, read)
        or any(needle in words for words in _PATCH_WORDS)
    )
    return Reading(drawn, every_line, call_lines, drawing)


__all__ = [
    "CRLF_DRAWN",
    "DRAWN_AS_ESCAPE",
    "DRAWN_MARKS",
    "ONE_LINE_MARKS",
    "Reading",
    "holds_drawn",
    "reading",
]
