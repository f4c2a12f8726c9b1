"""TailscopeApp: live and post-mortem views of agent transcripts."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from textual import on
from textual.app import SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen

from session_core.compressed import file_read
from session_core.formats import Format, detect_format
from session_core.text import inert

from .format_screens import screen_for
from .keys_in_turn import KeysInTurn
from .readable_colours import readable_colours
from .screens.following import FollowingScreen
from .screens.help import BindingsHelpScreen, screen_sections

if TYPE_CHECKING:
    from .screens.model_screen import ModelScreen

# The model screen and the directory browser are imported when first needed: opening a
# file should not pay for the browser, nor the browser for the model screen (the first
# screen of a big file is a start-up race).

STYLES = Path(__file__).parent / "styles"
S = TypeVar("S", bound="Screen[Any]")


class TailscopeApp(KeysInTurn):
    """Open a transcript (any registered format) and follow it as it grows. Its keys are
    handled in turn (``keys_in_turn``: one typed in a burst reaches the dialog the key
    before it opened)."""

    TITLE = "tailscope"
    CSS_PATH: ClassVar[list[str | PurePath]] = [
        STYLES / "app.tcss",
        STYLES / "panes.tcss",
        STYLES / "agentgo.tcss",
        STYLES / "browser.tcss",
    ]
    BINDINGS: ClassVar[list[BindingType]] = [
        # (first in the footer, before the screen's keys: ``KeysFooter.FIRST_KEYS``; a
        # full one cut off what came last, and q there quit the app)
        Binding("escape", "close_file", "Back to the list"),
        # (a file opened over another, a subagent's: said in the footer and the help,
        # where escape went back unsaid)
        Binding("escape", "back", "Back"),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(
        self, path: str | os.PathLike[str] | Sequence[str], *, force_polling: bool = False
    ) -> None:
        super().__init__()
        readable_colours(self)  # (NO_COLOR, 16 colours: each text can be read)
        # Several directories: ``tailscope`` with no path, over each agent's own tree
        # (none: the welcome screen).
        self.roots: list[str] | None = None
        if isinstance(path, str | os.PathLike):
            self.path = os.fspath(path)
        else:
            self.roots = list(path)
            self.path = os.path.commonpath(self.roots or ["/"])
        self.force_polling = force_polling

    def get_default_screen(self) -> Screen[Any]:
        if self.roots == []:
            from .screens.welcome import WelcomeScreen

            return WelcomeScreen(_looked_in())
        if self.roots is not None or os.path.isdir(self.path):
            from .screens.browser import BrowserScreen

            where = self.path if self.roots is None else self.roots
            return BrowserScreen(where, force_polling=self.force_polling)
        # (the file the follower will read: a rollout compressed in place, its copy)
        return self.screen_for(detect_format(file_read(self.path)))

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification is plain text, made inert: they name search terms, file
        names and paths, which are untrusted (markup, and escape sequences a terminal
        would obey). None of ours is written in markup."""
        super().notify(
            inert(message), title=inert(title), severity=severity, timeout=timeout, markup=False
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("close_file", "back"):
            # Not imported to ask: no browser was ever opened if its module is not loaded.
            browser = sys.modules.get(f"{__package__}.screens.browser")
            stack = self.screen_stack
            over_list = (
                browser is not None
                and len(stack) > 1
                and isinstance(stack[-2], browser.BrowserScreen)
            )
            if action == "close_file":  # only over a file opened from the browser
                return over_list
            # a file over anything else (another file, the welcome screen)
            return len(stack) > 1 and isinstance(stack[-1], FollowingScreen) and not over_list
        return True

    async def action_back(self) -> None:  # (async as the App action it overrides)
        """Back to what the file was opened over."""
        if self.check_action("back", ()):
            self.pop_screen()

    def action_close_file(self) -> None:
        """Close the file opened from the browser (its follow worker is cancelled on unmount)."""
        if self.check_action("close_file", ()):
            self.pop_screen()

    def screen_for(self, fmt: Format | None, path: str | None = None) -> Screen[Any]:
        """The screen that shows a file of this format (``format_screens`` decides)."""
        path = self.path if path is None else path  # the browser opens files below self.path
        return screen_for(fmt, path, force_polling=self.force_polling)

    @on(FollowingScreen.FormatChanged)
    def _format_changed(self, event: FollowingScreen.FormatChanged) -> None:
        self.swap_format(event.following, event.format, event.said)

    def swap_format(self, old: Screen[Any], fmt: Format, said: Sequence[str] = ()) -> None:
        """A followed file turned out to be (or became) another format: replace its screen.
        ``said``: the warnings of the reset that brought it (replaced, truncated,
        rewritten), kept in the new screen's warnings and said in the toast."""
        if old not in self.screen_stack:
            return
        closed = self.screen is not old  # (a dialog over it)
        while self.screen is not old and len(self.screen_stack) > 1:
            self.pop_screen()  # a modal over the old screen belongs to it
        if not old._result_callbacks:
            # switch_screen pops a result callback that a default screen never got.
            old._push_result_callback(self, None)
        new = self.screen_for(fmt, getattr(old, "path", None))
        if isinstance(new, FollowingScreen):
            new.carried = list(said)
        self.switch_screen(new)
        self.notify(
            format_swap_said(fmt, said, closed),
            severity="warning" if said else "information",
            timeout=8 if said else 4,
        )

    def topmost(self, kind: type[S], what: str) -> S:
        """The top screen of this kind (the one under any modal); LookupError names
        ``what`` when none is open."""
        for screen in reversed(self.screen_stack):
            if isinstance(screen, kind):
                return screen
        raise LookupError(f"no {what} is open")

    @property
    def file_screen(self) -> ModelScreen:
        """The screen of the open file (the one under any modal)."""
        from .screens.model_screen import ModelScreen

        return self.topmost(ModelScreen, "file")

    def action_help(self) -> None:
        of_file = isinstance(self.screen, FollowingScreen)  # (a file's: it has Export…)
        mouse = getattr(self.screen, "HELP_MOUSE", None)  # (the browser's: its own)
        sections = screen_sections(self.screen)
        self.push_screen(
            BindingsHelpScreen("tailscope — keys", sections, of_file=of_file, mouse=mouse)
        )

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        # Textual's "Keys" is a docked panel that escape does not close (there, escape
        # left the file): our help, a dialog of every key (``?``), takes its name. Its
        # "Screenshot" writes an SVG to ~/Downloads: only demo and export write files. Its
        # "Maximize" hid the header, tabs and footer, so nothing said that escape leaves
        # it, and each pane already scrolls: it gave nothing the app lacks ("Minimize"
        # undoes only it).
        for command in super().get_system_commands(screen):
            if command.title == "Quit":  # (said as the others are, by its key: Textual's
                # "Quit the application as soon as possible" read unlike them)
                yield SystemCommand("Quit", "key q", command.callback)
            elif command.title not in _NOT_OFFERED:
                yield command
        yield SystemCommand("Keys", "Every key binding, by screen area (also ?)", self.action_help)
        browser = sys.modules.get(f"{__package__}.screens.browser")  # (loaded: one was shown)
        for candidate in reversed(self.screen_stack):  # (the one under a dialog too)
            if isinstance(candidate, FollowingScreen) or (
                browser is not None and isinstance(candidate, browser.BrowserScreen)
            ):
                yield from candidate.commands()
                break


def format_swap_said(fmt: Format, said: Sequence[str], closed: bool) -> str:
    """The toast of a file shown by another format's screen: what happened to it (the
    reset's reason, where one brought it), what it is now, and a dialog closed."""
    from session_core.tail_reader import AGAIN

    why = next((w.removesuffix(AGAIN) for w in said if w.endswith(AGAIN)), "")
    if why:
        happened = f"{why[:1].upper()}{why[1:]}, now of another format ({fmt})"
        text = f"{happened}: the view was rebuilt from line 1 as such."
    else:
        text = f"This file is {fmt}: showing it as such."
    return f"{text} (The dialog open over it was closed.)" if closed else text


# Textual's commands the palette leaves out (``get_system_commands`` says why).
_NOT_OFFERED = ("Keys", "Screenshot", "Maximize", "Minimize")


def _looked_in() -> list[str]:
    """Every directory ``tailscope`` with no path looks in (existing or not)."""
    from session_core.formats import FORMATS

    return [root for fmt in FORMATS for root in fmt.default_roots(os.environ)]


__all__ = ["TailscopeApp"]
