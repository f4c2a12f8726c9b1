"""An agentgo read leaves its builder (``AgentGoModel``) behind: the column's part source
reads a message's parts again from the view's records alone, not through a bound method
of the builder (which kept it, its asked calls, the operations each execution took and
their argument dicts, alive with the transcript: 17 MiB more held after the read of the
1 GB bench file). The parts read again are unchanged. (A followed file keeps its builder,
fed more lines: ``test_agentgo_lazy``'s snapshots hold it to the model made afresh.)"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import Any

import pytest

import session_core
from agentgo_story import write_agentgo_story
from session_core.formats.agentgo import model as model_module
from session_core.model import Transcript


def _builders(monkeypatch: pytest.MonkeyPatch) -> list[weakref.ref[Any]]:
    """The builders made from now on (as weak references)."""
    made: list[weakref.ref[Any]] = []
    init = model_module.AgentGoModel.__init__

    def noted(self: model_module.AgentGoModel, view: Any) -> None:
        init(self, view)
        made.append(weakref.ref(self))

    monkeypatch.setattr(model_module.AgentGoModel, "__init__", noted)
    return made


def _texts(transcript: Transcript) -> list[str]:
    return [str(part.text) for item in transcript.raw for part in item.parts]


def test_an_open_keeps_no_builder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gc_off: None
) -> None:
    path = tmp_path / "s.jsonl"
    write_agentgo_story(path)
    expected = _texts(session_core.open_transcript(path))
    made = _builders(monkeypatch)
    transcript = session_core.open_transcript(path)
    assert made and all(ref() is None for ref in made)
    # (its parts read again from the file, the builder gone)
    transcript.raw[0].parts  # noqa: B018
    assert _texts(transcript) == expected
