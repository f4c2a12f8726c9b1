"""A search's prefilter on the bytes of lines read by span: which lines cannot hold a term.

A search (``search.find``) asks of every item whether its folded search text holds
the folded term (``fold``). Where a format says an item's searched texts are its line's JSON
strings as they are (``ItemColumn.verbatim``), the line's bytes can answer "no" without
parsing it: a string of the line holding the term holds it written as JSON writes it,
so the ASCII-lowered line holds one of the term's encodings (``encodings``), unless

* the term is read in what its texts are drawn as (it holds a mark as drawn, ``␛``,
  ``\\x9b``, ``⏎``: ``term_reading``, the one decision of which lines are read whole):
  an ASCII line holds a picture's control raw or short-escaped (a ``⏎`` a newline or a
  CRLF escaped, a ``␉`` a tab), an escape as text; a
  line holding a character drawn as an escape (``\\x9b``, raw) is looked at; a term
  with a space, or over two texts (a newline): no prefilter then;
* an escape ``\\uXXXX`` wrote one of its characters (any line with ``\\u`` is looked at);
* a character that is not ASCII folds to ASCII the term holds (``BESIDE_ASCII``: ß,
  İ, K, the ligatures…, the dot of a decomposed İ; a line holding one is looked at again
  with them folded, ``fold.unfolded``), or, for a term that is not
  ASCII, any character that is not ASCII (a line holding one is looked at: its case is
  not folded here).

Everything else about an item (its role, kind, stub; a line its format does not vouch
for) is looked at as the full search looks at it; this only says which lines to skip.
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence

from .fold import BESIDE_ASCII, unfolded, unfolds_in
from .term_reading import DRAWN_AS_ESCAPE, reading
from .text import CONTROL_TABLE, NEWLINE_MARK, TAB_MARK

MAX_ENCODINGS = 64  # a term with more ways of being written is searched without a prefilter
# JSON's short escapes (a writer may also put these characters raw; any as \u00XX).
_SHORT = {'"': b'\\"', "\\": b"\\\\", "/": b"\\/", "\b": b"\\b", "\f": b"\\f", "\r": b"\\r"}
_SHORT["\t"] = b"\\t"
# A control's picture (ESC ``␛``, CR ``␍``, DEL ``␡``), by the control it draws: a term
# holding a mark as drawn is searched in the text drawn inert (``term_reading``), so its
# line holds the picture, or its control raw or as its short escape (any ``\u`` escape
# is looked at); an escape as drawn (``\x9b``) as text, or its character raw (below).
_DRAWN = {mark: chr(code) for code, mark in CONTROL_TABLE.items() if len(mark) == 1}
# A one-line drawing's marks (``term_reading.ONE_LINE_MARKS``), each as its line may write
# it: the mark, or what it draws (a newline escaped, a CRLF too, which a row draws as one
# ``⏎``; a tab raw or escaped).
_ONE_LINE_FORMS = {
    NEWLINE_MARK: [NEWLINE_MARK.encode(), b"\\n", b"\\r\\n"],
    TAB_MARK: [TAB_MARK.encode(), b"\t", b"\\t"],
}
# Those characters drawn as an escape, each as UTF-8 (an ASCII term as drawn, ``\\x9b``,
# may be in the escape of one a line holds raw).
_DRAWN_AS_ESCAPE = re.compile(b"|".join(re.escape(c.encode()) for c in sorted(DRAWN_AS_ESCAPE)))
# The characters that are not ASCII whose fold holds ASCII, in UTF-8, and that ASCII.
_FOLDS_TO_ASCII = tuple((char.encode(), ascii) for char, ascii in BESIDE_ASCII.items())
_ASCII = bytes(range(0x80))


def encodings(needle: str) -> list[bytes] | None:
    """Every way a JSON string may hold the folded ``needle`` but for ``\\u`` escapes,
    as bytes after ``bytes.lower``; None when there is no prefilter for it."""
    shape = reading(needle)
    if shape.every_line:
        return None
    drawn = shape.drawn
    choices: list[list[bytes]] = []
    for char in needle:
        raw = char.encode("utf-8", "surrogatepass")
        if drawn and char in _ONE_LINE_FORMS:
            choices.append(_ONE_LINE_FORMS[char])
        elif drawn and char in _DRAWN:
            control = _DRAWN[char]
            choices.append([raw, control.encode(), *[_SHORT[c] for c in (control,) if c in _SHORT]])
        elif char in ('"', "\\"):
            choices.append([_SHORT[char]])
        elif char in _SHORT:
            choices.append([raw, _SHORT[char]])
        else:
            choices.append([raw.lower()])
    total = 1
    for options in choices:
        total *= len(options)
    if total > MAX_ENCODINGS:
        return None
    return [b"".join(parts) for parts in itertools.product(*choices)]


class LineFilter:
    """The lines of a block of bytes that may hold ``needle`` (folded)."""

    def __init__(self, needle: str, forms: list[bytes]) -> None:
        self.needle = needle
        # (A literal pattern: ``re`` finds one faster than ``bytes.find`` does.)
        self.forms = [_literal(form) for form in forms]
        # (bytes either side of a mark a match through it may span: a folded character
        # is at most 3 bytes of the line, a form's byte at least one folded character)
        self.reach = 3 * max(map(len, forms), default=0) + 4
        self.escape = _literal(b"\\u")
        # A character that is not ASCII and folds to ASCII matters only where the
        # needle holds what it folds to; to a needle that is not ASCII, any does.
        self.ascii = needle.isascii()
        # A needle searched as drawn (``term_reading``) and ASCII (``\\x9b``, ``\\u202e``)
        # may be in the escape a character the line holds raw is drawn as (a C1
        # control, a hidden mark, a lone joiner): a line holding one is looked at.
        self.drawn_as_escape = self.ascii and reading(needle).drawn
        self.folds_to_ascii = [
            (_literal(mark), mark)
            for mark, folded in _FOLDS_TO_ASCII
            if self.ascii and any(char in needle for char in folded)
        ]

    @classmethod
    def of(cls, needle: str) -> LineFilter | None:
        forms = encodings(needle)
        return None if forms is None else cls(needle, forms)

    def maybe(
        self,
        block: bytes,
        starts: Sequence[int],
        ends: Sequence[int],
        unplain: re.Pattern[bytes] | None = None,
    ) -> set[int]:
        """Which of the lines ``block[starts[k]:ends[k]]`` (in order, apart) may hold the
        needle (their ``k``): the others cannot. A line where ``unplain`` matches (its
        format's texts may not be its strings as they are) is one that may."""
        found: set[int] = set()
        lowered = block.lower()
        for form in self.forms:
            _mark(found, form.finditer(lowered), starts, ends)
        _mark(found, self.escape.finditer(block), starts, ends)
        if self.folds_to_ascii and not block.isascii():
            # (the block's bytes beyond ASCII, few, tell which marks may be in it: a
            # regex's scan of 4 MB for each of a needle's marks took a millisecond)
            beyond = block.translate(None, _ASCII)
            # (a line holding a mark looked at again around each mark, folded, not read
            # whole: every line with an ß, 7,372 of the 100 MB file, for any term with
            # s; a match the forms did not find holds a mark, and is within ``reach``)
            unfolds = unfolds_in(beyond)
            for mark, whole in self.folds_to_ascii:
                if whole not in beyond:
                    continue
                for match in mark.finditer(block):
                    k = bisect_right(starts, match.start()) - 1
                    if k < 0 or match.start() >= ends[k] or k in found:
                        continue
                    low = max(starts[k], match.start() - self.reach)
                    near = unfolded(block[low : min(ends[k], match.end() + self.reach)], unfolds)
                    if any(form.search(near) for form in self.forms):
                        found.add(k)
        if self.drawn_as_escape and not block.isascii():
            _mark(found, _DRAWN_AS_ESCAPE.finditer(block), starts, ends)
        if unplain is not None:
            _mark(found, unplain.finditer(block), starts, ends)
        if not self.ascii and not block.isascii():
            found.update(k for k, s in enumerate(starts) if not block[s : ends[k]].isascii())
        return found


def _literal(text: bytes) -> re.Pattern[bytes]:
    return re.compile(re.escape(text))


def _mark(
    found: set[int], matches: Iterable[re.Match[bytes]], starts: Sequence[int], ends: Sequence[int]
) -> None:
    """Each line a match starts in (a match of a form or a mark is within its line)."""
    for match in matches:
        at = match.start()
        k = bisect_right(starts, at) - 1
        if k >= 0 and at < ends[k]:
            found.add(k)


__all__ = ["MAX_ENCODINGS", "LineFilter", "encodings"]
