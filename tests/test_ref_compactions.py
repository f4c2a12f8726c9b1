"""Compactions and elisions read back: each replays as what the model was shown, they
compose in either order, and one that names nothing is refused.

Ported scenario by scenario from the reference module's
``t/08-session-resume.rakutest`` (m-doughty/LLM-Agent).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from ref_helpers import (
    assert_refused,
    envelope,
    file_lines,
    hello_line,
    meta_line,
    reading,
    role_content,
    user,
    written_last,
)

from session_core import Message, Session, TranscriptError


def replayed_as(load: Callable[[Path], Session], path: Path, *conversation: str) -> Session:
    """The file loaded; its messages, as ``role:content``, are ``conversation``."""
    replayed = load(path)
    assert role_content(replayed) == list(conversation)
    return replayed


def helpful() -> Message:
    return Message(role="system", content="be helpful", sysprompt=True)


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
