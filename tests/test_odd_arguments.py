"""What the API and the commands say of odd input: a byte order mark, a path that is no
path, a file that cannot be read (api.md: ``peek`` never raises; every refusal is a
``TranscriptError`` that names the file)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from format_fixtures import FACTORIES
from helpers import file_permissions_apply, run_cli

from session_core import (
    Message,
    Session,
    TranscriptError,
    agentgo,
    detect_format,
    follow,
    open_transcript,
    peek,
)
from session_core.agentgo import AgentGoSession
from session_core.formats import by_name


@pytest.mark.parametrize("name", sorted(n for n in FACTORIES if not by_name(n).reads_bom))
def test_a_byte_order_mark_is_named(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A format that reads no byte order mark (v1's does: test_v1_byte_order_mark)."""
    sample = FACTORIES[name](tmp_path)
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + sample.read_bytes())
    code, _out, err = run_cli(capsys, "replay", str(path))
    assert code == 1 and "byte order mark" in err and "UTF-8" not in err
    assert "byte order mark" in str(peek(path).error)


def test_a_path_that_is_no_path_is_refused_in_words() -> None:
    result = peek(123)  # type: ignore[arg-type]
    assert result.error == "123: a path is needed, not int"  # (PATH: reason, as given)
    assert detect_format("a\x00b") is None
    with pytest.raises(TranscriptError, match="NUL"):
        open_transcript("a\x00b")


def _refusals(path: str | bytes) -> list[str]:
    """What ``peek``, ``open_transcript``, ``Session.load``, ``Session.create`` and
    ``follow`` say of ``path``."""
    said = [str(peek(path).error)]
    for opener in (open_transcript, Session.load, Session.create):
        with pytest.raises(TranscriptError) as refused:
            opener(path)  # type: ignore[operator]
        said.append(str(refused.value))

    async def follow_it() -> None:
        async for _update in follow(path):  # type: ignore[arg-type]
            break

    with pytest.raises(TranscriptError) as refused:
        asyncio.run(follow_it())
    return [*said, str(refused.value)]


def test_a_path_with_a_nul_is_no_path_to_every_entry_point() -> None:
    """``Session.load`` said "there is no such file" (``peek`` and ``open_transcript``
    "is no path"), ``open_transcript`` named it ``'x\\x00y'``, ``peek`` with the NUL in
    it, and ``follow`` let ``ValueError`` out: one rule (``reader.no_path``), the path
    named as every path is (``text.name_line``: ␀)."""
    assert _refusals("x\x00y") == ["x␀y: is no path (it holds a NUL byte)"] * 5
    assert _refusals(b"x\x00y") == ["x␀y: is no path (it holds a NUL byte)"] * 5


@pytest.mark.parametrize("path", [b"odd-\xff\xfe.jsonl", "odd-\udcff\udcfe.jsonl"])
def test_a_name_that_is_not_utf8_is_named_alike_everywhere(path: str | bytes) -> None:
    """``peek``'s error held the name's undecodable bytes as lone surrogates (printed as
    U+FFFD), where ``open_transcript``'s said ``\\udcff``: every refusal names them so."""
    named = "odd-\\udcff\\udcfe.jsonl"
    assert str(peek(path).error) == f"{named}: there is no such file"
    with pytest.raises(TranscriptError) as refused:
        open_transcript(path)  # type: ignore[arg-type]
    assert str(refused.value) == f"{named}: there is no such file"
    with pytest.raises(TranscriptError) as refused:
        Session.load(path)  # type: ignore[arg-type]
    assert str(refused.value) == f"{named}: there is no such file"
    assert peek("a\x1b[31mb\tc").error == "a␛[31mb␉c: there is no such file"  # (inert)


@pytest.mark.parametrize("path", [None, 123, 1.5, ["a.jsonl"]])
def test_a_path_of_another_type_is_refused_as_a_transcript_error(path: object) -> None:
    """(An audit: ``open_transcript`` and ``Session.load`` let ``TypeError`` out.)"""
    assert detect_format(path) is None  # type: ignore[arg-type]
    with pytest.raises(TranscriptError, match="a path is needed"):
        open_transcript(path)  # type: ignore[arg-type]
    with pytest.raises(TranscriptError, match="a path is needed"):
        Session.load(path)  # type: ignore[arg-type]


@pytest.mark.parametrize("path", [None, 123, ["a.jsonl"]])
def test_agentgo_refuses_a_path_of_another_type_as_v1_does(path: object) -> None:
    """(An audit: agentgo's writer and readers let ``TypeError`` out, where v1's say
    ``a path is needed, not int``.)"""
    entries = [
        AgentGoSession.create,
        AgentGoSession.open,
        lambda p: list(agentgo.read(p)),
        agentgo.read_view,
        lambda p: Session.create(p, meta={}),
    ]
    for entry in entries:
        with pytest.raises(TranscriptError) as refused:
            entry(path)
        assert str(refused.value) == f"{path}: a path is needed, not {type(path).__name__}"


@pytest.mark.parametrize("name", ["transcript-v1", "codex"])
def test_agentgo_read_of_another_format_says_what_it_is(name: str, tmp_path: Path) -> None:
    """``agentgo.read`` of a v1 file said ``has no integer seq``, where
    ``AgentGoSession.open`` says which format the file is."""
    path = FACTORIES[name](tmp_path)
    said = f"{path}: line 1: is {name}, not agentgo-v1: "
    for entry, reader in [
        (lambda p: list(agentgo.read(p)), "agentgo.read reads"),
        (agentgo.read_view, "agentgo.read_view reads"),
        (AgentGoSession.open, "AgentGoSession.open continues"),
    ]:
        with pytest.raises(TranscriptError) as refused:
            entry(path)
        assert str(refused.value).startswith(said + reader + " agentgo-v1 files alone")


def test_a_path_given_as_bytes_is_read_as_its_name(tmp_path: Path) -> None:
    """``Session.create`` took a path as bytes and ``load`` raised ``TypeError`` on it."""
    path = tmp_path / "bytes.jsonl"
    with Session.create(bytes(path), meta={"agent": "t"}) as session:
        session.append_message(Message(role="user", content="hi"))
    with Session.load(bytes(path)) as session:
        assert [m.content for m in session.messages()] == ["hi"]
    assert open_transcript(bytes(path)).messages[0].text == "hi"  # type: ignore[arg-type]


def test_a_file_that_opens_but_cannot_be_read_is_refused_in_words() -> None:
    """``/proc/self/mem`` opens, then every read says EIO: a ``TranscriptError`` (it let
    ``OSError`` out of ``open_transcript``), as ``Session.load`` and ``peek`` said."""
    if not Path("/proc/self/mem").exists():
        pytest.skip("no /proc here")
    with pytest.raises(TranscriptError, match="cannot be read"):
        open_transcript("/proc/self/mem")
    assert peek("/proc/self/mem").error is not None


@pytest.mark.parametrize("calls", [(5,), ("abc",), "abc", 5, ({"id": "c1"}, None)])
def test_tool_calls_that_are_not_mappings_are_refused_before_a_byte_is_written(
    tmp_path: Path, calls: object
) -> None:
    """(An audit: ``TypeError`` and ``ValueError`` escaped ``append_message``.)"""
    path = tmp_path / "calls.jsonl"
    with Session.create(path, meta={"agent": "t"}) as session:
        size = path.stat().st_size
        with pytest.raises(TranscriptError, match="tool_calls must be a list of mappings"):
            session.append_message(Message(role="assistant", content="", tool_calls=calls))  # type: ignore[arg-type]
        assert path.stat().st_size == size and len(session) == 1
        session.append_message(Message(role="assistant", content="", tool_calls=(GOOD,)))
        session.append_message(Message(role="assistant", content="x", tool_calls=None))  # type: ignore[arg-type]
        assert "tool-calls" not in session.events()[-1]["payload"]  # (None: no calls)


GOOD = {"id": "c1", "type": "function", "function": {"name": "sh", "arguments": "{}"}}


@pytest.mark.parametrize(
    "call",
    [
        {"id": "c1", "type": "function"},  # no function
        {**GOOD, "id": ""},
        {**GOOD, "id": 7},
        {**GOOD, "type": "tool"},
        {**GOOD, "function": "sh"},
        {**GOOD, "function": {"name": 5, "arguments": "{}"}},
        {**GOOD, "function": {"name": "sh", "arguments": {"a": 1}}},  # (a JSON string)
    ],
)
def test_a_tool_call_of_another_shape_than_the_specs_is_refused(
    tmp_path: Path, call: dict[str, object]
) -> None:
    """(the writer took them, and the replay read a call of no id as "", of no function
    as a tool named "": the spec audit)"""
    path = tmp_path / "calls.jsonl"
    with Session.create(path, meta={"agent": "t"}) as session:
        size = path.stat().st_size
        with pytest.raises(TranscriptError, match="a tool call is"):
            session.append_message(Message(role="assistant", content="", tool_calls=(call,)))
        assert path.stat().st_size == size
        session.append_message(Message(role="assistant", content="", tool_calls=(GOOD,)))


def test_peek_sizes_a_file_it_cannot_read(tmp_path: Path) -> None:
    path = FACTORIES["transcript-v1"](tmp_path)
    size = path.stat().st_size
    path.chmod(0)
    try:
        with file_permissions_apply():
            result = peek(path)
    finally:
        path.chmod(0o644)
    assert result.error is not None and "Permission denied" in result.error
    assert result.size == size > 0


def test_check_says_a_bad_middle_line_is_damage_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claude Code and Codex: replay keeps such a line with a warning, check calls the file
    bad; its words say why, not "was kept as it is" beside "bad"."""
    for name in ("claude-code", "codex"):
        sample = FACTORIES[name](tmp_path / name)
        lines = sample.read_bytes().split(b"\n")
        lines[3] = b"{not json"
        sample.write_bytes(b"\n".join(lines))
        code, out, _err = run_cli(capsys, "check", str(sample))
        assert code == 1 and "line 4: is not valid JSON: damage" in out, out
        assert "kept as it is, " not in out and "was kept" not in out
