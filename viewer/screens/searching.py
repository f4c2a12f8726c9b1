"""The search bar (``/``) a file screen shows under its tabs: the conversation searched,
or the shown tab's own search where it has one."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterable
from typing import ClassVar

from rich.text import Text
from textual import events, on
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Input, Static, TabbedContent

from .following import FIRST_TAB, FollowingScreen

UNDER_WAY = -1  # what a tab's own search returns while a worker looks (it says when done)


class SearchInput(Input):
    """The search bar's input, its keys in the footer while it has the focus (the footer
    said ``/ Search``, not what enter and escape do there)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "submit", "Find"),
        Binding("escape", "close", "Close"),
    ]

    def action_close(self) -> None:
        screen = self.screen
        if isinstance(screen, SearchingScreen):
            screen.close_search()


class SearchingScreen(FollowingScreen):
    """A file screen whose conversation is searched from a bar under the tabs (``/``)."""

    MATCHES_TIMEOUT: ClassVar[float | None] = None  # how long "N matches" shows (None: the app's)

    # n / N where no list took them: its binding is off until it is searched, and the
    # key did nothing at all (not in the help's list: the lists' own n / N are)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "unsearched_step(1)", "Next match", show=False),
        Binding("N", "unsearched_step(-1)", "Previous match", show=False),
    ]

    def __init__(self, path: str | os.PathLike[str], *, force_polling: bool, id: str) -> None:
        super().__init__(path, force_polling=force_polling, id=id)
        self._matches_told: tuple[str, int] | None = None  # the last toast of a search's
        self._matches_told_at = -math.inf

    def _below_tabs(self) -> Iterable[Widget]:
        note = Static(id="search-note")  # (what a tab with no search of its own searches)
        note.display = False
        bar = Vertical(
            note,
            SearchInput(
                placeholder="search the conversation (enter finds, escape closes)", id="search"
            ),
            id="search-bar",
        )
        bar.display = False
        return [bar]

    def action_search(self) -> None:
        self.query_one("#search-bar").display = True
        search = self.query_one("#search", Input)
        term = self.search_term_in_tab()
        search.value = self.conversation.search_term if term is None else term
        # (from a tab without a search of its own, the conversation is searched: said, as
        # a search begun on the tool operations table went to the conversation unasked)
        scope = "search the conversation" if term is None else "search this tab"
        search.placeholder = f"{scope} (enter finds, escape closes)"
        # (in its border too: the placeholder alone said it, hidden by the last term)
        search.border_title = scope
        search.focus()
        # (and aloud, on a line of the bar's own: the border alone went unread, and enter
        # then showed the conversation in place of the diff the user meant to search; a
        # toast said it over the bar's right half, the words being typed)
        note = self.query_one("#search-note", Static)
        said = self.conversations_note("search", "enter searches the conversation")
        note.update(Text(said or ""))
        note.display = bool(term is None and said)

    def close_search(self) -> None:
        """The bar closed (escape), the focus back to what is shown."""
        self.query_one("#search-bar").display = False
        self.focus_shown()

    def say_conversations(self, key: str, does: str) -> bool:
        """Where another tab than the conversation is shown, say that ``key`` (its
        ``search``, ``filter``) acts on the conversation: "The Runs tab has no filter of
        its own: …" (``does``). Whether it said so."""
        said = self.conversations_note(key, does)
        if said:
            self.notify(said, timeout=3)
        return bool(said)

    def conversations_note(self, key: str, does: str) -> str | None:
        """ "The Runs tab has no search of its own: …" where another tab than the
        conversation is shown (``say_conversations``)."""
        tabs = self.query_one(TabbedContent)
        if tabs.active == FIRST_TAB:
            return None
        title = tabs.get_tab(tabs.active).label.plain
        return f"The {title} tab has no {key} of its own: {does}."

    def action_unsearched_step(self, direction: int) -> None:
        """``n`` / ``N`` that no list took: said, as no search yet (or the conversation's
        matches stepped through, where its list did not have the focus)."""
        term = self.search_term_in_tab()
        if term is None:
            if self.say_conversations("search", "/ searches the conversation"):
                return
            if self.conversation.search_term:
                self.conversation.action_next_match(direction)
                return
        elif term:
            self.notify("n / N step through the matches of the tab's list: click it.", timeout=2)
            return
        self.notify("No search yet: / searches.", timeout=2)

    @property
    def search_open(self) -> bool:
        """Is the search bar shown (its input the keys')?"""
        return bool(self.query_one("#search-bar").display)

    def focus_shown(self) -> None:
        """The focus back to what is shown (from the search bar)."""
        self.conversation.focus()

    def search_term_in_tab(self) -> str | None:
        """What the shown tab's own search last looked for (None: it has none)."""
        return None

    def search_in_tab(self, term: str) -> int | None:
        """The shown tab's own search of ``term``: how many matches (None: it has none,
        the conversation is searched; ``UNDER_WAY``: a worker looks)."""
        return None

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        self.query_one("#search-bar").display = False
        found = self.search_in_tab(event.value)
        if found is not None:
            if event.value and found != UNDER_WAY:  # (else the tab has it said when done)
                self._notify_matches(event.value, found)
            return
        self.action_show_tab("conversation")
        # (None: the view says when it is done)
        count = self.conversation.search(event.value, land_later=self._previewing)
        if event.value and count is not None:
            self._notify_matches(event.value, count)
        else:
            self._refresh_status()

    @on(Input.Blurred, "#search")
    def _search_left(self) -> None:
        """The focus left the bar (tab, a click): it closes, as escape closes it (it
        stayed open, its keys no one's, over every tab shown after)."""
        bar = self.query_one("#search-bar")
        # (not when the terminal lost the focus: Textual gives it back to the bar, which,
        # hidden, then took every key unseen)
        if self.search_open and self.app.app_focus and self.focused is not None:
            bar.display = False

    def _notify_matches(self, term: str, count: int) -> None:
        said = (term, count)
        now = time.monotonic()
        timeout = self.MATCHES_TIMEOUT
        if timeout is None:
            timeout = self.app.NOTIFICATION_TIMEOUT
        # (n / N say it each press: one toast while the last still shows, the header counts)
        if said != self._matches_told or now - self._matches_told_at > timeout:
            self.notify(
                # (the term as typed, as the header shows it: ``notify`` draws it inert)
                f"{count} match{'es' if count != 1 else ''} for '{term}'"
                + (
                    ""
                    if self._loaded
                    else " so far: the file is still loading, and is searched as it comes"
                ),
                timeout=timeout,
            )
            self._matches_told, self._matches_told_at = said, now
        self._refresh_status()

    def on_key(self, event: events.Key) -> None:
        # (escape with the bar closed is the app's: back to the list, or to the file this
        # one was opened over)
        if event.key == "escape" and self.search_open:
            event.stop()  # escape closes the search, not the file
            self.close_search()
