"""The run-context pane, fed a v1 transcript: its runs and what changed between them,
sections folded, expanded and resolved through ``rendered-in``, hostile facts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from panes_helpers import IDENTITY, MEMORY, column, fixed_ids, plain_rows, transcript
from rich.cells import cell_len
from textual.app import App, ComposeResult
from textual.geometry import Region
from textual.pilot import Pilot

from session_core.following import FollowUpdate
from session_core.live import LiveTranscript
from viewer.widgets.run_context import RunContextPane, SectionView

__all__ = ["fixed_ids", "transcript"]  # fixtures of panes_helpers', used here


PANES_TCSS = Path(__file__).resolve().parent.parent / "viewer" / "styles" / "panes.tcss"


def read_envelopes(path: Path) -> tuple[list[dict[str, Any]], list[int]]:
    envelopes: list[dict[str, Any]] = []
    lines: list[int] = []
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, 1):
            if raw.strip():
                envelopes.append(orjson.loads(raw))
                lines.append(number)
    return envelopes, lines


def live_from(path: Path, upto: int | None = None) -> LiveTranscript:
    envelopes, lines = read_envelopes(path)
    live = LiveTranscript(path)
    live.apply(FollowUpdate(envelopes=envelopes[:upto], lines=lines[:upto], initial=True))
    return live


# -- the harness -------------------------------------------------------------------


class PaneApp(App[None]):
    """Mounts the run-context pane and feeds it a transcript."""

    CSS_PATH = str(PANES_TCSS)
    TITLE = "panes"

    def __init__(self, live: LiveTranscript) -> None:
        super().__init__()
        self.pane = RunContextPane(id="runs-pane")
        self.live = live

    def compose(self) -> ComposeResult:
        yield self.pane

    def on_mount(self) -> None:
        self.feed(self.live)

    def feed(self, live: LiveTranscript) -> None:
        self.live = live
        self.pane.refresh_view(live.state, live.path)


def runs_app(path: Path) -> PaneApp:
    return PaneApp(live_from(path))


async def goto_run(pilot: Pilot[None], row: int) -> RunContextPane:
    """The run-context pane with its cursor on the ``row``-th run."""
    pane = pilot.app.query_one(RunContextPane)
    pane.runs_table.move_cursor(row=row)
    await pilot.pause()
    return pane


# -- the run-context pane ------------------------------------------------------------


async def test_runs_list_and_changes(transcript: Path) -> None:
    app = runs_app(transcript)
    async with app.run_test(size=(140, 40)):
        pane = app.query_one(RunContextPane)
        assert column(pane.runs_table, "run") == ["r1", "r2", "r3"]
        assert column(pane.runs_table, "changed") == [
            "first run",
            # date changed, branch new, evil removed; tools changed, memory removed, plan new
            "3 facts, 3 sections",
            "1 fact, 2 sections",  # branch removed; tools changed, plan removed
        ]
        # The newest run is selected first.
        assert pane.runs_table.cursor_row == 2


async def test_sections_resolve_rendered_in(transcript: Path) -> None:
    app = runs_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(RunContextPane)
        await pilot.pause()
        views = pane.section_views()
        by_name = {v.info.name: v.info for v in views}
        assert by_name["identity"].status == "same"
        assert by_name["identity"].location.startswith("rendered-in ")
        assert by_name["identity"].body == IDENTITY  # resolved through the index
        assert by_name["tools"].status == "changed"
        assert by_name["tools"].body is None
        assert by_name["plan"].status == "removed"
        rendered = [str(v.render()) for v in views]
        assert any("body not in this transcript" in text for text in rendered)

        await goto_run(pilot, 1)
        infos = {v.info.name: v.info for v in pane.section_views()}
        assert [(name, info.status) for name, info in infos.items()] == [
            ("identity", "same"),
            ("tools", "changed"),
            ("plan", "new"),
            ("memory", "removed"),
        ]
        assert infos["identity"].location.startswith("rendered-in")
        assert infos["tools"].location == "inline"
        assert infos["memory"].body == MEMORY
        facts = plain_rows(pane.facts_table)
        assert facts[0] == ["1", "date", "2026-08-10", "changed"]
        assert facts[2] == ["3", "branch", "main", "new"]
        assert facts[3][1:] == ["evil", "␛]52;c;SGVsbG8=␇[link=http://x]y[/link]", "removed"]


async def test_sections_fold_and_expand(transcript: Path) -> None:
    app = runs_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = await goto_run(pilot, 0)
        identity = pane.section_views()[0]
        assert identity.info.name == "identity"
        folded = str(identity.render())
        assert "Rule 2" in folded and "Rule 5" not in folded
        assert "… 3 more lines folded (enter: expand)" in folded
        identity.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert identity.expanded
        assert "Rule 5: keep notes." in str(identity.render())
        # Switching runs and back keeps it expanded.
        await goto_run(pilot, 1)
        await goto_run(pilot, 0)
        assert pane.section_views()[0].expanded
        await pilot.press("tab")


async def test_a_short_section_folded_says_so(transcript: Path) -> None:
    """A body of no more lines than a fold shows, folded, read as one unfolded but for its
    arrow: it says it is folded, and that it hides nothing; unfolded, it does not."""
    app = runs_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = await goto_run(pilot, 0)
        by_name = {view.info.name: view for view in pane.section_views()}
        tools, memory = by_name["tools"], by_name["memory"]
        assert str(tools.render()).endswith("shell(cmd)\n(folded: all 2 lines shown)")
        assert str(memory.render()).endswith("short answers.\n(folded: its line shown)")
        tools.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert tools.expanded
        assert str(tools.render()).endswith("shell(cmd)")


async def test_escapes_in_a_fact_are_visible_text(transcript: Path) -> None:
    app = runs_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = await goto_run(pilot, 0)
        values = column(pane.facts_table, "value")
        assert values[2] == "␛]52;c;SGVsbG8=␇[link=http://x]y[/link]"
        svg = app.export_screenshot()
        assert "␛]52;c;SGVsbG8=␇" in svg
        assert "\x1b" not in svg and "\x07" not in svg


async def test_run_context_grows_live(transcript: Path) -> None:
    envelopes, lines = read_envelopes(transcript)
    live = LiveTranscript(transcript)
    cut = len(envelopes) - 2  # up to and including the first run context
    live.apply(FollowUpdate(envelopes=envelopes[:cut], lines=lines[:cut]))
    app = PaneApp(live)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(RunContextPane)
        assert pane.runs_table.row_count == 1
        live.apply(FollowUpdate(envelopes=envelopes[cut:], lines=lines[cut:]))
        app.feed(live)
        await pilot.pause()
        assert pane.runs_table.row_count == 3
        assert pane.runs_table.cursor_row == 2  # it followed the newest run
        assert any(v.info.body is None for v in pane.section_views())


@pytest.mark.flaky(reruns=2)  # see test_viewer_snapshots.py
def test_snapshot_run_context_changes(transcript: Path, snap_compare: Any) -> None:
    """Run 2 against run 1: a fact changed, sections same / changed / new / removed."""

    async def run_before(pilot: Pilot[None]) -> None:
        await goto_run(pilot, 1)

    assert snap_compare(runs_app(transcript), terminal_size=(140, 40), run_before=run_before)


@pytest.mark.flaky(reruns=2)  # see test_viewer_snapshots.py
def test_snapshot_run_context_missing_body(transcript: Path, snap_compare: Any) -> None:
    """Run 3: a body reached through rendered-in, and one whose carrier is gone."""

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        views = pilot.app.query(SectionView)
        assert len(views) == 3

    assert snap_compare(runs_app(transcript), terminal_size=(140, 40), run_before=run_before)


async def test_focusing_a_pane_focuses_its_table(transcript: Path) -> None:
    app = runs_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(RunContextPane)
        pane.facts_table.focus()
        await pilot.pause()
        pane.focus()
        await pilot.pause()
        assert app.focused is pane.runs_table


async def test_enter_on_a_run_goes_into_its_sections(transcript: Path) -> None:
    """(the help said ``enter`` Open, and it did nothing)"""
    app = runs_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(RunContextPane)
        pane.runs_table.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.focused, SectionView)
        assert app.focused is pane.query(SectionView).first()


async def test_the_focused_section_is_marked_j_k_step_escape_goes_back(transcript: Path) -> None:
    """After ``enter`` on a run nothing said which section had the focus, and ``j`` /
    ``k`` / ``escape`` did nothing there (the keys audit)."""
    app = runs_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(RunContextPane)
        pane.runs_table.focus()
        await goto_run(pilot, 1)
        await pilot.press("enter")
        await pilot.pause()
        sections = list(pane.query(SectionView))
        assert len(sections) >= 2

        def marked() -> list[bool]:
            return [view.render().plain.startswith("▌") for view in sections]

        assert app.focused is sections[0] and marked() == [True] + [False] * (len(sections) - 1)
        await pilot.press("j")
        assert app.focused is sections[1] and marked()[:2] == [False, True]
        await pilot.press(*"j" * len(sections))  # (the last stays: no wrap)
        assert app.focused is sections[-1]
        await pilot.press("k")
        assert app.focused is sections[-2]
        await pilot.press("escape")
        assert app.focused is pane.runs_table and not any(marked())


@pytest.mark.parametrize("width", [60, 80, 140])
async def test_a_narrow_screen_keeps_the_run_detail_on_it(transcript: Path, width: int) -> None:
    """The runs list takes a share of a narrow screen, no more than its 81 cells of a
    wide one: at 80 columns the detail (facts, sections, what changed) was off screen."""
    app = runs_app(transcript)
    async with app.run_test(size=(width, 30)) as pilot:
        await pilot.pause()
        pane = app.query_one(RunContextPane)
        runs, detail = pane.query_one("#runs"), pane.query_one("#run-detail")
        assert detail.region.right <= width and detail.region.width >= width // 4
        assert runs.region.width <= 81


@pytest.mark.parametrize("size", [(80, 24), (120, 35), (60, 30)])
async def test_the_run_header_cuts_its_values_to_the_detail(
    transcript: Path, size: tuple[int, int]
) -> None:
    """Each header value is cut to what its line leaves: at 80x24 the detail is 39 cells
    wide and the 64-character digest, cut at 40, wrapped its ``…`` onto a line of its own."""
    app = runs_app(transcript)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        header = app.query_one("#run-header")
        width = header.content_size.width
        strips = header.render_lines(Region(0, 0, header.size.width, header.size.height))
        lines = ["".join(segment.text for segment in strip).rstrip() for strip in strips]
        digest = next(line for line in lines if line.startswith("digest "))
        assert digest.endswith("…") and cell_len(digest) <= width
        assert digest.removeprefix("digest ").removesuffix("…") in "c3" * 32
        assert "…" not in [line.strip() for line in lines]
        assert lines[0].startswith("run 3 of 3: r3")
        # (the time on the title's line where it fits there, else on its own)
        assert any(
            line.strip().startswith("at 2026-08-10T")
            or line.endswith("   at 2026-08-10T09:00:00.000000Z")
            for line in lines
        ), lines


async def test_the_changes_line_counts_sections_and_facts_by_name(transcript: Path) -> None:
    """ "vs previous run r1: 1 changed, 2 same" counted sections alone, under a facts
    table with 3 changed facts: each count says what it counts."""
    app = runs_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        await goto_run(pilot, 1)
        header = app.query_one("#run-header")
        strips = header.render_lines(Region(0, 0, header.size.width, header.size.height))
        said = " ".join("".join(s.text for s in strip).strip() for strip in strips)
        # (date changed, branch new, evil removed; tools changed, memory removed, plan new)
        assert "vs previous run r1: sections: 1 changed, 1 new, 1 removed" in said, said
        assert "; facts: 1 changed, 1 new, 1 removed" in said, said


async def test_the_runs_list_is_no_wider_than_its_columns(transcript: Path) -> None:
    """At 120 columns the list took 79 cells (blank past its columns) and left the
    detail 40, cutting a fact's value at 12: it keeps what its fitted columns need."""
    app = runs_app(transcript)
    async with app.run_test(size=(120, 35)) as pilot:
        await pilot.pause()
        pane = app.query_one(RunContextPane)
        table = pane.runs_table
        used = sum(w + 2 for _, _, w in table.columns)
        assert table.size.width <= used + 2  # (its scroll bar)
        assert [key for key, _, _ in table.columns] == ["run", "ts", "facts", "sections", "changed"]
        assert app.query_one("#run-detail").size.width >= 45


async def test_a_focused_section_is_scrolled_into_view(transcript: Path) -> None:
    """At 80x24 the run's lines and its facts took the detail's height: ``enter`` went
    into sections never seen, and ``j`` seemed to do nothing. The detail scrolls whole,
    to the section focused; at 80 columns a fact's number has gone, how it compares not."""
    app = runs_app(transcript)
    async with app.run_test(size=(80, 14)) as pilot:
        pane = await goto_run(pilot, 1)
        detail = pane.query_one("#run-detail")
        assert [key for key, _, _ in pane.facts_table.columns] == ["key", "value", "vs"]
        await pilot.press("enter")
        sections = pane.section_views()
        assert len(sections) >= 2
        for step in range(len(sections)):
            await pilot.pause(0.1)
            focused = sections[step]
            assert app.focused is focused
            assert detail.region.contains_region(focused.region.intersection(detail.region))
            assert focused.region.y >= detail.region.y and (
                focused.region.y < detail.region.bottom
            ), (step, focused.region, detail.region)
            await pilot.press("j")
