"""The ``w`` screen: every warning about the open file, as plain text; and, where the
writer left its last line unfinished, ``t`` reads that line whole."""

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
from .unfinished_line import UnfinishedLine


class WarningsScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,w", "dismiss", "Close"),
        Binding("t", "unfinished", "The unfinished line"),
    ]

    def __init__(self, warnings: list[str], unfinished: UnfinishedLine | None = None) -> None:
        super().__init__()
        self.warnings = warnings
        self.unfinished = unfinished

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="warnings-body"):
            yield Static(id="warnings-count")
            yield Static(id="warnings-unfinished")
            yield Static(id="warnings-list")
        yield Footer()  # (its own keys, not the screen's below, which do nothing here)

    def on_mount(self) -> None:
        self._show()

    def _show(self, why: str = "") -> None:
        said = Text(count(len(self.warnings), "warning"), style="bold")
        if why:  # (the list is not the one first opened: said so)
            said.append(f"  ({why})", style="italic")
        self.query_one("#warnings-count", Static).update(said)
        unfinished = self.query_one("#warnings-unfinished", Static)
        unfinished.display = self.unfinished is not None
        if self.unfinished is not None:
            line, size = self.unfinished.line, self.unfinished.size
            unfinished.update(Text(f"t reads line {line} whole ({size:,} bytes)", style="italic"))
        body = Text("\n").join(Text(inert(w)) for w in self.warnings[-2000:])
        listed = self.query_one("#warnings-list", Static)
        listed.update(body if self.warnings else Text("No warnings.", style="dim"))

    def renew(self, warnings: list[str], unfinished: UnfinishedLine | None, why: str) -> None:
        """The file was read again (a reset) while this was open: its warnings now, and
        ``why`` the list changed (it kept the old file's, and ``t`` a line gone)."""
        self.warnings, self.unfinished = warnings, unfinished
        self._show(why)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.unfinished is not None if action == "unfinished" else True

    def action_unfinished(self) -> None:
        if self.unfinished is not None:
            from .unfinished_line_screen import UnfinishedLineScreen  # (its TextArea: once asked)

            self.app.push_screen(UnfinishedLineScreen(self.unfinished))
