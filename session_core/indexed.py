"""``Indexed``: a sequence whose items are made when asked for, indexed as a list is.

The replay's envelopes, an agentgo view's records, a transcript's items and the diff's
rows are all kept packed and built one at a time (``_one``); what indexing them means
(negative indexes, slices, ``IndexError`` out of range) is said here once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeVar, overload

T = TypeVar("T")
SHOWN = 20  # items a long ListLike's repr shows


class Indexed(Sequence[T]):
    """Implement ``__len__`` and ``_one`` (item ``index``, already in range)."""

    __slots__ = ()

    def _one(self, index: int) -> T:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        n = len(self)
        if isinstance(index, slice):
            one = self._one
            return [one(i) for i in range(*index.indices(n))]
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(index)
        return self._one(index)

    def __iter__(self) -> Iterator[T]:
        one = self._one
        for index in range(len(self)):
            yield one(index)


class ListLike(Indexed[T]):
    """An ``Indexed`` that stands for a list (a compaction's ids made when asked for):
    equal to any sequence of the same items, shown as that list (its start, when long)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return shown(self)


def shown(items: Sequence[object]) -> str:
    """A sequence made on demand as its ``repr``: a long one (a big file's operations)
    only begins. A traceback showing locals, or a worker named by its arguments (Textual's
    ``@work``), would otherwise make every item, each read again from its file."""
    if len(items) <= SHOWN:
        return repr(list(items))
    return f"[{', '.join(map(repr, items[:SHOWN]))}, ... {len(items) - SHOWN:,} more]"
