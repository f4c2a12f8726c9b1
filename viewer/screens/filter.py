"""The ``f`` screen: which roles and which line types the conversation shows."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, SelectionList, Static

from ..safe import one_line

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
        has (``ItemsView.filter_choices``): the file's words, so shown as text, never
        as markup (a role "[/x]" froze the app)."""
        super().__init__()
        self.roles = roles
        self.types = types
        self.role_choices = role_choices
        self.type_choices = type_choices

    def compose(self) -> ComposeResult:
        roles = self.roles or frozenset(self.role_choices)
        types = self.types or frozenset(self.type_choices)
        with Vertical(id="filter-body"):
            yield Static(
                "Show these roles (messages) and line types (raw view): "
                "space ticks one, tab goes on to the next list and the buttons"
            )
            with Horizontal(id="filter-lists"):
                by_role = SelectionList[str](
                    *[(Content(one_line(r, 40)), r, r in roles) for r in self.role_choices],
                    id="filter-roles",
                )
                by_role.border_title = "roles"  # (a role and a line type may share a name)
                yield by_role
                by_type = SelectionList[str](
                    *[(Content(one_line(t, 40)), t, t in types) for t in self.type_choices],
                    id="filter-types",
                )
                by_type.border_title = "line types"
                yield by_type
            yield Static(self._said(roles, types), id="filter-said", markup=False)
            with Horizontal(id="filter-buttons"):
                yield Button("Apply", variant="primary", id="filter-apply")
                yield Button("Everything", id="filter-all")
                yield Button("Cancel", id="filter-cancel")
        yield Footer()  # (its own keys, not the screen's below, which do nothing here)

    def _said(self, roles: frozenset[str], types: frozenset[str]) -> str:
        """What the ticks say, in words (a tick is told from no tick by colour alone)."""
        said = []
        for name, shown, choices in (
            ("roles", roles, self.role_choices),
            ("line types", types, self.type_choices),
        ):
            hidden = [c for c in choices if c not in shown]
            listed = ", ".join(one_line(c, 40) for c in hidden)
            said.append(f"{name}: " + (f"hiding {listed}" if hidden else "all shown"))
        return " · ".join(said)

    @on(SelectionList.SelectedChanged)
    def _ticked(self) -> None:
        self.query_one("#filter-said", Static).update(self._said(*self._ticks()))

    def _ticks(self) -> tuple[frozenset[str], frozenset[str]]:
        """The roles and the line types ticked now."""
        roles = frozenset(self.query_one("#filter-roles", SelectionList).selected)
        return roles, frozenset(self.query_one("#filter-types", SelectionList).selected)

    def on_mount(self) -> None:
        # The first list focused on its first choice: space ticks it at once (nothing
        # was highlighted, so a space did nothing until an arrow key).
        first = self.query_one("#filter-roles", SelectionList)
        if first.option_count:
            first.highlighted = 0
        first.focus()

    @on(Button.Pressed, "#filter-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#filter-all")
    def _everything(self) -> None:
        self.dismiss((None, None))

    @on(Button.Pressed, "#filter-apply")
    def _apply(self) -> None:
        roles, types = self._ticks()
        every = (frozenset(self.role_choices), frozenset(self.type_choices))
        self.dismiss((None if roles == every[0] else roles, None if types == every[1] else types))
