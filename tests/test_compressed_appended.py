"""A followed ``.jsonl.zst`` that a zstd frame is appended to (``zstd -c >> FILE``) is read
on from where it was, its new lines alone, not again from line 1 as a rewritten file is
(audit D3: "the compressed file was rewritten" at each append); a frame cut short and then
completed goes on the same way, its banner gone."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
import zstandard
from codex_writer import story
from format_fixtures import BUILT_IN
from helpers import append_later, tail_step

from session_core.follow_update import FollowUpdate
from session_core.tail_reader import TailReader


def _frames(tmp_path: Path) -> tuple[Path, list[bytes], list[bytes]]:
    """``rollout.jsonl.zst`` empty yet, and a rollout's lines split in two, each half as
    one zstd frame (the second half's lines, then both frames)."""
    plain = tmp_path / "plain.jsonl"
    story(plain)
    lines = plain.read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    frames = [
        zstandard.ZstdCompressor(write_checksum=True).compress(b"".join(part))
        for part in (lines[:half], lines[half:])
    ]
    return tmp_path / "rollout.jsonl.zst", lines, frames


def test_a_frame_appended_is_read_on_as_new_lines(tmp_path: Path) -> None:
    path, lines, frames = _frames(tmp_path)
    half = len(lines) // 2
    path.write_bytes(frames[0])
    tail = TailReader(str(path))
    first = tail_step(tail)
    assert first.lines == list(range(1, half + 1)) and first.warnings == []
    append_later(path, frames[1])
    more = tail_step(tail)
    assert (more.reset, more.initial, more.warnings, more.problem) == (False, False, [], None)
    assert more.lines == list(range(half + 1, len(lines) + 1))
    assert more.envelopes == [orjson.loads(line) for line in lines[half:]]
    assert tail.step(None) is None  # (nothing more: not read again)
    # rewritten in place (the same inode, other lines): read again from line 1, said so
    with open(path, "r+b") as out:
        out.truncate(0)
        out.write(frames[1])
    os.utime(path, ns=(1, 1))
    again = tail_step(tail)
    assert again.reset and again.lines[0] == 1
    assert any("the compressed file was rewritten" in w for w in again.warnings)


def test_a_cut_frame_completed_is_read_on_its_banner_gone(tmp_path: Path) -> None:
    path, lines, frames = _frames(tmp_path)
    half = len(lines) // 2
    cut = len(frames[1]) // 2
    path.write_bytes(frames[0] + frames[1][:cut])
    tail = TailReader(str(path))
    first = tail_step(tail)
    assert first.lines == list(range(1, half + 1))
    assert first.problem is not None and "the last frame is cut" in first.problem
    append_later(path, frames[1][cut:])
    more = tail_step(tail)
    assert (more.reset, more.warnings, more.problem) == (False, [], None)
    assert more.lines == list(range(half + 1, len(lines) + 1))


async def test_the_viewer_shows_a_frame_appended_as_new_lines_unannounced(
    tmp_path: Path,
) -> None:
    from helpers import app_loaded, said, wait_for

    from session_core import open_transcript
    from viewer.screens.model_screen import ModelScreen

    path, _lines, frames = _frames(tmp_path)
    path.write_bytes(frames[0])
    async with app_loaded(path, ModelScreen, (120, 32)) as (app, pilot):
        screen = app.file_screen
        before = len(screen.transcript.messages)
        append_later(path, frames[1])
        whole = len(open_transcript(path).messages)
        assert whole != before  # (the second half's compaction sends fewer)
        await wait_for(pilot, lambda: len(screen.transcript.messages) == whole, 20)
        await pilot.pause(0.3)
        assert not screen.transcript.warnings
        assert not said(app, "rewritten") and not said(app, "rebuilt")


def test_a_frame_appended_in_two_writes_says_no_damage_warning(tmp_path: Path) -> None:
    """A frame half written is being written (a plain file's held line is said in no
    warning): the banner says it (``problem``, ``growing``), the warnings do not, and once
    the frame is whole nothing is left of it."""
    path, lines, frames = _frames(tmp_path)
    half = len(lines) // 2
    cut = len(frames[1]) // 2
    path.write_bytes(frames[0])
    tail = TailReader(str(path))
    assert tail_step(tail).lines == list(range(1, half + 1))
    append_later(path, frames[1][:cut])
    part = tail_step(tail)
    assert part.problem is not None and "the last frame is cut" in part.problem
    assert (part.warnings, part.growing, part.reset) == ([], True, False)
    append_later(path, frames[1][cut:])
    more = tail_step(tail)
    assert (more.reset, more.warnings, more.problem, more.growing) == (False, [], None, False)
    assert more.lines == list(range(half + 1, len(lines) + 1))


async def test_the_viewer_keeps_no_warning_of_a_frame_appended_in_two_writes(
    tmp_path: Path,
) -> None:
    from helpers import app_loaded, said, screen_text, wait_for

    from session_core import open_transcript
    from viewer.screens.model_screen import ModelScreen

    path, _lines, frames = _frames(tmp_path)
    cut = len(frames[1]) // 2
    path.write_bytes(frames[0])
    async with app_loaded(path, ModelScreen, (120, 32)) as (app, pilot):
        screen = app.file_screen
        append_later(path, frames[1][:cut])
        await wait_for(pilot, lambda: "the last frame is cut" in screen_text(app), 20)
        assert not said(app, "stays shown until it can be read")  # (no toast: being written)
        append_later(path, frames[1][cut:])
        whole = len(open_transcript(path).messages)
        await wait_for(pilot, lambda: len(screen.transcript.messages) == whole, 20)
        await pilot.pause(0.3)
        assert not screen.transcript.warnings and "warning" not in screen_text(app)
        assert "the last frame is cut" not in screen_text(app)
        assert not said(app, "stays shown until it can be read")


def test_a_cut_frame_warned_of_at_open_is_withdrawn_once_read_whole(tmp_path: Path) -> None:
    """A file opened while its last frame is being written says the cut in its warnings (it
    may be damage for good); once that frame is whole and read, the warning is withdrawn
    (``FollowUpdate.withdrawn``), as a torn plain line that completes is warned of no more."""
    path, lines, frames = _frames(tmp_path)
    cut = len(frames[1]) // 2
    path.write_bytes(frames[0] + frames[1][:cut])
    tail = TailReader(str(path))
    first = tail_step(tail)
    said = [w for w in first.warnings if "the last frame is cut" in w]
    assert len(said) == 1 and first.withdrawn == []
    append_later(path, frames[1][cut:])
    more = tail_step(tail)
    assert (more.reset, more.warnings, more.problem, more.withdrawn) == (False, [], None, said)
    assert more.lines[-1] == len(lines)
    append_later(path, frames[0])  # (a whole frame more: nothing left to withdraw)
    assert tail_step(tail).withdrawn == []


async def test_the_viewer_drops_the_warning_of_a_cut_frame_read_whole(tmp_path: Path) -> None:
    from helpers import app_loaded, screen_text, wait_for

    from session_core import open_transcript
    from viewer.screens.model_screen import ModelScreen
    from viewer.screens.warnings import WarningsScreen

    path, _lines, frames = _frames(tmp_path)
    cut = len(frames[1]) // 2
    path.write_bytes(frames[0] + frames[1][:cut])
    async with app_loaded(path, ModelScreen, (120, 32)) as (app, pilot):
        screen = app.file_screen
        assert any("the last frame is cut" in w for w in screen.transcript.warnings)
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WarningsScreen))
        assert "the last frame is cut" in screen_text(app)
        append_later(path, frames[1][cut:])
        whole = len(open_transcript(path).messages)
        await wait_for(pilot, lambda: len(screen.transcript.messages) == whole, 20)
        # (the dialog open over it lists the warnings as they are now)
        await wait_for(pilot, lambda: "the last frame is cut" not in screen_text(app))
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert not screen.transcript.warnings and "the last frame is cut" not in screen_text(app)


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_every_live_model_drops_a_withdrawn_warning(tmp_path: Path, name: str) -> None:
    """Each format's live model (and v1's ``LiveTranscript``, a browser row's) keeps the
    cut's warning while it stands and drops it once the update that reads it whole says so."""
    from session_core.formats import by_name
    from session_core.live import LiveTranscript

    fmt = by_name(name)
    assert fmt is not None
    lines = BUILT_IN[name](tmp_path / "made").read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    first, second = (
        zstandard.ZstdCompressor().compress(b"".join(part)) for part in (lines[:half], lines[half:])
    )
    path = tmp_path / "file.jsonl.zst"
    cut = len(second) // 2
    path.write_bytes(first + second[:cut])
    live = fmt.live(str(path))
    replay = LiveTranscript(str(path)) if name == "transcript-v1" else None

    def cut_said() -> list[bool]:
        kept = [live.transcript().warnings, *([replay.state.warnings] if replay else [])]
        return [any("the last frame is cut" in w for w in warnings) for warnings in kept]

    def apply(update: FollowUpdate) -> None:
        live.apply(update)
        if replay is not None:
            replay.apply(update)

    tail = TailReader(str(path), parse=fmt.parsed_updates)
    apply(tail_step(tail))
    assert all(cut_said())
    append_later(path, second[cut:])
    apply(tail_step(tail))
    assert not any(cut_said())


def _counted_unpacks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The fds ``unpack_whole`` unpacks from now on (the real one, counted, wherever
    it is called from)."""
    from session_core import compressed, tail_reader

    real, fds = compressed.unpack_whole, []

    def counted(fd: int) -> tuple[bytes, str | None] | None:
        fds.append(fd)
        return real(fd)

    monkeypatch.setattr(compressed, "unpack_whole", counted)
    monkeypatch.setattr(tail_reader, "unpack_whole", counted, raising=False)
    return fds


def _rewrite(path: Path, data: bytes, stamp: int) -> None:
    with open(path, "r+b") as out:  # (in place: the same inode)
        out.truncate(0)
        out.write(data)
    os.utime(path, ns=(stamp, stamp))


def test_a_compressed_file_rewritten_is_unpacked_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rewritten in place (other lines): the unpack that saw it is no growth is the one
    read from line 1 (audit: it was unpacked twice, a 20 MB rollout 25 ms more)."""
    path, lines, frames = _frames(tmp_path)
    half = len(lines) // 2
    path.write_bytes(frames[0] + frames[1])
    tail = TailReader(str(path))
    assert tail_step(tail).lines[-1] == len(lines)
    unpacks = _counted_unpacks(monkeypatch)
    _rewrite(path, frames[1], 5_000_000_000)
    again = tail_step(tail)
    assert again.reset and again.envelopes == [orjson.loads(line) for line in lines[half:]]
    assert len(unpacks) == 1


def test_a_compressed_file_rewritten_again_while_reopened_is_read_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rewritten again between the unpack that saw the rewrite and the open that reads it
    from line 1: that unpack is not the file opened, which is unpacked as it is now."""
    import session_core.tail_reader as tail_reader

    path, lines, frames = _frames(tmp_path)
    half = len(lines) // 2
    path.write_bytes(frames[0] + frames[1])
    tail = TailReader(str(path))
    tail_step(tail)
    real_open = tail_reader._open_ro

    def rewritten_first(where: str) -> int:
        _rewrite(path, frames[0], 7_000_000_000)
        return real_open(where)

    monkeypatch.setattr(tail_reader, "_open_ro", rewritten_first)
    unpacks = _counted_unpacks(monkeypatch)
    _rewrite(path, frames[1], 5_000_000_000)
    again = tail_step(tail)
    assert again.reset and again.envelopes == [orjson.loads(line) for line in lines[:half]]
    assert len(unpacks) == 2


def test_a_first_update_drained_drops_the_cut_it_said_once_read_whole(tmp_path: Path) -> None:
    """``follow`` without initial batches drains the first update whole: a cut said in it
    and read whole before it is sent is not in it (nor withdrawn, never having been sent)."""
    from session_core.following import _drain

    path, lines, frames = _frames(tmp_path)
    cut = len(frames[1]) // 2
    path.write_bytes(frames[0] + frames[1][:cut])
    tail = TailReader(str(path))
    first = tail.step(64)  # (a batch of its lines: not all read yet)
    assert first is not None and not first.caught_up
    assert any("the last frame is cut" in w for w in first.warnings)
    append_later(path, frames[1][cut:])
    whole = _drain(tail, first)
    assert whole.caught_up and whole.lines == list(range(1, len(lines) + 1))
    assert (whole.warnings, whole.withdrawn, whole.problem) == ([], [], None)


def test_a_cut_frame_settled_stands_where_a_complaint_would(tmp_path: Path) -> None:
    """A frame half written, its writer gone (``settle``), says its cut where reading
    stands, placed as ``complain`` places an unreadable file's update
    (``tail_problems.place``): every field of a ``Position``, its size what was unpacked
    (review r2, finding 2: ``settle_cut`` set each field by hand)."""
    from session_core.tail_problems import Position, place, position

    path, _lines, frames = _frames(tmp_path)
    path.write_bytes(frames[0])
    tail = TailReader(str(path))
    tail_step(tail)
    append_later(path, frames[1][: len(frames[1]) // 2])
    tail_step(tail)
    at = position(tail, len(tail.unpacked or b""))
    settled = tail.settle()
    assert settled is not None and settled.caught_up and tail.damage is not None
    assert settled.problem == tail.damage and settled.warnings == [tail.damage]
    assert [getattr(settled, field) for field in Position._fields] == list(at)
    placed = place(FollowUpdate(), at)
    assert [getattr(placed, field) for field in Position._fields] == list(at)
