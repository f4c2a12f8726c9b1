"""A Claude Code response split over many lines (one per parallel tool call) is read in
time linear in its lines: the chain's recovery (``chain.recover``) walked the whole
response's lines and calls again for each of its lines on the chain, so 8,000 lines took
7 s to open (the fuzz audit's scale probe). Counted, not timed: how many times the
responses' line and call lists are stepped through."""

from __future__ import annotations

import sys
from array import array
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from claude_code_writer import CCWriter, text, tool_use
from helpers import neutral

from session_core.formats.claude_code import ClaudeCodeFormat

FMT = ClaudeCodeFormat()
CALLS = 400


class Stepped:
    """An array whose reads are counted (a response's list's ``next``)."""

    def __init__(self, values: Any) -> None:
        self.values, self.reads = values, 0

    def __getitem__(self, index: int) -> int:
        self.reads += 1
        return int(self.values[index])

    def __len__(self) -> int:
        return len(self.values)


def split_response(path: Path, calls: int) -> Path:
    """One response with ``calls`` parallel tool calls, a line each, each answered by a
    result hung from its own line (as Claude Code writes them), then the next response."""
    w = CCWriter()
    w.user("go")
    lines = w.assistant(
        "msg_1", [tool_use(f"t{i}", "Bash", command=f"echo {i}") for i in range(calls)]
    )
    for i, line in enumerate(lines):
        w.result(f"t{i}", f"out {i}", parent=line)
    w.assistant("msg_2", [text("done")])
    return w.write(path)


def test_a_response_split_over_many_lines_is_walked_once(tmp_path: Path) -> None:
    path = split_response(tmp_path / "split.jsonl", CALLS)
    b: Any = FMT.builder(str(path))
    for number, raw in enumerate(path.read_bytes().splitlines(), 1):
        b.feed(orjson.loads(raw), number)
    nodes, calls = b.responses.nodes, b.responses.calls
    nodes.next, calls.next = Stepped(nodes.next), Stepped(calls.next)
    t = b.transcript(False)
    # Each of the response's lines and calls stepped through a few times at most (once
    # for each of its lines on the chain, that was CALLS * CALLS).
    assert nodes.next.reads <= 4 * CALLS, nodes.next.reads
    assert calls.next.reads <= 4 * CALLS, calls.next.reads
    # Every split line and every result is on the chain: nothing lost by walking once.
    (first, second) = [i for i in t.messages if i.role == "assistant"]
    assert first.lines == CALLS and [p.text for p in second.parts] == ["done"]
    assert [op.state for op in t.tool_operations] == ["completed"] * CALLS
    results = [p for i in t.messages for p in i.parts if p.kind == "tool-result"]
    assert [p.call_id for p in results] == [f"t{i}" for i in range(CALLS)]


class _Counted(array):  # type: ignore[type-arg]
    """A response list's ``next`` array whose reads are counted (it grows as fed)."""

    reads = 0

    def __getitem__(self, index: Any) -> Any:
        _Counted.reads += 1
        return super().__getitem__(index)


@pytest.mark.parametrize("shape", ["text", "calls"])
def test_a_followed_response_split_over_many_lines_is_walked_once(
    tmp_path: Path, shape: str
) -> None:
    """Followed, a snapshot every few lines: each built on the last (``chain.grown``)
    walked the whole response again (its lines, and for each new line beside the chain
    its lines once more): quadratic in its lines (4,000 lines: 1.2 s). Counted: the
    response's lines stepped through, a few times each at most; and the followed file
    reads as the file read whole."""
    w = CCWriter()
    w.user("go")
    if shape == "text":
        w.assistant("msg_1", [text(f"block {i}") for i in range(CALLS)])
    else:  # each call answered by a result hung from its line, the next line from that
        for i in range(CALLS):
            (line,) = w.assistant("msg_1", [tool_use(f"t{i}", "Bash", command=f"echo {i}")])
            w.result(f"t{i}", f"out {i}", parent=line)
    w.assistant("msg_2", [text("done")])
    path = w.write(tmp_path / "split.jsonl")
    b: Any = FMT.builder(str(path))
    b.responses.nodes.next = _Counted("i")
    _Counted.reads = 0
    for number, raw in enumerate(path.read_bytes().splitlines(), 1):
        b.feed(orjson.loads(raw), number)
        if number % 5 == 0:
            b.transcript(True)
    followed = b.transcript(False)
    lines = number
    assert _Counted.reads <= 4 * lines, _Counted.reads
    assert neutral(followed) == neutral(FMT.open(path, writer_alive=False))
