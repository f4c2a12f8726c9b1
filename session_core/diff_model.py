"""``tailscope diff`` for any model format: every line as written beside what the model
is sent next, with what each compaction folded and each elision stubbed."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from .cells import clip_cells, pad_cells, words_for
from .column_items import Items, item_key
from .model import Compaction, Item, Part, Transcript, overlay_counts, overlay_kind
from .parts import reasoning_said
from .search import call_said
from .text import count, count_text, line_pieces, name_line, one_line
from .view_ids import ViewIds
from .vocabulary import Readable, Words, gist, kinds_of, openings_of, readable_of, shown_text


def model_diff(transcript: Transcript) -> Iterator[str]:
    """The diff's text, a batch of lines at a time, as they are made."""
    return line_pieces(_lines(transcript))


@dataclass(frozen=True, slots=True)
class Unwritten:
    """An item the model is sent next that no line as written holds (a Codex replacement
    history's own item) and the compaction that sends it: the last one that kept it, else
    the one whose line made it (None: none does), with its place among all that
    compaction sends in place of what it folded."""

    item: Item
    position: int  # its place in what is sent next
    sender: Compaction | None = None
    place: str = ""  # "27 of 40 in its place" (one with a sender)


@dataclass(frozen=True, slots=True)
class SentNext:
    """What the model is sent next: every item's id in order, and those no line holds;
    ``beside``: items of no id of a line's own that share a line sent next and no
    compaction made (a Codex ``item_completed`` call's result: sent as a message of its
    own, written on its call's line), by that line, in the order sent."""

    ids: list[str]
    unwritten: list[Unwritten]
    beside: dict[int, list[Item]] = field(default_factory=dict)


def ids_sent(transcript: Transcript) -> list[str]:
    """Every id the model is sent next, in order (none built)."""
    messages = transcript.messages
    return [item_key(messages, index)[0] for index in range(len(messages))]


def sent_next(transcript: Transcript) -> SentNext:
    """The ids sent next and the items of them no line as written holds, in the order
    sent (``diff``'s ``+`` rows and the Diff tab's): one pass over the raw items' ids and
    the sent ones', no item built but those no line holds."""
    raw, messages = transcript.raw, transcript.messages
    written = {item_key(raw, index)[0] for index in range(len(raw))}
    ids = ids_sent(transcript)
    made = [(at, messages[at]) for at, ident in enumerate(ids) if ident not in written]
    if not made:
        return SentNext(ids, [])
    made_at = {c.line: c for c in transcript.compactions if c.line and c.kind == "compaction"}
    beside = _beside(transcript, made, made_at, set(ids))
    if beside:
        shared = {id(item) for items in beside.values() for item in items}
        made = [(at, item) for at, item in made if id(item) not in shared]
    owner: dict[str, Compaction] = {}
    for _, item in made:
        if item.line in made_at:
            owner[item.id] = made_at[item.line]
    theirs = {item.id for _, item in made}
    for compaction in transcript.compactions:
        for ident in theirs.intersection(compaction.kept):
            owner[ident] = compaction  # (a later compaction that kept it sends it now)
    places = _places(owner, ids)
    unwritten = []
    for at, item in made:
        sender = owner.get(item.id)
        place = "" if sender is None else place_said(*places[at], "in its place")
        unwritten.append(Unwritten(item, at, sender, place))
    return SentNext(ids, unwritten, beside)


def _beside(
    transcript: Transcript,
    made: list[tuple[int, Item]],
    made_at: Mapping[int, Compaction],
    sent: set[str],
) -> dict[int, list[Item]]:
    """``SentNext.beside``: of the ``made`` items, those on a line no compaction is on
    whose own item is sent next."""
    lines = {item.line for _, item in made if item.line and item.line not in made_at}
    if not lines:
        return {}
    raw = transcript.raw
    shared = set()
    for index in range(len(raw)):
        ident, line = item_key(raw, index)
        if line in lines and ident in sent:
            shared.add(line)
    beside: dict[int, list[Item]] = {}
    for _, item in made:
        if item.line in shared:
            beside.setdefault(item.line, []).append(item)
    return beside


def place_said(rank: int, total: int, among: str) -> str:
    """Where an item is among what is sent (``rank`` from 1), in the words of ``diff``'s
    rows in every format: ``27 of 40 in its place`` (among what a Codex compaction sends),
    ``1 of 2 in the request`` (agentgo), ``2 of 5 sent next`` (a v1 summary)."""
    return f"{rank} of {total} {among}"


def tokens_said(compaction: Compaction) -> str:
    """A compaction's (or a Claude Code microcompact's) context tokens, as ``diff``'s
    ``#`` row and the Diff tab's ``◆`` row say them: ``2,010 → 310 tok`` (before it
    ``?`` where unknown), ``170,251 tok before`` with none after; none known: empty."""
    before, after = compaction.tokens_before, compaction.tokens_after
    if after:  # (each a count, else its JSON: ``count_text``)
        return f"{count_text(before)} → {count_text(after)} tok"
    return "" if before is None else f"{count_text(before)} tok before"


def _lines(transcript: Transcript) -> Iterator[str]:
    raw = transcript.raw
    sent = sent_next(transcript)
    said = row_words(transcript.format)
    replayed = set(sent.ids)
    placed = _placed(sent.unwritten, said, _made_dropped(transcript.compactions))
    # A conversation's line not sent next is listed ``-`` (a meta line, a command, a
    # queued prompt or an error line too, as the legend says; bookkeeping lines are not).
    kinds = kinds_of(transcript.format)
    listed = kinds.message | kinds.conversation
    yield from [
        f"{name_line(transcript.path)}: {transcript.format}, "
        f"{count(items_listed(transcript, lambda: replayed), 'item')} as written, "
        f"{count(len(sent.ids), 'item')} sent next, "
        + ", ".join(overlay_counts(transcript.compactions).said("compaction", "elision")),
        "",
        "  = sent next   - not sent (folded, rolled back, another branch, a sidechain, meta, "
        "queued, an error)   ~ sent as a stub   # a compaction, elision or rollback",
        *(
            [
                "  + sent next, on no line of its own: listed under the compaction that sends "
                "it, with its place among what it sends in place of what it folded"
            ]
            if sent.unwritten
            else []
        ),
        "",
    ]
    marks = {c.line: c for c in transcript.compactions if c.line}
    for item in raw:
        mark = marks.get(item.line)
        if mark is not None:
            kind, did = overlay_kind(mark)
            triggered = bool(mark.trigger) and kind != "rollback"
            extra = f", trigger {one_line(mark.trigger)}" if triggered else ""
            tokens = tokens_said(mark)  # (a rollback's: the context it dropped from)
            extra += f", {tokens}" if tokens else ""
            yield f"# line {item.line}: {kind}, {did} {count(len(mark.folded), 'item')}{extra}"
        while placed and placed[-1][0] <= item.line:
            yield placed.pop()[1]
        note = ""
        if item.id in replayed:
            sign = "~" if "elided" in item.marks else "="
        elif item.kind in listed:
            sign = "-"
            if not item.marks and item.kind in kinds.conversation:
                # (no mark says why: its kind does, a line the model is never sent as it
                # is written, ``[meta]``, ``[queued]``: a queued prompt's delivery is sent)
                note = item.kind
        else:
            continue
        yield f"{sign} {_row(item, note, said)}"
        if sign == "~" and item.stub is not None:  # (the row is the original, as written)
            yield sent_row(item.stub)
        if sign == "=":  # (what its line sends as messages of their own: a call's result)
            yield from (f"= {_row(one, '', said)}" for one in sent.beside.pop(item.line, ()))
    while placed:
        yield placed.pop()[1]


def items_listed(transcript: Transcript, replayed: Callable[[], AbstractSet[str]]) -> int:
    """How many of the items as written ``diff`` gives a row (sent next, or a conversation
    line not sent): what it counts of them, and the Diff tab's head with it (one count,
    ``1,303 items as written``). A line of bookkeeping (an event, a record: a Codex
    ``record_type`` marker) has none, so none is counted, in any format. ``replayed()``:
    the ids sent next (``ids_sent``), asked only where a line of no conversation kind is
    there to look up (the usual transcript has none: no set of every id sent is built)."""
    kinds = kinds_of(transcript.format)
    listed = kinds.message | kinds.conversation
    raw = transcript.raw
    if isinstance(raw, Items):  # (none built: a 1 GB session's kinds asked once a pair)
        others = raw.having(lambda _role, kind: kind not in listed)
        if not len(others):
            return len(raw)
        ids = replayed()
        kept = sum(1 for at in range(len(others)) if item_key(others, at)[0] in ids)
        return len(raw) - len(others) + kept
    other = [item.id for item in raw if item.kind not in listed]
    if not other:
        return len(raw)
    ids = replayed()
    return len(raw) - len(other) + sum(1 for one in other if one in ids)


def _made_dropped(compactions: Sequence[Compaction]) -> list[Item]:
    """The items a rewrite made on no line of their own (a Codex replacement history's)
    that a later one dropped (a rollback) or folded (a compaction), where its ids know
    them (``ViewIds.item_at``), in the order dropped: not sent next, nor in the raw
    view, they were on no row."""
    out: list[Item] = []
    for compaction in compactions:
        folded = compaction.folded
        if isinstance(folded, ViewIds):
            found = (folded.item_at(at) for at in range(len(folded)))
            out += [item for item in found if item is not None]
    return out


def _placed(
    unwritten: list[Unwritten], said: RowWords, dropped: Sequence[Item] = ()
) -> list[tuple[int, str]]:
    """The ``+`` rows of the items sent next that no line holds, each with the line it is
    listed at, last first: its compaction's, right under its ``#`` row, in the order the
    model is sent them; an item of no compaction, its own line. (Listed after every line,
    they were read as sent after the file's last message.) Then the ``-`` rows of those
    made and later ``dropped`` (``_made_dropped``), under the line that made them."""
    rows = [
        (
            u.item.line if u.sender is None else u.sender.line,
            u.position,
            f"+ {_row(u.item, u.place, said)}",
        )
        for u in unwritten
    ]
    after = len(unwritten)  # (below those sent, in the order they were dropped)
    rows += [(item.line, after + n, f"- {_row(item, '', said)}") for n, item in enumerate(dropped)]
    rows.sort(reverse=True)
    return [(line, row) for line, _, row in rows]


def _places(owner: dict[str, Compaction], sent: list[str]) -> dict[int, tuple[int, int]]:
    """For each item ``owner`` names, by its place in ``sent``: its rank (from 1) among
    what its compaction sends next, the items it kept and made, and how many those are."""
    places: dict[int, tuple[int, int]] = {}
    for compaction in {id(c): c for c in owner.values()}.values():
        theirs = set(compaction.kept) | {i for i, c in owner.items() if c is compaction}
        at = [position for position, ident in enumerate(sent) if ident in theirs]
        for rank, position in enumerate(at, 1):
            if owner.get(sent[position]) is compaction:
                places[position] = (rank, len(at))
    return places


@dataclass(frozen=True, slots=True)
class RowWords:
    """A format's words a row of its items is said in (``item_said``): the fixed words
    its writer opens an item's text with, and its readable form of a wrapped text."""

    openings: Mapping[str, Words]
    readable: Readable


def row_words(fmt: str) -> RowWords:
    """Format ``fmt``'s ``RowWords`` (a name no format has: none, texts as written)."""
    return RowWords(openings_of(fmt), readable_of(fmt))


def _row(item: Item, note: str, said: RowWords) -> str:
    """An item's row (``item_said``), its marks and ``note`` (its place, why it is not
    sent) after it."""
    why = ", ".join([*item.marks, *([note] if note else [])])
    why = f" [{why}]" if why else ""
    role = pad_cells(one_line(item.role), 9)  # (by cells, as ``diff``'s every column)
    text = item_said(item, said)
    return f"line {item.line:>6} {role} {_clipped(text)}{why}"


def item_said(item: Item, words: RowWords | None = None) -> str:
    """What an item's one row says (``diff``'s, the Diff tab's), in its format's ``words``
    (None: as written): its text as shown (``shown_text``: a Claude Code command as
    typed), past its format's fixed openings (``gist``); where its text is blank (a
    response that opens with blank lines, then thinks and calls), its first tool call as
    the conversation names it (``→ Bash bd ready``: a call, not something it said; a
    call a server ran as well, ``Part.is_call``), else
    its first other part that says something (``← result …``, ``[reasoning] …``);
    nothing: empty."""
    text = (item.text if words is None else shown_text(item, words.readable)).strip()
    if text:
        return gist(text, item.kind, words.openings) if words else text
    for part in item.parts:
        if part.is_call:  # (a server's call too: ``→ web_search …``, not its input's JSON)
            return call_said(part)
    for part in item.parts:
        said = _part_said(part)
        if said:
            return said
    return ""


def _part_said(part: Part) -> str:
    """A part that is no text, on a row: a result as the conversation's row names it
    (``← result …``), reasoning said so, another part's text; blank: nothing. Its first
    lines (``Part.row_head``), and ``…`` where more follows (a result of 40 lines read as
    if its 3 were all)."""
    head, more = part.row_head()
    head = head.strip()
    if more:
        head = f"{head} …" if head else "…"
    if not head:  # (reasoning of no text is said so, as the viewer's row says it)
        return f"[{reasoning_said(part)}]" if part.kind == "reasoning" else ""
    if part.kind == "tool-result":
        return f"← {'error' if part.is_error else 'result'} {head}"
    return f"[reasoning] {head}" if part.kind == "reasoning" else head


def sent_row(text: str) -> str:
    """The row under a ``~`` row (the original, as written): what the model is sent in
    its place, in every format's ``diff`` (``sent:     [result elided]``)."""
    return f"{'':10}sent:     {_clipped(text)}"


def _clipped(text: str) -> str:
    """On one line, inert, at most 72 cells."""
    return clip_cells(one_line(words_for(text, 72)), 72)
