"""Bad input by hand, a transcript damaged: CRLF endings, cut characters, lines of another
version, duplicated lines, huge lines, permissions, a leftover repair file, and
``tailscope replay`` run as a real process on such files."""

from __future__ import annotations

import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from bad_input_helpers import build, check_replay_cli, load_error
from helpers import file_permissions_apply, run_cli

from session_core import Message, Session, TranscriptError, peek

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "t.jsonl"
    build(
        path,
        [("msg", "user", "héllo €"), ("tool", "q", True, True), ("msg", "assistant", "日本")],
    )
    return path


def refused_as_written(path: Path, data: bytes) -> TranscriptError:
    """Writes ``data``; ``Session.load`` refuses the file (naming it and the line) and
    leaves it as it was."""
    path.write_bytes(data)
    err = load_error(path)
    assert path.read_bytes() == data
    return err


def replay_refuses(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    """``tailscope replay`` fails on the file with one line of error, returned."""
    assert check_replay_cli(capsys, path) is None
    _code, _out, err_text = run_cli(capsys, "replay", str(path))
    return err_text


def test_a_crlf_transcript_loads_and_appends_with_the_writers_newline(transcript: Path) -> None:
    data = transcript.read_bytes().replace(b"\n", b"\r\n")
    transcript.write_bytes(data)
    with Session.load(transcript) as s:
        assert transcript.read_bytes() == data
        count = len(s.message_ids())
        s.append_message(Message(role="user", content="more"))
    after = transcript.read_bytes()
    # The writer writes "\n" (as the reference does); only a repair uses the file's own ending.
    assert after.startswith(data)
    assert after[len(data) :].endswith(b"}\n")
    assert b"\r" not in after[len(data) :]
    with Session.load(transcript) as s:
        assert len(s.message_ids()) == count + 1


def test_a_crlf_transcript_without_its_last_ending_gets_crlf(transcript: Path) -> None:
    data = transcript.read_bytes().replace(b"\n", b"\r\n")
    transcript.write_bytes(data[:-2])
    with Session.load(transcript):
        pass
    assert transcript.read_bytes() == data


def test_a_tail_cut_between_cr_and_lf_gets_only_its_lf(transcript: Path) -> None:
    data = transcript.read_bytes().replace(b"\n", b"\r\n")
    transcript.write_bytes(data[:-1])  # ends in "}\r"
    with Session.load(transcript) as s:
        assert s.warnings() == []
    assert transcript.read_bytes() == data


def test_a_file_without_read_permission(transcript: Path, capsys) -> None:
    """Every command words the refusal one way (an audit: peek said "the transcript
    could not be read: ...", check and replay "cannot be read: ...")."""
    data = transcript.read_bytes()
    transcript.chmod(0o200)
    why = f"{transcript}: cannot be read: Permission denied"
    try:
        with file_permissions_apply():  # root too: permissions stop this thread
            err = load_error(transcript)
            assert "ermission" in str(err)
            assert peek(transcript).error == why
            code, out, said = run_cli(capsys, "replay", str(transcript))
            assert (code, out) == (1, "")
            assert said == f"tailscope: {why}\n"
            code, out, _said = run_cli(capsys, "peek", str(transcript))
            assert code == 1 and orjson.loads(out)["error"] == why
            code, out, _said = run_cli(capsys, "check", str(transcript))
            assert code == 1 and out == why.replace(": cannot", ": bad: cannot", 1) + "\n"
    finally:
        transcript.chmod(0o644)
    assert transcript.read_bytes() == data


def test_a_20_mb_message_loads(transcript: Path, capsys: pytest.CaptureFixture[str]) -> None:
    big = "€" * (7 << 20)  # 21 MB of UTF-8
    with Session.load(transcript) as s:
        mid = s.append_message(Message(role="tool", content=big, tool_call_id="x"))
    with Session.load(transcript) as s:
        assert s.message_ids()[-1] == mid
        assert s.messages()[-1].content == big
    view = check_replay_cli(capsys, transcript)
    assert view is not None and view["messages"][-1]["content"] == big


def test_a_20_mb_crash_tail_is_cut(transcript: Path) -> None:
    data = transcript.read_bytes()
    with transcript.open("ab") as fh:
        fh.write(b'{"id":"x","payload":{"content":"' + b"y" * (20 << 20))
    with Session.load(transcript) as s:
        assert any("crash tail" in w for w in s.warnings())
    assert transcript.read_bytes() == data


def test_a_multibyte_char_cut_on_the_last_line_is_repaired(transcript: Path) -> None:
    data = transcript.read_bytes()
    with Session.load(transcript) as s:
        ids = s.message_ids()
    payload = {"role": "user", "content": "€€€"}
    line = orjson.dumps({"id": "m", "payload": payload, "ts": "t", "type": "message", "v": 1})
    cut = line[: line.index("€".encode()) + 2]  # inside the second byte of a 3-byte char
    transcript.write_bytes(data + cut)
    with Session.load(transcript) as s:
        assert s.message_ids() == ids
        warnings = s.warnings()
        cut_line = data.count(b"\n") + 1
        assert len(warnings) == 1 and f"line {cut_line}" in warnings[0]
    assert transcript.read_bytes() == data


def test_a_multibyte_char_cut_in_the_middle_is_fatal_and_names_the_line(transcript: Path) -> None:
    lines = transcript.read_bytes().split(b"\n")
    raw = lines[1]  # the second line: "héllo €"
    at = raw.index("€".encode())
    lines[1] = raw[: at + 1] + raw[at + 2 :]
    err = refused_as_written(transcript, b"\n".join(lines))
    assert err.line == 2
    assert "line 2" in str(err)


@pytest.mark.parametrize("version", [2, 1.0, "1", True])
def test_an_envelope_version_2_is_fatal_and_names_the_line(
    transcript: Path, capsys, version: object
) -> None:
    """Any version but the integer 1 (the spec's words): 1.0 was taken for it."""
    lines = transcript.read_bytes().split(b"\n")
    env = orjson.loads(lines[1])
    env["v"] = version
    lines[1] = orjson.dumps(env, option=orjson.OPT_SORT_KEYS)
    data = b"\n".join(lines)
    err = refused_as_written(transcript, data)
    assert err.line == 2 and "line 2" in str(err)
    assert "line 2" in replay_refuses(capsys, transcript)


@pytest.mark.parametrize("last", [True, False])
def test_a_version_2_last_line_is_fatal_too(transcript: Path, last: bool) -> None:
    with Session.load(transcript) as s:
        s.append_event(type="x-new", payload={})
    data = transcript.read_bytes()
    data = data.replace(b'"type":"x-new","v":1}', b'"type":"x-new","v":2}')
    if not last:
        data = data[:-1]
    transcript.write_bytes(data)
    err = load_error(transcript)
    assert "version" in str(err)
    assert transcript.read_bytes() in (data, data + b"\n")


def test_the_first_line_not_being_session_meta(transcript: Path, capsys) -> None:
    lines = transcript.read_bytes().split(b"\n")
    data = b"\n".join(lines[1:])
    err = refused_as_written(transcript, data)
    assert err.line == 1 and "session-meta" in str(err)
    result = peek(transcript)
    assert result.error is not None and "session-meta" in result.error
    assert check_replay_cli(capsys, transcript) is None


def test_duplicated_message_lines_then_a_compaction(transcript: Path, capsys) -> None:
    """A message line twice replays as two messages with one id (no warning); a compaction
    through that id folds through its last copy, so both go."""
    lines = transcript.read_bytes().split(b"\n")
    with Session.load(transcript) as s:
        ids = s.message_ids()
        contents = [m.content for m in s.messages()]
    assert contents == ["héllo €", "", "q", "日本"]
    lines.insert(2, lines[1])  # the first message line, twice
    transcript.write_bytes(b"\n".join(lines))
    with Session.load(transcript) as s:
        assert s.message_ids() == [ids[0], *ids]
        assert [m.content for m in s.messages()] == ["héllo €", *contents]
        assert s.warnings() == []
        summary = s.append_compaction(summary="sum", replaces_through_id=ids[0])
    with Session.load(transcript) as s:
        assert s.message_ids() == [summary, *ids[1:]]
        assert [m.content for m in s.messages()] == ["sum", *contents[1:]]
        assert s.warnings() == []
    view = check_replay_cli(capsys, transcript, expect=0)
    assert view is not None
    assert [m["id"] for m in view["messages"]] == [summary, *ids[1:]]
    assert view["warnings"] == []


def test_duplicated_lines_everywhere(transcript: Path, capsys) -> None:
    """Every line after the meta twice: the first line that cannot be replayed twice is the
    tool-settled copy (line 11: meta, then user 2-3, call 4-5, dispatched 6-7, result
    8-9, settled 10-11), and both load and replay refuse the file there."""
    with Session.load(transcript) as s:
        ids = s.message_ids()
        s.append_compaction(summary="s", replaces_through_id=ids[-1])
    lines = [line for line in transcript.read_bytes().split(b"\n") if line]
    kinds = [orjson.loads(line)["type"] for line in lines]
    assert kinds[:6] == [
        "session-meta", "message", "message", "tool-dispatched", "message", "tool-settled",
    ]  # fmt: skip
    doubled = [lines[0]] + [x for line in lines[1:] for x in (line, line)]
    data = b"\n".join(doubled) + b"\n"
    err = refused_as_written(transcript, data)
    assert err.line == 11 and "settled already" in str(err)
    err_text = replay_refuses(capsys, transcript)
    assert "line 11" in err_text and "settled already" in err_text


# Each damage of the fixture transcript (user "héllo €", a call with its result, assistant
# "日本"; 7 lines), and what it is known to do: the exit status and a piece of the message
# (1), or the warnings and the messages replayed (0).
SUBPROCESS_CASES = [
    # cut in the middle of line 4 (the call's dispatch): a crash tail, the lines before it
    (
        "truncated",
        lambda d: d[: len(d) // 2],
        0,
        (["line 4 has no newline: the writer left it unfinished"], ["héllo €", ""]),
    ),
    # a byte of the meta line made a lone UTF-8 continuation byte
    ("flipped", lambda d: d[:40] + bytes([d[40] ^ 0x80]) + d[41:], 1, "line 1: is not valid UTF-8"),
    (
        "garbage-middle",
        lambda d: d.replace(b"\n", b"\n\xff\xfe\n", 1),
        1,
        "line 2: is not valid JSON",
    ),
    # two CRLF line endings among LF ones: read alike
    ("crlf-mix", lambda d: d.replace(b"\n", b"\r\n", 2), 0, ([], ["héllo €", "", "q", "日本"])),
    ("nul", lambda d: b"\x00" * 64, 1, "line 1: is not valid JSON"),
]


@pytest.mark.parametrize(
    ("name", "damage", "code", "expected"), SUBPROCESS_CASES, ids=[c[0] for c in SUBPROCESS_CASES]
)
def test_tailscope_replay_as_a_real_process(
    transcript: Path, name: str, damage, code: int, expected: Any
) -> None:
    original = transcript.read_bytes()
    assert original.count(b"\n") == 7
    data = damage(original)
    if name == "truncated":
        assert data.count(b"\n") == 3  # the cut falls inside line 4
    transcript.write_bytes(data)
    proc = subprocess.run(
        [PY, "-m", "viewer.cli", "replay", str(transcript)],
        capture_output=True,
        cwd=REPO,
        timeout=60,
    )
    assert proc.returncode == code, proc.stderr
    assert b"Traceback" not in proc.stderr
    if code == 1:
        assert proc.stdout == b""
        assert proc.stderr.count(b"\n") == 1 and proc.stderr.startswith(b"tailscope: ")
        assert str(transcript).encode() in proc.stderr
        assert expected.encode() in proc.stderr, proc.stderr
    else:
        warnings, contents = expected
        view = orjson.loads(proc.stdout)
        assert set(view) >= {"format", "meta", "messages", "warnings"}
        assert len(view["warnings"]) == len(warnings)
        assert all(w.startswith(start) for w, start in zip(view["warnings"], warnings, strict=True))
        assert [m["content"] for m in view["messages"]] == contents
    assert transcript.read_bytes() == data


def test_a_read_only_file_is_refused_by_load(transcript: Path) -> None:
    data = transcript.read_bytes()
    transcript.chmod(stat.S_IRUSR)
    try:
        with file_permissions_apply(), pytest.raises(TranscriptError) as info:
            Session.load(transcript)  # a writer needs to append: read-only is refused
        assert str(transcript) in str(info.value)
        assert "ermission" in str(info.value)
    finally:
        transcript.chmod(0o644)
    assert transcript.read_bytes() == data


def test_a_leftover_repair_file_is_deleted(transcript: Path) -> None:
    stale = Path(str(transcript) + ".repair")
    shutil.copy(transcript, stale)
    with Session.load(transcript):
        assert not stale.exists()


@pytest.mark.parametrize("newline", [b"\n", b""])
def test_a_crash_tail_is_in_the_raw_view_as_a_follow_shows_it(
    transcript: Path, newline: bytes
) -> None:
    """A whole read keeps its crash tail, unapplied, for the raw view (it lost it, where
    a follow of the same file showed it: the fuzzer's F3), and says it is one."""
    from helpers import follow_into, neutral

    from session_core.formats import by_name

    with transcript.open("ab") as fh:
        fh.write(b'{"v":1,"type":"mess' + newline)
    data = transcript.read_bytes()
    fmt = by_name("transcript-v1")
    whole = fmt.open(transcript, writer_alive=False)
    assert any("crash tail" in w for w in whole.warnings)
    last = whole.raw[len(whole.raw) - 1]
    assert [p.text for p in last.parts] == ['{"v":1,"type":"mess']
    assert whole.lines == data.count(b"\n") + (0 if newline else 1)
    from session_core.export import export

    # (the raw view's export quotes its start in its warning, as every format's does: a
    # crash tail is no record, and a 30 MB one was exported whole)
    raw_md = export(transcript, "md", "raw")
    assert r'(a crash tail\); its 19 bytes begin \{"v":1,"type":"mess' in raw_md, raw_md
    assert r"not applied \(a crash tail" not in raw_md
    if newline:  # (a follow holds an unfinished line back until the writer is gone)
        live = fmt.live(str(transcript))
        follow_into(live.apply, transcript, 1 << 20, fmt.parsed_updates)
        followed = neutral(live.transcript(writer_alive=False))
        assert followed["items"] == neutral(whole)["items"]
    assert transcript.read_bytes() == data
