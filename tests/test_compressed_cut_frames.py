"""A followed ``.jsonl.zst`` whose writer appends frames (a zstd stream writer, a frame
flushed at a time) while it is read: the cut said when it was opened is withdrawn once the
frame it named is whole, even where the next frame is already half written then; that one
is being written (the banner says it), said in the warnings only if it is still cut once
its writer is gone (the follower's ``settle``)."""

from __future__ import annotations

import asyncio
import contextlib
import io
from pathlib import Path

import orjson
import pytest
import zstandard
from codex_writer import story
from helpers import append_later, tail_step

from session_core.follow_update import FollowUpdate
from session_core.following import follow
from session_core.tail_reader import TailReader

CUT = "the last frame is cut"


def _frames(tmp_path: Path) -> list[bytes]:
    """A rollout's lines in three zstd frames, as a stream writer flushes them."""
    plain = tmp_path / "plain.jsonl"
    story(plain)
    lines = plain.read_bytes().splitlines(keepends=True)
    third = len(lines) // 3
    out = io.BytesIO()
    writer = zstandard.ZstdCompressor(write_checksum=True).stream_writer(out, closefd=False)
    ends = []
    for part in (lines[:third], lines[third : 2 * third], lines[2 * third :]):
        writer.write(b"".join(part))
        writer.flush(zstandard.FLUSH_FRAME)
        ends.append(out.tell())
    data = out.getvalue()
    return [data[start:end] for start, end in zip([0, *ends], ends, strict=False)]


def test_the_cut_said_is_withdrawn_though_the_next_frame_is_cut(tmp_path: Path) -> None:
    first, second, third = _frames(tmp_path)
    path = tmp_path / "rollout.jsonl.zst"
    path.write_bytes(first + second[: len(second) // 2])
    tail = TailReader(str(path))
    opened = tail_step(tail)
    said = [w for w in opened.warnings if CUT in w]
    assert len(said) == 1
    # the frame it named completed, the next one half written in the same read
    append_later(path, second[len(second) // 2 :] + third[: len(third) // 2])
    more = tail_step(tail)
    assert more.withdrawn == said and more.warnings == []
    assert more.growing and more.problem is not None and CUT in more.problem
    assert more.problem != said[0]  # (past more lines now)
    # its writer gone with that frame still cut: damage, said once
    settled = tail.settle()
    assert settled is not None and settled.warnings == [more.problem]
    assert (settled.problem, settled.growing, settled.withdrawn) == (more.problem, False, [])
    assert (settled.offset, settled.size) == (more.offset, more.size)
    assert tail.settle() is None
    # ...and withdrawn once that frame is whole after all
    append_later(path, third[len(third) // 2 :])
    whole = tail_step(tail)
    assert whole.withdrawn == [more.problem] and whole.problem is None


def test_a_frame_cut_while_followed_is_no_warning_while_its_writer_is_at_work(
    tmp_path: Path,
) -> None:
    """Never said at open (the file was whole then): a frame half written is the banner's
    alone while the writer may be at work; the follower's settle says nothing of it
    where no cut stands."""
    first, second, _third = _frames(tmp_path)
    path = tmp_path / "rollout.jsonl.zst"
    path.write_bytes(first)
    tail = TailReader(str(path))
    assert tail_step(tail).warnings == []
    assert tail.settle() is None  # (whole: nothing to say)
    append_later(path, second[:10])
    part = tail_step(tail)
    assert (part.warnings, part.withdrawn, part.growing) == ([], [], True)


async def test_a_follower_keeps_the_warnings_as_the_file_now_is(tmp_path: Path) -> None:
    """``follow`` itself, its writer appending frames: the warnings a reader keeps
    (``withdraw_from``) name the cut of the file as it is, once it settles."""
    first, second, third = _frames(tmp_path)
    path = tmp_path / "rollout.jsonl.zst"
    path.write_bytes(first + second[: len(second) // 2])
    gone = False
    kept: list[str] = []
    updates: list[FollowUpdate] = []

    async def run() -> None:
        async for update in follow(path, force_polling=True, settle=lambda: gone):
            kept.extend(update.warnings)
            update.withdraw_from(kept)
            updates.append(update)

    async def until(done: object, timeout: float = 10.0) -> None:
        async with asyncio.timeout(timeout):
            while not callable(done) or not done():
                await asyncio.sleep(0.01)

    task = asyncio.create_task(run())
    try:
        await until(lambda: bool(updates))
        assert [CUT in w for w in kept] == [True]
        opened = kept[0]
        append_later(path, second[len(second) // 2 :] + third[: len(third) // 2])
        await until(lambda: any(u.withdrawn for u in updates))
        await asyncio.sleep(0.2)
        assert kept == [] and updates[-1].growing  # (being written: the banner's)
        gone = True  # the writer died with the third frame half written
        await until(lambda: bool(kept))
        assert len(kept) == 1 and CUT in kept[0] and kept[0] != opened
        await asyncio.sleep(0.2)
        assert len(kept) == 1  # (said once)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


def _cut_before_a_newline(tmp_path: Path, crlf: bool) -> tuple[list[bytes], bytes, int]:
    """A rollout's lines (CRLF-ended: ``crlf``), one zstd frame of them, and the length
    of its start that unpacks to the lines up to the middle one without its line end:
    a block flushed there (as a writer's block boundary falls anywhere in a line)."""
    plain = tmp_path / "plain.jsonl"
    story(plain)
    lines = plain.read_bytes().splitlines(keepends=True)
    if crlf:
        lines = [line[:-1] + b"\r\n" for line in lines]
    body = b"".join(lines)
    middle = len(lines) // 2
    cut = len(b"".join(lines[:middle])) - (2 if crlf else 1)
    out = io.BytesIO()
    writer = zstandard.ZstdCompressor(write_checksum=True).stream_writer(out, closefd=False)
    writer.write(body[:cut])
    writer.flush(zstandard.FLUSH_BLOCK)
    at = out.tell()
    writer.write(body[cut:])
    writer.flush(zstandard.FLUSH_FRAME)
    packed = out.getvalue()
    assert zstandard.ZstdDecompressor().decompressobj().decompress(packed[:at]) == body[:cut]
    return lines, packed, at


@pytest.mark.parametrize("parse", [True, False], ids=["parsed", "raw"])
@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_a_line_settled_at_a_cut_has_its_newline_read_past_once_the_frame_is_whole(
    tmp_path: Path, parse: bool, crlf: bool
) -> None:
    """The cut falls right after a whole line, before its newline (the audit's: a 128 KB
    block boundary): settled once its writer is gone, then the frame completed. Its
    newline is read past, as a plain file's is: the lines after it are numbered as a whole
    read numbers them (not each one on, after a blank line that is none), and neither the
    cut nor the note that the line had no newline stands."""
    lines, packed, at = _cut_before_a_newline(tmp_path, crlf)
    middle = len(lines) // 2
    path = tmp_path / "rollout.jsonl.zst"
    path.write_bytes(packed[:at])
    tail = TailReader(str(path), parse=parse)
    opened = tail_step(tail)
    assert opened.lines[-1] == middle - 1 and opened.held_line == middle
    settled = tail.settle()
    assert settled is not None and settled.lines == [middle]
    said = [*opened.warnings, *settled.warnings]
    assert [CUT in w for w in said] == [True, False] and f"line {middle} " in said[1]
    append_later(path, packed[at:])
    whole = tail_step(tail)
    assert (whole.reset, whole.warnings, whole.problem) == (False, [], None)
    assert whole.lines == list(range(middle + 1, len(lines) + 1))
    assert sorted(whole.withdrawn) == sorted(said)
    got = whole.envelopes if parse else [orjson.loads(bytes(raw)) for raw in whole.raw]
    assert got == [orjson.loads(line) for line in lines[middle:]]
    assert tail.step(None) is None and tail.settle() is None
    tail.close()


def test_a_settled_line_s_cr_unpacked_alone_waits_for_its_lf(tmp_path: Path) -> None:
    """A CRLF rollout whose frames end after a whole line, then after its CR alone: the
    CR is left unread (taken in, it made a blank line of its own, or led the next), and
    read past with its LF once that frame comes."""
    lines, _packed, _at = _cut_before_a_newline(tmp_path, crlf=True)
    middle = len(lines) // 2
    body = b"".join(lines)
    cut = len(b"".join(lines[:middle])) - 2
    pack = zstandard.ZstdCompressor(write_checksum=True).compress
    path = tmp_path / "rollout.jsonl.zst"
    path.write_bytes(pack(body[:cut]))
    tail = TailReader(str(path))
    assert tail_step(tail).lines[-1] == middle - 1
    settled = tail.settle()
    assert settled is not None and settled.lines == [middle]
    append_later(path, pack(b"\r"))
    assert tail.step(None) is None  # (nothing new: its LF is owed)
    assert tail.settle() is None  # (no line held back: the CR is no blank line)
    append_later(path, pack(body[cut + 1 :]))
    whole = tail_step(tail)
    assert (whole.reset, whole.warnings) == (False, [])
    assert whole.lines == list(range(middle + 1, len(lines) + 1))
    assert whole.withdrawn == settled.warnings
    tail.close()
