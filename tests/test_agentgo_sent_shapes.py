"""What the context folds first tell a committed message by (``messages.sent_shape``: its
kind, call, part count and first text's length) is taken as the message is fed, and its
key (``sent_key``: the message written out and hashed) is read again only for a message a
request holds one of that shape of: at 100 MB 32 of 1,152 messages, where every message
was written out and hashed (and the 140 before the first event parsed again). The folds
must be what they are with every message hashed: the same sent view, stubs, folds and
drops; and two messages the same as sent (``sent_bytes``) must be of the same shape."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_demo_agentgo import write_agentgo

from agentgo_helpers import write_story
from agentgo_story import write_agentgo_story
from session_core.agentgo import folds as folds_module
from session_core.agentgo import read_view
from session_core.agentgo.folds import ContextFolds
from session_core.agentgo.messages import sent_bytes, sent_shape
from session_core.agentgo.view import AgentGoView


def _folds(view: AgentGoView) -> tuple[Any, ...]:
    folds = ContextFolds(view)
    sent = folds.sent(len(view.messages))
    events = range(len(view.context_events))
    return (
        sent,
        dict(folds.stubs),
        list(folds.folded),
        dict(folds.dropped),
        [folds.of(e) for e in events],
        [folds.sent_as(e) for e in events],
        [folds.dropped_of(e) for e in events],
        sorted(folds.summaries()),
        [dict(o) for o in folds.own],
    )


def _files(tmp_path: Path) -> list[Path]:
    write_agentgo_story(tmp_path / "story.jsonl")
    write_agentgo_story(tmp_path / "hostile.jsonl", hostile=True)
    write_story(tmp_path / "helpers.jsonl")
    return [
        tmp_path / "story.jsonl",
        tmp_path / "hostile.jsonl",
        tmp_path / "helpers.jsonl",
        write_agentgo(tmp_path / "crash", crash=True),
        write_agentgo(tmp_path / "whole", crash=False),
    ]


@pytest.mark.parametrize("which", range(5))
def test_the_folds_by_shape_are_the_folds_of_every_key(
    tmp_path: Path, which: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _files(tmp_path)[which]
    view = read_view(path)
    assert view.context_events, "a file with a context event"
    for committed in view.messages:  # (taken as fed, before any event too)
        assert committed.shape == sent_shape(committed.message)
    hashed: list[int] = []
    real = folds_module._hashed

    def counted(message: Any) -> int:
        hashed.append(1)
        return real(message)

    monkeypatch.setattr(folds_module, "_hashed", counted)
    by_shape = _folds(view)
    some = len(hashed)
    for committed in view.messages:
        committed.shape = None  # (none taken: every message hashed, as before)
    hashed.clear()
    assert _folds(view) == by_shape
    assert some < len(hashed) or which == 2  # (the helpers' story commits none after its events)


_TEXT = st.text(max_size=6)
_INT = st.integers(-99, 99)
_PART = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": _TEXT}),
    st.fixed_dictionaries({"type": st.just("tool_call"), "id": _TEXT, "arguments": st.just({})}),
    st.dictionaries(_TEXT, st.one_of(_TEXT, _INT, st.none()), max_size=2),
    _TEXT,
)
_MESSAGE = st.fixed_dictionaries(
    {},
    optional={
        "kind": st.one_of(st.sampled_from(["user", "assistant", "tool_result"]), _INT),
        "content": st.one_of(st.lists(_PART, max_size=3), _TEXT, st.none()),
        "tool_call_id": st.one_of(_TEXT, _INT),
        "is_error": st.booleans(),
    },
)
_OWN_REPORT = st.fixed_dictionaries(
    {},
    optional={
        "usage": st.dictionaries(_TEXT, _INT, max_size=2),
        "timestamp": _TEXT,
        "stop_reason": _TEXT,
    },
)


@settings(max_examples=300, deadline=None)
@given(_MESSAGE, _OWN_REPORT)
def test_messages_the_same_as_sent_are_of_one_shape(message: dict[str, Any], own: Any) -> None:
    """A request's copy of a committed message: without its own report (or with another),
    ``is_error`` false left out, and read back from the bytes a writer wrote."""
    copy = {k: v for k, v in message.items() if k not in ("usage", "timestamp", "stop_reason")}
    if copy.get("is_error") is False:
        del copy["is_error"]
    for other in ({**message, **own}, copy, orjson.loads(sent_bytes(message))):
        assert sent_bytes(other) == sent_bytes(message)
        assert sent_shape(other) == sent_shape(message)
