"""A file replay's blocks taken at once (session_core/block_replay.py) against the plain path.

A block's runs of message, dispatch and settle lines are applied as columns, the lines
of other types beside them; compactions, elisions and lines the typed decode cannot
vouch for go one at a time. Whatever the file and wherever its blocks fall, the outcome
must be the plain path's (``test_index_pass.plain_replay_file``): the same state, facts
and warnings, or the same error with its file and line.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_index_pass import (
    outcome,
    plain_replay_file,
    reference_facts,
    same_replay,
    same_state,
)

from session_core import block_replay, reader
from session_core.reader import replay_file
from session_core.replay import ReplayState

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_transcript


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many lines each run taken at once held (a spy on ``BlockPass.apply``)."""
    runs: list[int] = []
    apply = block_replay.BlockPass.apply

    def spy(self: block_replay.BlockPass, first: int, stop: int, *rest: Any) -> bool:
        done = apply(self, first, stop, *rest)
        if done:
            runs.append(stop - first)
        return done

    monkeypatch.setattr(block_replay.BlockPass, "apply", spy)
    yield runs


def same_with_facts(path: Path) -> None:
    """The viewer's and ``tailscope replay``'s replay (facts taken as read) as the plain."""
    got = outcome(lambda: replay_file(path, tolerate_tail=True, facts=True))
    want = outcome(lambda: plain_replay_file(path, True))
    if isinstance(want, ReplayState):
        assert isinstance(got, ReplayState), got
        same_state(got, want)
        assert got.events.facts == reference_facts(want)
        assert got.run_contexts.run_ids == want.run_contexts.run_ids
        assert [got.run_contexts.event(i) for i in range(len(got.run_contexts))] == [
            want.run_contexts.event(i) for i in range(len(want.run_contexts))
        ]
        assert got.unknown_events == want.unknown_events
        assert got.grants == want.grants and got.meta == want.meta
        assert got.tool_ops.run_ids == want.tool_ops.run_ids
        assert got.tool_ops.tools == want.tool_ops.tools
        assert got.tool_ops.call_ids == want.tool_ops.call_ids
        assert got._pending_ops == want._pending_ops
    else:
        assert got == want


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("chunk", [1 << 20, 8192, 700])
def test_generated_files_at_any_block_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, taken: list[int], seed: int, chunk: int
) -> None:
    path = tmp_path / "g.jsonl"
    gen_transcript.generate(path, 300_000, seed=seed, crash=seed == 2)
    monkeypatch.setattr(reader, "CHUNK", chunk)
    same_replay(path)
    same_with_facts(path)
    assert sum(taken) > 0.8 * path.read_bytes().count(b"\n")  # (most lines: at once)


ENV = {"v": 1, "ts": "2026-08-09T00:00:00.000000Z"}


def line(kind: str, eid: Any, payload: Any) -> bytes:
    return orjson.dumps({**ENV, "type": kind, "id": eid, "payload": payload})


META = line("session-meta", "meta", {"agent": "t"})


def msg(eid: str, role: str = "user", **more: Any) -> bytes:
    return line("message", eid, {"role": role, "content": f"{eid}\nsaid", **more})


def dispatch(eid: str, call: str = "c", run: Any = "r1", tool: Any = "fs_read") -> bytes:
    return line("tool-dispatched", eid, {"call-id": call, "run-id": run, "tool": tool})


def settle(eid: str, op: Any, outcome: Any = "completed") -> bytes:
    return line("tool-settled", eid, {"op-id": op, "outcome": outcome})


# Runs a column could take otherwise than one line at a time: each must come out as
# the plain path (its state, or its error and line).
CASES: dict[str, list[bytes]] = {
    "settle before its dispatch": [msg("m1"), settle("s1", "op1"), dispatch("op1")],
    "dispatched twice while pending": [dispatch("op1"), dispatch("op1"), settle("s1", "op1")],
    "settled twice": [dispatch("op1"), settle("s1", "op1"), settle("s2", "op1")],
    "op id used again once settled": [
        dispatch("op1"),
        settle("s1", "op1"),
        dispatch("op1", call="c2"),
        settle("s2", "op1", "failed"),
    ],
    "settle of an earlier block's pending op": [dispatch("op0"), msg("m1"), settle("s1", "op0")],
    "an outcome no settle has": [dispatch("op1"), settle("s1", "op1", "maybe")],
    "an op-id not a str": [dispatch("op1"), settle("s1", 7)],
    "an empty op-id": [dispatch("op1"), settle("s1", "")],
    "an empty op-id dispatched": [dispatch(""), settle("s1", "")],
    "dispatched twice, settled between": [dispatch("op1"), settle("s1", "op1"), dispatch("op1")],
    "a settle with no payload": [dispatch("op1"), line("tool-settled", "s1", None)],
    "run ids and tools odd": [
        dispatch("op1", run=None, tool=None),
        dispatch("op2", run="", tool="t"),
        dispatch("op3", run="r2", tool="t"),
        line("tool-dispatched", "op4", None),
    ],
    "other types between": [
        msg("m1"),
        line(
            "run-context", "rc1", {"run-id": "r9", "sections": [{"digest": "d", "rendered": "x"}]}
        ),
        dispatch("op1", run="r9"),
        line("grants", "g1", {"grants": [{"tool": "fs_read"}]}),
        line("x-unknown", "u1", {"n": 1}),
        settle("s1", "op1"),
        line("session-meta", "meta2", {"agent": "again"}),
        msg("m2", "assistant"),
    ],
    "a compaction between": [
        msg("m1"),
        msg("m2", "assistant"),
        line("compaction", "k1", {"summary": "s", "replaces-through-id": "m2"}),
        msg("m3"),
        line("elision", "e1", {"items": [{"id": "m3", "stub": "[cut]"}]}),
        msg("m4"),
    ],
    "a line not UTF-8 between": [
        msg("m1"),
        b'{"id":"u1","payload":{"content":"\xff","role":"user"},"type":"message","v":1}',
        msg("m2"),
    ],
    "a line not UTF-8 of another type": [
        msg("m1"),
        b'{"id":"u1","payload":{"n":"\xff"},"type":"x-other","v":1}',
        msg("m2"),
    ],
    "a blank line between": [msg("m1"), b"", msg("m2")],
    "a type past a line of another version": [msg("m1"), line("x", "x1", {}) + b"", msg("m2")],
    "duplicate keys on another type": [
        msg("m1"),
        b'{"id":"g1","payload":{"grants":[]},"type":"grants","type":"x-note","v":1}',
        msg("m2"),
    ],
    "a message id used again": [msg("m1"), msg("m1", "assistant"), msg("m2")],
    "a dispatch before the message of its call": [
        dispatch("op1", call="X"),
        msg("m1", "assistant", **{"tool-calls": [{"id": "Y", "function": {"name": "f"}}]}),
        dispatch("op2", call="Y"),
    ],
    "non-ASCII text": [msg("m1", content="caf\u00e9 \u2615"), dispatch("op\u00e9")],
}


@pytest.mark.parametrize("chunk", [1 << 20, 300])
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_run_replays_as_the_plain_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, chunk: int
) -> None:
    path = tmp_path / "t.jsonl"
    lines = [META, msg("m0", "system", sysprompt=True), *CASES[name], msg("z", "assistant")]
    path.write_bytes(b"\n".join(lines) + b"\n")
    monkeypatch.setattr(reader, "CHUNK", chunk)
    same_replay(path)
    same_with_facts(path)
    for how in ({"tolerate_tail": False}, {"tolerate_tail": True, "facts": True}):
        got, want = outcome(lambda how=how: replay_file(path, **how)), line_at_a_time(path, **how)
        if isinstance(want, ReplayState):
            same_numbers(got, want)


def test_a_block_of_such_lines_is_taken_at_once(tmp_path: Path, taken: list[int]) -> None:
    """(Each case above goes at once where it can: the spy is not vacuous.)"""
    path = tmp_path / "t.jsonl"
    others = [raw.replace(b'"op1"', b'"op9"') for raw in CASES["other types between"]]
    lines = [META, *others, *CASES["run ids and tools odd"]]
    path.write_bytes(b"\n".join(lines) + b"\n")
    same_with_facts(path)
    assert taken == [len(lines) - 1]


_IDS = st.sampled_from(["a", "b", "c", "d"])
_GOOD = st.one_of(
    st.builds(msg, _IDS.map(lambda i: "m" + i), st.sampled_from(["user", "assistant", "tool"])),
    st.builds(dispatch, _IDS.map(lambda i: "op" + i), _IDS, st.sampled_from([None, "", "r1"])),
    st.builds(
        settle,
        _IDS.map(lambda i: "s" + i),
        _IDS.map(lambda i: "op" + i),
        st.sampled_from(["completed", "completed", "failed", "outcome-unknown", "maybe"]),
    ),
    st.builds(line, st.just("run-context"), _IDS, st.just({"run-id": "r1", "sections": []})),
    st.builds(line, st.just("x-note"), _IDS, st.just({})),
    st.builds(
        line,
        st.just("compaction"),
        _IDS.map(lambda i: "k" + i),
        st.builds(lambda m: {"summary": "s", "replaces-through-id": "m" + m}, _IDS),
    ),
)
# At most one line no typed decode takes (its block goes a line at a time).
_BAD = st.sampled_from([b"", b"{not json", b'{"id":"u","type":"message","v":1,"payload":"\xff"}'])


def same_numbers(got: ReplayState, want: ReplayState) -> None:
    """The call ids and tool names numbered in the same order (the facts and operations
    keep numbers, not texts)."""
    assert list(got.events.texts.ids) == list(want.events.texts.ids)
    assert list(got.events.facts._texts) == list(want.events.facts._texts)
    assert list(got.events.facts._words) == list(want.events.facts._words)
    assert list(got.tool_ops.call_numbers) == list(want.tool_ops.call_numbers)


def line_at_a_time(path: Path, **how: Any) -> Any:
    """``replay_file`` with no block planned: every line one at a time."""
    plan = block_replay.BlockPass.plan
    block_replay.BlockPass.plan = lambda *_: None  # type: ignore[assignment,method-assign]
    try:
        return outcome(lambda: replay_file(path, **how))
    finally:
        block_replay.BlockPass.plan = plan  # type: ignore[method-assign]


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.lists(_GOOD, max_size=40),
    bad=st.one_of(st.none(), st.tuples(st.integers(0, 40), _BAD)),
    chunk=st.sampled_from([64, 700, 3000, 1 << 20]),
)
def test_any_file_replays_as_a_line_at_a_time(
    tmp_path_factory: pytest.TempPathFactory,
    body: list[bytes],
    bad: tuple[int, bytes] | None,
    chunk: int,
) -> None:
    """Blank, torn and bad lines too (where the plain reference and the reader differ on
    a blank line after a bad one, each block still goes as its lines would)."""
    path = tmp_path_factory.mktemp("h") / "t.jsonl"
    if bad is not None:
        body.insert(bad[0], bad[1])
    path.write_bytes(b"\n".join([META, *body]) + b"\n")
    saved = reader.CHUNK
    reader.CHUNK = chunk
    try:
        for how in ({"tolerate_tail": False}, {"tolerate_tail": True, "facts": True}):
            got = outcome(lambda how=how: replay_file(path, **how))
            want = line_at_a_time(path, **how)
            if isinstance(want, ReplayState):
                assert isinstance(got, ReplayState), got
                same_state(got, want)
                assert got.events.facts == want.events.facts
                assert got._pending_ops == want._pending_ops
                assert got.tool_ops.run_ids == want.tool_ops.run_ids
                assert got.tool_ops.tools == want.tool_ops.tools
                assert got.unknown_events == want.unknown_events
                same_numbers(got, want)
            else:
                assert got == want
    finally:
        reader.CHUNK = saved
