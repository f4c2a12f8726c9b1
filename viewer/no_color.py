"""NO_COLOR, readable: Textual's ``Monochrome`` filter greys each colour by its own
brightness, so a red state ("failed", "interrupted") came out dark grey on the near-black
background, 1.3:1. ``ReadableMonochrome`` greys the same way, then moves a foreground too
close to its background to the far end (the words still say the state; bold stays)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.color import Color
from textual.filter import LineFilter, Monochrome

LEAST_APART = 0.35  # brightness a foreground keeps from its background (0..1)
_LIGHT, _DARK = Color(224, 224, 224), Color(32, 32, 32)


@lru_cache(1024)
def readable_style(style: Style, background: Color) -> Style:
    """``style`` in greys, its foreground kept ``LEAST_APART`` from its background."""
    fg = None if style.color is None else Color.from_rich_color(style.color).monochrome
    bg = (
        background.monochrome
        if style.bgcolor is None
        else Color.from_rich_color(style.bgcolor).monochrome
    )
    if fg is not None and abs(fg.brightness - bg.brightness) < LEAST_APART:
        fg = _LIGHT if bg.brightness < 0.5 else _DARK
    return style + Style.from_color(
        None if fg is None else fg.rich_color,
        None if style.bgcolor is None else bg.rich_color,
    )


class ReadableMonochrome(LineFilter):
    """``Monochrome``, with every foreground readable on its background."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        return [
            Segment(text, None if style is None else readable_style(style, background), None)
            for text, style, _ in segments
        ]


def readable_no_color(app: App[Any]) -> None:
    """Put ``ReadableMonochrome`` where Textual put ``Monochrome`` (NO_COLOR is set)."""
    filters = getattr(app, "_filters", None)  # (Textual's own list: if it goes, its greys)
    if not isinstance(filters, list):
        return
    for index, found in enumerate(filters):
        if isinstance(found, Monochrome):
            filters[index] = ReadableMonochrome()


__all__ = ["LEAST_APART", "ReadableMonochrome", "readable_no_color", "readable_style"]
