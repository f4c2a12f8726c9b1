"""``session_core.utf8``: the one UTF-8 check of every fast path, against Python's own."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from session_core.utf8 import SLICE, BlockLines, is_utf8


def python_says(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# Text with multi-byte characters, now and then a byte that no UTF-8 holds, cut anywhere.
pieces = st.one_of(
    st.text(min_size=1, max_size=64).map(lambda s: s.encode("utf-8", "surrogatepass")),
    st.sampled_from([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\xf0\x9f\x98\x80"]),
)


@settings(max_examples=300)
@given(st.lists(pieces, max_size=40), st.integers(0, SLICE + 8))
def test_it_says_what_python_says(parts: list[bytes], pad: int) -> None:
    # padded so that a character may straddle a slice's end, in a line over one slice
    for raw in (b"".join(parts), b"a" * pad + b"".join(parts), b"x" * SLICE + b"".join(parts)):
        expected = python_says(raw)
        assert is_utf8(raw) is expected
        assert is_utf8(memoryview(raw)) is expected
        assert is_utf8(bytearray(raw)) is expected


@pytest.mark.parametrize("split", [1, 2, 3])
def test_a_character_across_a_slices_end_is_whole(split: int) -> None:
    emoji = "😀".encode()
    raw = b"a" * (SLICE - split) + emoji * 3
    assert is_utf8(raw) and is_utf8(memoryview(raw))
    torn = b"a" * (SLICE - split) + emoji[:split]  # a character cut at the line's end
    assert not is_utf8(torn) and not is_utf8(memoryview(torn))


def test_it_refuses_what_orjson_refuses() -> None:
    for raw in (b'{"a":"\xff"}', b'{"a":"\xed\xa0\x80"}', b'{"a":"\xc0\xaf"}'):
        with pytest.raises(orjson.JSONDecodeError):
            orjson.loads(raw)
        assert not is_utf8(raw)
    assert is_utf8('{"a":"é 😀"}'.encode())


def test_a_block_of_ascii_answers_for_its_lines_and_another_block_is_asked_again() -> None:
    check = BlockLines()
    plain = b'{"a":"b"}\n{"c":"d"}\n'
    view = memoryview(plain)
    assert check.ascii(view[:9]) and check.ascii(view[10:19]) and check.ok(view[:9])
    mixed = '{"a":"é"}\n{"c":"\\u00e9"}\n'.encode() + b'{"e":"\xff"}'
    view = memoryview(mixed)
    first, second, third = view[:10], view[11:25], view[26:]
    assert not check.ascii(first) and check.ok(first)  # a new block: not all ASCII
    assert check.ok(second)  # ASCII itself, in a block that is not
    assert not check.ok(third)
    assert check.ok(b"plain") and not check.ok(b"\xff")  # a line of its own: itself
