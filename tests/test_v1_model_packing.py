"""v1's model packed: the facts read in bulk as they are one at a time, an elision line's
item made again from its records (not kept), an operation found by its call id."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from helpers import follow_into

from session_core.formats import V1, by_name
from session_core.formats.v1 import V1Live
from session_core.replay import ReplayState

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_transcript


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("v1pack") / "session.jsonl"
    gen_transcript.generate(path, 2_000_000, seed=11, crash=True)
    return path


@pytest.fixture(scope="module")
def followed(generated: Path) -> V1Live:
    live = by_name(V1).live(str(generated))
    assert isinstance(live, V1Live)
    follow_into(live.apply, generated, 1 << 15, False)
    return live


def test_bulk_facts_are_the_facts_one_at_a_time(followed: V1Live) -> None:
    state: ReplayState = followed.replay.state
    facts = state.events.facts
    positions = state.message_events.tolist()
    keys = facts.shape_keys(positions)
    answers, at, cids, names = facts.call_texts(positions)
    want_answers, want_calls = [], []
    shapes = {}
    for key, position in zip(keys, positions, strict=True):
        role, lines, reasoning, pairs, tcid = facts.shape(position)
        told = facts.shape_of_key(key)
        if told is not None:
            assert told == (role, lines, reasoning, pairs, tcid is not None)
            assert shapes.setdefault(key, told) == told  # one key, one shape
        if tcid is not None:
            want_answers.append(tcid)
        want_calls += [(position, cid, name) for cid, name in facts.calls(position)]
    assert answers == want_answers and answers
    assert list(zip(at, cids, names, strict=True)) == want_calls and want_calls


def test_an_elision_item_is_made_again_from_its_records(followed: V1Live) -> None:
    snapshot = followed.transcript()
    model = followed.model()
    column = model.column
    elided = [i for i in range(len(column)) if column.kind_of(i) == "elision"]
    assert elided
    for index in elided:
        assert column.parts[index] is None and column.span_at(index)  # not kept: read again
        item = snapshot.raw[index]
        stubbed = [p for p in item.parts if p.name == "✂ stubbed"]
        assert stubbed and all("→" in p.text for p in stubbed)
    records = followed.replay.state.elisions
    first = snapshot.raw[elided[0]]
    ours = [r for r in records if r.elision_id == first.id]
    assert first.parts[0].text.endswith(f"→ {ours[0].stub}")


def test_an_operation_is_found_by_its_call_id(followed: V1Live) -> None:
    snapshot = followed.transcript(writer_alive=False)
    ops = snapshot.tool_operations
    by_call = ops.by_call()  # type: ignore[attr-defined]
    state = followed.replay.state
    for index in range(0, len(state.tool_ops), 7):
        cid = state.tool_ops.call_ids[index]
        last = max(i for i, c in enumerate(state.tool_ops.call_ids) if c == cid)
        assert by_call[cid] == ops[last]
    # The run's start is its run-context line's ts, as the line says.
    for run in snapshot.runs:
        line = next(
            state.events[p]
            for p in range(len(state.event_lines))
            if int(state.event_lines[p]) == run.line
        )
        assert run.started == (line.get("ts") or None)
