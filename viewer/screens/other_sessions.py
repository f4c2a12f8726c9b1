"""Where a quiet writer went on: the other sessions of a followed file's project.

Claude Code starts a new session file at ``/clear`` (and, reported, some versions at an
auto-compaction), so a run watched live can go on in another file while the one shown
goes quiet. Once the writer has been quiet for a while (``quiet_label``), the screen asks
its format, every few seconds and off the UI thread, which sessions of the same project
were written to since its last write (``TranscriptFormat.written_since``), tells the
latest under the header, and ``O`` opens it over this one (escape comes back).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work

if TYPE_CHECKING:
    from session_core.formats.base import TranscriptFormat

LOOK_EVERY = 5.0  # seconds between two looks while the writer is quiet


class OtherSessions:
    """A screen's look for the sessions its file's writer may have gone on in (mixed into
    the model screen, which has ``format``, ``path`` and ``app``, ahead of its ``Screen``
    so that its ``check_action`` is the one asked)."""

    format: TranscriptFormat
    path: str
    app: Any
    quiet_since: float | None
    _refresh_status: Callable[[], None]
    show_problem: Callable[..., None]

    def init_other_sessions(self) -> None:
        self.others: list[str] = []  # written to since this file's last write, latest first
        self._looked_at = -math.inf

    def show_banner(self, problem: str | None, held: str | None = None) -> None:
        """The banner under the header: a problem, else a line held back (``held``: all
        there is, and no view shows it), else where a quiet writer went on."""
        self.look_for_others(self.quiet_since)
        notice = (held or self.others_notice()) if problem is None else None
        self.show_problem(problem or notice, notice=notice is not None)

    def look_for_others(self, last_write: float | None) -> None:
        """The writer is quiet since ``last_write`` (None: it is not quiet, or not known):
        look again if it is time; a writer at work again forgets what was found."""
        if last_write is None:
            self.others = []
            return
        now = time.monotonic()
        if now - self._looked_at >= LOOK_EVERY:
            self._looked_at = now
            self._find_others(last_write)

    @work(thread=True, exclusive=True, group="other-sessions", description="other-sessions")
    def _find_others(self, since: float) -> None:
        found = self.format.written_since(self.path, since)
        self.app.call_from_thread(self._found_others, found)

    def _found_others(self, found: list[str]) -> None:
        if found != self.others:
            self.others = found
            self._refresh_status()

    def others_notice(self) -> str | None:
        if not self.others:
            return None
        more = len(self.others) - 1
        also = f" (and {more} more)" if more else ""
        return (
            f"Another session of this project was written to since this one went quiet: "
            f"{os.path.basename(self.others[0])}{also}. O opens it."
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``O`` only where the format can name another session (off the footer, the
        help and the palette elsewhere)."""
        if action == "open_other":
            return self.format.finds_other_sessions
        checked: bool | None = super().check_action(action, parameters)  # type: ignore[misc]
        return checked

    def others_palette(self) -> list[tuple[str, str, Callable[[], None]]]:
        """The command palette's way to ``O``, while there is another session to open."""
        if not self.others:
            return []
        name = os.path.basename(self.others[0])
        return [("Open the session the writer went on in", name, self.action_open_other)]

    def action_open_other(self) -> None:
        """The latest session written to since, over this one."""
        from ..format_screens import open_file_screen

        if not self.others:
            self.app.notify("No other session of this project was written to since.")
            return
        self.app.push_screen(open_file_screen(self.others[0]))


__all__ = ["LOOK_EVERY", "OtherSessions"]
