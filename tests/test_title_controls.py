"""A title shows a control character as a body shows it (CR ``␍``, VT ``␋``, FF ``␌``,
``␜``-``␟``, NEL and U+2028 / U+2029 as escapes): ``str.split`` took them for spaces, so
a title said ``cr OVER`` where the message said ``cr␍OVER`` (a3's look). White space
(newlines, tabs, a CRLF, a no-break space) still folds to one space; nothing is obeyed."""

from __future__ import annotations

import html
from pathlib import Path

from session_core import Message, Session
from session_core.export import export
from session_core.scan import scan_file
from session_core.text import TITLE_CHARS, inert, prompt_title

KEPT = "cr\rOVER vt\x0bff\x0c fs\x1c us\x1f nel\x85ls\u2028ps\u2029end"
SHOWN = "cr␍OVER vt␋ff␌ fs␜ us␟ nel\\x85ls\\u2028ps\\u2029end"


def test_a_title_keeps_what_a_body_shows() -> None:
    title = prompt_title(f"  {KEPT}\r\n\tmore  text\xa0here\n")
    assert title == f"{KEPT} more text here"
    assert inert(title) == f"{SHOWN} more text here"
    assert inert(KEPT) == SHOWN  # (the body's)
    assert prompt_title("\r\n \n\t") is None
    assert prompt_title("\x1b[2J \x1b]0;pwned\x07") == "\x1b[2J \x1b]0;pwned\x07"  # (made
    # inert where shown, as a body is: ``inert``)


def test_a_long_prompt_is_cut_from_its_head_alike() -> None:
    long = ("word\r " * 400) + "tail"
    assert prompt_title(long) == long[: TITLE_CHARS - 1] + "…"
    title = prompt_title(long) or ""
    assert len(title) == TITLE_CHARS and title.endswith("…") and "\r" in title
    spaced = " " * 5000 + "hi\rthere"
    assert prompt_title(spaced) == "hi\rthere"


def test_the_row_and_the_export_say_the_title_as_the_body(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "nightly"}) as s:
        s.append_message(Message(role="user", content=KEPT))
        s.append_message(Message(role="assistant", content="done"))
    assert scan_file(path, live_window=0).title == KEPT
    md = export(path, "md")
    written = SHOWN.replace("\\", "\\\\")  # (Markdown's escape of a backslash)
    assert md.splitlines()[0] == f"# {written}"
    assert SHOWN in md.splitlines()  # (the message's body, alike, in its block)
    page = html.unescape(export(path, "html"))
    assert f"<title>{SHOWN}" in page
    assert "\r" not in md and "\x0b" not in page
