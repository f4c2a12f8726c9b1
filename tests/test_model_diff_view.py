"""The model screen's Diff tab, driven as a person would: enter on a row shows its item
(or its compaction's line) in the raw view, and a followed file's draws leave the
cursor where it was."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import zstandard
from codex_helpers import CODEX
from codex_writer import RolloutWriter, message_payload
from helpers import screen_lines, screen_text
from model_screen_helpers import IDLE, opened, toy, until
from textual.geometry import Size

from session_core.column_items import at_line
from session_core.diff_model import model_diff as text_diff
from session_core.model import Item
from viewer.widgets import model_diff
from viewer.widgets.items_view import ItemsView
from viewer.widgets.model_diff import ModelDiff, ModelDiffView

__all__ = ["toy"]  # (the fixture, used by name)


def rows(view: ModelDiffView) -> list[str]:
    return [text for _style, text in view.entries]


def cursor_on_screen(view: ItemsView) -> bool:
    top = view.heights.prefix(view.cursor)
    return view.scroll_y <= top < view.scroll_y + view.page_height


async def test_enter_on_a_folded_row_shows_that_item_in_the_raw_view(toy: Path) -> None:
    async with opened(toy, size=(100, 14)) as (app, pilot, screen):
        await pilot.press("4")
        diff = screen.diff
        await until(pilot, lambda: isinstance(diff.entries, ModelDiff), "the diff")
        folded = next(i for i, text in enumerate(rows(diff)) if text.startswith("  − "))
        diff.move_to(folded)
        await pilot.press("enter")
        view = screen.conversation
        await until(pilot, lambda: view.mode == "raw" and view.has_focus, "the raw view")
        assert view.selected is not None
        assert rows(diff)[folded].startswith(f"  − line {view.selected.line:,} ")
        assert view.selected.id in view.folded_by  # a folded item, as the row said
        await until(pilot, lambda: cursor_on_screen(view), "the item on screen")
        assert view.scroll_y > 0  # (not where the raw view was: at its end)
        assert "[folded by the compaction at line " in screen_text(app)


async def test_enter_on_a_compactions_rows_shows_its_line(toy: Path) -> None:
    async with opened(toy) as (_app, pilot, screen):
        await pilot.press("4")
        diff = screen.diff
        await until(pilot, lambda: isinstance(diff.entries, ModelDiff), "the diff")
        header = next(i for i, text in enumerate(rows(diff)) if text.startswith("◆ compaction"))
        line = screen.transcript.compactions[0].line
        assert f"at line {line:,}" in rows(diff)[header]
        diff.move_to(header)
        await pilot.press("m")
        view = screen.conversation
        await until(pilot, lambda: view.mode == "raw" and view.has_focus, "the raw view")
        assert view.selected is not None and view.selected.line == line


async def test_the_head_names_no_line(toy: Path) -> None:
    async with opened(toy) as (_app, pilot, screen):
        await pilot.press("4")
        diff = screen.diff
        await until(pilot, lambda: isinstance(diff.entries, ModelDiff), "the diff")
        diff.move_to(0)
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert screen.conversation.mode == "replayed" and diff.has_focus


async def test_a_followed_files_draws_leave_the_cursor_where_it_was(toy: Path) -> None:
    """A new snapshot's diff keeps the cursor on its row (it went back to the top)."""
    async with opened(toy) as (_app, pilot, screen):
        await pilot.press("4")
        diff = screen.diff
        await until(pilot, lambda: isinstance(diff.entries, ModelDiff), "the diff")
        first = diff.entries
        at = len(rows(diff)) - 2  # (not the last row: the cursor would follow the end)
        diff.move_to(at)
        with toy.open("a") as fh:
            fh.write(json.dumps({"id": "u9", "type": "msg", "role": "user", "text": "x"}) + "\n")
        await until(pilot, lambda: diff.entries is not first, "a new snapshot's diff")
        assert diff.cursor == at


async def test_what_a_compaction_sends_that_no_line_holds_is_listed_under_it(
    tmp_path: Path,
) -> None:
    """A Codex replacement history's items that no earlier line holds are listed under
    their compaction, after what it kept, in the order sent, each with its place among
    what it sends, as ``diff``'s ``+`` rows say it (the tab showed them nowhere);
    enter on one shows the compaction's line, whose item holds them as written."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    prompt = w.message("user", "prompt 1")
    w.message("assistant", "answer 1")
    line = w.compacted(
        "",
        [
            message_payload("developer", "MADE ONE"),
            message_payload("user", "prompt 1"),  # (kept: its own line's)
            {"type": "compaction", "encrypted_content": "gAAAA-opaque"},
        ],
    )
    w.message("user", "prompt 2")
    os.utime(w.path, (IDLE, IDLE))
    async with opened(w.path) as (_app, pilot, screen):
        await pilot.press("4")
        diff = screen.diff
        await until(pilot, lambda: isinstance(diff.entries, ModelDiff), "the diff")
        texts = rows(diff)
        kept = texts.index("kept: 1 item")
        assert texts[kept:] == [
            "kept: 1 item",
            f"  + line {prompt} user: prompt 1",
            "sent next, on no line of its own: 2 items",
            f"  + line {line} developer [1 of 3 in its place]: MADE ONE",
            f"  + line {line} system [3 of 3 in its place]: "
            "[compaction summary, encrypted, 12 chars]",
        ]
        said = [r for r in "".join(text_diff(screen.transcript)).splitlines() if r[:2] == "+ "]
        assert [r.rsplit("[", 1)[1] for r in said] == [
            "1 of 3 in its place]",
            "3 of 3 in its place]",
        ]
        diff.move_to(kept + 3)
        await pilot.press("enter")
        view = screen.conversation
        await until(pilot, lambda: view.mode == "raw" and view.has_focus, "the raw view")
        assert view.selected is not None and view.selected.line == line


def test_what_no_line_holds_is_found_once_a_snapshot_and_only_past_a_compaction(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finding them reads every item's id: once a snapshot's diff, none of its draws, and
    not at all where nothing was compacted (a 1 GB session's diff is drawn lazily)."""
    calls: list[int] = []
    real = model_diff.sent_next
    monkeypatch.setattr(model_diff, "sent_next", lambda t: calls.append(1) or real(t))
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("user", "prompt 1")
    ModelDiff(CODEX.open(Path(w.path)))
    assert calls == []
    w.compacted("", [message_payload("developer", "MADE ONE")])
    diff = ModelDiff(CODEX.open(Path(w.path)))
    drawn = [diff[i] for i in range(len(diff))] + [diff[i] for i in range(len(diff))]
    assert "sent next, on no line of its own: 1 item" in [text for _style, text in drawn]
    assert calls == [1]


def test_the_item_holding_a_line_is_the_last_to_start_at_or_before_it() -> None:
    items = [
        Item("a", "user", line=2),
        Item("b", "system", line=5, lines=3),  # (a response split over lines 5-7)
        Item("c", "user", line=9),
    ]
    assert [at_line(items, n) for n in (1, 2, 4, 5, 7, 8, 9, 20)] == [-1, 0, 0, 1, 1, 1, 2, 2]
    assert at_line([], 3) == -1


def test_a_long_rows_height_is_measured_once_a_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """A followed Claude Code session's diff wrapped its 536 compaction summaries again at
    every draw (0.4 s of the UI thread each at 1 GB)."""
    measured: list[str] = []
    real = model_diff.prose_height

    def counted(entry: tuple[str, str], width: int) -> int:
        measured.append(entry[1])
        return real(entry, width)

    monkeypatch.setattr(model_diff, "prose_height", counted)
    view = ModelDiffView()
    summary = ("italic", "the user asked for the parser to be fixed; " * 90)
    rows = [("", "short"), summary, ("bold", "folded: 3 items")]
    # Not laid out yet (a tab just shown): a row a line, measured once it is, at the
    # width it then has.
    assert [view.measurer(78)(row) for row in rows] == [1, 1, 1] and not measured
    monkeypatch.setattr(ModelDiffView, "size", property(lambda _self: Size(120, 30)))
    first = [view.measurer(80)(row) for row in rows]
    assert first == [real(row, 80) for row in rows] and first[1] > 1
    again = [view.measurer(80)(row) for row in rows]  # (the next snapshot's diff)
    assert again == first and measured.count(summary[1]) == 1
    narrow = view.measurer(40)(summary)
    assert narrow == real(summary, 40) > first[1] and measured.count(summary[1]) == 2


def test_a_compaction_lists_each_item_it_sends_once_each_by_its_line(tmp_path: Path) -> None:
    """A second compaction keeping the first's summary (no line holds it): listed once,
    under "sent next" with its place, not also as kept; kept + sent next are what it
    sends. An item a rewrite made is named by its line, never by its internal id, sent
    or folded (a third compaction folds the first summary)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    u1 = w.message("user", "U1")
    w.message("assistant", "A1")
    s1_at = w.compacted("S1", [message_payload("user", "U1"), message_payload("user", "S1 sum")])
    history = [message_payload("user", "U1"), message_payload("user", "S1 sum")]
    s2_at = w.compacted("S2", [*history, message_payload("user", "S2 sum")])
    texts = [text for _style, text in ModelDiff(CODEX.open(Path(w.path)))]
    second = texts[texts.index(f"◆ compaction at line {s2_at}") :]
    assert second[second.index("kept: 1 item") :] == [
        "kept: 1 item",
        f"  + line {u1} user: U1",
        "sent next, on no line of its own: 2 items",
        f"  + line {s1_at} user [2 of 3 in its place]: S1 sum",
        f"  + line {s2_at} user [3 of 3 in its place]: S2 sum",
    ]
    s3_at = w.compacted("S3", [message_payload("user", "U1"), message_payload("user", "S3 sum")])
    # What it folded of the earlier ones' own items says what they said (they were
    # "(an item a rewrite made there, not sent next)"), read again from the line that
    # made them, or (a compressed file's) kept: the same rows.
    packed = tmp_path / "r.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(Path(w.path).read_bytes()))
    for path in (Path(w.path), packed):
        texts = [text for _style, text in ModelDiff(CODEX.open(path))]
        third = texts[texts.index(f"◆ compaction at line {s3_at}") :]
        assert third[: third.index("kept: 1 item")][-2:] == [
            f"  − line {s1_at} user: S1 sum",
            f"  − line {s2_at} user: S2 sum",
        ], path
        assert not [t for t in texts if f"L{s1_at}." in t or f"L{s2_at}." in t]
        assert not [t for t in texts if "not sent next)" in t]
        # ``diff`` lists them too (it listed no row of them), each under the line that
        # made it, as a rollback's dropped ones.
        rows = "".join(text_diff(CODEX.open(path))).splitlines()
        for at, said in ((s1_at, "S1 sum"), (s2_at, "S2 sum")):
            mark = next(n for n, row in enumerate(rows) if row.startswith(f"# line {at}: "))
            assert rows[mark + 1] == f"- line {at:>6} user      {said} [folded]", rows


def _long_summary_session(tmp_path: Path) -> Path:
    """A Claude Code session compacted once, its summary 6,000 characters of prose."""
    from claude_code_writer import CCWriter, text

    w = CCWriter()
    w.user("question 0")
    w.assistant("m0", [text("answer 0")])
    w.system(
        "compact_boundary",
        parent=None,
        content="Conversation compacted",
        logicalParentUuid=w.last,
        compactMetadata={"trigger": "auto", "preTokens": 1000},
    )
    w.user("alpha beta gamma delta " * 261, isCompactSummary=True)
    w.user("question 1")
    w.assistant("m1", [text("answer 1")])
    return w.write(tmp_path / "compacted.jsonl")


def test_a_compactions_own_summary_and_its_cut_are_said(tmp_path: Path) -> None:
    """The summary's row was cut at 4,000 characters with no mark, and the compaction's
    own summary line was listed as "kept: 1 item", as if it kept an old message: the row
    says how much more there is, and the line is its summary, sent next."""
    from session_core.formats import by_name

    t = by_name("claude-code").open(str(_long_summary_session(tmp_path)), writer_alive=False)
    (compaction,) = t.compactions
    said = [text for _style, text in ModelDiff(t)]
    summary = compaction.summary
    assert len(summary) == 6003
    row = next(r for r in said if r.startswith("alpha"))
    assert row == summary[:4000] + " … (2,003 more characters: enter shows it in the raw view)"
    at = said.index("its summary, sent next:")
    assert said[at + 1].startswith("  + line 4 user: alpha beta")
    assert not any(r.startswith("kept:") for r in said)  # (nothing else kept)


async def test_the_diffs_prose_is_wrapped_between_words(tmp_path: Path) -> None:
    """The summary was wrapped by cells, mid-word ("covers the e / arlier"): as the
    conversation's prose, between words."""
    async with opened(_long_summary_session(tmp_path), size=(80, 40)) as (app, pilot, screen):
        screen.action_show_tab("diff")
        await until(pilot, lambda: "alpha beta" in screen_text(app), "the summary")
        lines = [line for line in screen_lines(app) if "alpha" in line]
        assert len(lines) > 5
        for line in lines:
            words = line.replace("▌", " ").replace("▇", " ").replace("▁", " ").split()
            assert set(words) <= {"alpha", "beta", "gamma", "delta"}, line


async def test_the_cursor_skips_the_blank_row_before_a_compaction(toy: Path) -> None:
    """j / k step over the blank row that sets each compaction apart (the cursor's ``▌``
    sat on an empty line), and so does a page: it says nothing, enter there named no line."""
    async with opened(toy, size=(100, 14)) as (_app, pilot, screen):
        await pilot.press("4")
        diff = screen.diff
        await until(pilot, lambda: isinstance(diff.entries, ModelDiff), "the diff")
        blank = rows(diff).index("")
        assert blank > 0 and rows(diff)[blank + 1].startswith("◆ ")
        diff.move_to(blank - 1)
        await pilot.press("j")
        assert diff.cursor == blank + 1  # (the compaction's row)
        await pilot.press("k")
        assert diff.cursor == blank - 1
        seen = set()
        await pilot.press("g")
        for _ in range(len(rows(diff))):
            seen.add(diff.cursor)
            await pilot.press("j")
        assert "" not in {rows(diff)[at] for at in seen}, sorted(seen)
