"""Colours each text can be read in, where the terminal has few.

NO_COLOR: Textual's ``Monochrome`` filter greys each colour by its own brightness, so a
red state ("failed", "interrupted") came out dark grey on the near-black background, 1.3:1.
16 colours (``TERM=xterm``, no ``COLORTERM``): Rich sends the nearest of the 16, so a
search match (near-black on orange) was drawn grey on bright red, and the footer's keys
bright red on grey, 1:1. One rule for both (``readable_style``): a foreground too close to
its background, as the terminal shows them, moves to the far end (the words still say the
state). NO_COLOR's filter stands in for Textual's; the 16 colours' comes after it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rich._palettes import STANDARD_PALETTE
from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.color import Color
from textual.filter import LineFilter, Monochrome

LEAST_APART = 0.35  # brightness a foreground keeps from its background (0..1)


@dataclass(frozen=True)
class Colours:
    """What a terminal makes of a colour: ``drawn``, what is sent for it (a grey, or
    itself: Rich picks of the 16), ``shown``, what is seen of that (``bold``: the text's);
    ``light`` and ``dark``, the far ends a foreground moves to."""

    drawn: Callable[[Color], Color]
    shown: Callable[[Color, bool], Color]
    light: Color
    dark: Color


def _grey(color: Color, bold: bool = False) -> Color:
    return color.monochrome


def _itself(color: Color) -> Color:
    return color


def one_of_sixteen(color: Color, bold: bool = False) -> Color:
    """The one of the 16 colours Rich sends for ``color`` (its own choice), as a terminal
    shows it: bold text of the first 8 in its bright twin (xterm's ``boldColors``, tmux),
    so a match's bold near-black on orange was grey on bright red."""
    number = STANDARD_PALETTE.match(color.rgb)
    if bold and number < 8:
        number += 8
    return Color(*STANDARD_PALETTE[number])


GREYS = Colours(_grey, _grey, Color(224, 224, 224), Color(32, 32, 32))
SIXTEEN = Colours(_itself, one_of_sixteen, Color(255, 255, 255), Color(0, 0, 0))


@lru_cache(1024)
def readable_style(style: Style, background: Color, colours: Colours = GREYS) -> Style:
    """``style`` as ``colours`` draws it, its foreground kept ``LEAST_APART`` from its
    background as the terminal shows them (bold given up where the far end, bold, would
    show otherwise: black's bright twin is grey)."""
    fg = None if style.color is None else colours.drawn(Color.from_rich_color(style.color))
    bg = colours.drawn(
        background if style.bgcolor is None else Color.from_rich_color(style.bgcolor)
    )
    if fg is None or fg.ansi is not None or bg.ansi is not None:  # (the terminal's own)
        return _drawn(style, fg, bg)
    bold = bool(style.bold)
    seen = colours.shown(bg, False)
    if abs(colours.shown(fg, bold).brightness - seen.brightness) < LEAST_APART:
        fg = colours.light if seen.brightness < 0.5 else colours.dark
        if bold and colours.shown(fg, True) != colours.shown(fg, False):
            style += Style(bold=False)
    return _drawn(style, fg, bg)


def _drawn(style: Style, fg: Color | None, bg: Color) -> Style:
    return style + Style.from_color(
        None if fg is None else fg.rich_color, None if style.bgcolor is None else bg.rich_color
    )


class ReadableColours(LineFilter):
    """Every foreground readable on its background, in ``colours``."""

    def __init__(self, colours: Colours, enabled: bool = True) -> None:
        super().__init__(enabled)
        self.colours = colours

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        colours = self.colours
        return [
            Segment(text, None if style is None else readable_style(style, background, colours))
            for text, style, _ in segments
        ]


def readable_colours(app: App[Any]) -> None:
    """``ReadableColours`` in greys where Textual put ``Monochrome`` (NO_COLOR is set),
    and in the 16 colours where the terminal has no more (what Rich found for it)."""
    filters = getattr(app, "_filters", None)  # (Textual's own list: if it goes, its colours)
    if not isinstance(filters, list):
        return
    for index, found in enumerate(filters):
        if isinstance(found, Monochrome):
            filters[index] = ReadableColours(GREYS)
    if app.console.color_system == "standard":
        filters.append(ReadableColours(SIXTEEN))


__all__ = [
    "GREYS",
    "LEAST_APART",
    "SIXTEEN",
    "Colours",
    "ReadableColours",
    "one_of_sixteen",
    "readable_colours",
    "readable_style",
]
