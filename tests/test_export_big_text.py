"""A big text (a 20 MB record kept as written) goes through the Markdown and HTML
renderers and onto the disk without being copied whole again and again.

It was copied about five times: made inert, fenced (or escaped, five passes, and put
in its ``<pre>``), joined with the other lines of its batch (where one 4-byte
character elsewhere made the whole join 4 bytes a character), joined again, encoded:
a raw export of a file with one 20 MB unknown line peaked at 262 MB where the
replayed view took 124. Now Markdown makes it inert once (its fence's one line) and
HTML escapes and writes it a slice at a time; the page is the same, byte for byte.
"""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import session_core.export
import session_core.text
from session_core.export import write_export
from session_core.export_html import html_chunks
from session_core.export_md import markdown_chunks
from session_core.exportdoc import (
    CallItem,
    DetailBlock,
    Document,
    Mark,
    MessageItem,
    Note,
    Section,
    TextBlock,
)

Render = Callable[[Document], Iterator[str]]
RENDERERS: dict[str, Render] = {"md": markdown_chunks, "html": html_chunks}
SIZE = 16 << 20


def _document(text: str) -> Document:
    """``text`` in every place a text is written, beside a 4-byte character."""
    message = MessageItem(
        "m1",
        "tool",
        ["a fact 😀"],
        text,
        marks=[Mark("warn", "folded", text, "the stub")],
        blocks=[("thinking", text)],
        calls=[CallItem("Bash", "c1", text, "ok", "ok", detail=DetailBlock("detail", text))],
    )
    items = [Note("a 😀 note"), TextBlock("line 3: a future line", text), message]
    return Document("t 😀", [("a", "b")], [Section("s", "s", items), Section("e", "e", [])])


@pytest.mark.parametrize("fmt", list(RENDERERS))
def test_a_big_text_is_not_copied_whole_on_its_way_out(fmt: str, tmp_path: Path) -> None:
    line = '{"k": "<a & b>", "t": "'
    text = line * (SIZE // len(line)) + "\n"
    out, transcript = tmp_path / f"x.{fmt}", tmp_path / "x.jsonl"
    write_export(RENDERERS[fmt](_document("warm")), out, transcript)
    tracemalloc.start()
    try:
        write_export(RENDERERS[fmt](_document(text)), out, transcript)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # Markdown holds the text made inert once (its fence's one line), HTML not even that
    # (a slice escaped at a time); it was 13 to 30 times the text, written six times here.
    most = 1.5 if fmt == "md" else 1.0
    assert peak < most * len(text), f"{peak / len(text):.1f} times the text"
    assert out.stat().st_size > 6 * len(text)


TRICKY = [
    "",
    "\n",
    "plain",
    "  \n lead and trail \t\n\n",
    "tab\there, ESC \x1b[2J, CR\r\n, C1 \x9b, bidi \u202e, 4 bytes 😀, quotes \"'<&>",
    "```inside``` ````` fence",
    "many\n" * 40 + "lines\n\n\n",
    "x" * 5000 + "\n",
]


@pytest.mark.parametrize("fmt", list(RENDERERS))
def test_a_page_is_the_same_whatever_counts_as_big(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every text big (each alone, sliced, escaped and encoded a few characters at a
    time), the page is the one written when none is."""
    doc: Callable[[], Document] = lambda: Document(  # noqa: E731
        "title",
        [("k", v) for v in TRICKY],
        [Section("s", "s", [item for t in TRICKY for item in _document(t).sections[0].items])],
    )
    whole, pieces = tmp_path / "whole", tmp_path / "pieces"
    write_export(RENDERERS[fmt](doc()), whole, tmp_path / "x.jsonl")
    for size in (1, 3, 7):
        monkeypatch.setattr(session_core.text, "BIG", size)
        monkeypatch.setattr(session_core.export, "BIG", size)
        write_export(RENDERERS[fmt](doc()), pieces, tmp_path / "x.jsonl")
        assert pieces.read_bytes() == whole.read_bytes(), size
