"""What a format tells an ``ItemColumn`` of its items: their facts where the builder keeps
them (``ItemFacts``), and what it vouches for of the lines it keeps by span
(``Verbatim``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from .model import Usage


class ItemFacts:
    """What a builder tells of its items when one is built, where it keeps that itself
    (set as ``ItemColumn.facts``): the timestamp of one appended unread, and (of every
    item) its usage, marks and stub."""

    # Whether ``marks`` are the column's own (``ItemColumn.marks``): then they can be
    # counted without building an item (``ItemColumn.mark_counts``).
    MARKS_ARE_THE_COLUMNS: ClassVar[bool] = False

    def ts(self, index: int, span: int) -> str | None:
        return None

    def usage(self, index: int) -> Usage | None:
        return None

    def marks(self, index: int, ident: str) -> list[str]:
        return []

    def stub(self, index: int, ident: str) -> str | None:
        return None

    def stubs(self) -> Mapping[str, str] | None:
        """Every item's stub by its id, as ``stub`` tells them (a search's look at them
        all at once); None: ask ``stub`` of each."""
        return {} if type(self).stub is ItemFacts.stub else None


@dataclass(frozen=True, slots=True)
class Verbatim:
    """What a format vouches for of the items it keeps by span (``ItemColumn.verbatim``):
    an item of one of ``kinds`` read from a line where ``unplain`` does not match has
    as its parts' texts and names (all a search reads of them) JSON strings of its line
    as they are, so a search may skip its line by its bytes (``line_filter``)."""

    kinds: frozenset[str]
    unplain: re.Pattern[bytes]
    # A line holding a tool call, whose row shows its arguments reshaped (``search.
    # op_arguments``): read whole by a search for a term the reshaping may make
    # (``term_reading.reading``). None: the format's lines hold no such call.
    calls: re.Pattern[bytes] | None = None


__all__ = ["ItemFacts", "Verbatim"]
