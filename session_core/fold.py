"""How every search compares text in any case: both sides folded (``fold``).

``str.lower`` leaves ``Straße`` apart from ``strasse`` and lowers ``İstanbul`` to
``i̇stanbul`` (an ``i`` and a combining dot), so ``/istanbul`` found neither. ``fold`` is
``str.casefold`` with that dot dropped after an ``i``. A folded text may be longer or
shorter than the text (``ß`` is ``ss``): ``spans`` says where a match is in the text.
A term holding a mark as drawn (``␛``, ``\\x9b``) is looked for in the text drawn (``folder``).
"""

from __future__ import annotations

from collections.abc import Callable

from .term_reading import reading
from .text import CONTROL_TABLE, SEARCH_DRAWINGS, TEXTS_APART, search_drawn

# The characters beyond ASCII whose fold holds ASCII (``FOLD_TO_ASCII[c]``: those ASCII
# characters): a line's bytes may hold one of these where its text holds the term.
FOLD_TO_ASCII = {
    "\u00df": "s",  # ß: ss
    "\u0130": "i",  # İ: i (its dot dropped)
    "\u0149": "n",  # ŉ: ʼn
    "\u017f": "s",  # ſ: s
    "\u01f0": "j",  # ǰ: j and a combining caron
    "\u1e96": "h",
    "\u1e97": "t",
    "\u1e98": "w",
    "\u1e99": "y",
    "\u1e9a": "a",
    "\u1e9e": "s",  # ẞ: ss
    "\u212a": "k",  # the Kelvin sign
    "\ufb00": "f",  # the ligatures ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "fi",
    "\ufb04": "fl",
    "\ufb05": "st",
    "\ufb06": "st",
}
_DOTTED = "i\u0307"
# What a line's bytes may hold beyond ASCII where its folded text holds ASCII a term has:
# the characters above, and the combining dot ``fold`` drops after an ``i`` (a ``İ``
# written decomposed, ``I`` and the dot).
BESIDE_ASCII = {**FOLD_TO_ASCII, "\u0307": "i"}
# Each as the bytes its fold is (the dot: none), for ``unfolded``.
_UNFOLDS = tuple(
    (char.encode(), b"" if char == "\u0307" else fold_of.encode())
    for char, fold_of in ((c, c.casefold().replace(_DOTTED, "i")) for c in BESIDE_ASCII)
)


def unfolds_in(beyond: bytes) -> tuple[tuple[bytes, bytes], ...]:
    """Those of ``BESIDE_ASCII`` whose bytes ``beyond`` (a block's bytes beyond ASCII)
    holds, each with its fold's: what ``unfolded`` replaces in the block's lines."""
    return tuple((char, fold_of) for char, fold_of in _UNFOLDS if char in beyond)


def unfolded(raw: bytes, unfolds: tuple[tuple[bytes, bytes], ...] = _UNFOLDS) -> bytes:
    """A line's bytes with each of ``BESIDE_ASCII`` (of ``unfolds``: those its block
    holds) written as its fold, ASCII-lowered: where an ASCII term is not, no text of the
    line folds to hold it (a prefilter's second look at a line holding one of them,
    instead of reading the line whole)."""
    for char, fold_of in unfolds:
        if char in raw:
            raw = raw.replace(char, fold_of)
    return raw.lower()


def fold(text: str) -> str:
    """``text`` as a search compares it: casefolded, an ``i``'s combining dot dropped."""
    folded = text.casefold()
    if folded.isascii() or "\u0307" not in folded:  # (a look is quicker than a replace)
        return folded
    return folded.replace(_DOTTED, "i")


def needle_of(term: str) -> str:
    """``term`` as a search of texts joined apart (``text.searched_apart``) looks for it:
    folded, a ``TEXTS_APART`` it holds (pasted) as its picture ``␞``, as a text's own is
    searched, so that it never finds the joins."""
    needle = fold(term)
    if TEXTS_APART in needle:
        return needle.replace(TEXTS_APART, CONTROL_TABLE[ord(TEXTS_APART)])
    return needle


def folder(needle: str, apart: bool = False) -> Callable[[str], str]:
    """How a search of the folded ``needle`` folds each text it looks in: ``fold``; for
    a needle holding a mark as the screen draws it (``term_reading``: ESC ``␛``, a C1
    control ``\\x9b``, a bidi override ``\\u202e``, a joiner that joins nothing
    ``\\u200d``; a row's newline ``⏎``, a name's tab ``␉``), the text drawn so first
    (``text.search_drawn``), so that a term as the screen shows it, and as ``c``
    copies it, is found (``/␛[31m``, ``/cd src⏎make``) in the text as written (an ESC, a
    newline). Only such a needle pays for it. ``apart``: each text is texts joined by
    ``text.searched_apart`` (an item's search text), its joins not drawn."""
    return _FOLDERS.get((reading(needle).drawing, apart), fold)


def _drawn_folder(drawing: str, apart: bool) -> Callable[[str], str]:
    def folded(text: str) -> str:
        return fold(search_drawn(text, drawing, apart))

    return folded


_FOLDERS = {
    (drawing, apart): _drawn_folder(drawing, apart)
    for drawing in SEARCH_DRAWINGS
    for apart in (False, True)
}


def holds(text: str, needle: str) -> bool:
    """Whether ``text`` holds ``needle`` (folded) in any case (``folder``)."""
    return needle in folder(needle)(text)


def spans(text: str, needle: str) -> list[tuple[int, int]]:
    """Where ``text`` holds ``needle`` (folded, not empty): each match's start and end in
    ``text``, covering every character of the text that a folded character of it came
    from (``/s`` in ``Straße``: the ``S``, and the ``ß``), and the dot ``fold`` dropped
    after its last (an ``I`` and its combining dot are one character on screen). In
    order, apart: two matches in one character (each ``s`` of ``ß``) are one span, two
    that share one are joined."""
    if not needle:
        return []
    if text.isascii():  # (a character is its fold: the matches are apart already)
        folded = text.lower()
        at = folded.find(needle)
        found: list[tuple[int, int]] = []
        while at >= 0:
            found.append((at, at + len(needle)))
            at = folded.find(needle, at + len(needle))
        return found
    folded, origin, ends = _folded_with_origin(text)
    joined: list[tuple[int, int]] = []
    at = folded.find(needle)
    while at >= 0:
        start, end = origin[at], ends[at + len(needle) - 1]
        if joined and start < joined[-1][1]:  # (from a character the last one is in)
            start = joined.pop()[0]
        joined.append((start, end))
        at = folded.find(needle, at + len(needle))
    return joined


def _folded_with_origin(text: str) -> tuple[str, list[int], list[int]]:
    """``fold(text)`` and, for each of its characters, the index in ``text`` it came from
    and the end of what it stands for there: its character, and a dot dropped after it
    (``str.replace`` of the dotted ``i``, left to right: each ``i`` drops one dot)."""
    out: list[str] = []
    origin: list[int] = []
    ends: list[int] = []
    dot_droppable = False
    for index, char in enumerate(text):
        for piece in char.casefold():
            if piece == "\u0307" and dot_droppable:
                dot_droppable = False
                ends[-1] = index + 1
                continue
            out.append(piece)
            origin.append(index)
            ends.append(index + 1)
            dot_droppable = piece == "i"
    return "".join(out), origin, ends


__all__ = [
    "BESIDE_ASCII",
    "FOLD_TO_ASCII",
    "fold",
    "holds",
    "needle_of",
    "spans",
    "unfolded",
    "unfolds_in",
]
