"""The words a reader says of a line it could not read, and which of them name damage
(``session_core.line_warnings``): what ``check``, ``peek`` and the browser's ``damaged``
and ``crashed`` rows read back out of them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from format_fixtures import BUILT_IN
from helpers import run_cli

from session_core.indexing import MOST_LEVELS
from session_core.line_warnings import (
    KEPT,
    UNFINISHED_SHOWN,
    bad_line_reason,
    damage_line,
    first_damage,
    named_line,
    skipped_line,
    too_deep,
    torn_last_line,
    unfinished_line,
)


def test_each_reason_a_line_cannot_be_read_is_said_in_its_words() -> None:
    assert bad_line_reason(b"   ") == "is blank"
    assert bad_line_reason(b'\xef\xbb\xbf{"a": 1}') == (
        "is led by a byte order mark (U+FEFF), which JSON does not allow"
    )
    assert bad_line_reason(b'{"a": "\xff"}') == "is not valid UTF-8"
    assert bad_line_reason(b'{"a": "\\ud83d"}') == "has a lone UTF-16 surrogate escape"
    assert bad_line_reason(b'{"a": "\\udc00"}') == "has a lone UTF-16 surrogate escape"
    assert bad_line_reason(b'{"a": 1') == "is not valid JSON"
    deep = b"[" * (MOST_LEVELS + 1) + b"]" * (MOST_LEVELS + 1)
    assert bad_line_reason(deep) == "is nested deeper than this reader reads (10,000 levels)"
    # a torn line refused at orjson's depth, yet no deeper than this reader reads: torn
    assert bad_line_reason(b"[" * 2000 + b"]" * 1999) == "is not valid JSON"


def test_too_deep_names_only_a_line_past_the_levels_read() -> None:
    at_most = b"[" * MOST_LEVELS + b"]" * MOST_LEVELS
    assert too_deep(at_most) == ""
    assert too_deep(b"[" + at_most + b"]") == "10,000 levels"


def test_a_skipped_line_says_its_line_and_why() -> None:
    assert skipped_line(4, b"") == "line 4 is blank, and was skipped"
    assert skipped_line(5, b'{"a": 1') == (
        "line 5 could not be read (not valid JSON), and was skipped"
    )
    assert skipped_line(6, b'{"a": "\xff"}') == (
        "line 6 could not be read (not valid UTF-8), and was skipped"
    )


def test_an_unfinished_line_shows_what_it_began_with() -> None:
    said = "line 9 has no newline: the writer left it unfinished, and it is not read (a crash tail)"
    assert unfinished_line(9) == said
    assert unfinished_line(9, 7, b'{"a": 1') == f'{said}; its 7 bytes begin {{"a": 1'
    # more than its first bytes: the head shown, then "…"
    assert unfinished_line(9, 1_500, b'{"a": 1') == f'{said}; its 1,500 bytes begin {{"a": 1…'
    head = b"x" * (UNFINISHED_SHOWN + 60)
    assert unfinished_line(9, len(head), head) == (
        f"{said}; its {len(head):,} bytes begin {'x' * 240}…"
    )
    assert unfinished_line(9, 0, b"x") == said  # (no size known: no head said)


def test_the_line_a_warning_names() -> None:
    assert named_line("line 12 is blank, and was skipped") == 12
    assert named_line("line 12: text") == 12
    assert named_line("line 7") == 7
    assert named_line("line") == 0
    assert named_line("line x is odd") == 0
    assert named_line("seq 12 is missing") == 0  # (not a line's warning)
    assert named_line("no line") == 0


def test_damage_is_a_kept_line_before_the_last() -> None:
    kept = f"line 3 is not valid JSON{KEPT}"
    assert damage_line(kept, 10) == 3
    assert damage_line(kept, 3) is None  # the last line: a crash tail, not damage
    assert damage_line("line 3 is blank, and was skipped", 10) is None
    assert damage_line(f"line x is odd{KEPT}", 10) is None
    warnings = ["seq 2 is missing", f"line 5 has a lone UTF-16 surrogate escape{KEPT}", kept]
    assert first_damage(warnings, 10) == (5, "has a lone UTF-16 surrogate escape")
    assert first_damage([kept], 3) is None


def test_a_torn_last_line_is_a_crash_tail() -> None:
    assert torn_last_line([f"line 10 is not valid JSON{KEPT}"], 10)
    assert torn_last_line([unfinished_line(10, 3, b"{ab")], 10)
    assert not torn_last_line([f"line 9 is not valid JSON{KEPT}"], 10)  # damage
    assert not torn_last_line(["line 10 is blank, and was skipped"], 10)
    assert not torn_last_line([], 10)


def test_codex_says_its_torn_last_line_is_a_crash_tail(tmp_path: Path) -> None:
    """Codex's replay kept a torn last line as a record; its warning said so as of damage
    mid-file ("line N is not valid JSON, and was kept as it is"), then "was kept as it
    is" of a line not read (an audit). It says the line has no newline, a crash tail
    not read, in every reader's words (``unfinished_line``), and keeps no record of it;
    a bad line before the last keeps the damage's words."""
    from codex_writer import RolloutWriter

    import session_core.formats

    unended = "has no newline: the writer left it unfinished"  # (as Claude Code's says)
    codex = session_core.formats.by_name("codex")
    torn = b'{"timestamp":"2026-02-23T12:00:09.000Z","type":"response_item","payload":"r\xc3'
    for damaged in (False, True):
        path = tmp_path / f"rollout-{damaged}.jsonl"
        w = RolloutWriter(path)
        w.session_meta()
        if damaged:
            w.raw(b"{not json\n")  # damage, mid-file: line 2
        w.message("user", "go")
        last = w.line + 1
        w.raw(torn)
        warnings = codex.replay_json(path)["warnings"]
        said = f"line {last} {unended}, and it is not read (a crash tail); its "
        said += f"{len(torn)} bytes begin {torn.decode(errors='replace')}"
        assert said == unfinished_line(last, len(torn), torn)
        assert warnings == ([f"line 2 is not valid JSON{KEPT}"] if damaged else []) + [said]
        assert torn_last_line(warnings, last)
        assert first_damage(warnings, last) == ((2, "is not valid JSON") if damaged else None)
        if not damaged:
            # (check's words as of its writer: held back while it may be at work, a crash
            # tail once the file has been quiet two minutes, the viewer's rule)
            yet = f"line {last} has no newline yet ({len(torn)} bytes): held back while"
            assert f"warning: {yet}" in codex.check(path)
            os.utime(path, (0, 0))
            assert f"warning: {said}" in codex.check(path)


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_a_crash_tail_is_said_in_one_wording_by_every_format(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``check`` said a crash tail four ways, one per format, Codex's "was kept as it is"
    of a line not read (an audit): one wording now, ``unfinished_line``'s, for all."""
    path = BUILT_IN[name](tmp_path)
    whole = path.read_bytes()
    whole = whole[: whole.rindex(b"\n") + 1]  # (its story's own torn line, if any, off)
    torn = b'{"cut": "x'
    path.write_bytes(whole + torn)
    last = whole.count(b"\n") + 1
    os.utime(path, (1_000_000_000, 1_000_000_000))  # (its writer long gone)
    code, out, _err = run_cli(capsys, "check", str(path))
    said = "has no newline: the writer left it unfinished, and it is not read (a crash tail)"
    assert code == 0, out
    assert out.endswith(f'warning: line {last} {said}; its 10 bytes begin {{"cut": "x)\n')
    assert out.count("warning") == 1
    assert unfinished_line(last, len(torn), torn) in out
