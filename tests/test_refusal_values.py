"""A refusal quotes a value the file wrote as JSON writes it (an audit): "has envelope
version None" (no ``v``), "version True" and agentgo's "declares format version None"
read as Python leaking through. And a v1 line with an empty ``type`` (the spec: a
non-empty string) was taken for a line of another type, so the refusal named a later
compaction that replaced through it, not the line that is wrong."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import run_cli

from session_core import Session, TranscriptError, detect_format, peek
from session_core.agentgo import AgentGoSession
from session_core.text import as_written

MESSAGE_ID = "00000000-0000-4000-8000-000000000002"


def _envelope(kind: str, payload: dict[str, Any], n: int) -> dict[str, Any]:
    eid = f"00000000-0000-4000-8000-{n:012d}"
    return {"id": eid, "payload": payload, "ts": "2026-08-09T13:10:08Z", "type": kind, "v": 1}


def _v1_file(path: Path, second: dict[str, Any]) -> Path:
    compaction = {"summary": "s", "replaces-through-id": MESSAGE_ID, "fallback": False}
    lines = [
        _envelope("session-meta", {}, 1),
        second,
        _envelope("grants", {"grants": []}, 3),
        _envelope("compaction", compaction, 4),
    ]
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


def _refused_alike(capsys: pytest.CaptureFixture[str], path: Path, said: str, line: int) -> None:
    """``check``, ``replay`` and ``Session.load`` refuse ``path`` in the same words, at
    ``line``."""
    code, out, _err = run_cli(capsys, "check", str(path))
    assert code == 1 and out == f"{path}: bad: {said}\n"
    code, _out, err = run_cli(capsys, "replay", str(path))
    assert code == 1 and err == f"tailscope: {path}: {said}\n"
    with pytest.raises(TranscriptError) as refused:
        Session.load(path)
    assert refused.value.line == line and str(refused.value).endswith(said)


def _message(**change: Any) -> dict[str, Any]:
    line = _envelope("message", {"role": "user", "content": "hi"}, 2)
    line.update(change)
    return {k: v for k, v in line.items() if v is not _GONE}


_GONE = object()

_Line = dict[str, Any]
_Checked = Callable[[bytes], tuple[Path, int, str]]


def _meta_and(second: _Line, third: _Line | None) -> bytes:
    """A v1 file's bytes: a session-meta line, then ``second`` and ``third`` if any."""
    lines = [_envelope("session-meta", {}, 1), second, *([third] if third else [])]
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


@pytest.fixture
def checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> _Checked:
    """Writes a file of the bytes given and runs ``check`` on it: the file, exit code and
    output."""

    def check(text: bytes) -> tuple[Path, int, str]:
        path = tmp_path / "s.jsonl"
        path.write_bytes(text)
        code, out, _err = run_cli(capsys, "check", str(path))
        return path, code, out

    return check


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"v": _GONE}, 'line 2: has no "v"; this reader reads version 1'),
        ({"v": True}, "line 2: has envelope version true; this reader reads version 1"),
        ({"v": None}, "line 2: has envelope version null; this reader reads version 1"),
        ({"v": "1"}, 'line 2: has envelope version "1"; this reader reads version 1'),
        ({"type": ""}, 'line 2: has type "", not a non-empty string'),
    ],
)
def test_a_v1_refusal_names_its_line_and_quotes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, Any], said: str
) -> None:
    path = _v1_file(tmp_path / "s.jsonl", _message(**change))
    before = path.read_bytes()
    _refused_alike(capsys, path, said, line=2)
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({}, "declares no format version (no data.version)"),
        ([1], "declares no format version (no data.version)"),
        ({"version": None}, "declares format version null"),
        ({"version": "1"}, 'declares format version "1"'),
        ({"version": 2}, "declares format version 2"),
    ],
)
def test_an_agentgo_version_refusal_quotes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: Any, said: str
) -> None:
    path = tmp_path / "a.jsonl"
    with AgentGoSession.create(path) as s:
        s.begin_run().close()
    lines = path.read_bytes().splitlines(keepends=True)
    first = orjson.loads(lines[0])
    first["data"] = data
    path.write_bytes(orjson.dumps(first) + b"\n" + b"".join(lines[1:]))
    code, out, _err = run_cli(capsys, "check", str(path))
    assert code == 1
    assert out == f"{path}: bad: line 1: {said}; this reader reads version 1\n"


def test_a_written_value_is_quoted_as_json_inert_and_cut() -> None:
    assert [as_written(v) for v in (None, True, "a", 1.5, [1])] == [
        "null",
        "true",
        '"a"',
        "1.5",
        "[1]",
    ]
    assert "\x1b" not in as_written("\x1b[31mred")
    assert as_written("\x1b\x9b\x7f\u202e") == '"\\u001b\\u009b\\u007f\\u202e"'  # (as JSON escapes)
    assert len(as_written("x" * 500)) == 80


@pytest.mark.parametrize(
    ("second", "third", "said"),
    [
        (
            _envelope("tool-settled", {"op-id": "nope", "outcome": True}, 2),
            None,
            "line 2: the tool-settled line has outcome true; a settled operation is one of",
        ),
        (
            _envelope("tool-settled", {"op-id": "nope", "outcome": "completed"}, 2),
            None,
            'line 2: the tool-settled line settles "nope", which is not an operation',
        ),
        (
            _message(),
            _envelope("compaction", {"summary": "s", "replaces-through-id": 'zz"q'}, 3),
            'line 3: the compaction replaces through "zz\\"q", which is not a message',
        ),
        (  # (C1 was Python's ``\x9b`` beside JSON's ``\u001b``: one rule, JSON's)
            _message(),
            _envelope("compaction", {"summary": "s", "replaces-through-id": "\x1b[1\x9b2\x7f"}, 3),
            'line 3: the compaction replaces through "\\u001b[1\\u009b2\\u007f", which is not',
        ),
        (
            _message(),
            _envelope("elision", {"items": [{"id": "gone", "stub": "s"}]}, 3),
            'line 3: the elision stubs "gone", which is not a message',
        ),
    ],
)
def test_a_v1_replay_refusal_quotes_json(
    checked: _Checked, second: _Line, third: _Line | None, said: str
) -> None:
    """The replay's refusals (a settle, a compaction's or an elision's target) quote the
    value as the file wrote it, not Python's ``True`` or ``'nope'``."""
    _path, code, out = checked(_meta_and(second, third))
    assert code == 1 and said in out, out


_SETTLE = "line 2: the tool-settled line has"
_OUTCOMES = "; a settled operation is one of completed, failed, outcome-unknown"


@pytest.mark.parametrize(
    ("second", "third", "said"),
    [
        (_envelope("tool-settled", {"outcome": "completed"}, 2), None, f"{_SETTLE} no op-id"),
        (
            _envelope("tool-settled", {"op-id": 5, "outcome": "completed"}, 2),
            None,
            f"{_SETTLE} op-id 5, not a non-empty string",
        ),
        (
            _envelope("tool-settled", {"op-id": None, "outcome": "completed"}, 2),
            None,
            f"{_SETTLE} op-id null, not a non-empty string",
        ),
        (_envelope("tool-settled", {"op-id": "x"}, 2), None, f"{_SETTLE} no outcome{_OUTCOMES}"),
        (
            _envelope("tool-settled", {"op-id": "x", "outcome": None}, 2),
            None,
            f"{_SETTLE} outcome null{_OUTCOMES}",
        ),
        (
            _message(),
            _envelope("compaction", {"summary": "s", "replaces-through-id": 5}, 3),
            "line 3: the compaction has replaces-through-id 5, not a string",
        ),
        (
            _message(),
            _envelope("compaction", {"summary": "s"}, 3),
            "line 3: the compaction has no replaces-through-id",
        ),
        (
            _message(),
            _envelope("elision", {"items": "x"}, 3),
            'line 3: the elision has items "x", not a list',
        ),
        (_message(), _envelope("elision", {}, 3), "line 3: the elision has no items"),
        (
            _message(),
            _envelope("elision", {"items": [{"id": 7, "stub": "s"}]}, 3),
            "line 3: the elision item 0 has id 7, not a non-empty string",
        ),
        (
            _message(),
            _envelope("elision", {"items": [{"id": MESSAGE_ID}]}, 3),
            "line 3: the elision item 0 has no stub",
        ),
        (_message(type=None), None, "line 2: has type null, not a non-empty string"),
        (_message(type=_GONE), None, "line 2: has no type"),
    ],
)
def test_a_refusal_says_a_key_left_out_missing_and_a_value_written_as_written(
    checked: _Checked, second: _Line, third: _Line | None, said: str
) -> None:
    """One rule (audit E-F6): ``"op-id": 5`` was "has no op-id", a missing ``outcome``
    "has outcome null"; a key the line left out is missing, a value it wrote is quoted,
    on the plain path and the index pass's (``null`` decodes there as a key left out)."""
    path, code, out = checked(_meta_and(second, third))
    assert code == 1 and out == f"{path}: bad: {said}\n"
    with pytest.raises(TranscriptError) as refused:
        Session.load(path)
    assert str(refused.value).endswith(said)


@pytest.mark.parametrize(
    ("section", "said"),
    [
        ({"name": 5, "digest": "d", "rendered": "r"}, "section 0 has name 5, not a non-blank"),
        ({"name": "n", "rendered": "r"}, "section 0 has no digest"),
        ({"name": "n", "digest": "d", "rendered": None}, "section 0 has rendered null, not a"),
    ],
)
def test_an_append_refusal_says_a_section_key_by_the_same_rule(
    tmp_path: Path, section: dict[str, Any], said: str
) -> None:
    path = tmp_path / "s.jsonl"
    with Session.create(path, {}) as session:
        before = path.read_bytes()
        with pytest.raises(TranscriptError) as refused:
            session.append_run_context("r1", "c1" * 32, [], [section])
        assert said in str(refused.value), str(refused.value)
    assert path.read_bytes() == before


_BIG = "(beyond a double)"  # dumped as a string, then written as the number 1e999


@pytest.mark.parametrize(
    ("second", "third", "said"),
    [
        (
            _envelope("tool-settled", {"op-id": _BIG, "outcome": "completed"}, 2),
            None,
            f"{_SETTLE} op-id 1e999, not a non-empty string",
        ),
        (
            _envelope("tool-settled", {"op-id": "x", "outcome": _BIG}, 2),
            None,
            f"{_SETTLE} outcome 1e999{_OUTCOMES}",
        ),
        (
            _message(),
            _envelope("compaction", {"summary": "s", "replaces-through-id": _BIG}, 3),
            "line 3: the compaction has replaces-through-id 1e999, not a string",
        ),
        (
            _message(),
            _envelope("elision", {"items": _BIG}, 3),
            "line 3: the elision has items 1e999, not a list",
        ),
        (
            _message(),
            _envelope("elision", {"items": [{"id": MESSAGE_ID, "stub": "s"}, {"id": _BIG}]}, 3),
            "line 3: the elision item 1 has id 1e999, not a non-empty string",
        ),
        (
            _message(),
            _envelope("elision", {"items": [{"id": MESSAGE_ID, "stub": _BIG}]}, 3),
            "line 3: the elision item 0 has stub 1e999, not a string",
        ),
        (_message(type=_BIG), None, "line 2: has type 1e999, not a non-empty string"),
    ],
)
def test_a_number_beyond_a_double_is_quoted_as_written_by_every_refusal(
    checked: _Checked, second: _Line, third: _Line | None, said: str
) -> None:
    """One rule (``field_said``) for every refusal of a field: a number beyond a double
    (read as infinity) is quoted as the line wrote it, in a whole read (``check``) and in
    a followed one (``LiveTranscript``), not described ("a number beyond a double")."""
    from helpers import follow_into

    from session_core.live import LiveTranscript

    path, code, out = checked(_meta_and(second, third).replace(orjson.dumps(_BIG), b"1e999"))
    assert code == 1 and said in out, out
    live = LiveTranscript(str(path))
    follow_into(live.apply, path, 1 << 10, False)
    warnings = live.state.warnings
    assert any(f"{said} (not applied)" in w for w in warnings), warnings


@pytest.mark.parametrize(
    ("v", "said"),
    [
        (_GONE, 'line 1: has no "v"; this reader reads version 1'),
        (2, "line 1: has envelope version 2; this reader reads version 1"),
    ],
)
def test_a_session_meta_line_without_v_is_v1s_and_said_to_lack_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], v: Any, said: str
) -> None:
    """A line whose type is ``session-meta`` is v1's: one without ``"v"`` was "not a
    transcript" to ``check``, ``replay`` and ``peek`` (an audit), where ``Session.load``
    said ``has no "v"`` and a ``"v": 2`` was said to be version 2."""
    path = _v1_file(tmp_path / "s.jsonl", _message())
    lines = path.read_bytes().splitlines(keepends=True)
    meta = orjson.loads(lines[0])
    meta.pop("v")
    if v is not _GONE:
        meta["v"] = v
    path.write_bytes(orjson.dumps(meta) + b"\n" + b"".join(lines[1:]))
    _refused_alike(capsys, path, said, line=1)
    assert detect_format(path) == "transcript-v1"
    assert "not a transcript" not in str(peek(path).error)
