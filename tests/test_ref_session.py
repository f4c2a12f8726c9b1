"""The transcript as a file: what one line looks like, when it reaches the disk, and
what a session refuses to do.

Ported scenario by scenario from the reference module's ``t/07-session.rakutest``
(m-doughty/LLM-Agent); resuming a transcript (``t/08-session-resume.rakutest``) is the job
of ``test_ref_round_trip.py``, ``test_ref_compactions.py``, ``test_ref_damage.py`` and
``test_ref_run_contexts.py``.
"""

from __future__ import annotations

import dataclasses
import json
import re
import resource
import signal
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
from ref_helpers import call, file_lines, reading, written_last

from session_core import Message, Session, TranscriptError, peek

TS_SHAPE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")


# --- helpers ------------------------------------------------------------------------


def file_envelopes(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in file_lines(path)]


# --- scenarios ----------------------------------------------------------------------


def test_meta_line_comes_first_and_is_exactly_what_was_passed(create) -> None:
    s, path = create({"agent": "sadna", "cwd": "/srv"})

    lines = file_lines(path)
    assert len(lines) == 1
    first = orjson.loads(lines[0])
    assert set(first) == {"id", "payload", "ts", "type", "v"}
    assert first["v"] == 1
    assert first["type"] == "session-meta"
    # The caller's object, verbatim: nothing added to it.
    assert first["payload"] == {"agent": "sadna", "cwd": "/srv"}
    assert first["id"]
    assert str(uuid.UUID(first["id"])) == first["id"]
    assert uuid.UUID(first["id"]).version == 4
    assert TS_SHAPE.match(first["ts"]), first["ts"]

    assert s.meta() == {"agent": "sadna", "cwd": "/srv"}


def test_every_line_is_on_disk_before_the_method_returns(create) -> None:
    s, path = create()

    # Read through a second handle while the session is still open: nothing may be
    # sitting in a user-space buffer waiting for close().
    assert len(file_lines(path)) == 1

    s.append_message(Message(role="user", content="hello"))
    lines = file_lines(path)
    assert len(lines) == 2
    assert orjson.loads(lines[1])["payload"]["content"] == "hello"


def test_a_message_line_carries_the_message_and_extras_carry_the_rest(create) -> None:
    s, path = create()

    msg = Message(
        role="assistant", content="thinking about it", tool_calls=(call("c1", "fs_read"),)
    )
    env_id = s.append_message(
        msg, extra={"reasoning": "first I will read it", "usage": {"prompt-tokens": 12}}
    )

    line = written_last(path, env_id, "message")
    assert line["payload"]["role"] == "assistant"
    assert line["payload"]["tool-calls"][0]["id"] == "c1"
    assert line["payload"]["tool-calls"] == [call("c1", "fs_read")]
    # Extras sit beside the message keys, at the top level of the payload.
    assert line["payload"]["reasoning"] == "first I will read it"
    assert line["payload"]["usage"]["prompt-tokens"] == 12
    # Optional message keys appear only when set.
    assert set(line["payload"]) == {"role", "content", "tool-calls", "reasoning", "usage"}

    # A rebuilt Message has nowhere to put the extras, so they are dropped.
    replayed = s.messages()[0]
    assert replayed == msg
    assert set(dataclasses.asdict(replayed)) == {f.name for f in dataclasses.fields(Message)}
    # ...while the line keeps them, as written.
    assert s.events()[-1]["payload"]["reasoning"] == "first I will read it"


def test_an_extra_can_never_overwrite_the_message_itself(create) -> None:
    s, path = create()

    s.append_message(
        Message(role="user", content="the real content"),
        extra={"role": "assistant", "content": "a lie"},
    )

    assert s.messages()[0].role == "user"
    assert s.messages()[0].content == "the real content"
    payload = orjson.loads(file_lines(path)[-1])["payload"]
    assert payload["role"] == "user"
    assert payload["content"] == "the real content"


def test_grants_are_a_whole_snapshot_and_the_last_one_wins(create) -> None:
    s, _ = create()

    assert list(s.grants()) == []

    s.append_grants([{"tool": "fs_read", "decision": "allow"}])
    s.append_grants(
        [
            {"tool": "fs_read", "decision": "allow"},
            {"tool": "fs_write", "decision": "allow", "under": "/srv/scratch"},
        ]
    )

    grants = s.grants()
    assert len(grants) == 2
    assert grants[1]["under"] == "/srv/scratch"
    assert grants[1] == {"tool": "fs_write", "decision": "allow", "under": "/srv/scratch"}


def test_a_run_context_is_refused_before_it_is_written_or_not_at_all(create) -> None:
    s, path = create()

    def append(**overrides: Any) -> str:
        args: dict[str, Any] = {
            "run_id": "r1",
            "digest": "d1",
            "facts": [("date", "today")],
            "sections": [{"name": "identity", "digest": "ds", "rendered": "I"}],
        }
        args.update(overrides)
        return s.append_run_context(**args)

    env_id = append()
    assert isinstance(env_id, str)
    assert env_id
    assert len(s) == 2
    assert s.messages() == []
    assert s.message_ids() == []

    # Facts are ordered [key, value] rows, not an object: an object has no order.
    facts = s.events()[-1]["payload"]["facts"]
    assert [list(row) for row in facts] == [["date", "today"]]
    on_disk = orjson.loads(file_lines(path)[-1])
    assert on_disk["type"] == "run-context"
    assert on_disk["payload"]["facts"] == [["date", "today"]]
    assert on_disk["payload"]["run-id"] == "r1"
    assert on_disk["payload"]["digest"] == "d1"
    assert on_disk["payload"]["sections"] == [{"name": "identity", "digest": "ds", "rendered": "I"}]

    before = path.read_bytes()
    # No run to belong to.
    with pytest.raises(TranscriptError):
        append(run_id="  ")
    # Nothing to compare by.
    with pytest.raises(TranscriptError):
        append(digest="")
    # A fact must be a (key, value) pair.
    with pytest.raises(TranscriptError):
        append(facts=["date"])
    with pytest.raises(TranscriptError):
        append(facts=[("a", "b", "c")])
    # A section with no body leaves nothing to store, or to point at later.
    with pytest.raises(TranscriptError):
        append(sections=[{"name": "x", "digest": "y"}])

    assert path.read_bytes() == before
    assert len(s) == 2
    assert len(s.run_contexts()) == 1


def test_an_elision_is_refused_before_it_is_written_or_not_at_all(create) -> None:
    s, path = create()

    s.append_message(reading())
    two = s.append_message(Message(role="tool", content="A" * 40, tool_call_id="c1"))

    stub = "[elided by the harness: 40-char result]"
    env_id = s.append_elision([{"id": two, "stub": stub}])
    assert isinstance(env_id, str)
    assert env_id
    assert len(s) == 4
    last = s.events()[-1]
    assert last["type"] == "elision"
    assert [item["id"] for item in last["payload"]["items"]] == [two]
    on_disk = orjson.loads(file_lines(path)[-1])
    assert on_disk["id"] == env_id
    assert on_disk["payload"] == {"items": [{"id": two, "stub": stub}]}

    # Same length: an elision adds and removes nothing...
    messages = s.messages()
    assert len(messages) == 2
    # ...the stub is the new content, and everything else stays put.
    assert messages[1].content == stub
    assert messages[1].tool_call_id == "c1"
    assert messages[1].role == "tool"

    before = path.read_bytes()
    # An elision that stubs nothing is not worth a line.
    with pytest.raises(TranscriptError):
        s.append_elision([])
    # One naming a message that is not here is refused before the write.
    with pytest.raises(TranscriptError):
        s.append_elision([{"id": "no-such-id", "stub": "x"}])
    # An item without a string stub or id, which a replay refuses: it was written, its
    # stub made "" or "3" (the API audit).
    for item in ({"id": two}, {"id": two, "stub": 3}, {"id": two, "stub": None}, {"stub": "x"}):
        with pytest.raises(TranscriptError, match="string id and a string stub"):
            s.append_elision([item])
    assert path.read_bytes() == before
    assert len(s) == 4


def test_the_escape_hatch_writes_unknown_types_and_refuses_known_ones(create) -> None:
    s, path = create()

    s.append_message(Message(role="user", content="hi"))
    env_id = s.append_event(type="app-checkpoint", payload={"step": 3})

    assert isinstance(env_id, str)
    assert env_id
    last = s.events()[-1]
    assert last["type"] == "app-checkpoint"
    assert last["payload"] == {"step": 3}
    assert len(s.messages()) == 1
    on_disk = written_last(path, env_id, "app-checkpoint")
    assert on_disk["payload"] == {"step": 3}

    before = path.read_bytes()
    # A built-in type has to go through its own appender.
    with pytest.raises(TranscriptError):
        s.append_event(type="message", payload={})
    # And a type has to be something.
    with pytest.raises(TranscriptError):
        s.append_event(type="  ", payload={})
    with pytest.raises(TranscriptError):
        s.append_event(type="", payload={})
    assert path.read_bytes() == before


def test_events_is_a_copy_nested_payload_included(create) -> None:
    s, _ = create()

    s.append_message(
        Message(role="assistant", content="", tool_calls=(call("c1", "fs_read", '{"path":"a"}'),))
    )

    before = s.events()
    before[-1]["payload"]["tool-calls"][0]["function"]["name"] = "sabotage"

    after = s.events()
    assert after[-1]["payload"]["tool-calls"][0]["function"]["name"] != "sabotage"
    assert after[-1]["payload"]["tool-calls"][0]["function"]["name"] == "fs_read"
    assert s.messages()[0].tool_calls[0]["function"]["name"] == "fs_read"


def test_peek_reads_a_transcript_without_touching_it(create, tmp_path: Path) -> None:
    s, path = create({"agent": "sadna"})
    s.append_message(Message(role="user", content="get it looked at"))
    s.append_message(
        Message(role="assistant", content="delegating", tool_calls=(call("c1", "task"),))
    )
    s.append_message(Message(role="tool", content="STATUS: started", tool_call_id="c1"))
    s.append_event(type="subagent-spawned", payload={"agent-id": "reviewer-1"})
    s.close()

    size_before = path.stat().st_size
    bytes_before = path.read_bytes()
    read = peek(path)

    assert read.error is None
    assert read.meta["agent"] == "sadna"
    assert read.size == size_before
    assert [m.role for m in read.messages] == ["user", "assistant", "tool"]
    assert len(read.messages[1].tool_calls) == 1
    assert read.messages[1].tool_calls[0] == call("c1", "task")
    assert [e["type"] for e in read.envelopes] == [
        "session-meta",
        "message",
        "message",
        "message",
        "subagent-spawned",
    ]
    assert list(read.warnings) == []
    assert path.read_bytes() == bytes_before

    # A crash tail: load would cut it off, peek must not (a live writer may be
    # halfway through that very line).
    with path.open("ab") as fh:
        fh.write(b'{"v":1,"type":"mess')
    bytes_after = path.read_bytes()
    tail = peek(path)

    assert tail.error is None
    assert len(tail.messages) == 3
    assert len(tail.warnings) == 1
    assert tail.warnings[0] == "line 6 could not be read, and was skipped"  # (the spec's words)
    assert path.read_bytes() == bytes_after
    assert not Path(str(path) + ".repair").exists()

    nowhere = peek(tmp_path / "nowhere.jsonl")
    assert isinstance(nowhere.error, str)
    assert nowhere.error
    assert not (tmp_path / "nowhere.jsonl").exists()


def test_message_ids_run_parallel_to_messages(create) -> None:
    s, _ = create()

    ids = [
        s.append_message(Message(role="user", content="one")),
        s.append_message(Message(role="assistant", content="two")),
    ]

    assert s.message_ids() == ids
    assert len(s.messages()) == len(s.message_ids())
    # len() counts envelopes (lines), the meta line included.
    assert len(s) == 3


def test_create_refuses_a_file_that_already_has_a_transcript(create, tmp_path: Path) -> None:
    s, path = create()
    s.append_message(Message(role="user", content="precious"))
    s.close()
    before = path.read_bytes()

    with pytest.raises(TranscriptError):
        Session.create(path, meta={})

    assert len(file_lines(path)) == 2
    assert path.read_bytes() == before

    # An empty file is not a transcript: a `touch` or a failed attempt leaves one.
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    fresh = Session.create(empty, meta={})
    fresh.close()
    assert [e["type"] for e in file_envelopes(empty)] == ["session-meta"]


def test_create_makes_missing_parent_directories(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "s.jsonl"
    s = Session.create(target, meta={"x": 1})
    s.close()
    assert file_envelopes(target)[0]["payload"] == {"x": 1}


def test_load_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    with pytest.raises(TranscriptError) as err:
        Session.load(missing)
    assert str(missing) in str(err.value)
    assert not missing.exists()

    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(TranscriptError):
        Session.load(empty)

    # Nor is the bare constructor a way in: a session is created or resumed.
    bare = tmp_path / "bare.jsonl"
    with pytest.raises((TypeError, TranscriptError)):
        Session(bare)  # type: ignore[call-arg]
    assert not bare.exists()


def test_a_second_writer_on_the_same_file_is_refused(create) -> None:
    # The reference only documents "one writer per file"; this project enforces it.
    s, path = create()
    s.append_message(Message(role="user", content="mine"))
    before = path.read_bytes()
    with pytest.raises(TranscriptError):
        Session.load(path)
    assert path.read_bytes() == before
    s.close()
    again = Session.load(path)
    again.close()


def test_a_closed_session_refuses_to_append_but_still_reads(create) -> None:
    s, path = create()
    s.append_message(Message(role="user", content="hello"))
    s.close()
    before = path.read_bytes()

    with pytest.raises(TranscriptError):
        s.append_message(Message(role="user", content="more"))

    assert len(s.messages()) == 1
    assert path.read_bytes() == before
    s.close()  # closing twice is harmless


def test_a_line_that_cannot_be_written_changes_nothing_in_memory(create) -> None:
    s, path = create()
    s.append_message(Message(role="user", content="landed"))
    size = path.stat().st_size

    # The closest a test gets to a full disk without reaching into the session's
    # internals: cap the file size at what is already there, so the next write
    # fails with EFBIG after the session has decided to make the append.
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    failures: list[BaseException] = []
    try:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
        for content in ("never", "nor this"):
            try:
                s.append_message(Message(role="assistant", content=content))
            except (OSError, TranscriptError) as exc:
                failures.append(exc)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, old_handler)

    # Both attempts fail rather than pretend...
    assert len(failures) == 2, failures
    # ...and everything the session reports is still exactly what is in the file.
    assert len(s.messages()) == 1
    assert len(s.message_ids()) == 1
    assert len(s.events()) == 2
    assert len(s) == 2
    assert len(file_lines(path)) == 2
    assert path.stat().st_size == size

    # With room again, the session carries on from where the file really is.
    s.append_message(Message(role="assistant", content="after all"))
    s.close()
    assert [e["payload"].get("content") for e in file_envelopes(path)] == [
        None,
        "landed",
        "after all",
    ]


def test_keys_are_serialised_in_a_stable_order(create) -> None:
    s, path = create()
    s.append_message(Message(role="user", content="hello", sticky=True, depth=0))
    s.close()

    raw = path.read_bytes()
    assert raw.endswith(b"\n")
    assert b"\r" not in raw
    line = file_lines(path)[-1]
    assert line.index(b'"id"') < line.index(b'"payload"')
    assert line.index(b'"type"') < line.index(b'"v"')
    # Sorted keys at every level, compact, one LF: checked with the standard library's own
    # encoder (the writer renders with orjson; comparing with orjson would be circular).
    # What the reference itself wrote is in test_raku_fixtures.py.
    for each in file_lines(path):
        parsed = json.loads(each)
        rendered = json.dumps(parsed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert each == rendered.encode()
    payload = orjson.loads(line)["payload"]
    assert payload == {"content": "hello", "depth": 0, "role": "user", "sticky": True}


def test_module_level_names_exist() -> None:
    # The public surface the specs name, importable from the package itself.
    import session_core
    from session_core.errors import TranscriptError as error_class
    from session_core.message import Message as message_class
    from session_core.peeking import peek as peek_function
    from session_core.session import Session as session_class

    assert session_core.Session is session_class
    assert session_core.Message is message_class
    assert session_core.peek is peek_function
    assert session_core.TranscriptError is error_class
    assert {"Session", "Message", "peek", "TranscriptError"} <= set(session_core.__all__)
    assert issubclass(TranscriptError, Exception)


@pytest.mark.parametrize(
    "call_it",
    [
        lambda s: s.append_message({"role": "user", "content": "x"}),
        lambda s: s.append_message(Message(role="user", content="x"), extra=5),
        lambda s: s.append_grants(5),
        lambda s: s.append_compaction(None, "id"),
        lambda s: s.append_compaction("summary", None),
        lambda s: s.append_compaction("summary", "id", tokens_before="many"),
        lambda s: s.append_elision(5),
        lambda s: s.append_tool_dispatched(None, "bash", {}),
        lambda s: s.append_tool_dispatched("c1", None, {}),
        lambda s: s.append_tool_dispatched("c1", "bash", [1, 2]),
        lambda s: s.append_tool_settled("op", "completed", duration="fast"),
        lambda s: s.append_tool_settled("op", "completed", reason=5),
        lambda s: s.append_run_context("r", "d", facts=5),
        lambda s: s.append_run_context("r", "d", sections=5),
        lambda s: s.append_event("custom", payload=[1]),
        # (each was written as given, and read back as another value: the API audit)
        lambda s: s.append_message(Message(role=None, content="x")),  # type: ignore[arg-type]
        lambda s: s.append_message(Message(role="user", content=5)),  # type: ignore[arg-type]
        lambda s: s.append_message(Message(role="user", content="x", depth="3")),  # type: ignore[arg-type]
        lambda s: s.append_message(Message(role="user", content="x", depth=True)),
        lambda s: s.append_message(Message(role="tool", content="x", tool_call_id=1)),  # type: ignore[arg-type]
        lambda s: s.append_message(Message(role="user", content="x", sticky=1)),  # type: ignore[arg-type]
    ],
)
def test_an_append_of_arguments_of_the_wrong_type_is_refused(create, call_it) -> None:
    """api.md: every refusal by an ``append_*`` is a ``TranscriptError``, and nothing is
    written (the reference's signatures want these as strings, numbers, lists, maps)."""
    s, path = create()
    before = path.read_bytes()
    with pytest.raises(TranscriptError):
        call_it(s)
    assert path.read_bytes() == before


def test_a_compaction_fallback_that_is_not_a_bool_is_refused(create) -> None:
    """``fallback="no"`` was written ``"fallback": true``; None is the default (false)."""
    s, path = create()
    through = s.append_message(Message(role="user", content="x"))
    before = path.read_bytes()
    with pytest.raises(TranscriptError, match="fallback must be true or false"):
        s.append_compaction("summary", through, fallback="no")  # type: ignore[arg-type]
    assert path.read_bytes() == before
    s.append_compaction("summary", through, fallback=None)  # type: ignore[arg-type]
    assert orjson.loads(path.read_bytes().splitlines()[-1])["payload"]["fallback"] is False


def test_wrong_typed_paths_and_meta_are_refused(tmp_path: Path) -> None:
    for bad in (None, 5):
        with pytest.raises(TranscriptError):
            Session.create(bad)  # type: ignore[arg-type]
        with pytest.raises(TranscriptError):
            Session.load(bad)  # type: ignore[arg-type]
    with pytest.raises(TranscriptError):
        Session.create(tmp_path / "m.jsonl", meta=[1, 2])  # type: ignore[arg-type]
    assert not (tmp_path / "m.jsonl").exists()  # refused before a file is made


def test_a_duration_is_rounded_to_the_microsecond_half_up(create) -> None:
    """As the reference writes it, ``(d * 1e6).round / 1e6`` (half up, not to even)."""
    s, _path = create()
    op = s.append_tool_dispatched("c1", "bash", {"cmd": "ls"})
    s.append_tool_settled(op, "completed", duration=0.0000005)
    (settled,) = [e for e in s.events() if e["type"] == "tool-settled"]
    assert settled["payload"]["duration"] == 0.000001


def test_load_of_another_formats_file_says_what_it_is(tmp_path: Path) -> None:
    """``Session.load`` of a Claude Code session said "line 1: has envelope version None"
    and ``AgentGoSession.open`` of a v1 file "has no integer seq" (the API audit): each
    names the format the file is, and what reads it; nothing is written."""
    from session_core.agentgo import AgentGoSession

    cc = tmp_path / "cc.jsonl"
    line = {
        "type": "user",
        "sessionId": "s",
        "uuid": "u1",
        "parentUuid": None,
        "timestamp": "2026-01-01T00:00:00Z",
        "message": {"role": "user", "content": "hi"},
    }
    cc.write_text(orjson.dumps(line).decode() + "\n")
    before = cc.read_bytes()
    with pytest.raises(TranscriptError, match=r"is claude-code, not transcript-v1: Session\.load"):
        Session.load(cc)
    with pytest.raises(TranscriptError, match="is claude-code, not agentgo-v1"):
        AgentGoSession.open(cc)
    assert cc.read_bytes() == before
    v1 = tmp_path / "v1.jsonl"
    Session.create(v1).close()
    with pytest.raises(TranscriptError, match="is transcript-v1, not agentgo-v1"):
        AgentGoSession.open(v1)
