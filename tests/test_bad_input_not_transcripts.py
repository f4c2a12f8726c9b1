"""Bad input by hand, what is no transcript at all: an empty file, blank lines, a
directory, a missing file, a FIFO, one 20 MB line, a meta line that is not JSON.
``Session.load``, ``peek`` and ``tailscope replay`` each refuse it, and change nothing."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from bad_input_helpers import check_replay_cli, load_error

from session_core import TranscriptError, peek
from session_core.reader import replay_file


def test_an_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    err = load_error(path)
    assert "empty" in str(err)
    assert peek(path).error is not None
    assert check_replay_cli(capsys, path) is None
    assert path.read_bytes() == b""


NO_BREAK = "\u00a0\n \u3000\n".encode()  # Unicode's white space: "not valid JSON" to check
CUT_IN_TWO = b" " * ((1 << 16) - 1) + "\u3000".encode()  # (a character across two reads)


@pytest.mark.parametrize(
    "blank", [b"\n", b"\n\n\n", b"   \n\t\n", b"\r\n\r\n", b"  ", NO_BREAK, CUT_IN_TWO]
)
def test_a_file_of_blank_lines(tmp_path: Path, blank: bytes, capsys) -> None:
    from viewer.cli import main

    path = tmp_path / "blank.jsonl"
    path.write_bytes(blank)
    load_error(path)
    assert main(["check", str(path)]) == 1
    assert "is empty" in capsys.readouterr().out
    said = "is empty; a transcript starts with its first record"
    assert peek(path).error == f"{path}: {said}"  # (as check says it)
    assert peek(path).warnings == []
    assert check_replay_cli(capsys, path) is None
    assert path.read_bytes().rstrip(b"\r\n") == blank.rstrip(b"\r\n")


def test_records_after_more_blank_lines_than_a_first_read_holds(tmp_path: Path) -> None:
    """70,000 blank lines, then a session: every read path reads it (``check`` said "is
    empty" of it, from its first 64 KiB, where ``peek`` read it)."""
    from format_fixtures import FACTORIES

    from session_core import detect_format, open_transcript
    from viewer.cli import main

    for name, factory in FACTORIES.items():
        plain = factory(tmp_path / name)
        path = tmp_path / f"{name}-blank-first.jsonl"
        path.write_bytes(b"\n" * 70_000 + plain.read_bytes())
        if name == "agentgo-v1":  # (every line of its must be a record: blank ones are damage)
            continue
        assert detect_format(path) == name
        assert main(["check", str(path)]) == 0, name
        assert len(open_transcript(path).messages) == len(open_transcript(plain).messages)
        # Detection's bound counts the lines' bytes, not the blank ones before them (20 MB
        # of them made a file "not a transcript", after 19 s of copying each block).
        assert detect_format(path, limit=1000) == name


def test_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "dir.jsonl"
    folder.mkdir()
    load_error(folder)
    result = peek(folder)
    assert result.error is not None
    assert check_replay_cli(capsys, folder) is None
    with pytest.raises(TranscriptError) as info:
        replay_file(folder, tolerate_tail=True)
    assert str(folder) in str(info.value)


def test_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nope.jsonl"
    load_error(path)
    assert peek(path).error is not None
    assert check_replay_cli(capsys, path) is None
    assert not path.exists()


def test_a_fifo_is_not_read_and_does_not_hang(tmp_path: Path, capsys) -> None:
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    load_error(fifo)
    assert peek(fifo).error is not None
    assert check_replay_cli(capsys, fifo) is None
    with pytest.raises(TranscriptError):
        replay_file(fifo, tolerate_tail=True)


def test_a_20_mb_single_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.jsonl"
    data = b"x" * (20 << 20) + b"\n"
    path.write_bytes(data)
    result = peek(path)
    assert result.error is not None
    assert result.warnings == ["line 1 could not be read, and was skipped"]  # (the spec's words)
    assert check_replay_cli(capsys, path) is None
    assert path.read_bytes() == data
    # load: a file that does not open with a session-meta line is not known to be a
    # transcript, so its one malformed line is no crash tail of one: nothing is cut.
    err = load_error(path)
    assert len(str(err)) < 1000 and "a transcript starts with its first record" in str(err)
    assert path.read_bytes() == data


def test_a_meta_line_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    data = b"hello\nworld\n"
    path.write_bytes(data)
    err = load_error(path)  # (no transcript: not "two malformed lines", a crash tail's)
    assert err.line == 1 and "line 1: is not valid JSON" in str(err) and "line 2" not in str(err)
    assert path.read_bytes() == data


@pytest.mark.parametrize(
    "data",
    [
        b"hello world",  # one line of text, no line break
        b"\x00\x00\x00binary",
        b'{"id":"m","payload":{"meta":{}},"ts":"2026-01-01T00:00:00Z","type":"sess',  # cut at 1
        b'{"type":"user","message":{"role":"user","content":"x"},"uuid":"u1"}\n{"type":"assi',
        b'{"id":"a","payload":{"role":"user","content":"x"},"ts":"x","type":"message","v":1}\n{"b',
        b'{"type":"user","message":{"role":"user","content":"x"},"uuid":"u1"}',  # whole, no \n
    ],
    ids=["text", "binary", "meta-cut", "claude-code-being-written", "no-meta-first", "no-break"],
)
def test_load_cuts_nothing_from_a_file_that_is_not_known_to_be_a_transcript(
    tmp_path: Path, data: bytes
) -> None:
    """Only a file whose first line is a whole session-meta line has a crash tail to cut:
    anything else is refused as it is, its bytes and inode untouched."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(data)
    inode = path.stat().st_ino
    err = load_error(path)
    assert err.line == 1
    assert path.read_bytes() == data and path.stat().st_ino == inode
    assert not (tmp_path / "t.jsonl.repair").exists()


def test_load_ends_a_lone_meta_line_with_its_line_break(tmp_path: Path) -> None:
    """A transcript of its session-meta line alone, cut before its newline, is one: the
    newline is added, and what is appended starts a line of its own."""
    from session_core import Message, Session

    path = tmp_path / "t.jsonl"
    meta = b'{"id":"a","payload":{},"ts":"2026-01-01T00:00:00Z","type":"session-meta","v":1}'
    path.write_bytes(meta)
    s = Session.load(path)
    s.append_message(Message(role="user", content="x"))
    s.close()
    first, second = path.read_bytes().splitlines()
    assert first == meta and b'"type":"message"' in second


def test_a_v1_file_led_by_a_unicode_blank_line_is_detected(tmp_path: Path) -> None:
    """v1's reader skips a line of Unicode white space (U+00A0, U+3000) as blank, as its
    reference does, mid-file; first, detection took it for the first line: "not JSON"."""
    from session_core import detect_format
    from story import write_story
    from viewer.cli import main

    plain = tmp_path / "plain.jsonl"
    write_story(plain)
    path = tmp_path / "led.jsonl"
    path.write_bytes("\u00a0\n\u3000 \n".encode() + plain.read_bytes())
    assert detect_format(path) == "transcript-v1"
    assert main(["check", str(path)]) == 0


def test_a_file_that_says_0_bytes_and_has_lines(tmp_path: Path) -> None:
    """A /proc file says its size is 0 and has lines: ``peek`` read that as "empty",
    where ``check`` said what it is (not a transcript, at line 1)."""
    status = Path("/proc/self/status")
    if not status.exists() or status.stat().st_size != 0:
        pytest.skip("no /proc here")
    said = peek(status).error
    assert said is not None and "empty" not in said


def test_a_cut_character_among_white_space_is_no_white_space(tmp_path: Path) -> None:
    """A byte that starts a character, then a block of ASCII spaces: not UTF-8, so not
    an empty file (the blocks of ASCII spaces were not decoded, and a lone byte across
    them decoded as white space with the next block's: the review)."""
    from session_core.views import blank_file

    path = tmp_path / "cut.jsonl"
    path.write_bytes(b" " * 65535 + b"\xc2" + b" " * 65535 + b"\n" + b"\xa0\n")
    assert not blank_file(str(path))
    path.write_bytes(b" " * 65535 + "\u3000".encode() + b" " * 70000 + b"\n")
    assert blank_file(str(path))


@pytest.mark.parametrize("text", [b"\xef\xbb\xbf", b"\xef\xbb\xbf\n\n", b"\xef\xbb\xbf \r\n\t\n"])
def test_a_byte_order_mark_alone_is_an_empty_file(
    tmp_path: Path, text: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    """A mark that opens the file is read past (README: by every path), so a file of it
    and white space alone is empty, as ``check`` says of one without it; it was called
    "led by a byte order mark, which JSON does not allow" (audit F2). A second mark is
    still no JSON."""
    from helpers import run_cli

    path = tmp_path / "bom.jsonl"
    path.write_bytes(text)
    said = "is empty; a transcript starts with its first record"
    for command in ("check", "replay", "diff"):
        code, out, err = run_cli(capsys, command, str(path))
        assert code == 1 and said in out + err and "byte order mark" not in out + err
    path.write_bytes(b"\xef\xbb\xbf" + text)
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 1 and "line 1: is led by a byte order mark" in out
    assert path.read_bytes() == b"\xef\xbb\xbf" + text


@pytest.mark.parametrize(
    "text", [b"", b"\n\n", b"\xef\xbb\xbf", b"[1,2]\n", b'"hello"\n', b"{\n", b'{"a": 1}\n']
)
def test_peek_says_what_check_says_of_a_file_no_format_claims(
    tmp_path: Path, text: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    """``peek`` worded these its own way ("the transcript is empty", "this is not a
    transcript: ...") where ``check``, ``replay`` and ``diff`` said "is empty; a
    transcript starts with its first record", "is not a transcript: ..." (audit F3): one
    wording, from one place (``views.unclaimed``); peek's keys are api.md's."""
    from helpers import run_cli

    path = tmp_path / "odd.jsonl"
    path.write_bytes(text)
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 1
    reason = out.rstrip("\n").split(": bad: ", 1)[1]
    for command in ("replay", "diff"):
        code, _, err = run_cli(capsys, command, str(path))
        assert code == 1 and err == f"tailscope: {path}: {reason}\n"
    result = peek(path)
    assert result.error == f"{path}: {reason}" and result.format is None
    code, out, _ = run_cli(capsys, "peek", str(path))
    assert code == 1 and orjson.loads(out)["error"] == f"{path}: {reason}"


@pytest.mark.parametrize(
    "text",
    [b"", b"\n\n", b"\xef\xbb\xbf", b"\xef\xbb\xbf\n\n", b"\xef\xbb\xbf \r\n\t\n", NO_BREAK],
)
def test_the_browser_calls_empty_what_check_calls_empty(tmp_path: Path, text: bytes) -> None:
    """The browser's row of a file of a mark and white space alone (Unicode's too) says
    "empty", by the rule ``check`` goes by (``views.blank_file``); it tested the head's
    bytes with the mark on, and said "its first line is neither …" (review 1, item 2)."""
    from session_core.scan import scan_file
    from session_core.views import unclaimed

    path = tmp_path / "blank.jsonl"
    path.write_bytes(text)
    assert "is empty" in str(unclaimed(str(path)))
    summary = scan_file(path)
    assert (summary.status, summary.reason) == ("not-a-transcript", "empty")
    path.write_bytes(text + b"[1, 2]\n")
    assert scan_file(path).reason != "empty"


OLDER_DOCUMENT = Path(__file__).parent / "fixtures" / "codex-real" / "typescript-cli-2025.json"


@pytest.mark.parametrize("text", [OLDER_DOCUMENT.read_bytes(), b'{"a": 1}\n', b"no json\n"])
def test_what_no_format_claims_is_worked_out_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: bytes
) -> None:
    """``peek`` and the viewer's ``not_a_transcript`` each read a file no format claims
    once per case (``views.why_unclaimed``): they asked ``older_document`` themselves,
    then ``unclaimed`` asked it again, so an older writer's document (up to 64 MB) was
    parsed whole twice (review r2, finding 1). What each says is unchanged."""
    from session_core import views
    from viewer.screens.not_a_transcript import not_a_transcript

    path = tmp_path / "odd.json"
    path.write_bytes(text)
    said = str(views.unclaimed(str(path)))
    calls: list[str] = []
    for name in ("blank_file", "older_document"):
        real = getattr(views, name)
        monkeypatch.setattr(
            views, name, lambda w, real=real, name=name: calls.append(name) or real(w)
        )
    assert peek(path).error == said
    assert sorted(calls) == ["blank_file", "older_document"]
    calls.clear()
    unclaimed = not_a_transcript(str(path))
    assert unclaimed is not None and unclaimed.document == text.startswith(b"{\n")
    assert sorted(calls) == ["blank_file", "older_document"]
