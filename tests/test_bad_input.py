"""Bad input, found by hypothesis and by hand: nothing but a TranscriptError ever escapes.

Valid transcripts are written with ``Session`` (tool calls, tool operations,
compactions, elisions, run contexts, multi-byte text, CRLF variants), then damaged
at the byte level. Whatever the damage:

* ``peek`` returns a ``PeekResult`` and never raises;
* ``Session.load`` (on a copy) succeeds or raises ``TranscriptError``; when it
  raises, the file is as it was or exactly as the documented repair left it; when it
  succeeds, the file is a prefix of what it was plus at most one line ending, and
  it stays loadable after an append;
* ``tailscope replay`` exits 0 or 1, never with a traceback, and a refusal is one
  line on stderr.
"""

from __future__ import annotations

import os
import random
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import file_permissions_apply, run_cli
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from session_core import Message, PeekResult, Session, TranscriptError, peek
from session_core.codec import section_digest
from session_core.reader import replay_file

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable

# --- building valid transcripts -------------------------------------------------------

TEXT = st.text(
    alphabet=st.characters(
        codec="utf-8", categories=("L", "N", "P", "S", "Zs", "Cc"), exclude_characters="\x00"
    )
    | st.sampled_from(["é", "€", "𝄞", "日", "\n", "\r", '"', "\\", "\u2028", "🙂"]),
    max_size=40,
)

OP = st.one_of(
    st.tuples(st.just("msg"), st.sampled_from(["user", "assistant", "system"]), TEXT),
    st.tuples(st.just("sticky"), TEXT),
    st.tuples(st.just("tool"), TEXT, st.booleans(), st.booleans()),
    st.tuples(st.just("compact"), TEXT),
    st.tuples(st.just("elide"), TEXT),
    st.tuples(st.just("context"), TEXT),
    st.tuples(st.just("grants"), TEXT),
    st.tuples(st.just("event"), TEXT),
)


def build(path: Path, ops: list[tuple[Any, ...]]) -> None:
    """Write a valid transcript at ``path`` from a list of operations."""
    with Session.create(path, meta={"agent": "tést", "n": len(ops)}) as s:
        live: list[str] = []
        calls = 0
        for op in ops:
            kind = op[0]
            if kind == "msg":
                live.append(s.append_message(Message(role=op[1], content=op[2])))
            elif kind == "sticky":
                live.append(s.append_message(Message(role="system", content=op[1], sysprompt=True)))
            elif kind == "tool":
                calls += 1
                cid = f"call_{calls}"
                args = orjson.dumps({"q": op[1]}).decode()
                call = {"id": cid, "type": "function", "function": {"name": "t", "arguments": args}}
                live.append(
                    s.append_message(
                        Message(role="assistant", content="", tool_calls=(call,)),
                        extra={"usage": {"total-tokens": 3}, "reasoning": op[1]},
                    )
                )
                opid = s.append_tool_dispatched(
                    call_id=cid, tool="t", arguments=args, idempotency="read-only", run_id="r1"
                )
                if op[2]:
                    live.append(
                        s.append_message(Message(role="tool", content=op[1], tool_call_id=cid))
                    )
                if op[3]:
                    s.append_tool_settled(op_id=opid, outcome="completed", duration=0.5)
            elif kind == "compact" and live:
                through = live[len(live) // 2]
                s.append_compaction(summary=op[1], replaces_through_id=through, tokens_before=9)
                live = s.message_ids()
            elif kind == "elide" and live:
                s.append_elision([{"id": live[-1], "stub": op[1] or "[elided]"}])
            elif kind == "context":
                s.append_run_context(
                    run_id="r1",
                    digest="d" + str(len(op[1])),
                    facts=[("date", "2026-08-09"), ("note", op[1])],
                    sections=[
                        {"name": "id", "digest": section_digest("id", op[1]), "rendered": op[1]}
                    ],
                )
            elif kind == "grants":
                s.append_grants([{"tool": "fs_read", "scope": op[1]}])
            elif kind == "event":
                s.append_event(type="x-note", payload={"text": op[1]})


def crlf_variant(data: bytes, how: str, rnd: random.Random) -> bytes:
    if how == "lf":
        return data
    lines = data.split(b"\n")
    if how == "crlf":
        return b"\r\n".join(lines[:-1]) + b"\r\n" + lines[-1] if len(lines) > 1 else data
    out = b""
    for line in lines[:-1]:
        out += line + (b"\r\n" if rnd.random() < 0.5 else b"\n")
    return out + lines[-1]


# --- damage ---------------------------------------------------------------------------

GARBAGE = st.sampled_from(
    [b"\xff", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x99", b"\x00", b"{", b"}", b'"', b"\n", b"\r",
     b"\r\n", b"\n\n", b"   ", b"\xef\xbb\xbf", b"null", b"[]", b'{"v":2}', b"\x1e", b"\xc2\xa0",
     b'{"type":"message","v":1}', b"\\u0000", b",", b"\x0b"]
)  # fmt: skip

MUTATION = st.one_of(
    st.tuples(st.just("truncate"), st.integers(0, 1 << 30)),
    st.tuples(st.just("flip"), st.integers(0, 1 << 30), st.integers(0, 7)),
    st.tuples(st.just("insert"), st.integers(0, 1 << 30), GARBAGE),
    st.tuples(st.just("insert"), st.integers(0, 1 << 30), st.binary(min_size=1, max_size=8)),
    st.tuples(st.just("delete"), st.integers(0, 1 << 30), st.integers(1, 40)),
    st.tuples(st.just("dupline"), st.integers(0, 1 << 30)),
    st.tuples(st.just("dropline"), st.integers(0, 1 << 30)),
    st.tuples(st.just("swaplines"), st.integers(0, 1 << 30)),
    st.tuples(st.just("eol"), st.integers(0, 1 << 30)),
    st.tuples(st.just("hugeline"), st.integers(0, 1 << 30), st.sampled_from([b"x", "€".encode()])),
)  # fmt: skip


def _line_spans(data: bytes) -> list[tuple[int, int]]:
    """(start, end-after-line-break) of every line."""
    spans = []
    start = 0
    while start < len(data):
        nl = data.find(b"\n", start)
        end = len(data) if nl < 0 else nl + 1
        spans.append((start, end))
        start = end
    return spans


def mutate(data: bytes, mutation: tuple[Any, ...]) -> bytes:
    kind, at = mutation[0], mutation[1]
    n = len(data)
    if kind == "truncate":
        return data[: at % (n + 1)]
    if kind == "flip":
        if not n:
            return data
        i = at % n
        return data[:i] + bytes([data[i] ^ (1 << mutation[2])]) + data[i + 1 :]
    if kind == "insert":
        i = at % (n + 1)
        return data[:i] + mutation[2] + data[i:]
    if kind == "delete":
        i = at % (n + 1)
        return data[:i] + data[i + mutation[2] :]
    if kind == "hugeline":
        i = at % (n + 1)
        return data[:i] + mutation[2] * (300_000 // len(mutation[2])) + b"\n" + data[i:]
    spans = _line_spans(data)
    if not spans:
        return data
    s, e = spans[at % len(spans)]
    line = data[s:e]
    if kind == "dupline":
        return data[:e] + line + data[e:]
    if kind == "dropline":
        return data[:s] + data[e:]
    if kind == "swaplines":
        if len(spans) < 2:
            return data
        k = at % (len(spans) - 1)
        (s1, e1), (s2, e2) = spans[k], spans[k + 1]
        return data[:s1] + data[s2:e2] + data[s1:e1] + data[e2:]
    if kind == "eol":  # toggle one line's ending between LF and CRLF
        if line.endswith(b"\r\n"):
            return data[:s] + line[:-2] + b"\n" + data[e:]
        if line.endswith(b"\n"):
            return data[:s] + line[:-1] + b"\r\n" + data[e:]
        return data
    raise AssertionError(kind)


# --- what a repair may do -------------------------------------------------------------


def documented_repair(data: bytes) -> bytes | None:
    """What load's crash-tail repair turns ``data`` into (None: no repair applies)."""
    if not data:
        return None
    body = data[:-1] if data.endswith(b"\n") else data
    lf = body.rfind(b"\n")
    start = lf + 1
    line = body[start:]
    if line.endswith(b"\r"):
        line = line[:-1]
    if _whole(line):
        return None  # nothing to cut (a missing line ending is checked apart)
    return data[:start]


def _whole(line: bytes) -> bool:
    if not line.strip():
        return True
    try:
        orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return True


def allowed_after(old: bytes, new: bytes) -> bool:
    """``new`` is ``old`` untouched, cut at its last line, or given one line ending."""
    if new == old:
        return True
    if new in (old + b"\n", old + b"\r\n"):
        return True
    repaired = documented_repair(old)
    return repaired is not None and new == repaired


def assert_names_where(err: TranscriptError, path: Path) -> None:
    text = str(err)
    assert str(path) in text, text
    if err.line is not None:
        assert f"line {err.line}" in text, text


def check_replay_cli(
    capsys: pytest.CaptureFixture[str], path: Path, expect: int | None = None
) -> dict[str, Any] | None:
    """``tailscope replay PATH``: its view (exit 0) or None (exit 1, one line of error).
    ``expect``: the exit status this input is known to give (None: random damage,
    either)."""
    regular = path.is_file()
    before = path.read_bytes() if regular else None
    code, out, err = run_cli(capsys, "replay", str(path))
    assert (path.read_bytes() if regular else None) == before
    assert code in (0, 1), (code, err)
    if expect is not None:
        assert code == expect, (code, err)
    assert "Traceback" not in err
    if code == 1:
        assert out == ""
        assert err.endswith("\n") and err.count("\n") == 1, err
        assert err.startswith("tailscope: ")
        return None
    view = orjson.loads(out)
    assert isinstance(view, dict)
    return view


# --- the properties -------------------------------------------------------------------


@st.composite
def damaged(draw: st.DrawFn) -> tuple[bytes, bytes]:
    ops = draw(st.lists(OP, max_size=12))
    how = draw(st.sampled_from(["lf", "lf", "crlf", "mixed"]))
    seed = draw(st.integers(0, 1000))
    mutations = draw(st.lists(MUTATION, min_size=0, max_size=3))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        build(path, ops)
        original = crlf_variant(path.read_bytes(), how, random.Random(seed))
    data = original
    for m in mutations:
        data = mutate(data, m)
    return original, data


def exercise(capsys: pytest.CaptureFixture[str], data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "damaged.jsonl"
        path.write_bytes(data)

        # peek: a result, never an exception, never a byte written
        result = peek(path)
        assert isinstance(result, PeekResult)
        assert path.read_bytes() == data
        assert result.size == len(data)
        orjson.dumps(result.to_json(), default=str)

        # the read-only replay, as the command line prints it
        view = check_replay_cli(capsys, path)

        # load, on this very file (a copy of the damaged bytes)
        try:
            s = Session.load(path)
        except TranscriptError as err:
            event(f"load refused ({type(err).__name__})")
            assert_names_where(err, path)
            assert allowed_after(data, path.read_bytes())
            assert not Path(str(path) + ".repair").exists()
            return
        event("load succeeded" + (" after a repair" if s.warnings() else ""))
        try:
            after = path.read_bytes()
            assert allowed_after(data, after), (data[-80:], after[-80:])
            assert not Path(str(path) + ".repair").exists()
            ids = s.message_ids()
            messages = s.messages()
            # what replay printed is what load replayed (after its repair)
            assert view is not None
            assert [m["id"] for m in view["messages"]] == ids
            assert [m["content"] for m in view["messages"]] == [m.content for m in messages]
            # each printed operation is the file's record plus its state (api.md)
            assert [
                {k: v for k, v in op.items() if k != "state"} for op in view["tool-operations"]
            ] == s.tool_operations()
            assert all(isinstance(op["state"], str) for op in view["tool-operations"])
            new = s.append_message(Message(role="user", content="after the damage ✓"))
        finally:
            s.close()
        # appending after a successful load never buries a line: it loads again
        with Session.load(path) as again:
            assert again.message_ids() == [*ids, new]
            assert again.messages()[-1].content == "after the damage ✓"


SETTINGS = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@SETTINGS
@given(damaged())
def test_damaged_transcripts_never_escape_as_anything_but_transcript_error(
    capsys: pytest.CaptureFixture[str], pair: tuple[bytes, bytes]
) -> None:
    exercise(capsys, pair[1])


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.binary(max_size=300))
def test_arbitrary_bytes(capsys: pytest.CaptureFixture[str], data: bytes) -> None:
    exercise(capsys, data)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(OP, max_size=10), st.sampled_from(["lf", "crlf", "mixed"]), st.integers(0, 99))
def test_undamaged_transcripts_load_unchanged_in_every_line_ending(
    capsys: pytest.CaptureFixture[str], ops: list[tuple[Any, ...]], how: str, seed: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        build(path, ops)
        with Session.load(path) as s:
            expected = (s.message_ids(), s.messages(), s.tool_operations(), s.run_contexts())
        data = crlf_variant(path.read_bytes(), how, random.Random(seed))
        path.write_bytes(data)
        view = check_replay_cli(capsys, path)
        assert view is not None and view["warnings"] == []
        with Session.load(path) as s:
            assert path.read_bytes() == data
            assert (s.message_ids(), s.messages(), s.tool_operations(), s.run_contexts()) == (
                expected
            )
            assert s.warnings() == []


# --- by hand --------------------------------------------------------------------------


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / "t.jsonl"
    build(
        path,
        [("msg", "user", "héllo €"), ("tool", "q", True, True), ("msg", "assistant", "日本")],
    )
    return path


def load_error(path: Path) -> TranscriptError:
    with pytest.raises(TranscriptError) as info:
        Session.load(path)
    assert_names_where(info.value, path)
    return info.value


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


def test_an_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    err = load_error(path)
    assert "empty" in str(err)
    assert peek(path).error is not None
    assert check_replay_cli(capsys, path) is None
    assert path.read_bytes() == b""


@pytest.mark.parametrize("blank", [b"\n", b"\n\n\n", b"   \n\t\n", b"\r\n\r\n", b"  "])
def test_a_file_of_blank_lines(tmp_path: Path, blank: bytes, capsys) -> None:
    path = tmp_path / "blank.jsonl"
    path.write_bytes(blank)
    load_error(path)
    assert peek(path).error is not None
    assert peek(path).warnings == []
    assert check_replay_cli(capsys, path) is None
    assert path.read_bytes().rstrip(b"\r\n") == blank.rstrip(b"\r\n")


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


def test_a_file_without_read_permission(transcript: Path, capsys) -> None:
    data = transcript.read_bytes()
    transcript.chmod(0o200)
    try:
        with file_permissions_apply():  # root too: permissions stop this thread
            err = load_error(transcript)
            assert "ermission" in str(err)
            assert peek(transcript).error is not None
            code, out, said = run_cli(capsys, "replay", str(transcript))
        assert (code, out) == (1, "")
        assert said.startswith("tailscope: ") and said.count("\n") == 1 and "ermission" in said
    finally:
        transcript.chmod(0o644)
    assert transcript.read_bytes() == data


def test_a_20_mb_single_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.jsonl"
    data = b"x" * (20 << 20) + b"\n"
    path.write_bytes(data)
    result = peek(path)
    assert result.error is not None
    assert result.warnings == ["line 1 could not be read, and was skipped"]
    assert check_replay_cli(capsys, path) is None
    assert path.read_bytes() == data
    # load: the one malformed line is a crash tail, cut before replay (as the reference
    # documents: "the repair runs before replay"), and what is left is no transcript.
    err = load_error(path)
    assert len(str(err)) < 1000
    assert path.read_bytes() == b""


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


def test_an_envelope_version_2_is_fatal_and_names_the_line(transcript: Path, capsys) -> None:
    lines = transcript.read_bytes().split(b"\n")
    env = orjson.loads(lines[1])
    env["v"] = 2
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


def test_a_meta_line_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    data = b"hello\nworld\n"
    path.write_bytes(data)
    err = load_error(path)
    assert err.line == 1 and "line 1" in str(err) and "line 2" in str(err)
    assert path.read_bytes() == data


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
    ("truncated", lambda d: d[: len(d) // 2], 0, (["line 4 is a crash tail"], ["héllo €", ""])),
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
