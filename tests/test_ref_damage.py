"""A damaged transcript fails loudly everywhere except the one place a crash really
leaves damage: its last line, cut off the file (a repair) and reported.

Ported scenario by scenario from the reference module's
``t/08-session-resume.rakutest`` (m-doughty/LLM-Agent).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from ref_helpers import assert_refused, envelope, file_lines, hello_line, meta_line, user

from session_core import Message, TranscriptError


def repair_file(path: Path) -> Path:
    return path.with_name(path.name + ".repair")


def warning_line(w: Any) -> int | None:
    """The 1-based line number a load warning reports, whatever shape it has."""
    if isinstance(w, dict):
        for key in ("line", "line-number", "line_number"):
            if isinstance(w.get(key), int):
                return w[key]
    for attr in ("line", "line_number", "lineno"):
        value = getattr(w, attr, None)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    found = re.search(r"line (\d+)", str(w))
    return int(found.group(1)) if found else None


def warning_text(w: Any) -> str:
    """Everything a warning says, raw text included, as one string."""
    parts = [str(w)]
    for attr in ("value", "raw", "text"):
        value = w.get(attr) if isinstance(w, dict) else getattr(w, attr, None)
        if isinstance(value, bytes):
            parts.append(value.decode("utf-8", errors="replace"))
        elif value is not None:
            parts.append(str(value))
    return "\n".join(parts)


# --- damage -------------------------------------------------------------------------


def test_a_malformed_final_line_is_dropped_and_reported(load, raw_transcript) -> None:
    path = raw_transcript(
        [
            meta_line(),
            hello_line(),
            '{"v":1,"type":"message","payload":{"role":"assis',  # killed mid-write
        ]
    )

    s = load(path)
    warnings = s.warnings()
    assert len(warnings) == 1
    assert warning_line(warnings[0]) == 3
    assert len(s.messages()) == 1
    assert s.messages()[0].content == "hello"


@pytest.mark.parametrize("eol", [False, True], ids=["stopped-mid-line", "newline-and-all"])
def test_a_crash_tail_is_cut_off_the_file_not_merely_skipped(
    load, raw_transcript, eol: bool
) -> None:
    good = [
        meta_line(),
        hello_line(),
    ]
    path = raw_transcript([*good, '{"v":1,"type":"message","payload":{"role":"assis'], eol=eol)
    mode = 0o640
    path.chmod(mode)

    s = load(path)
    warnings = s.warnings()
    assert len(warnings) == 1
    assert warning_line(warnings[0]) == 3
    # Gone from the FILE, byte for byte the good prefix, permissions kept.
    assert len(file_lines(path)) == 2
    assert path.read_bytes() == ("\n".join(good) + "\n").encode("utf-8")
    assert path.stat().st_mode & 0o777 == mode
    assert not repair_file(path).exists()

    # The appends that would otherwise have landed inside the garbage.
    s.append_message(Message(role="assistant", content="day two"))
    s.append_message(user("day three"))
    s.close()

    again = load(path)
    assert [m.content for m in again.messages()] == ["hello", "day two", "day three"]
    assert list(again.warnings()) == []
    assert len(again.events()) == 4


def test_a_crash_inside_a_character_is_repaired_too(load, fresh) -> None:
    whole = (
        "\n".join(
            [
                meta_line(),
                hello_line(),
            ]
        )
        + "\n"
    )
    partial = '{"v":1,"type":"message","payload":{"role":"user","content":"héllö'
    data = (whole + partial).encode("utf-8")
    path = fresh()
    # One byte short of the closing ö: a lead byte with no follower.
    path.write_bytes(data[:-1])

    with pytest.raises(UnicodeDecodeError):
        path.read_bytes().decode("utf-8")

    s = load(path)
    warnings = s.warnings()
    assert len(warnings) == 1
    assert warning_line(warnings[0]) == 3
    # The warning keeps the raw text, readable as far as the damage.
    assert "héll" in warning_text(warnings[0])
    assert len(s.messages()) == 1
    # The repaired file is text again.
    assert path.read_bytes() == whole.encode("utf-8")
    assert len(path.read_text(encoding="utf-8").splitlines()) == 2


def test_a_crlf_transcript_keeps_its_line_endings_through_a_repair(load, raw_transcript) -> None:
    good = [
        meta_line(),
        hello_line(),
    ]
    path = raw_transcript(
        [*good, '{"v":1,"type":"message","payload":{"role":"assis'], nl="\r\n", eol=False
    )

    s = load(path)
    assert len(s.warnings()) == 1
    assert len(s.messages()) == 1
    s.close()

    # A repair is a copy of the prefix, not a rewrite.
    raw = path.read_bytes()
    assert raw.endswith(b"\r\n")
    assert raw.count(b"\r\n") == 2
    assert raw == ("\r\n".join(good) + "\r\n").encode("utf-8")

    again = load(path)
    assert len(again.messages()) == 1
    assert list(again.warnings()) == []


@pytest.mark.parametrize("nl", ["\n", "\r\n"], ids=["LF", "CRLF"])
def test_a_valid_final_json_line_without_eol_is_made_append_safe(
    load, raw_transcript, nl: str
) -> None:
    good = [
        meta_line(),
        envelope("message", {"role": "user", "content": "before"}),
    ]
    path = raw_transcript(good, nl=nl, eol=False)

    s = load(path)
    # A whole envelope without its newline is not damage.
    assert list(s.warnings()) == []
    assert len(s.messages()) == 1
    # The missing terminator is the file's own.
    assert path.read_bytes() == (nl.join(good) + nl).encode("utf-8")
    s.append_message(Message(role="assistant", content="after"))
    s.close()

    raw = path.read_bytes()
    assert len(file_lines(path)) == 3
    # The appended line starts on its own line; the writer itself always ends in LF.
    assert raw.count(b"\n") == 3
    assert raw.count(nl.encode()) == (2 if nl == "\r\n" else 3)
    assert raw.endswith(b"\n")

    again = load(path)
    assert [m.content for m in again.messages()] == ["before", "after"]


def test_a_repair_copy_left_behind_by_an_interrupted_repair_is_not_trusted(
    load, raw_transcript
) -> None:
    path = raw_transcript([meta_line(), hello_line()])
    before = path.read_bytes()
    stale = repair_file(path)
    stale.write_text("this was never renamed over anything")

    s = load(path)
    assert len(s.messages()) == 1
    assert list(s.warnings()) == []
    assert not stale.exists()
    assert path.read_bytes() == before


def test_two_malformed_lines_at_the_end_are_not_a_crash_artifact(load, raw_transcript) -> None:
    path = raw_transcript(
        [
            meta_line(),
            hello_line(),
            '{"v":1,"type":"mess',
            '{"v":1,"type":"messa',
        ],
        eol=False,
    )
    before = path.read_bytes()

    # One crash is a crash; two is damage.
    with pytest.raises(TranscriptError) as err:
        load(path)
    assert str(path) in str(err.value)
    assert path.read_bytes() == before
    assert not repair_file(path).exists()


def test_a_malformed_line_anywhere_else_is_fatal(load, raw_transcript) -> None:
    path = raw_transcript([meta_line(), '{"v":1,"type":"messa', hello_line()])
    before = path.read_bytes()

    assert_refused(load, path, 2)
    # Still fatal the second time: nothing was "repaired" by the first attempt.
    with pytest.raises(TranscriptError):
        load(path)
    assert path.read_bytes() == before
    assert not repair_file(path).exists()


def test_an_envelope_this_version_cannot_read_is_fatal(load, raw_transcript) -> None:
    future = raw_transcript([envelope("session-meta", {}, v=2)])
    assert_refused(load, future, 1)

    versionless = raw_transcript(
        [
            meta_line(),
            '{"id":"x","payload":{},"ts":"2026-08-09T12:00:00.000000Z","type":"message"}',
            hello_line(),
        ]
    )
    assert_refused(load, versionless, 2)

    typeless = raw_transcript(
        [
            meta_line(),
            '{"id":"x","payload":{},"ts":"2026-08-09T12:00:00.000000Z","v":1}',
        ]
    )
    assert_refused(load, typeless, 2)


def test_a_transcript_starts_with_its_meta_line(load, raw_transcript) -> None:
    path = raw_transcript([hello_line()])
    assert_refused(load, path, 1)
