"""The ``?`` screen of the model screen, built from the bindings themselves: a key added
to a widget shows here without anyone editing a list."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.keys import key_to_character
from textual.widgets import Static

from .help import HelpScreen

NAMES = {
    "slash": "/",
    "question_mark": "?",
    "escape": "esc",
    "pagedown": "PgDn",
    "pageup": "PgUp",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
}

Section = tuple[str, Sequence[BindingType]]


def key_name(key: str) -> str:
    if key in NAMES:
        return NAMES[key]
    char = key_to_character(key) if len(key) > 1 else key
    return char if char and char.isprintable() and char != " " else key


def binding_rows(bindings: Sequence[BindingType]) -> list[tuple[str, str]]:
    """(keys, what) per action, its keys joined: ``j / down``, ``next``."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for binding in Binding.make_bindings(bindings):
        grouped.setdefault((binding.action, binding.description), []).append(key_name(binding.key))
    return [(" / ".join(keys), what or action) for (action, what), keys in grouped.items()]


class BindingsHelpScreen(HelpScreen):
    """Every key of the given sections, as their bindings say."""

    def __init__(self, title: str, sections: Iterable[Section]) -> None:
        super().__init__()
        self.title_text = title
        self.sections = list(sections)

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        for section, bindings in self.sections:
            table.add_row(Text(section, style="bold underline"), "")
            for keys, what in binding_rows(bindings):
                table.add_row(Text(keys), Text(what))
            table.add_row("", "")
        with VerticalScroll(id="help-body"):
            yield Static(Text(self.title_text, style="bold"), id="help-title")
            yield Static(table)
            yield Static(Text("escape closes", style="dim"))


__all__ = ["BindingsHelpScreen", "binding_rows", "key_name"]
