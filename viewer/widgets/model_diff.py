"""The model screen's diff: what each compaction folded and kept and each elision
stubbed, a row an item (``ModelDiff``, rows made as they are drawn), in a Line-API view
whose ``enter`` shows a row's item in the raw view and whose ``/`` searches what its rows
say (``ModelDiffView``)."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import ClassVar, overload

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message

from session_core.column_items import at_line, item_key, message_count
from session_core.diff_model import (
    RowWords,
    Unwritten,
    ids_sent,
    item_said,
    items_listed,
    row_words,
    sent_next,
    tokens_said,
)
from session_core.fold import fold, holds
from session_core.model import (
    UNSENT,
    Item,
    Transcript,
    overlay_counts,
    overlay_kind,
    unsent_said,
)
from session_core.search import TextSearch
from session_core.text import count
from session_core.view_ids import made_item

from ..safe import one_line
from .block_view import MAX_WRAPPED, Entry, LinesView, prose_height, wrap
from .diff_marks import mark_counts
from .line_list import nothing_more
from .row_search import FURTHER_ON, MATCH_STEPS, RowSearch

PREVIEW = 100  # characters of an item's text (or stub) its row shows at most
SUMMARY_SHOWN = 4000  # characters of a compaction's summary its row shows at most


class ModelDiff(Sequence[Entry]):
    """Raw versus replayed: what each compaction folded and kept, each elision stubbed; a
    row an item, made when it is drawn. (The list of every row, each item built to name
    it, took a 1 GB Claude Code session's UI thread past 15 s.)

    The rows are runs (``_runs``, each from its first row): a few rows of text, or an
    item per row of a compaction's ids, one line each (``heights``); an elision's, an
    item per two rows: as written, then what is sent in its place (``diff``'s
    ``sent:``)."""

    def __init__(self, transcript: Transcript, limit: int = 50_000) -> None:
        self._raw = transcript.raw
        self._by_id: dict[str, int] | None = None  # raw index by id, made when needed
        # (first row, rows of text) or (first row, ids, rows, style, sign, rows an id)
        self._runs: list[
            tuple[int, list[Entry]] | tuple[int, Sequence[str], int, str, str, int]
        ] = []
        self._starts: list[int] = []
        self._lines: dict[int, int] = {}  # a compaction's rows of text (first row): its line
        # ... and what it folded (its line no item's, as agentgo's context events: the
        # first of them is what enter shows, not the item before its line)
        self._folded_of: dict[int, Sequence[str]] = {}
        self._one_line: set[int] = set()  # runs of text whose rows are an item's, a line each
        # A row of text cut as drawn: its text whole (a summary's), or how it is made
        # when a search asks (an item sent on no line's: ``row_text``)
        self._whole: dict[int, str | Callable[[], str]] = {}
        self.sections: list[int] = []  # each compaction's "◆" row (``n`` / ``p``)
        # An elision's ids run (its first row) -> the ids that elision dropped: it sent
        # nothing in their place (another may stub them: each row says its own)
        self._dropped: dict[int, frozenset[str]] = {}
        self._n = 0
        raw, sent = transcript.raw, transcript.messages
        compactions = transcript.compactions
        written = count(message_count(transcript), "message")  # (the browser's "msgs")
        overlays = ", ".join(overlay_counts(compactions).said("compaction", "elision"))
        unsent = unsent_said(compactions)  # (as the header says it)
        # (every item's id read: once a snapshot's diff, and only past a compaction)
        next_sent = sent_next(transcript) if compactions else None

        # (what ``diff`` lists and counts: a line of bookkeeping is neither, as there; with
        # nothing compacted, the messages' ids read only where a line of no conversation
        # kind is there to look up: the usual transcript has none)
        def replayed() -> set[str]:
            return set(next_sent.ids if next_sent else ids_sent(transcript))

        as_written = count(items_listed(transcript, replayed), "item")
        head: list[Entry] = [
            (
                "bold",
                f"raw: {as_written} as written ({written})"
                f" · replayed: {count(len(sent), 'message')} · {overlays}"
                + (f" {unsent}" if unsent else ""),
            )
        ]
        marks = mark_counts(raw, compactions, lambda ident: self._index(ident, (), 0))
        if marks:
            listed = ", ".join(f"{n:,} {mark}" for mark, n in sorted(marks.items()))
            # (of every kind: a compaction's count below is of the messages it names,
            # this one holds the hooks, progress and bookkeeping written among them too)
            head.append(("dim", f"marked in the raw view, items of every kind: {listed}"))
        if not compactions:
            head.append(("dim", "No compaction or elision: nothing was folded."))
        self._text(head)
        unwritten = next_sent.unwritten if next_sent else []
        made = _made_by(unwritten)
        # What the model is sent that no line holds, by id: such an item in a list of ids
        # is named as the CLI names it (its line), never by its internal id.
        self._unwritten = {one.item.id: one.item for one in unwritten}
        self._words = row_words(transcript.format)  # (a row shows what follows its openings)
        for compaction in compactions:
            tokens = tokens_said(compaction)  # (as ``diff``'s ``#`` row says them)
            tokens = f" · {tokens}" if tokens else ""
            kind, verb = overlay_kind(compaction)
            trigger = one_line(compaction.trigger) if kind != "rollback" else None
            rows: list[Entry] = [
                ("", ""),
                (
                    "bold magenta",
                    f"◆ {kind}{_at_line(compaction.line)}"
                    f"{' · ' + trigger if trigger else ''}{tokens}",
                ),
            ]
            if summary := compaction.summary:  # (asked once: it may read its line again)
                self._whole[self._n + len(rows)] = summary
                rows.append(("italic", _summary_row(summary)))
            if compaction.unsent:  # (not "folded: 0 items": what it folds is not known yet)
                rows.append(("bold yellow", UNSENT))
            else:
                dropped = len(compaction.dropped)  # (of ``folded``: sent as nothing, no stub)
                said = f"{verb}: {count(len(compaction.folded) - dropped, 'item')}"
                if dropped:
                    said += f", dropped (not sent): {count(dropped, 'item')}"
                rows.append(("bold red", said))
            self.sections.append(self._n + 1)
            self._folded_of[self._n] = compaction.folded
            self._text(rows, compaction.line)
            if compaction.dropped and not compaction.unsent:
                self._dropped[self._n] = frozenset(compaction.dropped)
            self._ids(compaction.folded, limit, "red", "−", 2 if kind == "elision" else 1)
            mine = made.get(id(compaction))
            # (what it sends that no line holds is listed once, below, with its place)
            kept = _without(compaction.kept, {one.item.id for one in mine or ()})
            if kept and kept[0] == compaction.summary_id:
                # (its own summary, first of what it sends: not an old message it kept)
                self._text([("bold green", "its summary, sent next:")], compaction.line)
                self._ids(_Without(kept, [0]), limit, "green", "+")
                kept = _Without(kept, list(range(1, len(kept))))
            if kept:
                said = f"kept: {count(len(kept), 'item')}"
                self._text([("bold green", said)], compaction.line)
                self._ids(kept, limit, "green", "+")
            if mine:  # (enter: the compaction's line, whose item holds them as written)
                said = f"sent next, on no line of its own: {count(len(mine), 'item')}"
                self._text([("bold green", said)], compaction.line)
                made_rows = [_made_row(one, self._words) for one in mine]
                for row, one in enumerate(mine, self._n):
                    self._whole[row] = partial(_made_text, one, self._words)
                self._text(made_rows, compaction.line, one_line=True)

    def _text(self, rows: list[Entry], line: int = 0, one_line: bool = False) -> None:
        if line:
            self._lines[self._n] = line
        if one_line:
            self._one_line.add(self._n)
        self._starts.append(self._n)
        self._runs.append((self._n, rows))
        self._n += len(rows)

    def _ids(self, ids: Sequence[str], limit: int, style: str, sign: str, per: int = 1) -> None:
        shown = min(len(ids), limit) * per
        if shown:
            self._starts.append(self._n)
            self._runs.append((self._n, ids, shown, style, sign, per))
            self._n += shown

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, index: int) -> Entry: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Entry]: ...

    def __getitem__(self, index: int | slice) -> Entry | Sequence[Entry]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._n))]
        if index < 0:
            index += self._n
        if not 0 <= index < self._n:
            raise IndexError(index)
        run = self._runs[bisect.bisect_right(self._starts, index) - 1]
        if len(run) == 2:
            return run[1][index - run[0]]
        first, ids, _shown, style, sign, per = run
        at, row = divmod(index - first, per)
        if row:
            return self._sent_entry(first, ids, at)
        return self._item_entry(style, sign, ids, at)

    def row_text(self, index: int) -> str:
        """What row ``index`` says, its text whole where the row shows its start (an
        item's, a stub's, a summary's): what ``/`` looks for the term in, as v1's diff
        (``diff_view.row_text``) looks in each text whole. Read as ``self[index]`` is."""
        if index < 0:
            index += self._n
        if not 0 <= index < self._n:
            raise IndexError(index)
        whole = self._whole.get(index)
        if whole is not None:
            return whole if isinstance(whole, str) else whole()
        run = self._runs[bisect.bisect_right(self._starts, index) - 1]
        if len(run) == 2:
            return run[1][index - run[0]][1]
        first, ids, _shown, style, sign, per = run
        at, row = divmod(index - first, per)
        if row:
            return self._sent_entry(first, ids, at, None)[1]
        return self._item_entry(style, sign, ids, at, None)[1]

    def is_prose(self, index: int) -> bool:
        """Row ``index`` is a row of text (the head, a compaction's, its summary), not an
        item's one line: it is wrapped between words (``heights`` measures it so)."""
        run = self._runs[bisect.bisect_right(self._starts, index) - 1]
        return len(run) == 2 and run[0] not in self._one_line

    def raw_index(self, index: int) -> int | None:
        """The raw item row ``index`` is about: an item's own, or for a compaction's rows
        of text the item at its line (None: the head, or an id no line has)."""
        if not 0 <= index < self._n:
            return None
        run = self._runs[bisect.bisect_right(self._starts, index) - 1]
        if len(run) == 2:
            line = self._lines.get(run[0])
            found = -1 if line is None else at_line(self._raw, line)
            folded = self._folded_of.get(run[0])
            if folded and (found < 0 or item_key(self._raw, found)[1] != line):
                first = self._index(folded[0], folded, 0)  # (its line is no item)
                found = first if first is not None else found
            return found if found >= 0 else None
        first, ids, per = run[0], run[1], run[5]
        at = (index - first) // per
        return self._index(ids[at], ids, at)

    def heights(self, width: int, measure: Callable[[Entry], int]) -> list[int]:
        """Every row's height at ``width``: a text row measured, an item's one line."""
        out: list[int] = []
        for run in self._runs:
            if len(run) == 2 and run[0] in self._one_line:
                out.extend([1] * len(run[1]))
            elif len(run) == 2:
                out.extend(measure(entry) for entry in run[1])
            else:
                out.extend([1] * run[2])
        return out

    def _item_entry(
        self, style: str, sign: str, ids: Sequence[str], at: int, width: int | None = PREVIEW
    ) -> Entry:
        """An item's row, its text cut to ``width`` (None: whole, as searched)."""
        ident = ids[at]
        item = self._item(ident, ids, at)
        if item is None:
            item = self._unwritten.get(ident)
        if item is None:  # (one a rewrite made, then folded or dropped: where it is known)
            item = made_item(ids, at)
        if item is not None:
            return (style, _item_row(sign, item, words=self._words, width=width))
        # (an item a rewrite made that is not sent next: its line, as the CLI names one)
        line_at = getattr(ids, "line_at", None)
        line = line_at(at) if line_at is not None else 0
        where = f"line {line:,} " if line else ""
        return (style, f"  {sign} {where}(an item a rewrite made there, not sent next)")

    def _sent_entry(
        self, first: int, ids: Sequence[str], at: int, width: int | None = PREVIEW
    ) -> Entry:
        """What the elision whose ids run starts at row ``first`` sent in place of an
        item: nothing where it dropped it, else its stub (that elision's own, where its
        ids know it: agentgo's; else the item's, a Claude Code line's every result, those
        the elision did not name as written), cut to ``width`` (None: whole)."""
        if ids[at] in self._dropped.get(first, ()):
            return ("dim", "      sent: nothing (dropped)")
        stub_at = getattr(ids, "stub_at", None)
        if stub_at is not None:
            stub = stub_at(at)
        else:
            item = self._item(ids[at], ids, at)
            stub = None if item is None else item.stub
        said = "not known" if stub is None else _preview(stub, width)
        return ("dim", f"      sent: {said}")

    def _item(self, ident: str, ids: Sequence[str], at: int) -> Item | None:
        found = self._index(ident, ids, at)
        return None if found is None else self._raw[found]

    def _index(self, ident: str, ids: Sequence[str], at: int) -> int | None:
        """The raw index of that id: where the ids say it is (a format's ids that know
        their items' raw indexes), else the first raw item of that id."""
        raw = self._raw
        index_at = getattr(ids, "index_at", None)
        if index_at is not None:
            index = index_at(at)
            if 0 <= index < len(raw) and item_key(raw, index)[0] == ident:
                return int(index)
        by_id = self._by_id
        if by_id is None:  # (whole before it is kept: a search's worker asks too)
            by_id = {}
            for index in range(len(raw)):
                by_id.setdefault(item_key(raw, index)[0], index)
            self._by_id = by_id
        return by_id.get(ident)


class ModelDiffView(LinesView, RowSearch):
    """The diff (a ``ModelDiff``): enter on a row shows its item, or for a compaction's
    own rows the compaction's line, in the conversation's raw view; ``/`` finds the rows
    whose text holds the term, each text whole (``ModelDiff.row_text``)."""

    # n / N (and p) step through the compactions and elisions until the tab is searched,
    # then through its matches, as on every tab; x / X step through the compactions
    # always, as in the conversation (not [ and ], which step agentgo's runs)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,m", "show_raw", "In the raw view"),
        *MATCH_STEPS,
        Binding(
            "x,n",
            "step(1)",
            "Next compaction or elision",
            tooltip="Next compaction or elision (n too until / searches this tab)",
        ),
        Binding(
            "X,N,p",
            "step(-1)",
            "Previous compaction or elision",
            show=False,
            tooltip="Previous compaction or elision (N / p too until / searches this tab)",
        ),
    ]
    NOT_FOUND = "No row matches: / searches the diff."

    @dataclass
    class ShowRaw(Message):
        """Enter on a row: the raw item at ``index``, in the conversation's raw view."""

        index: int

    LONG = 64  # characters from which a row's height is kept from draw to draw
    KEPT = 100_000  # heights kept at most

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        # A long row's height at ``_width``, by its text's hash and length: a followed
        # 1 GB Claude Code session's 536 summaries were wrapped again at every draw
        # (0.4 s of the UI thread each).
        self._heights: dict[tuple[int, int], int] = {}
        self._width = -1

    @property
    def measured_width(self) -> int:
        """The width the long rows were last measured at (-1: not yet laid out)."""
        return self._width

    def measurer(self, width: int) -> Callable[[Entry], int]:
        if not self.size.width:  # not laid out yet: measured again once it is (its width
            return lambda _entry: 1  # then is another, and 536 summaries are not cheap)
        if width != self._width or len(self._heights) > self.KEPT:
            self._heights.clear()
            self._width = width
        known = self._heights

        def measure(entry: Entry) -> int:
            text = entry[1]
            if len(text) < self.LONG:
                return prose_height(entry, width)
            key = (hash(text), len(text))
            height = known.get(key)
            if height is None:
                height = known[key] = prose_height(entry, width)
            return height

        return measure

    def show(self, diff: ModelDiff) -> None:
        """A snapshot's diff. The cursor and the scroll stay where they were (a followed
        file's draws took them back to the top each time), on the last row if it was."""
        if self.cursor < 0 or not self.entries:
            self.set_entries(diff)
        else:
            self.entries = diff
            self.reload()
        self.search_again()  # (a snapshot's rows: others, or the same in other places)

    # -- searching (``RowSearch``) ------------------------------------------------------

    def search(self, term: str) -> None:
        self.highlight = fold(term)  # (where a row shows it)
        super().search(term)

    def search_source(self) -> Sequence[Entry]:
        return self.entries

    def block_lines(self, index: int, width: int) -> list[Text]:
        entries = self.entries
        style, text = entries[index]
        # (a summary, a compaction's head: prose, wrapped between words; an item's row
        # is one line, cut)
        prose = isinstance(entries, ModelDiff) and entries.is_prose(index)
        lines = wrap(text, width, style, words=prose)
        term = self.highlight
        shown = lines[: self.heights.height(index)]
        hidden = shown and not any(holds(line.plain, term) for line in shown)
        if (
            term
            and hidden
            and self.is_match(index)
            and not _whole_hold(text, shown, width, prose, term)
        ):
            # (a row shows the start of its text: the match is further on)
            note = Text(f" {FURTHER_ON}", style="dim")
            shown[-1].truncate(max(width - note.cell_len, 0))
            shown[-1].append_text(note)
            shown[-1].truncate(width, overflow="ellipsis")
        return lines

    def finder(self, term: str) -> TextSearch:
        return TextSearch(term, _row_text)

    def holds_cursor(self, index: int) -> bool:
        """Not a blank row (the one before each compaction's): it says nothing."""
        return 0 <= index < len(self.entries) and bool(self.entries[index][1])

    def action_step(self, step: int) -> None:
        """The cursor to the next (or previous) compaction or elision's row."""
        entries = self.entries
        sections = entries.sections if isinstance(entries, ModelDiff) else []
        cursor = self.cursor
        found = (
            next((row for row in sections if row > cursor), None)
            if step > 0
            else next((row for row in reversed(sections) if row < cursor), None)
        )
        if found is None:
            said = nothing_more("compaction or elision", step, cursor in sections)
            self.notify(said, timeout=2)
            return
        self.move_to(found)

    def action_show_raw(self) -> None:
        entries = self.entries
        index = entries.raw_index(self.cursor) if isinstance(entries, ModelDiff) else None
        if index is None:
            self.notify("This row names no line of the file.", timeout=2)
        else:
            self.post_message(self.ShowRaw(index))


def _summary_row(summary: str) -> str:
    """A compaction's summary as its row shows it: its first ``SUMMARY_SHOWN``
    characters, and how many more there are (it was cut there with no mark)."""
    more = len(summary) - SUMMARY_SHOWN
    if more <= 0:
        return summary
    return f"{summary[:SUMMARY_SHOWN]} … ({more:,} more characters: enter shows it in the raw view)"


def _made_by(unwritten: list[Unwritten]) -> dict[int, list[Unwritten]]:
    """What each compaction (by ``id``) sends next that no line holds, in the order sent
    (``diff``'s rule: ``sent_next``). One of no compaction is not listed: agentgo's
    summary that no message committed, which agentgo's own diff places in its request."""
    made: dict[int, list[Unwritten]] = {}
    for one in unwritten:
        if one.sender is not None:
            made.setdefault(id(one.sender), []).append(one)
    return made


class _Without(Sequence[str]):
    """A compaction's ids but some, each still found where its list says it is
    (``index_at``, ``line_at``)."""

    def __init__(self, ids: Sequence[str], keep: list[int]) -> None:
        self._ids, self._keep = ids, keep

    def __len__(self) -> int:
        return len(self._keep)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...

    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self._ids[self._keep[index]]

    def index_at(self, index: int) -> int:
        index_at = getattr(self._ids, "index_at", None)
        return -1 if index_at is None else int(index_at(self._keep[index]))

    def line_at(self, index: int) -> int:
        line_at = getattr(self._ids, "line_at", None)
        return 0 if line_at is None else int(line_at(self._keep[index]))


def _without(ids: Sequence[str], dropped: set[str]) -> Sequence[str]:
    """``ids`` without those ``dropped`` (as they are where none is)."""
    if not dropped:
        return ids
    return _Without(ids, [at for at, ident in enumerate(ids) if ident not in dropped])


def _whole_hold(text: str, shown: list[Text], width: int, words: bool, term: str) -> bool:
    """Do the lines of ``text`` that ``shown`` (its first rows, wrapped at ``width``)
    shows whole hold ``term``, as written: a term over a soft wrap (the end of one row,
    the start of the next) is on screen, no row alone holds it."""
    rows, kept = len(shown), []
    for line in text.split("\n"):
        made = len(wrap(line, width, words=words))
        rows -= made
        if rows < 0 or made >= MAX_WRAPPED:  # (at the cap: the rest of it not drawn)
            break
        kept.append(line)
    return holds("\n".join(kept), term)


def _row_text(entries: Sequence[Entry], index: int) -> str:
    """A diff's row's text as searched: whole (``ModelDiff.row_text``)."""
    if isinstance(entries, ModelDiff):
        return entries.row_text(index)
    return entries[index][1]


def _made_row(one: Unwritten, words: RowWords) -> Entry:
    """An item a compaction sends that no line holds, with its place (the words of
    ``diff``'s ``+`` row, ``[27 of 40 in its place]``, before its text: not cut off)."""
    return ("green", _made_text(one, words, PREVIEW))


def _made_text(one: Unwritten, words: RowWords, width: int | None = None) -> str:
    """``_made_row``'s text, cut to ``width`` (None: whole)."""
    return _item_row("+", one.item, f" [{one.place}]", words, width)


def _item_row(
    sign: str,
    item: Item,
    place: str = "",
    words: RowWords | None = None,
    width: int | None = PREVIEW,
) -> str:
    """An item's row: what it says (``item_said``, as ``diff``'s row), cut to ``width``
    (None: whole)."""
    preview = item_said(item, words) or next((p.name or p.kind for p in item.parts), item.kind)
    where = f"line {item.line:,} " if item.line else ""
    return f"  {sign} {where}{item.role}{place}: {_preview(preview, width)}"


def _at_line(line: int) -> str:
    """`` at line 12``; nothing where its line is not known (0: the file's end read
    alone, its lines counted from the window's first: ``lines_not_known``)."""
    return f" at line {line:,}" if line else ""


def _preview(text: str, width: int | None) -> str:
    """``text`` on one line, cut to ``width`` (None: whole, as it is: what a search
    looks in, newlines and all)."""
    return text if width is None else one_line(text, width)


__all__ = ["ModelDiff", "ModelDiffView"]
