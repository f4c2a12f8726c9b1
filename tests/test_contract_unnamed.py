"""The contract, continued: what no spec names is kept and shown raw, never dropped
(transcript-v1.md: "unknown type -> kept in events"; claude-code.md: "what it does not
understand it keeps and shows raw"; codex.md: "unknown line and item types are kept and
shown raw"; agentgo's "anything else"), over ``session_core.formats.FORMATS``.

An audit (session 42, E: F1, F8) found a Claude Code content block of an unknown type
gone from ``replay``'s and ``peek``'s messages (the diff and the md export showed it), a
Codex response item of an unknown type made a ``system`` message with no content, and
v1's record of an unknown type in no key of ``replay`` and not said by ``check``, where
agentgo's replay lists them (``other-records``) and its check counts them. One rule now:
a record of a type the format does not name is listed by ``replay`` under
``other-records`` (its line, type and record as written) and counted by ``check``; it is
no message; a block of an unknown type in a message is in its ``content`` as written.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from contract_helpers import open_transcript

from session_core import peek
from session_core.formats import FORMATS, TranscriptFormat, format_of

UNNAMED = "x-tailscope-unnamed"
MARK = "kept [bold]as[/] written"  # (markup: said as text, never drawn)
SAID = "1 record of a type the spec does not name (kept raw)"


def _first(lines: list[bytes]) -> dict[str, Any]:
    record: dict[str, Any] = orjson.loads(lines[0])
    return record


def _v1(lines: list[bytes]) -> tuple[int, dict[str, Any]]:
    ts = _first(lines)["ts"]
    record = {"id": "0b0e0f5e-0000-4000-8000-00000000beef", "payload": {"said": MARK}}
    return 1, {**record, "ts": ts, "type": UNNAMED, "v": 1}


def _claude_code(lines: list[bytes]) -> tuple[int, dict[str, Any]]:
    sessions = [orjson.loads(raw).get("sessionId") for raw in lines[1:4]]
    session = next(s for s in sessions if isinstance(s, str))
    return 1, {"type": UNNAMED, "sessionId": session, "said": MARK}


def _codex(lines: list[bytes]) -> tuple[int, dict[str, Any]]:
    return 1, {"timestamp": _first(lines)["timestamp"], "type": UNNAMED, "payload": {"said": MARK}}


def _agentgo(lines: list[bytes]) -> tuple[int, dict[str, Any]]:
    last: dict[str, Any] = orjson.loads(lines[-1])  # (seq is contiguous: one past the last)
    record = {"data": {"said": MARK}, "seq": last["seq"] + 1, "session_id": last["session_id"]}
    return len(lines), {**record, "time": last["time"], "type": UNNAMED}


# Where, and as what, each built-in format's writer would write a record of a type its spec
# does not name (a registered format's own sample has none to copy: it is not asked).
RECORDS: dict[str, Callable[[list[bytes]], tuple[int, dict[str, Any]]]] = {
    "transcript-v1": _v1,
    "claude-code": _claude_code,
    "codex": _codex,
    "agentgo-v1": _agentgo,
}


# (A plugin's format is not asked: no record of an unnamed type is known to write in it.)
BUILT_IN = list(RECORDS)
# The formats whose messages hold a list of blocks (v1's content is a string).
WITH_BLOCKS = [name for name in BUILT_IN if name != "transcript-v1"]


def test_every_built_in_format_is_asked() -> None:
    assert {fmt.name for fmt in FORMATS} >= set(BUILT_IN)
    assert {"transcript-v1", "claude-code", "codex", "agentgo-v1"} == set(BUILT_IN)


def _with_unnamed(fmt: TranscriptFormat, sample: Path) -> tuple[int, dict[str, Any]]:
    """The sample with a record of an unnamed type written into it: its line, and it."""
    lines = sample.read_bytes().split(b"\n")  # (its last line ended or not, as it was)
    after, record = RECORDS[fmt.name](lines[:-1] if not lines[-1] else lines)
    lines.insert(after, orjson.dumps(record))
    sample.write_bytes(b"\n".join(lines))
    return after + 1, record


def _check(fmt: TranscriptFormat, path: Path) -> str:
    found = format_of(path)
    assert found is not None and found.name == fmt.name
    return found.check(path)


def _said(number: int) -> str:
    return f"{number} record{'s' if number != 1 else ''} of a type the spec does not name"


@pytest.mark.parametrize("fmt", BUILT_IN, indirect=True)
def test_a_record_of_an_unnamed_type_is_listed_and_counted(
    fmt: TranscriptFormat, sample: Path
) -> None:
    before = fmt.replay_json(sample)
    others = len(before["other-records"])  # (every format prints the key; a sample's own)
    assert (_said(others) in _check(fmt, sample)) is bool(others)
    line, record = _with_unnamed(fmt, sample)
    replay = fmt.replay_json(sample)
    listed = [{k: v for k, v in r.items() if k != "seq"} for r in replay["other-records"]]
    assert {"line": line, "type": UNNAMED, "record": record} in listed
    assert len(listed) == others + 1
    assert f"{_said(others + 1)} (kept raw)" in _check(fmt, sample)
    # No message: what is sent next is as it was, and no warning (the spec allows it).
    assert len(replay["messages"]) == len(before["messages"])
    assert MARK not in orjson.dumps(replay["messages"]).decode()
    assert len(replay["warnings"]) == len(before["warnings"])
    # The neutral model holds it too, beside its raw row.
    transcript: Any = open_transcript(sample)
    assert (line, UNNAMED, record) in [(r.line, r.type, r.record) for r in transcript.other_records]
    assert any(item.line == line for item in transcript.raw)


def _content_lists(record: Any) -> list[list[Any]]:
    """Every list of content blocks in a record (``content``: dicts with a ``type``)."""
    found: list[list[Any]] = []
    if isinstance(record, dict):
        for key, value in record.items():
            blocks = key == "content" and isinstance(value, list) and value
            if blocks and all(isinstance(b, dict) and "type" in b for b in value):
                found.append(value)
            found.extend(_content_lists(value))
    elif isinstance(record, list):
        for value in record:
            found.extend(_content_lists(value))
    return found


@pytest.mark.parametrize("fmt", WITH_BLOCKS, indirect=True)
def test_a_block_of_an_unknown_type_is_in_its_messages_content(
    fmt: TranscriptFormat, sample: Path
) -> None:
    """The last message sent next whose line's content is a list of blocks gets one of a
    type no spec names: the replay's messages and peek's say it as written (its JSON)."""
    lines = sample.read_bytes().split(b"\n")
    transcript: Any = open_transcript(sample)
    for item in reversed(transcript.messages):
        record = orjson.loads(lines[item.line - 1])
        blocks = _content_lists(record)
        if blocks and any("text" in b for b in blocks[0]):
            break
    else:
        raise AssertionError(f"{fmt.name}: no message of its sample holds blocks")
    block = {"type": "x-tailscope-block", "said": MARK}
    blocks[0].append(block)
    lines[item.line - 1] = orjson.dumps(record)
    sample.write_bytes(b"\n".join(lines))
    written = orjson.dumps(block).decode()
    said = [m for m in fmt.replay_json(sample)["messages"] if MARK in orjson.dumps(m).decode()]
    assert len(said) == 1, said
    content = said[0]["content"]  # (a string of the neutral model's; agentgo's, as written)
    assert written in content if isinstance(content, str) else block in content
    peeked = [m.content for m in peek(sample).messages if MARK in str(m.to_payload())]
    assert len(peeked) == 1 and written in peeked[0], peeked
