"""A session file created empty and written line by line is followed from its first
line, in whatever registered format its first record turns out to be."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from codex_writer import message_line
from helpers import screen_text, wait_for

from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen

SIZE = (120, 32)

CLAUDE = [
    {"type": "file-history-snapshot", "messageId": "m0", "snapshot": {}, "isSnapshotUpdate": False},
    {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": "s1",
        "timestamp": "2026-12-01T08:00:00.000Z",
        "isSidechain": False,
        "message": {"role": "user", "content": "first words of a claude session"},
    },
    {
        "type": "assistant",
        "uuid": "a1",
        "parentUuid": "u1",
        "sessionId": "s1",
        "timestamp": "2026-12-01T08:00:01.000Z",
        "isSidechain": False,
        "message": {
            "id": "msg_1",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [{"type": "text", "text": "an answer that arrived later"}],
            "usage": {"input_tokens": 3, "output_tokens": 5},
        },
    },
]

CODEX = [
    {
        "timestamp": "2026-12-01T08:00:00.000Z",
        "type": "session_meta",
        "payload": {"id": "c1", "cwd": "/w", "cli_version": "0.104.0", "originator": "t"},
    },
    message_line("2026-12-01T08:00:01.000Z", "user", "first words of a codex rollout"),
    message_line("2026-12-01T08:00:02.000Z", "assistant", "an answer that arrived later"),
]


@pytest.mark.parametrize(("fmt", "lines"), [("claude-code", CLAUDE), ("codex", CODEX)])
async def test_an_empty_file_picks_up_its_format_from_its_first_record(
    tmp_path: Path, fmt: str, lines: list[dict[str, object]]
) -> None:
    path = tmp_path / "later.jsonl"
    path.write_bytes(b"")
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(0.3)
        # Nothing to tell the format by yet: waited for as v1's, the header says so.
        waiting = app.screen
        assert isinstance(waiting, ModelScreen) and waiting.FORMAT == "transcript-v1"
        assert "unknown format" in screen_text(app)
        with path.open("ab") as fh:
            fh.write(orjson.dumps(lines[0]) + b"\n")
            fh.write(orjson.dumps(lines[1]) + b"\n")
        await wait_for(pilot, lambda: app.screen is not waiting, 10)
        screen = app.screen
        assert isinstance(screen, ModelScreen) and fmt == screen.FORMAT
        await wait_for(pilot, lambda: "first words of a" in screen_text(app), 10)
        with path.open("ab") as fh:  # a torn line is held back until its newline
            data = orjson.dumps(lines[2])
            fh.write(data[:20])
            fh.flush()
            await pilot.pause(0.5)
            assert "an answer that arrived later" not in screen_text(app)
            fh.write(data[20:] + b"\n")
        await wait_for(pilot, lambda: "an answer that arrived later" in screen_text(app), 10)
        assert [m.role for m in screen.transcript.messages] == ["user", "assistant"]


@pytest.mark.parametrize("dialog", [False, True])
async def test_a_file_replaced_by_another_format_says_what_happened(
    tmp_path: Path, dialog: bool
) -> None:
    """A v1 file replaced (a rename) by a Claude Code session: the toast says it was
    replaced and is now of another format, and a dialog it closed; the reset's warning
    is kept in ``w`` (an audit: only "This file is claude-code: showing it as such.",
    and "0 warnings")."""
    from session_core import Message, Session

    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "a"}) as s:
        s.append_message(Message(role="user", content="a v1 message"))
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "a v1 message" in screen_text(app), 10)
        old = app.file_screen
        if dialog:
            await pilot.press("w")
            await wait_for(pilot, lambda: app.screen is not old)
        other = tmp_path / "other.jsonl"
        other.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in CLAUDE))
        other.replace(path)
        await wait_for(pilot, lambda: app.file_screen is not old, 10)
        await wait_for(pilot, lambda: "first words of a" in screen_text(app), 10)
        notes = [str(n.message) for n in app._notifications]
        replaced = "The file was replaced (a new inode, e.g. a repair's rename)"
        said = f"{replaced}, now of another format (claude-code): the view was rebuilt"
        assert any(n.startswith(said) for n in notes), notes
        assert any("dialog open over it was closed" in n for n in notes) == dialog, notes
        warned = app.file_screen.transcript.warnings
        assert any(w.startswith("the file was replaced") for w in warned), warned
        assert "⚠ 1 warning" in screen_text(app)
