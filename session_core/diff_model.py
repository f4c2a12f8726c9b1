"""``tailscope diff`` for any model format: every line as written beside what the model
is sent next, with what each compaction folded and each elision stubbed."""

from __future__ import annotations

from collections.abc import Iterator

from .cells import clip_cells, pad_cells, words_for
from .model import Item, Transcript, overlay_counts, overlay_kind
from .text import count, line_pieces, name_line, one_line
from .vocabulary import kinds_of


def model_diff(transcript: Transcript) -> Iterator[str]:
    """The diff's text, a batch of lines at a time, as they are made."""
    return line_pieces(_lines(transcript))


def _lines(transcript: Transcript) -> Iterator[str]:
    replayed = {item.id for item in transcript.messages}
    # A conversation's line not sent next is listed ``-`` (a meta line, a command or a
    # queued prompt too, as the legend says; bookkeeping lines are not listed).
    kinds = kinds_of(transcript.format)
    listed = kinds.message | kinds.conversation
    yield from [
        f"{name_line(transcript.path)}: {transcript.format}, "
        f"{count(len(transcript.raw), 'item')} as written, "
        f"{count(len(transcript.messages), 'item')} sent next, "
        + ", ".join(overlay_counts(transcript.compactions).said("compaction", "elision")),
        "",
        "  = sent next   - not sent (folded, rolled back, another branch, a sidechain, meta)   "
        "~ sent as a stub   # a compaction, elision or rollback",
        "",
    ]
    marks = {c.line: c for c in transcript.compactions if c.line}
    shown: set[str] = set()  # the raw items' ids: a sent item of none is listed after them
    for item in transcript.raw:
        shown.add(item.id)
        mark = marks.get(item.line)
        if mark is not None:
            kind, did = overlay_kind(mark)
            extra = f", trigger {mark.trigger}" if mark.trigger and kind != "rollback" else ""
            yield f"# line {item.line}: {kind}, {did} {count(len(mark.folded), 'item')}{extra}"
        if item.id in replayed:
            sign = "~" if "elided" in item.marks else "="
        elif item.kind in listed:
            sign = "-"
        else:
            continue
        yield f"{sign} {_row(item)}"
        if sign == "~" and item.stub is not None:  # (the row is the original, as written)
            yield f"{'':10}sent:     {_clipped(item.stub)}"
    for item in transcript.messages:
        if item.id not in shown:  # sent next, but no line as written (a summary, an item
            yield f"+ {_row(item)}"  # of a replacement history that no line holds)


def _row(item: Item) -> str:
    why = f" [{', '.join(item.marks)}]" if item.marks else ""
    role = pad_cells(one_line(item.role), 9)  # (by cells, as ``diff``'s every column)
    return f"line {item.line:>6} {role} {_clipped(item.text or _first(item))}{why}"


def _clipped(text: str) -> str:
    """On one line, inert, at most 72 cells."""
    return clip_cells(one_line(words_for(text, 72)), 72)


def _first(item: Item) -> str:
    for part in item.parts:
        if part.text:
            return f"[{part.kind}] {part.text}"
    return ""
