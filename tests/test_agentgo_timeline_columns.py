"""agentgo's timeline fits its width as every table does (``fitted_columns``): at 80
columns fixed-width columns left the summary 1–2 cells (a search's match on no row);
now the time's fraction, the run and the execution go, in that order, before the
summary keeps fewer than 30 cells, and a cut execution ends with ``…``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.app import App, ComposeResult

from session_core.agentgo.reader import read_view
from viewer.demo import simulate_run
from viewer.widgets.agentgo_timeline import TimelineView

WIDE_TIME = "午前十時三十分ちょうど頃"  # (no timestamp, each character 2 cells)
CUT = {
    ("sometime on a Tuesday afternoon, roughly", 150): "sometime on a Tues…",
    ("sometime on a Tuesday afternoon, roughly", 78): "sometim…",
    (WIDE_TIME, 150): "午前十時三十分ちょ… ",  # (18 cells and a space: 19)
    (WIDE_TIME, 78): "午前十… ",  # (7 cells and a space: 8)
}


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield TimelineView(id="timeline")


def _session(tmp_path: Path) -> Path:
    path = tmp_path / "agentgo.jsonl"
    simulate_run(str(path), speed=0, format="agentgo-v1", crash=False)
    return path


async def test_narrow_rows_drop_columns_and_keep_the_summary(tmp_path: Path) -> None:
    view = read_view(str(_session(tmp_path)))
    async with Host().run_test() as pilot:
        timeline = pilot.app.query_one(TimelineView)
        timeline.set_view(view, None)
        await pilot.pause()
        tool_row = next(
            row
            for row in range(timeline.item_count())
            if view.records[row].get("type") == "tool_exec_end"
        )
        summary_of = view.records[tool_row]
        time = str(summary_of.get("time"))
        assert "." in time  # (nanoseconds in the file)

        wide = timeline.item_lines(tool_row, 150, False)[0].plain
        assert "tool_exec_end" in wide and " r1 " in wide and "tool " in wide
        execution = wide.split(" r1 ")[1][:27]  # (its 26 cells and a space)
        assert execution.startswith(" tool ") and execution.rstrip().endswith("…")  # (cut: …)
        assert wide[wide.index(":") - 2 :].split()[0].count(".") == 1  # (with its fraction)

        for width in (78, 60):
            narrow = timeline.item_lines(tool_row, width, False)[0]
            plain = narrow.plain
            assert narrow.cell_len <= width
            clock = plain.split()[1]
            assert "." not in clock and clock.count(":") == 2  # (the fraction gone)
            assert " r1 " not in plain and " #1 " not in plain  # (run, execution gone)
            summary = plain[plain.index("tool_exec_end") + len("tool_exec_end") :].strip()
            assert len(summary) >= min(30, width - 40) and len(summary) > 10


@pytest.mark.parametrize("time", ["sometime on a Tuesday afternoon, roughly", WIDE_TIME])
async def test_a_time_that_does_not_parse_keeps_to_its_column(tmp_path: Path, time: str) -> None:
    """A record's time that is no timestamp was shown as written, up to 22 cells, in a
    column of 19 (8 once the fraction goes): the type and all after it pushed along, and
    the row, cut at the width, lost its summary's end. It is cut to the column (``…``),
    by cells: one of wide characters was cut by cells and padded by characters (12
    cells in a column of 9), and ran over it all the same."""
    path = _session(tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[1])
    assert record["type"] == "run_start"
    record["time"] = time
    lines[1] = json.dumps(record).encode() + b"\n"
    path.write_bytes(b"".join(lines))
    view = read_view(str(path))
    async with Host().run_test() as pilot:
        timeline = pilot.app.query_one(TimelineView)
        timeline.set_view(view, None)
        await pilot.pause()
        for width in (150, 78):
            good = timeline.item_lines(2, width, False)[0].plain  # (agent_start: a real time)
            bad = timeline.item_lines(1, width, False)[0].plain
            before = good[: good.index("agent_start")], bad[: bad.index("run_start")]
            assert cell_len(before[0]) == cell_len(before[1]), (good, bad)  # (by cells)
            cut = CUT[time, width]  # (19 cells, or 8)
            assert cut in bad, bad


async def test_a_long_record_type_keeps_to_its_column(tmp_path: Path) -> None:
    """The demo's ``authorization_grants`` (20 cells) ran 2 cells over a type column of
    18 and pushed its row's run, execution and summary along: it is now whole in its
    column, and a longer type (of a file's own) is cut to it with ``…``, so every row's
    columns begin where the header's do."""
    path = _session(tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    record = json.loads(lines[1])
    assert record["type"] == "run_start"
    record["type"] = "a_record_type_longer_than_any_column"
    lines[1] = json.dumps(record).encode() + b"\n"
    path.write_bytes(b"".join(lines))
    view = read_view(str(path))
    kinds = [str(record.get("type")) for record in view.records]
    assert "authorization_grants" in kinds
    async with Host().run_test(size=(160, 30)) as pilot:
        timeline = pilot.app.query_one(TimelineView)
        timeline.set_view(view, None)
        await pilot.pause()
        header = timeline.header_strip(0).text  # (at its own width: every column)
        assert timeline.content_width >= 150
        starts = []
        for width in (150, 100):
            rows = [timeline.item_lines(row, width, False)[0].plain for row in range(len(kinds))]
            grants = rows[kinds.index("authorization_grants")]
            assert "authorization_grants " in grants, grants
            assert "a_record_type_longe… r1 " in rows[1], rows[1]
            ends = {row.index(" r1 ") for row in rows if " r1 " in row}
            assert len(ends) == 1, (width, [row for row in rows if " r1 " in row])
            starts.append(ends.pop())
        assert header.index(" run ") == starts[0]  # (under its label)
