"""What a format adds to the model screen: its own panes, for what the shared ones lack.

Every format opens on one screen over the neutral model (``ModelScreen``: conversation,
tool operations, runs, diff). A format that names ``extra_panes`` (its
``TranscriptFormat``) has a ``PaneSet`` registered here under its name: the panes by
those names, the keys and palette entries that go with them, and how they keep up
with the file. ``ModelScreen`` hosts them through this interface alone; it never asks
which format it shows. The module that registers a format's pane set is the one its
format names (``viewer_module``), built-in or a plugin's, imported when a file of it is
first opened: opening another format does not pay for it. A format whose panes are not
there (no such module, or it gives not every pane named) is shown with the shared tabs,
and the screen says why (``panes_missing``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual.binding import BindingType
from textual.widget import Widget

from session_core.open_work import transcript_work

if TYPE_CHECKING:
    from session_core.formats.base import TranscriptFormat
    from session_core.model import Item, Run, ToolOp, Transcript

    from ..screens.following import Command
    from ..screens.model_screen import ModelScreen
    from ..widgets.block_view import Entry


@dataclass(frozen=True, slots=True)
class ExtraPane:
    """One pane a format adds: its name (one of the format's ``extra_panes``, the tab's
    id), its tab's title, how it is made, and the palette's command that shows it (its
    name and what it says of the pane)."""

    id: str
    title: str
    make: Callable[[], Widget]
    command: str
    help: str


class PaneSet:
    """A format's own panes on the model screen, and what keeps them up to date.

    Made once per screen; ``screen`` is the ``ModelScreen`` (its ``live`` the format's
    live model). Called on the UI thread, with the screen's ``state_lock`` held where
    said: the worker is not changing the model then.
    """

    PANES: ClassVar[tuple[ExtraPane, ...]] = ()
    # Every tab (shared and own) in order, where the format keeps keys of its own
    # (``1`` is the first); empty: the shared tabs first, then these.
    ORDER: ClassVar[tuple[str, ...]] = ()
    BINDINGS: ClassVar[list[BindingType]] = []  # keys of the screen that go with the panes

    def __init__(self, screen: ModelScreen) -> None:
        self.screen = screen

    def followed(self, reset: bool) -> None:
        """A batch of the file was applied (lock held; a big file's end-first preview is
        over). ``reset``: the file was replaced, everything starts again."""

    def liveness_changed(self, live: bool) -> None:
        """The writer died or came back (lock held)."""

    def tab_shown(self, tab: str) -> None:
        """A tab (any) was brought to the front."""

    def focus_target(self, tab: str) -> Widget:
        """What takes the focus when one of these panes' tabs is shown."""
        return self.screen.query_one(f"#{tab}").children[0]

    def status(self) -> list[str]:
        """What the header says for this format, part by part (none: nothing); a line is
        broken between parts, never inside one (a value may hold " · " itself)."""
        return []

    def in_flight(self, transcript: Transcript) -> list[str]:
        """What the writer left in flight, in ``check``'s words (``open_work``), part by
        part: of the neutral model (v1's own count among it, ``Transcript.left_open``),
        where the format's own view knows no more (empty: nothing)."""
        return transcript_work(transcript).said()

    def run_chosen(self, run: Run) -> bool:
        """``enter`` (or a double click) on a run in the runs tab; False: the screen
        does what it does for every format (the run's first line in the conversation)."""
        return False

    def run_detail(self, run: Run, index: int) -> list[Entry]:
        """Lines of the runs tab's detail for ``run``, after the shared ones."""
        return []

    def op_detail(self, op: ToolOp) -> list[Entry]:
        """Lines of a tool operation's detail, after the shared ones."""
        return []

    def op_artifact(self, op: ToolOp) -> Callable[[], None] | None:
        """What ``a`` in a tool operation's detail does: open its artifact (None: it has
        none)."""
        return None

    def search_term(self, tab: str) -> str | None:
        """What that tab's own search last looked for (None: it has no search)."""
        return None

    def search_said(self, tab: str) -> str:
        """Where that tab's own search is (``/bash: 2/3``), said on the header's first line
        as every tab's search is ("": none)."""
        return ""

    def search(self, tab: str, term: str) -> int | None:
        """``/`` on one of these panes' tabs: how many matches of ``term`` it found and
        shows (None: the tab has no search of its own, the conversation is searched)."""
        return None

    def narrow(self, items: Sequence[Item]) -> Sequence[Item]:
        """The conversation's items as these panes would have them shown (every one)."""
        return items

    def palette(self) -> list[Command]:
        """The palette's commands of the set's own (each pane's tab has its own, which
        shows it: its ``command``)."""
        return []


PANE_SETS: dict[str, type[PaneSet]] = {}


def register_panes(fmt: str, panes: type[PaneSet]) -> None:
    """Give the format ``fmt`` (its name) its own panes on the model screen: called by
    the module its format names as its ``viewer_module``."""
    PANE_SETS[fmt] = panes


def panes_missing(fmt: TranscriptFormat) -> str:
    """Why a format that names ``extra_panes`` has them not shown (empty: it names none,
    or its pane set gives every one), its ``viewer_module`` imported first."""
    if not fmt.extra_panes:
        return ""
    module = fmt.viewer_module
    if fmt.name not in PANE_SETS and module:
        try:
            importlib.import_module(module)
        except ImportError as err:  # (a plugin's viewer side not installed)
            return f"{fmt.name}'s own panes are not shown: {module} cannot be imported ({err})"
    panes = PANE_SETS.get(fmt.name)
    given = {pane.id for pane in panes.PANES} if panes is not None else set()
    missing = [name for name in fmt.extra_panes if name not in given]
    if not missing:
        return ""
    whence = f"{module} imported" if module else "it names no viewer_module"
    return (
        f"{fmt.name}'s own panes are not shown: no pane set gives {', '.join(missing)} ({whence})"
    )


def pane_set_for(fmt: TranscriptFormat) -> type[PaneSet] | None:
    """The pane set of a format that names ``extra_panes``; None: it names none, or not
    every one is there (``panes_missing``: its files get the shared tabs alone)."""
    if not fmt.extra_panes or panes_missing(fmt):
        return None
    return PANE_SETS[fmt.name]


__all__ = [
    "PANE_SETS",
    "ExtraPane",
    "PaneSet",
    "pane_set_for",
    "panes_missing",
    "register_panes",
]
