"""A ``Document`` as one self-contained HTML page: inline CSS, no scripts, nothing fetched.

Every transcript string is made inert and then ``html.escape``d (quotes too)
before it touches the page; the Content-Security-Policy forbids scripts and
every external load even if something slipped through.
"""

from __future__ import annotations

import html
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
from .text import gathered, in_slices, inert, one_line, tool_name

CSP = "default-src 'none'; style-src 'unsafe-inline'"
ROLES = frozenset(("system", "user", "assistant", "tool", "compaction"))
FOLD_LINES = 30
FOLD_CHARS = 4000

CSS = """
:root { color-scheme: light dark;
  --bg: #fbfbfa; --fg: #1d1f21; --dim: #666b73; --card: #ffffff; --line: #d9dce1;
  --code: #f3f4f6; --system: #7c4dff; --user: #1565c0; --assistant: #2e7d32;
  --tool: #b26a00; --compaction: #8e24aa; --other: #546e7a;
  --ok: #2e7d32; --warn: #b26a00; --bad: #c62828; --info: #1565c0; }
@media (prefers-color-scheme: dark) { :root {
  --bg: #16181c; --fg: #e3e5e8; --dim: #9aa1ab; --card: #1e2126; --line: #343a42;
  --code: #262a30; --system: #b39dff; --user: #64b5f6; --assistant: #81c784;
  --tool: #ffb74d; --compaction: #ce93d8; --other: #90a4ae;
  --ok: #81c784; --warn: #ffb74d; --bad: #ef9a9a; --info: #64b5f6; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
main, body > header { max-width: 1100px; margin: 0 auto; padding: 0 24px; }
body > header { padding-top: 24px; }
h1 { font-size: 1.6em; margin: 0 0 12px; }
h2 { font-size: 1.25em; margin: 32px 0 12px; padding-bottom: 4px;
  border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05em; margin: 20px 0 8px; }
nav a { margin-right: 14px; }
a { color: var(--info); }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.9em; width: 100%; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left;
  vertical-align: top; overflow-wrap: break-word; white-space: pre-wrap; }
th { background: var(--code); }
table.facts th { width: 14em; }
pre { background: var(--code); padding: 10px 12px; border-radius: 6px; margin: 8px 0;
  overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere;
  font: 13px/1.45 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
code { font: 0.92em ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
article.msg { background: var(--card); border: 1px solid var(--line);
  border-left: 5px solid var(--role); border-radius: 6px; padding: 8px 14px; margin: 12px 0; }
article.msg > header { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: baseline; }
.role { font-weight: 700; color: var(--role); text-transform: uppercase;
  letter-spacing: 0.04em; font-size: 0.85em; }
.facts-line { color: var(--dim); font-size: 0.85em; }
.flag { font-size: 0.8em; padding: 0 6px; border-radius: 8px; border: 1px solid var(--line); }
.usage { color: var(--dim); font-size: 0.85em; }
.r-system { --role: var(--system); } .r-user { --role: var(--user); }
.r-assistant { --role: var(--assistant); } .r-tool { --role: var(--tool); }
.r-compaction { --role: var(--compaction); } .r-other { --role: var(--other); }
.note, .mark { margin: 6px 0; padding: 4px 10px; border-left: 3px solid var(--tone);
  background: var(--code); border-radius: 3px; font-size: 0.9em; }
.t-info { --tone: var(--info); } .t-warn { --tone: var(--warn); }
.t-bad { --tone: var(--bad); } .t-ok { --tone: var(--ok); }
.call { border: 1px solid var(--line); border-left: 3px solid var(--tone);
  border-radius: 4px; padding: 4px 10px; margin: 8px 0; }
.call .status { font-weight: 600; color: var(--tone); }
.call-facts { color: var(--dim); font-size: 0.88em; }
.label { font-weight: 600; font-size: 0.85em; color: var(--dim); margin-top: 6px; }
.blank { color: var(--dim); font-style: italic; margin: 8px 0; }
details > summary { cursor: pointer; color: var(--dim); font-size: 0.88em; }
"""


def h(text: object) -> str:
    """Inert, escaped text for HTML (quotes escaped too, so it is safe in attributes)."""
    return html.escape(inert(text), quote=True)


def h1(text: object) -> str:
    return html.escape(one_line(text), quote=True)


def _pre(text: str, cls: str = "", folded: str | None = None) -> Iterator[str]:
    """The pieces of ``text`` preformatted, folded if long (its first line the fold's
    summary); folded however short under ``folded``, the summary then. A big text is
    escaped a slice at a time as it is written, each slice its own piece: never whole."""
    blank = blank_said(text)
    if blank is not None:  # (its box would say nothing: said, as the viewer says it)
        yield f'<p class="blank">{h1(blank)}</p>'
        return
    lines = text.count("\n") + 1
    fold = folded is not None or lines > FOLD_LINES or len(text) > FOLD_CHARS
    if fold:
        said = h1(folded) if folded is not None else f"{h1(_first_line(text, 120))} …"
        yield (
            f"<details><summary>{said} ({lines:,} lines, {len(text):,} characters: "
            "show all)</summary>"
        )
    # (a newline right after <pre> is dropped by every HTML parser: one is given to drop)
    yield f'<pre class="{cls}">\n' if cls else "<pre>\n"
    for part in in_slices(text):
        yield h(part)
    yield "</pre></details>" if fold else "</pre>"


_SPACES = re.compile(r"\s*")
_SPACES_TO_END = re.compile(r"\s*\Z")


def _first_line(text: str, most: int) -> str:
    """``text.strip().split("\\n", 1)[0][:most]``, without copying the rest of
    ``text``."""
    spaces = _SPACES.match(text)
    start = spaces.end() if spaces else 0
    first = text[start : start + most].split("\n", 1)[0]
    if _SPACES_TO_END.match(text, start + len(first)):  # (nothing but spaces after it)
        return first.rstrip()
    return first


def _detail(block: DetailBlock) -> Iterator[str]:
    """A tool's detail: its JSON, folded away until asked for."""
    return _pre(block.body, "detail", block.label)


def _table(table: Table, cls: str = "", rows: int = 256) -> Iterator[str]:
    """The table's HTML, a few hundred rows at a time (its rows may be many)."""
    attr = f' class="{cls}"' if cls else ""
    head = "".join(f"<th>{h1(c)}</th>" for c in table.headers)
    out = [f"<table{attr}><thead><tr>{head}</tr></thead><tbody>"]
    for row in table.rows:
        out.append("<tr>" + "".join(f"<td>{h1(c)}</td>" for c in row) + "</tr>")
        if len(out) >= rows:
            yield "".join(out)
            out.clear()
    out.append("</tbody></table>")
    yield "".join(out)


def _message(item: MessageItem) -> Iterator[str]:
    """The message's pieces, as they are made (a big text among them: its slices)."""
    role_class = item.role if item.role in ROLES else "other"
    yield f'<article class="msg r-{role_class}" id="{h1(item.anchor)}"><header>'
    yield f'<span class="role">{h1(item.role)}</span>'
    yield f'<span class="facts-line">{h1(" · ".join(f for f in item.facts if f))}</span>'
    yield from (f'<span class="flag">{h1(flag)}</span>' for flag in item.flags)
    yield "</header>"
    if item.usage:
        yield f'<div class="usage">usage: {h1(item.usage)}</div>'
    for mark in item.marks:
        yield f'<div class="mark t-{mark.tone}">{h1(mark.text)}</div>'
        if mark.body is not None:
            yield f'<div class="label">{h1(mark.body_label)}</div>'
            yield from _pre(mark.body)
    at = item.content_at
    for label, text in item.blocks[:at]:
        yield f'<div class="label">{h1(label)}</div>'
        yield from _pre(text) if text else ()
    if item.content or not (item.calls or item.blocks):  # (a call's alone: no empty box)
        yield from _pre(item.content, "content")
    for label, text in item.blocks[at:]:
        yield f'<div class="label">{h1(label)}</div>'
        yield from _pre(text) if text else ()
    for call in item.calls:
        yield f'<div class="call t-{call.tone}"><div><b>{h1(tool_name(call.name))}</b> '
        yield f'<code>{h1(call.call_id)}</code> <span class="status">{h1(call.status)}</span>'
        yield f'</div><div class="call-facts">{h1(" · ".join(call.details))}</div>'
        yield from _pre(call.arguments)
        if call.result:
            said = h1(call.result)
            if call.result_anchor:
                said = f'<a href="#{h1(call.result_anchor)}">{said}</a>'
            yield f'<div class="call-facts">{said}</div>'
        if call.detail is not None:
            yield from _detail(call.detail)
        yield "</div>"
    yield "</article>"


def _item(item: Item) -> Iterator[str]:
    if isinstance(item, Table):  # (its rows may be many: written as they come)
        yield from _table(item)
    elif isinstance(item, MessageItem):
        yield from gathered(_message(item))
    elif isinstance(item, Note):
        yield f'<div class="note t-{item.tone}">{h1(item.text)}</div>'
    elif isinstance(item, Heading):
        yield f"<h3>{h1(item.text)}</h3>"
    elif isinstance(item, DetailBlock):
        yield from gathered(_detail(item))
    else:
        assert isinstance(item, TextBlock)
        yield f'<div class="label">{h1(item.label)}</div>'
        yield from gathered(_pre(item.body))


def html_chunks(doc: Document) -> Iterator[str]:
    """The page of ``doc`` as it is built, an item at a time."""
    nav = " ".join(f'<a href="#{h1(s.anchor)}">{h1(s.title)}</a>' for s in doc.sections)
    facts = _table_rows(doc.facts)
    head = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{h1(CSP)}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{h1(doc.title)}</title>",
        f"<style>{CSS}</style></head><body>",
        f"<header><h1>{h1(doc.title)}</h1>{facts}<nav>{nav}</nav></header><main>",
    ]
    yield "\n".join(head) + "\n"
    for section in doc.sections:
        yield f'<section id="{h1(section.anchor)}"><h2>{h1(section.title)}</h2>\n'
        for item in section.items:
            yield from _item(item)
            yield "\n"
        yield "</section>\n"
    yield "</main></body></html>\n"


def render_html(doc: Document) -> str:
    return "".join(html_chunks(doc))


def _table_rows(facts: list[tuple[str, str]]) -> str:
    rows = "".join(f"<tr><th>{h1(k)}</th><td>{h1(v)}</td></tr>" for k, v in facts)
    return f'<table class="facts"><tbody>{rows}</tbody></table>'
