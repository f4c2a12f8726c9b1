"""Each text readable where the terminal has few colours. NO_COLOR: every foreground
readable on its background (a red state was dark grey on near-black, 1.3:1, under
Textual's own ``Monochrome``). 16 colours: a search match (bold near-black on orange)
was grey on bright red, 1:1, and so were the footer's keys."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import app_loaded, wait_for
from rich.style import Style
from textual.color import Color
from textual.filter import Monochrome, monochrome_style
from textual.geometry import Region

from session_core import Message, Session
from viewer.readable_colours import (
    GREYS,
    LEAST_APART,
    SIXTEEN,
    ReadableColours,
    one_of_sixteen,
    readable_style,
)
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.items_view import ItemsView

BACKGROUND = Color.parse("#121212")


@pytest.mark.parametrize("colour", ["#ff0000", "#ba3c5b", "#2b5fb3", "#e0e0e0", "#ffa62b"])
def test_every_foreground_is_kept_apart_from_its_background(colour: str) -> None:
    style = Style(color=colour, bold=True)
    made = readable_style(style, BACKGROUND, GREYS)
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


def apart_in_sixteen(style: Style, background: Color = BACKGROUND) -> float:
    """How far apart a terminal of 16 colours shows ``style``'s foreground and background."""
    assert style.color is not None
    fg = one_of_sixteen(Color.from_rich_color(style.color), bool(style.bold))
    bg = background if style.bgcolor is None else Color.from_rich_color(style.bgcolor)
    return abs(fg.brightness - one_of_sixteen(bg).brightness)


@pytest.mark.parametrize(
    "spec",
    [
        "bold #121212 on #fea62b",  # a search match (grey on bright red: bold black is grey)
        "bold #ffa62b on #242f38",  # a footer key (bright red on grey)
        "#ffa62b on #242f38",  # "● idle" (yellow) in the header
        "#000000 on #000000",  # an unfocused list's title in the filter dialog
    ],
)
def test_sixteen_colours_keep_each_foreground_apart(spec: str) -> None:
    style = Style.parse(spec)
    assert apart_in_sixteen(style) < LEAST_APART  # (as Rich would send it)
    assert apart_in_sixteen(readable_style(style, BACKGROUND, SIXTEEN)) >= LEAST_APART


def test_sixteen_colours_leave_a_readable_style_as_it_is() -> None:
    """Only a foreground too close moves: the conversation's colours stay its own."""
    for spec in ["#ffa62b on #121212", "bold #e0e0e0 on #0178d4", "#0178d4"]:
        style = Style.parse(spec)
        assert readable_style(style, BACKGROUND, SIXTEEN) == style


def test_bold_black_is_grey_in_sixteen_colours() -> None:
    """(xterm's boldColors, tmux): a match moved to black gives up its bold."""
    made = readable_style(Style.parse("bold #121212 on #fea62b"), BACKGROUND, SIXTEEN)
    assert made.color is not None and Color.from_rich_color(made.color) == Color(0, 0, 0)
    assert made.bold is False


def in_sixteen_colours(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.delenv("COLORTERM", raising=False)


async def test_the_app_reads_no_color_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from viewer.app import TailscopeApp

    monkeypatch.setenv("NO_COLOR", "1")
    app = TailscopeApp(tmp_path)
    assert any(isinstance(f, ReadableColours) and f.colours is GREYS for f in app._filters)
    assert not any(type(f) is Monochrome for f in app._filters)


async def test_truecolor_is_drawn_as_it_is(tmp_path: Path) -> None:
    from viewer.app import TailscopeApp

    app = TailscopeApp(tmp_path)  # (COLORTERM=truecolor: conftest)
    assert app.console.color_system == "truecolor"
    assert not any(isinstance(f, ReadableColours) for f in app._filters)


async def test_a_search_match_reads_in_sixteen_colours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The conversation's matches as drawn (the app's filters and all), at ``TERM=xterm``."""
    in_sixteen_colours(monkeypatch)
    path = tmp_path / "t.jsonl"
    with Session.create(path) as session:
        session.append_message(Message(role="user", content="please divide by zero"))
    async with app_loaded(path, ModelScreen, (100, 20)) as (app, pilot):
        assert app.console.color_system == "standard"
        view = app.screen.query_one(ItemsView)
        await pilot.press("slash", *"divide", "enter")
        await wait_for(pilot, lambda: view.searching is None and view.matches)
        await pilot.pause(0.1)
        strips = view.render_lines(Region(0, 0, view.size.width, view.size.height))
        matches = [s.style for strip in strips for s in strip if s.text.lower() == "divide"]
        assert matches and all(style is not None for style in matches)
        for style in matches:
            assert style is not None and style.bgcolor is not None
            assert apart_in_sixteen(style) >= LEAST_APART
