"""A file replay keeps lines, not parsed envelopes: it must replay exactly as the plain path."""

from __future__ import annotations

import random
from pathlib import Path

import orjson

from session_core import Message, Session
from session_core.diff import diff_rows
from session_core.events import CACHE, Events, LazyPayload
from session_core.reader import replay_file
from session_core.replay import ReplayState
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


def test_events_parse_again_past_the_cache(tmp_path: Path) -> None:
    events = Events()
    lines = [orjson.dumps({"type": "message", "payload": {"n": n}}) for n in range(CACHE * 3)]
    for raw in lines:
        events.append(raw)
    events.append({"type": "live", "payload": {}})
    for _ in range(2):
        assert [e["payload"].get("n") for e in events][:-1] == list(range(CACHE * 3))
    assert events[-1] == {"type": "live", "payload": {}}
    assert events[5:7] == [
        {"type": "message", "payload": {"n": 5}},
        {"type": "message", "payload": {"n": 6}},
    ]
    body = LazyPayload(events, 7)
    assert dict(body) == {"n": 7} and body.get("n") == 7 and body["n"] == 7 and len(body) == 1
