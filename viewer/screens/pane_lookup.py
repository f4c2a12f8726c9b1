"""``Pane``: a screen's widget, named on its class and looked up when read."""

from __future__ import annotations

from typing import Any, Generic, TypeVar, overload

from textual.screen import Screen
from textual.widget import Widget

W = TypeVar("W", bound=Widget)


class Pane(Generic[W]):
    """A screen's widget, looked up when read: ``runs = Pane(RunsPane)`` (its one widget
    of that type), ``items = Pane(ItemsView, "#items")``."""

    def __init__(self, kind: type[W], selector: str | None = None) -> None:
        self.kind = kind
        self.selector = selector

    @overload
    def __get__(self, screen: None, owner: type[Any]) -> Pane[W]: ...
    @overload
    def __get__(self, screen: Screen[Any], owner: type[Any]) -> W: ...
    def __get__(self, screen: Screen[Any] | None, owner: type[Any]) -> Pane[W] | W:
        if screen is None:
            return self
        if self.selector is None:
            return screen.query_one(self.kind)
        return screen.query_one(self.selector, self.kind)


__all__ = ["Pane"]
