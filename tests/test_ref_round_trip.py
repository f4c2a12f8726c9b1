"""Reading a transcript back: every field of a message survives, grants come back whole,
unknown types and blank lines are passed over, a resumed session appends to its file.

Ported scenario by scenario from the reference module's
``t/08-session-resume.rakutest`` (m-doughty/LLM-Agent).
"""

from __future__ import annotations

import os

import orjson
from ref_helpers import envelope, file_lines, hello_line, meta_line, reading, role_content, user

from session_core import Message


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


def test_blank_lines_are_ignored_wherever_they_are(load, raw_transcript) -> None:
    path = raw_transcript([meta_line(), "", hello_line(), "   ", ""])

    s = load(path)
    assert len(s.messages()) == 1
    assert list(s.warnings()) == []


def test_blank_lines_before_session_meta_do_not_stop_the_crash_tail_repair(
    load, raw_transcript
) -> None:
    """The reference's reader skips blank lines, so a file opening with one is still a
    transcript whose crash tail ``load`` cuts (its first line that is not blank is whole
    session-meta); replay and check take it as load does."""
    from session_core.formats import by_name

    path = raw_transcript(["", meta_line(), hello_line(), '{"v":1,"type":"mess'], eol=False)
    said = "warning: line 4 has no newline: the writer left it unfinished, and it is not read"
    os.utime(path, (0, 0))  # (its writer gone: a crash tail, not held back)
    assert f"{said} (a crash tail)" in by_name("transcript-v1").check(path)
    s = load(path)
    assert [m.content for m in s.messages()] == ["hello"]
    assert not path.read_bytes().endswith(b'"mess')


def test_a_bad_line_before_a_blank_last_line_is_damage_everywhere(load, raw_transcript) -> None:
    """A malformed line with a blank line after it is not the last line, the one the
    reference's repair cuts: ``load`` refuses it, and so do replay and check (api.md: they
    exit 1 where load would refuse)."""
    import pytest

    from session_core import TranscriptError
    from session_core.formats import by_name

    path = raw_transcript([meta_line(), hello_line(), '{"v":1,"type":"mess', ""])
    before = path.read_bytes()
    with pytest.raises(TranscriptError, match="line 3"):
        by_name("transcript-v1").check(path)
    with pytest.raises(TranscriptError, match="line 3"):
        by_name("transcript-v1").replay_json(path)
    with pytest.raises(TranscriptError, match="line 3"):
        load(path)
    assert path.read_bytes() == before
