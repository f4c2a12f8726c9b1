"""The ``?`` screen: every key, with what it does."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

KEYS: list[tuple[str, list[tuple[str, str]]]] = [
    (
        "Moving",
        [
            ("j / k, ↓ / ↑", "next / previous message"),
            ("g / G, Home / End", "first / last message"),
            ("PgDn / PgUp, space / b", "page down / up"),
            ("t / T", "next / previous tool call"),
            ("e / E", "next / previous error (is-error, failed or unknown outcome)"),
            ("x / X", "next / previous compaction (or summary)"),
            ("mouse", "click selects, double-click folds/expands, wheel scrolls"),
        ],
    ),
    (
        "Looking",
        [
            ("enter", "fold / expand the message (content, reasoning, arguments)"),
            ("o", "an elided message: show the original or the stub"),
            ("c", "copy the message to the clipboard"),
            ("r", "replayed view (what the model is sent next) / raw view (every line)"),
            ("f", "filter by role or by line type"),
            ("/ then n / N", "search, next / previous match"),
        ],
    ),
    (
        "Panes",
        [
            ("1 2 3 4", "conversation, diff, tool operations, run contexts"),
            ("ctrl+p, Export…", "the transcript as Markdown, HTML or JSON"),
            ("d", "the diff: raw versus replayed (n / p step through differences)"),
            ("a (tools)", "open the selected operation's artifact"),
            ("w", "warnings: malformed lines, resets, a replaced file"),
            ("ctrl+p", "command palette: every action by name"),
            ("?", "this help"),
            ("q", "quit"),
        ],
    ),
    (
        "agentgo sessions",
        [
            ("1 2 3 4 5", "runs, calls, conversation, checkpoints, timeline"),
            ("enter (runs)", "show only that run in the other tabs; a: all runs"),
            ("[ / ]", "previous / next run"),
            ("e / E", "next / previous failed call or gap"),
            ("enter (timeline)", "open that record's call"),
        ],
    ),
    (
        "Directory browser (tailscope DIR)",
        [
            ("enter / escape", "open the selected transcript / back to the list"),
            ("/", "filter by text (file, agent, model, status)"),
            ("a l c d f n", "all, live, crashed, damaged, finished, not transcripts"),
            ("s / S", "next sort column / reverse the order (or click a header)"),
            ("r", "scan again"),
        ],
    ),
]


class HelpScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss", "Close"),
    ]

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        for section, keys in KEYS:
            table.add_row(Text(section, style="bold underline"), "")
            for key, what in keys:
                table.add_row(Text(key), Text(what))
            table.add_row("", "")
        with VerticalScroll(id="help-body"):
            yield Static(Text("tailscope — keys", style="bold"), id="help-title")
            yield Static(table)
            yield Static(Text("escape closes", style="dim"))
