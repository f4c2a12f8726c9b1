"""An export as a document model: sections of messages, notes, tables and text blocks.

The builders (``exportdoc_v1``, ``exportdoc_agentgo``, ``exportdoc_model``) turn a
format's replay into a ``Document``, with the helpers here; the Markdown and HTML
renderers (export_md, export_html) only lay it out. Every
string in a document is untrusted transcript text, exactly as the file says:
the renderers make it inert and escape it, the builders never do.

A section's items and a table's rows may be generators, made as the renderer
reaches them and written out one by one: a document of a big file is never
whole in memory (a v1 export of 1 GB held 3 GB when it was). They are read once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import orjson

from .elisions import Elision, per_line
from .json_out import json_text, readable_json
from .message_usage import MessageUsage
from .search import op_arguments
from .text import folded_line, prompt_title, tool_name
from .titles import session_title
from .tool_ops import ask_of
from .usage import Usage, UsageTally
from .usage_totals import Usage as Neutral
from .vocabulary import meta_fact

View = Literal["replayed", "raw"]
CallKey = tuple[str, str]  # (the message that asks for a call, the call's id)
Tone = Literal["info", "warn", "bad", "ok"]
_T = TypeVar("_T")


@dataclass(slots=True)
class Mark:
    """A note attached to a message: folded, elided, a compaction's facts."""

    tone: Tone
    text: str
    body: str | None = None  # shown as a text block (a stub, say)
    body_label: str = ""


@dataclass(slots=True)
class DetailBlock:
    """A tool's own structured result (``ToolOp.detail``: an edit's patch, a command's
    stdout and stderr apart, its exit code) as JSON: folded away unless asked for, as
    the viewer's detail screen holds it apart from the result."""

    label: str
    body: str


def detail_block(label: str, detail: Any) -> DetailBlock | None:
    """An operation's detail as every export shows it (None: it has none), written as
    every record value is (``json_out``: indented; a C1 control escaped, still JSON)."""
    if detail is None:
        return None
    return DetailBlock(label, json_text(detail, orjson.OPT_INDENT_2))


@dataclass(slots=True)
class CallItem:
    """A tool call in an assistant message, with what ran and what answered it."""

    name: str
    call_id: str
    arguments: str
    status: str
    tone: Tone
    details: list[str] = field(default_factory=list)
    result: str | None = None  # where the answer is, and a preview
    result_anchor: str | None = None
    asked_in: str = ""  # the message that asks for it, as its builder names it
    detail: DetailBlock | None = None  # the tool's own structured result, folded

    @property
    def key(self) -> CallKey:
        """Which call this is: a call id may be used again by another message (a writer
        that numbers its calls again after a compaction, or in a new run)."""
        return (self.asked_in, self.call_id)


@dataclass(slots=True)
class MessageItem:
    anchor: str
    role: str
    facts: list[str]
    content: str
    flags: list[str] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    blocks: list[tuple[str, str]] = field(default_factory=list)  # (label, text)
    content_at: int = 0  # how many of the blocks come before the content (in its order)
    calls: list[CallItem] = field(default_factory=list)
    usage: str | None = None
    # Calls its blocks show whole, in their place rather than as calls (a server tool's:
    # called and answered within the response, ``other`` parts with the operation's id).
    held: list[CallKey] = field(default_factory=list)


@dataclass(slots=True)
class Table:
    headers: list[str]
    rows: Iterable[list[str]]  # (read once)


@dataclass(slots=True)
class Note:
    text: str
    tone: Tone = "info"


@dataclass(slots=True)
class Heading:
    text: str


@dataclass(slots=True)
class TextBlock:
    label: str
    body: str


Item = MessageItem | Table | Note | Heading | TextBlock | DetailBlock


@dataclass(slots=True)
class Section:
    title: str
    anchor: str
    items: Iterable[Item] = ()  # (read once)


@dataclass(slots=True)
class Document:
    title: str
    facts: list[tuple[str, str]]
    sections: list[Section]


def document_title(
    meta: Mapping[str, Any], fmt: str, first_prompt: str | None, fallback: object
) -> str:
    """An export's title: the session's title as the browser's row gives it (the meta's
    ``title`` fact, else its first prompt: ``titles.session_title``), else ``fallback``
    (a session with neither: its id, say), capped as a prompt is (``prompt_title``: one
    line of 200 characters). One rule for every format's export."""
    said = session_title(meta_fact(meta, fmt, "title"), first_prompt)
    return said or prompt_title(str(fallback)) or str(fallback)


def _s(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else readable_json(value)


def _preview(text: str, width: int = 160) -> str:
    flat = folded_line(text, width)  # (a control character kept, as in its title)
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def blank_said(text: object) -> str | None:
    """A text of only whitespace said in place of it, as the viewer's row says it
    (``(blank text: '\\n\\n')``, ``(empty text)``): drawn, it is an empty box that says
    nothing. None for any other text (a non-string: it is drawn as its ``str``)."""
    if not isinstance(text, str) or (text and not text.isspace()):
        return None
    if not text:
        return "(empty text)"
    # (its whitespace by name: ``\n``, ``\t``, ``\u3000``; of a big one, its start alone)
    shown = repr(text[:40])
    cut = len(text) > 40 or len(shown) > 40
    return f"(blank text: {shown[:39] + '…' if cut else shown})"


def answers_flag(tool: str, call_id: str) -> str:
    """A result message's flag naming the call it answers, in every format's export:
    ``answers Read (toolu_01…)`` ("?" for a tool no message asking for it names)."""
    return f"answers {tool_name(tool)} ({call_id})"


ARGUMENTS_CELL = 80  # characters of a call's arguments in an operations table's cell


def arguments_cell(arguments: object) -> str:
    """A call's arguments in an operations table: its main argument first, as the viewer's
    row says them (``search.op_arguments``), on one line, cut to ``ARGUMENTS_CELL`` (the
    detail below the table, or the conversation, has them whole). The renderers make it
    inert, as every cell: a ``|``, a backtick or a newline breaks no table."""
    return _preview(op_arguments(arguments), ARGUMENTS_CELL) if arguments is not None else ""


def _usage_rows(tally: UsageTally) -> Table:
    def row(name: str, usage: Usage) -> list[str]:
        return [
            name,
            f"{usage.reported} of {usage.turns}",
            usage.describe_tokens(),
            "unknown" if usage.input is None else f"{usage.input:,}",
            "unknown" if usage.output is None else f"{usage.output:,}",
            usage.describe_cost(),
        ]

    rows = [row(name, usage) for name, usage in tally.runs.items()]
    rows.append(row("all runs", tally.transcript))
    return Table(["run", "turns reporting", "tokens", "input", "output", "cost"], rows)


def _usage_fact(tally: UsageTally) -> str:
    """The summary's usage row, in every format the header's words (``usage_totals.Usage
    .describe``): ``279,538 tok (68,861 in + 12,491 out + 198,186 cache read) · $0.4534 ·
    17 of 18 responses reported``, each qualifier said once; ``none (no model response)``
    where none was made (v1's and agentgo's tallies count a response for every model
    output: none counted, none made)."""
    return Neutral.of_totals(tally.transcript).describe(none_made=True)


# A message's usage line (after "usage: ") where its response reported none: every format's.
NOT_REPORTED = "unknown (not reported)"


def _message_usage(usage: MessageUsage | None, counts: bool) -> str | None:
    """A message's usage line: what it reported; ``NOT_REPORTED`` where it is a response
    (``counts``) that reported none; None for a message that is no response."""
    if usage is not None:
        return usage.describe()
    return NOT_REPORTED if counts else None


# Said before the calls an export's conversation did not show, each given whole after the
# operations' table (a replayed view: a compaction folded them from what is sent next).
UNSHOWN_CALLS = (
    "Calls no longer sent (a compaction folded them), each whole: "
    "the conversation above does not hold them."
)
# The same said of the calls of items a raw view marks otherwise (``Item.marks``), by the
# mark; the first of them an item has names its group. Others: ``UNSHOWN_ELSE``.
UNSHOWN_BY_MARK = {
    "sidechain": "A subagent's calls (its sidechain's lines, in this file), each whole: "
    "the conversation above, the main agent's, does not hold them.",
    "branch": "Calls on another branch (rewound or edited away), each whole: "
    "the conversation above, the active chain, does not hold them.",
    "rolled-back": "Calls no longer sent (a rollback dropped them), each whole: "
    "the conversation above does not hold them.",
    "folded": UNSHOWN_CALLS,
}
UNSHOWN_ELSE = "Calls the conversation above does not hold, each whole."


class PrintedOnce:
    """Run contexts' section bodies as an export prints them: each body once, where it
    first comes; again, a note naming the run that printed it (one copy of what repeats,
    as a long run's contexts repeat their instructions every turn)."""

    def __init__(self) -> None:
        # a body's key (a digest, the text) -> each body printed under it -> the run that
        # printed it (in order: the first is the key's first run)
        self.printed: dict[object, dict[str, str]] = {}

    def section(self, run: str, name: str, key: object, label: str, body: str) -> Item:
        bodies = self.printed.setdefault(key, {})
        if not bodies:
            bodies[body] = run
            return TextBlock(label, body)
        same = bodies.get(body)  # (any body printed under it: a third run may repeat a second)
        if same is not None:
            return Note(f"section {name}: the same body as printed for run {same}")
        # (a file that breaks the digest rule: its own line's text, not a claimed sameness)
        first = next(iter(bodies.values()))
        bodies[body] = run
        differs = f"its own text, which differs from run {first}'s under the same digest"
        return TextBlock(f"{label}: {differs}", body)


def noting_calls(items: Iterable[Any], shown: set[CallKey]) -> Iterator[Any]:
    """``items`` as they are, each message's calls (``CallItem.key``, and those its blocks
    hold, ``held``) put in ``shown`` as it goes by (the conversation is written before the
    operations, which read ``shown``)."""
    for item in items:
        if isinstance(item, MessageItem):
            shown.update(call.key for call in item.calls)
            shown.update(item.held)
        yield item


# -- which call of a reused id an answer is of: one rule for every format's export --


def by_ask(asks: Sequence[int], answers: Iterable[tuple[int, _T]]) -> dict[int, list[_T]]:
    """A call id's answers, each ``(where, what)``, grouped under the ask each is of
    (``ask_of``), in their order: one pass over the id's answers, not one per call."""
    grouped: dict[int, list[_T]] = {}
    if asks:
        for at, what in answers:
            grouped.setdefault(ask_of(asks, at), []).append(what)
    return grouped


def elision_marks(elisions: Sequence[Elision], *, raw: bool, folded: bool = False) -> list[Mark]:
    """A v1 message's mark for each elision line that stubbed it (``per_line``): only the
    last one's stub is sent (``folded``: until a compaction folded it), each other's was
    until the next one's line. The raw view's marks hold the stub under the original;
    a replayed message's content is the stub sent."""
    said = per_line(elisions)
    marks = []
    for at, elision in enumerate(said, 1):
        if at < len(said):
            until = f"until the elision at line {said[at].elision_line}"
            sent = f"was sent {'the' if raw else 'its'} stub {until}"
        elif folded:  # (stubbed, then folded)
            sent = "was sent the stub before that"
        else:
            sent = "is sent the stub" if raw else "is sent this stub"
        head = f"elided by the elision at line {elision.elision_line}: "
        if raw:
            words = f"{head}the content below is the original; the model {sent}"
            marks.append(Mark("warn", words, elision.stub, "stub"))
        else:
            tail = "; the original stays in the file (raw view)" if at == len(said) else ""
            marks.append(Mark("warn", f"{head}the model {sent}{tail}"))
    return marks
