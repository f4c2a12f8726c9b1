"""viewer.safe: hostile transcript text is shown, never obeyed."""

from __future__ import annotations

import os

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from session_core.text import CONTROL_TABLE, ONE_LINE_TABLE
from viewer.safe import clip, fit_path, inert, inert_text, one_line, one_line_text

CLEAR = "\x1b[2J"
TITLE = "\x1b]0;pwned\x07"
OSC52 = "\x1b]52;c;SGVsbG8=\x07"
MARKUP = "[bold red]x[/]"
LINK = "[link=http://x]y[/link]"


def no_controls(text: str) -> bool:
    return all(c == "\n" or (0x20 <= ord(c) < 0x7F or ord(c) >= 0xA0) for c in text)


def render(text: Text) -> str:
    """What a terminal would receive for ``text`` (with colours on)."""
    console = Console(force_terminal=True, color_system="truecolor", width=200)
    with console.capture() as capture:
        console.print(text, end="")
    return capture.get()


def test_clear_screen_is_visible() -> None:
    assert inert(CLEAR) == "␛[2J"


def test_set_title_is_visible() -> None:
    assert inert(TITLE) == "␛]0;pwned␇"


def test_osc52_clipboard_write_is_visible() -> None:
    assert inert(OSC52) == "␛]52;c;SGVsbG8=␇"


@pytest.mark.parametrize("hostile", [CLEAR, TITLE, OSC52])
def test_escape_sequences_never_reach_the_terminal(hostile: str) -> None:
    out = render(inert_text(f"before {hostile} after"))
    # The only ESC bytes are the styling Rich itself adds (none: no style here).
    assert "\x1b" not in out
    assert "\x07" not in out
    assert "␛" in out


def test_markup_stays_text() -> None:
    text = inert_text(MARKUP)
    assert text.plain == MARKUP
    assert text.spans == []
    link = inert_text(LINK, style="bold")
    assert link.plain == LINK
    assert link.spans == []
    assert str(link.style) == "bold"
    out = render(inert_text(LINK))
    assert "[link=http://x]y[/link]" in out
    assert "\x1b]8;" not in out  # no hyperlink escape was produced


def test_newline_kept_tab_expanded() -> None:
    assert inert("a\nb\tc") == "a\nb    c"


def test_every_control_is_mapped() -> None:
    every = "".join(chr(c) for c in range(0x00, 0xA0))
    shown = inert(every)
    assert no_controls(shown)
    assert "\x1b" not in shown
    assert "␀" in shown and "␛" in shown and "␍" in shown and "␡" in shown
    assert "\\x9b" in shown and "\\x80" in shown and "\\x9f" in shown


def test_c1_csi() -> None:
    assert inert("\x9b31m") == "\\x9b31m"


def test_bidi_override_is_visible() -> None:
    assert inert("abc\u202edef") == "abc\\u202edef"


def test_idempotent() -> None:
    sample = CLEAR + TITLE + OSC52 + "\x9b\x7f\t\u202e\n" + MARKUP
    once = inert(sample)
    assert inert(once) == once


def test_plain_text_unchanged() -> None:
    sample = "héllo wörld — 日本語 ✓ [not markup]"
    assert inert(sample) == sample


def test_non_string_values() -> None:
    assert inert(None) == ""
    assert inert(12) == "12"
    assert one_line(None, 5) == ""


def test_one_line_flattens_and_clips() -> None:
    assert one_line("a\nb\r\nc") == "a⏎b⏎c"
    assert one_line("abcdef", 4) == "abc…"
    assert one_line("abcd", 4) == "abcd"
    assert one_line("abc", 0) == ""
    assert one_line(CLEAR + "x\ny", 10) == "␛[2Jx⏎y"
    assert no_controls(one_line(TITLE + "\n" + OSC52, 12))


def test_one_line_wide_characters() -> None:
    # Four cells at most: two wide characters would need five with the ellipsis.
    assert clip("日本語", 4) == "日…"
    assert clip("日本", 4) == "日本"


def test_one_line_text_is_not_markup() -> None:
    text = one_line_text(MARKUP + "\n" + LINK, 100, style="red")
    assert text.plain == MARKUP + "⏎" + LINK
    assert text.spans == []


def test_a_file_names_undecodable_bytes_are_shown_and_measured_alike() -> None:
    """A name with bytes that are no UTF-8 holds lone surrogates (``os.fsdecode``): each
    shows as its escape, and is measured as it shows, so the row's columns stay put."""
    name = os.fsdecode(b"badname-\xff\xfe.jsonl")
    shown = fit_path(name, 60)
    assert shown == "badname-\\udcff\\udcfe.jsonl" and cell_len(shown) == len(shown)
    cut = fit_path(name, 12)
    assert cell_len(cut) <= 12 and cut.startswith("…")
    assert not any(0xD800 <= ord(char) < 0xE000 for char in inert(name))


_TABLED = st.sampled_from(sorted(chr(c) for c in ONE_LINE_TABLE))
_ANY = st.characters(exclude_categories=())  # (surrogates too: a file name's bytes)


def _lone_joiners_shown(text: str) -> str:
    """``text`` with each zero-width joiner that joins nothing (first, after white space
    or after one such) as its escape: a character at a time, as the rule says it."""
    out: list[str] = []
    lone = True
    for char in text:
        if char == "\u200d":
            out.append("\\u200d" if lone else char)
        else:
            out.append(char)
            lone = char.isspace()
    return "".join(out)


@given(st.text(st.one_of(_ANY, _TABLED, st.sampled_from("\t\n\r ab\u200d"))))
def test_the_quick_paths_map_as_the_table_does(text: str) -> None:
    """``inert`` and ``one_line`` look characters up only where one changes; what they
    make is exactly the tables' translation, for any text (ASCII or not, tabs or not),
    of the text with its joiners that join nothing shown as their escapes."""
    assert inert(text) == _lone_joiners_shown(text).translate(CONTROL_TABLE)
    flat = text.replace("\r\n", "\n")
    assert one_line(text) == _lone_joiners_shown(flat).translate(ONE_LINE_TABLE)


@pytest.mark.parametrize("around", ["", "é", "a\t"])
def test_every_tabled_character_is_mapped_on_each_path(around: str) -> None:
    for code in ONE_LINE_TABLE:
        text = f"{around}{chr(code)}{around}"
        assert inert(text) == text.translate(CONTROL_TABLE), hex(code)
        assert one_line(text) == text.translate(ONE_LINE_TABLE), hex(code)


@pytest.mark.parametrize(
    ("text", "width", "shown"),
    [
        ("run-801ba91e-aaaa-bbbb-00019", 12, "run-80…00019"),
        ("short", 12, "short"),
        ("日本語日本語日本語日本語", 12, "日本語…本語"),
        ("a\x1b[31mb\nc-00019-end", 10, "a␛[31…-end"),
    ],
)
def test_one_line_middle_keeps_both_ends(text: str, width: int, shown: str) -> None:
    """Ids that share a head (a run context's run ids) stay told apart by their ends (the
    run column showed ``run-801ba91…`` on every row; an audit); inert, within ``width``."""
    from rich.cells import cell_len

    from viewer.safe import one_line_middle

    got = one_line_middle(text, width)
    assert got == shown and cell_len(got) <= width and "\x1b" not in got


def test_a_name_tells_a_tab_from_spaces() -> None:
    """A file's name: a tab is ``␉`` (as text it is four spaces, so ``a<tab>b`` and
    ``a    b`` were one name to read), in the browser, the header, ``check`` and ``diff``."""
    from session_core.text import name_line

    assert name_line("a\tb\nc\x1b[1m") == "a\u2409b\u23cec\u241b[1m"
    assert fit_path("dir/a\tb.jsonl", 40) == "dir/a\u2409b.jsonl"
    assert name_line("plain.jsonl") == "plain.jsonl"


@given(st.text())
def test_a_name_holds_no_control_character(name: str) -> None:
    from session_core.text import name_line

    shown = name_line(name)
    assert not any(ord(c) < 0x20 or ord(c) == 0x7F for c in shown)
    assert name_line(shown) == shown  # (made inert once for all)


def test_text_that_hides_itself_is_shown() -> None:
    """Tag characters spell words no reader sees ("ASCII smuggling", instructions hidden
    from a person and read by a model), and fillers, joiners and soft hyphens draw as
    nothing or as blank cells: each is its escape, where they were drawn raw. The
    zero-width joiner of an emoji sequence stays."""
    hidden = "".join(chr(0xE0000 + ord(c)) for c in "HIDDEN")
    assert (
        inert(f"X{hidden}é") == "X" + "".join(f"\\U{0xE0000 + ord(c):08x}" for c in "HIDDEN") + "é"
    )
    for char in ("\u2060", "\u00ad", "\u115f", "\u3164", "\u180e", "\u2064", "\ufff9", "\u034f"):
        assert inert(f"a{char}b") == f"a\\u{ord(char):04x}b", hex(ord(char))
    family = "👨\u200d👩\u200d👧"
    assert inert(family) == family


def test_json_on_a_screen_escapes_what_hides_or_reorders_text() -> None:
    """JSON printed to a terminal writes DEL, bidi overrides, invisible marks and tag
    characters as JSON escapes (the same strings to a JSON reader); into a file or a
    pipe, C1 controls alone, as before (finding them all costs a big output time)."""
    import io

    import orjson

    from session_core.json_out import EscapedC1, escape_c1

    value = {"name": "evil\u202eexe.txt\x7f", "tag": "a\U000e0041b", "plain": "é — “q” 日本"}
    data = orjson.dumps(value)
    shown = escape_c1(data, on_screen=True)
    assert orjson.loads(shown) == value
    assert b"\\u202e" in shown and b"\\u007f" in shown and b"\\udb40\\udc41" in shown
    assert "é — “q” 日本".encode() in shown
    assert escape_c1(data) == data

    class Terminal(io.BytesIO):
        def isatty(self) -> bool:
            return True

    terminal, pipe = Terminal(), io.BytesIO()
    EscapedC1(terminal).write(data)
    EscapedC1(pipe).write(data)
    assert terminal.getvalue() == shown and pipe.getvalue() == data


@settings(max_examples=300, deadline=None)
@given(
    text=st.lists(
        st.sampled_from(["a", "\u200d", " ", "\n", "\t", "\u3000", "\x1c", "日", "\U0001f468"]),
        max_size=20,
    ).map("".join)
)
@example(text="hello \u200dworld")
@example(text="\u200d\u200d日本語 x\u200dy \u200d\u200dfoo")
def test_json_on_a_screen_escapes_a_joiner_run_that_joins_nothing_as_the_screen_does(
    text: str,
) -> None:
    """A run of zero-width joiners at a text's start or after white space is escaped in
    JSON to a terminal where every screen shows it escaped (``inert``), and only there: an
    emoji's joiner stays (review 2: JSON wrote them raw, against the README)."""
    import orjson

    from session_core.json_out import escape_c1

    data = orjson.dumps({"content": text, text: 1})
    shown = escape_c1(data, on_screen=True)
    assert orjson.loads(shown) == orjson.loads(data)
    assert shown.count(b"\\u200d") == 2 * inert(text).count("\\u200d")


_GRAPHEMES = st.lists(
    st.sampled_from(
        [
            "a",
            "界",
            "\u2764\ufe0f",
            "\u26a0\ufe0f",
            "e\u0301",
            "\u200d",
            "\U0001f468\u200d\U0001f469",
            "-",
        ]
    ),
    max_size=30,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(_GRAPHEMES, st.text(max_size=60)), width=st.integers(1, 40))
@example(text="\u2764\ufe0f" * 5, width=4)  # (rich 15: 2 cells a heart, 1 + 0 apart: 7 cells)
def test_a_cut_line_is_never_wider_than_its_width(text: str, width: int) -> None:
    """Cut by cells as ``cell_len`` measures the whole (a grapheme at once), not the sum of
    its characters': an emoji and its variation selector are 2 cells together."""
    from viewer.safe import one_line_middle

    for cut in (clip(text, width), one_line_middle(text, width), fit_path(text, width)):
        assert cell_len(cut) <= width or len(cut) <= 1
