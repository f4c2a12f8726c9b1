"""``read_batches``: every line of a plain file, its number and its span, whatever
block the file is read in and whatever its lines hold (blank, white space, CRLF, a
line longer than a block, no final newline). A block whose lines are none of those is
numbered in one go; each way is held to a plain split of the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from session_core import file_lines
from session_core.events import SPAN_BITS
from session_core.reader import is_blank

PIECES = [b'{"a":1}', b"", b"  ", b"\t", b'{"b":"x\xc3\xa9"}', b' {"c":2}', b'{"d":3}\r']
PIECES += [b"\r", b"x" * 50, b"\x00z", b'{"e":"' + b"y" * 300 + b'"}', b"\x0b", b"!"]
# Unicode's white space (a blank line to every reader), and lines led by a byte >= 0x80
PIECES += ["\u00a0".encode(), " \u3000\r".encode(), "\u0085".encode(), "\u00e9t\u00e9".encode()]


def plain(data: bytes) -> list[tuple[bytes, int, int]]:
    """Each line that is not blank: its bytes (no CR), its number and its span (0 for a
    last line without its newline)."""
    out = []
    offset = 0
    parts = data.split(b"\n")
    for number, raw in enumerate(parts, 1):
        last = number == len(parts)
        start, offset = offset, offset + len(raw) + 1
        raw = raw.removesuffix(b"\r")
        if not is_blank(raw):
            out.append((raw, number, 0 if last else start << SPAN_BITS | len(raw)))
    return out


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.sampled_from(PIECES), max_size=40),
    final=st.booleans(),
    block=st.sampled_from([7, 16, 64, 333, 1 << 20]),
)
def test_every_line_with_its_number_and_span(
    tmp_path_factory: pytest.TempPathFactory, lines: list[bytes], final: bool, block: int
) -> None:
    data = b"\n".join(lines) + (b"\n" if final else b"")
    path = tmp_path_factory.mktemp("lines") / "f.jsonl"
    path.write_bytes(data)
    saved = file_lines._BLOCK
    file_lines._BLOCK = block
    try:
        read = [
            (raw, number, span)
            for raws, numbers, spans in file_lines.read_batches(str(path))
            for raw, number, span in zip(raws, numbers, spans, strict=True)
        ]
    finally:
        file_lines._BLOCK = saved
    assert read == plain(data)


def test_a_block_of_plain_lines_is_numbered_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The quick way (no line a blank or CR one) is the one taken for such a block, and
    a block with a blank line, or one led by a byte of Unicode's white space, still goes
    line by line: each gives the plain split."""
    from itertools import accumulate

    whole: list[int] = []

    def counted(*args: object, **kwargs: object) -> object:
        whole.append(1)
        return accumulate(*args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(file_lines, "accumulate", counted)
    path = tmp_path / "f.jsonl"
    data = b"".join(b'{"n":%d}\n' % n for n in range(1000))
    for body, quick in ((data, True), (data + b"\n  \n" + data, False)):
        for lead in (b"", "\u3000\n".encode()):
            whole.clear()
            path.write_bytes(lead + body)
            read = [
                (raw, number, span)
                for raws, numbers, spans in file_lines.read_batches(str(path))
                for raw, number, span in zip(raws, numbers, spans, strict=True)
            ]
            assert read == plain(lead + body)
            assert bool(whole) == (quick and not lead)
