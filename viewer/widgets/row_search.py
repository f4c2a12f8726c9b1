"""A list's own search (``/``, ``n`` / ``N``) of the rows it shows: a row is found when
what it stands for (an agentgo record, a tool operation, a diff's row) holds the term,
looked for in a worker (a 1 GB session's are read again from the file) from the cursor
to the end and then from the start, the cursor going to the first match as soon as it is
found, how far it has looked told meanwhile, and rows appended to a followed file
searched as they come. What a row is searched for in is its finder's
(``agentgo.search.RecordSearch``, ``search.OpSearch``, ``search.TextSearch``)."""

from __future__ import annotations

import bisect
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from textual import work
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.worker import get_current_worker

from .line_list import LineList

SEARCH_STEP = 2_000  # rows looked through between two words to the screen
# what a matching row says where it shows the start of its text and the match is not in it
FURTHER_ON = "‹the match is further on than this row shows: enter shows its line›"


# n / N / p to the matches, said in the footer: a list whose own steps (the diffs' through
# compactions) have those keys until it is searched (``RowSearch.check_action``)
MATCH_STEPS: list[BindingType] = [
    Binding("n", "step_match(1)", "Next match", tooltip="Next match of this tab's search"),
    Binding(
        "N,p",
        "step_match(-1)",
        "Previous match",
        show=False,
        tooltip="Previous match of this tab's search",
    ),
]


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
        Binding("n", "step_match(1)", "Next match"),  # (in the footer once searched)
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
        match at or after it (else the first of all) as soon as that is found, and
        ``Searched`` says how many once every row was looked at."""
        self.search_term = term
        self._start_over(announce=True)
        self.refresh_bindings()  # (what n / N do, and the footer says, may change)

    def search_lock(self) -> contextlib.AbstractContextManager[object]:
        """What the worker holds while it looks through a stretch of rows (what they stand
        for may be changed by the file's reader meanwhile: v1's replay state)."""
        return contextlib.nullcontext()

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
            self.post_message(self.Searching())  # (the header says no search any more)
            return
        self._look(0, announce)

    def _look(self, start: int, announce: bool, jumped: bool = False) -> None:
        keys = self.search_keys(start, self.item_count())
        self.searching = (start, len(self.matches))
        source = self.search_source()
        test = self.finder(self.search_term)
        origin = max(self.cursor, start)
        self._search(self._search_id, test, source, keys, start, origin, announce, jumped)
        self.post_message(self.Searching())  # (the header says it has begun)

    @work(thread=True, exclusive=True, group="row-search", description="row-search")
    def _search(
        self,
        search_id: int,
        test: Finder,
        source: Any,
        indices: Sequence[int],
        start: int,
        origin: int,
        announce: bool,
        jumped: bool,
    ) -> None:
        """Rows ``start`` on (what they stand for: ``indices``), a stretch at a time: from
        ``origin`` (the cursor) to the end first, then from ``start`` up to it, so that
        the first match found is the one the cursor goes to, at once (a big diff takes
        seconds to search through); ``jumped``: it went to one already (or is not to)."""
        worker = get_current_worker()
        total = len(indices)
        split = min(max(origin - start, 0), total)
        after: list[int] = []
        before: list[int] = []
        jumped = jumped or not announce
        looked = 0
        for first, end, into in ((split, total, after), (0, split, before)):
            for low in range(first, end, SEARCH_STEP):
                high = min(low + SEARCH_STEP, end)
                with self.search_lock():
                    stretch = test.find(source, indices[low:high], lambda: worker.is_cancelled)
                if stretch is None:
                    return
                into.extend(start + low + position for position in stretch)
                looked += high - low
                if stretch and not jumped:
                    jumped = True
                    first_found = start + low + stretch[0]
                    self.app.call_from_thread(self._found_first, search_id, first_found)
                if looked < total:
                    so_far = before + after  # (in order: those before the cursor come first)
                    self.app.call_from_thread(
                        self._progress, search_id, start, start + looked, so_far
                    )
        found = before + after
        self.app.call_from_thread(
            self._searched, search_id, start, start + total, found, announce, jumped
        )

    def _found_first(self, search_id: int, row: int) -> None:
        if search_id == self._search_id:
            self.jump_to(row)

    def _progress(self, search_id: int, start: int, looked: int, found: list[int]) -> None:
        """How far a search has looked, and the matches found so far (from ``start``: the
        rows before were searched), which ``n`` / ``N`` step through meanwhile."""
        if search_id == self._search_id:
            self.matches = [*self.matches[: bisect.bisect_left(self.matches, start)], *found]
            self.searching = (looked, len(self.matches))
            self.invalidate()  # (the matches' highlight)
            self.post_message(self.Searching())

    def _searched(
        self,
        search_id: int,
        start: int,
        end: int,
        found: list[int],
        announce: bool,
        jumped: bool,
    ) -> None:
        if search_id != self._search_id:
            return
        self.matches = [*self.matches[: bisect.bisect_left(self.matches, start)], *found]
        self._searched_through = end
        if found:
            self.invalidate()
        if self.item_count() > end:  # appended while it looked: on through those
            self._look(end, announce, jumped)
            return
        self.searching = None
        if announce:
            if jumped and self.matches:  # the cursor went to the first one found (and may
                at = bisect.bisect_left(self.matches, max(self.cursor, 0))  # have moved since)
                self.match_pos = min(at, len(self.matches) - 1)
            else:
                self.match_pos = -1
                self.first_match()
            self.post_message(self.Searched(self.search_term, len(self.matches)))
        else:
            self.post_message(self.Searching())

    def watch_cursor(self, old: int, new: int) -> None:
        super().watch_cursor(old, new)
        if self.matches:  # (the header says whether the cursor is on one, and which)
            self.post_message(self.Searching())

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``n`` / ``N`` are the matches' only while a term is set: the footer says them
        then, and a list's own keys (the diffs' steps) have them until it is searched."""
        if action == "step_match" and not self.search_term:
            return False
        return super().check_action(action, parameters)

    def action_step_match(self, direction: int) -> None:
        """``n`` / ``N``: the next or previous matching row, round the end."""
        if self.step_match(direction):
            self.post_message(self.Searching())
        elif self.searching is not None:
            self.notify("No match found yet: still searching.", timeout=2)
        else:
            self.notify(self.NOT_FOUND, timeout=2)


__all__ = ["FURTHER_ON", "SEARCH_STEP", "Finder", "RowSearch"]
