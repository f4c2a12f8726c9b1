"""What the context folds match a committed message by (``messages.sent_key``) is taken as
the message is fed once a context event has come, not read again from the file when the
folds are found at open (958 messages read and parsed again at 100 MB). The folds must
be what they are with every message read again: the same keys, the same sent view,
stubs, folds and drops."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_demo_agentgo import write_agentgo

from agentgo_helpers import write_story
from agentgo_story import write_agentgo_story
from session_core.agentgo import read_view
from session_core.agentgo.folds import ContextFolds
from session_core.agentgo.messages import sent_key
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
def test_the_keys_fed_are_the_keys_read_again(tmp_path: Path, which: int) -> None:
    path = _files(tmp_path)[which]
    view = read_view(path)
    assert view.context_events, "a file with a context event"
    first = view.context_at[0]
    fed = [c for c in view.messages if c.sent_key is not None]
    after = [c for c in view.messages if c.at > first]
    assert fed == after  # (taken for each message once an event had come)
    assert all(c.sent_key is None for c in view.messages if c.at < first)
    for committed in fed:
        assert committed.sent_key == sent_key(committed.message)
    assert fed or which == 2  # (the helpers' story commits nothing after its events)
    with_fed = _folds(view)
    for committed in view.messages:
        committed.sent_key = None  # (every message read again, as before)
    assert _folds(view) == with_fed
