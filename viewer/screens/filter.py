"""The ``f`` screen: which roles and which line types the conversation shows."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, SelectionList, Static

Choice = tuple[frozenset[str] | None, frozenset[str] | None]


class FilterScreen(ModalScreen[Choice]):
    """Which roles and line types a conversation shows (every choice ticked: no filter)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(
        self,
        roles: frozenset[str] | None,
        types: frozenset[str] | None,
        role_choices: tuple[str, ...],
        type_choices: tuple[str, ...],
    ) -> None:
        """``roles``, ``types``: those shown now (None: all); the choices, those the file
        has (``ItemsView.filter_choices``)."""
        super().__init__()
        self.roles = roles
        self.types = types
        self.role_choices = role_choices
        self.type_choices = type_choices

    def compose(self) -> ComposeResult:
        roles = self.roles or frozenset(self.role_choices)
        types = self.types or frozenset(self.type_choices)
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
        self.dismiss((None, None))

    @on(Button.Pressed, "#filter-apply")
    def _apply(self) -> None:
        roles = frozenset(self.query_one("#filter-roles", SelectionList).selected)
        types = frozenset(self.query_one("#filter-types", SelectionList).selected)
        every = (frozenset(self.role_choices), frozenset(self.type_choices))
        self.dismiss((None if roles == every[0] else roles, None if types == every[1] else types))
