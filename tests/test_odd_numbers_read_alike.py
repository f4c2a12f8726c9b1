"""Odd numbers (``1e400``, beyond a double; an integer beyond 64 bits) read alike by a
Claude Code or Codex reader's two paths: the typed decode (msgspec ``Struct``s) and the
dict path a line takes when a field has a type the Structs do not name. Each case is
written twice, the second copy forced to the dict path by one field no reading uses
(``"gitBranch": 5``; Codex, a lone surrogate escape beside the payload): the replays
must be the same, and ``check`` must read the line (``1e400`` is JSON), never calling
it "not valid JSON"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_codex_typed import assert_same

from session_core.formats import CLAUDE_CODE, CODEX, by_name

CC = by_name(CLAUDE_CODE)
CX = by_name(CODEX)

_PROMPT = (
    '{"parentUuid":null,"isSidechain":false,"sessionId":"s1","type":"user",'
    '"message":{"role":"user","content":"hi"},"uuid":"u1",'
    '"timestamp":"2026-02-02T02:40:00.000Z"}'
)

# (a line after it: the line with the odd number is not the file's last, its crash tail)
_NEXT = (
    _PROMPT.replace('"parentUuid":null', '"parentUuid":"a1"')
    .replace('"u1"', '"u2"')
    .replace('"hi"', '"more"')
    .replace("40:00", "40:09")
)


def _answer(usage: str, extra: str = "") -> str:
    return (
        '{"parentUuid":"u1","isSidechain":false,"sessionId":"s1"' + extra + ',"type":"assistant",'
        '"message":{"model":"claude-opus-4-6","id":"msg_1","role":"assistant",'
        '"content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn",'
        '"usage":' + usage + '},"requestId":"r1","uuid":"a1",'
        '"timestamp":"2026-02-02T02:40:01.000Z"}'
    )


def _both(tmp_path: Path, name: str, lines: list[str], forced: list[str], suffix: str) -> Any:
    typed, dict_ = tmp_path / f"{name}-typed{suffix}", tmp_path / f"{name}-dict{suffix}"
    typed.write_text("\n".join(lines) + "\n")
    dict_.write_text("\n".join(forced) + "\n")
    return typed, dict_


def _read_alike(fmt: Any, typed: Path, dict_: Path) -> tuple[dict[str, Any], str]:
    """Both copies' replays (the same) and ``check``'s note (the same: no damage)."""
    one, other = fmt.replay_json(typed), fmt.replay_json(dict_)
    assert one == other
    note = fmt.check(typed)
    assert note == fmt.check(dict_)
    assert not any("not valid JSON" in w for w in one.get("warnings", []))
    return one, note


def _cc(tmp_path: Path, name: str, usage: str) -> tuple[dict[str, Any], str]:
    typed, dict_ = _both(
        tmp_path,
        name,
        [_PROMPT, _answer(usage), _NEXT],
        [_PROMPT, _answer(usage, ',"gitBranch":5'), _NEXT],
        ".jsonl",
    )
    return _read_alike(CC, typed, dict_)


def test_a_count_of_1e400_is_unknown_and_its_line_kept(tmp_path: Path) -> None:
    replay, note = _cc(tmp_path, "inf", '{"input_tokens":1e400,"output_tokens":5}')
    assert [m["content"] for m in replay["messages"]][:2] == ["hi", "hello"]
    usage = replay["usage"]
    assert usage["input-tokens"] is None and usage["output-tokens"] == 5
    assert usage["cost"] is None and usage["reported-in-part"] == 1
    assert "reported in part" in note


@pytest.mark.parametrize(
    "count",
    ["1180591620717411303424", "9223372036854775808"],  # 2**70; 2**63, past an int64 too
)
def test_a_count_beyond_64_bits_is_unknown_and_never_priced(tmp_path: Path, count: str) -> None:
    replay, note = _cc(tmp_path, "big", '{"input_tokens":' + count + ',"output_tokens":5}')
    usage = replay["usage"]
    assert usage["input-tokens"] is None and usage["output-tokens"] == 5
    assert usage["cost"] is None and usage["reported-in-part"] == 1
    assert "1,180,591" not in note and "9,223,372" not in note


def test_a_one_hour_cache_write_beyond_64_bits_is_not_said(tmp_path: Path) -> None:
    """Its split of the cache writes is not known: they are priced as a writer that
    does not split them is, never at a count past 64 bits."""
    said = '{"input_tokens":3,"output_tokens":5,"cache_creation_input_tokens":1000'
    replay, _note = _cc(
        tmp_path,
        "hour",
        said + ',"cache_creation":{"ephemeral_1h_input_tokens":1180591620717411303424}}',
    )
    plain, _ = _cc(tmp_path, "plain", said + "}")
    assert replay["usage"] == plain["usage"]
    assert 0 < replay["usage"]["cost"] < 0.1


def test_web_searches_beyond_64_bits_are_read_alike(tmp_path: Path) -> None:
    replay, _note = _cc(
        tmp_path,
        "searches",
        '{"input_tokens":3,"output_tokens":5,'
        '"server_tool_use":{"web_search_requests":1180591620717411303424}}',
    )
    assert replay["usage"]["input-tokens"] == 3


def test_cost_usd_of_1e400_is_no_cost_and_its_line_kept(tmp_path: Path) -> None:
    replay, _note = _cc(tmp_path, "cost", '{"input_tokens":3,"output_tokens":5},"costUSD":1e400')
    assert [m["content"] for m in replay["messages"]][:2] == ["hi", "hello"]
    assert replay["usage"]["input-tokens"] == 3


def test_a_results_1e400_is_read_alike(tmp_path: Path) -> None:
    call = _answer('{"input_tokens":3,"output_tokens":5}').replace(
        '[{"type":"text","text":"hello"}]',
        '[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]',
    )
    result = (
        '{"parentUuid":"a1","isSidechain":false,"sessionId":"s1"%s,"type":"user",'
        '"message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result",'
        '"content":"file.txt"}]},"toolUseResult":{"stdout":"file.txt","totalDurationMs":1e400},'
        '"uuid":"r1","timestamp":"2026-02-02T02:40:02.000Z"}'
    )
    forced = [_PROMPT, call, result % ',"gitBranch":5']
    typed, dict_ = _both(tmp_path, "result", [_PROMPT, call, result % ""], forced, ".jsonl")
    replay, _note = _read_alike(CC, typed, dict_)
    (op,) = replay["tool-operations"]
    assert op["state"] == "completed"


def test_system_lines_with_1e400_are_read(tmp_path: Path) -> None:
    duration = (
        '{"parentUuid":"a1","isSidechain":false,"sessionId":"s1","type":"system",'
        '"subtype":"turn_duration","durationMs":1e400,"uuid":"d1",'
        '"timestamp":"2026-02-02T02:40:02.000Z"}'
    )
    compacted = (
        '{"parentUuid":null,"logicalParentUuid":"d1","isSidechain":false,"sessionId":"s1",'
        '"type":"system","subtype":"compact_boundary","content":"Conversation compacted",'
        '"compactMetadata":{"trigger":"auto","preTokens":1e400},"uuid":"c1",'
        '"timestamp":"2026-02-02T02:40:03.000Z"}'
    )
    path = tmp_path / "system.jsonl"
    lines = [_PROMPT, _answer('{"input_tokens":3,"output_tokens":5}'), duration, compacted]
    path.write_text("\n".join(lines) + "\n")
    CC.check(path)  # (no damage)
    replay = CC.replay_json(path)
    assert not any("not valid JSON" in w for w in replay.get("warnings", []))
    assert [c["tokens-before"] for c in replay["compactions"]] == [None]


_CX_HEAD = [
    '{"timestamp":"2025-09-01T10:00:00.000Z","type":"session_meta","payload":{"id":"s1",'
    '"timestamp":"2025-09-01T10:00:00.000Z","cwd":"/tmp","originator":"codex_cli_rs",'
    '"cli_version":"0.30.0"}}',
    '{"timestamp":"2025-09-01T10:00:01.000Z","type":"turn_context","payload":{"cwd":"/tmp",'
    '"model":"gpt-5"}}',
    '{"timestamp":"2025-09-01T10:00:02.000Z","type":"event_msg","payload":{"type":"user_message",'
    '"message":"hi"}}',
    '{"timestamp":"2025-09-01T10:00:03.000Z","type":"response_item","payload":{"type":"message",'
    '"role":"assistant","content":[{"type":"output_text","text":"hello"}]}}',
]
_CX_AFTER = (
    '{"timestamp":"2025-09-01T10:00:05.000Z","type":"event_msg","payload":{"type":"agent_message",'
    '"message":"done"}}'
)


def _cx(tmp_path: Path, name: str, line: str) -> tuple[dict[str, Any], str]:
    forced = line.replace('{"timestamp"', '{"zz":"\\ud800","timestamp"', 1)
    typed, dict_ = _both(
        tmp_path, name, [*_CX_HEAD, line, _CX_AFTER], [*_CX_HEAD, forced, _CX_AFTER], ".jsonl"
    )
    return _read_alike(CX, typed, dict_)


def test_codex_last_usage_of_1e400_keeps_its_line(tmp_path: Path) -> None:
    replay, _note = _cx(
        tmp_path,
        "last",
        '{"timestamp":"2025-09-01T10:00:04.000Z","type":"event_msg","payload":{"type":"token_count",'
        '"info":{"total_token_usage":{"input_tokens":100,"output_tokens":5,"total_tokens":105},'
        '"last_token_usage":{"input_tokens":1e400,"output_tokens":5,"total_tokens":105},'
        '"model_context_window":1000}}}',
    )
    assert replay["usage"]["input-tokens"] == 100


def test_codex_total_usage_of_1e400_is_unknown(tmp_path: Path) -> None:
    replay, _note = _cx(
        tmp_path,
        "total",
        '{"timestamp":"2025-09-01T10:00:04.000Z","type":"event_msg","payload":{"type":"token_count",'
        '"info":{"total_token_usage":{"input_tokens":1e400,"output_tokens":5,"total_tokens":105}}}}',
    )
    assert replay["usage"]["input-tokens"] is None


@pytest.mark.parametrize(
    "flat",
    ['"cached_input_tokens":100,"reasoning_output_tokens":7', '"cache_write_input_tokens":9'],
)
def test_codex_flat_usage_with_no_input_or_output_is_read_alike(tmp_path: Path, flat: str) -> None:
    """A ``token_count`` with no ``info`` and an older writer's flat usage of none but
    its parts: a usage report (unknown: no input nor output), on both paths, never "rate
    limits only" (it has none)."""
    line = (
        '{"timestamp":"2025-09-01T10:00:04.000Z","type":"event_msg","payload":'
        '{"type":"token_count","info":null,' + flat + "}}"
    )
    path = tmp_path / "flat.jsonl"
    path.write_text("\n".join([*_CX_HEAD, line, _CX_AFTER]) + "\n")
    assert_same(path)  # (typed, as a dict: every item, its text, the extra counts)
    _cx(tmp_path, "flat", line)
    t = CX.open(str(path), writer_alive=False)
    assert t.extra["token-count-reports"] == 1
    assert t.usage.input_tokens is None
    assert not any("rate limits only" in (p.text or "") for i in t.raw for p in i.parts)


def _cx_usage(usage: str, last: str | None = None) -> str:
    """A ``token_count`` line whose total (and last usage) is ``usage``."""
    return (
        '{"timestamp":"2025-09-01T10:00:04.000Z","type":"event_msg","payload":{"type":"token_count",'
        '"info":{"total_token_usage":' + usage + ',"last_token_usage":' + (last or usage) + ","
        '"model_context_window":1000}}}'
    )


@pytest.mark.parametrize("count", ["9223372036854775808", "18446744073709551615"])  # 2**63, 2**64-1
def test_codex_a_count_past_an_int64_is_unknown_and_never_priced(
    tmp_path: Path, count: str
) -> None:
    """orjson reads these as ints: the bound is the one every format's count has
    (``int64_or_none``), as in Claude Code, not "an int"."""
    replay, note = _cx(
        tmp_path,
        "big",
        _cx_usage('{"input_tokens":' + count + ',"cached_input_tokens":0,"output_tokens":5}'),
    )
    usage = replay["usage"]
    assert usage["input-tokens"] is None and usage["cost"] is None
    assert "9,223,372" not in note and "18,446,744" not in note and "$" not in note


@pytest.mark.parametrize("count", ["1e400", "18446744073709551616", "9223372036854775808"])
@pytest.mark.parametrize("part", ["cached_input_tokens", "cache_write_input_tokens"])
def test_codex_a_cache_count_written_as_no_count_is_unknown_not_0(
    tmp_path: Path, count: str, part: str
) -> None:
    """The cached (or cache-written) share of the input unknown: the input left after
    it is unknown, the response's usage is known in part, never priced as uncached."""
    parts = {"cached_input_tokens": "0", "cache_write_input_tokens": "0"} | {part: count}
    usage_json = (
        '{"input_tokens":1000,"output_tokens":5,'
        + ",".join(f'"{k}":{v}' for k, v in parts.items())
        + "}"
    )
    replay, note = _cx(tmp_path, "cached", _cx_usage(usage_json))
    usage = replay["usage"]
    assert usage["input-tokens"] is None and usage["output-tokens"] == 5
    assert usage["reported-in-part"] == 1
    if part == "cached_input_tokens":  # (a cache write is billed as input: still priced)
        assert usage["cost"] is None and usage["cache-read-tokens"] is None
    # (the session's total holds the input it states, said in part: ``total-only``)
    assert "1,005 tok" not in note or "reported in part" in note


def test_codex_a_reasoning_count_of_1e400_is_unknown_not_0(tmp_path: Path) -> None:
    line = _cx_usage(
        '{"input_tokens":100,"cached_input_tokens":0,"output_tokens":5,'
        '"reasoning_output_tokens":1e400}'
    )
    path = tmp_path / "reasoning.jsonl"
    path.write_text("\n".join([*_CX_HEAD, line, _CX_AFTER]) + "\n")
    t = CX.open(str(path), writer_alive=False)
    assert t.extra["total-token-usage"]["reasoning_output_tokens"] is None
    assert t.usage.input_tokens == 100 and t.usage.output_tokens == 5


def test_peek_keeps_a_line_of_1e400_among_its_envelopes(tmp_path: Path) -> None:
    """``peek`` parses a line as the builders do (``loads_payload``): the line the other
    read paths read is among its records, not dropped without a word."""
    from session_core import peek

    path = tmp_path / "inf.jsonl"
    path.write_text(
        "\n".join([_PROMPT, _answer('{"input_tokens":1e400,"output_tokens":5}'), _NEXT])
    )
    result = peek(path)
    assert [e.get("uuid") for e in result.envelopes] == ["u1", "a1", "u2"]
    assert [m.content for m in result.messages] == ["hi", "hello", "more"]


def test_1e400_in_a_calls_input_reads_null_on_every_surface(tmp_path: Path) -> None:
    """One rule for a non-finite number in a value (``json_out``): the md conversation
    wrote ``Infinity`` (no JSON) where the tools table, the diff and the replay say
    ``null``."""
    from session_core.export import export

    call = '{"type":"tool_use","id":"toolu_1","name":"Calc","input":{"n":1e400,"s":"x"}}'
    line = _answer("{}").replace('{"type":"text","text":"hello"}', call)
    path = tmp_path / "calc.jsonl"
    path.write_text("\n".join([_PROMPT, line, _NEXT]) + "\n")
    for form in ("md", "html"):
        out = export(path, form)
        assert "Infinity" not in out, form
    assert '{"n": null, "s": "x"}' in export(path, "md")


def test_json_out_writes_a_non_finite_number_null_however_it_writes() -> None:
    from session_core.json_out import dumps, readable_json

    inf = float("inf")
    assert readable_json({"n": inf, "l": [-inf, 1]}) == '{"n": null, "l": [null, 1]}'
    assert readable_json([inf], indent=2) == "[\n  null\n]"
    deep: list[Any] = [inf]
    for _ in range(300):  # (past orjson's depth: the standard library's encoder writes it)
        deep = [deep]
    assert b"Infinity" not in dumps(deep) and b"null" in dumps(deep)
