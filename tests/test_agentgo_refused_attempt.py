"""An agentgo model call the API refused (a 429: its ``model_exec_end`` has an error, no
message, no partial one, no usage) made no response (the spec: "success has `message`;
failure has `error` and maybe `partial_message`"): it is no response that did not report
usage (audit P, session 41: an exact total read "1 of 2 responses reported" and ``≥``).
One that failed after a partial message did make one, whose usage is unknown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import run_cli

from session_core.formats import by_name
from session_core.scan import scan_file

RUN = "19dcf7f8-51c3-46b2-b82f-e0674e45ea5b"
USAGE = {"input_tokens": 3075, "output_tokens": 611, "cache_read_tokens": 1878, "cost": 0.0133}
ANSWER = {"kind": "assistant", "content": [{"type": "text", "text": "done"}]}


def _write(path: Path, failed: dict[str, Any], only: bool = False) -> Path:
    """A run whose model call's first attempt ends with ``failed``, retried, the second
    answering with ``USAGE`` (``only``: not retried, the run ends in that error)."""
    records: list[dict[str, Any]] = []

    def add(kind: str, data: dict[str, Any], attempt: int | None = None) -> None:
        record: dict[str, Any] = {"type": kind, "seq": len(records), "session_id": "s1"}
        record["time"] = f"2026-08-11T00:13:{len(records):02d}.000Z"
        if kind != "session_start":
            record["run_id"] = RUN
        if attempt is not None:
            record["execution"] = {"attempt": attempt, "id": "turn-1", "kind": "model"}
        record["data"] = data
        records.append(record)

    prompt = {"kind": "user", "content": [{"type": "text", "text": "fix it"}]}
    request = {"config": {"model": "gpt-5-mini"}, "messages": [prompt]}
    add("session_start", {"version": 1})
    add("run_start", {})
    add("agent_start", {})
    add("message_end", {"message": prompt})
    add("turn_start", {"turn_index": 0})
    add("model_request", request, 1)
    add("model_exec_end", failed, 1)
    if only:
        add("turn_end", {"turn_index": 0})
        add("agent_end", {"stop_reason": "error", "error": failed["error"]})
        add("run_close", {})
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
        return path
    add("retry", {"attempt": 2, "delay_ms": 1000, "error": "429"}, 1)
    add("model_request", request, 2)
    add("model_exec_end", {"message": ANSWER, "usage": USAGE}, 2)
    add("message_end", {"message": {**ANSWER, "usage": USAGE}})
    add("turn_end", {"turn_index": 0})
    add("agent_end", {"stop_reason": "end_turn"})
    add("run_close", {})
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


@pytest.mark.parametrize(
    ("failed", "responses"),
    [
        ({"error": "429 rate limited: retry after 2s"}, 1),  # refused: no response
        ({"error": "stream reset", "partial_message": ANSWER}, 2),  # one, usage unknown
    ],
)
def test_a_refused_attempt_is_no_response(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], failed: dict[str, Any], responses: int
) -> None:
    path = _write(tmp_path / "s.jsonl", failed)
    model = by_name("agentgo-v1").open(path, writer_alive=False)
    assert (model.usage.reported, model.usage.responses, model.usage.tokens) == (
        1,
        responses,
        3686,
    )
    exact = responses == 1
    _, out, _ = run_cli(capsys, "check", str(path))
    assert ("responses reported" not in out) == exact
    _, md, _ = run_cli(capsys, "export", "--format", "md", str(path))
    assert ("1 of 2 responses reported" not in md) == exact
    assert ("| none \\(refused: no response\\) | 429" in md) == exact
    # the summary's usage row in the header's words, every qualifier said once
    (row,) = [line for line in md.splitlines() if line.startswith("| usage | ")]
    assert row.startswith("| usage | 3,686 tok \\(1,197 in \\+ 611 out \\+ 1,878 cache read\\)")
    assert row.count("responses reported") == (0 if exact else 1)
    row = scan_file(path, live_window=0)
    assert (row.tokens, row.tokens_partial) == (3686, not exact)


def test_a_run_whose_only_call_was_refused_made_no_response_not_usage_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Its one call refused, nothing could report usage: every total says so in the
    words of one rule (``usage_totals.NO_RESPONSE``), as its call row says "none
    (refused: no response)" (review 2: the file said "usage unknown", the run's row
    "unknown (no responses)")."""
    path = _write(tmp_path / "s.jsonl", {"error": "429 rate limited"}, only=True)
    model = by_name("agentgo-v1").open(path, writer_alive=False)
    assert (model.usage.reported, model.usage.responses, model.usage.tokens) == (0, 0, None)
    assert model.made_no_response()
    _, out, _ = run_cli(capsys, "check", str(path))
    assert out.endswith(", usage none (no model response))\n"), out
    _, md, _ = run_cli(capsys, "export", "--format", "md", str(path))
    assert "| usage | none \\(no model response\\) |" in md
    (run_row,) = [line for line in md.splitlines() if line.startswith(f"| {RUN} | closed")]
    assert run_row.count("none \\(no model response\\)") == 2  # (tokens, cost)
    assert "| none \\(refused: no response\\) | 429" in md
