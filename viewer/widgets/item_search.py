"""The conversation's search (``/``, ``n`` / ``N``): in a worker, from the cursor to the
end and then from the start, so that the cursor goes to the first match as soon as it is
found; how far it has looked and what it found so far told to the screen meanwhile; and
a file growing under it searched on, its appended items after (a 1 GB session's raw view
takes seconds to search through)."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

from textual import work
from textual.message import Message
from textual.worker import get_current_worker

from session_core.fold import fold
from session_core.model import Item
from session_core.search import find
from session_core.vocabulary import Readable, as_written

from .item_jumps import ItemJumps

SEARCH_STEP = 20_000  # items a search looks through between two words to the screen


class ItemSearch(ItemJumps):
    """A view of items that is searched: ``items`` are the subclass's, and so is what it
    tells the user (``say``)."""

    @dataclass
    class Searched(Message):
        """A search ended: ``count`` items hold ``term``."""

        view: ItemSearch
        term: str
        count: int

    @dataclass
    class Searching(Message):
        """A search is under way (``view.searching`` says how far), or one that is not
        announced ended: what the header says of it changed."""

        view: ItemSearch

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.search_term = ""
        self._searched_through = 0  # the items the matches were looked for in
        self.searching: tuple[int, int] | None = None  # a search under way: (looked, found)
        # A search made over a big file's end, shown while the rest loads, that found
        # nothing there: the next snapshot (the whole file) is searched as it was asked
        self._land_next = False
        self._search_items: Sequence[Item] = ()  # what the latest search looks through
        # The items' format's readable words of a wrapped text, searched beside the text
        # as written (the replayed view shows them, the raw view the text: both found).
        self.readable: Readable = as_written

    def search_status(self) -> str:
        """What the header says of the search (``LineList.search_said``)."""
        return self.search_said(self.search_term, self.searching)

    def search(self, term: str, *, announce: bool = True, land_later: bool = False) -> None:
        """Find ``term`` in every item, in a worker (the items are a snapshot);
        ``land_later``: they are a big file's end alone, and where nothing is found in
        them the next snapshot, the whole file, is searched as this was asked (the cursor
        goes to the first match, the count is told)."""
        self.search_term = term
        self.refresh_bindings()  # (n / N, and the footer's n, come and go with a term)
        self.highlight = fold(term)
        self._cache.clear()
        self.refresh()
        self._searched_through = 0
        if not term:
            self.matches, self.match_pos = [], -1
            self.searching = None
            self.workers.cancel_group(self, "items-search")
            return
        if announce:  # (the old term's matches are not this one's)
            self.matches, self.match_pos = [], -1
        self._land_next = land_later
        self.searching = (0, 0)
        self._look(fold(term), announce, 0, max(self.cursor, 0))

    def search_again(self, appended: bool, before: int) -> None:
        """The items are a new snapshot's (``appended``: the last one's ``before`` items
        and more): the term is looked for in what it has not been."""
        if appended and self._searched_through == before:  # only the new items
            self._look(fold(self.search_term), False, before, before)
        elif not (appended and self.searching is not None):
            self.search(self.search_term, announce=self._land_next)
        # (else the search under way goes on through the items it was given, the same as
        # these up to there, and the ones appended are searched when it ends: a big file
        # growing under a long search would have it start again for ever)

    def _look(
        self, term: str, announce: bool, start: int, origin: int, jumped: bool = False
    ) -> None:
        """A search of the items as they are now, which becomes the latest (``_search``:
        the results of any other are not this view's)."""
        self._search_items = self.items
        self._search(term, self.items, announce, start, origin, jumped)

    @work(thread=True, exclusive=True, group="items-search", description="items-search")
    def _search(
        self,
        term: str,
        items: Sequence[Item],
        announce: bool,
        start: int,
        origin: int,
        jumped: bool = False,
    ) -> None:
        """Look for ``term`` in ``items`` from ``start`` (the ones before were searched:
        their matches are kept): from ``origin`` (the cursor) to the end first, then from
        ``start`` up to it, so that the first match found is the one the search goes to,
        at once (a 1 GB session's raw view takes seconds to search through); ``jumped``:
        the cursor went to one already."""
        worker = get_current_worker()
        total = len(items)
        origin = min(max(origin, start), total)
        after: list[int] = []
        before: list[int] = []
        jumped = jumped or not announce
        looked = 0
        readable = self.readable  # (the items' format's, as they were given)
        step = min(1_000, SEARCH_STEP)  # (doubled up to it: the first match comes sooner)
        for low, high, into in ((origin, total, after), (start, origin, before)):
            first = low
            while first < high:
                last = min(first + step, high)
                step = min(2 * step, SEARCH_STEP)
                found = find(items, term, first, lambda: worker.is_cancelled, last, readable)
                if found is None:
                    return
                into.extend(found)
                looked += last - first
                if found and not jumped:
                    jumped = True
                    self.app.call_from_thread(self._found_first, term, items, found[0])
                if announce and looked < total - start:
                    so_far = before + after  # (in order: those before the cursor come first)
                    self.app.call_from_thread(
                        self._search_progress, term, items, start, looked, so_far
                    )
                first = last
        self.app.call_from_thread(
            self._searched, term, items, before + after, announce, start, jumped
        )

    def _current(self, term: str, items: Sequence[Item]) -> bool:
        """The search of ``term`` in ``items`` is this view's latest (not a newer term's,
        nor one over a snapshot that was not an append of its items: its own is on its
        way). Its indexes are this view's: the items searched are the same up to there."""
        return items is self._search_items and term == fold(self.search_term)

    def _found_first(self, term: str, items: Sequence[Item], index: int) -> None:
        if self._current(term, items):
            self._land_next = False
            self.move_to(index)

    def _search_progress(
        self, term: str, items: Sequence[Item], start: int, looked: int, so_far: list[int]
    ) -> None:
        """How far a search has looked (from ``start``: the ones before were searched),
        and the matches it has found so far, which ``n`` / ``N`` step through meanwhile."""
        if self._current(term, items):
            kept = bisect.bisect_left(self.matches, start) if start else 0
            self.matches = [*self.matches[:kept], *so_far]
            self.searching = (start + looked, len(self.matches))
            self.invalidate(self.cursor)  # (the cursor's item, if a match it cannot show)
            self.post_message(self.Searching(self))

    def _searched(
        self,
        term: str,
        items: Sequence[Item],
        found: list[int],
        announce: bool,
        start: int,
        jumped: bool,
    ) -> None:
        if not self._current(term, items):
            return
        self.matches = [*(m for m in self.matches if m < start), *found] if start else found
        self._searched_through = len(items)
        if len(self.items) > len(items):  # appended while it looked: the search goes on
            if self.searching is not None:  # through those, and ends with them
                self.searching = (len(items), len(self.matches))
            self._look(term, announce, len(items), len(items), jumped)
            return
        self.searching = None
        self.invalidate()  # (an item a match hides in what is folded says so: ``is_match``)
        if announce:
            if jumped:  # the cursor went to the first match found (and may have moved since)
                at = bisect.bisect_left(self.matches, max(self.cursor, 0))
                self.match_pos = min(at, len(self.matches) - 1)
            else:
                self.match_pos = -1
                self.first_match()
            self._land_next = self._land_next and not self.matches
            self.post_message(self.Searched(self, self.search_term, len(self.matches)))
        else:  # (the header's count, of a search of appended items or of a new snapshot)
            if not start or self.match_pos >= len(self.matches):
                # other items (a filter, a reset): the cursor's place among their matches,
                # the last at or before it (the one before the match ``n`` goes to)
                self.match_pos = bisect.bisect_right(self.matches, max(self.cursor, 0)) - 1
            self.post_message(self.Searching(self))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``n`` / ``N`` while a term is set (the footer says ``n`` then)."""
        if action == "next_match" and not self.search_term:
            return False
        return super().check_action(action, parameters)

    def action_next_match(self, direction: int) -> None:
        """``n`` / ``N``: the next or previous match, among those found so far while a
        search is under way (the header says how far it has looked)."""
        if self.step_match(direction):
            if self.searching is None:
                self.post_message(self.Searched(self, self.search_term, len(self.matches)))
            else:
                self.post_message(self.Searching(self))
        elif self.searching is not None:
            self.say("No match found yet: still searching.")
        else:
            self.say("No matches (/ searches).")


__all__ = ["SEARCH_STEP", "ItemSearch"]
