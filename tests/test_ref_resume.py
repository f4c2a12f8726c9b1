"""Reading a transcript back: every field of a message survives, compactions and
elisions compose, grants come back whole, run contexts replay as data, and a damaged
file fails loudly everywhere except the one place a crash really leaves damage.

Ported scenario by scenario from the reference module's
``t/08-session-resume.rakutest`` (m-doughty/LLM-Agent).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from ref_helpers import assert_refused, file_lines, reading, written_last

from session_core import Message, Session, TranscriptError

# --- helpers ------------------------------------------------------------------------

_auto_ids = itertools.count()


def envelope(type_: str, payload: Any, *, id: str | None = None, v: Any = 1) -> str:
    """One hand-written envelope line (no terminator), sorted keys, compact."""
    env = {
        "v": v,
        "type": type_,
        "id": id if id is not None else f"id-{next(_auto_ids)}",
        "ts": "2026-08-09T12:00:00.000000Z",
        "payload": payload,
    }
    return orjson.dumps(env, option=orjson.OPT_SORT_KEYS).decode("utf-8")


def meta_line() -> str:
    """An empty session-meta line."""
    return envelope("session-meta", {})


def hello_line(**kw: Any) -> str:
    """A user's message line: "hello"."""
    return envelope("message", {"role": "user", "content": "hello"}, **kw)


@pytest.fixture
def raw_transcript(fresh):
    """A transcript written straight to disk: the API cannot produce a broken one.

    ``eol=False`` leaves the final separator off (what a crash mid-write leaves);
    ``nl`` picks the line ending.
    """

    def make(lines: list[str], *, nl: str = "\n", eol: bool = True) -> Path:
        path = fresh()
        path.write_bytes((nl.join(lines) + (nl if eol else "")).encode("utf-8"))
        return path

    return make


def repair_file(path: Path) -> Path:
    return path.with_name(path.name + ".repair")


def role_content(s: Session) -> list[str]:
    return [f"{m.role}:{m.content}" for m in s.messages()]


def warning_line(w: Any) -> int | None:
    """The 1-based line number a load warning reports, whatever shape it has."""
    if isinstance(w, dict):
        for key in ("line", "line-number", "line_number"):
            if isinstance(w.get(key), int):
                return w[key]
    for attr in ("line", "line_number", "lineno"):
        value = getattr(w, attr, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    found = re.search(r"line (\d+)", str(w))
    return int(found.group(1)) if found else None


def warning_text(w: Any) -> str:
    """Everything a warning says, raw text included, as one string."""
    parts = [str(w)]
    for attr in ("value", "raw", "text"):
        value = w.get(attr) if isinstance(w, dict) else getattr(w, attr, None)
        if isinstance(value, bytes):
            parts.append(value.decode("utf-8", errors="replace"))
        elif value is not None:
            parts.append(str(value))
    return "\n".join(parts)


def replayed_as(load: Callable[[Path], Session], path: Path, *conversation: str) -> Session:
    """The file loaded; its messages, as ``role:content``, are ``conversation``."""
    replayed = load(path)
    assert role_content(replayed) == list(conversation)
    return replayed


def helpful() -> Message:
    return Message(role="system", content="be helpful", sysprompt=True)


def user(content: str) -> Message:
    return Message(role="user", content=content)


def test_every_field_of_a_message_survives_the_round_trip(create, load) -> None:
    s, path = create()
    written = [
        Message(role="system", content="be helpful", sysprompt=True, sticky=True),
        reading(),
        Message(role="tool", content="hello", tool_call_id="c1"),
        Message(role="user", content="pinned", depth=2),
    ]
    for m in written:
        s.append_message(m)
    s.close()

    messages = load(path).messages()
    assert len(messages) == 4
    assert messages[0].sysprompt is True
    assert messages[0].sticky is True
    assert messages[1].tool_calls[0]["function"]["name"] == "fs_read"
    assert messages[2].tool_call_id == "c1"
    assert messages[3].depth == 2
    assert messages[1].role == "assistant"
    # Nothing lost, nothing invented.
    assert list(messages) == written


def test_a_compaction_replays_as_the_conversation_the_compactor_produced(create, load) -> None:
    s, path = create()
    sys_id = s.append_message(helpful())
    s.append_message(user("one"))
    cut = s.append_message(Message(role="assistant", content="two"))
    three = s.append_message(user("three"))
    compaction = s.append_compaction(
        summary="they talked about one and two",
        replaces_through_id=cut,
        tokens_before=900,
        tokens_after=300,
    )
    s.close()

    line = written_last(path, compaction, "compaction")
    assert line["payload"] == {
        "summary": "they talked about one and two",
        "replaces-through-id": cut,
        "fallback": False,
        "tokens-before": 900,
        "tokens-after": 300,
    }

    # Sticky prefix kept, the middle folded into one summary, the tail untouched.
    replayed = replayed_as(
        load, path, "system:be helpful", "user:they talked about one and two", "user:three"
    )
    # The summary replays under the compaction envelope's own id.
    assert replayed.message_ids() == [sys_id, compaction, three]
    summary = replayed.messages()[1]
    assert summary.content
    # Not sticky, so a later compaction can fold it in turn.
    assert summary.sticky is False
    assert summary.sysprompt is False
    assert summary.depth is None
    assert len(replayed.events()) == 6
    assert len(replayed) == 6


def test_compactions_compose_a_summary_can_be_summarised(create, load) -> None:
    s, path = create()
    s.append_message(helpful())
    first_cut = s.append_message(user("ancient"))
    first = s.append_compaction(summary="the ancient history", replaces_through_id=first_cut)
    s.append_message(user("recent"))
    # The second cut is the FIRST compaction's summary.
    second = s.append_compaction(summary="everything up to now", replaces_through_id=first)
    s.close()

    # Omitted token counts are omitted from the line; fallback defaults to false.
    payload = orjson.loads(file_lines(path)[-1])["payload"]
    assert payload == {
        "summary": "everything up to now",
        "replaces-through-id": first,
        "fallback": False,
    }

    replayed = replayed_as(
        load, path, "system:be helpful", "user:everything up to now", "user:recent"
    )
    assert replayed.message_ids()[1] == second
    assert len(replayed.messages()) == 3


def test_an_elision_replays_as_the_stub_the_model_was_shown(create, load) -> None:
    s, path = create()
    s.append_message(helpful())
    s.append_message(reading())
    fat = s.append_message(Message(role="tool", content="A" * 4000, tool_call_id="c1"))
    s.append_message(user("and now the tests"))
    stub = "[elided by the harness: 4000-char fs_read result]"
    s.append_elision([{"id": fat, "stub": stub}])
    s.close()

    replayed = replayed_as(
        load,
        path,
        "system:be helpful",
        "assistant:reading",
        f"tool:{stub}",
        "user:and now the tests",
    )
    # Still answering the call the assistant made: why elision is safe.
    assert replayed.messages()[2].tool_call_id == "c1"
    # Still under its own id: an elision creates no message.
    assert replayed.message_ids()[2] == fat
    assert len(replayed.messages()) == 4
    events = replayed.events()
    assert len(events) == 6

    # The original result never left the file.
    assert any(e["type"] == "message" and "AAAA" in e["payload"].get("content", "") for e in events)
    assert events[-1]["payload"]["items"][0]["id"] == fat
    assert b"A" * 4000 in path.read_bytes()


def test_elisions_and_compactions_compose_in_either_order(
    create, load, raw_transcript, tmp_path: Path
) -> None:
    # An elision, then a compaction over the stubbed message.
    first, first_path = create()
    first.append_message(helpful())
    fat = first.append_message(Message(role="tool", content="A" * 4000, tool_call_id="c1"))
    first.append_elision([{"id": fat, "stub": "[elided: 4000]"}])
    compaction = first.append_compaction(summary="they read a big file", replaces_through_id=fat)
    first.append_message(user("carry on"))
    first.close()

    one = replayed_as(
        load, first_path, "system:be helpful", "user:they read a big file", "user:carry on"
    )
    assert one.message_ids()[1] == compaction

    # A compaction, then an elision of what survived it - the summary included.
    second, second_path = create()
    second.append_message(helpful())
    ancient = second.append_message(user("ancient history"))
    summary = second.append_compaction(summary="the ancient history", replaces_through_id=ancient)
    survivor = second.append_message(Message(role="tool", content="B" * 4000, tool_call_id="c9"))
    second.append_elision(
        [
            {"id": survivor, "stub": "[elided: 4000]"},
            {"id": summary, "stub": "[elided: the summary]"},
        ]
    )
    # ...and an id a compaction already replaced is gone: refused before the write.
    before = second_path.read_bytes()
    with pytest.raises(TranscriptError):
        second.append_elision([{"id": ancient, "stub": "too late"}])
    assert second_path.read_bytes() == before
    second.close()

    two = replayed_as(
        load, second_path, "system:be helpful", "user:[elided: the summary]", "tool:[elided: 4000]"
    )
    assert two.messages()[2].tool_call_id == "c9"

    # The same ordering rule on replay: an elision naming a replaced id does not load.
    backwards = raw_transcript(
        [
            meta_line(),
            envelope("message", {"role": "user", "content": "ancient"}, id="m1"),
            envelope("compaction", {"summary": "a summary", "replaces-through-id": "m1"}, id="k1"),
            envelope("elision", {"items": [{"id": "m1", "stub": "too late"}]}),
        ]
    )
    assert_refused(load, backwards, 4)

    forwards = raw_transcript(
        [
            meta_line(),
            envelope("message", {"role": "user", "content": "ancient"}, id="m2"),
            envelope("elision", {"items": [{"id": "m2", "stub": "in time"}]}),
            envelope("compaction", {"summary": "a summary", "replaces-through-id": "m2"}),
        ]
    )
    assert load(forwards).messages()[0].content == "a summary"


def test_an_elision_that_names_nothing_is_fatal(load, raw_transcript) -> None:
    dangling = raw_transcript(
        [
            meta_line(),
            hello_line(),
            envelope("elision", {"items": [{"id": "no-such-id", "stub": "x"}]}),
        ]
    )
    assert_refused(load, dangling, 3)

    idless = raw_transcript([meta_line(), envelope("elision", {"items": [{"stub": "x"}]})])
    assert_refused(load, idless, 2)

    stubless = raw_transcript(
        [
            meta_line(),
            hello_line(id="m1"),
            envelope("elision", {"items": [{"id": "m1"}]}),
        ]
    )
    assert_refused(load, stubless, 3)

    shapeless = raw_transcript(
        [
            meta_line(),
            envelope("elision", {"summary": "wrong type entirely"}),
        ]
    )
    assert_refused(load, shapeless, 2)

    # An EMPTY items list applies nothing, and loads.
    empty = raw_transcript([meta_line(), hello_line(), envelope("elision", {"items": []})])
    assert load(empty).messages()[0].content == "hello"


def test_grants_replay_whole_so_a_policy_need_not_ask_again(create, load) -> None:
    # The reference feeds the replayed grants to its real permission policy; there
    # is no policy here, so this checks the half the session owns: the snapshot
    # comes back exactly as it was written, ready to hand to one.
    s, path = create()
    snapshot = [{"tool": "fs_write", "decision": "allow"}]
    s.append_grants(snapshot)
    s.close()

    assert orjson.loads(file_lines(path)[-1])["payload"] == {"grants": snapshot}

    resumed = load(path)
    grants = resumed.grants()
    assert len(grants) == 1
    assert list(grants) == snapshot

    # A copy: poking at it changes nothing inside.
    grants[0]["decision"] = "deny"
    assert resumed.grants()[0]["decision"] == "allow"


# --- damage -------------------------------------------------------------------------


def test_a_malformed_final_line_is_dropped_and_reported(load, raw_transcript) -> None:
    path = raw_transcript(
        [
            meta_line(),
            hello_line(),
            '{"v":1,"type":"message","payload":{"role":"assis',  # killed mid-write
        ]
    )

    s = load(path)
    warnings = s.warnings()
    assert len(warnings) == 1
    assert warning_line(warnings[0]) == 3
    assert len(s.messages()) == 1
    assert s.messages()[0].content == "hello"


@pytest.mark.parametrize("eol", [False, True], ids=["stopped-mid-line", "newline-and-all"])
def test_a_crash_tail_is_cut_off_the_file_not_merely_skipped(
    load, raw_transcript, eol: bool
) -> None:
    good = [
        meta_line(),
        hello_line(),
    ]
    path = raw_transcript([*good, '{"v":1,"type":"message","payload":{"role":"assis'], eol=eol)
    mode = 0o640
    path.chmod(mode)

    s = load(path)
    warnings = s.warnings()
    assert len(warnings) == 1
    assert warning_line(warnings[0]) == 3
    # Gone from the FILE, byte for byte the good prefix, permissions kept.
    assert len(file_lines(path)) == 2
    assert path.read_bytes() == ("\n".join(good) + "\n").encode("utf-8")
    assert path.stat().st_mode & 0o777 == mode
    assert not repair_file(path).exists()

    # The appends that would otherwise have landed inside the garbage.
    s.append_message(Message(role="assistant", content="day two"))
    s.append_message(user("day three"))
    s.close()

    again = load(path)
    assert [m.content for m in again.messages()] == ["hello", "day two", "day three"]
    assert list(again.warnings()) == []
    assert len(again.events()) == 4


def test_a_crash_inside_a_character_is_repaired_too(load, fresh) -> None:
    whole = (
        "\n".join(
            [
                meta_line(),
                hello_line(),
            ]
        )
        + "\n"
    )
    partial = '{"v":1,"type":"message","payload":{"role":"user","content":"héllö'
    data = (whole + partial).encode("utf-8")
    path = fresh()
    # One byte short of the closing ö: a lead byte with no follower.
    path.write_bytes(data[:-1])

    with pytest.raises(UnicodeDecodeError):
        path.read_bytes().decode("utf-8")

    s = load(path)
    warnings = s.warnings()
    assert len(warnings) == 1
    assert warning_line(warnings[0]) == 3
    # The warning keeps the raw text, readable as far as the damage.
    assert "héll" in warning_text(warnings[0])
    assert len(s.messages()) == 1
    # The repaired file is text again.
    assert path.read_bytes() == whole.encode("utf-8")
    assert len(path.read_text(encoding="utf-8").splitlines()) == 2


def test_a_crlf_transcript_keeps_its_line_endings_through_a_repair(load, raw_transcript) -> None:
    good = [
        meta_line(),
        hello_line(),
    ]
    path = raw_transcript(
        [*good, '{"v":1,"type":"message","payload":{"role":"assis'], nl="\r\n", eol=False
    )

    s = load(path)
    assert len(s.warnings()) == 1
    assert len(s.messages()) == 1
    s.close()

    # A repair is a copy of the prefix, not a rewrite.
    raw = path.read_bytes()
    assert raw.endswith(b"\r\n")
    assert raw.count(b"\r\n") == 2
    assert raw == ("\r\n".join(good) + "\r\n").encode("utf-8")

    again = load(path)
    assert len(again.messages()) == 1
    assert list(again.warnings()) == []


@pytest.mark.parametrize("nl", ["\n", "\r\n"], ids=["LF", "CRLF"])
def test_a_valid_final_json_line_without_eol_is_made_append_safe(
    load, raw_transcript, nl: str
) -> None:
    good = [
        meta_line(),
        envelope("message", {"role": "user", "content": "before"}),
    ]
    path = raw_transcript(good, nl=nl, eol=False)

    s = load(path)
    # A whole envelope without its newline is not damage.
    assert list(s.warnings()) == []
    assert len(s.messages()) == 1
    # The missing terminator is the file's own.
    assert path.read_bytes() == (nl.join(good) + nl).encode("utf-8")
    s.append_message(Message(role="assistant", content="after"))
    s.close()

    raw = path.read_bytes()
    assert len(file_lines(path)) == 3
    # The appended line starts on its own line; the writer itself always ends in LF.
    assert raw.count(b"\n") == 3
    assert raw.count(nl.encode()) == (2 if nl == "\r\n" else 3)
    assert raw.endswith(b"\n")

    again = load(path)
    assert [m.content for m in again.messages()] == ["before", "after"]


def test_a_repair_copy_left_behind_by_an_interrupted_repair_is_not_trusted(
    load, raw_transcript
) -> None:
    path = raw_transcript([meta_line(), hello_line()])
    before = path.read_bytes()
    stale = repair_file(path)
    stale.write_text("this was never renamed over anything")

    s = load(path)
    assert len(s.messages()) == 1
    assert list(s.warnings()) == []
    assert not stale.exists()
    assert path.read_bytes() == before


def test_two_malformed_lines_at_the_end_are_not_a_crash_artifact(load, raw_transcript) -> None:
    path = raw_transcript(
        [
            meta_line(),
            hello_line(),
            '{"v":1,"type":"mess',
            '{"v":1,"type":"messa',
        ],
        eol=False,
    )
    before = path.read_bytes()

    # One crash is a crash; two is damage.
    with pytest.raises(TranscriptError) as err:
        load(path)
    assert str(path) in str(err.value)
    assert path.read_bytes() == before
    assert not repair_file(path).exists()


def test_a_malformed_line_anywhere_else_is_fatal(load, raw_transcript) -> None:
    path = raw_transcript([meta_line(), '{"v":1,"type":"messa', hello_line()])
    before = path.read_bytes()

    assert_refused(load, path, 2)
    # Still fatal the second time: nothing was "repaired" by the first attempt.
    with pytest.raises(TranscriptError):
        load(path)
    assert path.read_bytes() == before
    assert not repair_file(path).exists()


def test_an_envelope_this_version_cannot_read_is_fatal(load, raw_transcript) -> None:
    future = raw_transcript([envelope("session-meta", {}, v=2)])
    assert_refused(load, future, 1)

    versionless = raw_transcript(
        [
            meta_line(),
            '{"id":"x","payload":{},"ts":"2026-08-09T12:00:00.000000Z","type":"message"}',
            hello_line(),
        ]
    )
    assert_refused(load, versionless, 2)

    typeless = raw_transcript(
        [
            meta_line(),
            '{"id":"x","payload":{},"ts":"2026-08-09T12:00:00.000000Z","v":1}',
        ]
    )
    assert_refused(load, typeless, 2)


def test_a_transcript_starts_with_its_meta_line(load, raw_transcript) -> None:
    path = raw_transcript([hello_line()])
    assert_refused(load, path, 1)


def test_a_compaction_that_names_nothing_is_fatal(load, raw_transcript) -> None:
    dangling = raw_transcript(
        [
            meta_line(),
            hello_line(),
            envelope("compaction", {"summary": "a summary", "replaces-through-id": "no-such-id"}),
        ]
    )
    assert_refused(load, dangling, 3)

    idless = raw_transcript([meta_line(), envelope("compaction", {"summary": "a summary"})])
    assert_refused(load, idless, 2)


def test_a_compaction_naming_nothing_is_refused_before_the_write(create) -> None:
    s, path = create()
    s.append_message(user("hello"))
    before = path.read_bytes()
    with pytest.raises(TranscriptError):
        s.append_compaction(summary="a summary", replaces_through_id="no-such-id")
    assert path.read_bytes() == before
    assert len(s) == 2


def test_unknown_types_survive_a_round_trip_untouched(load, raw_transcript) -> None:
    path = raw_transcript(
        [
            meta_line(),
            envelope("telemetry-from-the-future", {"latency": 12}),
            hello_line(),
        ]
    )

    s = load(path)
    assert len(s.messages()) == 1
    events = s.events()
    assert len(events) == 3
    assert events[1]["type"] == "telemetry-from-the-future"
    assert events[1]["payload"]["latency"] == 12


def test_a_resumed_session_appends_to_the_same_file(create, load) -> None:
    first, path = create({"run": 1})
    first.append_message(user("day one"))
    first.close()

    second = load(path)
    assert second.meta()["run"] == 1
    second.append_message(Message(role="assistant", content="day two"))
    second.close()

    assert len(file_lines(path)) == 3
    third = load(path)
    assert [m.content for m in third.messages()] == ["day one", "day two"]
    assert len(third.message_ids()) == 2


def test_the_turns_handed_over_are_written_once_each_in_order(create, load) -> None:
    # The reference runs its agent loop here; there is no loop in this project, so
    # this keeps the transcript half of it: a seeded system prompt and question,
    # then the answer, come back exactly once each, in order, flags intact.
    s, path = create()
    s.append_message(Message(role="system", content="SYSPROMPT", sysprompt=True, sticky=True))
    s.append_message(user("make the tests pass"))
    s.append_message(Message(role="assistant", content="done"), extra={"finish-reason": "stop"})
    assert role_content(s) == [
        "system:SYSPROMPT",
        "user:make the tests pass",
        "assistant:done",
    ]
    assert s.messages()[0].sysprompt is True
    s.close()

    again = load(path)
    assert role_content(again) == role_content(s)
    assert again.messages()[0].sysprompt is True
    assert again.events()[-1]["payload"]["finish-reason"] == "stop"


# --- run contexts -------------------------------------------------------------------


def test_a_run_context_replays_as_data_and_never_as_a_conversation(create, load) -> None:
    s, path = create()
    s.append_message(user("hello"))

    # The identity never changes, the instructions change once, the facts always.
    ids = []
    for n in (1, 2, 3):
        ids.append(
            s.append_run_context(
                run_id=f"run-{n}",
                digest=f"digest-{n}",
                facts=[("date", f"day-{n}"), ("cwd", "/srv")],
                sections=[
                    {"name": "identity", "digest": "d-identity", "rendered": "IDENTITY"},
                    {
                        "name": "instructions",
                        "digest": "d-instructions-" + ("a" if n < 3 else "b"),
                        "rendered": "AGENTS v1" if n < 3 else "AGENTS v2",
                    },
                ],
            )
        )
    s.close()

    # The file itself: bodies written once, pointed at afterwards.
    lines = [orjson.loads(line) for line in file_lines(path)[2:]]
    assert [line["id"] for line in lines] == ids
    assert [line["payload"] for line in lines] == [
        {
            "run-id": "run-1",
            "digest": "digest-1",
            "facts": [["date", "day-1"], ["cwd", "/srv"]],
            "sections": [
                {"name": "identity", "digest": "d-identity", "rendered": "IDENTITY"},
                {"name": "instructions", "digest": "d-instructions-a", "rendered": "AGENTS v1"},
            ],
        },
        {
            "run-id": "run-2",
            "digest": "digest-2",
            "facts": [["date", "day-2"], ["cwd", "/srv"]],
            "sections": [
                {"name": "identity", "digest": "d-identity", "rendered-in": ids[0]},
                {"name": "instructions", "digest": "d-instructions-a", "rendered-in": ids[0]},
            ],
        },
        {
            "run-id": "run-3",
            "digest": "digest-3",
            "facts": [["date", "day-3"], ["cwd", "/srv"]],
            "sections": [
                {"name": "identity", "digest": "d-identity", "rendered-in": ids[0]},
                {"name": "instructions", "digest": "d-instructions-b", "rendered": "AGENTS v2"},
            ],
        },
    ]

    replayed = load(path)
    assert [m.content for m in replayed.messages()] == ["hello"]
    assert len(replayed.message_ids()) == 1
    assert len(replayed.events()) == 5

    contexts = replayed.run_contexts()
    assert [c["run-id"] for c in contexts] == ["run-1", "run-2", "run-3"]
    assert [c["id"] for c in contexts] == ids
    assert [row[0] for row in contexts[0]["facts"]] == ["date", "cwd"]
    assert [list(row) for row in contexts[0]["facts"]] == [["date", "day-1"], ["cwd", "/srv"]]
    assert replayed.last_run_context()["digest"] == "digest-3"

    carried = [sum(1 for sec in c["sections"] if "rendered" in sec) for c in contexts]
    assert carried == [2, 0, 1]

    bodies = [
        [
            sec.get("rendered") or replayed.run_context_section(sec["digest"])
            for sec in c["sections"]
        ]
        for c in contexts
    ]
    assert bodies == [
        ["IDENTITY", "AGENTS v1"],
        ["IDENTITY", "AGENTS v1"],
        ["IDENTITY", "AGENTS v2"],
    ]

    pointing = next(sec for sec in contexts[1]["sections"] if "rendered-in" in sec)
    assert pointing["rendered-in"] == contexts[0]["id"]


def test_two_identical_sections_in_one_context_resolve_to_one_body(create, load) -> None:
    s, path = create()
    env_id = s.append_run_context(
        run_id="r",
        digest="d",
        facts=[],
        sections=[
            {"name": "first", "digest": "same", "rendered": "THE BODY"},
            {"name": "second", "digest": "same", "rendered": "THE BODY"},
        ],
    )
    s.close()

    assert orjson.loads(file_lines(path)[-1])["payload"]["sections"] == [
        {"name": "first", "digest": "same", "rendered": "THE BODY"},
        {"name": "second", "digest": "same", "rendered-in": env_id},
    ]

    replayed = load(path)
    sections = replayed.last_run_context()["sections"]
    assert sections[0]["rendered"] == "THE BODY"
    assert sections[1]["rendered-in"] == env_id
    assert replayed.run_context_section("same") == "THE BODY"


def test_a_context_body_the_transcript_no_longer_has_is_absent_not_fatal(
    load, raw_transcript
) -> None:
    # What a crash-tail repair can leave: the carrying line is gone, a later line
    # still points at it.
    path = raw_transcript(
        [
            meta_line(),
            hello_line(),
            envelope(
                "run-context",
                {
                    "run-id": "r2",
                    "digest": "d2",
                    "facts": [["date", "day-2"]],
                    "sections": [
                        {
                            "name": "identity",
                            "digest": "d-identity",
                            "rendered-in": "the-line-that-was-repaired-away",
                        },
                        {"name": "notes", "digest": "d-notes", "rendered": "STILL HERE"},
                    ],
                },
            ),
        ]
    )

    s = load(path)
    assert len(s.messages()) == 1
    assert list(s.warnings()) == []
    assert s.run_context_section("d-identity") is None
    identity = next(sec for sec in s.last_run_context()["sections"] if sec["name"] == "identity")
    assert identity["rendered-in"] == "the-line-that-was-repaired-away"
    assert s.run_context_section("d-notes") == "STILL HERE"
    assert s.run_context_section("never-heard-of-it") is None


def test_blank_lines_are_ignored_wherever_they_are(load, raw_transcript) -> None:
    path = raw_transcript([meta_line(), "", hello_line(), "   ", ""])

    s = load(path)
    assert len(s.messages()) == 1
    assert list(s.warnings()) == []
