"""Reading a Claude Code file in a test both ways: msgspec's typed lines, checked
against orjson's dicts."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_claude_code_decode import by_dict, everything

from session_core.formats.claude_code import ClaudeCodeFormat
from session_core.model import Transcript

FMT = ClaudeCodeFormat()


def both(path: Path, monkeypatch: pytest.MonkeyPatch, writer_alive: bool = False) -> Transcript:
    """The file read typed, after checking the dict path reads it the same."""
    typed = FMT.open(path, writer_alive=writer_alive)
    if writer_alive is False:
        assert everything(typed) == everything(by_dict(path, monkeypatch))
    return typed
