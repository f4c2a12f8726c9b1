"""A line longer than a read block is held once while it is read, not three times (its
pieces, the pieces joined, and its copy cut into lines: a 20 MB line took 60 MB more to
read than the file's other lines). Measured by tracemalloc, which counts the bytes
objects themselves (not RSS: no noise)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from session_core import Message, Session
from session_core.file_lines import read_batches
from session_core.reader import replay_file

LINE = 8 << 20  # (eight 1 MB blocks of the model formats' reader, two of v1's 4 MB)


@pytest.fixture(scope="module")
def long_line(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("long") / "t.jsonl"
    with Session.create(path, meta={"agent": "a"}) as s:
        s.append_message(Message(role="user", content="go"))
        s.append_message(Message(role="assistant", content=("x" * 99 + "\n") * (LINE // 100)))
    return path


def _peak(read: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        read()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("reader", ["v1 replay", "model formats' lines"])
def test_a_line_longer_than_a_block_is_held_at_most_twice(long_line: Path, reader: str) -> None:
    if reader == "v1 replay":
        peak = _peak(lambda: replay_file(str(long_line), tolerate_tail=False))
    else:
        peak = _peak(lambda: [None for _ in read_batches(str(long_line))])
    assert peak < 2.4 * long_line.stat().st_size
