"""The conversation's cursor put on an item named elsewhere: by its raw index, a line of
the file, its id (a run, a tool operation, a warning shown from another tab)."""

from __future__ import annotations

from collections.abc import Sequence

from session_core.column_items import at_line, item_key
from session_core.model import Item, Transcript

from .block_view import BlockView


class ItemPlaces(BlockView):
    """A view of ``items``, the subclass's, of its ``transcript``."""

    items: Sequence[Item]
    transcript: Transcript

    def move_to_raw(self, index: int) -> bool:
        """The cursor on raw item ``index`` (the view is the raw view); False: not in it
        (a filter)."""
        raw = self.transcript.raw
        if not 0 <= index < len(raw):
            return False
        if self.items is raw:
            self.move_to(index)
            return True
        return self.move_to_id(item_key(raw, index)[0])

    def move_to_line(self, line: int) -> bool:
        """The cursor on the item holding file line ``line``; False: none (a filter, or a
        line before the first item)."""
        index = at_line(self.items, line)
        if index < 0:
            return False
        self.move_to(index)
        return True

    def move_to_item(self, ident: str, line: int) -> bool:
        """The cursor on item ``ident`` of file line ``line``; False: not in this view."""
        index = at_line(self.items, line)
        if index < 0 or item_key(self.items, index) != (ident, line):
            return False
        self.move_to(index)
        return True

    def move_to_id(self, ident: str) -> bool:
        """The cursor on the (last) item ``ident`` of this view; False: not in it."""
        for index in range(len(self.items) - 1, -1, -1):
            key = self.block_key(index)
            if isinstance(key, tuple) and key[0] == ident:
                self.move_to(index)
                return True
        return False


__all__ = ["ItemPlaces"]
