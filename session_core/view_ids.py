"""``ViewIds``: a rewrite's ids (what a compaction folded or kept) that know more of
their entries than their ids, each said here once so that ``diff`` and the Diff tab ask
the ids themselves rather than guess at what a format's list can do."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .indexed import ListLike

if TYPE_CHECKING:
    from .model import Item


class ViewIds(ListLike[str]):
    """Ids of a view's entries: raw items (``index_at``) and items a rewrite made on no
    line of their own (a Codex replacement history's: ``line_at``, ``item_at``). The
    defaults know none of that; a format's ids say what they know."""

    __slots__ = ()

    def index_at(self, index: int) -> int:
        """The raw index of the entry at ``index`` (-1: not known, or in no raw index)."""
        return -1

    def line_at(self, index: int) -> int:
        """The line whose rewrite made the item at ``index`` (0: a raw item's, or not known)."""
        return 0

    def item_at(self, index: int) -> Item | None:
        """The item a rewrite made at ``index``, where it can be had (None: a raw item's
        entry, which the raw view holds, or one not kept)."""
        return None


def made_item(ids: object, index: int) -> Item | None:
    """The item a rewrite made at ``index`` of any compaction's ids (``ViewIds.item_at``;
    a plain list of ids knows none)."""
    return ids.item_at(index) if isinstance(ids, ViewIds) else None


__all__ = ["ViewIds", "made_item"]
