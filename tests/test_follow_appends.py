"""Following a transcript another process appends to: the first update carries the whole
file, every appended envelope comes once and in order (from a steady writer, one
dribbling a byte at a time), a line cut short is held back, a malformed one is a warning."""

from __future__ import annotations

import asyncio
from pathlib import Path

from follow_helpers import (
    STEADY_WRITER,
    Follower,
    append_raw,
    assert_live_matches_load,
    caught_up,
    message_line,
    records,
    run_writer,
    transcript_at,
)

from session_core.following import follow
from session_core.formats import V1

DRIBBLER = r"""
import os, sys, time
from session_core.codec import dump_line, new_id, now_ts
path, count, pause = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
for i in range(count):
    payload = {"role": "assistant", "content": f"drip {i} — ü € 😀 中文"}
    line = dump_line({"id": new_id(), "payload": payload, "ts": now_ts(),
                      "type": "message", "v": 1})
    for b in range(len(line)):
        os.write(fd, line[b : b + 1])
        time.sleep(pause)
os.close(fd)
"""


# --- the first update ---------------------------------------------------------------


async def test_first_update_carries_the_whole_existing_file(tmp_path: Path, polling: bool) -> None:
    path = transcript_at(tmp_path, 300)
    # A large batch limit must not split the first update (it carries all of the file).
    async with Follower(path, force_polling=polling, batch_bytes=1024) as f:
        first = await f.next()
        assert first.initial and not first.reset and first.exists and first.caught_up
        assert first.envelopes == records(path)
        assert first.lines == list(range(1, 302))
        assert first.format == V1
        assert first.offset == first.size == path.stat().st_size
        assert first.warnings == []
        assert await f.quiet(0.3) == []  # nothing changes: nothing is sent


async def test_initial_batches_splits_the_first_read(tmp_path: Path) -> None:
    path = transcript_at(tmp_path, 2000)
    async with Follower(path, force_polling=True, batch_bytes=16 << 10, initial_batches=True) as f:
        await f.until(lambda f: len(f.current) == 2001)
        assert len(f.updates) > 3
        assert not f.updates[0].caught_up and f.updates[-1].caught_up
        assert f.current == records(path)
        f.assert_epochs_consistent()


# --- appends --------------------------------------------------------------------------


async def test_steady_writer_every_envelope_once_in_order(tmp_path: Path, polling: bool) -> None:
    path = transcript_at(tmp_path, 3)
    async with caught_up(path, force_polling=polling) as f:
        await run_writer(STEADY_WRITER, path, 800, 800, "load", timeout=20)
        await f.until(f.ends_with("x-end"))
        assert f.resets == 0
        assert f.current == records(path)
        assert len(f.current) == 3 + 1 + 800 + 1
        f.assert_epochs_consistent()
        # Appends arrived as they were written, not in one lump at the end.
        assert sum(1 for u in f.updates if u.envelopes) > 10
        assert_live_matches_load(f.live, path, tmp_path)


async def test_dribbling_writer_each_line_once_and_complete(tmp_path: Path, polling: bool) -> None:
    path = transcript_at(tmp_path, 1)
    async with caught_up(path, force_polling=polling) as f:
        await run_writer(DRIBBLER, path, 6, 0.0003, timeout=30)
        await f.until(lambda f: len(f.current) == 2 + 6)
        assert f.current == records(path)
        contents = [env["payload"]["content"] for env in f.current[2:]]
        assert contents == [f"drip {i} — ü € 😀 中文" for i in range(6)]
        f.assert_epochs_consistent()
        assert all(not u.warnings for u in f.updates)
        # Each line was yielded on its own, when its newline landed.
        assert sum(1 for u in f.updates if u.envelopes) >= 4
        assert await f.quiet(0.2) == []


async def test_line_cut_inside_a_multibyte_character_is_held_back(
    tmp_path: Path, polling: bool
) -> None:
    path = transcript_at(tmp_path, 1)
    line = message_line("naïve café 😀")
    cut = line.index("😀".encode()) + 2  # two of the emoji's four bytes
    async with caught_up(path, force_polling=polling) as f:
        append_raw(path, line[:cut])
        [held] = await f.quiet(0.4)  # held back, no warning either: said once, as held
        assert (held.envelopes, held.warnings, held.held_line) == ([], [], 3)
        assert held.held == cut
        append_raw(path, line[cut:-1])  # all but the newline: still held back
        assert await f.quiet(0.3) == []  # (the same line: nothing new to say)
        append_raw(path, b"\n")
        update = await f.next()
        assert [e["payload"]["content"] for e in update.envelopes] == ["naïve café 😀"]
        assert update.lines == [3]
        assert update.warnings == []
        assert update.offset == path.stat().st_size


async def test_a_long_torn_line_read_in_many_batches_is_said_held_once(
    tmp_path: Path, polling: bool
) -> None:
    # Each part of the line is many batches (``batch_bytes``) long: the held line is said
    # once, not again each time a part is read to its end (audit D9: 10 updates of it).
    path = transcript_at(tmp_path, 1)
    body = message_line("x" * 4000).removesuffix(b"\n")
    parts = [body[i : i + 1000] for i in range(0, len(body), 1000)]
    async with caught_up(path, force_polling=polling, batch_bytes=64) as f:
        said = []
        for part in parts:
            append_raw(path, part)
            said += await f.quiet(0.3)
        assert [(u.envelopes, u.warnings, u.held_line) for u in said] == [([], [], 3)]
        assert said[0].caught_up
        append_raw(path, b"\n")
        await f.until(lambda f: len(f.current) == 3)
        assert f.current[-1]["payload"]["content"] == "x" * 4000


async def test_malformed_complete_line_is_a_warning_and_following_continues(
    tmp_path: Path, polling: bool
) -> None:
    path = transcript_at(tmp_path, 1)
    async with caught_up(path, force_polling=polling) as f:
        append_raw(path, b'{"id": "x", "payload": {"cont\n')
        append_raw(path, b"[1, 2]\n")
        append_raw(path, b'{"id":"v2","payload":{},"ts":"x","type":"message","v":2}\n')
        append_raw(path, message_line("after the damage"))
        await f.until(lambda f: len(f.current) == 4)
        warnings = [w for u in f.updates for w in u.warnings]
        assert any("line 3" in w and "could not be read" in w for w in warnings), warnings
        assert any("line 4" in w and "not a JSON object" in w for w in warnings), warnings
        assert [n for n, _ in f.epochs[-1]] == [1, 2, 5, 6]
        assert f.current[-1]["payload"]["content"] == "after the damage"
        # The live view shows the damage and skips what it cannot apply.
        assert any("line 5" in w and "not applied" in w for w in f.live.state.warnings)
        assert [m.content for m in f.live.state.messages()][-1] == "after the damage"
        assert f.resets == 0
        append_raw(path, message_line("still following"))
        update = await f.next()
        assert update.lines == [7]


async def test_unparsed_updates_carry_the_lines_their_numbers_and_spans(tmp_path: Path) -> None:
    """``follow(parse=False)``: each complete line as it is in the file (a view into the
    block read), never a dict; a line cut across reads (here inside a UTF-8 character,
    and across 700-byte batches) comes whole, once; the format is still known."""
    path = transcript_at(tmp_path, 3)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n") + b"\n   \n")  # CRLF, blanks
    line = message_line("naïve café 😀")
    cut = line.index("😀".encode()) + 2
    seen: list[tuple[int, bytes, int]] = []
    formats = set()
    updates = follow(path, force_polling=True, initial_batches=True, batch_bytes=700, parse=False)
    try:
        async for update in updates:
            assert update.envelopes == []
            assert len(update.raw) == len(update.lines) == len(update.spans)
            formats.add(update.format)
            source = update.source
            assert source is not None
            for raw, number, span in zip(update.raw, update.lines, update.spans, strict=True):
                assert source.read(span) == bytes(raw)
                seen.append((number, bytes(raw), span))
            if update.caught_up and len(seen) == len(path.read_bytes().split(b"\n")) - 1:
                if line[cut:] in path.read_bytes():
                    break
                append_raw(path, line[:cut])
                await asyncio.sleep(0.05)
                append_raw(path, line[cut:])
    finally:
        await updates.aclose()
    expected = path.read_bytes().split(b"\n")[:-1]
    assert [raw for _, raw, _ in seen] == expected
    assert [number for number, _, _ in seen] == list(range(1, len(expected) + 1))
    assert seen[-1][1] == line[:-1] and formats == {V1}
