"""An artifact's excerpt is cut and counted in characters as the reference counts them:
graphemes (Raku's ``.chars``), so no cut lands between a letter and its combining
accent, inside an emoji's sequence, or between the CR and the LF of a CRLF. The cases
are the reference's own (``t/15-artifacts.rakutest``), and a property over any text."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import regex
from hypothesis import given
from hypothesis import strategies as st

from session_core.artifacts import (
    elided_chars,
    excerpt,
    grapheme_count,
    sanitise_name,
    store_artifact,
    unstored_marker,
)

ACUTE = "\N{COMBINING ACUTE ACCENT}"
RAKU = Path(__file__).parent / "fixtures" / "raku"


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


def graphemes(text: str) -> list[str]:
    return regex.findall(r"\X", text)


def test_the_reference_excerpt_cases() -> None:
    assert excerpt("short", 100, "M") == "short"
    assert excerpt("x" * 100, 100, "M") == "x" * 100  # "bigger than": the limit is left alone
    cut = excerpt("a" * 60 + "b" * 60, 100, "MARKER")
    assert cut.split("\n") == ["a" * 60 + "b" * 15, "MARKER", "b" * 25]
    assert elided_chars(120, 100) == 20
    assert elided_chars(100, 100) == 0 and elided_chars(5, 0) == 0


def test_a_cut_is_a_grapheme_cut() -> None:
    text = ("e" + ACUTE) * 40 + "a\r\n" * 40  # 40 + 80 graphemes in 200 code points
    assert grapheme_count(text) == 120
    trimmed = excerpt(text, 40, "M")
    head, tail = trimmed.split("\nM\n")
    assert head == ("e" + ACUTE) * 30  # 30 graphemes, whatever they weigh in code points
    assert text.startswith(head)
    assert tail == "a\r\n" * 5  # the last 10: no CRLF cut in two
    assert text.endswith(tail)


def test_emoji_sequences_and_flags_stay_whole() -> None:
    text = "👍🏽" * 50 + "🇺🇸" * 50 + "👨‍👩‍👧" * 50
    assert grapheme_count(text) == 150
    head, tail = excerpt(text, 100, "M").split("\nM\n")
    assert head == "👍🏽" * 50 + "🇺🇸" * 25 and tail == "👨‍👩‍👧" * 25


def test_an_ascii_crlf_text_counts_each_crlf_once() -> None:
    text = "line\r\n" * 1000
    assert grapheme_count(text) == 5000
    head, tail = excerpt(text, 100, "M").split("\nM\n")
    assert head == "line\r\n" * 15 and tail == "line\r\n" * 5  # (code points: 12½ and 4⅙)


def test_the_artifact_record_counts_graphemes(tmp_path: Path) -> None:
    content = ("e" + ACUTE) * 3000 + "\r\n"
    text, record = store_artifact(tmp_path / "run.jsonl", "op-1", content, 400)
    assert record["chars"] == 3001 and record["elided-chars"] == 2601
    assert record["bytes"] == len(content.encode())
    assert "[... elided 2,601 chars (9,002 bytes total); full result: op-1.txt" in text
    assert (tmp_path / "run.artifacts" / "op-1.txt").read_bytes() == content.encode()


def test_the_unstored_marker_is_the_reference_s() -> None:
    assert unstored_marker(391204, 402110, "4f2c") == (
        "[... elided 391,204 chars (402,110 bytes total); full result not stored, sha256 4f2c ...]"
    )
    assert "full result could not be written, sha256" in unstored_marker(
        1, 2, "d", "could not be written"
    )


def test_a_name_is_sanitised_a_grapheme_at_a_time() -> None:
    assert sanitise_name("0190-ab_c.d") == "0190-ab_c.d"
    assert sanitise_name("op/e" + ACUTE + "\r\n..") == "op___.."
    assert sanitise_name("") == "artifact"


# Pieces that make graphemes of more than one code point when they meet.
PIECES = st.sampled_from(["a", "\r", "\n", "e" + ACUTE, ACUTE, "🇺", "👍", "🏽", "\u200d", "\u1100"])
TEXT = st.lists(PIECES | st.characters(), max_size=60).map("".join)


@given(TEXT, st.integers(min_value=1, max_value=80))
def test_an_excerpt_is_a_head_and_a_tail_of_whole_graphemes(text: str, limit: int) -> None:
    whole = graphemes(text)
    assert grapheme_count(text) == len(whole)
    out = excerpt(text, limit, "M")
    if len(whole) <= limit:
        assert out == text
        return
    head_n = -(-limit * 3 // 4)
    expected = "".join(whole[:head_n]) + "\nM\n" + "".join(whole[len(whole) - (limit - head_n) :])
    assert out == expected


@given(st.text(st.sampled_from("ab\r\n \t\x00~"), max_size=200))
def test_the_ascii_count_is_the_grapheme_count(text: str) -> None:
    assert grapheme_count(text) == len(graphemes(text))


def test_what_the_reference_made_of_the_same_texts() -> None:
    """``fixtures/raku/artifact-excerpts.json``: the reference's ``excerpt`` (marker
    ``M``), ``.chars`` and ``Store.path-for`` of 404 texts; Raku makes text NFC first,
    so ours is compared in NFC."""
    cases = json.loads((RAKU / "artifact-excerpts.json").read_text(encoding="utf-8"))["cases"]
    assert len(cases) == 404
    for case in cases:
        text, limit = case["text"], case["limit"]
        assert grapheme_count(text) == case["chars"], case
        assert nfc(excerpt(text, limit, "M")) == case["excerpt"], case
        assert nfc(sanitise_name(text)) + ".txt" == case["file"], case
