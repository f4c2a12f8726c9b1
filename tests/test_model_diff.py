"""The model screen's diff (``ModelDiff``): every row what building every item would give,
and none built to count, measure or place them (a 1 GB Claude Code session's diff took
its UI thread past 15 s; now 0.7 s)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from claude_code_writer import CCWriter
from claude_code_writer import story as cc_story
from codex_writer import story as codex_story
from format_fixtures import FACTORIES
from test_claude_code_compactions import compacted

from session_core.diff_model import item_said, row_words
from session_core.formats import by_name
from session_core.item_column import ItemColumn
from session_core.model import Compaction, Item, Transcript
from session_core.text import count
from session_core.vocabulary import kinds_of
from viewer.safe import one_line
from viewer.widgets.block_view import entry_height
from viewer.widgets.model_diff import ModelDiff


def files(tmp_path: Path) -> list[tuple[str, Path]]:
    w = CCWriter()
    compacted(w, 8)
    out = [("claude-code", w.write(tmp_path / "compacted.jsonl"))]
    out.append(("claude-code", cc_story(tmp_path / "cc")))
    codex = tmp_path / "rollout-2026-01-01T00-00-00-a.jsonl"
    codex_story(codex)
    out.append(("codex", codex))
    for name in ("agentgo-v1", "transcript-v1"):
        folder = tmp_path / name
        folder.mkdir()
        out.append((name, FACTORIES[name](folder)))
    return out


def every_row(t: Transcript, limit: int = 50_000) -> list[tuple[str, str]]:
    """The diff as the list it was: every item built to count marks and name rows."""
    raw = list(t.raw)
    marks: dict[str, int] = {}
    for item in raw:
        for mark in item.marks:
            marks[mark] = marks.get(mark, 0) + 1
    by_id: dict[str, Item] = {}
    for item in raw:
        by_id.setdefault(item.id, item)
    compactions = t.compactions
    kinds = [c.kind for c in compactions]
    elisions = kinds.count("elision")
    # (each elision once, with the messages they stubbed each once: these have no unsent)
    stubbed = {i for c in compactions if c.kind == "elision" for i in c.folded}
    # (the items ``diff`` lists: sent next, or a conversation line; bookkeeping is not)
    sent_ids = {m.id for m in t.messages}
    lines = kinds_of(t.format).message | kinds_of(t.format).conversation
    shown = sum(i.id in sent_ids or i.kind in lines for i in raw)
    out = [
        (
            "bold",
            f"raw: {count(shown, 'item')} as written "
            f"({count(sum(i.kind in kinds_of(t.format).message for i in raw), 'message')}) · "
            f"replayed: {count(len(t.messages), 'message')} · "
            f"{count(kinds.count('compaction'), 'compaction')}, "
            f"{count(elisions, 'elision')}"
            + (f" ({count(len(stubbed), 'message')} stubbed)" if elisions else ""),
        )
    ]
    if marks:
        listed = ", ".join(f"{n:,} {mark}" for mark, n in sorted(marks.items()))
        out.append(("dim", f"marked in the raw view, items of every kind: {listed}"))
    if not compactions:
        out.append(("dim", "No compaction or elision: nothing was folded."))

    words = row_words(t.format)
    # (what is sent that no line holds, named by its line; else the line that made it)
    unwritten = {m.id: m for m in t.messages if m.id not in by_id}

    def preview_of(item: Item) -> str:
        said = item_said(item, words)
        return said or next((p.name or p.kind for p in item.parts), item.kind)

    def row(style: str, sign: str, ids: Sequence[str], at: int) -> tuple[str, str]:
        ident = ids[at]
        item = by_id.get(ident) or unwritten.get(ident)
        if item is None:
            line = ids.line_at(at) if hasattr(ids, "line_at") else 0
            where = f"line {line:,} " if line else ""
            return (style, f"  {sign} {where}(an item a rewrite made there, not sent next)")
        return (
            style,
            f"  {sign} line {item.line:,} {item.role}: {one_line(preview_of(item), 100)}",
        )

    def sent_row(ident: str) -> tuple[str, str]:
        item = by_id.get(ident)
        stub = None if item is None else item.stub
        return ("dim", f"      sent: {'not known' if stub is None else one_line(stub, 100)}")

    made = sent_unwritten(t, set(by_id))
    for c in compactions:
        out.append(("", ""))
        out.append(("bold magenta", ""))  # (the header: compared as ModelDiff makes it)
        if c.summary:
            more = f" … ({len(c.summary) - 4000:,} more characters: enter shows it in the raw view)"
            out.append(("italic", c.summary[:4000] + (more if len(c.summary) > 4000 else "")))
        out.append(("bold red", ""))
        folded = list(c.folded)
        for at in range(min(len(folded), limit)):
            out.append(row("red", "−", c.folded, at))
            if c.kind == "elision":  # (what is sent in its place, under it)
                out.append(sent_row(folded[at]))
        mine = [(item, place) for item, sender, place in made if sender is c]
        theirs = {item.id for item, _place in mine}  # (listed below, not as kept too)
        kept = [at for at, ident in enumerate(c.kept) if ident not in theirs]
        if kept and c.kept[kept[0]] == c.summary_id:  # (its own summary: said so)
            out.append(("bold green", "its summary, sent next:"))
            out.append(row("green", "+", c.kept, kept.pop(0)))
        if kept:
            out.append(("bold green", ""))
            out.extend(row("green", "+", c.kept, at) for at in kept[:limit])
        if mine:
            out.append(
                ("bold green", f"sent next, on no line of its own: {count(len(mine), 'item')}")
            )
            for item, place in mine:
                preview = preview_of(item)
                text = f"  + line {item.line:,} {item.role} [{place}]: {one_line(preview, 100)}"
                out.append(("green", text))
    return out


def sent_unwritten(t: Transcript, written: set[str]) -> list[tuple[Item, Compaction | None, str]]:
    """Each item sent next that no line holds, every item built: its compaction (the
    last that kept it, else the one made at its line) and its place among what that one
    sends (its kept items and those it sends of these)."""
    sent = list(t.messages)
    made = [item for item in sent if item.id not in written]
    sender: dict[str, Compaction | None] = {}
    for item in made:
        at = [c for c in t.compactions if c.kind == "compaction" and c.line == item.line]
        kept = [c for c in t.compactions if item.id in list(c.kept)]
        sender[item.id] = kept[-1] if kept else (at[0] if at else None)
    out: list[tuple[Item, Compaction | None, str]] = []
    for item in made:
        c = sender[item.id]
        if c is None:
            out.append((item, None, ""))
            continue
        theirs = [m.id for m in sent if m.id in list(c.kept) or sender.get(m.id) is c]
        out.append((item, c, f"{theirs.index(item.id) + 1} of {len(theirs)} in its place"))
    return out


@pytest.mark.parametrize("limit", [50_000, 2])
def test_every_row_is_what_building_every_item_gives(tmp_path: Path, limit: int) -> None:
    seen_compaction = False
    for name, path in files(tmp_path):
        t = by_name(name).open(str(path), writer_alive=False)
        seen_compaction = seen_compaction or bool(t.compactions)
        diff = ModelDiff(t, limit)
        mine, theirs = list(diff), every_row(t, limit)
        assert len(mine) == len(theirs) == len(diff), path
        for (style, text), (want_style, want_text) in zip(mine, theirs, strict=True):
            assert style == want_style, path
            if want_text or not want_style.startswith("bold "):
                assert text == want_text, path
        assert [diff[i] for i in range(-min(3, len(mine)), 0)] == mine[-3:]
        assert diff[1 : len(diff) : 2] == mine[1::2]
        for width in (40, 150):
            heights = diff.heights(width, lambda e, w=width: entry_height(e, w))
            items = {
                i
                for i, (_s, text) in enumerate(mine)
                if text.startswith(("  −", "  +", "      sent: "))
            }
            assert heights == [
                1 if i in items else entry_height(e, width) for i, e in enumerate(mine)
            ]
    assert seen_compaction


def test_no_item_is_built_to_count_measure_or_place_the_rows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = CCWriter()
    compacted(w, 8)
    path = w.write(tmp_path / "compacted.jsonl")
    t = by_name("claude-code").open(str(path), writer_alive=False)
    built: list[int] = []
    real = ItemColumn.item
    monkeypatch.setattr(ItemColumn, "item", lambda self, i: built.append(i) or real(self, i))
    diff = ModelDiff(t)
    diff.heights(80, lambda e: entry_height(e, 80))
    assert built == [] and len(diff) > 30
    row = next(i for i in range(len(diff)) if diff[i][1].startswith("  −"))
    assert len(built) == 1 and diff[row][1].startswith("  − line ")


def test_diff_and_the_tab_say_a_compactions_tokens_alike(tmp_path: Path) -> None:
    """``diff``'s ``#`` row says a compaction's tokens (a microcompact's too, its
    ``tokensSaved`` as what is left) as the Diff tab's ``◆`` row does: one rule,
    ``tokens_said`` (the Claude Code and Codex rows left them out; agentgo's ``diff``
    and v1's are their own, each saying its tokens)."""
    from session_core.diff_model import tokens_said

    said: set[str] = set()
    for name, path in files(tmp_path):
        if name not in ("claude-code", "codex"):
            continue
        fmt = by_name(name)
        t = fmt.open(str(path))
        heads = [r for r in fmt.diff(path).splitlines() if r.startswith("# line ")]
        tab = [row for _style, row in ModelDiff(t) if row.startswith("◆")]
        for c in t.compactions:
            tokens = tokens_said(c)
            (head,) = [r for r in heads if r.startswith(f"# line {c.line}: ")]
            (row,) = [r for r in tab if f" at line {c.line:,}" in r]
            assert (f", {tokens}" in head) == bool(tokens) == (f" · {tokens}" in row), (head, row)
            said.add(f"{name} {'→' if '→' in tokens else tokens[-6:]}")
    assert {"claude-code before", "claude-code →", "codex →"} <= said, said


def test_diff_counts_as_written_the_items_it_lists(tmp_path: Path) -> None:
    """Its head's "N items as written" is its rows of lines as written: a line of
    bookkeeping (an event, a record: a mid-2025 rollout's ``record_type`` markers) is
    neither listed nor counted (it counted a rollout's 3 markers, and its 22 events,
    and listed none)."""
    real = Path(__file__).parent / "fixtures" / "codex-real"
    paths = [(fmt, path) for fmt, path in files(tmp_path) if fmt in ("claude-code", "codex")]
    paths += [("codex", real / "bare-0.34.jsonl"), ("codex", real / "wrapped-0.46.jsonl")]
    for fmt, path in paths:
        head, *rows = "".join(by_name(fmt).diff_chunks(path)).splitlines()
        listed = [row for row in rows if row[:7] in ("= line ", "- line ", "~ line ")]
        assert f", {count(len(listed), 'item')} as written, " in head, (path, head)
        # ... and the Diff tab's head says the same count (it said every raw item's)
        tab = ModelDiff(by_name(fmt).open(path, writer_alive=False))[0][1]
        assert tab.startswith(f"raw: {count(len(listed), 'item')} as written ("), (path, tab)
    head = "".join(by_name("codex").diff_chunks(real / "bare-0.34.jsonl")).splitlines()[0]
    assert ": codex, 7 items as written, 6 items sent next," in head


def test_reasoning_of_no_text_is_said_so_by_the_diff_as_by_the_viewer_and_exports(
    tmp_path: Path,
) -> None:
    """A mid-2025 rollout's reasoning item with an empty summary (line 4): the viewer
    read ``▸ reasoning (no text)``, the exports ``reasoning (no text)``, and ``diff`` a
    blank row; all say it in one wording now (``reasoning_said``)."""
    from codex_writer import legacy_story

    from session_core.export import export

    path = tmp_path / "rollout-2025-08-20T13-20-47-old.jsonl"
    legacy_story(path)
    codex = by_name("codex")
    (row,) = [r for r in "".join(codex.diff_chunks(path)).splitlines() if "line      4" in r]
    assert row == "= line      4 assistant [reasoning (no text)]", row
    assert "**reasoning \\(no text\\)**" in export(path, "md")
    assert ">reasoning (no text)<" in export(path, "html")


def test_the_tab_reads_the_ids_sent_only_for_a_line_of_bookkeeping(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Diff tab is built again on every snapshot: with nothing compacted, it reads
    every id sent next (``ids_sent``) only where a line of no conversation kind is there
    to look up (``items_listed`` asks), not for every transcript (review r2, finding 4).
    Its head still counts what it did."""
    import viewer.widgets.model_diff as model_diff

    real = model_diff.ids_sent
    calls: list[int] = []
    monkeypatch.setattr(model_diff, "ids_sent", lambda t: calls.append(1) or real(t))
    from session_core.formats import format_of

    real_ones = sorted((Path(__file__).parent / "fixtures").glob("*/*.jsonl"))
    asked = {}
    for path in [p for _name, p in files(tmp_path)] + real_ones:
        fmt = format_of(str(path))
        assert fmt is not None
        t = fmt.open(str(path), writer_alive=False)
        if t.compactions:
            continue
        calls.clear()
        listed = kinds_of(t.format).message | kinds_of(t.format).conversation
        diff = ModelDiff(t)
        sent = {m.id for m in t.messages}
        shown = sum(i.id in sent or i.kind in listed for i in t.raw)
        assert diff[0][1].startswith(f"raw: {count(shown, 'item')} as written ")
        asked[path.name] = bool(calls)
        assert asked[path.name] == any(item.kind not in listed for item in t.raw), path
    assert set(asked.values()) == {False, True}  # (each case is read: one with, one without)
