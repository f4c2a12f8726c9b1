"""A run of zero-width joiners that joins nothing (it begins the text, a line or a word)
is drawn as its escapes on every path (``inert``, ``one_line``, names, copies): Rich 15
measures a word led by two of them before a wide character shorter than it cuts it, and
failed cutting it (``IndexError`` in ``set_cell_size``), which closed the app where the
warnings dialog quoted such a value. One inside an emoji sequence or a script stays."""

from __future__ import annotations

import io
import json
from pathlib import Path

from helpers import app_loaded, wait_for
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.cells import set_cell_size
from rich.console import Console
from rich.text import Text
from textual.content import Content

from session_core import Message, Session
from session_core.text import copied, inert, name_line, one_line
from viewer.screens.model_screen import ModelScreen
from viewer.screens.warnings import WarningsScreen

_CONSOLE = Console(width=200, file=io.StringIO())
_PIECES = st.sampled_from(
    [" ", " ", "\u200d", "\u200d", "日", "本", "⺀", "👨", "👩", "\ufe0f", "❤", "a", "b", "\n"]
)
_TEXTS = st.lists(_PIECES, max_size=24).map("".join)


@settings(max_examples=300, deadline=None)
@given(_TEXTS)
@example("x\t\u200d\u200d日本 \u3000\u200d\u200d日本\r\n\u200d\u200d日本")
@example("\u200d\u200d\u3000 ")
@example("ab \u200d\u200d" + "日本語" * 5)
@example("a\n\u200d\u200d日本")
def test_drawn_text_is_cut_at_any_width(text: str) -> None:
    """Rich's wrap and cuts, and Textual's cropping, take any drawn text at any width."""
    for drawn in (inert(text), one_line(text)):
        for width in range(1, 61):
            Text(drawn).wrap(_CONSOLE, width)
            Text(one_line(text)).truncate(width)
            Content(drawn).wrap(width)
            for line in drawn.split("\n"):
                set_cell_size(line, width)
                Content(line).truncate(width, ellipsis=True)


def test_a_joiner_that_joins_nothing_is_its_escape_on_every_path() -> None:
    text = "\u200d\u200d日 a \u200d\u200d日\n\u200d本 👨\u200d👩 क\u200dष\t\u200dx"
    assert inert(text) == (
        "\\u200d\\u200d日 a \\u200d\\u200d日\n\\u200d本 👨\u200d👩 क\u200dष    \\u200dx"
    )
    assert one_line(text) == (
        "\\u200d\\u200d日 a \\u200d\\u200d日⏎\\u200d本 👨\u200d👩 क\u200dष    \\u200dx"
    )
    assert name_line("a \u200d日\t\u200d") == "a \\u200d日␉\\u200d"
    assert copied(text) == inert(text).replace("    ", "\t")  # (what the screen shows)
    assert inert(inert(text)) == inert(text) and one_line(one_line(text)) == one_line(text)


async def test_the_warnings_dialog_quotes_a_value_led_by_joiners(tmp_path: Path) -> None:
    """A v1 line of another version, its ``v`` a word led by joiners before wide text:
    the warnings dialog at 71 columns wraps the quote (it closed the app)."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "a"}) as session:
        session.append_message(Message(role="user", content="first"))
    line = {"v": "a \u200d\u200d" + "日本語" * 30, "type": "message", "id": "x", "payload": {}}
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
    async with app_loaded(path, ModelScreen, (71, 30)) as (app, pilot):
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WarningsScreen))
        await pilot.pause(0.2)
        shown = "".join(str(s.render()) for s in app.screen.query("Static").results())
        assert "a \\u200d\\u200d日本語" in shown
        assert isinstance(app.screen, WarningsScreen)
