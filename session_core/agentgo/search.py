"""What a search of an agentgo session's records (the viewer's timeline) looks at.

A record is found when the folded term (``fold``: any case) is in one of its strings
or integers, folded: its type, time, run and execution ids, a message's text, a tool's
name, arguments and output, an error, a model's name (the keys are not looked at). Most
records are refused from their line's bytes without being parsed: a term of printable
ASCII that JSON never escapes cannot be in a string of a line whose bytes do not hold
it, unless the line escapes a character as ``\\u`` or holds a character that folds to
ASCII the term holds (``FOLD_TO_ASCII``). A model request is most of a session's bytes
(88% of the bench's); parsed, a 1 GB session's records took seconds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..fold import BESIDE_ASCII, fold, folder, unfolded
from ..search import positions
from .records import Records

CHECK_EVERY = 256  # records looked at between two looks at ``cancelled``

# Characters JSON writers leave as they are (``"`` and ``\\`` are always escaped, ``/``
# may be): a term of these alone is found in a line's bytes as it is in its strings.
_LITERAL = frozenset(chr(c) for c in range(0x20, 0x7F)) - {'"', "\\", "/"}
# The characters beyond ASCII whose fold holds ASCII, UTF-8, each after its last byte
# looked for alone (memchr: ten times quicker than two bytes), and that ASCII
_FOLDS_TO_ASCII = tuple(
    (char.encode()[-1:], char.encode(), ascii) for char, ascii in BESIDE_ASCII.items()
)


def record_texts(value: Any) -> Iterator[str]:
    """Every string and integer in ``value`` (a parsed record), depth first."""
    stack = [value]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind is str:
            yield value
        elif kind is dict:
            stack.extend(reversed(value.values()))
        elif kind is list:
            stack.extend(reversed(value))
        elif kind is int:
            yield str(value)


class RecordSearch:
    """A search for ``term`` (any case) in records."""

    def __init__(self, term: str) -> None:
        self.needle = fold(term)
        self._folded = folder(self.needle)  # (``fold``, but for a control as drawn: ``␛``)
        literal = bool(self.needle) and all(c in _LITERAL for c in self.needle)
        self._raw_needle = self.needle.encode() if literal else None
        # (what a line's bytes may hold where its strings hold the needle, unseen)
        self._hiders = [
            (gate, whole)
            for gate, whole, folded in _FOLDS_TO_ASCII
            if any(char in self.needle for char in folded)
        ]

    def holds(self, records: Records, index: int) -> bool:
        """Whether record ``index`` holds the term (read again from the file, not through
        the records' cache: a worker may ask)."""
        literal = self._raw_needle
        if literal is not None:
            raw = records.line(index)
            if raw is not None and literal not in raw.lower() and not self._may_hide(raw, literal):
                return False
        needle, folded = self.needle, self._folded
        return any(needle in folded(text) for text in record_texts(records.read(index)))

    def _may_hide(self, raw: bytes, literal: bytes) -> bool:
        """Whether the line's strings may hold ``literal`` where its bytes do not show it
        as it is: an escape, or a character that folds to ASCII it holds (looked at again
        with those folded, not read whole)."""
        if b"\\u" in raw:
            return True
        if raw.isascii() or not any(b in raw and c in raw for b, c in self._hiders):
            return False
        return literal in unfolded(raw)

    def find(
        self,
        records: Records,
        indices: Sequence[int] | range,
        cancelled: Callable[[], bool] | None = None,
    ) -> list[int] | None:
        """The positions in ``indices`` (record indices) of the records that hold the
        term; None when ``cancelled`` said so (asked every ``CHECK_EVERY`` records)."""
        return positions(indices, lambda index: self.holds(records, index), cancelled, CHECK_EVERY)


__all__ = ["CHECK_EVERY", "RecordSearch", "record_texts"]
