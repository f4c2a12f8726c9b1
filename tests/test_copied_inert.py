"""``c`` puts inert text on the clipboard wherever it copies: a message, an operation's
result ("Copy result"), a table's row. A message's copy was the file's own characters,
so pasting it into a terminal replayed its escape sequences (a CR overwrite, an OSC 52
clipboard write, a bidi override), where a table row's was inert
(``session_core.text.copied``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import wait_for
from textual.app import App

from session_core import Message, Session
from session_core.text import copied
from session_core.tool_ops import ToolOp
from story import OLD_MTIME
from viewer.app import TailscopeApp
from viewer.screens.op_detail import OpDetailScreen
from viewer.widgets.items_view import ItemsView

HOSTILE = (
    "a\x1b[31mred\x1b[0m\x1b]52;c;aGk=\x07 \x9b31m \u202eRTL\r\n"
    "\tindented\rCR \x1b]8;;http://x\x1b\\link"
)
SHOWN = "a␛[31mred␛[0m␛]52;c;aGk=␇ \\x9b31m \\u202eRTL\n\tindented␍CR ␛]8;;http://x␛\\link"


def test_copied() -> None:
    assert copied(HOSTILE) == SHOWN
    assert copied(SHOWN) == SHOWN  # (again: nothing changes)
    assert copied("plain\ttext\n") == "plain\ttext\n"


async def test_c_copies_a_message_inert(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "v1.jsonl"
    with Session.create(path) as s:
        s.append_message(Message(role="user", content=HOSTILE))
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    app = TailscopeApp(path)
    clipboard: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", clipboard.append)
    async with app.run_test(size=(100, 30)) as pilot:
        view = app.query_one(ItemsView)
        await wait_for(pilot, lambda: len(view.items) == 1)
        await pilot.press("g", "c")
        await wait_for(pilot, lambda: bool(clipboard))
    assert clipboard == [SHOWN]


async def test_copy_result_is_inert(monkeypatch: pytest.MonkeyPatch) -> None:
    op = ToolOp("c1", "bash", "completed", arguments={"cmd": "x"}, result=HOSTILE)
    app: App[None] = App()
    clipboard: list[str] = []
    monkeypatch.setattr(app, "copy_to_clipboard", clipboard.append)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(OpDetailScreen(op))
        await pilot.pause()
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(clipboard))
    assert clipboard == [SHOWN]
