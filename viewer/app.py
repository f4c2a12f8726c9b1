"""TailscopeApp: live and post-mortem views of agent transcripts."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from session_core.live import LiveTranscript

from .screens.help import HelpScreen
from .screens.transcript import TranscriptScreen

STYLES = Path(__file__).parent / "styles"


class TailscopeApp(App[None]):
    """Open a transcript (either format) and follow it as it grows."""

    TITLE = "tailscope"
    CSS_PATH: ClassVar[list[str | Path]] = [STYLES / "app.tcss", STYLES / "panes.tcss"]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("question_mark", "help", "Help"),
    ]

    def __init__(self, path: str | os.PathLike[str], *, force_polling: bool = False) -> None:
        super().__init__()
        self.path = os.fspath(path)
        self.force_polling = force_polling

    def get_default_screen(self) -> Screen:
        return TranscriptScreen(self.path, force_polling=self.force_polling)

    @property
    def transcript(self) -> TranscriptScreen:
        """The transcript screen (the one under any modal)."""
        for screen in reversed(self.screen_stack):
            if isinstance(screen, TranscriptScreen):
                return screen
        raise LookupError("no transcript is open")

    @property
    def live(self) -> LiveTranscript:
        return self.transcript.live

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Help", "Every key binding", self.action_help)
        for candidate in reversed(self.screen_stack):
            if isinstance(candidate, TranscriptScreen):
                yield from candidate.commands()
                break


__all__ = ["TailscopeApp"]
