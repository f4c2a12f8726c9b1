"""The model screen's class for each format: the shared tabs, then a format's own panes
(its pane set's, in the set's order), a number key per tab, the keys every format shares,
the set's own; and the set's actions and message handlers, reached through the screen;
and what its help (``?``) lists."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from textual.binding import Binding, BindingType

from .following import FILTER, RAW_REPLAYED, SEARCH, WARNINGS, Tab, tab_keys
from .help import Section, offered, pane_sections

if TYPE_CHECKING:
    from ..formats import PaneSet
    from .model_screen import ModelScreen

S = TypeVar("S", bound="ModelScreen")

_MADE: dict[tuple[type, type[PaneSet]], type] = {}  # (screen, pane set) -> its class


def screen_keys(tabs: Sequence[Tab], own: Sequence[BindingType] = ()) -> list[BindingType]:
    """The model screen's keys: a number per tab, then the keys every format shares, then
    a format's own (its pane set's)."""
    return [
        *tab_keys(tabs),
        RAW_REPLAYED,
        SEARCH,
        FILTER,
        WARNINGS,
        Binding("question_mark", "help", "Help"),
        Binding("O", "open_other", "Open the session the writer went on in", show=False),
        *own,
    ]


def with_panes(base: type[S], panes: type[PaneSet]) -> type[S]:
    """``base`` with ``panes``' tabs, in its order, and keys (made once for each)."""
    made = _MADE.get((base, panes))
    if made is None:
        shared = {tab.id: tab for tab in base.TABS}
        own = {
            pane.id: Tab(pane.id, pane.title, pane.make, pane.command, pane.help)
            for pane in panes.PANES
        }
        order = panes.ORDER or (*shared, *own)
        tabs = tuple({**shared, **own}[tab] for tab in order)
        namespace: dict[str, Any] = {
            "TABS": tabs,
            "BINDINGS": screen_keys(tabs, panes.BINDINGS),
            "PANE_SET": panes,
            "__module__": base.__module__,
        }
        for name in dir(panes):
            if name.startswith(("action_", "on_")) and not hasattr(base, name):
                namespace[name] = _forward(name)
        made = _MADE[(base, panes)] = type(f"{panes.__name__}Screen", (base,), namespace)
    return made


def _forward(name: str) -> Any:
    """A screen method that calls the pane set's of the same name."""

    def forward(self: ModelScreen, *args: Any) -> Any:
        return getattr(self.panes, name)(*args)

    forward.__name__ = name
    return forward


def help_sections(screen: ModelScreen) -> list[Section]:
    """What the model screen's ``?`` lists: its keys, each tab's (every key of the widgets
    in its pane, so a key added to one is listed with no list to edit), a tool
    operation's detail's (``s`` only for a format with subagents: its ``extra_panes`` say
    so), the app's."""
    from textual.widgets import TabPane

    from ..formats import PaneSet
    from .op_detail import OpDetailScreen

    panes = screen.panes
    tabs = [(tab.title, screen.query_one(f"TabPane#{tab.id}", TabPane)) for tab in screen.TABS]
    return [
        ("This screen", offered(screen, screen.BINDINGS)),
        *pane_sections(tabs),
        (
            "A tool operation's detail",
            OpDetailScreen.help_keys(
                "subagents" in screen.format.extra_panes,
                panes is not None and type(panes).op_artifact is not PaneSet.op_artifact,
            ),
        ),
        ("Everywhere", offered(screen.app, screen.app.BINDINGS)),
    ]


__all__ = ["help_sections", "screen_keys", "with_panes"]
