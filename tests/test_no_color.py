"""NO_COLOR: every foreground readable on its background (a red state was dark grey on
near-black, 1.3:1, under Textual's own ``Monochrome``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.style import Style
from textual.color import Color
from textual.filter import Monochrome, monochrome_style

from viewer.no_color import LEAST_APART, ReadableMonochrome, readable_style

BACKGROUND = Color.parse("#121212")


@pytest.mark.parametrize("colour", ["#ff0000", "#ba3c5b", "#2b5fb3", "#e0e0e0", "#ffa62b"])
def test_every_foreground_is_kept_apart_from_its_background(colour: str) -> None:
    style = Style(color=colour, bold=True)
    made = readable_style(style, BACKGROUND)
    assert made.color is not None and made.bold
    grey = Color.from_rich_color(made.color)
    assert grey.monochrome == grey  # (still no colour)
    assert abs(grey.brightness - BACKGROUND.monochrome.brightness) >= LEAST_APART


def test_textuals_own_left_red_unreadable() -> None:
    """What this mends (if Textual's own ever reads well, this filter can go)."""
    red = monochrome_style(Style(color="#ff0000")).color
    assert red is not None
    grey = Color.from_rich_color(red)
    assert abs(grey.brightness - BACKGROUND.brightness) < LEAST_APART


async def test_the_app_reads_no_color_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from viewer.app import TailscopeApp

    monkeypatch.setenv("NO_COLOR", "1")
    app = TailscopeApp(tmp_path)
    assert any(isinstance(f, ReadableMonochrome) for f in app._filters)
    assert not any(type(f) is Monochrome for f in app._filters)
