"""The ``w`` screen: every warning about the open file, as plain text."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from session_core.text import count

from ..safe import inert


class WarningsScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,w", "dismiss", "Close")]

    def __init__(self, warnings: list[str]) -> None:
        super().__init__()
        self.warnings = warnings

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="warnings-body"):
            yield Static(Text(count(len(self.warnings), "warning"), style="bold"))
            body = Text("\n").join(Text(inert(w)) for w in self.warnings[-2000:])
            yield Static(body if self.warnings else Text("No warnings.", style="dim"))
        yield Footer()  # (its own keys, not the screen's below, which do nothing here)
