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
