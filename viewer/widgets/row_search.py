"""A list's own search (``/``, ``n`` / ``N``) of the rows it shows: a row is found when
what it stands for (an agentgo record, a tool operation) holds the term, looked for in a
worker (a 1 GB session's are read again from the file), how far it has looked told
meanwhile, and rows appended to a followed file searched as they come. What a row is
searched for in is its finder's (``agentgo.search.RecordSearch``, ``search.OpSearch``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from textual import work
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.worker import get_current_worker

from .line_list import LineList

SEARCH_STEP = 2_000  # rows looked through between two words to the screen


class Finder(Protocol):
    def find(
        self, source: Any, keys: Sequence[int], cancelled: Callable[[], bool] | None = None
    ) -> list[int] | None:
        """The positions in ``keys`` of those that hold the term (None: cancelled)."""
        ...


class RowSearch(LineList):
    """A list that searches what its rows stand for: the subclass says where they are
    (``search_source``), which of them each row is (``search_keys``) and how one is
    looked at (``finder``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "step_match(1)", "Next match", show=False),
        Binding("N", "step_match(-1)", "Previous match", show=False),
    ]

    NOT_FOUND: ClassVar[str] = "No row matches: / searches this tab."

    @dataclass
    class Searched(Message):
        """A search ended: ``count`` rows hold ``term``."""

        term: str
        count: int

    @dataclass
    class Searching(Message):
        """What the header says of the search changed (how far it has looked, the
        matches of rows appended, the cursor's place among them)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.search_term = ""
        self.searching: tuple[int, int] | None = None  # under way: (rows looked, found)
        self._searched_through = 0  # the rows the matches were looked for in
        self._search_id = 0  # the latest search's (a result of an older one is dropped)

    def search_source(self) -> Any:
        """What the rows stand for, as of now (a worker looks at it)."""
        raise NotImplementedError

    def search_keys(self, start: int, end: int) -> Sequence[int]:
        """What rows ``start`` to ``end`` stand for in ``search_source``."""
        return range(start, end)

    def finder(self, term: str) -> Finder:
        raise NotImplementedError

    # -- searching ------------------------------------------------------------------

    def search(self, term: str) -> None:
        """Look for ``term`` in what every row stands for; the cursor goes to the first
        match at or after it when the search ends, and ``Searched`` says how many."""
        self.search_term = term
        self._start_over(announce=True)

    def search_again(self) -> None:
        """The rows are others (another view, another run): searched again, quietly."""
        if self.search_term:
            self._start_over(announce=False)

    def search_appended(self) -> None:
        """Rows were appended: those not searched yet are (after a search under way)."""
        unsearched = self._searched_through < self.item_count()
        if self.search_term and self.searching is None and unsearched:
            self._look(self._searched_through, announce=False)

    def _start_over(self, announce: bool) -> None:
        self.matches, self.match_pos = [], -1
        self._searched_through = 0
        self._search_id += 1
        self.invalidate()  # (the matches' highlight)
        if not self.search_term:
            self.searching = None
            self.workers.cancel_group(self, "row-search")
            return
        self._look(0, announce)

    def _look(self, start: int, announce: bool) -> None:
        keys = self.search_keys(start, self.item_count())
        self.searching = (start, len(self.matches))
        source = self.search_source()
        self._search(self._search_id, self.finder(self.search_term), source, keys, start, announce)
        self.post_message(self.Searching())  # (the header says it has begun)

    @work(thread=True, exclusive=True, group="row-search", description="row-search")
    def _search(
        self,
        search_id: int,
        test: Finder,
        source: Any,
        indices: Sequence[int],
        start: int,
        announce: bool,
    ) -> None:
        """Rows ``start`` on (what they stand for: ``indices``), a stretch at a time."""
        worker = get_current_worker()
        found: list[int] = []
        for low in range(0, len(indices), SEARCH_STEP):
            high = min(low + SEARCH_STEP, len(indices))
            stretch = test.find(source, indices[low:high], lambda: worker.is_cancelled)
            if stretch is None:
                return
            found.extend(start + low + position for position in stretch)
            if high < len(indices):
                self.app.call_from_thread(self._progress, search_id, start + high, found)
        self.app.call_from_thread(self._searched, search_id, start + len(indices), found, announce)

    def _progress(self, search_id: int, looked: int, found: list[int]) -> None:
        if search_id == self._search_id:
            self.searching = (looked, len(self.matches) + len(found))
            self.post_message(self.Searching())

    def _searched(self, search_id: int, end: int, found: list[int], announce: bool) -> None:
        if search_id != self._search_id:
            return
        self.matches = [*self.matches, *found]
        self._searched_through = end
        if found:
            self.invalidate()
        if self.item_count() > end:  # appended while it looked: on through those
            self._look(end, announce)
            return
        self.searching = None
        if announce:
            self.match_pos = -1
            self.first_match()
            self.post_message(self.Searched(self.search_term, len(self.matches)))
        else:
            self.post_message(self.Searching())

    def watch_cursor(self, old: int, new: int) -> None:
        super().watch_cursor(old, new)
        if self.matches:  # (the header says whether the cursor is on one, and which)
            self.post_message(self.Searching())

    def action_step_match(self, direction: int) -> None:
        """``n`` / ``N``: the next or previous matching row, round the end."""
        if self.step_match(direction):
            self.post_message(self.Searching())
        elif self.searching is not None:
            self.notify("No match found yet: still searching.", timeout=2)
        else:
            self.notify(self.NOT_FOUND, timeout=2)


__all__ = ["SEARCH_STEP", "Finder", "RowSearch"]
