"""The ``f`` screen: which roles and which line types the conversation shows."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, SelectionList, Static

ROLE_CHOICES = ("system", "user", "assistant", "tool")
TYPE_CHOICES = (
    "compaction",
    "elision",
    "tool-dispatched",
    "tool-settled",
    "run-context",
    "grants",
    "session-meta",
    "other",
)
DEFAULT_TYPES = frozenset(("compaction", "elision", "other"))

Choice = tuple[frozenset[str] | None, frozenset[str] | None]


class FilterScreen(ModalScreen[Choice]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, roles: frozenset[str] | None, types: frozenset[str] | None) -> None:
        super().__init__()
        self.roles = roles
        self.types = types

    def compose(self) -> ComposeResult:
        roles = self.roles or frozenset(ROLE_CHOICES)
        types = self.types or DEFAULT_TYPES
        with Vertical(id="filter-body"):
            yield Static("Show these roles (messages) and line types (raw view):")
            with Horizontal():
                yield SelectionList[str](
                    *[(r, r, r in roles) for r in ROLE_CHOICES], id="filter-roles"
                )
                yield SelectionList[str](
                    *[(t, t, t in types) for t in TYPE_CHOICES], id="filter-types"
                )
            with Horizontal(id="filter-buttons"):
                yield Button("Apply", variant="primary", id="filter-apply")
                yield Button("Everything", id="filter-all")
                yield Button("Cancel", id="filter-cancel")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "filter-cancel":
            self.dismiss(None)
            return
        if event.button.id == "filter-all":
            self.dismiss((None, frozenset(TYPE_CHOICES)))
            return
        roles = frozenset(self.query_one("#filter-roles", SelectionList).selected)
        types = frozenset(self.query_one("#filter-types", SelectionList).selected)
        self.dismiss((None if roles == frozenset(ROLE_CHOICES) else roles, types))
