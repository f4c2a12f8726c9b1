"""``WidthStatic``: a ``Static`` whose text is drawn for the width it has."""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from textual.widgets import Static

WIDTH_UNKNOWN = 200  # cells, before the first layout (drawn again once laid out)


class WidthStatic(Static):
    """Text made by ``draw(width)``, made again on every resize: what cuts its values to
    the width (``viewer.safe.one_line``) stays cut to the width the widget has now."""

    def __init__(self, placeholder: Text, *, id: str | None = None) -> None:
        super().__init__(placeholder, id=id)
        self._draw: Callable[[int], Text] | None = None

    def show(self, draw: Callable[[int], Text]) -> None:
        self._draw = draw
        self._redraw()

    def on_resize(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        if self._draw is not None:
            self.update(self._draw(self.content_size.width or WIDTH_UNKNOWN))


__all__ = ["WidthStatic"]
