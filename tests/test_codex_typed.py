"""The codex builder's two ways in give one model: typed (msgspec) lines and parsed dicts.

``CodexBuilder.feed_line`` decodes its hot lines into ``Struct``s and falls back to the
orjson dict path for anything else; ``Builder.feed_line`` (the default) parses every
line with orjson and calls ``feed``. Fed the same file with the same spans, both must
give the same transcript, item for item and part for part.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from codex_writer import (
    HOSTILE,
    RolloutWriter,
    completed_story,
    legacy_story,
    story,
    turnless_story,
)
from helpers import SAMPLES, follow_into
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from json_strategies import ITEM_FIELDS, json_values

from session_core.column_items import Items
from session_core.file_lines import read_lines
from session_core.formats import by_name
from session_core.formats.builders import Builder
from session_core.formats.codex import lines, tools
from session_core.formats.codex.builder import CodexBuilder
from session_core.model import Item, Transcript

CODEX = by_name("codex")


def load(path: str | os.PathLike[str], typed: bool, packed: bool = True) -> Transcript:
    """The file fed as ``feed_file`` feeds it, through the typed path or the dict path
    (``packed``: with its lines' spans, else every item kept whole)."""
    where = os.fspath(path)
    builder = CODEX.builder(where)
    assert isinstance(builder, CodexBuilder)
    for number, raw, span in read_lines(where, builder if packed else None):
        builder.lines = number
        builder.span = span if packed else 0
        builder.line_bytes = len(raw)
        if typed:
            builder.feed_line(raw, number)
        else:
            Builder.feed_line(builder, raw, number)  # orjson, then ``feed``
    builder.span = 0
    return builder.transcript(False)


def item_facts(item: Item, heads: bool = True) -> tuple[Any, ...]:
    parts = [
        (p.kind, p.text, p.call_id, p.name, p.data, p.is_error, p.head if heads else None, p.size)
        for p in item.parts
    ]
    return (
        item.id,
        item.role,
        item.kind,
        item.line,
        item.ts,
        item.model,
        item.usage,
        item.marks,
        item.sticky,
        item.lines,
        parts,
    )


def snapshot(t: Transcript, heads: bool = True) -> dict[str, Any]:
    """What a transcript says (``heads``: with what its folded parts show)."""
    heights = {
        name: seq.folded_heights()
        for name, seq in (("raw", t.raw), ("messages", t.messages))
        if isinstance(seq, Items) and heads
    }
    return {
        "json": t.to_json(),
        "raw": [item_facts(i, heads) for i in t.raw],
        "messages": [item_facts(i, heads) for i in t.messages],
        "ops": [
            (op.to_json(), op.state, op.started, op.ended, op.detail, op.result)
            for op in t.tool_operations
        ],
        "runs": [(r.to_json(), r.context, r.prompt) for r in t.runs],
        "extra": t.extra,
        "meta": t.meta,
        "warnings": t.warnings,
        "lines": t.lines,
        "heights": heights,
    }


def typed_lines(path: str | os.PathLike[str]) -> int:
    return sum(1 for _n, raw, _s in read_lines(os.fspath(path)) if lines.decode(raw) is not None)


def assert_same(path: str | os.PathLike[str]) -> None:
    typed = snapshot(load(path, typed=True))
    assert typed == snapshot(load(path, typed=False))
    # Packed (operations and items read again from the file) says what kept whole does,
    # but for a long text's folded head.
    whole = snapshot(load(path, typed=False, packed=False), heads=False)
    assert snapshot(load(path, typed=True), heads=False) == whole


def test_the_story_is_the_same_both_ways(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    story(path)
    assert typed_lines(path) > 20  # most of it goes the typed way
    assert_same(path)


@pytest.mark.parametrize("write", [completed_story, legacy_story, turnless_story])
def test_the_other_stories_are_the_same_both_ways(
    tmp_path: Path, write: Callable[[Path], object]
) -> None:
    path = tmp_path / "r.jsonl"
    write(path)
    assert_same(path)


def test_crlf_story_is_the_same_both_ways(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    story(path, crlf=True)
    assert_same(path)


@pytest.mark.parametrize(
    "path",
    sorted((Path(__file__).parent / "fixtures" / "codex-real").glob("*.jsonl")),
    ids=lambda p: p.name,
)
def test_the_other_versions_rollouts_are_the_same_both_ways(path: Path) -> None:
    """The rollouts in other versions' shapes (``fixtures/codex-real``) alike."""
    assert_same(path)


def test_the_samples_are_the_same_both_ways() -> None:
    found = sorted((SAMPLES / "codex").rglob("*.jsonl"))
    for path in found:
        assert_same(path)


def odd_lines() -> list[bytes]:
    """Lines of the hot kinds in shapes the typed path must hand to the dict path, and
    lines it reads that are merely unusual (``\udcff``: a byte that is not UTF-8)."""
    ts = '"timestamp":"2026-02-23T12:00:00.000Z"'

    def line(kind: str, payload: str, extra: str = "") -> bytes:
        text = f'{{{ts},"type":"{kind}","payload":{payload}{extra}}}'
        return text.encode("utf-8", "surrogateescape")

    def r(payload: str) -> bytes:
        return line("response_item", payload)

    def e(payload: str) -> bytes:
        return line("event_msg", payload)

    def tc(info: str) -> bytes:
        return e('{"type":"token_count","info":' + info + "}")

    big = "x" * 3000
    out = json.dumps(
        json.dumps({"output": "ok", "metadata": {"exit_code": 0, "duration_seconds": 2}})
    )
    usage = '{"input_tokens":100,"output_tokens":5}'
    return [
        line("session_meta", '{"id":"s1","cwd":"/w","cli_version":"0.1"}'),
        e('{"type":"task_started","turn_id":"t1"}'),
        line("turn_context", '{"turn_id":"t1","model":"gpt-5","base_instructions":"be"}'),
        line("turn_context", '{"turn_id":"t1","model":"gpt-5","base_instructions":"be"}'),
        line("turn_context", '{"turn_id": "t1", "model": "gpt-5", "base_instructions": "be"}'),
        b'{"type":"turn_context","payload":{"turn_id":"t1","model":"gpt-5"},' + ts.encode() + b"}",
        line("turn_context", '["not", "an", "object"]'),
        line("turn_context", '{"turn_id":"t1","model":"gpt-5","note":"caf\\u00e9 é"}'),
        line("turn_context", '{"turn_id":"t1","model":7,"x":1e5}'),
        r('{"type":"message","role":"user","content":"plain string"}'),
        r('{"type":"message","role":"user","content":null}'),
        r('{"type":"message","role":"","content":[]}'),
        r('{"type":"message","role":5,"content":[]}'),
        r(
            '{"type":"message","role":"user","content":[{"type":"input_text","text":"a"},'
            '{"type":"input_image","image_url":"data:x"}]}'
        ),
        r('{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"no"}]}'),
        r(
            '{"type":"message","role":"developer","content":[{"type":"input_text","text":"'
            + big
            + '\\n2\\n3\\n4"}]}'
        ),
        r(
            '{"type":"message","role":"user","content":[{"type":"input_text","text":'
            + json.dumps(HOSTILE)
            + "}]}"
        ),
        r('{"type":"message","role":"user","content":[{"type":"input_text"}]}'),
        r('{"type":"message","role":"user","content":[{"text":"no type"}]}'),
        r(
            '{"type":"reasoning","summary":[{"type":"summary_text","text":"s1"},{"x":1}],'
            '"content":null,"encrypted_content":"' + big + '"}'
        ),
        r('{"type":"reasoning","summary":["bare"],"encrypted_content":1}'),
        r('{"type":"reasoning","summary":"one","content":[{"text":"c"}]}'),
        r('{"type":"reasoning","summary":[],"content":[{"text":"c"}]}'),
        r('{"type":"reasoning","summary":{"text":"odd"}}'),
        r(
            '{"type":"function_call","name":"exec_command","arguments":"{\\"cmd\\":\\"ls\\"}",'
            '"call_id":"c1"}'
        ),
        r('{"type":"function_call","name":7,"arguments":"{}","call_id":"c2"}'),
        r('{"type":"function_call","name":"","arguments":"[1]","call_id":""}'),
        r('{"type":"function_call","name":"x","arguments":{"a":1},"id":"i3"}'),
        r('{"type":"custom_tool_call","name":"apply_patch","input":"p","call_id":"c4"}'),
        r('{"type":"local_shell_call","action":{"command":["ls"]},"call_id":"c5"}'),
        r('{"type":"web_search_call","status":"completed","action":{"query":"q"}}'),
        r('{"type":"web_search_call","status":"failed"}'),
        r('{"type":"web_search_call","status":3}'),
        r(
            '{"type":"function_call","name":"so","namespace":"mcp__a","arguments":"{}","call_id":"c9"}'
        ),
        r('{"type":"function_call","name":"so","namespace":7,"arguments":"{}","call_id":"c10"}'),
        r('{"type":"mcp_tool_call_output","call_id":"c9","output":{"content":[],"is_error":true}}'),
        r('{"type":"tool_search_call","call_id":"c8","status":"completed","arguments":{}}'),
        r('{"type":"tool_search_output","call_id":"c8","tools":[{"name":"t"},{"x":1}]}'),
        r('{"type":"image_generation_call","id":"ig","status":"completed","result":"AAAA"}'),
        r(
            '{"type":"function_call_output","call_id":"c5","output":{"type":"input_text","text":"t"}}'
        ),
        r(
            '{"type":"function_call_output","call_id":"c1",'
            '"output":"Exit code: 2\\nWall time: 1.5 seconds\\nboom"}'
        ),
        r('{"type":"function_call_output","call_id":"c2","output":"  aborted  "}'),
        r('{"type":"function_call_output","call_id":"c3","output":' + out + "}"),
        r(
            '{"type":"function_call_output","call_id":"c4",'
            '"output":[{"type":"input_text","text":"t"}]}'
        ),
        r(
            '{"type":"function_call_output","call_id":"c5",'
            '"output":{"content":"x","success":false}}'
        ),
        r('{"type":"function_call_output","call_id":"i3","output":null}'),
        r('{"type":"custom_tool_call_output","call_id":"nobody","output":"' + big + '"}'),
        r('{"type":"function_call_output","call_id":5,"output":"x"}'),
        r('{"type":"ghost_snapshot","ghost_commit":{"id":"g"}}'),
        r('{"type":"compaction","encrypted_content":"abc"}'),
        e('{"type":"exec_command_end","call_id":"c4","exit_code":3}'),
        e('{"type":"token_count","info":null,"rate_limits":{"primary":{"used_percent":1.0}}}'),
        tc(
            '{"total_token_usage":' + usage + ',"last_token_usage":' + usage + ","
            '"model_context_window":1000},"rate_limits":null'
        ),
        tc('{"total_token_usage":' + usage + ',"last_token_usage":' + usage + "}"),
        tc('{"last_token_usage":{"input_tokens":50,"output_tokens":5}}'),
        tc('{"total_token_usage":{"input_tokens":1.5}}'),
        tc('{"total_token_usage":{"input_tokens":true}}'),
        tc('{"total_token_usage":{"input_tokens":99999999999999999999}}'),
        tc('{"total_token_usage":{"input_tokens":18446744073709551615}}'),
        tc('{"total_token_usage":{"input_tokens":-4}}'),
        tc('{"total_token_usage":{"other":1}}'),
        tc('{"model_context_window":"big"}'),
        tc('[1],"rate_limits":[2]'),
        e('{"type":"token_count","input_tokens":90,"cached_input_tokens":9,"output_tokens":2}'),
        e('{"type":"token_count","info":null,"output_tokens":3}'),
        e('{"type":"token_count","input_tokens":"x"}'),
        e('{"type":"agent_message","message":"' + big + '\\nmore\\nlines\\nhere"}'),
        e('{"type":"agent_message","message":null}'),
        e('{"type":"agent_reasoning","text":{"odd":1}}'),
        e('{"type":"user_message","message":"typed"}'),
        e('{"type":"task_complete","turn_id":"t1","last_agent_message":"done"}'),
        e('{"type":"task_complete","turn_id":9}'),
        e('{"type":"turn_aborted","turn_id":"zz"}'),
        e('{"type":"task_started"}'),
        e('{"type":"brand_new","x":1}'),
        r('{"type":"message","type":"reasoning","summary":"dup"}'),
        b'{"type":"event_msg","type":"response_item",' + ts.encode() + b',"payload":{}}',
        r('{"type":"message","role":"user","content":"bad \udcff utf8"}'),
        r('{"type":"message","role":"user","content":"ok","x":"bad \udcff"}'),
        e('{"type":"task_started","turn_id":"t2","skipped":"\udcc3"}'),
        line("turn_context", '{"turn_id":"t2","bad":"\udcff"}'),
        b'{"type":"turn_context","payload":{"turn_id":"t1","model":"gpt-5"},"x":"\xff"}',
        r('{"type":"message","role":"user","content":"lone \\ud800"}'),
        b'{"timestamp":5,"type":"event_msg","payload":{"type":"task_started","turn_id":"t3"}}',
        b'{"type":"event_msg","payload":{"type":"task_started","turn_id":"t4"}}',
        line("event_msg", '{"type":"user_message","message":"after"}', ',"extra":{"a":[1,2]}'),
        b"not json at all",
        b"[1, 2, 3]",
        line("compacted", '{"message":"summary","replacement_history":[]}'),
        r('{"type":"message","role":"user","content":"after compaction"}'),
    ]


def test_odd_lines_are_the_same_both_ways(tmp_path: Path) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_bytes(b"\n".join(odd_lines()) + b"\n")
    assert_same(path)
    t = load(path, typed=True)
    assert len(t.raw) == len(odd_lines())


def test_a_last_line_without_its_newline_answers_a_packed_call(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    story(path)
    w = RolloutWriter(tmp_path / "tail.jsonl")
    w.function_call("exec_command", {"cmd": "ls"}, "c-last")
    w.function_output("c-last", "Exit code: 1\nWall time: 2 seconds\nno")
    tail = (tmp_path / "tail.jsonl").read_bytes().split(b"\n")
    with open(path, "ab") as fh:
        fh.write(tail[0] + b"\n" + tail[1])  # no newline: read, but with no span
    assert_same(path)
    op = load(path, typed=True).tool_operations[-1]
    assert (op.call_id, op.state, op.result_line) == ("c-last", "failed", op.line + 1)
    assert op.duration == 2.0 and op.detail == {"exit_code": 1}


def test_a_number_past_a_double_where_nothing_reads_it(tmp_path: Path) -> None:
    # msgspec skips a field it does not name without reading its number; the dict path
    # reads a number no double holds (JSON's grammar allows it) as infinity
    # (``loads_payload``): both read the line, where orjson alone refused it whole.
    path = tmp_path / "r.jsonl"
    path.write_bytes(
        b'{"timestamp":"t","type":"event_msg","payload":{"type":"agent_message",'
        b'"message":"x","n":1e999}}\n'
    )
    typed, parsed = load(path, typed=True), load(path, typed=False)
    assert typed.raw[0].kind == "event" and not typed.warnings
    assert parsed.raw[0].kind == "event" and not parsed.warnings


def test_a_repeated_context_is_one_context_both_ways(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    for _ in range(3):
        w.turn_context("t1", model="gpt-5.1-codex", effort="low")
    w.task_complete("t1")
    w.task_started("t2")
    w.turn_context("t2", model="gpt-5.1-codex", effort="low")
    w.task_complete("t2")
    assert_same(w.path)
    t = load(w.path, typed=True)
    assert [r.context is not None for r in t.runs] == [True, True]
    assert t.extra["run-contexts"][0]["line"] == 3


def test_a_context_repeated_byte_for_byte_is_known_without_decoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A turn context of the last one's length, its head plain and its tail the same
    # bytes, is read without decoding; a line of that length that is anything else (a
    # changed byte, another key order, an escaped or broken timestamp) is decoded.
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.turn_context("t1", model="gpt-5.1-codex", effort="low")
    w.message("user", "hi")
    w.task_complete("t1")
    first = Path(w.path).read_bytes().split(b"\n")[2]
    assert first.startswith(b'{"timestamp":"') and b'"effort":"low"' in first
    ts_end = first.index(b'","type"')
    again = first[:14] + b"2026-02-23T13:00:00.000Z" + first[ts_end:]
    assert len(again) == len(first)
    changed = again.replace(b'"model":"gpt-5.1-codex"', b'"model":"gpt-5.1-codey"')
    reordered = (
        b'{"type":"turn_context","timestamp":"'
        + again[14:ts_end]
        + b'"'
        + again[again.index(b',"payload"') :]
    )
    escaped = again.replace(b"00.000Z", b"\\u0030Z")
    broken = again.replace(b"T13:00", b"T1\x01:00")
    odd = [again, changed, reordered, escaped, broken, again]
    assert all(len(line) == len(first) for line in odd)
    other = RolloutWriter(tmp_path / "answer.jsonl")
    other.message("assistant", "ok")  # its item names the model the context before named
    answer = Path(other.path).read_bytes().rstrip(b"\n")
    with open(w.path, "ab") as fh:
        fh.write(b"".join(line + b"\n" + answer + b"\n" for line in odd))
    taken: list[bool] = []
    real = CodexBuilder._repeated_context

    def spy(self: CodexBuilder, raw: bytes | memoryview, line: int) -> bool:
        taken.append(real(self, raw, line))
        return taken[-1]

    monkeypatch.setattr(CodexBuilder, "_repeated_context", spy)
    assert_same(w.path)
    t = load(w.path, typed=True)
    assert taken.count(True) >= 2  # both plain repeats
    shown = list(t.raw)[-2 * len(odd) :]
    kinds = [i.kind for i in shown[::2]]
    assert kinds == ["context", "context", "context", "context", "record", "context"]
    models = [i.model for i in shown[1::2]]
    assert models == ["gpt-5.1-codex", "gpt-5.1-codey", *["gpt-5.1-codex"] * 4]
    assert shown[6].ts == "2026-02-23T13:00:0Z"  # the escape read as JSON
    # The live path (``take_lines``, lines as views into their block) says the same.
    live = CODEX.live(os.fspath(w.path))
    follow_into(live.apply, w.path, 1 << 20, parse=False)
    assert snapshot(live.transcript(False)) == snapshot(t)


# -- hypothesis: the story's lines with fields replaced by other JSON values ----------------

_json = json_values(ints=2**70, infinity=False, width=3, key_size=5, leaves=6)
_fields = st.sampled_from(
    [
        *ITEM_FIELDS,
        "status",
        "summary",
        "encrypted_content",
        "info",
        "rate_limits",
        "turn_id",
        "message",
        "model",
        "total_token_usage",
        "last_token_usage",
        "model_context_window",
        "input_tokens",
    ]
)


def _story_lines() -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as where:
        path = os.path.join(where, "base.jsonl")
        story(path)
        with open(path, "rb") as fh:
            return [orjson.loads(raw) for raw in fh if raw.strip()]


_BASE = _story_lines()


def _mutate(value: Any, field: str, new: Any, depth: int) -> None:
    """Set ``field`` wherever it is in ``value`` (up to ``depth`` levels down)."""
    if isinstance(value, dict):
        if field in value:
            value[field] = new
        if depth:
            for inner in value.values():
                _mutate(inner, field, new, depth - 1)
    elif isinstance(value, list) and depth:
        for inner in value:
            _mutate(inner, field, new, depth - 1)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    changes=st.lists(
        st.tuples(st.integers(0, len(_BASE) - 1), _fields, _json, st.integers(0, 4)), max_size=6
    ),
    spaced=st.booleans(),
)
def test_mutated_story_is_the_same_both_ways(
    changes: list[tuple[int, str, Any, int]], spaced: bool
) -> None:
    records = orjson.loads(orjson.dumps(_BASE))
    for at, field, new, depth in changes:
        _mutate(records[at], field, new, depth)
    with tempfile.TemporaryDirectory() as where:
        path = os.path.join(where, "m.jsonl")
        with open(path, "wb") as fh:
            for record in records:
                if spaced:  # another writer's spacing and escapes: same values, other bytes
                    text = json.dumps(record)
                else:
                    text = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
                fh.write(text.encode("utf-8", "surrogatepass") + b"\n")
        assert_same(path)


# -- an output's status lines, found without a regex scan ----------------------------------

_EXIT = re.compile(r"^(?:Exit code:|Process exited with code)\s*(-?\d+)", re.MULTILINE)
_WALL = re.compile(r"^Wall time:\s*([0-9.]+)\s*seconds", re.MULTILINE)
_WORDS = ["Exit code:", "Process exited with code", "Wall time:", "seconds", "Exit code: 7"]
_pieces = st.sampled_from(
    [*_WORDS, " ", "\n", "\r", "\t", "-", "1", "23", "4.5", "x", "\u2028", "\nExit code:\n-3"]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_pieces, max_size=14).map("".join))
def test_status_lines_are_what_the_multiline_patterns_find(text: str) -> None:
    for pattern, words, rest in (
        (_EXIT, tools._EXIT, tools._EXIT_REST),
        (_WALL, tools._WALL, tools._WALL_REST),
    ):
        want = pattern.search(text)
        got = tools._at_line_start(text, words, rest)
        if want is None or got is None:
            assert want is got
        else:
            assert (want.group(1), want.end()) == (got.group(1), got.end())


_HEADS = st.sampled_from(
    [
        *_WORDS,
        "Chunk ID: ab12",
        "Chunk ID: ",
        "Wall time: 2.5 seconds",
        "Process exited with code 0",
        "Exit code: 1",
        " ",
        "\n",
        "\r",
        "-",
        "1",
        "4.5",
        "1.2.3",
        "x",
        "\u2028",
    ]
)


@settings(max_examples=800, deadline=None)
@given(st.lists(_HEADS, max_size=12).map("".join))
def test_the_usual_head_says_what_the_searches_find(text: str) -> None:
    """The one match of the usual status lines says what searching for each finds."""
    assert tools.status_lines(text) == tools.searched_status(text)


@pytest.mark.parametrize(
    "head",
    [
        "Chunk ID: 3f\nWall time: 0.5 seconds\nProcess exited with code 2\nOutput:\nx",
        "Exit code: 0\nWall time: 1.25 seconds\nOutput:\n",
        "Wall time: 3 seconds\nExit code: -1\n",
    ],
)
def test_the_usual_heads_are_matched_at_once(head: str) -> None:
    assert tools._USUAL_HEAD.match(head) is not None
    assert tools.status_lines(head) == tools.searched_status(head) != (None, None)


# -- the live path: raw lines with spans, fed as they are appended --------------------------


@pytest.mark.parametrize("write", [story, turnless_story, legacy_story])
async def test_followed_in_batches_is_the_file_opened(
    tmp_path: Path, write: Callable[[Path], object]
) -> None:
    from session_core.following import follow

    whole = tmp_path / "whole.jsonl"
    write(whole)
    data = whole.read_bytes()
    path = tmp_path / "r.jsonl"
    half = data.index(b"\n", len(data) // 2) + 1
    path.write_bytes(data[:half])
    lines = data.count(b"\n")
    live = CODEX.live(str(path))
    agen = follow(path, force_polling=True, poll_interval=0.02, parse=False, batch_bytes=2048)
    try:
        async with asyncio.timeout(20):
            while live.builder.lines < data[:half].count(b"\n"):
                live.apply(await anext(agen))
            with open(path, "ab") as fh:
                fh.write(data[half:])
            while live.builder.lines < lines:
                live.apply(await anext(agen))
    finally:
        await agen.aclose()
    opened = CODEX.open(path, writer_alive=False)
    assert snapshot(live.transcript(False)) == snapshot(opened)
