"""A big file's browser row (its head and a tail window) gives the title its whole read
and its export give, however far past the head the line it comes from is: a first prompt
after a long first message (the rows of v1 and agentgo showed none, Codex's and Claude
Code's the tail's first prompt, a later one). A blank Claude Code title names none (it
beat the title Claude Code made up, and the title fell to the first prompt)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text
from format_fixtures import BUILT_IN
from helpers import SAMPLES

from session_core import Message, Session
from session_core import scan as scan_module
from session_core.export import document
from session_core.scan import scan_file


def _windowed(path: Path, window: int = 300) -> str | None:
    return scan_file(path, live_window=0, budget=1, window=window).title


# (Claude Code's fixture is titled by a custom-title line in its middle, which a row
# does not read: its case is the one below)
@pytest.mark.parametrize("fmt", sorted(set(BUILT_IN) - {"claude-code"}))
def test_a_first_prompt_past_the_head_is_the_rows_title(
    tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = BUILT_IN[fmt](tmp_path)
    whole = scan_file(path, live_window=0).title
    assert whole
    monkeypatch.setattr(scan_module, "HEAD", 1)  # (the head: its first line alone)
    assert _windowed(path) == whole == document(path).title


def test_a_claude_code_first_prompt_past_the_head_is_the_rows_title(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = CCWriter()
    w.bare({"type": "file-history-snapshot", "snapshot": "x" * 5000, "sessionId": w.session})
    w.user("first prompt")
    w.assistant("msg_0", [text("y" * 5000)])
    w.user("later prompt")
    w.assistant("msg_1", [text("done")])
    path = w.write(tmp_path / "5e55e55e-0000-4000-8000-000000000001.jsonl")
    os.utime(path, (1e9, 1e9))
    monkeypatch.setattr(scan_module, "HEAD", 1)
    assert _windowed(path, window=1000) == "first prompt" == document(path).title


def test_a_later_prompt_is_never_the_title(tmp_path: Path) -> None:
    """The first prompt in neither the head nor the tail window: the one between."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "a"}) as s:
        s.append_message(Message(role="system", content="x" * (1 << 20)))
        s.append_message(Message(role="user", content="first prompt"))
        s.append_message(Message(role="assistant", content="y" * 5000))
        s.append_message(Message(role="user", content="later prompt"))
    os.utime(path, (1e9, 1e9))
    assert _windowed(path, window=1000) == "first prompt" == document(path).title


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="no samples")
@pytest.mark.parametrize("head", [512, 4096, 65536])
def test_every_samples_row_read_in_part_gives_its_whole_title(
    head: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = sorted(p for p in SAMPLES.rglob("*.jsonl") if p.is_file())
    wholes = {p: scan_file(p, live_window=0).title for p in paths}
    monkeypatch.setattr(scan_module, "HEAD", head)
    for path in paths:
        for window in (300, 5000):
            assert _windowed(path, window) == wholes[path], (path.name, window)


def test_a_blank_claude_code_title_names_none(tmp_path: Path) -> None:
    w = CCWriter()
    w.bare({"type": "custom-title", "customTitle": "   ", "sessionId": w.session})
    w.bare({"type": "ai-title", "aiTitle": "the ai title", "sessionId": w.session})
    w.user("go")
    w.assistant("msg_0", [text("ok")])
    path = w.write(tmp_path / "5e55e55e-0000-4000-8000-000000000001.jsonl")
    os.utime(path, (1e9, 1e9))
    assert scan_file(path, live_window=0).title == "the ai title" == document(path).title
