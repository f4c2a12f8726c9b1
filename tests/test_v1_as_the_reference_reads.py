"""transcript-v1 lines read as its reference (``LLM::Agent::Session``, under JSON::Fast)
reads them, where a differential run against the reference itself found them read
otherwise: a lone surrogate escape is no JSON (so load and replay agree on a last line
that holds one), a number beyond a double is (peek read it as no JSON), a line of only
Unicode white space is blank, and peek's warning says what the spec says."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from test_lazy_events import followed

from session_core import RefusedAppendError, Session, TranscriptError, peek
from session_core.line_warnings import unfinished_line
from session_core.reader import is_blank, replay_file
from viewer.cli import main

META = b'{"id":"m","payload":{},"ts":"2026-08-09T12:00:00.000000Z","type":"session-meta","v":1}'


def message(ident: str, content: bytes, extra: bytes = b"") -> bytes:
    return (
        b'{"id":"'
        + ident.encode()
        + b'","payload":{"content":"'
        + content
        + b'","role":"user"'
        + extra
        + b'},"ts":"2026-08-09T12:00:01.000000Z","type":"message","v":1}'
    )


def written(tmp_path: Path, *lines: bytes, end: bytes = b"\n") -> Path:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"\n".join(lines) + end)
    return path


LONE = message("cut", b"cut \\ud83d")


def test_a_lone_surrogate_escape_mid_file_is_damage(tmp_path: Path) -> None:
    path = written(tmp_path, META, LONE, message("b", b"hello"))
    with pytest.raises(TranscriptError) as err:
        replay_file(path, tolerate_tail=True)
    assert err.value.line == 2 and "a lone UTF-16 surrogate escape" in err.value.reason
    with pytest.raises(TranscriptError):
        Session.load(path)
    assert main(["check", str(path)]) == 1
    seen = peek(path)  # (what the file says: that line skipped, said so)
    assert seen.warnings == ["line 2 could not be read, and was skipped"]
    assert [m.content for m in seen.messages] == ["hello"]
    live = followed(path, 1 << 16).state  # the viewer's way: a warning, the rest read
    assert [e["id"] for e in live.events] == ["m", "b"]
    assert live.warnings == [
        "line 2 could not be read (has a lone UTF-16 surrogate escape), and was skipped"
    ]


def test_a_last_line_with_one_is_the_crash_tail_load_cuts(tmp_path: Path) -> None:
    """Replay showed it as a message that ``load`` then cut off as a crash tail."""
    path = written(tmp_path, META, message("a", b"hi"), LONE)
    replayed = replay_file(path, tolerate_tail=True)
    assert replayed.message_ids() == ["a"]
    said = "line 3 is not whole JSON: the writer left it unfinished, and it is not read"
    assert replayed.warnings == [unfinished_line(3, len(LONE), LONE, ended=True)]
    assert replayed.warnings[0].startswith(f"{said} (a crash tail); its ")
    copy = shutil.copy(path, tmp_path / "copy.jsonl")
    with Session.load(copy) as s:
        assert s.message_ids() == ["a"]
    assert Path(copy).read_bytes() == META + b"\n" + message("a", b"hi") + b"\n"


def test_a_number_beyond_a_double_is_json(tmp_path: Path) -> None:
    path = written(tmp_path, META, message("a", b"x", b',"n":1e400'), message("b", b"y"))
    assert replay_file(path, tolerate_tail=True).message_ids() == ["a", "b"]
    seen = peek(path)
    assert seen.warnings == [] and [e["id"] for e in seen.envelopes] == ["m", "a", "b"]
    assert main(["check", str(path)]) == 0


@pytest.mark.parametrize(
    "space", ["\u00a0", "\u3000", "\u2028", "\u0085", " \u2003\t", "\u202f\u205f\u1680"]
)
def test_a_line_of_unicode_white_space_is_blank(tmp_path: Path, space: str) -> None:
    path = written(tmp_path, META, space.encode(), message("a", b"x"), space.encode())
    assert is_blank(space.encode())
    assert replay_file(path, tolerate_tail=True).message_ids() == ["a"]
    assert replay_file(path, tolerate_tail=True).warnings == []
    assert peek(path).warnings == [] and main(["check", str(path)]) == 0
    assert [e["id"] for e in followed(path, 1 << 16).state.events] == ["m", "a"]
    with Session.load(shutil.copy(path, tmp_path / "copy.jsonl")) as s:
        assert s.message_ids() == ["a"]


@pytest.mark.parametrize("other", ["\x1c", "\x1f", "\u200b", "\ufeff"])
def test_what_is_not_white_space_to_unicode_is_not_blank(other: str) -> None:
    """Python's ``str.strip`` takes U+001C-U+001F too; Unicode's White_Space (the
    reference's ``.trim``) does not, nor a zero-width space."""
    assert not is_blank(other.encode())


def test_peeks_warning_is_the_specs(tmp_path: Path) -> None:
    path = written(tmp_path, META, message("a", b"x"), b'{"v":1,"type":"mess', end=b"")
    assert peek(path).warnings == ["line 3 could not be read, and was skipped"]


def test_odd_message_values_are_made_what_the_reference_makes_of_them(tmp_path: Path) -> None:
    """Its ``message-from``: ``content.Str``, ``depth.Int``, ``so sticky`` (no writer
    writes these; a hand-made file reads alike in both)."""
    lines = [
        b'{"content":{"x":1},"role":"user"}',
        b'{"content":["a",2,true,null],"role":"user","depth":true}',
        b'{"content":2.0,"role":"assistant","sticky":"0","depth":2.7}',
        b'{"content":null,"tool-call-id":7,"role":"tool","sysprompt":"1"}',
    ]
    path = written(
        tmp_path,
        META,
        *(
            b'{"id":"m%d","payload":%s,"ts":"2026-08-09T12:00:01.000000Z","type":"message","v":1}'
            % (n, line)
            for n, line in enumerate(lines)
        ),
    )
    for messages in (replay_file(path, tolerate_tail=True).messages(), peek(path).messages):
        assert [m.content for m in messages] == ["x\t1", "a 2 True ", "2", ""]
        assert [m.depth for m in messages] == [None, 1, 2, None]
        # (Raku's ``so "0"`` is true, as Python's ``bool("0")``: a differential run said so)
        assert [(m.sticky, m.sysprompt) for m in messages][2:] == [(True, False), (False, True)]
        assert messages[3].tool_call_id == "7"


@pytest.mark.parametrize(
    ("seconds", "written"),
    [(2.4e-6, b"0.000002"), (5e-5, b"0.00005"), (0.1234567, b"0.123457"), (2, b"2.0")],
)
def test_a_duration_is_written_as_the_reference_writes_it(
    tmp_path: Path, seconds: float, written: bytes
) -> None:
    """To the microsecond, as a decimal: JSON::Fast writes ``0.000002`` where orjson's
    shortest form of the float is ``2e-6``."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, {}) as s:
        op = s.append_tool_dispatched("call_1", "run", {})
        s.append_tool_settled(op, "completed", duration=seconds)
        assert s.events()[-1]["payload"]["duration"] == float(written)
    assert b'"duration":' + written + b"," in path.read_bytes().splitlines()[-1]
    with Session.load(path) as again:
        assert again.events()[-1]["payload"]["duration"] == float(written)


@pytest.mark.parametrize("seconds", [float("nan"), float("inf"), -float("inf"), 10**400, 1e305])
def test_a_duration_that_is_no_finite_number_is_refused(tmp_path: Path, seconds: float) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path, {}) as s:
        op = s.append_tool_dispatched("call_1", "run", {})
        before = path.read_bytes()
        with pytest.raises(RefusedAppendError, match="duration"):
            s.append_tool_settled(op, "completed", duration=seconds)
    assert path.read_bytes() == before


def test_a_refusal_quotes_a_number_beyond_a_double_as_written_not_null(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Read as infinity, which JSON writes ``null``: a refusal said ``envelope version
    null`` of a line whose ``v`` is ``2E999``. Quoted as the line wrote it where the line
    is at hand (a whole read, a follow), else said to be beyond a double."""
    bad = message("a", b"x").replace(b'"v":1', b'"v":2E999')
    path = written(tmp_path, META, bad, message("b", b"y"))
    with pytest.raises(TranscriptError) as err:
        replay_file(path, tolerate_tail=True)
    assert err.value.reason == "has envelope version 2E999; this reader reads version 1"
    assert main(["check", str(path)]) == 1
    assert "envelope version 2E999;" in capsys.readouterr().out
    live = followed(path, 1 << 16).state
    assert any("envelope version 2E999;" in w for w in live.warnings), live.warnings
    typed = message("a", b"x").replace(b'"type":"message"', b'"type":[1e400,null]')
    path = written(tmp_path, META, typed)
    with pytest.raises(TranscriptError) as err:
        replay_file(path, tolerate_tail=True)
    assert err.value.reason == "has type [1e400,null], not a non-empty string"
    settle = (
        b'{"id":"s","payload":{"op-id":"o","outcome":1e400},'
        b'"ts":"2026-08-09T12:00:01.000000Z","type":"tool-settled","v":1}'
    )
    path = written(tmp_path, META, settle)
    with pytest.raises(TranscriptError) as err:
        replay_file(path, tolerate_tail=True)
    assert "has outcome 1e400;" in err.value.reason, err.value.reason  # (the line at hand)
