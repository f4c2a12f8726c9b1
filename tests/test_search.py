"""A search of the conversation (``session_core.search.find``) finds exactly what looking
at every built item finds, whatever the lines' JSON looks like: the prefilter that skips
a v1 message line by its bytes (``line_filter``) never skips one that holds the term."""

from __future__ import annotations

import json
import random
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import session_core.formats.v1.model as v1_model
from session_core.column_items import Items
from session_core.fold import folder, needle_of
from session_core.formats import format_of
from session_core.line_filter import MAX_ENCODINGS, encodings
from session_core.model import Item
from session_core.search import find, item_search_text
from session_core.text import inert, name_line, one_line

# Characters that make a search hard: cases that fold to ASCII (U+0130, U+212A, ß) or to
# more than one character, sigma (its final form), what JSON escapes, what is not BMP,
# a control's picture (how it is drawn: a term holding one finds the control), what is
# drawn as an escape (a C1 control, a bidi override, a lone joiner, a tag).
TRICKY = 'aAbBkKsSiI İıKσΣςßẞéÉſﬁﬆ̇"\\/\n\t\r\b\f\x01\x7f\u2028🚀Ää.␁␡\x9b\x85\u202e\u200d\U000e0041'
# (and a row's newline and a name's tab as drawn, and what a search joins texts with)
TRICKY += "⏎␉\x1e␞"

# (no lone surrogates: a line holding one is damage, refused by the reader)
anything = st.characters(blacklist_categories=("Cs",))
texts = st.text(alphabet=st.sampled_from(TRICKY) | anything, max_size=24)
odd_values = st.none() | st.integers(-5, 5) | st.booleans() | st.lists(texts, max_size=2)


def brute(items: Sequence[Item], term: str) -> list[int]:
    """What a search finds, every item built and looked at."""
    needle = needle_of(term)  # (a pasted join as its picture, as a text's own)
    folded = folder(needle, apart=True)  # (a mark as drawn, ␛, ⏎: in the texts drawn)
    return [i for i in range(len(items)) if needle in folded(item_search_text(items[i]))]


def write_string(text: str, rnd: random.Random) -> str:
    """A JSON string as some writer might write it: any character may be \\u-escaped
    (either case of hex), a solidus may be escaped, short escapes or \\u for the rest."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif code < 0x20:
            short = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}
            out.append(
                short.get(char, f"\\u{code:04x}") if rnd.random() < 0.7 else f"\\u{code:04X}"
            )
        elif char == "/" and rnd.random() < 0.5:
            out.append("\\/")
        elif rnd.random() < 0.15:
            if code > 0xFFFF:
                high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
                out.append(f"\\u{high:04x}\\u{low:04X}")
            else:
                out.append(f"\\u{code:04x}" if rnd.random() < 0.5 else f"\\u{code:04X}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def write_value(value: Any, rnd: random.Random, spaced: bool) -> str:
    colon, comma = (" : ", " , ") if spaced else (":", ",")
    if isinstance(value, str):
        return write_string(value, rnd)
    if isinstance(value, dict):
        keys = list(value)
        rnd.shuffle(keys)
        inner = comma.join(
            write_string(k, rnd) + colon + write_value(value[k], rnd, spaced) for k in keys
        )
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + comma.join(write_value(v, rnd, spaced) for v in value) + "]"
    return json.dumps(value)


def write_line(envelope: dict[str, Any], how: int, rnd: random.Random) -> bytes:
    """One line, written by the v1 writer (orjson, sorted keys), by ``json.dumps`` with
    \\u escapes, or by a writer of escapes and spaces of its own."""
    if how == 0:
        return orjson.dumps(envelope, option=orjson.OPT_SORT_KEYS)
    if how == 1:
        return json.dumps(envelope).encode()
    return write_value(envelope, rnd, spaced=how == 3).encode("utf-8", "surrogatepass")


@st.composite
def messages(draw: st.DrawFn) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "role": draw(st.sampled_from(["user", "assistant", "tool", "system", "Kelvin", None])),
        "content": draw(texts | odd_values) if draw(st.integers(0, 5)) == 0 else draw(texts),
    }
    if draw(st.booleans()):
        payload["reasoning"] = draw(texts | odd_values)
    if draw(st.booleans()):
        payload["tool-calls"] = [
            {
                "id": f"call_{draw(st.integers(0, 99))}",
                "type": "function",
                "function": {
                    "name": draw(texts | odd_values),
                    "arguments": draw(texts | odd_values | st.dictionaries(texts, texts)),
                },
            }
            for _ in range(draw(st.integers(1, 2)))
        ]
    elif draw(st.integers(0, 3)) == 0:
        payload["tool-call-id"] = f"call_{draw(st.integers(0, 99))}"
        if draw(st.booleans()):
            payload["is-error"] = True
    return payload


@st.composite
def transcripts(draw: st.DrawFn) -> tuple[list[bytes], list[str]]:
    """A v1 file's lines (messages, elisions, a compaction, a line of a type no reader
    knows), each written one of the ways ``write_line`` knows; and what was written."""
    rnd = random.Random(draw(st.integers(0, 1 << 30)))
    ts = "2026-08-09T13:10:08.542283Z"
    meta = {"id": str(uuid.uuid4()), "payload": {"agent": "t"}, "ts": ts}
    lines = [orjson.dumps({**meta, "type": "session-meta", "v": 1}, option=orjson.OPT_SORT_KEYS)]
    written: list[str] = []
    ids: list[str] = []
    for payload in draw(st.lists(messages(), min_size=1, max_size=12)):
        mid = str(uuid.uuid4())
        ids.append(mid)
        envelope = {"id": mid, "payload": payload, "ts": ts, "type": "message", "v": 1}
        lines.append(write_line(envelope, draw(st.integers(0, 3)), rnd))
        written.extend(v for v in payload.values() if isinstance(v, str))
        what = draw(st.integers(0, 9))
        if what == 0:
            stub = draw(texts)
            written.append(stub)
            elided = {"items": [{"id": draw(st.sampled_from(ids)), "stub": stub}]}
            elision = {"id": str(uuid.uuid4()), "payload": elided, "ts": ts, "type": "elision"}
            lines.append(orjson.dumps({**elision, "v": 1}, option=orjson.OPT_SORT_KEYS))
        elif what == 1:
            other = {"id": str(uuid.uuid4()), "payload": {"note": draw(texts)}, "ts": ts}
            lines.append(orjson.dumps({**other, "type": "x-note", "v": 1}))
    if draw(st.booleans()):
        summary = draw(texts)
        written.append(summary)
        payload = {"summary": summary, "replaces-through-id": ids[0], "fallback": False}
        compaction = {"id": str(uuid.uuid4()), "payload": payload, "ts": ts}
        lines.append(orjson.dumps({**compaction, "type": "compaction", "v": 1}))
    return lines, written


@st.composite
def terms(draw: st.DrawFn, written: list[str]) -> str:
    """A term: a piece of a text the file holds (its case changed, or as drawn, maybe), or
    any."""
    source = [w for w in written if w]
    if source and draw(st.integers(0, 2)):
        text = draw(st.sampled_from(source))
        start = draw(st.integers(0, len(text) - 1))
        piece = text[start : start + draw(st.integers(1, 6))]
        shown = inert(piece)  # (as drawn: ESC ``␛``; on one line, a newline ``⏎``)
        flat, named = one_line(piece), name_line(piece)
        changed = [piece.upper(), piece.lower(), piece.swapcase()]
        return draw(st.sampled_from([piece, *changed, shown, flat, named]))
    fixed = ["none", "true", "False", "k", "i", "σ", '"', "\\", "/", "\\n", "u00e9", "changed"]
    return draw(st.sampled_from([*fixed, "message", "user", "stubbed", "folded"]) | texts)


def opened(lines: list[bytes]) -> tuple[Any, Path]:
    folder = Path(tempfile.mkdtemp(prefix="search-"))
    path = folder / "t.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    fmt = format_of(path)
    assert fmt is not None and fmt.name == "transcript-v1"
    return fmt.open(path), path


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), file=transcripts())
def test_a_prefiltered_search_finds_what_every_item_holds(
    data: st.DataObject, file: tuple[list[bytes], list[str]]
) -> None:
    lines, written = file
    transcript, path = opened(lines)
    try:
        assert isinstance(transcript.raw, Items)  # (the packed view, whose lines are skipped)
        for _ in range(4):
            term = data.draw(terms(written))
            for items in (transcript.raw, transcript.messages):
                assert find(items, term) == brute(items, term), term
    finally:
        path.unlink()
        path.parent.rmdir()


def plain_file(tmp_path: Path, count: int) -> Path:
    """``count`` messages written as the v1 writer writes them, each saying "hello"."""
    ts = "2026-08-09T13:10:08.542283Z"
    lines = [{"id": "m", "payload": {"agent": "t"}, "ts": ts, "type": "session-meta", "v": 1}]
    for n in range(count):
        payload = {"content": f"hello number {n}", "role": "user" if n % 2 else "assistant"}
        lines.append({"id": str(uuid.uuid4()), "payload": payload, "ts": ts, "type": "message"})
    path = tmp_path / "plain.jsonl"
    path.write_bytes(
        b"".join(
            orjson.dumps({**line, "v": 1}, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE)
            for line in lines
        )
    )
    return path


def test_lines_that_cannot_hold_the_term_are_not_parsed(tmp_path: Path, monkeypatch) -> None:
    path = plain_file(tmp_path, 50)
    fmt = format_of(path)
    assert fmt is not None
    made: list[int] = []
    parts_of = v1_model.message_parts

    def counted(payload):  # type: ignore[no-untyped-def]
        made.append(1)
        return parts_of(payload)

    monkeypatch.setattr(v1_model, "message_parts", counted)

    def lines_read(term: str, expected: list[int]) -> int:
        raw = fmt.open(path).raw  # (anew: no line read before is kept)
        made.clear()
        assert find(raw, term) == expected
        return len(made)

    assert lines_read("goodbye", []) == 0  # every line's bytes ruled it out
    assert lines_read("NUMBER 7", [7]) == 1  # the one line that holds it
    # A term the lines may hold in a way their bytes do not show: each is read whole.
    assert lines_read("hello\nnumber", []) == 50
    assert lines_read("assistant", list(range(0, 50, 2))) == 25  # a role: its items read
    # A term holding a mark as drawn (``term_reading``, the one decision of what is read
    # whole): an ASCII line that does not hold it as text is not read, a joiner's too.
    for drawn in ("\\x9b", "\\u200d", "␛\\x9b[31m", "hello\\u202e"):
        assert lines_read(drawn, []) == 0, drawn
    assert lines_read("hello \\u200d", []) == 50  # (drawn, a space may be a tab: read)


def test_a_value_made_text_by_the_format_is_found() -> None:
    """What ``message_parts`` makes of a value that is not a string (the reference's
    ``.Str`` of it: a list's items joined by spaces) is searched as it shows: the line's
    bytes do not hold it, so the line is read."""
    ts = "2026-08-09T13:10:08.542283Z"
    meta = {"id": "m", "payload": {}, "ts": ts, "type": "session-meta", "v": 1}
    call = {"id": "c1", "type": "function", "function": {"name": "run", "arguments": None}}
    lines = [
        meta,
        {"id": "a", "payload": {"role": "user", "content": ["x", 1]}, "ts": ts, "type": "message"},
        {"id": "b", "payload": {"role": "assistant", "tool-calls": [call]}, "ts": ts},
    ]
    lines[2]["type"] = "message"
    raw = opened([orjson.dumps({**line, "v": 1}) for line in lines])[0].raw
    assert find(raw, "X 1") == [0] == brute(raw, "X 1")
    assert find(raw, "NULL") == [1] == brute(raw, "NULL")  # (arguments shown as JSON)


def test_what_an_item_is_beside_its_line_is_searched() -> None:
    """A role the line does not name (the reader's default) and an elision's stub are an
    item's too: its line's bytes cannot rule them out."""
    ts = "2026-08-09T13:10:08.542283Z"
    meta = {"id": "m", "payload": {}, "ts": ts, "type": "session-meta", "v": 1}
    lines = [
        meta,
        {"id": "a", "payload": {"content": "no role named"}, "ts": ts, "type": "message"},
        {"id": "b", "payload": {"role": "system", "content": "long"}, "ts": ts, "type": "message"},
        {"id": "e", "payload": {"items": [{"id": "b", "stub": "[Kept Short]"}]}, "type": "elision"},
    ]
    raw = opened([orjson.dumps({**line, "v": 1}) for line in lines])[0].raw
    assert find(raw, "USER") == [0] == brute(raw, "USER")
    assert find(raw, "kept short") == brute(raw, "kept short")
    assert 1 in brute(raw, "kept short")  # (the elided message shows its stub)


# Texts and terms where the line's bytes and the text differ most, each line written
# every way ``write_line`` knows (the first: the v1 writer's).
HARD = [
    ("K", "k"),  # U+212A folds to ASCII "k"
    ("X\u0130", "xi"),  # U+0130 folds to "i" (and a combining dot, dropped)
    ("\u0130stanbul", "ISTANBUL"),
    ("I\u0307stanbul", "istanbul"),  # the same İ decomposed (the review: skipped)
    ("X\u0130Y", "xi\u0307y"),  # (a term's own dotted i: an i)
    ("ΑΣ b", "ας"),  # a final sigma, in the text; the line's bytes go on past it
    ("Straße", "STRASSE"),  # "ß" folds to "ss"
    ("stra\u1e9ee", "strasse"),  # and so does "ẞ"
    ("\ufb01le", "FILE"),  # a ligature: "fi"
    ("a/b", "A/B"),  # a solidus may be written \/
    ("tab\there", "B\tH"),
    ("bell\x07", "l\x07"),
    ("bell\x07 ring", "L␇ R"),  # a control as drawn (``inert``): found
    ("esc \x1b[31mred", "␛[31MRED"),
    ("csi \x9b[31mred", "\\X9B[31MRED"),  # a C1 control as drawn (``\x9b``)
    ("rlo \u202eend", "\\U202EEND"),  # a bidi override as drawn
    ("tag \U000e0041 x", "\\u000E0041"),  # a tag character as drawn
    ("\u200djoins nothing", "\\u200dJOINS"),  # a lone joiner as drawn
    ('say "hi"', '"HI"'),
    ("back\\slash", "K\\S"),
    ("é", "É"),
    ("🚀 go", "🚀 GO"),
]


@pytest.mark.parametrize("how", range(4))
@pytest.mark.parametrize(("text", "term"), HARD)
def test_a_prefiltered_search_finds_hard_texts(text: str, term: str, how: int) -> None:
    rnd = random.Random(how)
    ts = "2026-08-09T13:10:08.542283Z"
    meta = {"id": "m", "payload": {}, "ts": ts, "type": "session-meta", "v": 1}
    lines = [orjson.dumps(meta)]
    for n, payload in enumerate(
        [
            {"role": "user", "content": "nothing here"},
            {"role": "user", "content": text},
            {"role": "assistant", "content": "", "reasoning": text},
            {
                "role": "assistant",
                "content": "",
                "tool-calls": [
                    {"id": "c", "type": "function", "function": {"name": text, "arguments": text}}
                ],
            },
        ]
    ):
        envelope = {"id": f"m{n}", "payload": payload, "ts": ts, "type": "message", "v": 1}
        lines.append(write_line(envelope, how, rnd))
    transcript, path = opened(lines)
    try:
        expected = brute(transcript.raw, term)
        assert find(transcript.raw, term) == expected
        assert expected == [1, 2, 3]
    finally:
        path.unlink()
        path.parent.rmdir()


@pytest.mark.parametrize(
    ("needle", "expected"),
    [
        ("make", [b"make"]),
        ('a"b', [b'a\\"b']),
        ("a\\b", [b"a\\\\b"]),
        ("a/b", [b"a/b", b"a\\/b"]),
        ("\t", [b"\t", b"\\t"]),
        ("é", ["é".encode()]),
        ("", None),
        ("a\nb", None),  # (a term over two texts: no prefilter)
        ("/" * 7, None),  # (more ways of writing it than are looked for)
    ],
)
def test_encodings(needle: str, expected: list[bytes] | None) -> None:
    assert encodings(needle) == expected
    assert 2**7 > MAX_ENCODINGS >= 2**6


def test_a_call_id_is_found_where_it_shows() -> None:
    """A call's id is drawn beside its call and its answer: a search finds both items."""
    ts = "2026-08-09T13:10:08.542283Z"
    meta = {"id": "m", "payload": {}, "ts": ts, "type": "session-meta", "v": 1}
    call = {"id": "call_zz9", "type": "function", "function": {"name": "run", "arguments": "{}"}}
    messages = [
        {"id": "a", "payload": {"role": "assistant", "tool-calls": [call]}},
        {"id": "b", "payload": {"role": "tool", "content": "ok", "tool-call-id": "call_zz9"}},
        {"id": "c", "payload": {"role": "user", "content": "next"}},
    ]
    lines = [{**meta, "v": 1}] + [{**m, "type": "message", "v": 1, "ts": ts} for m in messages]
    items = opened([orjson.dumps(line) for line in lines])[0].raw
    assert find(items, "CALL_ZZ9") == [0, 1] == brute(items, "call_zz9")
