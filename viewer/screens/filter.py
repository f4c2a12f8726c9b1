"""The ``f`` screen: which roles and which line types the conversation shows."""

from __future__ import annotations

from typing import ClassVar

from textual import on
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
    """Which roles and line types a conversation shows (every choice ticked: no filter)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(
        self,
        roles: frozenset[str] | None,
        types: frozenset[str] | None,
        *,
        role_choices: tuple[str, ...] = ROLE_CHOICES,
        type_choices: tuple[str, ...] = TYPE_CHOICES,
        default_types: frozenset[str] = DEFAULT_TYPES,
    ) -> None:
        super().__init__()
        self.roles = roles
        self.types = types
        self.role_choices = role_choices
        self.type_choices = type_choices
        self.default_types = default_types

    def compose(self) -> ComposeResult:
        roles = self.roles or frozenset(self.role_choices)
        types = self.types or self.default_types
        with Vertical(id="filter-body"):
            yield Static("Show these roles (messages) and line types (raw view):")
            with Horizontal():
                by_role = SelectionList[str](
                    *[(r, r, r in roles) for r in self.role_choices], id="filter-roles"
                )
                by_role.border_title = "roles"  # (a role and a line type may share a name)
                yield by_role
                by_type = SelectionList[str](
                    *[(t, t, t in types) for t in self.type_choices], id="filter-types"
                )
                by_type.border_title = "line types"
                yield by_type
            with Horizontal(id="filter-buttons"):
                yield Button("Apply", variant="primary", id="filter-apply")
                yield Button("Everything", id="filter-all")
                yield Button("Cancel", id="filter-cancel")

    @on(Button.Pressed, "#filter-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#filter-all")
    def _everything(self) -> None:
        self.dismiss((None, frozenset(self.type_choices)))

    @on(Button.Pressed, "#filter-apply")
    def _apply(self) -> None:
        roles = frozenset(self.query_one("#filter-roles", SelectionList).selected)
        types = frozenset(self.query_one("#filter-types", SelectionList).selected)
        self.dismiss((None if roles == frozenset(self.role_choices) else roles, types))
