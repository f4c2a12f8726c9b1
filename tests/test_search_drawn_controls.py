"""A control character is drawn inert (``text.inert``: ESC as ``␛``) and ``c`` copies it
so: a search of the term as drawn (``/␛[31m``) finds the text that holds the control,
in every search (the conversation's, packed or built, whose lines are skipped by their
bytes; the tool operations'; a list's rows'; agentgo's records), and a plain term is
looked for as before (an audit: ``/␛[31m`` said "none")."""

from __future__ import annotations

from pathlib import Path

import orjson
from claude_code_writer import CCWriter, text, tool_use

from agentgo_helpers import kept_records
from session_core import open_transcript
from session_core.agentgo.search import RecordSearch
from session_core.column_items import Items
from session_core.fold import fold, folder, holds
from session_core.formats import format_of
from session_core.search import OpSearch, TextSearch, find, item_search_text
from session_core.text import copied, inert

TS = "2026-08-09T13:10:08.542283Z"
RED = "reply with \x1b[31mESC red\x1b[0m and more"


def _v1(tmp_path: Path) -> Path:
    """A v1 file: plain messages, one holding an ESC (its line writes it ``\\u001b``),
    one a control picture as a character of its own (``␛``)."""
    lines = [{"id": "m", "payload": {"agent": "t"}, "ts": TS, "type": "session-meta"}]
    for n, content in enumerate(["hello", RED, "plain [31m only", "a ␛ picture", "bye"]):
        payload = {"content": content, "role": "user" if n % 2 else "assistant"}
        lines.append({"id": f"id{n}", "payload": payload, "ts": TS, "type": "message"})
    path = tmp_path / "v1.jsonl"
    path.write_bytes(b"".join(orjson.dumps({**line, "v": 1}) + b"\n" for line in lines))
    assert b"\\u001b[31m" in path.read_bytes()
    return path


def test_a_control_as_drawn_finds_the_text_that_holds_it(tmp_path: Path) -> None:
    path = _v1(tmp_path)
    fmt = format_of(path)
    assert fmt is not None
    raw = fmt.open(path).raw
    assert isinstance(raw, Items)  # (packed: the lines skipped by their bytes)
    shown = copied(RED)  # (what the row draws and ``c`` copies)
    assert "␛[31m" in shown and "\x1b" not in shown
    for items in (raw, list(raw)):  # packed, and every item built
        assert find(items, "␛[31m") == [1]
        assert find(items, "␛[31mesc RED␛[0m") == [1]  # (any case, as any term)
        assert find(items, shown) == [1]  # a pasted copy of the row
        assert find(items, "[31m") == [1, 2]  # (a plain term: as before)
        assert find(items, "␛") == [1, 3]  # the control, and the picture written as one
        assert find(items, "␛[32m") == []


def test_every_search_finds_a_control_as_drawn(tmp_path: Path) -> None:
    w = CCWriter()
    w.user("colour it")
    w.assistant("m1", [tool_use("t1", "Bash", command="printf '\x1b[31mred'")])
    w.result("t1", "\x1b[31mred\x1b[0m")
    w.assistant("m2", [tool_use("t2", "Bash", command="ls")])
    w.result("t2", "a.py")
    w.assistant("m3", [text("Done.")], stop="end_turn")
    session = open_transcript(w.write(tmp_path / "s.jsonl"))
    ops = session.tool_operations
    assert OpSearch("␛[31mred").find(ops, range(len(ops))) == [0]
    items = session.messages
    held = [i for i, item in enumerate(items) if "printf '\x1b[31m" in item_search_text(item)]
    assert held and find(items, "printf '␛[31m") == held  # (the conversation's call row)
    rows = ["one \x1b[31m", "two [31m", inert("three \x1b[31m")]  # raw, plain, drawn
    assert TextSearch("␛[31m", lambda r, i: r[i]).find(rows, range(3)) == [0, 2]
    lines = [
        orjson.dumps({"type": "message_end", "seq": n, "data": {"text": t}})
        for n, t in enumerate(("\x1b[31mx", "[31mx"))
    ]
    records = kept_records(tmp_path / "records.jsonl", lines)
    search = RecordSearch("␛[31M")
    assert [search.holds(records, i) for i in range(2)] == [True, False]


def test_a_plain_term_folds_as_before() -> None:
    """Only a term holding a control picture pays for drawing the text inert."""
    assert folder(fold("hello")) is fold
    assert folder(fold("␛[31m")) is not fold
    assert holds("x\x1b[0m", "␛[0m") and holds("x\x7f", "␡") and not holds("x\n", "␊")


def test_the_byte_skip_keeps_a_line_holding_a_control_as_its_line_writes_it(
    tmp_path: Path,
) -> None:
    """``Items.find``'s default skip by bytes (``line_filter.encodings``): a CR, a
    backspace and a form feed are written as JSON's short escapes (``\\r``), a DEL raw;
    a term of their pictures (``␍``, ``␈``, ``␌``, ``␡``) finds their line, as the search
    that skips none does (it skipped it: review 1, item 5)."""
    content = "a\r\nb bs\bd ff\fe del\x7ff"
    lines = [{"id": "m", "payload": {"agent": "t"}, "ts": TS, "type": "session-meta"}]
    for n, said in enumerate(["hello", content, "bye"]):
        payload = {"content": said, "role": "user"}
        lines.append({"id": f"id{n}", "payload": payload, "ts": TS, "type": "message"})
    path = tmp_path / "v1.jsonl"
    path.write_bytes(b"".join(orjson.dumps({**line, "v": 1}) + b"\n" for line in lines))
    assert b"\\r\\nb bs\\bd ff\\fe del\x7ff" in path.read_bytes()
    items = open_transcript(path).messages
    assert isinstance(items, Items)
    for term in ("␍", "a␍", "␈d", "␌e", "␡", "del␡f", "␍⏎b"):
        needle = fold(term)
        assert items.find(needle) == find(list(items), needle), term
        if "⏎" not in term:  # (a newline is no picture inert draws)
            assert items.find(needle) == [1], term
    assert items.find(fold("␛")) == []


def test_a_joiner_that_joins_nothing_as_drawn_finds_the_text_that_holds_it(
    tmp_path: Path,
) -> None:
    """A run of zero-width joiners at a word's start is drawn ``\\u200d`` (``inert``): the
    term as the screen shows it finds the message, whose line writes the joiner raw (the
    byte skip reads such a term's lines whole); an emoji's joiner is not drawn so, and a
    plain term is looked for as before (review 2: ``/hello \\u200dworld`` said none)."""
    lines = [{"id": "m", "payload": {"agent": "t"}, "ts": TS, "type": "session-meta"}]
    for n, content in enumerate(["hello \u200dworld foo", "a\u200db \\u200d typed", "bye"]):
        payload = {"content": content, "role": "user" if n % 2 else "assistant"}
        lines.append({"id": f"id{n}", "payload": payload, "ts": TS, "type": "message"})
    path = tmp_path / "v1.jsonl"
    path.write_bytes(b"".join(orjson.dumps({**line, "v": 1}) + b"\n" for line in lines))
    assert "\u200d".encode() in path.read_bytes()  # (raw in its line, not escaped)
    fmt = format_of(path)
    assert fmt is not None
    raw = fmt.open(path).raw
    assert isinstance(raw, Items)
    for items in (raw, list(raw)):  # packed, and every item built
        assert find(items, "hello \\u200dworld") == [0]
        assert find(items, "\\U200Dworld") == [0]  # (any case)
        assert find(items, "\\u200d") == [0, 1]  # (drawn, and written as text)
        assert find(items, "a\\u200db") == []  # (a joiner between letters joins them)
        assert find(items, "world") == [0]
    assert folder("world") is fold
