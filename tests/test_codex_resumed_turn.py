"""A Codex rollout that starts inside a turn (a resumed one: no ``task_started`` before
its end event), or that names no turn at all: the run its end event makes takes what
came before it (a status-less web search, the model's answer); a search in no run is
done once the model spoke after it."""

from __future__ import annotations

from pathlib import Path

import pytest
from codex_helpers import CODEX, opened
from codex_writer import RolloutWriter, usage
from helpers import follow_into, neutral

from session_core.usage_totals import Usage

NO_OUTPUT = {"input_tokens": 150, "cached_input_tokens": 30, "output_tokens": None}
SEARCH = {"type": "web_search_call", "id": "ws_1", "action": {"type": "search", "query": "q"}}


def same_followed(path: Path) -> None:
    """Followed (in one read and a line at a time), it is what a whole read is."""
    for batch in (1 << 20, 60):
        live = CODEX.live(str(path))
        follow_into(live.apply, path, batch, live.format.parsed_updates)
        for alive in (False, None):
            assert neutral(live.transcript(writer_alive=alive)) == neutral(opened(path, alive))


@pytest.mark.parametrize(
    ("end", "state", "search"),
    [("task_complete", "finished", "completed"), ("turn_aborted", "aborted", "interrupted")],
)
def test_a_search_in_a_turn_the_file_starts_inside_settles_as_it_ends(
    tmp_path: Path, end: str, state: str, search: str
) -> None:
    """(review 1, finding 2) A status-less ``web_search_call`` before the end of a turn
    whose start the file does not hold is settled as that turn ended: it stayed
    pending (*interrupted*, the file *crashed*, though its turn finished)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.write("response_item", SEARCH)  # (the last of its turn: the model said nothing after)
    w.event(end, turn_id="t0")
    path = Path(w.path)
    for alive in (False, None):
        t = opened(path, alive)
        assert [(r.id, r.state) for r in t.runs] == [("t0", state)]
        assert [(op.tool, op.state) for op in t.tool_operations] == [("web_search", search)]
    same_followed(path)


def test_a_search_in_no_turn_is_done_once_the_model_spoke_after_it(tmp_path: Path) -> None:
    """(review 1, finding 2) A rollout with no task events nor prompts has no runs: a
    status-less search is completed once the model spoke after it (as an output answers
    a call), else pending as the file's other unanswered calls (it stayed *interrupted*)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("user", "search something")
    w.write("response_item", SEARCH)
    w.message("assistant", "found it")
    w.message("user", "again")
    w.write("response_item", {**SEARCH, "id": "ws_2"})
    path = Path(w.path)
    assert opened(path, False).runs == []
    states = {
        alive: [op.state for op in opened(path, alive).tool_operations] for alive in (False, None)
    }
    assert states == {False: ["completed", "interrupted"], None: ["completed", "running"]}
    same_followed(path)


@pytest.mark.parametrize("reported", [False, True])
def test_a_turn_the_file_starts_inside_was_answered(tmp_path: Path, reported: bool) -> None:
    """(review 1, finding 3) The run a turn's end event makes was answered where the
    model spoke before it: its usage unknown (no report) or the report's, not "no model
    request" (``answered`` was never set, as no run was open when the model spoke)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("assistant", "answer from a resumed turn")
    if reported:
        w.token_count((10, 0, 1, 0))
    w.task_complete("t0")
    w.task_started("t1")  # (a prompt alone: no model request)
    w.message("user", "next")
    w.turn_aborted("t1")
    path = Path(w.path)
    t = opened(path, False)
    assert [(r.id, r.answered) for r in t.runs] == [("t0", True), ("t1", False)]
    same_followed(path)


def test_a_turn_the_file_starts_inside_takes_the_usage_reported_before_its_end(
    tmp_path: Path,
) -> None:
    """(review 1, finding 3) The run a turn's end event makes holds the usage reported
    while no run was open since the previous run ended (it read "unknown", the file's
    tokens in no run); a run begun by its ``task_started`` takes none of it. Each
    report in one run: the runs add up to the file."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("assistant", "answer from a resumed turn")
    w.token_count((10, 0, 1, 0))  # t0's (11 tok)
    w.task_complete("t0")
    w.task_started("t1")
    w.message("user", "next")
    w.message("assistant", "ok")
    w.token_count((25, 0, 3, 0))  # t1's (17)
    w.task_complete("t1")
    w.message("assistant", "another resumed answer")  # (t2's end: no task_started)
    w.token_count((45, 0, 4, 0))  # t2's (21)
    w.task_complete("t2")
    path = Path(w.path)
    for alive in (False, None):
        t = opened(path, alive)
        runs = [r.usage for r in t.runs]
        assert [(r.id, u.tokens, u.reported) for r, u in zip(t.runs, runs, strict=True)] == [
            ("t0", 11, 1),
            ("t1", 17, 1),
            ("t2", 21, 1),
        ]
        assert Usage.total(runs) == t.usage  # (nothing twice, nothing left out)
        assert t.runs[0].describe_usage().startswith("11 tok (10 in + 1 out")
    same_followed(path)


@pytest.mark.parametrize("covered_inside", [False, True])
def test_a_resumed_turns_unknown_response_takes_the_usage_a_later_total_tells(
    tmp_path: Path, covered_inside: bool
) -> None:
    """A response outside any run whose report said no usage, known from a later total
    (``gap_share``): the run the end event makes takes it, whether that total came
    before the end event or in the next turn."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("assistant", "answer whose report says no output")
    w.event("token_count", info={"total_token_usage": NO_OUTPUT, "last_token_usage": NO_OUTPUT})
    if covered_inside:
        w.message("assistant", "a second answer")
        w.event("token_count", info={"total_token_usage": usage((400, 60, 50, 0)),
            "last_token_usage": usage((150, 10, 20, 0))})  # fmt: skip
    w.task_complete("t0")
    w.task_started("t1")
    w.message("user", "next")
    w.message("assistant", "ok")
    w.event("token_count", info={"total_token_usage": usage((700, 60, 80, 0)),
        "last_token_usage": usage((300, 0, 30, 0))})  # fmt: skip
    w.task_complete("t1")
    path = Path(w.path)
    for alive in (False, None):
        t = opened(path, alive)
        runs = [r.usage for r in t.runs]
        assert [u.reported for u in runs] == [2 if covered_inside else 1, 1]
        assert Usage.total(runs) == t.usage
        assert not t.usage.tokens_partial
    same_followed(path)
