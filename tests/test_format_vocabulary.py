"""A format's own words (``TranscriptFormat.kind_words`` / ``meta_keys``): its error and
compaction lines are where ``e`` and ``x`` stop, its message lines are counted as
written, and its meta keys fill the browser's row and the header, as the built-ins'
words do theirs (they were matched on the built-ins' words alone)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from model_screen_helpers import IDLE, opened, until
from registering import registered
from tiny_format import TinyBuilder, TinyFormat

from session_core import open_transcript
from session_core.column_items import messages_written
from session_core.export import export
from session_core.formats import FORMATS, register
from session_core.formats.builders import Builder
from session_core.model import Transcript
from session_core.scan import scan_file
from session_core.vocabulary import kinds_of, meta_fact

NAME = "kinded-log"


class KindedBuilder(TinyBuilder):
    """The tiny format's builder, each line of the kind its record names."""

    def feed(self, record: dict[str, Any], line: int) -> None:
        super().feed(record, line)
        kind = record.get("kind")
        if isinstance(kind, str):
            self.items[-1].kind = kind

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        transcript = super().transcript(writer_alive)
        transcript.format = NAME
        return transcript


class KindedFormat(TinyFormat):
    name: ClassVar[str] = NAME
    title: ClassVar[str] = "kinded log"
    kind_words: ClassVar[dict[str, tuple[str, ...]]] = {
        "message": ("said",),
        "error": ("rate-limit",),
        "compaction": ("squash",),
    }
    meta_keys: ClassVar[dict[str, tuple[str, ...]]] = {
        "title": ("headline",),
        "cwd": ("workdir",),
        "model": ("model_name",),
        "started": ("created_at",),
    }

    def claims(self, record: dict[str, Any]) -> bool:
        return record.get("tiny") == "log" and record.get("kinded") is True

    def builder(self, path: str) -> Builder:
        return KindedBuilder(path)


LINES: list[dict[str, Any]] = [
    {
        "tiny": "log",
        "kinded": True,
        "meta": {
            "workdir": "/home/u/kproj",
            "model_name": "k-2",
            "created_at": "2026-01-02",
            "headline": "the kinded run",
        },
    },
    {"role": "user", "text": "go"},
    {"role": "assistant", "text": "Going."},
    {"role": "user", "text": "said as its own kind", "kind": "said"},
    {"role": "system", "text": "slow down", "kind": "rate-limit"},
    {"role": "assistant", "text": "Still here."},
    {"role": "system", "text": "the story so far", "kind": "squash"},
    {"role": "assistant", "text": "Done."},
]
SAID, RATE_LIMIT, SQUASH = 3, 4, 6  # their indexes in the raw view


def kinded_registered() -> contextlib.AbstractContextManager[KindedFormat]:
    return registered(KindedFormat())


@pytest.fixture
def kinded(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "kinded.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in LINES))
    os.utime(path, (IDLE, IDLE))
    with kinded_registered():
        yield path


def test_its_own_message_kind_is_counted_as_written_by_the_row_and_peek(kinded: Path) -> None:
    assert scan_file(kinded).messages == 5  # (the built-ins' words alone: 4)
    peeked = KindedFormat().peek_source(str(kinded))
    assert "said as its own kind" in [m.content for m in peeked.messages()]
    t = open_transcript(kinded)
    assert t.format == NAME and [i.kind for i in t.raw][SAID] == "said"
    assert messages_written(t.raw, t.format) == 5


def test_the_diff_lists_its_own_message_kind_not_sent(kinded: Path) -> None:
    diff = KindedFormat().diff(str(kinded))
    assert "- line      4 user      said as its own kind" in diff


def test_its_meta_keys_fill_the_row_and_the_exports_title(kinded: Path) -> None:
    row = scan_file(kinded)
    assert (row.model, row.agent, row.started) == ("k-2", "kproj", "2026-01-02")
    assert row.title == "the kinded run"
    assert export(kinded, "md").startswith("# the kinded run\n")


def test_its_words_are_added_to_the_shared_ones_and_a_format_names_only_known_ones() -> None:
    kinds = kinds_of(NAME)  # (not registered: the shared words alone)
    assert "rate-limit" not in kinds.error and "error" in kinds.error
    mine = kinds_of(KindedFormat())
    assert {"rate-limit", "error"} <= mine.error and "squash" in mine.compaction
    assert meta_fact({"model": "m", "model_name": "k"}, KindedFormat(), "model") == "k"


def test_a_new_format_gets_no_built_in_formats_own_words() -> None:
    """The shared words are the neutral model's (and those two or more built-ins write):
    a word one built-in alone writes is its own registration's, so a new format's
    ``compact-summary`` line is not counted as a message nor its ``originator`` taken
    for the program that wrote it (they were, from a shared table of the built-ins')."""
    mine = kinds_of(KindedFormat())
    assert mine.message == {"message", "said"} and mine.error == {"error", "rate-limit"}
    assert mine.conversation == {"meta"} and mine.compaction == {"compaction", "squash"}
    meta = {"originator": "c", "cli_version": "1", "timestamp": "t", "gitBranch": "b"}
    facts = ("client", "version", "started", "branch")
    assert [meta_fact(meta, KindedFormat(), fact) for fact in facts] == [None] * 4
    assert [meta_fact(meta, "codex", fact) for fact in facts] == ["c", "1", "t", None]
    claude = kinds_of("claude-code")
    assert {"command", "compact-summary"} <= claude.message and "queued" in claude.conversation
    assert "compact-summary" in claude.compaction and "summary" in kinds_of("agentgo-v1").compaction

    class Misnamed(KindedFormat):
        name: ClassVar[str] = "misnamed"
        kind_words: ClassVar[dict[str, tuple[str, ...]]] = {"errors": ("oops",)}

    with pytest.raises(ValueError, match="'misnamed' names errors"):
        register(Misnamed())

    class Bare(KindedFormat):  # (a string, not a tuple: read as its letters)
        name: ClassVar[str] = "misnamed"
        kind_words: ClassVar[dict[str, str]] = {"error": "oops"}  # type: ignore[assignment]

    with pytest.raises(ValueError, match="error is not a tuple of words: 'oops'"):
        register(Bare())
    assert all(fmt.name != "misnamed" for fmt in FORMATS)


async def test_e_and_x_stop_at_its_own_error_and_compaction_lines(kinded: Path) -> None:
    async with opened(kinded) as (_app, pilot, screen):
        view = screen.conversation
        await pilot.press("r")
        await until(pilot, lambda: view.mode == "raw" and len(view.items) == len(LINES), "raw")
        await pilot.press("g", "e")
        assert view.cursor == RATE_LIMIT
        await pilot.press("g", "x")
        assert view.cursor == SQUASH


async def test_the_header_shows_its_meta_keys(kinded: Path) -> None:
    async with opened(kinded) as (_app, _pilot, screen):
        header = str(screen.query_one("ModelStatus").render())
        assert "model_name=k-2" in header and "workdir=/home/u/kproj" in header
