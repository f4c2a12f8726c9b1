"""The msgspec index pass (session_core/indexing.py) against the plain orjson replay.

A file replay and the viewer's follow both decode message, dispatch and settle
lines natively, taking only the fields replay keeps; every other line, and every
line the index pass does not take in full, goes the plain way. Whatever the
file, the outcome must be the plain path's: the same events, messages,
operations, facts and warnings, and the same error, with its file and line.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from test_lazy_events import busy_transcript, followed

from session_core import Session
from session_core.errors import InvalidLineError, ReplayError, TranscriptError
from session_core.facts import message_facts
from session_core.line_warnings import unfinished_line
from session_core.reader import check_envelope, is_blank, loads_line, replay_file
from session_core.replay import ReplayState
from session_core.text import as_written
from session_core.views import replay_json

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_transcript


def plain_replay_file(path: Path, tolerate_tail: bool) -> ReplayState:
    """``replay_file`` as it was before the index pass: orjson for every line, each fed
    as its dict (``ReplayState.feed``), with the same rules for bad lines."""
    where = str(path)
    state = ReplayState(where)
    pending: InvalidLineError | None = None
    seen = 0
    lines = path.read_bytes().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for number, raw in enumerate(lines, start=1):
        if pending is not None:
            if is_blank(raw):
                continue
            raise _mid(pending)
        try:
            env = loads_line(raw)  # (as the reference: nothing mended, 1e400 read)
        except orjson.JSONDecodeError as err:
            if is_blank(raw):
                continue
            text = str(err).lower()
            why = (
                "invalid UTF-8"
                if "utf-8" in text
                else "a lone UTF-16 surrogate escape"
                if "surrogate" in text
                else str(err).split(":")[0]
            )
            pending = InvalidLineError(
                f"is not valid JSON ({why})", path=where, line=number, raw=raw
            )
            continue
        if type(env) is not dict:
            raise InvalidLineError("is not a JSON object", path=where, line=number, raw=raw)
        check_envelope(env, number, where, raw)
        if not seen and env["type"] != "session-meta":
            first = f"is a {as_written(env['type'])} line; a transcript starts with session-meta"
            raise ReplayError(first, path=where, line=number)
        seen += 1
        state.feed(env, number)
    if pending is not None:
        if not tolerate_tail:
            raise _mid(pending)
        raw = pending.raw
        ended = path.read_bytes().endswith(b"\n")  # (the bad line is the last)
        state.warnings.append(unfinished_line(pending.line or 0, len(raw), raw[:240], ended))
    return state


def _mid(bad: InvalidLineError) -> InvalidLineError:
    return InvalidLineError(
        f"{bad.reason}; only a malformed final line is tolerated (a crash tail), "
        "anything else is damage",
        path=bad.path,
        line=bad.line,
    )


def outcome(run: Any) -> Any:
    """What a replay gives: its state, or its error (class, reason, file and line)."""
    try:
        return run()
    except TranscriptError as err:
        return (type(err).__name__, err.reason, err.path, err.line)


def same_state(state: ReplayState, plain: ReplayState) -> None:
    assert list(state.events) == list(plain.events)
    assert state.event_lines == plain.event_lines
    assert state.events.kinds == plain.events.kinds
    assert state.events.ids == plain.events.ids
    assert state.messages() == plain.messages()
    assert state.message_ids() == plain.message_ids()
    assert state.tool_ops == plain.tool_ops
    assert state.pending_count == plain.pending_count
    assert state.last_line == plain.last_line  # what a crash-tail warning names
    assert state.run_contexts == plain.run_contexts
    assert state.warnings == plain.warnings
    assert state.events.facts == reference_facts(plain)
    assert replay_json(state) == replay_json(plain)


def reference_facts(plain: ReplayState) -> list[Any]:
    return [
        message_facts(e["payload"] if isinstance(e["payload"], dict) else {})
        if e["type"] == "message"
        else None
        for e in plain.events
    ]


def same_replay(path: Path) -> None:
    for tolerate in (True, False):
        got = outcome(lambda t=tolerate: replay_file(path, tolerate_tail=t))
        want = outcome(lambda t=tolerate: plain_replay_file(path, t))
        if isinstance(want, ReplayState):
            assert isinstance(got, ReplayState), got
            same_state(got, want)
            for keep in ("bytes",):
                same_state(replay_file(path, tolerate_tail=tolerate, keep=keep), want)
        else:
            assert got == want


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("crash", [False, True])
def test_generated_files_replay_as_the_plain_path(tmp_path: Path, seed: int, crash: bool) -> None:
    path = tmp_path / "g.jsonl"
    gen_transcript.generate(path, 400_000, seed=seed, crash=crash)
    same_replay(path)
    plain = plain_replay_file(path, True)
    live = followed(path, 1 << 16).state
    same_state(live, plain)
    with Session.load(path) as loaded:
        assert loaded.messages() == plain.messages()
        assert loaded.events() == list(plain.events)
        assert loaded.tool_operations() == list(plain.tool_ops)


ENV = {"v": 1, "ts": "2026-08-09T00:00:00.000000Z"}


def line(kind: str, eid: str, payload: Any, **top: Any) -> bytes:
    return orjson.dumps({**ENV, "type": kind, "id": eid, "payload": payload, **top})


# Lines the index pass must hand to the plain path, or take exactly as it would.
ODD_LINES: dict[str, bytes] = {
    "role not a str": line("message", "m-a", {"role": 5, "content": "x"}),
    "sticky not a bool": line("message", "m-b", {"role": "user", "content": "x", "sticky": "y"}),
    "sticky false": line("message", "m-c", {"role": "user", "content": "x", "sticky": False}),
    "depth not an int": line("message", "m-d", {"role": "user", "content": "x", "depth": "2"}),
    "depth null": line("message", "m-e", {"role": "user", "content": "x", "depth": None}),
    "depth 0": line("message", "m-f", {"role": "user", "content": "x", "depth": 0}),
    "content a list": line("message", "m-g", {"role": "user", "content": ["a\nb"]}),
    "content null": line("message", "m-h", {"role": "user", "content": None}),
    "content a number": line("message", "m-i", {"role": "assistant", "content": 12}),
    "content escapes": b'{"id":"m-j","payload":{"content":"a\\\\nb\\u000ac\\n\\\\\\n",'
    b'"role":"user"},"ts":"t","type":"message","v":1}',
    "content many lines": line("message", "m-k", {"role": "user", "content": "l\n" * 20}),
    "content long": line("message", "m-l", {"role": "user", "content": "x" * 5000 + "\n" * 3}),
    "tool-calls odd items": line(
        "message", "m-m", {"role": "assistant", "content": "", "tool-calls": [1, {"id": "c"}]}
    ),
    "tool-calls no function": line(
        "message", "m-n", {"role": "assistant", "content": "", "tool-calls": [{"id": "c2"}]}
    ),
    "tool-calls null id and name": line(
        "message",
        "m-o",
        {
            "role": "assistant",
            "content": "",
            "tool-calls": [{"id": None, "function": {"name": None}}],
        },
    ),
    "tool-calls not a list": line(
        "message", "m-p", {"role": "user", "content": "", "tool-calls": {}}
    ),
    "tool-call-id int": line("message", "m-q", {"role": "tool", "content": "r", "tool-call-id": 3}),
    "usage a str": line("message", "m-r", {"role": "assistant", "content": "", "usage": "lots"}),
    "usage odd numbers": line(
        "message",
        "m-s",
        {
            "role": "user",
            "content": "",
            "usage": {"prompt-tokens": 1.5, "completion-tokens": True, "cost": 2, "x": 1},
        },
    ),
    "usage summed": line(
        "message",
        "m-t",
        {"role": "user", "content": "", "usage": {"prompt-tokens": 3, "completion-tokens": 4}},
    ),
    "usage null": line("message", "m-u", {"role": "assistant", "content": "", "usage": None}),
    "reasoning falsy": line(
        "message", "m-v", {"role": "assistant", "content": "", "reasoning": [], "is-error": 0.0}
    ),
    "reasoning truthy": line(
        "message", "m-w", {"role": "assistant", "content": "", "reasoning": "r", "is-error": "e"}
    ),
    "reasoning spaced": b'{"id":"m-x","payload":{"content":"","is-error":{ },"reasoning":[ 0 ],'
    b'"role":"assistant"},"ts":"t","type":"message","v":1}',
    "payload null": line("message", "m-y", None),
    "payload a list": line("message", "m-z", [1, 2]),
    "id an int": line("message", 17, {"role": "user", "content": "x"}),
    "id missing": orjson.dumps({**ENV, "type": "message", "payload": {"content": "x"}}),
    "duplicate keys": b'{"id":"d1","id":"d2","payload":{"role":"user","role":"assistant",'
    b'"content":"x"},"ts":"t","type":"message","v":1}',
    "whitespace around": b'  {"id":"ws","payload":{"content":"x","role":"user"},"ts":"t",'
    b'"type":"message","v":1} \r',
    "non-ascii": line("message", "na", {"role": "user", "content": "café ☕ 𝄞"}),
    "unknown type": line("x-note", "xn", {"n": 1}),
    "dispatch odd call-id": line("tool-dispatched", "op-odd", {"call-id": 5, "tool": "t"}),
    "dispatch no payload": line("tool-dispatched", "op-none", None),
    "dispatch odd run-id": line("tool-dispatched", "op-run", {"call-id": "c", "run-id": 3}),
    "extra top-level key": line("message", "m-top", {"role": "user", "content": "x"}, extra=[1]),
}

# Lines every reader refuses (mid-file: damage; last: a crash tail or an error).
BAD_LINES: dict[str, bytes] = {
    "invalid UTF-8 in content": b'{"id":"u1","payload":{"content":"\xff\xfe","role":"user"},'
    b'"ts":"t","type":"message","v":1}',
    "overlong UTF-8": b'{"id":"u2","payload":{"content":"\xc0\xaf","role":"user"},'
    b'"ts":"t","type":"message","v":1}',
    "UTF-8 surrogate": b'{"id":"u3","payload":{"content":"\xed\xa0\x80"},'
    b'"ts":"t","type":"tool-dispatched","v":1}',
    "cut mid-line": b'{"id":"c1","payload":{"content":"half',
    "v true": line("message", "vt", {"content": "x"}, v=True),
    "v float": line("message", "vf", {"content": "x"}, v=1.0),
    "v 2": line("message", "v2", {"content": "x"}, v=2),
    "type an int": line("message", "ti", {"content": "x"}, type=3),
    "not an object": b"[1, 2]",
    "settle unknown op": line("tool-settled", "s1", {"op-id": "nope", "outcome": "completed"}),
    "settle bad outcome": line("tool-settled", "s2", {"op-id": "OPID", "outcome": "maybe"}),
    "settle no op-id": line("tool-settled", "s3", {"outcome": "completed"}),
    "settle twice": line("tool-settled", "s4", {"op-id": "OPTWICE", "outcome": "failed"}),
    "trailing comma": b'{"id":"tc","payload":{},"type":"message","v":1,}',
    "lone surrogate escape": b'{"id":"ls","payload":{"content":"\\ud800"},"type":"message","v":1}',
}


def base_file(path: Path) -> tuple[list[bytes], str, str]:
    """A small transcript; the op ids of a pending and of a settled operation."""
    busy_transcript(path, 3)
    lines = path.read_bytes().split(b"\n")[:-1]
    pending, settled = "", ""
    settles = set()
    for raw in lines:
        env = orjson.loads(raw)
        if env["type"] == "tool-settled":
            settles.add(env["payload"]["op-id"])
    for raw in lines:
        env = orjson.loads(raw)
        if env["type"] == "tool-dispatched":
            if env["id"] in settles:
                settled = settled or env["id"]
            else:
                pending = pending or env["id"]
    assert pending and settled
    return lines, pending, settled


@pytest.mark.parametrize("where", ["middle", "end"])
@pytest.mark.parametrize("name", sorted({**ODD_LINES, **BAD_LINES}))
def test_an_odd_or_bad_line_replays_as_the_plain_path(
    tmp_path: Path, name: str, where: str
) -> None:
    path = tmp_path / "t.jsonl"
    lines, pending, settled = base_file(path)
    bad = {**ODD_LINES, **BAD_LINES}[name]
    bad = bad.replace(b"OPTWICE", settled.encode()).replace(b"OPID", pending.encode())
    if where == "middle":
        lines.insert(len(lines) // 2, bad)
    else:
        lines.append(bad)
    path.write_bytes(b"\n".join(lines) + (b"\n" if where == "middle" else b""))
    same_replay(path)
    # The viewer's way: the index pass with facts, or the follower's dicts.
    raw, parsed = followed(path, 4096).state, followed(path, 4096, parse=True).state
    assert list(raw.events) == list(parsed.events)
    assert raw.event_lines == parsed.event_lines
    assert raw.events.facts == parsed.events.facts
    assert raw.events.facts == reference_facts(parsed)
    assert raw.tool_ops == parsed.tool_ops
    assert raw.pending_count == parsed.pending_count
    assert sorted(raw.warnings) == sorted(parsed.warnings)
    assert {**replay_json(raw), "warnings": 0} == {**replay_json(parsed), "warnings": 0}


def test_every_odd_line_takes_the_index_pass_or_the_plain_path_alike(tmp_path: Path) -> None:
    """All the odd lines at once, in one file, each replayed as the plain path does."""
    path = tmp_path / "t.jsonl"
    lines, _pending, _settled = base_file(path)
    for n, raw in enumerate(ODD_LINES.values()):
        lines.insert(3 + n * 5, raw)
    path.write_bytes(b"\n".join(lines) + b"\n")
    same_replay(path)
    same_state(followed(path, 1 << 20).state, plain_replay_file(path, True))


@pytest.mark.parametrize(
    ("old", "new", "shown"),
    [
        (b'"content":"hi"', b'"content":1e400', "Inf"),  # (Raku's .Str of it), decoded
        (b'"content":"hi"', b'"content":"hi","x":-1e400', "hi"),  # skipped
    ],
)
def test_a_number_beyond_a_double_is_read_as_infinity(
    tmp_path: Path, old: bytes, new: bytes, shown: str
) -> None:
    """The one difference the index pass keeps from the plain path (``indexing``): it
    takes ``1e400``, which JSON allows and orjson refuses. The line read again gives it
    as infinity: no traceback (content counted as lines), no "changed on disk"."""
    from session_core import open_transcript
    from session_core.message import Message

    path = tmp_path / "t.jsonl"
    session = Session.create(path)
    session.append_message(Message("user", "hello"))
    session.append_message(Message("assistant", "hi"))
    session.append_message(Message("user", "bye"))  # (the line is not the last)
    session.close()
    path.write_bytes(path.read_bytes().replace(old, new))
    messages = open_transcript(path).messages
    assert [m.parts[0].text for m in messages] == ["hello", shown, "bye"]
    assert [m.content for m in Session.load(path).messages()] == ["hello", shown, "bye"]


def test_a_last_line_holding_a_number_beyond_a_double_is_whole_not_a_crash_tail(
    tmp_path: Path,
) -> None:
    """The spec's crash tail is a final line that is not whole JSON; ``1e400`` is whole
    JSON (orjson only will not build it), so ``Session.load`` keeps the line, as it keeps
    it mid-file, and cuts no byte."""
    from session_core.message import Message

    path = tmp_path / "t.jsonl"
    session = Session.create(path)
    session.append_message(Message("user", "hello"))
    session.append_message(Message("assistant", "hi"))
    session.close()
    raw = path.read_bytes().replace(b'"content":"hi"', b'"content":"hi","x":1e400')
    path.write_bytes(raw)
    loaded = Session.load(path)
    assert [m.content for m in loaded.messages()] == ["hello", "hi"]
    assert not loaded.warnings()
    loaded.close()
    assert path.read_bytes() == raw


@pytest.mark.parametrize(
    ("line", "whole"),
    [
        (b'{"a":1e400}', True),
        (b'{"a":"\\ud800"}', False),  # a lone surrogate: orjson and the replay refuse it
        (b'{"a":NaN}', False),  # Python's json would take these: they are not JSON
        (b'{"a":-Infinity}', False),
        (b'{"a":1', False),  # torn
        ('{"a":"é"}'.encode("utf-16-le"), False),  # Python's json would guess UTF-16
        (b'{"a":"\xc3"}', False),  # a character cut short
        (b"[" * 1100 + b"]" * 1100, True),  # deeper than orjson reads: msgspec reads it
        (b"[" * 20_000 + b"]" * 20_000, False),  # deeper than Python's recursion limit
        (b"  ", True),  # blank
    ],
)
def test_a_line_is_whole_by_json_grammar(line: bytes, whole: bool) -> None:
    from session_core.reader import line_is_whole

    assert line_is_whole(line) is whole


@pytest.mark.parametrize("depth", [1022, 1023, 1024, 1025, 5000])
def test_a_number_beyond_a_double_is_read_as_deep_as_the_index_pass_reads(depth: int) -> None:
    """The standard library's parser, read where orjson refuses only the number, takes
    the depth the index pass's msgspec takes (``indexing.deeper``), and what lies deeper
    than orjson's 1,024 levels is cut (``indexing.CUT``), as ``deeper`` cuts it."""
    from session_core.indexing import CUT, DEPTH, loads_payload

    nested = b"[" * depth + b"]" * depth
    read = loads_payload(b'{"a":1e400,"b":' + nested + b"}")
    assert read["a"] == float("inf")
    inner, levels = read["b"], 2  # (the record itself is the first level)
    while inner and inner != CUT:
        inner, levels = inner[0], levels + 1
    assert (inner, levels) == ((CUT, DEPTH + 1) if depth + 1 > DEPTH else ([], depth + 1))
