"""What ``tailscope`` with no path shows when no agent's session directory exists here."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Static


class WelcomeScreen(Screen[None]):
    """How to point tailscope at files, and the demo one key away."""

    DEFAULT_CSS = """
    WelcomeScreen { align: center middle; }
    WelcomeScreen > Vertical {
        width: 84; max-width: 100%; height: auto; border: round $primary; padding: 1 2;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "demo", "Run the demo"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, looked_in: list[str]) -> None:
        super().__init__(id="welcome")
        self.looked_in = looked_in

    def compose(self) -> ComposeResult:
        text = Text()
        text.append("tailscope", style="bold")
        text.append(" watches, browses and compares agent transcripts.\n\n")
        text.append("No agent sessions were found here. Looked in:\n")
        for place in self.looked_in:
            text.append(f"  {place}\n", style="dim")
        text.append("\nPoint it at a transcript or a directory of them:\n\n")
        for example in (
            "tailscope ~/.claude/projects/<project>/<session>.jsonl",
            "tailscope ~/.codex/sessions",
            "tailscope path/to/transcript.jsonl",
        ):
            text.append(f"  {example}\n", style="bold")
        text.append("\nOr press ")
        text.append("d", style="bold reverse")
        text.append(" for the demo: a simulated agent run, written live.")
        with Vertical():
            yield Static(text, id="welcome-text")
        yield Footer()

    def action_demo(self) -> None:
        # The demo starts its writer beside a viewer of its own: leave this app first.
        self.app.exit(result="demo")
