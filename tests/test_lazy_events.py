"""A replay keeps lines (or their spans), not parsed envelopes, and takes the facts views
need at feed time: it must replay exactly as the plain path that keeps every dict."""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import follow_into

from session_core import Message, Session
from session_core.diff import DiffRow, DiffRows, diff_rows
from session_core.events import CACHE, Events, LazyPayload
from session_core.facts import LINES_COUNTED, message_facts, payload_fields
from session_core.live import LiveTranscript
from session_core.message import payload_is_sticky
from session_core.message_usage import counts_as_turn, v1_usage
from session_core.reader import replay_file
from session_core.replay import ReplayState, payload_of
from session_core.usage import NO_RUN, Usage, tally_state
from session_core.views import replay_json


def busy_transcript(path: Path, seed: int) -> None:
    rng = random.Random(seed)
    live: list[str] = []
    with Session.create(path, meta={"agent": "diff-test", "seed": seed}) as s:
        live.append(s.append_message(Message(role="system", content="rules", sysprompt=True)))
        for n in range(300):
            kind = rng.random()
            if kind < 0.5:
                live.append(
                    s.append_message(
                        Message(
                            role=rng.choice(["user", "assistant"]),
                            content=f"m{n} " * rng.randint(1, 40),
                        ),
                        extra={"usage": {"total-tokens": n}} if rng.random() < 0.5 else None,
                    )
                )
            elif kind < 0.7:
                cid = f"call_{n}"
                live.append(
                    s.append_message(
                        Message(
                            role="assistant",
                            content="",
                            tool_calls=(
                                {
                                    "id": cid,
                                    "type": "function",
                                    "function": {"name": "t", "arguments": "{}"},
                                },
                            ),
                        )
                    )
                )
                op = s.append_tool_dispatched(call_id=cid, tool="t", arguments={"n": n}, run_id="r")
                live.append(
                    s.append_message(Message(role="tool", content=f"result {n}", tool_call_id=cid))
                )
                if rng.random() < 0.8:
                    s.append_tool_settled(op_id=op, outcome=rng.choice(["completed", "failed"]))
            elif kind < 0.8 and len(live) > 4:
                s.append_elision([{"id": rng.choice(live[-4:]), "stub": f"[stub {n}]"}])
            elif kind < 0.86 and len(live) > 6:
                through = live[-3]
                cid = s.append_compaction(summary=f"summary {n}", replaces_through_id=through)
                live = [cid, *live[-2:]]
            elif kind < 0.9:
                s.append_run_context(
                    run_id=f"run-{n}",
                    digest=f"d{n}",
                    facts=[("n", str(n))],
                    sections=[{"name": "id", "digest": "same", "rendered": "I am"}],
                )
            else:
                s.append_event(type="x-note", payload={"n": n})


def plain_replay(path: Path) -> ReplayState:
    """The plain path: every envelope parsed and kept as a dict."""
    state = ReplayState(str(path))
    for number, raw in enumerate(path.read_bytes().split(b"\n"), start=1):
        if raw.strip():
            state.feed(orjson.loads(raw), number)
    return state


def test_a_file_replay_equals_the_plain_replay(tmp_path: Path) -> None:
    for seed in range(6):
        path = tmp_path / f"t{seed}.jsonl"
        busy_transcript(path, seed)
        lazy, plain = replay_file(path, tolerate_tail=False), plain_replay(path)
        assert lazy.messages() == plain.messages()
        assert lazy.message_ids() == plain.message_ids()
        assert list(lazy.events) == list(plain.events)
        assert lazy.event_lines == plain.event_lines
        assert lazy.tool_ops == plain.tool_ops
        assert lazy.run_contexts == plain.run_contexts
        assert replay_json(lazy) == replay_json(plain)
        assert [(r.kind, r.id, r.raw, r.sent) for r in diff_rows(lazy)] == [
            (r.kind, r.id, r.raw, r.sent) for r in diff_rows(plain)
        ]
        with Session.load(path) as loaded:
            assert loaded.messages() == plain.messages()
            assert loaded.events() == list(plain.events)


def reference_diff_rows(state: ReplayState) -> list[DiffRow]:
    """The diff as it was made before ``DiffRows``: every envelope parsed, every text kept;
    in the order sent, by the spec's compaction played again here: a summary goes where
    its compaction put it, before the first message it left, and stays there."""
    live: dict[str, str] = {}
    for mid, body, _sticky, stub in state.entries:
        content = body.get("content")
        live[mid] = stub if stub is not None else ("" if content is None else str(content))
        if not content and body.get("tool-calls"):  # (a call alone: named by its calls)
            live[mid] = stub if stub is not None else "→ t {}"
    places = {mid: f"{at} of {len(state.entries)} sent next" for at, mid in enumerate(live, 1)}
    compactions = {c.id: c for c in state.compactions}
    rows: dict[int, DiffRow] = {}
    order: list[int] = []  # the rows by event, in the order sent
    sent: list[tuple[int, str, bool]] = []  # (event, id, sticky) sent, as the file goes
    for event, (envelope, line) in enumerate(zip(state.events, state.event_lines, strict=True)):
        kind, eid = envelope.get("type"), str(envelope.get("id"))
        if kind not in ("message", "compaction"):
            continue
        folded_by, elisions = state.folded_by.get(eid), state.elided.get(eid, [])
        fate = "folded" if folded_by is not None else "elided" if elisions else "kept"
        if kind == "compaction":
            record = compactions[eid]
            cut = max(at for at, (_, mid, _) in enumerate(sent) if mid == record.through)
            tail = sent[cut + 1 :]
            sent = [s for s in sent[: cut + 1] if s[2]] + [(event, eid, False)] + tail
            order.insert(order.index(tail[0][0]) if tail else len(order), event)
            rows[event] = DiffRow(
                "summary" if fate == "kept" else fate,  # type: ignore[arg-type]
                line,
                eid,
                "user",
                record.summary,
                live.get(eid),
                folded_by,
                record,
                elisions,
                places[eid] if folded_by is None else "",
            )
            continue
        payload = payload_of(envelope)
        content = payload.get("content")
        said = "" if content is None else str(content)
        sent.append((event, eid, payload_is_sticky(payload)))
        order.append(event)
        rows[event] = DiffRow(
            fate,  # type: ignore[arg-type]
            line,
            eid,
            str(payload.get("role") or "user"),
            "→ t {}" if not said and payload.get("tool-calls") else said,
            live.get(eid),
            folded_by,
            None,
            elisions,
        )
    return [rows[event] for event in order]


def test_diff_rows_built_on_demand_equal_the_whole_pass(tmp_path: Path) -> None:
    for seed in range(6):
        path = tmp_path / f"t{seed}.jsonl"
        busy_transcript(path, seed)
        for state in (plain_replay(path), followed(path).state):
            rows = DiffRows(state)
            assert list(rows) == reference_diff_rows(state)
            # what is sent, read down the rows, is what is sent next, in its order
            assert [r.id for r in rows if r.sent is not None] == state.message_ids()
            assert sum(r.kind in ("kept", "elided", "summary") for r in rows) == len(state.entries)
            assert [rows.kind(i) for i in range(len(rows))] == [r.kind for r in rows]
            assert rows.changed() == [i for i, r in enumerate(rows) if r.changed]
            assert rows[-1] == list(rows)[-1] and rows[1:3] == list(rows)[1:3]


def test_changed_rows_where_a_file_repeats_a_folded_id(tmp_path: Path) -> None:
    """``changed`` tells a folded row by its event, without making its id: a message line
    that repeats a folded message's id (a damaged file) is still changed by that id."""
    path = tmp_path / "t.jsonl"
    busy_transcript(path, 1)
    state = plain_replay(path)
    folded = next(iter(state.folded_by))
    line = next(
        raw
        for raw in path.read_bytes().split(b"\n")
        if raw.strip() and orjson.loads(raw).get("id") == folded
    )
    with path.open("ab") as fh:
        fh.write(line + b"\n")
    for state in (plain_replay(path), followed(path).state):
        rows = DiffRows(state)
        every = [i for i in range(len(rows)) if rows.kind(i) != "kept"]
        assert rows.changed() == every
        assert rows.kind(len(rows) - 1) == "folded"  # (the repeat: not a folded event)


def test_events_parse_again_past_the_cache(tmp_path: Path) -> None:
    events = Events()
    lines = [orjson.dumps({"type": "message", "payload": {"n": n}}) for n in range(CACHE * 3)]
    for raw in lines:
        events.append(raw, "message", "", None)
    events.append({"type": "live", "payload": {}}, "live", "", None)
    for _ in range(2):
        assert [e["payload"].get("n") for e in events][:-1] == list(range(CACHE * 3))
    assert events[-1] == {"type": "live", "payload": {}}
    assert events[5:7] == [
        {"type": "message", "payload": {"n": 5}},
        {"type": "message", "payload": {"n": 6}},
    ]
    body = LazyPayload(events, 7)
    assert dict(body) == {"n": 7} and body.get("n") == 7 and body["n"] == 7 and len(body) == 1


def followed(path: Path, batch: int = 4096, *, parse: bool = False) -> LiveTranscript:
    """The viewer's path: follow in small batches, each applied to a LiveTranscript (which
    parses the lines itself, unless ``parse``: then the follower hands it dicts)."""
    live = LiveTranscript(path)
    follow_into(live.apply, path, batch, parse)
    return live


def reference_usage(state: ReplayState) -> tuple[Usage, dict[str, Usage]]:
    """Usage by parsing every envelope again (what the tally did before it had facts)."""
    total, runs, run = Usage(), {}, NO_RUN
    for envelope in state.events:
        payload = payload_of(envelope)
        if envelope["type"] == "message" and counts_as_turn(payload):
            total.add(v1_usage(payload))
            runs.setdefault(run, Usage()).add(v1_usage(payload))
        elif envelope["type"] == "run-context":
            run = payload.get("run-id") or NO_RUN
            runs.setdefault(run, Usage())
        elif envelope["type"] == "tool-dispatched" and payload.get("run-id"):
            runs.setdefault(payload["run-id"], Usage())
    return total, runs


@pytest.mark.parametrize("crlf", [False, True])
def test_a_followed_file_equals_the_plain_replay(tmp_path: Path, crlf: bool) -> None:
    for seed in range(4):
        path = tmp_path / f"t{seed}.jsonl"
        busy_transcript(path, seed)
        if crlf:
            path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
        plain = plain_replay(path)
        for state in (
            followed(path).state,
            followed(path, parse=True).state,
            replay_file(path, tolerate_tail=False),
        ):
            assert list(state.events) == list(plain.events)
            assert state.event_lines == plain.event_lines
            assert state.messages() == plain.messages()
            assert state.tool_ops == plain.tool_ops
            assert state.run_contexts == plain.run_contexts
            assert state.pending_count == sum(not op["settled"] for op in plain.tool_ops)
            assert replay_json(state) == replay_json(plain)
            events = state.events
            assert events.kinds == [e["type"] for e in plain.events]
            assert events.ids == [e["id"] for e in plain.events]
            assert events.facts == [
                message_facts(e["payload"]) if e["type"] == "message" else None
                for e in plain.events
            ]
            first: dict[str, str] = {}
            for context in plain.run_contexts:
                for section in context["sections"]:
                    if "rendered" in section:  # a repeated section carries its digest only
                        first.setdefault(section["digest"], section["rendered"])
            assert first and {d: state.run_context_section(d) for d in first} == first
            tally = tally_state(state)
            assert (tally.transcript, tally.runs) == reference_usage(plain)


def damaged(path: Path) -> None:
    """A busy transcript with every kind of bad line a reader meets."""
    busy_transcript(path, 7)
    lines = path.read_bytes().split(b"\n")
    bad = [
        b"{not json",
        b"[1, 2]",
        b"",
        b"   ",
        b'{"v": 2, "type": "message", "id": "v2", "payload": {}}',
        b'{"v": 1, "id": "s", "type": "tool-settled", "payload": {"op-id": "nope"}}',
        b'{"v": 1, "id": "u", "type": "message", "payload": {"content": "\xff\xfe"}}',
        b'"a string"',
    ]
    for n, line in enumerate(bad):
        lines.insert(5 + n * 37, line)
    path.write_bytes(b"\n".join(lines))


def warned_line(warning: str) -> int:
    return int(warning.split()[1].rstrip(":"))


@pytest.mark.parametrize("batch", [1000, 1 << 20])
def test_a_damaged_file_replays_the_same_whoever_parses(tmp_path: Path, batch: int) -> None:
    path = tmp_path / "t.jsonl"
    damaged(path)
    raw, parsed = followed(path, batch, parse=False).state, followed(path, batch, parse=True).state
    assert list(raw.events) == list(parsed.events)
    assert raw.event_lines == parsed.event_lines
    assert {**replay_json(raw), "warnings": 0} == {**replay_json(parsed), "warnings": 0}
    assert raw.events.facts == parsed.events.facts
    assert len(raw.warnings) == 6  # the blank lines say nothing
    assert sorted(raw.warnings) == sorted(parsed.warnings)
    # Parsed as they are applied, the lines are warned of in file order.
    assert [warned_line(w) for w in raw.warnings] == sorted(warned_line(w) for w in raw.warnings)


def test_a_followed_file_keeps_spans_not_dicts(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    busy_transcript(path, 1)
    state = followed(path, batch=1000).state
    lines = [raw for raw in path.read_bytes().split(b"\n") if raw.strip()]
    assert events_kept(state.events) == {int}
    assert state.events.source is not None
    assert [state.events.source.read(span) for span in kept(state.events)] == lines


def kept(events: Events) -> list[dict[str, Any] | bytes | int]:
    return [events.kept(index) for index in range(len(events))]


def events_kept(events: Events) -> set[type]:
    return {type(item) for item in kept(events)}


def test_a_line_changed_under_the_view_reads_as_changed(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    busy_transcript(path, 2)
    state = followed(path).state
    index = state.message_events[3]
    data = bytearray(path.read_bytes())
    lines = data.split(b"\n")
    start = sum(len(line) + 1 for line in lines[: state.event_lines[index] - 1])
    length = len(lines[state.event_lines[index] - 1])
    data[start : start + length] = b" " * length  # in place: same inode, same size
    with open(path, "r+b") as fh:
        fh.write(data)
    changed = state.events[index]
    assert changed["id"] == state.events.ids[index]
    assert "changed on disk" in changed["payload"]["content"]
    assert changed["payload"]["role"] == state.events.facts[index].role  # type: ignore[union-attr]
    assert len(state.messages()) == len(state.entries)  # still readable, nothing raises


def test_a_replaced_file_still_reads_the_lines_replayed(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    busy_transcript(path, 3)
    live = followed(path)
    before = list(plain_replay(path).events)
    other = tmp_path / "other.jsonl"
    busy_transcript(other, 4)
    os.replace(other, path)  # a repair's rename: the view keeps the inode it replayed
    live.state.events._cache.clear()
    assert list(live.state.events) == before


@pytest.mark.parametrize(
    ("content", "lines"),
    [
        ("", 1),
        ("one", 1),
        ("a\nb\nc", 3),
        ("x\n" * 50, LINES_COUNTED),
        ("y" * 10_000 + "\n\n", 3),  # the newlines past the first 4096 characters count too
        ("z" * 10_000 + "\n" * 20, LINES_COUNTED),
        (None, 1),
    ],
)
def test_message_facts_count_lines_up_to_a_cap(content: str | None, lines: int) -> None:
    assert message_facts({"role": "user", "content": content}).lines == lines


def test_message_facts_of_odd_payloads() -> None:
    facts = message_facts(
        {"role": 7, "tool-calls": ["junk", {"id": 3, "function": {"name": None}}], "usage": {}}
    )
    assert (facts.role, facts.call_count, facts.calls, facts.turn) == ("7", 2, (("3", ""),), False)
    # (a usage with no number in it reports nothing: only one with a number makes a response)
    assert message_facts({"role": 7, "usage": {"cost": 0.5}}).turn
    assert message_facts({}).role == "user" and not message_facts({}).turn
    assert message_facts({"role": "assistant"}).turn


ODD_PAYLOADS: list[dict[str, Any]] = [
    {},
    {"role": "developer", "content": "a\nb", "is-error": True, "reasoning": "hm"},
    {"role": 7, "tool-calls": ["junk", {"id": 3, "function": {"name": None}}], "usage": {}},
    {"role": "tool", "tool-call-id": "c1", "content": "x\n" * 20},
    {
        "role": "assistant",
        "tool-call-id": "c0",  # odd, but kept: answers and calls both
        "tool-calls": [{"id": f"c{n}", "function": {"name": f"t{n % 3}"}} for n in range(5)],
        "usage": {"prompt-tokens": 2**70, "completion-tokens": -3, "cost": 7},
    },
    {"role": "assistant", "usage": {"prompt-tokens": -(2**63), "total-tokens": 2**63 - 1}},
    {"role": "assistant", "usage": {"completion-tokens": 5, "cost": 0.25, "cache-read-tokens": 1}},
    {"role": "assistant", "tool-calls": [{"id": "same", "function": {"name": "t"}}] * 70_000},
    {"role": "assistant", "tool-calls": [1] * 70_000},
]


def test_packed_facts_read_back_as_taken() -> None:
    """The facts column packs each line's facts into words, a flat list of texts and
    usage arrays: every odd payload reads back equal to its ``message_facts``, by
    whole object and fact by fact, taken at feed time or late (a file replay)."""
    events = Events()
    for n, payload in enumerate(ODD_PAYLOADS):
        events.append({"payload": payload}, "message", f"m{n}", payload_fields(payload, {}))
        events.append({"payload": {}}, "x-note", f"x{n}", None)
    late = Events()
    for n, payload in enumerate(ODD_PAYLOADS):
        late.append({"payload": payload}, "message", f"m{n}")
    for column in (events.facts, late.facts):
        wanted = [message_facts(p) for p in ODD_PAYLOADS]
        messages = [i for i in range(len(column)) if column.is_message(i)]
        got = [column[i] for i in messages]
        assert got == wanted
        assert list(column.call_facts(messages)) == [
            (i, len(f.calls), f.answers) for i, f in zip(messages, wanted, strict=True)
        ]
        for i in range(len(column)):
            if not column.is_message(i):
                assert column[i] is None and column.usage(i) is None and column.calls(i) == ()
                continue
            facts = column[i]
            assert facts is not None
            assert column.role(i) == facts.role and column.lines(i) == facts.lines
            assert column.calls(i) == facts.calls and column.answers(i) == facts.answers
            assert column.usage(i) == facts.usage and column.turn(i) == facts.turn
            assert column.call_count(i) == facts.call_count and column.error(i) == facts.error
