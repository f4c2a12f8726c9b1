"""A big file's browser row (its head and a tail window) gives the title its whole read
and its export give, however far past the head the line it comes from is: a first prompt
after a long first message (the rows of v1 and agentgo showed none, Codex's and Claude
Code's the tail's first prompt, a later one). A blank Claude Code title names none (it
beat the title Claude Code made up, and the title fell to the first prompt)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text
from format_fixtures import BUILT_IN
from helpers import SAMPLES
from tiny_format import TinyBuilder, tiny_registered

from session_core import Message, Session, scan_title
from session_core import scan as scan_module
from session_core.agentgo import AgentGoSession
from session_core.export import document
from session_core.model import Transcript
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


# -- the search past the head: bounded, and no part of the row's counts -------------


def _tiny_file(path: Path, blanks: int, prompt: bool) -> Path:
    """A tiny-log file whose head (its first line, ``HEAD`` 1) holds no prompt, then
    ``blanks`` user lines that say nothing (each one the search looks at), then, where
    ``prompt``, its first prompt, then as many again and a later prompt."""
    lines: list[dict[str, object]] = [{"tiny": "log", "meta": {"model": "m"}}]
    lines.append({"role": "system", "text": "s" * 3000})
    for _ in range(blanks):
        lines += [{"role": "user", "text": ""}, {"role": "assistant", "text": "x" * 200}]
    if prompt:
        lines.append({"role": "user", "text": "first prompt"})
    for _ in range(blanks):
        lines += [{"role": "assistant", "text": "y" * 200}]
    lines += [{"role": "user", "text": "later prompt"}, {"role": "assistant", "text": "ok"}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    os.utime(path, (1e9, 1e9))
    return path


def test_the_search_past_the_head_leaves_a_windowed_rows_counts_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lines looked at for the first prompt are no fair sample of the middle: the
    row's counts (scaled by the bytes read) are its head's and tail's alone."""
    path = _tiny_file(tmp_path / "t.jsonl", 300, prompt=True)
    monkeypatch.setattr(scan_module, "HEAD", 1)
    with tiny_registered() as fmt:
        row = scan_file(path, live_window=0, budget=1, window=5000)
        monkeypatch.setattr(type(fmt), "prompt_bytes", ())  # (no search)
        unsearched = scan_file(path, live_window=0, budget=1, window=5000)
    assert row.title == "first prompt"
    assert unsearched.title == "later prompt"  # (what the tail alone says)
    fields = ("messages", "tool_calls", "tokens", "pending", "reason", "estimated")
    assert {f: getattr(row, f) for f in fields} == {f: getattr(unsearched, f) for f in fields}


def test_a_format_without_its_own_prompted_builds_its_model_a_few_times_not_per_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The default ``Builder.prompted`` builds the model; asked at every line looked at
    (2000 here, a file with no first prompt) it made the row's read quadratic."""
    path = _tiny_file(tmp_path / "t.jsonl", 2000, prompt=False)
    monkeypatch.setattr(scan_module, "HEAD", 1)
    builds = []
    built = TinyBuilder.transcript

    def counted(self: TinyBuilder, writer_alive: bool | None = None) -> Transcript:
        builds.append(self.lines)
        return built(self, writer_alive)

    monkeypatch.setattr(TinyBuilder, "transcript", counted)
    with tiny_registered():
        row = scan_file(path, live_window=0, budget=1, window=1000)
    assert row.title == "later prompt"  # (every line to the tail looked at: none before)
    assert len(builds) <= 2 * (2000).bit_length() + 4, len(builds)


def _v1_far(path: Path) -> Path:
    with Session.create(path, meta={"agent": "a"}) as s:
        s.append_message(Message(role="system", content="x" * 3000))
        s.append_message(Message(role="user", content="first prompt"))
        s.append_message(Message(role="assistant", content="y" * 5000))
        s.append_message(Message(role="user", content="later prompt"))
    return path


def _agentgo_far(path: Path) -> Path:
    def said(kind: str, words: str) -> dict[str, object]:
        return {"message": {"kind": kind, "content": [{"type": "text", "text": words}]}}

    session = AgentGoSession.create(path)
    run = session.begin_run()
    run.record("message_end", said("system", "x" * 3000))
    run.record("message_end", said("user", "first prompt"))
    run.record("message_end", said("assistant", "y" * 5000))
    run.record("message_end", said("user", "later prompt"))
    run.close()
    session.close()
    return path


def _claude_code_far(path: Path) -> Path:
    w = CCWriter()
    for _ in range(2):  # (the head, HEAD 1: the first line)
        w.bare({"type": "file-history-snapshot", "snapshot": "x" * 3000, "sessionId": w.session})
    w.user("first prompt")
    w.assistant("msg_0", [text("y" * 5000)])
    w.user("later prompt")  # (in the tail window, with the two lines after it)
    w.assistant("msg_1", [text("done")])
    w.assistant("msg_2", [text("done")])
    return w.write(path / "5e55e55e-0000-4000-8000-000000000001.jsonl")


def _tiny_far(path: Path) -> Path:
    return _tiny_file(path / "t.jsonl", 10, prompt=True)


@pytest.mark.parametrize("write", [_v1_far, _agentgo_far, _claude_code_far, _tiny_far])
def test_a_first_prompt_further_past_the_head_than_the_row_reads_is_not_the_title(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write: Callable[[Path], Path]
) -> None:
    """The row reads ``PAST_HEAD`` bytes past its head at most: a first prompt further in
    names it nowhere, and the tail's (a later prompt) never does."""
    path = write(tmp_path / "t.jsonl" if write is _v1_far or write is _agentgo_far else tmp_path)
    os.utime(path, (1e9, 1e9))
    monkeypatch.setattr(scan_module, "HEAD", 1)
    with tiny_registered():
        assert _windowed(path, window=1500) == "first prompt"
        # (the prompt: ~3000 bytes in; raising=False: fails as a title, not a name, without)
        monkeypatch.setattr(scan_title, "PAST_HEAD", 1000, raising=False)
        assert _windowed(path, window=1500) is None
