"""A ``Document`` as Markdown that transcript text cannot break out of.

Inline text (roles, names, ids, table cells) is made inert, put on one line and
has every Markdown-active character backslash-escaped, and GitHub's autolinks
broken (``md_inline``). Contents go in fenced
code blocks whose fence is longer than any backtick run inside, so no content
can close its block early.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .exportdoc import (
    DetailBlock,
    Document,
    Heading,
    Item,
    MessageItem,
    Note,
    Table,
    TextBlock,
    blank_said,
)
from .patch_args import patch_of
from .text import gathered, in_slices, inert, one_line, tool_name

_ACTIVE = re.compile(r"([\\`*_\[\]<>()|~&!#{}+])")
# GitHub-flavoured Markdown links a bare URL, a www. name and an e-mail address in
# text. A backslash-escaped ":" of "://" or "." of "www." is none (cmark-gfm reads the
# escape first); an e-mail's "@" escaped still is (it is matched in the text the escapes
# made), so a word joiner (U+2060, invisible; the file's own are shown as ``\u2060``)
# follows it, which also keeps "@name" from mentioning anyone.
_AUTOLINKS = re.compile(r"(?i)(?<=www)\.|:(?=//)|@")
_UNLINKED = {".": "\\.", ":": "\\:", "@": "\\@\u2060"}
_TICKS = re.compile(r"`+")
_TONE = {"info": "ℹ", "warn": "⚠", "bad": "✖", "ok": "✔"}


def md_inline(text: object) -> str:
    """One line of inert text with every Markdown-active character escaped, and no
    autolink in it."""
    escaped = _ACTIVE.sub(r"\\\1", one_line(text))
    return _AUTOLINKS.sub(lambda m: _UNLINKED[m.group()], escaped)


def fence(text: object, info: str = "text") -> list[str]:
    """The lines of ``text`` (made inert) in a backtick fence longer than any backtick
    run in it: its opening, the text (one line, however many it holds: never copied
    again), its closing. A text of only whitespace is said instead, in italics
    (``blank_said``), as the viewer says it: its box would say nothing."""
    blank = blank_said(text)
    if blank is not None:
        return [f"*{md_inline(blank)}*"]
    body = inert(text)
    longest = max((len(m.group()) for m in _TICKS.finditer(body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return [f"{ticks}{info}", body, ticks]


def _table(table: Table) -> Iterator[str]:
    def row(cells: list[str]) -> str:
        return "| " + " | ".join(md_inline(c) or " " for c in cells) + " |"

    yield row(table.headers)
    yield "|" + "---|" * len(table.headers)
    for r in table.rows:
        yield row(r + [""] * (len(table.headers) - len(r)))


def _message(index: int, item: MessageItem) -> Iterator[str]:
    """The message's lines, as they are made (a big text among them: one line)."""
    yield from (f"### {index} · {md_inline(item.role)}", "")
    facts = " · ".join(md_inline(f) for f in item.facts if f)
    flags = " · ".join(f"**{md_inline(f)}**" for f in item.flags if f.strip())
    yield facts + (f" · {flags}" if flags else "")
    if item.usage:
        yield from ("", f"usage: {md_inline(item.usage)}")
    for mark in item.marks:
        yield from ("", f"> {_TONE[mark.tone]} {md_inline(mark.text)}")
        if mark.body is not None:
            yield from ("", f"{md_inline(mark.body_label)}:", "", *fence(mark.body))
    at = item.content_at
    for label, text in item.blocks[:at]:
        yield from ("", f"**{md_inline(label)}**", *(("", *fence(text)) if text else ()))
    if item.content or not (item.calls or item.blocks):  # (a call's alone: no empty box)
        yield from ("", *fence(item.content))
    for label, text in item.blocks[at:]:
        yield from ("", f"**{md_inline(label)}**", *(("", *fence(text)) if text else ()))
    if item.calls:
        yield from ("", "**tool calls**")
    for call in item.calls:
        name = md_inline(tool_name(call.name))
        line = f"- **{name}** ({md_inline(call.call_id)}): {md_inline(call.status)}"
        if call.details:
            line += " · " + " · ".join(md_inline(d) for d in call.details)
        yield from ("", line)
        if call.result:
            yield f"  - {md_inline(call.result)}"
        # (a patch is no JSON: ``diff`` marks its lines as a patch's)
        kind = "diff" if patch_of(call.arguments) is not None else "json"
        yield from ("", "arguments:", "", *fence(call.arguments, kind))
        if call.detail is not None:
            yield from ("", *_detail(call.detail))


def _detail(block: DetailBlock) -> list[str]:
    """A tool's detail: its JSON fenced (Markdown has no fold of its own)."""
    return [f"{md_inline(block.label)}:", "", *fence(block.body, "json")]


def _item(item: Item, counter: list[int]) -> Iterator[str]:
    if isinstance(item, MessageItem):
        counter[0] += 1
        return _message(counter[0], item)
    if isinstance(item, Table):
        return _table(item)
    if isinstance(item, Note):
        return iter((f"> {_TONE[item.tone]} {md_inline(item.text)}",))
    if isinstance(item, Heading):
        return iter((f"### {md_inline(item.text)}",))
    if isinstance(item, DetailBlock):
        return iter(_detail(item))
    assert isinstance(item, TextBlock)
    return iter((f"**{md_inline(item.label)}**", "", *fence(item.body)))


def _lines(doc: Document) -> Iterator[str]:
    yield f"# {md_inline(doc.title)}"
    yield ""
    yield from _table(Table(["", ""], [[k, v] for k, v in doc.facts]))
    for section in doc.sections:
        yield from ("", f"## {md_inline(section.title)}", "")
        counter = [0]
        for item in section.items:
            yield from _item(item, counter)
            yield ""


def markdown_chunks(doc: Document, lines: int = 256) -> Iterator[str]:
    """The Markdown of ``doc``, a few hundred lines at a time, as it is built: the lines
    joined by newlines, ending in exactly one (a big one alone: ``gathered``)."""
    held = ""  # the newlines at the end so far: only the last run of them is dropped
    for piece in gathered(_lines(doc), "\n", lines):
        texts = in_slices(piece)  # (a big line a slice at a time: never stripped whole)
        del piece  # (nor held while the next is made)
        for text in texts:
            kept = text.rstrip("\n")
            if not kept:
                held += text
                continue
            if held:
                yield held
            yield kept
            held = text[len(kept) :]
    yield "\n"


def render_markdown(doc: Document) -> str:
    return "".join(markdown_chunks(doc))
