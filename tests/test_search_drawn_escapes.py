"""Every mark the screen draws a character as (``text.CONTROL_TABLE``: ESC ``␛``, DEL
``␡``, a C1 control ``\\x9b``, a bidi override ``\\u202e``, a tag ``\\U000e0048``; a lone
joiner ``\\u200d``) is found as drawn, by every search, because the search's marks are
derived from that one table (``term_reading.DRAWN_MARKS``): a C1 control's or a hidden
character's escape was drawn but not found (README said so). Files on disk, written as
their writers write them (raw UTF-8, and every character beyond ASCII ``\\u``-escaped),
searched packed (the lines' bytes skip what they cannot hold) and every item built."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from claude_code_writer import CCWriter, text, tool_use

from agentgo_helpers import kept_records
from session_core import open_transcript
from session_core.agentgo.search import RecordSearch
from session_core.column_items import Items
from session_core.fold import fold, holds
from session_core.formats import format_of
from session_core.search import OpSearch, TextSearch, find
from session_core.term_reading import DRAWN_MARKS, reading
from session_core.text import CONTROL_TABLE, JOINER_MARK, inert

TS = "2026-08-09T13:10:08.542283Z"
# Every character the screen draws as a mark that is no white space (a tab is spaces),
# with that mark; a lone surrogate is no character a transcript's line can hold.
DRAWN = {
    chr(code): mark
    for code, mark in CONTROL_TABLE.items()
    if not mark.isspace() and not 0xD800 <= code < 0xE000
}
DRAWN["\u200d"] = JOINER_MARK  # (after a space: a joiner that joins nothing)


def _v1(path: Path, contents: list[str], ascii_only: bool) -> Items:
    """A v1 file of one message a content; ``ascii_only``: each character beyond ASCII
    ``\\u``-escaped (``json.dumps``), else raw (the v1 writer's orjson)."""
    lines = [{"id": "m", "payload": {"agent": "t"}, "ts": TS, "type": "session-meta", "v": 1}]
    for n, content in enumerate(contents):
        payload = {"content": content, "role": "user" if n % 2 else "assistant"}
        lines.append({"id": f"id{n}", "payload": payload, "ts": TS, "type": "message", "v": 1})
    dump = (lambda v: json.dumps(v).encode()) if ascii_only else orjson.dumps
    path.write_bytes(b"".join(dump(line) + b"\n" for line in lines))
    fmt = format_of(path)
    assert fmt is not None
    raw = fmt.open(path).raw
    assert isinstance(raw, Items)  # (packed: the lines skipped by their bytes)
    return raw


def test_every_mark_drawn_is_a_mark_searched() -> None:
    """The search's marks are the drawing's: every character of the table (a lone
    surrogate too), drawn inert, is found by its mark, in any case."""
    assert len(DRAWN_MARKS) > 200
    for code, mark in CONTROL_TABLE.items():
        if mark.isspace():
            continue
        said = f"say {chr(code)}now"
        assert mark in inert(said)
        for term in (mark, mark.upper(), f"{mark}NOW"):
            needle = fold(term)
            assert reading(needle).drawn and holds(said, needle), (hex(code), term)
    assert holds("hi \u200dthere", fold("\\U200Dthere"))


@pytest.mark.parametrize("ascii_only", [False, True])
def test_a_file_holding_every_drawn_character_finds_each_by_its_mark(
    tmp_path: Path, ascii_only: bool
) -> None:
    chars = list(DRAWN)
    raw = _v1(tmp_path / "all.jsonl", [f"before {c}after" for c in chars], ascii_only)
    if not ascii_only:
        assert "\x9b".encode() in (tmp_path / "all.jsonl").read_bytes()  # (raw in its line)
    built = list(raw)
    for index, char in enumerate(chars):
        mark = DRAWN[char]
        for term in (f"{mark}after", f"{mark.upper()}AFTER", f"before {mark}"):
            assert find(raw, term) == [index], (hex(ord(char)), term)
        assert find(built, f"{mark}after") == [index], hex(ord(char))
    assert find(raw, "x9bafter") == []  # (a piece of an escape: a plain term, as written)


def test_a_plain_term_is_not_drawn_and_a_drawn_term_is() -> None:
    """Only a term holding a whole mark pays for drawing the text (``term_reading``)."""
    for plain in ("hello", "the file", "x9b", "\\x", "\\u202", "c:\\users", "\\n"):
        assert not reading(fold(plain)).drawn, plain
    for drawn in ("\\x9b", "a\\u202ez", "␛", "\\U000E0048", "\\udcff", "\\u200d"):
        assert reading(fold(drawn)).drawn, drawn


def _claude_code(tmp_path: Path) -> Path:
    w = CCWriter()
    w.user("colour it \x9b32m and \u202ereversed")
    w.assistant("m1", [tool_use("t1", "Bash", command="printf 'x'")])
    w.result("t1", "out: \x9b31mred \x85nel \x07bell del\x7fx \x1b[0m \u2066iso \u200dlone")
    w.assistant("m2", [tool_use("t2", "Bash", command="ls")])
    w.result("t2", "a.py")
    w.assistant("m3", [text("Done.")], stop="end_turn")
    return w.write(tmp_path / "s.jsonl")


# Each term as the screen draws it, in the message (user) and the tool output.
IN_MESSAGE = ["\\x9b32m", "\\u202ereversed"]
IN_OUTPUT = ["\\x9b31mred", "\\x85nel", "␇bell", "del␡x", "␛[0m", "\\u2066iso", "\\u200dlone"]


def test_every_search_finds_c1_and_hidden_marks_as_drawn(tmp_path: Path) -> None:
    session = open_transcript(_claude_code(tmp_path))
    items = session.messages
    assert isinstance(items, Items)
    for term in IN_MESSAGE + IN_OUTPUT:
        found = find(items, term)
        assert len(found) == 1 and found == find(list(items), term), term
        assert holds(inert(items[found[0]].parts[0].text), fold(term)), term
        assert items[found[0]].role == "user" and (term in IN_MESSAGE) == (found[0] == 0)
    ops = session.tool_operations
    for term in IN_OUTPUT:
        assert OpSearch(term).find(ops, range(len(ops))) == [0], term
    rows = ["one \x9b", "two \\x9b", inert("three \u202e"), "four \u202e"]
    assert TextSearch("\\x9b", lambda r, i: r[i]).find(rows, range(4)) == [0, 1]
    assert TextSearch("\\u202E", lambda r, i: r[i]).find(rows, range(4)) == [2, 3]
    lines = [
        orjson.dumps({"type": "message_end", "seq": n, "data": {"text": t}})
        for n, t in enumerate(("a\x9b[31m", "b\u202ec", "plain \\x9b", "nothing"))
    ]
    records = kept_records(tmp_path / "records.jsonl", lines)
    for term, held in (("\\x9b[31m", [0]), ("\\u202ec", [1]), ("\\x9b", [0, 2])):
        assert RecordSearch(term).find(records, range(4)) == held, term
