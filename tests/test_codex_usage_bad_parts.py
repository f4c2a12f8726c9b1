"""Codex token counts with a part that is no count (``1e400``, past 64 bits): only the
response whose own counts it is is known in part; a response whose own last usage tells
every count is read by it; the session's total says the input it knows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from session_core.formats import CODEX, by_name

CX = by_name(CODEX)

GOOD = '{"input_tokens":1000,"cached_input_tokens":800,"output_tokens":50,"total_tokens":1050}'
BAD = '{"input_tokens":1000,"cached_input_tokens":1e400,"output_tokens":50,"total_tokens":1050}'


def _line(minute: int, kind: str, payload: dict[str, Any]) -> str:
    return json.dumps(
        {"timestamp": f"2025-09-01T10:{minute:02}:00.000Z", "type": kind, "payload": payload}
    )


def _turn(minute: int, report: str) -> list[str]:
    """One prompt, one answer and its ``token_count`` payload (``report``: its JSON after
    ``"type":"token_count",``, kept as written: ``1e400`` is no Python number)."""
    count = _line(minute, "event_msg", {"type": "token_count"})
    return [
        _line(minute, "turn_context", {"cwd": "/tmp", "model": "gpt-5"}),
        _line(minute, "event_msg", {"type": "user_message", "message": f"prompt {minute}"}),
        _line(
            minute,
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": f"answer {minute}"}],
            },
        ),
        count.replace('"token_count"}', '"token_count",' + report + "}"),
    ]


def _file(tmp_path: Path, reports: list[str]) -> Path:
    meta = {
        "id": "0199aaaa-0000-7000-8000-000000000001",
        "timestamp": "2025-09-01T10:00:00.000Z",
        "cwd": "/tmp",
        "originator": "codex_cli_rs",
        "cli_version": "0.30.0",
    }
    lines = [_line(0, "session_meta", meta)]
    for n, report in enumerate(reports, 1):
        lines += _turn(n, report)
    path = tmp_path / "rollout.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _flat(usage: str) -> str:
    return usage[1:-1]  # (2025's: the counts in the payload itself)


def _runs(path: Path) -> list[dict[str, Any]]:
    return [run["usage"] for run in CX.replay_json(path)["runs"]]


def test_a_bad_part_of_one_flat_report_leaves_the_later_ones_whole(tmp_path: Path) -> None:
    path = _file(tmp_path, [_flat(GOOD), _flat(BAD), _flat(GOOD), _flat(GOOD)])
    runs = _runs(path)
    assert runs[1]["input-tokens"] is None and runs[1]["reported-in-part"] == 1
    for later in runs[2:]:
        assert later["input-tokens"] == 200 and later["cache-read-tokens"] == 800
        assert later["cost"] is not None and "reported-in-part" not in later
    usage = CX.replay_json(path)["usage"]
    assert usage["priced"] == 3 and usage["reported-in-part"] == 1


def test_a_bad_part_of_one_last_usage_alone_leaves_the_later_ones_whole(tmp_path: Path) -> None:
    def alone(last: str) -> str:
        return '"info":{"total_token_usage":null,"last_token_usage":' + last + "}"

    runs = _runs(_file(tmp_path, [alone(GOOD), alone(BAD), alone(GOOD)]))
    assert runs[2]["input-tokens"] == 200 and runs[2]["cost"] is not None


def _info(total: str, last: str) -> str:
    return '"info":{"total_token_usage":' + total + ',"last_token_usage":' + last + "}"


def test_a_response_whose_own_last_usage_is_whole_is_read_by_it(tmp_path: Path) -> None:
    """The total before it has a cached part that is no count (so the change of the
    totals has none): its own last usage tells every count."""
    bad_total = GOOD.replace("1000", "2000").replace("800,", "1e400,").replace("50,", "100,")
    after = '{"input_tokens":3000,"cached_input_tokens":2400,"output_tokens":150}'
    runs = _runs(_file(tmp_path, [_info(GOOD, GOOD), _info(bad_total, BAD), _info(after, GOOD)]))
    assert runs[1]["reported-in-part"] == 1
    assert runs[2]["input-tokens"] == 200 and runs[2]["cache-read-tokens"] == 800
    assert runs[2]["cost"] is not None and "reported-in-part" not in runs[2]


def test_a_last_total_with_its_cached_part_unknown_keeps_its_input(tmp_path: Path) -> None:
    """The session's total holds the input it states (its split unknown: tokens of no
    named kind, in part), never fewer tokens than its first response alone."""
    bad_total = '{"input_tokens":3000,"cached_input_tokens":1e400,"output_tokens":120}'
    path = _file(tmp_path, [_info(GOOD, GOOD), _info(bad_total, BAD.replace("1000", "2000"))])
    usage = CX.replay_json(path)["usage"]
    assert usage["input-tokens"] is None and usage["cache-read-tokens"] is None
    assert usage["total-only-tokens"] == 3000 and usage["output-tokens"] == 120
    assert usage["reported-in-part"] == 1
    note = CX.check(path)
    assert "3,120 tok" in note and "reported in part" in note


def test_a_cache_write_is_bounded_by_the_input_when_the_cached_part_is_unknown(
    tmp_path: Path,
) -> None:
    usage = (
        '{"input_tokens":3000,"cached_input_tokens":1e400,"output_tokens":100,'
        '"cache_write_input_tokens":50000}'
    )
    path = _file(tmp_path, [_info(usage, usage)])
    (run,) = _runs(path)
    assert run["cache-write-tokens"] == 3000
    total = CX.replay_json(path)["usage"]
    assert total["cache-write-tokens"] == 3000 and "total-only-tokens" not in total
    assert "50,000" not in CX.check(path)
