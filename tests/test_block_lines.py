"""``block_lines.whole_line_runs``: a file's whole lines between two offsets, a block at a
time, for any block size and line lengths (lines longer than a block joined once)."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from session_core.block_lines import whole_line_runs

LINES = st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"x")), max_size=30)


@given(lines=LINES, block=st.integers(1, 64), tail=st.binary(max_size=10), skip=st.integers(0, 5))
def test_the_runs_are_the_whole_lines_in_order(
    lines: list[bytes], block: int, tail: bytes, skip: int
) -> None:
    data = b"".join(line + b"\n" for line in lines) + tail.replace(b"\n", b"x")
    skip = min(skip, len(lines))
    start = sum(len(line) + 1 for line in lines[:skip])  # (a line's start)
    runs = list(whole_line_runs(io.BytesIO(data), start, len(data), block))
    assert b"".join(chunk[begin:stop] for chunk, begin, stop in runs) == b"".join(
        line + b"\n" for line in lines[skip:]
    )
    assert all(chunk[begin:stop].endswith(b"\n") for chunk, begin, stop in runs if stop > begin)
