"""A usage with no number in it, or known in part, read alike in every format: one that
says nothing is not reported (as a usage of null), one that lacks its input or output
is "reported in part" and not priced as if the count it lacks were 0, and a run counts
its responses that reported nothing (the audit of session 36: Claude Code priced ``{}``
at $0 and read it "reported", a run of Claude Code's read exact, v1's ``{"cost": null}``
read "1 of 2 priced")."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from claude_code_writer import CCWriter, text
from codex_helpers import opened
from codex_writer import RolloutWriter
from helpers import run_cli

from session_core import Message, Session, open_transcript
from session_core.message_usage import v1_usage
from session_core.scan import scan_file
from session_core.usage_totals import Usage
from session_core.views import replay_any

MODEL = "claude-opus-4-6"  # (one the price table knows)
FULL = {"input_tokens": 100, "output_tokens": 20}
NULLS = {k: None for k in ("input_tokens", "output_tokens", "cache_read_input_tokens")}
FULL_V1 = {"prompt-tokens": 100, "completion-tokens": 20}


def _claude_code(path: Path, runs: list[list[dict[str, Any] | None]]) -> Path:
    """A session of these runs, each a prompt and responses of these usages (None: a
    response whose lines have no ``usage``)."""
    w = CCWriter()
    n = 0
    for run in runs:
        w.user(f"prompt {n}")
        for usage in run:
            n += 1
            w.assistant(f"msg_{n}", [text(f"answer {n}")], usage={}, model=MODEL)
            message = w.lines[-1]["message"]
            if usage is None:
                del message["usage"]
            else:
                message["usage"] = usage
    return w.write(path)


def test_a_claude_code_usage_that_says_no_count_is_not_reported_nor_priced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _claude_code(tmp_path / "s.jsonl", [[{}], [NULLS], [{"output_tokens": 40}]])
    said = replay_any(path)
    usage = said["usage"]
    assert (usage["reported"], usage["reported-in-part"]) == (1, 1)
    assert usage["output-tokens"] == 40 and usage["cost"] is None  # (was $0.0010: input as 0)
    runs = [run["usage"] for run in said["runs"]]
    assert [(u["reported"], u["cost"]) for u in runs] == [(0, None), (0, None), (1, None)]
    t = open_transcript(path)
    assert [r.usage.describe() for r in t.runs[:2]] == ["unknown", "unknown"]  # (not $0.0000)
    assert t.usage.tokens_partial  # (the browser's ``≥``)
    assert scan_file(path, live_window=0).tokens_partial
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0
    assert "usage 40 tok · cost unknown · 1 of 3 responses reported · 1 reported in part" in out


def test_a_claude_code_response_known_in_part_is_not_priced_as_if_the_rest_were_0(
    tmp_path: Path,
) -> None:
    path = _claude_code(
        tmp_path / "s.jsonl", [[FULL], [{"input_tokens": None, "output_tokens": 50}]]
    )
    t = open_transcript(path)
    whole, part = (r.usage for r in t.runs)
    assert whole.cost is not None and (part.cost, part.in_part) == (None, 1)
    assert t.usage.cost == whole.cost and t.usage.describe().endswith(
        " (1 of 2 priced) · 1 reported in part"
    )
    assert replay_any(path)["usage"]["reported-in-part"] == 1


def test_a_claude_code_run_counts_its_responses_that_reported_nothing(tmp_path: Path) -> None:
    path = _claude_code(tmp_path / "s.jsonl", [[FULL, None], [None]])
    t = open_transcript(path)
    first, second = (r.usage for r in t.runs)
    assert (first.reported, first.responses) == (1, 2)
    assert first.tokens_partial and first.describe().endswith(" · 1 of 2 responses reported")
    assert (second.reported, second.responses) == (0, 1)
    assert Usage.total(r.usage for r in t.runs) == t.usage  # (the runs add up to the file)


def test_a_codex_total_with_no_input_count_is_unknown_not_0(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.turn_context("t", model="gpt-5.3-codex")
    w.message("user", "hi")
    w.message("assistant", "hello")
    w.event("token_count", info={"total_token_usage": {"output_tokens": 40}}, rate_limits=None)
    w.message("assistant", "more")
    nulls = dict.fromkeys(("input_tokens", "cached_input_tokens", "output_tokens"))
    w.event("token_count", info={"total_token_usage": nulls}, rate_limits=None)
    t = opened(Path(w.path))
    assert (t.usage.tokens, t.usage.cost, t.usage.reported, t.usage.responses) == (
        None,
        None,
        0,
        2,
    )  # (was 40 tok priced as if no input, the nulls a total of 0)
    # (each response's item says its usage is unknown: reported by none, no count of 0)
    said = [i.usage for i in t.raw if i.usage is not None]
    assert len(said) == 2 and all(u.reported == 0 and u.tokens is None for u in said)


def _v1(path: Path, usages: list[dict[str, Any]]) -> Path:
    with Session.create(path, meta={"agent": "t", "model": "kimi-k2"}) as s:
        for n, usage in enumerate(usages):
            s.append_message(Message(role="user", content=f"q{n}"))
            s.append_message(Message(role="assistant", content=f"a{n}"), extra={"usage": usage})
    return path


def test_a_v1_usage_with_no_number_in_it_is_not_reported(tmp_path: Path) -> None:
    assert v1_usage({"usage": {"cost": None}}) is None and v1_usage({"usage": {}}) is None
    full = {"prompt-tokens": 100, "completion-tokens": 10, "total-tokens": 110, "cost": 0.001}
    path = _v1(tmp_path / "t.jsonl", [full, {"cost": None}, {}])
    usage = replay_any(path)["usage"]
    assert usage["reported"] == 1 and "priced" not in usage and "reported-in-part" not in usage
    said = open_transcript(path).usage
    assert said.describe() == "110 tok (100 in + 10 out) · $0.0010 · 1 of 3 responses reported"
    row = scan_file(path, live_window=0)
    assert (row.tokens, row.tokens_partial, row.cost_partial) == (110, True, True)


def test_a_usage_with_no_number_on_a_users_message_is_no_response(tmp_path: Path) -> None:
    """Only an assistant's message, or one that reported usage, is a response: the index
    pass and the plain read count alike."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_message(Message(role="user", content="q"), extra={"usage": {"cost": None}})
        s.append_message(Message(role="assistant", content="a"), extra={"usage": {"cost": 0.5}})
    assert open_transcript(path).usage.responses == 1
    assert scan_file(path, live_window=0).cost_partial is False


def test_a_claude_code_negative_count_is_unknown_not_subtracted(tmp_path: Path) -> None:
    """(as v1 and Codex read one: it was summed into every total, and priced)"""
    path = _claude_code(tmp_path / "s.jsonl", [[FULL, {**FULL, "input_tokens": -5000}]])
    t = open_transcript(path)
    first, second = (m.usage for m in t.messages if m.usage is not None)
    assert second.input_tokens is None and second.in_part == 1
    assert t.usage.input_tokens == first.input_tokens  # (not less: nothing subtracted)
    assert scan_file(str(path)).tokens == t.usage.tokens


def test_a_v1_export_says_a_user_message_with_no_usage_number_is_no_response(
    tmp_path: Path,
) -> None:
    """The export's rule is every total's (``counts_as_turn``): it said "usage: unknown
    (not reported)" of a user's message whose usage held no number."""
    from session_core.export import export

    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "t", "model": "kimi-k2"}) as s:
        s.append_message(Message(role="user", content="q"), extra={"usage": {"cost": None}})
        s.append_message(Message(role="assistant", content="a"), extra={"usage": FULL_V1})
    said = [line for line in export(path, "md").splitlines() if line.startswith("usage: ")]
    assert len(said) == 1 and "unknown" not in said[0]


def test_an_agentgo_message_usage_with_no_number_is_as_one_of_null(tmp_path: Path) -> None:
    """Its model call's usage shown (as for ``usage: null``), and a user's message with
    ``usage: {}`` no response."""
    from agentgo_helpers import ASSISTANT, REQUEST, USAGE, model
    from session_core.agentgo import AgentGoSession
    from session_core.export import export

    def write(path: Path, own: Any, user: Any) -> Path:
        with AgentGoSession.create(path) as s:
            run = s.begin_run()
            run.record("agent_start")
            said = {"kind": "user", "content": [{"type": "text", "text": "hi"}], "usage": user}
            run.record("message_end", {"message": said})
            run.record("model_request", REQUEST, execution=model("m1"))
            end = {"message": ASSISTANT, "usage": USAGE}
            run.record("model_exec_end", end, execution=model("m1"))
            run.record("message_end", {"message": {**ASSISTANT, "usage": own}})
            run.record("agent_end", {})
        return path

    null = open_transcript(write(tmp_path / "null.jsonl", None, None))
    empty_path = write(tmp_path / "empty.jsonl", {}, {})
    empty = open_transcript(empty_path)
    shown = [(m.role, m.usage.describe() if m.usage else None) for m in empty.messages]
    assert shown == [(m.role, m.usage.describe() if m.usage else None) for m in null.messages]
    assert empty.usage.describe() == null.usage.describe()
    assert not any("unknown" in line for line in export(empty_path, "md").splitlines())


def test_an_agentgo_call_usage_with_no_number_takes_its_messages(tmp_path: Path) -> None:
    """A ``model_exec_end`` whose usage holds no number reads its message's, as one whose
    usage is null (the totals said unknown where the message said its tokens)."""
    from agentgo_helpers import ASSISTANT, REQUEST, model
    from session_core.agentgo import AgentGoSession
    from session_core.scan import scan_file

    own = {**ASSISTANT, "usage": {"input_tokens": 100, "output_tokens": 20}}
    said = {}
    for name, call in (("null", None), ("empty", {})):
        path = tmp_path / f"{name}.jsonl"
        with AgentGoSession.create(path) as s:
            run = s.begin_run()
            run.record("agent_start")
            run.record("model_request", REQUEST, execution=model("m1"))
            run.record("model_exec_end", {"message": own, "usage": call}, execution=model("m1"))
            run.record("message_end", {"message": own})
            run.record("agent_end", {})
        t = open_transcript(path)
        said[name] = (t.usage.describe(), scan_file(str(path)).tokens)
    assert said["empty"] == said["null"] and said["null"][1] == 120
