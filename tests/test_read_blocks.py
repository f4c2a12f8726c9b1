"""follow's raw batches read each full block into a buffer read into before, once no view
of it lives (``TailReader._read_block``): a line still held from an earlier batch never
changes, the buffers are really read into again, and what a batch knows of its block
(``BlockLines``: all ASCII) is never carried over to the next block read into it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import msgspec
from helpers import follow_into

from session_core import Message, Session
from session_core.following import MAX_BATCH_BYTES, FollowUpdate
from session_core.formats import by_name
from session_core.tail_reader import _READ_BLOCK, TailReader
from session_core.utf8 import BlockLines, is_utf8


def _lines(blocks: int) -> list[bytes]:
    """JSON lines of many lengths (so that lines cross the blocks' ends) filling
    ``blocks`` blocks; the third block's lines are not ASCII."""
    lines: list[bytes] = []
    size = 0
    n = 0
    while size < blocks * _READ_BLOCK:
        third = 2 * _READ_BLOCK <= size < 3 * _READ_BLOCK
        text = ("é€" if third else "ab") * (n * 37 % 5000)
        line = msgspec.json.encode({"n": n, "text": text})
        lines.append(line)
        size += len(line) + 1
        n += 1
    return lines


def _batches(path: Path) -> Iterator[tuple[TailReader, FollowUpdate]]:
    tail = TailReader(str(path), parse=False)
    try:
        while (update := tail.step(MAX_BATCH_BYTES)) is not None:
            yield tail, update
            if update.caught_up:
                break
    finally:
        tail.close()


def test_a_line_held_from_an_earlier_batch_never_changes(tmp_path: Path) -> None:
    lines = _lines(8)
    path = tmp_path / "blocks.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    held: list[tuple[int, memoryview | bytes, msgspec.Raw]] = []
    seen: list[bytes] = []
    read_again = 0
    for batch, (tail, update) in enumerate(_batches(path)):
        seen.extend(bytes(raw) for raw in update.raw)
        first = update.raw[-1]
        if isinstance(first, memoryview) and any(first.obj is b for b in tail.blocks):
            read_again += batch >= 2  # (the first two fill the spare blocks)
        if batch == 0:  # a view, and a Raw decoded from another line, kept to the end
            raw = msgspec.json.decode(update.raw[0], type=msgspec.Raw)
            held.append((update.lines[-1], update.raw[-1], raw))
            held.append((update.lines[0], bytes(raw), raw))  # (its bytes, copied now)
    assert seen == lines
    assert read_again >= 2
    for number, line, raw in held:
        assert bytes(line) == lines[number - 1]
        assert bytes(raw) == lines[held[1][0] - 1]


def test_what_a_batch_knows_of_its_block_is_not_carried_to_the_next(tmp_path: Path) -> None:
    """The third block (non-ASCII, one line not UTF-8) is read into a buffer that held an
    ASCII block: each batch's own ``BlockLines`` checks it afresh."""
    lines = _lines(5)
    bad = next(at for at, line in enumerate(lines) if "é".encode() in line)
    lines[bad + 3] = lines[bad + 3].replace("é".encode(), b"\xff", 1)
    path = tmp_path / "blocks.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    checked = 0
    tail = TailReader(str(path), parse=False)
    while True:  # each batch let go before the next read: one buffer, read into again
        update = tail.step(MAX_BATCH_BYTES)
        assert update is not None
        ok = BlockLines().ok  # one per batch, as every reader makes it
        for raw in update.raw:
            assert ok(raw) == is_utf8(bytes(raw)), bytes(raw[:40])
            checked += 1
        if update.caught_up:
            break
        del update, raw
    tail.close()
    assert checked == len(lines)


def test_a_bad_byte_in_a_block_read_again_is_still_said(tmp_path: Path) -> None:
    """End to end: v1 followed as the viewer follows it, a line that is not UTF-8 in a
    block read into a buffer an ASCII block was read into before."""
    path = tmp_path / "session.jsonl"
    session = Session.create(path, meta={"agent": "blocks"})
    n = 0
    while path.stat().st_size < 3 * _READ_BLOCK:
        session.append_message(Message(role="user", content=f"{n} " + "plain text " * 300))
        n += 1
    raw = path.read_bytes()
    at = raw.index(b"plain text", int(2.5 * _READ_BLOCK))
    path.write_bytes(raw[:at] + b"\xff" + raw[at + 1 :])
    number = raw.count(b"\n", 0, at) + 1
    live = by_name("transcript-v1").live(str(path))
    follow_into(live.apply, path, MAX_BATCH_BYTES, parse=False)
    warnings = live.transcript(writer_alive=False).warnings
    assert any(f"line {number} " in w for w in warnings), warnings
