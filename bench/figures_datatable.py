"""datatable: Textual's ``DataTable`` holding every row, beside the project's virtual
views (``OpsPane``, ``DiffView`` over ``DiffRows``)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from figures_common import HEIGHT, WIDTH, child, mb, peak_rss
from open_big import marked_transcript
from sanity import Deadline, Figures

TABLE_KINDS = ("virtual-ops", "datatable-ops", "diffrows", "datatable-diff", "diffrow-list")


async def table_child(kind: str, path: Path, timeout: float) -> dict[str, Any]:
    from rich.text import Text
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    from session_core.diff import DiffRows
    from session_core.formats import V1, by_name
    from session_core.reader import replay_file
    from viewer.safe import one_line
    from viewer.widgets.diff_view import DiffView
    from viewer.widgets.model_panes import OP_COLUMNS, OpsPane

    t0 = time.perf_counter()
    ops = kind.endswith("ops")
    # The tool operations from the model (what the screen shows), the diff from the replay.
    transcript = by_name(V1).open(path) if ops else None
    state = replay_file(path, tolerate_tail=True)
    replay_seconds = time.perf_counter() - t0
    before = peak_rss()
    widget: Any = OpsPane() if kind == "virtual-ops" else None
    if kind == "diffrows":
        widget = DiffView()
    if kind.startswith("datatable") or kind == "diffrow-list":
        widget = DataTable(cursor_type="row", zebra_stripes=True, fixed_columns=1)
    kept: list[Any] = []

    class Harness(App[None]):
        def compose(self) -> ComposeResult:
            yield widget
            if kind == "datatable-ops":
                yield OpsPane(id="cells")  # its _cells make the DataTable's rows

    app = Harness()
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await pilot.pause()
        deadline = Deadline(timeout, f"{kind}: the table drawn")
        t0 = time.perf_counter()
        if kind == "virtual-ops":
            widget.show(transcript)
            count = widget.table.row_count
        elif kind == "diffrows":
            widget.set_state(state)
            widget.rebuild()
            count = len(widget.order)
        elif ops:
            pane = app.query_one("#cells", OpsPane)
            pane.ops = transcript.tool_operations
            pane.table.rows = range(len(pane.ops))  # (a row each: no filter)
            for key, label, _width in OP_COLUMNS:
                widget.add_column(label, key=key)
            widget.add_rows(pane._cells(i) for i in range(len(pane.ops)))
            count = widget.row_count
        else:
            diff = DiffRows(state)
            if kind == "diffrow-list":
                kept = [diff[i] for i in range(len(diff))]  # the view's rows before DiffRows
            for label in ("", "line", "role", "the file says", "sent"):
                widget.add_column(label)

            def cells(row: Any) -> list[Text]:
                sent = "(not sent: folded away)" if row.sent is None else row.sent
                return [Text(row.mark), Text(str(row.line)), Text(one_line(row.role, 12)),
                        Text(one_line(row.raw, 60)), Text(one_line(sent, 60))]  # fmt: skip

            source = kept if kept else (diff[i] for i in range(len(diff)))
            widget.add_rows(cells(row) for row in source)
            count = widget.row_count
        target = widget.table if kind == "virtual-ops" else widget
        while True:  # drawn: laid out over all its rows, and every line on screen rendered
            await pilot.pause()
            deadline.check()
            if target.virtual_size.height >= count:
                break
        for y in range(target.size.height):
            target.render_line(y)
        seconds = time.perf_counter() - t0
    diff_rows = len(state.message_events) + len(state.compactions)
    return {"seconds": seconds, "peak": peak_rss(), "before": before, "rows": count,
            "replay": replay_seconds, "diff": diff_rows,
            "ops": len(transcript.tool_operations) if transcript is not None else 0,
            "kept": len(kept)}  # fmt: skip


def figure_datatable(size: str, data_dir: Path, timeout: float, figures: Figures) -> None:
    path, _marker, lines = marked_transcript(data_dir, size)
    print(f"## Tables at {size} ({lines:,} lines), headless, each in its own process\n")
    runs = {}
    for kind in TABLE_KINDS:
        runs[kind] = child(kind, str(path), str(timeout), timeout=timeout + 120)
    names = {
        "virtual-ops": "tool operations: OpsPane (VirtualTable)",
        "datatable-ops": "tool operations: DataTable, every row",
        "diffrows": "diff: DiffView over DiffRows",
        "datatable-diff": "diff: DataTable, every row",
        "diffrow-list": "diff: DataTable, every row, every DiffRow kept (the view before DiffRows)",
    }
    print("| table | rows | time to drawn | peak RSS after | peak RSS after the replay |")
    print("|---|---:|---:|---:|---:|")
    for kind, run in runs.items():
        print(f"| {names[kind]} | {run['rows']:,} | {run['seconds']:.2f} s | {mb(run['peak'])} | "
              f"{mb(run['before'])} |")  # fmt: skip
    v, d = runs["virtual-ops"], runs["datatable-ops"]
    dv, dd, dl = runs["diffrows"], runs["datatable-diff"], runs["diffrow-list"]
    print(
        f"\n* tool operations ({d['rows']:,} rows): DataTable {d['seconds']:.1f} s and "
        f"{d['peak'] / 1e9:.2f} GB, VirtualTable {v['seconds']:.2f} s and {mb(v['peak'])}. "
        "docs/performance.md (1 GB, 167,446 rows): 38 s and 1.5 GB."
    )
    print(
        f"* diff ({dd['rows']:,} rows): DataTable {dd['seconds']:.1f} s and "
        f"{dd['peak'] / 1e9:.2f} GB (keeping every DiffRow too: {dl['seconds']:.1f} s and "
        f"{dl['peak'] / 1e9:.2f} GB), DiffRows {dv['seconds']:.2f} s and {mb(dv['peak'])}. "
        "docs/performance.md (1 GB, 310,333 rows): 8.8 s and 2.6 GB."
    )
    for kind, run in runs.items():
        want = run["ops"] if kind.endswith("ops") else run["diff"]
        figures.true(f"{names[kind]}: {run['rows']:,} rows, the file has {want:,}",
                     run["rows"] >= want > 0)  # fmt: skip
        figures.positive(f"{names[kind]}: its time", run["seconds"])
        figures.true(f"{names[kind]}: peak RSS below the replay's", run["peak"] >= run["before"])
