"""A v1 file followed in any two appends, or a line at a time, has the operations its
whole read has (states, call ids, tools, count): call ids used again by message lines
and dispatch lines in every order. A dispatch line arriving in one append and two
messages calling its call id in the next gave a second, "never dispatched" operation
that the whole read (the reference's) does not have (the fuzz audit)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from session_core.following import follow
from session_core.formats import V1, by_name
from session_core.formats.base import LiveModel
from session_core.model import Transcript

TS = "2026-11-30T00:02:42.2Z"


def line(kind: str, payload: dict[str, Any], ident: str | None = None) -> bytes:
    record: dict[str, Any] = {"payload": payload, "ts": TS, "type": kind, "v": 1}
    if ident is not None:
        record["id"] = ident
    return orjson.dumps(record) + b"\n"


def meta() -> bytes:
    return line("session-meta", {"agent": "a"}, "m0")


def dispatched(op: str, call: str, tool: str = "read_file") -> bytes:
    payload = {"arguments": "{}", "call-id": call, "idempotency": "read-only", "tool": tool}
    return line("tool-dispatched", payload | {"round": 1, "run-id": "run-1"}, op)


def settled(op: str) -> bytes:
    return line("tool-settled", {"op-id": op, "outcome": "completed"}, f"s-{op}")


def asks(ident: str, *calls: str, tool: str = "read_file") -> bytes:
    tool_calls = [
        {"function": {"arguments": "{}", "name": tool}, "id": call, "type": "function"}
        for call in calls
    ]
    payload = {"content": "", "role": "assistant", "tool-calls": tool_calls}
    return line("message", payload, ident)


def answers(ident: str, call: str) -> bytes:
    payload = {"content": "ok", "role": "tool", "tool-call-id": call}
    return line("message", payload, ident)


def user(ident: str) -> bytes:
    return line("message", {"content": "go", "role": "user"}, ident)


SHAPES: dict[str, list[bytes]] = {
    # The fuzzer's two files (crashes/transcript-v1 of the audit), as written.
    "dispatch, then two messages calling it": [
        meta(),
        dispatched("op1", "call_1"),
        asks("a1", "call_1"),
        asks("a2", "call_1"),
    ],
    "dispatch, then one message line written twice": [
        meta(),
        dispatched("op1", "call_1"),
        asks("a1", "call_1"),
        asks("a1", "call_1"),
    ],
    "message, dispatch, the message again": [
        meta(),
        asks("a1", "c1"),
        dispatched("op1", "c1"),
        asks("a2", "c1"),
    ],
    "dispatch, three messages calling it, one call twice": [
        meta(),
        dispatched("op1", "c1"),
        asks("a1", "c1", "c1"),
        asks("a2", "c1"),
        user("u1"),
        asks("a3", "c1"),
    ],
    "dispatched twice, called twice, interleaved": [
        meta(),
        dispatched("op1", "c1"),
        asks("a1", "c1"),
        dispatched("op2", "c1"),
        asks("a2", "c1"),
        asks("a3", "c1"),
    ],
    "called twice, then dispatched": [
        meta(),
        asks("a1", "c1"),
        asks("a2", "c1"),
        dispatched("op1", "c1"),
    ],
    "one call early, one late, both asked twice": [
        meta(),
        dispatched("op1", "c1"),
        asks("a1", "c1", "c2"),
        asks("a2", "c2", "c1"),
        dispatched("op2", "c2"),
    ],
    "never dispatched, asked again after another call": [
        meta(),
        asks("a1", "c1"),
        dispatched("op2", "c2"),
        asks("a2", "c2"),
        asks("a3", "c1"),
        user("u1"),
    ],
    "settled and answered before its message, asked again": [
        meta(),
        dispatched("op1", "c1"),
        settled("op1"),
        asks("a1", "c1"),
        answers("t1", "c1"),
        asks("a2", "c1"),
        answers("t2", "c1"),
    ],
    "answered without a dispatch, then dispatched, asked again": [
        meta(),
        asks("a1", "c1", "c2"),
        answers("t1", "c1"),
        dispatched("op1", "c1"),
        dispatched("op2", "c2"),
        asks("a2", "c1", "c2"),
        dispatched("op3", "c2"),
        asks("a3", "c2"),
        user("u1"),
    ],
}


def ops(transcript: Transcript) -> list[tuple[str, str, str, int]]:
    return [(o.call_id, o.tool, o.state, o.line) for o in transcript.tool_operations]


def followed(path: Path, parts: list[bytes], after: Callable[[LiveModel, int], None]) -> LiveModel:
    """Write ``parts`` one append at a time, each applied to a live model as the viewer's
    follow gives it before the next is written; ``after(live, parts written)`` then."""
    live = by_name(V1).live(str(path))

    async def run() -> None:
        path.write_bytes(b"")
        updates = follow(path, force_polling=True, poll_interval=0.002, parse=False)
        size = 0
        try:
            async with asyncio.timeout(20):
                for count, part in enumerate([b"", *parts]):
                    with path.open("ab") as fh:
                        fh.write(part)
                    size += len(part)
                    while True:
                        update = await updates.__anext__()
                        live.apply(update)
                        if update.caught_up and update.offset >= size:
                            break
                    after(live, count)
        finally:
            await updates.aclose()

    asyncio.run(run())
    return live


def snapshot(live: LiveModel, _count: int) -> None:
    live.transcript(writer_alive=False)  # (the viewer's, after each update)


def no_snapshot(_live: LiveModel, _count: int) -> None:
    pass


@pytest.mark.parametrize("shape", SHAPES)
def test_a_file_followed_in_two_appends_has_the_whole_reads_operations(
    shape: str, tmp_path: Path
) -> None:
    lines = SHAPES[shape]
    whole_path = tmp_path / "whole.jsonl"
    whole_path.write_bytes(b"".join(lines))
    whole = {
        alive: ops(by_name(V1).open(whole_path, writer_alive=alive)) for alive in (False, True)
    }
    assert whole[False]  # (each shape has operations to compare)
    for cut in range(1, len(lines)):
        for snapshots in (False, True):
            path = tmp_path / f"cut{cut}-{snapshots}.jsonl"
            parts = [b"".join(lines[:cut]), b"".join(lines[cut:])]
            live = followed(path, parts, snapshot if snapshots else no_snapshot)
            for alive in (False, True):
                got = ops(live.transcript(writer_alive=alive))
                assert got == whole[alive], (cut, snapshots, alive)


@pytest.mark.parametrize("shape", SHAPES)
def test_a_file_followed_a_line_at_a_time_is_each_prefixs_whole_read(
    shape: str, tmp_path: Path
) -> None:
    """Each snapshot of a line-at-a-time follow equals the whole read of the lines so far."""
    lines = SHAPES[shape]
    prefix = tmp_path / "prefix.jsonl"

    def as_whole(live: LiveModel, count: int) -> None:
        if not count:
            return  # (nothing written yet)
        prefix.write_bytes(b"".join(lines[:count]))
        whole = by_name(V1).open(prefix, writer_alive=False)
        assert ops(live.transcript(writer_alive=False)) == ops(whole), count

    followed(tmp_path / "followed.jsonl", lines, as_whole)
