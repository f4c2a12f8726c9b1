"""``column_items.near_end``: an item of a big file's end, read alone first, found again
in the whole file once it is in, for every format: where it is alike (role, kind, time,
parts), never another item with its id (Codex's ``L7`` and Claude Code's ``line-7`` count
lines from where the end began: in the whole they name another item)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest
from codex_writer import RolloutWriter
from test_search_over_preview import codex_turns, needles, queued_session, said

import session_core.formats.base as base
from session_core import open_transcript
from session_core.agentgo import tail as agentgo_tail
from session_core.column_items import item_key, near_end
from session_core.formats import format_of
from session_core.parts import LazyPart

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_agentgo


def codex(path: Path) -> Path:
    writer = RolloutWriter(path / "rollout.jsonl")
    writer.session_meta()
    codex_turns(writer, range(40))
    return Path(writer.path)


def agentgo(path: Path) -> Path:
    """A generated session, its results long enough that the whole keeps only heads."""
    assert gen_agentgo.generate(path / "agentgo.jsonl", 600_000, 2, False)
    return path / "agentgo.jsonl"


# (a file, the end's bytes (agentgo's: its last 20 messages), whether its ids are the writer's own)
FILES: dict[str, tuple[Callable[[Path], Path], int, bool]] = {
    "transcript-v1": (lambda p: needles(p / "v1.jsonl"), 2600, True),
    "agentgo-v1": (agentgo, 256 << 10, True),
    "codex": (codex, 2400, False),
    "claude-code": (lambda p: queued_session(p / "5e55e55e.jsonl"), 2600, False),
}


@pytest.mark.parametrize("name", FILES)
def test_each_item_of_the_end_is_found_again_as_it_is(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make, window, own_ids = FILES[name]
    path = make(tmp_path)
    monkeypatch.setattr(base, "FIRST_WINDOW", window)
    monkeypatch.setattr(base, "FIRST_LINES", 5)
    monkeypatch.setattr(agentgo_tail, "read_tail", partial(agentgo_tail.read_tail, want=20))
    fmt = format_of(path)
    assert fmt is not None and fmt.name == name
    end = fmt.tail(path, window)
    assert end is not None
    whole = open_transcript(path)
    lazy = 0
    for column in ("raw", "messages"):
        shown, every = getattr(end, column), getattr(whole, column)
        assert 2 < len(shown) < len(every)
        for from_end in range(1, len(shown) + 1):
            item = shown[len(shown) - from_end]
            at = near_end(every, item, from_end, 10_000)
            assert at == len(every) - from_end and said(every[at]) == said(item)
            assert item_key(every, at)[0] == item.id or not own_ids
            lazy += any(isinstance(part, LazyPart) for part in every[at].parts)
    assert lazy or name != "agentgo-v1"  # (found though the whole keeps heads alone)


@pytest.mark.parametrize("name", ["codex", "claude-code"])
def test_an_id_that_counts_lines_finds_no_other_item(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the whole grew, the end's item is not at its place: its id is another's."""
    make, window, _ = FILES[name]
    path = make(tmp_path)
    monkeypatch.setattr(base, "FIRST_WINDOW", window)
    monkeypatch.setattr(base, "FIRST_LINES", 5)
    fmt = format_of(path)
    assert fmt is not None
    end = fmt.tail(path, window)
    assert end is not None
    every = open_transcript(path).raw
    at = {item_key(every, i)[0]: i for i in range(len(every))}
    named = [
        (len(end.raw) - k, item)
        for k, item in enumerate(end.raw)
        if item.id in at and said(every[at[item.id]]) != said(item)
    ]
    assert len(named) > 1  # (ids the whole has, other items')
    for from_end, item in named:
        assert near_end(every, item, from_end + 1, 10_000) == -1  # (as if one appended)
