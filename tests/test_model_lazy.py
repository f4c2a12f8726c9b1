"""Claude Code and Codex read lazily (long texts left in the file, read again by span)
and tail first (the file's end alone) give what the plain whole read gives.

The plain read is the builder fed every parsed line with no file to read back from (every
part kept whole); the lazy reads are ``open`` (``read_spans``) and the live view's
``follow(parse=False)`` batches applied to a ``LiveModel``. Thresholds are set to 0 so
that every part of the writers' small fixtures is lazy.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from claude_code_writer import story as cc_story
from codex_writer import completed_story
from codex_writer import story as codex_story
from helpers import SAMPLES, follow_into

from session_core import model
from session_core.file_lines import read_records
from session_core.formats import by_name
from session_core.formats.base import TranscriptFormat, tail_transcript
from session_core.formats.builders import Builder
from session_core.model import LazyPart, Transcript


@pytest.fixture(autouse=True)
def everything_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model, "LAZY_TEXT", 0)
    monkeypatch.setattr(model, "LAZY_LINE", 0)


def plain(fmt: TranscriptFormat, path: str, writer_alive: bool | None) -> Transcript:
    builder = fmt.builder(path)
    for number, value, raw in read_records(path):
        builder.lines = number
        if value is None:
            from session_core.line_warnings import bad_line_reason

            builder.bad_line(number, raw, bad_line_reason(raw))
        elif type(value) is not dict:
            builder.bad_line(number, raw, "is not a JSON object")
        else:
            builder.feed(value, number)
    assert builder.part_source is None
    return builder.transcript(writer_alive)


def opened_plainly(
    fmt: TranscriptFormat, path: str, monkeypatch: pytest.MonkeyPatch
) -> dict[str, Any]:
    with monkeypatch.context() as m:
        m.setattr(Builder, "lazy", lambda self, parts: None)
        return fmt.open(path, writer_alive=False).to_json()


def followed(fmt: TranscriptFormat, path: str, batch: int) -> Transcript:
    live = fmt.live(path)
    follow_into(live.apply, path, batch, parse=False)
    return live.transcript(writer_alive=False)


def lazy_parts(t: Transcript) -> int:
    return sum(isinstance(p, LazyPart) for item in t.raw for p in item.parts)


def fixtures(tmp_path: Path) -> list[tuple[str, str]]:
    out = [("claude-code", str(cc_story(tmp_path / "cc")))]
    codex = tmp_path / "codex"
    codex.mkdir()
    codex_story(codex / "rollout-2026-01-01T00-00-00-a.jsonl")
    completed_story(codex / "rollout-2026-01-01T00-00-01-b.jsonl")
    out += [("codex", str(p)) for p in sorted(codex.glob("*.jsonl"))]
    return out


def damage(path: str) -> None:
    """A line in the middle broken, a line that is not an object, a torn last line."""
    data = Path(path).read_bytes().split(b"\n")
    middle = len(data) // 2
    data[middle] = data[middle][: len(data[middle]) // 2]
    data.insert(middle + 2, b"[1, 2, 3]")
    Path(path).write_bytes(b"\n".join(data) + b'\n{"type": "assistant", "mess')


@pytest.mark.parametrize("damaged", [False, True])
def test_lazy_open_equals_plain_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damaged: bool
) -> None:
    for name, path in fixtures(tmp_path):
        if damaged:
            damage(path)
        fmt = by_name(name)
        lazy = fmt.open(path, writer_alive=False)
        assert lazy_parts(lazy) > 0
        assert lazy.to_json() == opened_plainly(fmt, path, monkeypatch), path
        assert lazy.to_json() == fmt.open(path, writer_alive=False).to_json()  # read twice


@pytest.mark.parametrize("damaged", [False, True])
@pytest.mark.parametrize("batch", [64, 1 << 20])
def test_followed_lazily_equals_plain_read(tmp_path: Path, damaged: bool, batch: int) -> None:
    for name, path in fixtures(tmp_path):
        if damaged:
            damage(path)
        fmt = by_name(name)
        live = followed(fmt, path, batch)
        whole = plain(fmt, path, False)
        assert lazy_parts(live) > 0
        mine, theirs = live.to_json(), whole.to_json()
        # follow words its own warnings for bad lines; everything else is the same (but
        # the subagents a followed file links, which a builder alone does not: compared
        # with a whole open's in test_claude_code_live and test_codex_live_subagents)
        linked = ("usage-with-subagents", "usage-with-subagents-partial")
        for key in ("warnings", "subagents", *linked, "usage-with-subagents-said"):
            mine.pop(key, None)
            theirs.pop(key, None)
        assert mine == theirs, path


def test_tail_first_ends_like_the_whole_read(tmp_path: Path) -> None:
    for name, path in fixtures(tmp_path):
        fmt = by_name(name)
        whole = plain(fmt, path, None)
        everything = tail_transcript(fmt, path, window=1 << 30)
        assert everything is not None
        assert [m.to_json() for m in everything.messages] == [m.to_json() for m in whole.messages]
        assert all(item.line == 0 for item in everything.raw)
        size = os.path.getsize(path)
        end = tail_transcript(fmt, path, window=size // 3)
        assert end is not None and end.messages
        # a Codex item's id is its line ("L12"): not known in a window, the rest is
        last, expected = end.messages[-1].to_json(), whole.messages[-1].to_json()
        last.pop("id")
        expected.pop("id")
        if "model" not in last:  # nor its turn's model, where no turn_context of it is in it
            expected.pop("model", None)
        assert last == expected


def test_the_first_screens_window_grows_only_for_big_lines(tmp_path: Path) -> None:
    from claude_code_writer import CCWriter

    from session_core.formats import base

    def session(name: str, text_size: int, messages: int) -> str:
        w = CCWriter()
        for n in range(messages):
            w.user(f"question {n} " + "x" * text_size)
        return str(w.write(tmp_path / name))

    fmt = by_name("claude-code")
    small = tail_transcript(fmt, session("small.jsonl", 100, 5000))
    assert small is not None
    assert small.extra["tail-window"] <= base.FIRST_WINDOW  # enough lines at once
    assert len(small.messages) >= base.FIRST_LINES / 2
    big = tail_transcript(fmt, session("big.jsonl", 60_000, 60))
    assert big is not None
    assert base.FIRST_WINDOW < big.extra["tail-window"] <= base.TAIL_WINDOW
    assert big.messages[-1].parts[0].text.startswith("question 59 ")


def test_a_line_changed_on_disk_reads_as_changed(tmp_path: Path) -> None:
    name, path = fixtures(tmp_path)[0]
    transcript = by_name(name).open(path)
    part = next(p for item in transcript.raw for p in item.parts if isinstance(p, LazyPart))
    Path(path).write_bytes(b"x" * os.path.getsize(path))  # same inode, other bytes
    part._source._cache.clear()  # lines read back lately are kept: not this one
    assert part.text.endswith("[changed on disk: only the start is shown]")
    assert part.data is None


@pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/samples is not here")
def test_samples_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, pattern in (("claude-code", "claude-code/**/*.jsonl"), ("codex", "codex/**/*.jsonl")):
        for path in sorted(SAMPLES.glob(pattern)):
            fmt = by_name(name)
            assert fmt.open(path, writer_alive=False).to_json() == opened_plainly(
                fmt, str(path), monkeypatch
            )


def test_a_long_list_like_shows_its_start_without_making_every_item() -> None:
    """A traceback that shows its locals (Textual's) reprs a big file's operations: it
    must not make each of them (minutes at 1 GB)."""
    from session_core.indexed import SHOWN, ListLike

    made: list[int] = []

    class Squares(ListLike[int]):
        __slots__ = ("n",)

        def __init__(self, n: int) -> None:
            self.n = n

        def __len__(self) -> int:
            return self.n

        def _one(self, index: int) -> int:
            made.append(index)
            return index * index

    assert repr(Squares(3)) == "[0, 1, 4]" and Squares(3) == [0, 1, 4]
    made.clear()
    text = repr(Squares(1_000_000))
    assert text.startswith("[0, 1, 4, 9,") and text.endswith(f"... {1_000_000 - SHOWN:,} more]")
    assert made == list(range(SHOWN))
