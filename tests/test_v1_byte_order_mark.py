"""A v1 file led by UTF-8's byte order mark, as its reference reads it (Raku's decoder
drops one at the file's start): load, repair and append, the follow's spans, the
browser's windowed row, the first screen's tail, a compressed copy; a mark anywhere else
is no JSON, as before. (Every read path against the file without it: the contract suite's
``test_a_byte_order_mark_is_read_past_by_a_format_that_reads_one``.)"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from codex_writer import zst_copy

from session_core import InvalidLineError, Message, Session, open_transcript, peek
from session_core.events import SPAN_BITS
from session_core.formats import by_name, detect_format
from session_core.reader import replay_file
from session_core.scan import scan_file
from session_core.tail_reader import TailReader
from story import write_story
from viewer.cli import main

BOM = b"\xef\xbb\xbf"


@pytest.fixture
def led(tmp_path: Path) -> tuple[Path, Path]:
    """The story, and a copy of it led by a byte order mark."""
    plain = tmp_path / "story.jsonl"
    write_story(plain)
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(BOM + plain.read_bytes())
    return plain, bom


def test_load_repairs_and_appends_after_the_mark_which_stays(led: tuple[Path, Path]) -> None:
    plain, bom = led
    with bom.open("ab") as fh:
        fh.write(b'{"id":"cut","payl')  # a crash tail
    with Session.load(bom) as session:
        assert session.message_ids() == replay_file(plain, tolerate_tail=False).message_ids()
        assert session.meta() == {"agent": "sadna", "model": "kimi-k2"}
        assert "was cut off" in session.warnings()[0]
        added = session.append_message(Message(role="user", content="after the mark"))
    data = bom.read_bytes()
    assert data.startswith(BOM + b'{"id"') and data.count(BOM) == 1
    assert data == BOM + plain.read_bytes() + data[len(BOM) + plain.stat().st_size :]
    with Session.load(bom) as session:
        assert session.message_ids()[-1] == added and session.warnings() == []


def test_a_first_line_alone_without_its_newline_gets_one(tmp_path: Path) -> None:
    """The crash tail's rules read the first line past the mark too (the last line is the
    first: it is whole, and gets its newline; it was taken for no transcript)."""
    path = tmp_path / "one.jsonl"
    meta = (
        b'{"id":"m","payload":{"agent":"a"},"ts":"2026-08-09T13:10:08Z",'
        b'"type":"session-meta","v":1}'
    )
    path.write_bytes(BOM + meta)
    with Session.load(path) as session:
        assert session.meta() == {"agent": "a"}
    assert path.read_bytes() == BOM + meta + b"\n"


def test_a_mark_anywhere_else_is_no_json(led: tuple[Path, Path], tmp_path: Path) -> None:
    plain, _bom = led
    lines = plain.read_bytes().split(b"\n")
    for name, data, line in (
        ("twice.jsonl", BOM + BOM + plain.read_bytes(), 1),
        ("second.jsonl", b"\n".join([lines[0], BOM + lines[1], *lines[2:]]), 2),
        ("late.jsonl", b" " + BOM + plain.read_bytes(), 1),  # (not the file's first bytes)
    ):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(InvalidLineError) as err:
            replay_file(path, tolerate_tail=False)
        assert err.value.line == line
        assert ("byte order mark" in err.value.reason) == (name != "late.jsonl")
        assert main(["check", str(path)]) == 1
        if line == 1:
            assert detect_format(path) is None and peek(path).error is not None
        else:
            assert peek(path).warnings == ["line 2 could not be read, and was skipped"]
            assert scan_file(path).status == "damaged"


def test_the_follow_reads_lines_from_past_the_mark(led: tuple[Path, Path]) -> None:
    """Its first line's span starts past the mark (read again by it, the meta), and a
    first read that ends mid-line is no rewrite when the rest comes (its line began after
    the mark, not after a newline)."""
    _plain, bom = led
    data = bom.read_bytes()
    bom.write_bytes(data[:40])
    tail = TailReader(str(bom), parse=False)
    first = tail.step(None)
    assert first is not None and first.raw == [] and first.held == 37
    bom.write_bytes(data)  # (the same inode: written on)
    update = tail.step(None)
    assert update is not None and not update.reset and update.warnings == []
    assert update.format == "transcript-v1"
    assert update.spans[0] >> SPAN_BITS == 3 and bytes(update.raw[0]).startswith(b'{"id"')
    tail.close()


@pytest.mark.parametrize("parse", [True, False])
@pytest.mark.parametrize("seen", [1, 2])
def test_a_follow_that_first_sees_part_of_the_mark_waits_for_the_rest(
    led: tuple[Path, Path], seen: int, parse: bool
) -> None:
    """A writer's first byte or two of the mark, read before the third: nothing is read
    (taken as a line's, they would make line 1 no JSON and the file no transcript) till
    the mark is whole; then the file reads as a whole read does."""
    plain, bom = led
    data = bom.read_bytes()
    bom.write_bytes(data[:seen])
    tail = TailReader(str(bom), parse=parse)
    first = tail.step(None)
    assert first is not None and first.initial and first.held == 0 and tail.offset == 0
    assert tail.step(None) is None  # (nothing new till the mark is whole)
    bom.write_bytes(data)
    update = tail.step(None)
    assert update is not None and not update.reset and update.warnings == []
    assert update.format == "transcript-v1" and tail.bom == 3
    assert len(update.lines) == len(plain.read_bytes().splitlines())
    assert update.spans[0] >> SPAN_BITS == 3
    tail.close()


def test_a_start_like_the_mark_s_that_is_not_it_is_read_as_a_line(tmp_path: Path) -> None:
    """Two bytes that only begin the mark are read once a third shows it is not one."""
    path = tmp_path / "not.jsonl"
    path.write_bytes(b"\xef\xbb")
    tail = TailReader(str(path))
    tail.step(None)
    path.write_bytes(b"\xef\xbbX\n")
    update = tail.step(None)
    assert update is not None and update.lines == [] and tail.offset == 4 and tail.bom == 0
    assert any("line 1" in w for w in update.warnings)
    tail.close()


def test_the_browser_reads_a_window_from_the_files_start(led: tuple[Path, Path]) -> None:
    """A window as big as the file begins at its start: past the mark (it was damage)."""
    plain, bom = led
    later = time.time() + 3600  # (its writer gone: a file cut off is no longer live)
    rows = [scan_file(p, budget=100, window=1 << 20, now=later) for p in (plain, bom)]
    assert rows[1].status == rows[0].status == "crashed"
    assert (rows[1].messages, rows[1].reason) == (rows[0].messages, rows[0].reason)
    assert rows[1].agent == "sadna" and rows[1].estimated


def test_the_first_screens_tail_reads_the_meta(led: tuple[Path, Path]) -> None:
    _plain, bom = led
    transcript = by_name("transcript-v1").tail(bom)
    assert transcript is not None and transcript.meta == {"agent": "sadna", "model": "kimi-k2"}


def test_a_compressed_copy_reads_past_the_mark(led: tuple[Path, Path], tmp_path: Path) -> None:
    plain, bom = led
    packed = Path(zst_copy(str(bom), str(tmp_path / "packed.jsonl.zst")))
    assert detect_format(packed) == "transcript-v1"
    assert len(open_transcript(packed).raw) == len(open_transcript(plain).raw)
    assert peek(packed).warnings == [] and peek(packed).meta == peek(plain).meta
    assert scan_file(packed, live_window=0).messages == scan_file(plain).messages
