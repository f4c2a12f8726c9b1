"""An agentgo row's count of the calls no execution is of (``AskTally``): read off each
message's tool-call ids alone (it built every message's parts, its arguments' JSON
too, to read them: a big file's row scanned ~50% slower), and counted as fed (a live
row walked every ask and execution on each refresh). Counted as ``check`` counts."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from session_core.formats.agentgo import asked
from session_core.formats.agentgo.asked import AskTally, asked_calls, asked_ids, message_parts
from session_core.scan import scan_file
from session_core.tool_ops import ask_in_run

IDS = st.one_of(st.sampled_from(["a", "b", "", "c"]), st.none(), st.integers(0, 2))
CALL = st.fixed_dictionaries(
    {"type": st.sampled_from(["tool_call", "text"])}, optional={"id": IDS, "arguments": IDS}
)
CONTENT = st.one_of(st.lists(st.one_of(CALL, st.integers(), st.text(max_size=2))), st.text())
MESSAGE = st.fixed_dictionaries({"content": CONTENT}, optional={"tool_call_id": IDS})


@given(MESSAGE)
def test_the_ids_asked_are_those_of_the_parts(message: dict[str, Any]) -> None:
    assert asked_ids(message) == list(asked_calls(message_parts(message)))


def _walked(events: list[tuple[Any, ...]], open_run: str | None) -> Counter[str]:
    """The count as a walk of everything fed says it (the rule, read whole)."""
    asks: dict[str, tuple[list[int], list[str]]] = {}
    calls: dict[tuple[str, str, int], list[Any]] = {}
    for seq, event in enumerate(events):
        if event[0] == "ask":
            for call_id in event[1]:
                asks.setdefault(call_id, ([], []))[0].append(seq)
                asks[call_id][1].append(event[2])
            continue
        _, key, kind, tcid, model = event
        call = calls.setdefault(key, [seq, None, False, False])
        call[3] = call[3] or model or kind in ("model_request", "model_exec_end")
        if kind in ("tool_exec_start", "tool_exec_end"):
            call[2] = True
            if kind == "tool_exec_start" and tcid is not None:
                call[1] = tcid
    started = set()
    for (run_id, exec_id, _attempt), (first, tcid, tool, model) in calls.items():
        call_id = tcid or exec_id
        if tool and not model and call_id in asks:
            seqs, runs = asks[call_id]
            started.add((call_id, ask_in_run(seqs, runs, first, run_id)))
    said = Counter(
        "not-dispatched-yet" if run_id == open_run else "never-dispatched"
        for call_id, (_seqs, runs) in asks.items()
        for index, run_id in enumerate(runs)
        if (call_id, index) not in started
    )
    return said


RUNS = st.sampled_from(["r1", "r2"])
ASK = st.tuples(st.just("ask"), st.lists(st.sampled_from(["a", "b", "c"]), unique=True), RUNS)
KINDS = ["model_request", "model_exec_end", "tool_exec_start", "tool_exec_end", "retry"]
EXEC = st.tuples(
    st.just("exec"),
    st.tuples(RUNS, st.sampled_from(["a", "b", "x"]), st.integers(1, 2)),
    st.sampled_from(KINDS),
    st.one_of(st.none(), st.sampled_from(["a", "b", "c"])),
    st.booleans(),
)


@given(st.lists(st.one_of(ASK, EXEC), max_size=30), st.one_of(st.none(), RUNS))
def test_counted_as_fed_is_counted_whole(events: list[tuple[Any, ...]], open_run: Any) -> None:
    """Counted after each record (a live row's refreshes), the count is the walk's."""
    tally = AskTally()
    for seq, event in enumerate(events):
        if event[0] == "ask":
            tally.asked(event[1], seq, event[2])
        else:
            _, key, kind, tcid, model = event
            tally.execution(key, kind, seq, {"tool_call_id": tcid}, model)
        said = tally.counts(open_run)
        assert +said == _walked(events[: seq + 1], open_run), seq


def test_a_count_again_matches_only_what_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A live row counts on each refresh: the asks and executions fed before are not
    walked again (10,000 of them matched once, then one more)."""
    tally = AskTally()
    for n in range(10_000):
        tally.asked([f"c{n}"], 2 * n, "r")
        tally.execution(("r", f"c{n}", 1), "tool_exec_start", 2 * n + 1, {}, False)
    assert +tally.counts("r") == Counter()
    matched: list[int] = []

    def counted(*args: Any) -> int:
        matched.append(1)
        return ask_in_run(*args)

    monkeypatch.setattr(asked, "ask_in_run", counted)
    tally.asked(["late"], 20_000, "r")
    assert tally.counts("r")["not-dispatched-yet"] == 1
    assert len(matched) <= 1


def test_a_row_builds_no_parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The row reads the ids alone: no message's parts (its text, its arguments' JSON)."""
    from test_agentgo_row_unstarted import write_asks

    path = tmp_path / "asks.jsonl"
    write_asks(path, both=False)

    def built(message: dict[str, Any]) -> Any:
        raise AssertionError("a message's parts built")

    monkeypatch.setattr(asked, "message_parts", built)
    assert scan_file(path).unstarted == "1 call never dispatched"
