"""A whole last line without its newline, once its writer is gone: read by the viewer as
the format's whole read (``replay``, ``diff``) reads it, where the format keeps such a
line (v1's spec); held back while the writer may still be writing it, and never read
where the format ignores it (agentgo's)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from helpers import app_loaded, neutral, screen_lines, wait_for

from agentgo_helpers import one_turn
from session_core import Message, Session
from session_core.events import SPAN_BITS, SPAN_MAX
from session_core.follow_update import FollowUpdate
from session_core.formats import by_name
from session_core.tail_reader import TailReader
from story import OLD_MTIME
from viewer.screens.model_screen import ModelScreen

SIZE = (120, 30)
UNREAD = "has no newline: the writer left it unfinished"
READ = "has no newline, and its writer is gone: it is whole, and is read"


def _compacted_last(path: Path) -> Path:
    """A v1 session of 8 lines whose last is its second compaction, with no final
    newline (as the audit's ``v1_lastnonl``)."""
    call = {"id": "c1", "type": "function", "function": {"name": "sh", "arguments": "{}"}}
    s = Session.create(path, meta={"agent": "t", "model": "gpt-4o"})
    s.append_message(Message(role="system", content="SYS prompt", sysprompt=True))
    s.append_message(Message(role="user", content="U1 run the tests"))
    a1 = s.append_message(Message(role="assistant", content="calling", tool_calls=(call,)))
    s.append_compaction("S1 summary", a1, tokens_before=700, tokens_after=70)
    s.append_message(Message(role="tool", content="T1 3 passed", tool_call_id="c1"))
    a2 = s.append_message(Message(role="assistant", content="A2 now make"))
    s.append_compaction("S2 summary", a2, tokens_before=400, tokens_after=40)
    s.close()
    body = path.read_bytes()
    assert body.endswith(b"\n")
    path.write_bytes(body[:-1])
    return path


def _replayed(path: Path) -> tuple[list[str], int]:
    """What ``replay`` sends next (texts) and how many compactions a whole read finds."""
    fmt = by_name("transcript-v1")
    sent = [m["content"] for m in fmt.replay_json(path)["messages"]]
    return sent, len(fmt.open(path).compactions)


async def test_a_whole_last_line_is_read_as_replay_reads_it_once_the_writer_is_gone(
    tmp_path: Path,
) -> None:
    path = _compacted_last(tmp_path / "s.jsonl")
    os.utime(path, (OLD_MTIME, OLD_MTIME))  # (a v1 writer does not lock: idle is gone)
    before = path.read_bytes()
    sent, compactions = _replayed(path)
    assert sent == ["SYS prompt", "S2 summary"] and compactions == 2
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        await wait_for(pilot, lambda: screen.held_line == 0)
        await wait_for(pilot, lambda: len(screen.transcript.compactions) == compactions)
        assert [m.text for m in screen.transcript.messages] == sent
        warnings = screen.transcript.warnings
        assert not any(UNREAD in w for w in warnings)
        assert [w for w in warnings if READ in w] == [f"line 8 {READ}"]
        assert screen.unfinished() is None  # (``w`` offers no unfinished line)
    assert path.read_bytes() == before  # (read, never mended)


async def test_the_viewer_drops_the_settled_note_once_the_newline_comes(
    tmp_path: Path,
) -> None:
    """The writer was not gone after all: once it ends the line settled, the note that
    the line had no newline is no longer among the warnings (it stayed, untrue)."""
    path = _compacted_last(tmp_path / "s.jsonl")
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        await wait_for(pilot, lambda: f"line 8 {READ}" in screen.transcript.warnings)
        u3 = {"role": "user", "content": "U3 later"}
        line = {"id": "u3", "payload": u3, "ts": "2026-01-01T00:00:00Z", "type": "message"}
        with path.open("ab") as fh:
            fh.write(b"\n" + orjson.dumps({**line, "v": 1}) + b"\n")
        await wait_for(pilot, lambda: screen.transcript.lines == 9)
        await wait_for(pilot, lambda: not any(READ in w for w in screen.transcript.warnings))


async def test_a_last_line_being_written_is_held_back_and_read_once_ended(
    tmp_path: Path,
) -> None:
    path = _compacted_last(tmp_path / "s.jsonl")  # (just written: its writer may be at it)
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        await pilot.pause(0.6)  # (a settle would have come by now: the follower polls)
        assert screen.held_line == 8
        assert len(screen.transcript.compactions) == 1
        assert not any(READ in w or UNREAD in w for w in screen.transcript.warnings)
        with path.open("ab") as fh:  # the writer ends it
            fh.write(b"\n")
        await wait_for(pilot, lambda: screen.held_line == 0)
        await wait_for(pilot, lambda: len(screen.transcript.compactions) == 2)
        assert [m.text for m in screen.transcript.messages] == _replayed(path)[0]


def test_a_settled_line_s_newline_is_read_past_and_the_next_line_numbered_after_it(
    tmp_path: Path,
) -> None:
    path = _compacted_last(tmp_path / "s.jsonl")
    tail = TailReader(str(path))
    first = tail.step(None)
    assert first is not None and first.held_line == 8
    settled = tail.settle()
    assert settled is not None and settled.lines == [8] and settled.held_line == 0
    assert settled.envelopes[0]["type"] == "compaction"
    assert tail.settle() is None  # (read once)
    assert tail.step(None) is None
    with path.open("ab") as fh:  # the writer was not gone after all: it ends the line
        fh.write(b"\r\n")
    ended = tail.step(None)  # its ending alone: no line new, none twice; its note withdrawn
    assert ended is not None and (ended.lines, ended.reset, ended.warnings) == ([], False, [])
    assert ended.withdrawn == settled.warnings
    assert tail.step(None) is None
    u3 = {"role": "user", "content": "U3 later"}
    line = {"id": "u3", "payload": u3, "ts": "2026-01-01T00:00:00Z", "type": "message", "v": 1}
    with path.open("ab") as fh:
        fh.write(orjson.dumps(line) + b"\n")
    update = tail.step(None)
    assert update is not None and not update.reset and update.lines == [9]
    tail.close()


def test_a_settled_line_written_on_is_read_again_from_line_1(tmp_path: Path) -> None:
    path = _compacted_last(tmp_path / "s.jsonl")
    tail = TailReader(str(path))
    tail.step(None)
    assert tail.settle() is not None
    with path.open("ab") as fh:  # more on the line read: another line than the one read
        fh.write(b' "more"\n')
    update = tail.step(None)
    assert update is not None and update.reset
    assert any("was written on" in w for w in update.warnings)
    tail.close()


def test_a_torn_last_line_is_not_settled(tmp_path: Path) -> None:
    path = _compacted_last(tmp_path / "s.jsonl")
    path.write_bytes(path.read_bytes()[:-5])
    tail = TailReader(str(path))
    tail.step(None)
    assert tail.settle() is None
    assert tail.line == 7 and tail.partial  # (still held back)
    tail.close()


async def test_agentgo_never_reads_a_last_line_without_its_newline(tmp_path: Path) -> None:
    """agentgo's spec: only a final line without a newline is ignored, even valid JSON."""
    path = one_turn(tmp_path / "a.jsonl", ended=False)
    path.write_bytes(path.read_bytes()[:-1])  # (the message_end line, whole, no newline)
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    tail = TailReader(str(path), parse=False)
    tail.step(None)
    assert tail.settle() is None
    tail.close()
    whole = by_name("agentgo-v1").open(path)
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        await pilot.pause(0.6)
        assert screen.held_line == path.read_bytes().count(b"\n") + 1
        assert len(screen.transcript.messages) == len(whole.messages)
        assert not any(READ in w for w in screen.transcript.warnings)


def _later_lines() -> bytes:
    """Three v1 lines a writer may add after a line settled: a tool call and its result."""
    call = {"id": "c2", "type": "function", "function": {"name": "sh", "arguments": "{}"}}
    payloads = [
        ("a3", {"role": "assistant", "content": "A3 again", "tool-calls": [call]}),
        ("t3", {"role": "tool", "content": "T3 done", "tool-call-id": "c2"}),
        ("u4", {"role": "user", "content": "U4 thanks"}),
    ]
    return b"".join(
        orjson.dumps(
            {"id": i, "payload": p, "ts": f"2026-01-01T00:00:0{n}Z", "type": "message", "v": 1}
        )
        + b"\n"
        for n, (i, p) in enumerate(payloads)
    )


LATER = _later_lines()


def _follow_settling(tail: TailReader, apply: Callable[[FollowUpdate], object]) -> None:
    """Step ``tail`` to the file's end as ``follow`` does with its writer known gone:
    a held-back last line is settled once all is read."""
    while (update := tail.step(None)) is not None:
        apply(update)
    if (settled := tail.settle()) is not None:
        apply(settled)


@pytest.mark.parametrize("line_end", [b"", b"\r"], ids=["no-cr", "cr"])
@pytest.mark.parametrize(
    "writes",
    [
        [b"\n" + LATER],
        [b"\r\n" + LATER],
        [b"\r", b"\n" + LATER],  # (a CRLF in two writes)
        [b"\r", b"\n", LATER],
        [b"\n", LATER],
        [b"\r", b"\r\n" + LATER],
        [b"   \n" + LATER],  # more on the line settled: another line, read again
        [b"\r", b"  \n" + LATER],
        [b"\r"],  # a CR alone, nothing after it: JSON's white space on the line settled
        [b"\r", b"\r"],
    ],
    ids=repr,
)
def test_what_follows_a_settled_line_is_read_as_a_whole_read_reads_it(
    tmp_path: Path, line_end: bytes, writes: list[bytes]
) -> None:
    """However the bytes after a settled line come (its newline, a CRLF in one write or
    two, more on the same line), the followed model and each line's span agree with a
    whole read of the file (the v1 live model reads its lines again through their spans)."""
    path = _compacted_last(tmp_path / "s.jsonl")
    with path.open("ab") as fh:
        fh.write(line_end)
    fmt = by_name("transcript-v1")
    live = fmt.live(str(path))
    tail = TailReader(str(path), parse=fmt.parsed_updates)
    lines: dict[int, bytes] = {}

    def apply(update: FollowUpdate) -> None:
        live.apply(update)
        if update.reset:
            lines.clear()
        for number, raw, span in zip(update.lines, update.raw, update.spans, strict=True):
            lines[number] = path.read_bytes()[span >> SPAN_BITS :][: span & SPAN_MAX]
            assert lines[number] == bytes(raw)

    _follow_settling(tail, apply)
    assert tail.line == 8
    for data in writes:
        with path.open("ab") as fh:
            fh.write(data)
        _follow_settling(tail, apply)
    tail.close()
    whole = [line.rstrip(b"\r") for line in path.read_bytes().split(b"\n")]
    assert [lines[n].rstrip(b"\r") for n in sorted(lines)] == [line for line in whole if line]
    followed = neutral(live.transcript(writer_alive=False))
    read = neutral(fmt.open(path, writer_alive=False))
    followed.pop("warnings"), read.pop("warnings")  # (the follower says it settled a line)
    assert followed == read


BLANKS = [b"\r", b"\r\r", b" \t", "\u3000".encode()]  # (v1 reads Unicode's white space)
WRITES = [[], [b"\n" + LATER], [b"\r\n" + LATER], [b"\n", LATER], [LATER]]


@pytest.mark.parametrize(
    ("blank", "writes"),
    [
        (blank, writes)
        for writes in WRITES
        for blank in BLANKS
        # (a record after white space that is not JSON's is damage to a whole read: no case)
        if not (writes == [LATER] and blank.strip(b" \t\r"))
    ],
    ids=repr,
)
def test_a_blank_line_after_the_last_newline_is_read_as_a_whole_read_skips_it(
    tmp_path: Path, blank: bytes, writes: list[bytes]
) -> None:
    """White space after the last line's newline, with no newline of its own (a lone CR):
    a blank line 9 to a whole read, which skips it. Once its writer is gone the follower
    reads it so too, held back no longer (the viewer said it was left unfinished), and
    what is written after it is read as the whole read reads it."""
    path = _compacted_last(tmp_path / "s.jsonl")
    with path.open("ab") as fh:
        fh.write(b"\n" + blank)
    fmt = by_name("transcript-v1")
    live = fmt.live(str(path))
    tail = TailReader(str(path), parse=fmt.parsed_updates)
    updates: list[FollowUpdate] = []

    def apply(update: FollowUpdate) -> None:
        updates.append(update)
        live.apply(update)

    _follow_settling(tail, apply)
    assert (tail.line, tail.partial, tail.offset) == (9, [], path.stat().st_size)
    settled = updates[-1]
    assert (settled.held_line, settled.lines, settled.warnings) == (0, [], [])
    assert tail.settle() is None  # (read once)
    for data in writes:
        with path.open("ab") as fh:
            fh.write(data)
        _follow_settling(tail, apply)
    tail.close()
    followed = neutral(live.transcript(writer_alive=False))
    read = neutral(fmt.open(path, writer_alive=False))
    assert read["warnings"] == []
    if writes == [LATER]:  # (more on the blank line: another line than the one read)
        assert any("was written on" in w for w in followed.pop("warnings"))
        read.pop("warnings")
    assert followed == read


async def test_a_blank_last_line_is_not_said_unfinished_once_the_writer_is_gone(
    tmp_path: Path,
) -> None:
    path = _compacted_last(tmp_path / "s.jsonl")
    with path.open("ab") as fh:
        fh.write(b"\n\r")
    os.utime(path, (OLD_MTIME, OLD_MTIME))  # (a v1 writer does not lock: idle is gone)
    assert by_name("transcript-v1").open(path).warnings == []
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        await wait_for(pilot, lambda: screen.held_line == 0)  # (was held: line 9 unfinished)
        await pilot.pause(0.3)
        assert screen.transcript.warnings == [] and screen.unfinished() is None
        assert screen.transcript.lines == 8


@pytest.mark.parametrize("how", ["truncated", "replaced"])
def test_a_settled_line_s_file_cut_or_replaced_is_read_again(tmp_path: Path, how: str) -> None:
    """After a settle, a file truncated and written anew, or another file renamed over
    it, is read again from line 1: the followed model is the whole read's."""
    path = _compacted_last(tmp_path / "s.jsonl")
    fmt = by_name("transcript-v1")
    live = fmt.live(str(path))
    tail = TailReader(str(path), parse=fmt.parsed_updates)
    _follow_settling(tail, live.apply)
    assert tail.line == 8
    lines = path.read_bytes().split(b"\n")
    body = b"\n".join(lines[:3]) + b"\n" + LATER
    if how == "truncated":
        with path.open("r+b") as fh:
            fh.truncate(0)
            fh.write(body)
    else:
        (tmp_path / "new.jsonl").write_bytes(body)
        os.replace(tmp_path / "new.jsonl", path)
    _follow_settling(tail, live.apply)
    tail.close()
    assert tail.line == 6
    followed = neutral(live.transcript(writer_alive=False))
    read = neutral(fmt.open(path, writer_alive=False))
    followed.pop("warnings"), read.pop("warnings")
    assert followed == read


@pytest.mark.parametrize("lead", [b"", b"\xef\xbb\xbf"], ids=["plain", "bom"])
def test_a_file_of_one_line_without_its_newline_is_settled(tmp_path: Path, lead: bytes) -> None:
    """A session-meta alone, unended, its writer gone: the line itself names the format
    (as a whole read's detection reads it), and is read as the whole read reads it."""
    path = _compacted_last(tmp_path / "s.jsonl")
    path.write_bytes(lead + path.read_bytes().split(b"\n")[0])
    fmt = by_name("transcript-v1")
    live = fmt.live(str(path))
    tail = TailReader(str(path), parse=fmt.parsed_updates)
    first = tail.step(None)
    assert first is not None and first.format is None and first.held_line == 1
    live.apply(first)
    settled = tail.settle()
    assert settled is not None and settled.format == "transcript-v1" and settled.lines == [1]
    live.apply(settled)
    tail.close()
    followed = neutral(live.transcript(writer_alive=False))
    read = neutral(fmt.open(path, writer_alive=False))
    assert followed["meta"] == read["meta"] == {"agent": "t", "model": "gpt-4o"}
    followed.pop("warnings"), read.pop("warnings")
    assert followed == read


def test_a_held_line_that_names_no_format_is_not_settled(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"not": "a transcript"}')
    tail = TailReader(str(path))
    tail.step(None)
    assert tail.settle() is None and tail.format is None and tail.partial
    assert not tail.head.done  # (the line left for its newline to be read as line 1)
    tail.close()


async def test_a_session_meta_alone_settled_is_shown_as_a_transcript(tmp_path: Path) -> None:
    """Its meta in the header, and no banner: the note of its line read is no problem."""
    path = _compacted_last(tmp_path / "s.jsonl")
    path.write_bytes(path.read_bytes().split(b"\n")[0])
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        await wait_for(pilot, lambda: screen.transcript.meta.get("agent") == "t")
        assert screen.transcript.warnings == [f"line 1 {READ}"]
        assert screen._problem() is None


async def test_a_file_of_one_unended_line_says_it_is_held_back_while_live(
    tmp_path: Path,
) -> None:
    """Nothing read, a line held back, its writer maybe at work: the banner says so at
    once (an audit: "unknown format · 0 lines", no banner, no warning for 30 s); no
    banner where lines were read (a line being written is how a live file looks)."""
    path = tmp_path / "d.jsonl"
    path.write_bytes(b"D" * 65536)  # (mtime now: live)
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        await wait_for(pilot, lambda: screen.held_line == 1)
        said = "line 1 has no newline yet (65,536 bytes): held back while the writer may"
        await wait_for(pilot, lambda: said in " ".join(screen_lines(app)))
    other = _compacted_last(tmp_path / "s.jsonl")  # (just written: line 8 held back)
    async with app_loaded(other, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        await wait_for(pilot, lambda: screen.held_line == 8)
        assert screen._held_alone() is None
        assert "no newline yet" not in " ".join(screen_lines(app))
