"""The contract every registered format keeps, on values no writer wrote: bytes mutated
at random, a value of another type anywhere, a byte that is not UTF-8, values nested
deep, numbers beyond a double. Peek never raises; a read either takes the file or refuses
it with ``TranscriptError``, never a traceback, and never silently.
(``contract_helpers``' fixtures: every registered format's sample.)"""

from __future__ import annotations

import contextlib
import io
import re
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from contract_helpers import items_text, open_transcript
from format_fixtures import FACTORIES
from helpers import follow_into, places, put_at
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from session_core import TranscriptError, peek
from session_core.formats import TranscriptFormat, by_name
from session_core.views import dump_json


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_byte_mutations(fmt: TranscriptFormat, sample: Path, data: st.DataObject) -> None:
    original = sample.read_bytes()
    mutated = bytearray(original)
    for _ in range(data.draw(st.integers(1, 8), label="mutations")):
        where = data.draw(st.integers(0, max(0, len(mutated) - 1)), label="offset")
        action = data.draw(st.sampled_from(["flip", "cut", "insert", "truncate"]))
        if action == "flip" and mutated:
            mutated[where] = data.draw(st.integers(0, 255))
        elif action == "cut":
            del mutated[where : where + data.draw(st.integers(1, 64))]
        elif action == "insert":
            mutated[where:where] = data.draw(st.binary(min_size=1, max_size=16))
        else:
            del mutated[where:]
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / sample.name
        path.write_bytes(bytes(mutated))
        peek(path)  # never raises
        with contextlib.suppress(TranscriptError):  # the only way a read may be refused
            open_transcript(path)
        assert path.read_bytes() == bytes(mutated)


_ANY_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_value_of_another_type_anywhere_is_read_or_refused(
    fmt: TranscriptFormat, sample: Path, data: st.DataObject
) -> None:
    """Any field of any record given a value of another type (a count made a list, a seq
    made 2**62, a role made an object): every read path reads it or refuses it with
    ``TranscriptError``, whole and followed, never a traceback. (Found this way: a v1
    compaction's ``tokens-before`` of ``[]`` raised ``TypeError`` in every read of the
    model; an agentgo ``seq`` of 2**62 overflowed the item column in the follower.)"""
    lines = sample.read_bytes().split(b"\n")
    records = []
    for i, line in enumerate(lines):
        with contextlib.suppress(orjson.JSONDecodeError):  # (a sample may end torn)
            records.append((i, orjson.loads(line)))
    records = [(i, record) for i, record in records if isinstance(record, dict) and record]
    index, record = data.draw(st.sampled_from(records), label="line")
    at = data.draw(st.sampled_from(list(places(record))), label="place")
    _read_changed(fmt, sample, lines, index, put_at(record, at, data.draw(_ANY_VALUE)))


def _read_changed(
    fmt: TranscriptFormat, sample: Path, lines: list[bytes], index: int, record: Any
) -> None:
    """``sample`` with line ``index`` made ``record``, through every read path, whole and
    followed."""
    changed = list(lines)
    changed[index] = orjson.dumps(record)
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / sample.name
        path.write_bytes(b"\n".join(changed))
        _every_read_path(fmt, path)
        live = by_name(fmt.name).live(str(path))
        follow_into(live.apply, path, 1 << 20, live.format.parsed_updates)
        dump_json(live.transcript(writer_alive=False).to_json())


@pytest.mark.parametrize(
    ("name", "kind", "at", "new"),
    [
        ("transcript-v1", "compaction", ("payload", "tokens-before"), []),
        ("transcript-v1", "compaction", ("payload", "tokens-after"), {"a": 1}),
        ("agentgo-v1", "message_end", ("seq",), 2**62),
    ],
)
def test_the_values_of_another_type_found_so_are_read_or_refused(
    name: str, kind: str, at: tuple[str, ...], new: Any, tmp_path: Path
) -> None:
    """The cases the test above found, each a traceback before (v1's compaction line drawn
    with ``f"{value:,}"``; agentgo's item line taken from its seq, an int32)."""
    sample = FACTORIES[name](tmp_path)
    lines = sample.read_bytes().split(b"\n")
    index = next(i for i, line in enumerate(lines) if f'"{kind}"'.encode() in line)
    _read_changed(by_name(name), sample, lines, index, put_at(orjson.loads(lines[index]), at, new))


def _string_starts(line: bytes) -> list[int]:
    """Where a string value begins in a line (just after its ``":"``)."""
    return [found.end() for found in re.finditer(rb'":\s*"', line)]


def _said(transcript: object, number: int) -> bool:
    warnings = getattr(transcript, "warnings", [])
    return any(f"line {number}" in w for w in warnings)


def _inner_lines(sample: Path) -> Iterator[tuple[list[bytes], int, bytes]]:
    """The sample's lines, and each line but the first (a bad first line is no transcript
    at all) and the last (with no newline after it, it may still be being written)."""
    lines = sample.read_bytes().split(b"\n")
    for index in range(1, len(lines) - 1):
        yield lines, index, lines[index]


def _read_both_ways(
    fmt: TranscriptFormat, path: Path, number: int, fine: Callable[[Any], bool]
) -> None:
    """``path`` read whole, then followed: refused or warned of by line ``number``, or
    read and ``fine``."""

    try:
        whole = open_transcript(path)
    except TranscriptError as err:
        assert err.line == number, err
    else:
        assert _said(whole, number) or fine(whole), (number, getattr(whole, "warnings", None))
    live = by_name(fmt.name).live(str(path))
    follow_into(live.apply, path, 1 << 20, live.format.parsed_updates)
    followed = live.transcript(writer_alive=False)
    assert _said(followed, number) or fine(followed), (number, followed.warnings)


def test_a_byte_that_is_not_utf8_is_never_taken_silently(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path
) -> None:
    """orjson refuses a line that is not UTF-8, and a fast path's typed decoder skips most
    strings without looking: a bad byte anywhere in a line's strings, the first's, the
    middle one's or the last's (a tool's input, a result's content: skipped fields), is
    refused or warned of by its line, whole and followed, never read as if it were fine."""
    tried = 0
    for lines, index, line in _inner_lines(sample):
        starts = _string_starts(line)
        for at in {starts[0], starts[len(starts) // 2], starts[-1]} if starts else ():
            bad = list(lines)
            bad[index] = line[:at] + b"\xff" + line[at:]
            path = tmp_path / f"bad-{index}-{at}{sample.suffix}"
            path.write_bytes(b"\n".join(bad))
            _read_both_ways(fmt, path, index + 1, lambda _read: False)
            tried += 1
    assert tried >= 3


@pytest.mark.parametrize("depth", [300, 1000, 1500])
def test_a_value_nested_deep_is_read_or_said_never_a_traceback(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path, depth: int
) -> None:
    """A value nested deeper than a parser or a writer goes (orjson writes 254 levels and
    reads 1,024; msgspec raises ``RecursionError``, not a decode error, at about 1,000):
    the line is read, or refused or warned of by its line, whole and followed, and its
    replay JSON and peek are written; never a traceback. (The CLI raises Python's own
    recursion limit, so that a value nested up to orjson's bound can be shown at all:
    ``tests/test_cli.py``.)"""
    deep = b"[" * depth + b"]" * depth
    tried = 0
    for lines, index, line in _inner_lines(sample):
        if not line.startswith(b"{"):
            continue
        bad = list(lines)
        bad[index] = b'{"zz":' + deep + b"," + line[1:]
        path = tmp_path / f"deep-{index}{sample.suffix}"
        path.write_bytes(b"\n".join(bad))
        _read_both_ways(fmt, path, index + 1, lambda _read: True)
        assert dump_json(peek(path).to_json())
        with contextlib.suppress(TranscriptError):
            assert dump_json(fmt.replay_json(path), pretty=True)
        tried += 1
    assert tried >= 3


def _every_read_path(fmt: TranscriptFormat, path: Path) -> None:
    """Every read path of the library over ``path``: each reads it or raises
    ``TranscriptError`` (nothing else escapes), and what it makes is written out whole."""
    from session_core.export import export

    for read in (
        lambda: dump_json(fmt.open(path).to_json()),
        lambda: dump_json(fmt.replay_json(path), pretty=True),
        lambda: fmt.write_replay(path, io.BytesIO()),
        lambda: fmt.check(path),
        lambda: fmt.diff(path),
        lambda: str(fmt.tail(path)),
        lambda: export(path, "md", "raw"),
        lambda: export(path, "html", "replayed"),
        lambda: dump_json(peek(path).to_json()),
    ):
        with contextlib.suppress(TranscriptError):
            read()


def test_a_value_as_deep_as_orjson_reads_in_place_of_a_string_is_never_a_traceback(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path
) -> None:
    """Where a line has a string (a content, a name, a role, an id), a list nested 1,000
    deep (orjson reads 1,024 levels; Python's default recursion limit is 1,000, which
    importing ``session_core`` raises): read or refused through every read path, whole
    and followed, never a traceback. (Before the library raised the limit itself, its
    readers raised ``RecursionError`` in about twenty places, turning such a value into
    text.)"""
    deep = b"[" * 1000 + b"]" * 1000
    tried = 0
    for lines, index, line in _inner_lines(sample):
        strings = list(re.finditer(rb'":\s*("(?:[^"\\]|\\.)*")', line))
        for found in {strings[0], strings[len(strings) // 2]} if strings else ():
            bad = list(lines)
            bad[index] = line[: found.start(1)] + deep + line[found.end(1) :]
            path = tmp_path / f"deep-{index}-{found.start(1)}{sample.suffix}"
            path.write_bytes(b"\n".join(bad))
            _every_read_path(fmt, path)  # (an id made a list may be refused at a later line)
            live = by_name(fmt.name).live(str(path))
            follow_into(live.apply, path, 1 << 20, live.format.parsed_updates)
            dump_json(live.transcript(writer_alive=False).to_json())
            tried += 1
    assert tried >= 3


def test_a_number_beyond_a_double_is_never_taken_for_a_change_on_disk(
    fmt: TranscriptFormat, sample: Path, tmp_path: Path
) -> None:
    """``1e400`` is JSON (its grammar has no bound) that orjson refuses and a typed decode
    skips: a line holding one is refused or warned of by its line, or read, then and
    again by its span, never shown as "changed on disk", nor a traceback."""
    changed = "changed on disk"  # (in every format's words for it)
    tried = 0
    for lines, index, line in _inner_lines(sample):
        if not line.startswith(b"{"):
            continue
        bad = list(lines)
        bad[index] = b'{"zz":1e400,' + line[1:]
        path = tmp_path / f"big-{index}{sample.suffix}"
        path.write_bytes(b"\n".join(bad))
        _read_both_ways(fmt, path, index + 1, lambda read: changed not in items_text(read))
        tried += 1
    assert tried >= 3
