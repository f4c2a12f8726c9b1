"""A ``.jsonl.zst`` transcript (Codex compresses idle rollouts) is read transparently
on every read path, never written; a damaged one is a clear error, not a traceback."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest
from codex_writer import story, zst_copy
from follow_helpers import records
from helpers import fingerprint

from session_core import detect_format, open_transcript, peek
from session_core.scan import scan_file
from viewer.cli import main


@pytest.fixture
def packed(tmp_path: Path) -> tuple[Path, Path]:
    plain = tmp_path / "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
    story(plain)
    return plain, Path(zst_copy(str(plain), str(tmp_path / "packed.jsonl.zst")))


def test_every_read_path_reads_it_as_its_lines(
    packed: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    plain, zst = packed
    before = fingerprint(zst)
    assert detect_format(zst) == "codex"
    unpacked, original = open_transcript(zst).to_json(), open_transcript(plain).to_json()
    assert unpacked["messages"] == original["messages"]
    result = peek(zst)
    assert result.error is None and result.format == "codex" and result.meta
    row = scan_file(zst)
    assert row.format == "codex" and row.messages == scan_file(plain).messages
    # Both were written just now, but nobody appends to a compressed file: not live.
    assert row.status == "crashed" and scan_file(plain).status == "live"
    assert main(["check", str(zst)]) == 0
    assert capsys.readouterr().out.startswith(f"{zst}: ok (codex, ")
    assert fingerprint(zst) == before


def test_a_truncated_compressed_file_is_a_clear_error(
    packed: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _plain, zst = packed
    data = zst.read_bytes()
    zst.write_bytes(data[: len(data) // 2])
    assert main(["check", str(zst)]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{zst}: bad: ") and "Traceback" not in out
    assert peek(zst).error is not None
    assert scan_file(zst).status == "damaged"


async def _first_update(path: Path, parse: bool) -> object:
    from session_core import follow

    updates = follow(path, parse=parse)
    try:
        return await anext(updates)
    finally:
        await updates.aclose()


@pytest.mark.parametrize("parse", [True, False])
async def test_following_a_compressed_file_gives_its_lines(
    packed: tuple[Path, Path], parse: bool
) -> None:
    import orjson

    plain, zst = packed
    before = fingerprint(zst)
    update = await _first_update(zst, parse)
    got = update.envelopes if parse else [orjson.loads(bytes(r)) for r in update.raw]  # type: ignore[attr-defined]
    want = [orjson.loads(line) for line in plain.read_bytes().splitlines() if line.strip()]
    assert got == want
    assert update.format == "codex" and not update.warnings  # type: ignore[attr-defined]
    assert fingerprint(zst) == before


async def test_the_viewer_opens_a_compressed_rollout(packed: tuple[Path, Path]) -> None:
    from helpers import wait_for

    from viewer.app import TailscopeApp
    from viewer.screens.model_screen import ModelScreen

    plain, zst = packed
    app = TailscopeApp(zst)
    async with app.run_test(size=(120, 32)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ModelScreen), 30)
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        await wait_for(pilot, lambda: screen._loaded, 30)
        assert len(screen.transcript.messages) == len(open_transcript(plain).messages)
        assert not screen.transcript.warnings
        # (written a moment ago, but not live: so never "quiet for" the record's age)
        assert screen.live_label() == "idle"


@pytest.mark.parametrize("polling", [True, False])
async def test_a_followed_rollout_compressed_under_us_is_read_from_its_copy(
    tmp_path: Path, polling: bool
) -> None:
    """Codex compresses an idle rollout to ``<name>.zst`` and removes the plain file: the
    follower goes on from that copy (its lines, once, after a reset that says why), and
    back to the plain file if that comes back. Nothing is written."""
    import asyncio
    import os

    import orjson

    from session_core import follow

    plain = tmp_path / "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
    story(plain)
    want = [orjson.loads(line) for line in plain.read_bytes().splitlines() if line.strip()]
    updates = follow(plain, force_polling=polling, poll_interval=0.05)
    got: list[object] = []

    async def until(check: object) -> None:
        async with asyncio.timeout(20):
            while not check():  # type: ignore[operator]
                got.append(await anext(updates))

    def lines_since(mark: int) -> list[object]:
        return [e for u in got[mark:] for e in u.envelopes]  # type: ignore[attr-defined]

    try:
        await until(lambda: len(lines_since(0)) == len(want))
        packed = Path(zst_copy(str(plain), str(plain) + ".zst"))
        before = fingerprint(packed)
        mark = len(got)
        os.unlink(plain)
        await until(lambda: len(lines_since(mark)) == len(want))
        assert got[mark].reset  # type: ignore[attr-defined]
        said = [w for u in got[mark:] for w in u.warnings]  # type: ignore[attr-defined]
        assert any(f"compressed to {packed.name}" in w for w in said), said
        assert not any("does not exist" in w for w in said), said
        assert lines_since(mark) == want
        # the plain file back (Codex reopened the rollout): read from it again
        plain.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in want[:3]))
        mark = len(got)
        await until(lambda: len(lines_since(mark)) == 3)
        assert got[mark].reset and lines_since(mark) == want[:3]  # type: ignore[attr-defined]
        said = [w for u in got[mark:] for w in u.warnings]  # type: ignore[attr-defined]
        assert any("back beside its compressed copy" in w for w in said), said
        assert fingerprint(packed) == before
        # unpacked again (``zstd -d --rm``): the copy is gone, and said so
        plain.unlink()
        mark = len(got)
        await until(lambda: len(lines_since(mark)) == len(want))
        plain.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in want))
        packed.unlink()
        mark = len(got)
        await until(lambda: len(lines_since(mark)) == len(want))
        said = [w for u in got[mark:] for w in u.warnings]  # type: ignore[attr-defined]
        assert any(f"decompressed to {plain.name}" in w for w in said), said
    finally:
        await updates.aclose()


async def test_a_rollout_only_its_compressed_copy_holds_is_followed_from_it(
    packed: tuple[Path, Path],
) -> None:
    import orjson

    plain, zst = packed
    target = plain.with_name("gone.jsonl")
    zst.rename(str(target) + ".zst")
    update = await _first_update(target, True)
    want = [orjson.loads(line) for line in plain.read_bytes().splitlines() if line.strip()]
    assert update.envelopes == want and not update.warnings  # type: ignore[attr-defined]


def test_a_writer_never_continues_a_compressed_file(tmp_path: Path) -> None:
    """A compressed v1 or agentgo file reads as its lines, but appending to it (or a
    crash-tail repair cutting it) would destroy it: both writers refuse, nothing changed."""
    from codex_writer import zst_copy
    from format_fixtures import FACTORIES

    from session_core import Session, TranscriptError
    from session_core.agentgo import AgentGoSession

    for name, opener in (("transcript-v1", Session.load), ("agentgo-v1", AgentGoSession.open)):
        plain = FACTORIES[name](tmp_path / name)
        packed = Path(zst_copy(str(plain), f"{plain}.zst"))
        with packed.open("ab") as fh:
            fh.write(b'{"torn')  # what a repair would cut, were it a plain file
        before = fingerprint(packed)
        with pytest.raises(TranscriptError, match="compressed"):
            opener(packed)
        assert fingerprint(packed) == before


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_a_compressed_file_of_nothing_is_empty(
    tmp_path: Path, content: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    """Empty or blank once unpacked: "is empty", as its plain copy is (it was "not a
    transcript": its packed bytes are not blank)."""
    import zstandard

    path = tmp_path / "blank.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(content))
    assert main(["check", str(path)]) == 1
    assert "is empty" in capsys.readouterr().out


@pytest.mark.parametrize("first", [0, 3])
async def test_a_compressed_file_followed_before_its_magic_was_written(
    packed: tuple[Path, Path], tmp_path: Path, first: int
) -> None:
    """Seen empty (or with fewer than the magic's 4 bytes) and written after: it is
    unpacked then (its compressed bytes were read on as lines for good)."""
    import asyncio

    import orjson

    from session_core.following import follow

    plain, zst = packed
    data = zst.read_bytes()
    path = tmp_path / "late.jsonl.zst"
    path.write_bytes(data[:first])
    updates = follow(path, force_polling=True, poll_interval=0.02)
    got: list[object] = []
    try:
        await anext(updates)
        with path.open("ab") as fh:
            fh.write(data[first:])
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(1.0):
                async for update in updates:
                    got.extend(update.envelopes)
                    assert not update.warnings
    finally:
        await updates.aclose()
    want = [orjson.loads(line) for line in plain.read_bytes().splitlines() if line.strip()]
    assert got == want


async def test_a_rollout_compressed_in_place_while_watched_is_idle_and_done(
    tmp_path: Path,
) -> None:
    """Codex compresses a rollout the viewer shows (``zstd --rm``): the writer questions
    are asked of the copy read, so the header says idle, not "quiet for" its last
    record's age, and a call left open is interrupted, not running (both were asked of
    the plain name, gone: "may be at work")."""
    import os

    from helpers import app_loaded, screen_lines, wait_for

    from viewer.screens.model_screen import ModelScreen

    plain = tmp_path / "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
    w = story(plain)
    w.function_call("shell", {"command": ["sleep", "9"]}, "open-call")  # (never answered)
    async with app_loaded(plain, ModelScreen, (140, 32)) as (app, pilot):
        screen = app.file_screen
        open_call = next(
            op for op in screen.transcript.tool_operations if op.call_id == "open-call"
        )
        assert open_call.state == "running"  # (written a moment ago: its writer may be at work)
        zst_copy(str(plain), str(plain) + ".zst")
        os.unlink(plain)
        await wait_for(
            pilot,
            lambda: any(
                op.call_id == "open-call" and op.state == "interrupted"
                for op in screen.transcript.tool_operations
            ),
            30,
        )
        await wait_for(pilot, lambda: any("● idle" in line for line in screen_lines(app)[:3]), 10)
        assert not any("quiet for" in line for line in screen_lines(app)[:4])
        # the header names the file read
        assert any(f"{plain.name}.zst " in line for line in screen_lines(app)[:3])


async def test_a_plain_name_whose_copy_alone_is_there_is_shown_from_it_said_so(
    packed: tuple[Path, Path],
) -> None:
    """``tailscope NAME.jsonl`` where Codex left ``NAME.jsonl.zst`` alone shows the copy,
    by its own screen at once (no format swap), its header naming it, and says so once
    (it showed the copy under the plain name, silently)."""
    from helpers import app_loaded, screen_lines

    from viewer.screens.model_screen import ModelScreen

    plain, zst = packed
    gone = plain.with_name("gone.jsonl")
    zst.rename(f"{gone}.zst")
    async with app_loaded(gone, ModelScreen, (140, 32)) as (app, _pilot):
        assert len(app.file_screen.transcript.messages) == len(open_transcript(plain).messages)
        assert any(line.lstrip().startswith("gone.jsonl.zst ") for line in screen_lines(app)[:3])
        said = [str(note.message) for note in app._notifications]
        assert said == ["gone.jsonl is not there: showing its compressed copy, gone.jsonl.zst."]


def test_a_plain_name_whose_copy_alone_is_there_is_said_so(
    packed: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """``check NAME.jsonl`` where Codex left ``NAME.jsonl.zst`` alone names the copy (it
    said "there is no transcript here", as of any path not there)."""
    plain, zst = packed
    gone = plain.with_name("gone.jsonl")
    zst.rename(f"{gone}.zst")
    assert main(["check", str(gone)]) == 1
    out = capsys.readouterr().out
    assert (
        out
        == f"{gone}: bad: there is no such file; its compressed copy is beside it: gone.jsonl.zst\n"
    )
    assert (
        peek(gone).error
        == f"{gone}: there is no such file; its compressed copy is beside it: gone.jsonl.zst"
    )
    assert main(["check", str(plain.with_name("nothing.jsonl"))]) == 1
    assert capsys.readouterr().out.endswith(": bad: there is no such file\n")


async def test_a_plain_file_named_relatively_is_not_said_to_be_a_copy(
    packed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The follower names the file by its absolute path: a file opened by a relative one
    is the file named, not "its compressed copy" (as every relative path was said to be)."""
    from helpers import app_loaded, screen_lines

    from viewer.screens.model_screen import ModelScreen

    plain, _zst = packed
    monkeypatch.chdir(plain.parent)
    async with app_loaded(Path(plain.name), ModelScreen, (140, 32)) as (app, _pilot):
        assert any(line.lstrip().startswith(f"{plain.name} ") for line in screen_lines(app)[:3])
        said = [str(note.message) for note in app._notifications]
        assert not any("compressed copy" in note for note in said), said


def _cut_after_a_frame(plain: Path, dest: Path) -> int:
    """``dest``: ``plain``'s lines as two zstd frames, the second cut in half (its block
    unreadable: nothing of it decompresses); how many lines the first frame holds whole."""
    import zstandard

    lines = plain.read_bytes().splitlines(keepends=True)
    first = len(lines) // 2
    frames = [
        zstandard.ZstdCompressor().compress(b"".join(part))
        for part in (lines[:first], lines[first:])
    ]
    dest.write_bytes(frames[0] + frames[1][: len(frames[1]) // 2])
    return first


@pytest.mark.parametrize("name", ["transcript-v1", "agentgo-v1", "claude-code", "codex"])
def test_a_cut_compressed_file_gives_the_lines_before_its_cut(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``.jsonl.zst`` cut short fails half way: ``peek`` gives every record decompressed
    before the cut, then the error last (an audit: it gave none, though ``zstdcat`` gets
    them); ``check`` still refuses it on one line (lines past the cut are lost, in an
    unknown number: damage, not a crash tail). Nothing is written."""
    import io

    import orjson
    from format_fixtures import FACTORIES

    from session_core.peeking import write_peek

    plain = FACTORIES[name](tmp_path / "plain")
    cut = tmp_path / "cut.jsonl.zst"
    whole = _cut_after_a_frame(plain, cut)
    head = tmp_path / "head.jsonl"  # the lines the cut left, as a plain file
    head.write_bytes(b"".join(plain.read_bytes().splitlines(keepends=True)[:whole]))
    before = fingerprint(cut)
    out = io.BytesIO()
    result = write_peek(cut, out)
    said = orjson.loads(out.getvalue())
    want = peek(head)
    assert want.error is None and want.envelopes
    assert said["envelopes"] == want.envelopes and said["format"] == name
    assert said["messages"] == [m.to_payload() for m in want.messages]
    assert list(said)[-1] == "error" and said["error"] == result.error
    assert said["error"] == (
        f"{cut}: could not be read: a truncated zstd stream (the last frame is cut)"
    )
    assert peek(cut).envelopes == want.envelopes
    assert main(["check", str(cut)]) == 1
    out_text = capsys.readouterr().out
    assert (
        out_text
        == f"{cut}: bad: could not be read: a truncated zstd stream (the last frame is cut)\n"
    )
    assert fingerprint(cut) == before


def test_peek_of_a_sound_parent_is_not_its_cut_subagents_error(tmp_path: Path) -> None:
    """A Codex parent whose subagent's rollout is a cut ``.jsonl.zst``: peek reads the
    parent whole and says the child could not be read, as an open does (peek's "what was
    read, then why no more" is for the peeked file alone: it blamed the parent, and
    linked the child's partial read as whole)."""
    from codex_helpers import family

    parent, child = family(tmp_path)
    _cut_after_a_frame(child, Path(f"{child}.zst"))
    child.unlink()
    opened = open_transcript(parent)
    said = [w for w in opened.warnings if w.startswith("subagent ")]
    assert len(said) == 1 and "could not be read" in said[0]
    assert [s.read for s in opened.subagents] == [False]
    result = peek(parent)
    assert result.error is None
    assert [w for w in result.warnings if w.startswith("subagent ")] == said


def test_a_compressed_file_corrupt_past_its_first_frame_gives_that_frame(
    tmp_path: Path,
) -> None:
    """Corrupt, not cut: what decompressed before the corrupt block is read all the same
    (the decompressor's ``read`` dropped it with its error: read a step at a time)."""
    import zstandard

    plain = tmp_path / "plain.jsonl"
    story(plain)
    lines = plain.read_bytes().splitlines(keepends=True)
    first = len(lines) // 2
    second = bytearray(zstandard.ZstdCompressor().compress(b"".join(lines[first:])))
    second[12:] = bytes(b ^ 0x55 for b in second[12:])  # (its blocks, past the headers)
    bad = tmp_path / "bad.jsonl.zst"
    bad.write_bytes(zstandard.ZstdCompressor().compress(b"".join(lines[:first])) + second)
    result = peek(bad)
    assert result.envelopes == records(plain)[:first]
    assert result.error is not None and "a corrupt zstd stream" in result.error


async def test_a_cut_compressed_file_is_followed_up_to_its_cut(tmp_path: Path) -> None:
    """Followed (the viewer), a cut ``.jsonl.zst`` gives the lines before its cut, and
    says (each update: the banner stands) why no more."""
    from codex_writer import story

    plain = tmp_path / "plain.jsonl"
    story(plain)
    cut = tmp_path / "cut.jsonl.zst"
    whole = _cut_after_a_frame(plain, cut)
    update = await _first_update(cut, True)
    assert update.envelopes == records(plain)[:whole]  # type: ignore[attr-defined]
    why = f"{cut} cannot be read past line {whole}: a truncated zstd stream (the last frame is cut)"
    assert update.problem == why and why in update.warnings  # type: ignore[attr-defined]


async def test_the_viewer_shows_a_cut_compressed_file_up_to_its_cut(tmp_path: Path) -> None:
    """The lines before the cut, the banner saying why no more; the header's size is what
    was unpacked (as a whole ``.zst``'s is), and a ``.zst`` that unpacks to nothing says
    its size on disk, not "0 B", and "nothing read", not 0 lines (an audit: 0 lines, and
    "0 B" for 30 KB)."""
    from helpers import screen_lines, wait_for

    from session_core.text import size_text
    from viewer.app import TailscopeApp

    plain = tmp_path / "plain.jsonl"
    story(plain)
    cut = tmp_path / "cut.jsonl.zst"
    whole = _cut_after_a_frame(plain, cut)
    nothing = tmp_path / "nothing.jsonl.zst"
    nothing.write_bytes(cut.read_bytes()[:12])  # (its frame's header, and no block whole)
    unpacked = len(b"".join(plain.read_bytes().splitlines(keepends=True)[:whole]))
    for path, lines, size in ((cut, whole, unpacked), (nothing, 0, 12)):
        app = TailscopeApp(path)
        async with app.run_test(size=(200, 32)) as pilot:
            await wait_for(
                pilot, lambda a=app: "truncated zstd stream" in " ".join(screen_lines(a))
            )
            text = " ".join(screen_lines(app))  # (the banner wraps)
            past = f" past line {lines}" if lines else ""
            assert f"{path} cannot be read{past}: a truncated zstd stream" in text
            assert f" {size_text(size)} " in text and " 0 B " not in text
            if lines:
                assert f" {lines:,} lines " in text
            else:  # (nothing read: its counts are not known, not 0, as for mode 000)
                assert "nothing read: the file cannot be read" in text and " 0 lines " not in text


def test_a_long_tool_results_folded_row_is_the_same_plain_and_packed(tmp_path: Path) -> None:
    """A plain file's long result is lazy (its head kept, the rest read by span), the
    ``.zst``'s whole: the conversation's folded row of it was its 300-character head in
    one and the whole text cut at the row's width in the other (a wide row: longer), and
    a cut head said no ``…``. Both rows are the result's first lines now (``row_head``),
    ending in ``…`` where more follows, as ``diff``'s rows do."""
    from codex_writer import RolloutWriter

    from session_core.formats import by_name
    from session_core.tool_ops import ops_by_call
    from viewer.widgets.items_view import ItemsView

    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("user", "go")
    outputs = {
        "one": "y" * 900,  # (one long line)
        "many": "\n".join(f"row {n} " + "z" * 50 for n in range(200)),
        "indent": " " * 400 + "indented",  # (a cut inside its indent)
        "blank": "\n" * 5000 + "late",
        "short": "a\nb\nc",
    }
    for call_id, output in outputs.items():
        w.function_call("exec_command", {"cmd": "ls"}, call_id)
        w.function_output(call_id, output)
    packed = Path(zst_copy(w.path, str(tmp_path / "r.jsonl.zst")))

    def rows(path: Path, width: int) -> list[str]:
        t = by_name("codex").open(path)
        view = ItemsView()
        view._s = lambda _name: ""  # type: ignore[method-assign]
        view.transcript, view.ops = t, ops_by_call(t.tool_operations)
        found = [(m, p) for m in t.messages for p in m.parts if p.kind == "tool-result"]
        return [x.plain for m, p in found for x in view._part_folded(p, width, m)]

    for width in (60, 200, 2000):
        plain = rows(Path(w.path), width)
        assert plain == rows(packed, width), width
    long_one, many, indent, blank, short = plain  # (at 2,000 columns: none cut by width)
    assert long_one == f"  ← result  {'y' * 300} …"
    assert many.endswith(f"⏎row 2 {'z' * 50} …")
    assert indent.endswith(" …") and "… …" not in indent
    assert blank == "  ← result  (blank lines, then more: enter)"
    assert short == "  ← result  a⏎b⏎c"
