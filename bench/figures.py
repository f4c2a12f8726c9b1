"""The README's Performance figures that no other bench script prints, each beside its baseline.

    .venv/bin/python bench/figures.py FIGURE [--size 1GB] [--smoke] [--timeout S]

FIGURE is one of:

* ``load``: ``Session.load`` of the generated transcript, its time and peak
  RSS, with the cyclic collector paused (as shipped, ``session_core/gc_pause.py``)
  and with it on, beside a bare ``orjson.loads`` loop over the same file (its
  time and peak RSS: the interpreter, orjson and a line at a time). README:
  3.6 s (the loop 1.8 s), peak RSS 1.2 GB at 1 GB; "GC on: twice as long".
* ``compaction``: 100,000 live messages and 400 compactions that fold a few
  (3 messages and the summary before) each, replayed from a file by the
  current code, beside a plain replay of the same number of lines with no
  compaction (every compaction line a message instead), and the re-indexing
  of every live message after each compaction that the code did before
  (``ReindexingReplay``, as ``tests/test_compaction_index.py`` has it); at
  half the size too, so that the growth shows. README: 0.34 s vs 2.5 s.
* ``long-line``: a transcript whose tool result is one 50 MB line:
  ``Session.load``, and the viewer (headless) from launch until the file is
  replayed and from there until that row is expanded and drawn, beside a bare
  ``orjson.loads`` of the file's lines. README: "loads in 0.3 s".
* ``datatable``: the tool-operations and diff tabs of the generated file,
  headless: the project's ``VirtualTable`` (``OpsPane``, over the model's
  operations) and ``DiffView``
  over ``DiffRows`` beside Textual's ``DataTable`` holding a row of the same
  cells for every operation / every diff row (and, for the diff, the list of
  every ``DiffRow`` built, as the view did before ``DiffRows``). Each in a
  process of its own: time until drawn, peak RSS. README: 38 s / 1.5 GB and
  8.8 s / 2.6 GB with ``DataTable``.
* ``memory``: the viewer's RSS at the end of a headless load of the file,
  split by structure (sizes of what the replayed state, v1's model, the
  screen's snapshot and its conversation hold, walked object by object: the
  packed ids, dicts, per-line columns, compaction records ...), beside the RSS
  of the same app on a two-line file (Python and Textual themselves). README
  (before ids were packed): ids 57 MB, dicts by id about 35 MB, per-line
  columns about 45 MB, Python and Textual about 60 MB.
* ``all``: each of them in turn.

The file is ``open_big.py``'s generated transcript (``--size``, default 1GB,
shared with it and ``views_big.py``). Each printed figure says what the
README says beside it. Every wait has a deadline (``--timeout``), and a figure
that cannot be (a zero time, a ratio below what must hold, a row count that
is not the file's) fails the run (exit 1), ``--smoke`` (2MB, 10,000 live
messages) included.
"""

from __future__ import annotations

import argparse
import array
import asyncio
import contextlib
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import types
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from open_big import bare_loop, marked_transcript, replayed  # noqa: E402
from sanity import Deadline, Figures, fail  # noqa: E402

WIDTH, HEIGHT = 160, 48
OPTS = orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE
MB = 1 << 20


def peak_rss() -> int:
    """This process's peak RSS in bytes: VmHWM, which starts again at exec (ru_maxrss
    would carry over the RSS of the process this one was forked from)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def current_rss() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def mb(n: float) -> str:
    return f"{n / MB:,.0f} MB"


def mb1(n: float) -> str:
    return f"{n / MB:,.1f} MB"


def ratio(a: float, b: float) -> float:
    return a / b if b > 0 else float("nan")


# --- children: one measurement per process, so that each peak RSS is its own ---------


def child(kind: str, *args: str, timeout: float) -> dict[str, Any]:
    """Run ``figures.py _child KIND ARGS`` and return the JSON it prints last."""
    command = [sys.executable, os.path.abspath(__file__), "_child", kind, *args]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        fail(f"{kind} {' '.join(args)}: not done after {timeout:g} s")
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        fail(f"{kind} {' '.join(args)} exited {done.returncode}")
    lines = done.stdout.strip().splitlines()
    return dict(json.loads(lines[-1]))


def child_main(kind: str, args: list[str]) -> dict[str, Any]:
    if kind == "loop":
        seconds = bare_loop(Path(args[0]))
        return {"seconds": seconds, "peak": peak_rss()}
    if kind in ("load", "load-gc-on"):
        from session_core import Session, gc_pause

        if kind == "load-gc-on":
            # The collector stays on for the whole load: the pause is made a no-op.
            gc_pause.hold = lambda: None
            gc_pause.release = lambda: None
            gc.enable()
        before = sum(s["collections"] for s in gc.get_stats())
        t0 = time.perf_counter()
        session = Session.load(args[0])
        seconds = time.perf_counter() - t0
        state = session.state
        collections = sum(s["collections"] for s in gc.get_stats()) - before
        session.close()
        return {"seconds": seconds, "peak": peak_rss(), "lines": len(state.event_lines),
                "last_line": state.last_line, "gcs": collections}  # fmt: skip
    if kind in ("virtual-ops", "datatable-ops", "diffrows", "datatable-diff", "diffrow-list"):
        return asyncio.run(table_child(kind, Path(args[0]), float(args[1])))
    if kind in ("viewer-memory", "viewer-baseline"):
        return asyncio.run(memory_child(kind, Path(args[0]), int(args[1]), float(args[2])))
    if kind in ("viewer-load", "viewer-load-gc-on"):
        if kind == "viewer-load-gc-on":
            from session_core import gc_pause

            gc_pause.hold = lambda: None
            gc_pause.release = lambda: None
            gc.enable()
        return asyncio.run(viewer_load(Path(args[0]), int(args[1]), float(args[2])))
    if kind == "long-line-viewer":
        return asyncio.run(long_line_viewer(Path(args[0]), int(args[1]), float(args[2])))
    raise SystemExit(f"unknown child {kind!r}")


# --- load: Session.load's time and RSS, the collector paused and on -----------------


async def viewer_load(path: Path, lines: int, timeout: float) -> dict[str, Any]:
    """The viewer (headless): from the app built (its modules imported) until the whole
    file is replayed."""
    from viewer.app import TailscopeApp

    before = sum(s["collections"] for s in gc.get_stats())
    t0 = time.perf_counter()
    app = TailscopeApp(path)
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await replayed(app, pilot, lines, timeout)
        seconds = time.perf_counter() - t0
        done = len(app.file_screen.live.replay.state.event_lines)
    collections = sum(s["collections"] for s in gc.get_stats()) - before
    return {"seconds": seconds, "peak": peak_rss(), "lines": done, "gcs": collections}


def best_of(repeat: int, kinds: list[str], args: list[str], timeout: float) -> list[dict[str, Any]]:
    """Each kind ``repeat`` times, interleaved (noise hits them alike); the fastest run of each."""
    best: list[dict[str, Any]] = [{} for _ in kinds]
    for _ in range(repeat):
        for i, kind in enumerate(kinds):
            run = child(kind, *args, timeout=timeout)
            if not best[i] or run["seconds"] < best[i]["seconds"]:
                best[i] = run
    return best


def figure_load(
    size: str, data_dir: Path, timeout: float, figures: Figures, repeat: int = 3
) -> None:
    path, _marker, lines = marked_transcript(data_dir, size)
    file_size = path.stat().st_size
    print(f"## Session.load at {size} ({file_size / 1e9:.2f} GB, {lines:,} lines), "
          f"best of {repeat}\n")  # fmt: skip
    loop, paused, on = best_of(repeat, ["loop", "load", "load-gc-on"], [str(path)], timeout)
    view_args = [str(path), str(lines), str(timeout)]
    viewer, viewer_on = best_of(repeat, ["viewer-load", "viewer-load-gc-on"], view_args,
                                timeout + 120)  # fmt: skip
    print("| what | time | ÷ loop | peak RSS | RSS ÷ file | collections during it |")
    print("|---|---:|---:|---:|---:|---:|")
    print(f"| bare orjson.loads loop | {loop['seconds']:.2f} s | 1.00× | {mb(loop['peak'])} | "
          f"{loop['peak'] / file_size:.0%} | — |")  # fmt: skip
    for name, run in (("collector paused (shipped)", paused), ("collector on", on)):
        print(
            f"| Session.load, {name} | {run['seconds']:.2f} s | "
            f"{ratio(run['seconds'], loop['seconds']):.2f}× | {mb(run['peak'])} | "
            f"{run['peak'] / file_size:.0%} | {run['gcs']:,} |"
        )
    for name, run in (("collector paused (shipped)", viewer), ("collector on", viewer_on)):
        print(
            f"| viewer's whole load (headless, app built to replayed), {name} | "
            f"{run['seconds']:.2f} s | {ratio(run['seconds'], loop['seconds']):.2f}× | "
            f"{mb(run['peak'])} | {run['peak'] / file_size:.0%} | {run['gcs']:,} |"
        )
    gc_ratio = ratio(on["seconds"], paused["seconds"])
    viewer_ratio = ratio(viewer_on["seconds"], viewer["seconds"])
    print(
        f"\n* Session.load: {paused['seconds']:.2f} s (the loop {loop['seconds']:.2f} s), peak RSS "
        f"{paused['peak'] / 1e9:.2f} GB. README (1 GB): 3.6 s (the loop 1.8 s), peak RSS 1.2 GB."
    )
    print(
        f"* collector on ÷ paused: {gc_ratio:.2f}× ({on['seconds']:.2f} s vs "
        f"{paused['seconds']:.2f} s) for Session.load, {viewer_ratio:.2f}× "
        f"({viewer_on['seconds']:.2f} s vs {viewer['seconds']:.2f} s) for the viewer's load. "
        "README (1 GB): twice as long."
    )
    for name, run in (("paused", paused), ("on", on), ("viewer, paused", viewer),
                      ("viewer, on", viewer_on)):  # fmt: skip
        figures.true(f"Session.load ({name}) replayed {run['lines']:,} of {lines:,} lines",
                     run["lines"] == lines)  # fmt: skip
        if run.get("last_line", lines) != lines:
            print(f"NOTE: Session.load ({name}): state.last_line is {run['last_line']:,}, "
                  f"the file has {lines:,} lines (all {run['lines']:,} replayed)")  # fmt: skip
        figures.positive(f"Session.load ({name})", run["seconds"])
        figures.true(
            f"Session.load ({name}) peak RSS {mb(run['peak'])} below the bare loop's "
            f"{mb(loop['peak'])}: a load keeps more than a loop",
            run["peak"] >= loop["peak"],
        )
    figures.positive("the bare loop", loop["seconds"])


# --- compaction: a long live tail, compactions that fold a few ------------------------


def compaction_files(directory: Path, live: int, compactions: int, fold: int) -> tuple[Path, Path]:
    """Two files of the same number of lines: one with ``compactions`` compaction lines
    that each fold ``fold`` messages (and the summary before), leaving ``live`` live
    messages; the other with a message in place of each compaction line."""
    total = live + fold * compactions
    every = total // (compactions + 1)
    ts = "2026-08-09T12:00:00.000000Z"

    def env(kind: str, eid: str, payload: dict[str, Any]) -> bytes:
        return orjson.dumps({"id": eid, "payload": payload, "ts": ts, "type": kind, "v": 1},
                            option=OPTS)  # fmt: skip

    paths = directory / f"compacted-{live}.jsonl", directory / f"plain-{live}.jsonl"
    with open(paths[0], "wb") as compacted, open(paths[1], "wb") as plain:
        meta = env("session-meta", str(uuid.uuid4()), {"agent": "bench"})
        compacted.write(meta)
        plain.write(meta)
        oldest: list[str] = []  # live message ids, oldest first (a reversed stack)
        start = 0
        done = 0
        for n in range(total):
            mid = f"m-{n:07d}-{uuid.uuid4().hex[:20]}"
            line = env("message", mid, {"role": "user" if n % 2 else "assistant",
                                        "content": f"message {n}"})  # fmt: skip
            compacted.write(line)
            plain.write(line)
            oldest.append(mid)
            if (n + 1) % every == 0 and done < compactions:
                through = oldest[start + fold - 1]
                start += fold
                cid = f"c-{done:04d}-{uuid.uuid4().hex[:20]}"
                payload = {"summary": f"summary {done}", "replaces-through-id": through}
                compacted.write(env("compaction", cid, payload))
                plain.write(env("message", cid, {"role": "user", "content": f"summary {done}"}))
                done += 1
    return paths


def reindexing_state(where: str) -> Any:
    """The replay before the shift: every live entry indexed again after each compaction."""
    from session_core.replay import ReplayState

    class ReindexingReplay(ReplayState):
        def _compact(self, eid: str, envelope: Any, payload: Any, line: int | None) -> None:
            super()._compact(eid, envelope, payload, line)
            self._index.clear()
            self._shift = 0
            for position, entry in enumerate(self.entries):
                self._index[entry[0]] = position

    return ReindexingReplay(where, lazy_facts=True)


def timed_replay(path: Path, reindex: bool) -> tuple[float, Any]:
    from session_core import gc_pause
    from session_core.reader import _replay_into, open_transcript, replay_file

    where = str(path)
    t0 = time.perf_counter()
    if reindex:
        with gc_pause.paused():
            state = _replay_into(reindexing_state(where), open_transcript(where), where, False)
    else:
        state = replay_file(where, tolerate_tail=False)
    return time.perf_counter() - t0, state


def figure_compaction(smoke: bool, figures: Figures) -> None:
    sizes = [(5_000, 20), (10_000, 40)] if smoke else [(50_000, 200), (100_000, 400)]
    fold = 3
    repeat = 2 if smoke else 3
    print("## Compactions that fold a few of a long live tail (file replay)\n")
    print("| live messages | compactions | lines | plain replay (no compaction) | current code "
          "| ÷ plain | re-indexing every live message (before) | ÷ plain |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    results = []
    with tempfile.TemporaryDirectory(prefix="figures-compaction-") as directory:
        for live, count in sizes:
            compacted, plain = compaction_files(Path(directory), live, count, fold)
            best: dict[str, float] = {}
            states: dict[str, Any] = {}
            timed_replay(plain, False)  # imports done and the page cache warm for all three
            for _ in range(repeat):
                for name, path, reindex in (
                    ("plain", plain, False),
                    ("current", compacted, False),
                    ("before", compacted, True),
                ):
                    seconds, state = timed_replay(path, reindex)
                    best[name] = min(best.get(name, float("inf")), seconds)
                    states[name] = state
            current, before = states["current"], states["before"]
            live_now = sum(1 for e in current.entries if e[0].startswith("m-"))
            lines = len(current.event_lines)  # events replayed: every line of these files
            results.append((live, best))
            print(
                f"| {live_now:,} | {len(current.compactions):,} | {lines:,} | "
                f"{best['plain']:.3f} s | {best['current']:.3f} s | "
                f"{ratio(best['current'], best['plain']):.2f}× | {best['before']:.3f} s | "
                f"{ratio(best['before'], best['plain']):.2f}× |"
            )
            figures.true(f"{live_now:,} live messages left, {live:,} meant", live_now == live)
            figures.true(f"{len(current.compactions)} compactions replayed, {count} written",
                         len(current.compactions) == count)  # fmt: skip
            figures.true(
                "the re-indexing replay differs from the current one",
                [e[0] for e in before.entries] == [e[0] for e in current.entries],
            )
            plain_lines = len(states["plain"].event_lines)
            figures.true(f"the plain file's {plain_lines:,} lines are not {lines:,}",
                         plain_lines == lines)  # fmt: skip
            for name, seconds in best.items():
                figures.positive(f"{live:,} live: {name}", seconds)
    (small, s), (big, b) = results
    growth = {k: ratio(b[k], s[k]) for k in b}
    print(
        f"\n* from {small:,} to {big:,} live messages (×{big / small:g}, compactions too): "
        f"plain {growth['plain']:.1f}×, current {growth['current']:.1f}×, "
        f"re-indexing {growth['before']:.1f}× (the square would be {(big / small) ** 2:g}×)."
    )
    print(
        f"* {big:,} live messages and {sizes[-1][1]} compactions: current {b['current']:.2f} s "
        f"(plain replay {b['plain']:.2f} s), re-indexing {b['before']:.2f} s. "
        "README: 0.34 s now vs 2.5 s before."
    )


# --- long-line: one 50 MB tool result ---------------------------------------------


def long_line_file(directory: Path, size: int) -> tuple[Path, int]:
    ts = "2026-08-09T12:00:00.000000Z"
    call = "call_" + uuid.uuid4().hex[:24]
    words = "the quick brown fox jumps over the lazy dog while the build runs again\n"
    content = (words * (size // len(words) + 1))[:size]
    lines = [
        ("session-meta", {"agent": "bench", "model": "kimi-k2"}),
        ("message", {"role": "user", "content": "run the tests and show me everything"}),
        ("message", {"role": "assistant", "content": "",
                     "tool-calls": [{"id": call, "type": "function",
                                     "function": {"name": "shell", "arguments": "{}"}}]}),
        ("message", {"role": "tool", "content": content, "tool-call-id": call}),
        ("message", {"role": "assistant", "content": "That was a lot of output."}),
    ]  # fmt: skip
    path = directory / "long-line.jsonl"
    with open(path, "wb") as fh:
        for kind, payload in lines:
            envelope = {"id": str(uuid.uuid4()), "payload": payload, "ts": ts, "type": kind}
            fh.write(orjson.dumps({**envelope, "v": 1}, option=OPTS))
    return path, len(lines)


async def long_line_viewer(path: Path, lines: int, timeout: float) -> dict[str, Any]:
    start = time.perf_counter()
    from viewer.app import TailscopeApp
    from viewer.widgets.items_view import ItemsView

    app = TailscopeApp(path)
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        mounted = time.perf_counter() - start
        await replayed(app, pilot, lines, timeout)
        loaded = time.perf_counter() - start
        view = app.query_one(ItemsView)
        replay = app.file_screen.live.replay.state
        events = replay.events  # a few lines: each read whole is no cost here
        sizes = {events.ids[i]: len(str(events[i].get("payload"))) for i in replay.message_events}

        def weight(i: int) -> int:  # how big the item's line is
            return sizes.get(view.items[i].id, 0)

        big = max(range(len(view.items)), key=weight)
        await pilot.pause(0.2)
        t0 = time.perf_counter()
        view.move_to(big)
        view.action_toggle_fold()
        drawn = [view.render_line(y) for y in range(view.size.height)]
        expanded = time.perf_counter() - t0
        whole = view.block_lines(big, view.size.width)  # the item, not the screen
        said = bool(drawn) and any("more character" in line.plain for line in whole)
    return {"mounted": mounted, "loaded": loaded, "expanded": expanded, "said": said,
            "peak": peak_rss()}  # fmt: skip


def figure_long_line(smoke: bool, timeout: float, figures: Figures) -> None:
    size = (2 if smoke else 50) * 1_000_000
    from session_core import Session

    with tempfile.TemporaryDirectory(prefix="figures-long-line-") as directory:
        path, lines = long_line_file(Path(directory), size)
        print(f"## A {size / 1e6:g} MB line (one tool result), {lines} lines\n")
        t0 = time.perf_counter()
        with open(path, "rb") as fh:
            for line in fh:
                orjson.loads(line)
        loop = time.perf_counter() - t0
        t0 = time.perf_counter()
        session = Session.load(path)
        load = time.perf_counter() - t0
        replayed_lines = len(session.state.event_lines)
        session.close()
        view = child("long-line-viewer", str(path), str(lines), str(timeout), timeout=timeout)
    print("| what | time |")
    print("|---|---:|")
    print(f"| bare orjson.loads of every line | {loop:.3f} s |")
    print(f"| Session.load | {load:.3f} s |")
    print(f"| viewer (headless): launch to screen mounted | {view['mounted']:.3f} s |")
    print(f"| viewer (headless): launch to the file replayed | {view['loaded']:.3f} s |")
    print(f"| viewer: mounted to replayed | {view['loaded'] - view['mounted']:.3f} s |")
    print(f"| viewer: that row expanded and the screen drawn | {view['expanded']:.3f} s |")
    print(
        f"\n* the viewer's load of it: {view['loaded'] - view['mounted']:.2f} s after the screen "
        f"mounted ({view['loaded']:.2f} s from launch); Session.load {load:.2f} s; expanding it "
        f"{view['expanded']:.2f} s, {'with' if view['said'] else 'WITHOUT'} a note of how much "
        "more there is. README: 'loads in 0.3 s and expands to a bounded excerpt'."
    )
    figures.true(
        f"Session.load replayed {replayed_lines} of {lines} lines", replayed_lines == lines
    )
    figures.true("the expanded excerpt says how much more there is", view["said"])
    for what, value in (("the loop", loop), ("Session.load", load), ("the viewer", view["loaded"]),
                        ("the expansion", view["expanded"])):  # fmt: skip
        figures.positive(what, value)


# --- datatable: DataTable holding every row vs the project's virtual views ------------


async def table_child(kind: str, path: Path, timeout: float) -> dict[str, Any]:
    from rich.text import Text
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    from session_core.diff import DiffRows
    from session_core.formats import V1, by_name
    from session_core.reader import replay_file
    from viewer.safe import one_line
    from viewer.widgets.diff_view import MARKS, DiffView
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
                return [Text(MARKS[row.kind]), Text(str(row.line)), Text(one_line(row.role, 12)),
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
    for kind in ("virtual-ops", "datatable-ops", "diffrows", "datatable-diff", "diffrow-list"):
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
        "README (1 GB, 167,446 rows): 38 s and 1.5 GB."
    )
    print(
        f"* diff ({dd['rows']:,} rows): DataTable {dd['seconds']:.1f} s and "
        f"{dd['peak'] / 1e9:.2f} GB (keeping every DiffRow too: {dl['seconds']:.1f} s and "
        f"{dl['peak'] / 1e9:.2f} GB), DiffRows {dv['seconds']:.2f} s and {mb(dv['peak'])}. "
        "README (1 GB, 310,333 rows): 8.8 s and 2.6 GB."
    )
    for kind, run in runs.items():
        want = run["ops"] if kind.endswith("ops") else run["diff"]
        figures.true(f"{names[kind]}: {run['rows']:,} rows, the file has {want:,}",
                     run["rows"] >= want > 0)  # fmt: skip
        figures.positive(f"{names[kind]}: its time", run["seconds"])
        figures.true(f"{names[kind]}: peak RSS below the replay's", run["peak"] >= run["before"])


# --- memory: the viewer's RSS split by structure -----------------------------------


def _deep(
    roots: list[tuple[str, Any]], ids: Any, skip: Callable[[Any], bool]
) -> tuple[dict[str, int], dict[str, int]]:
    """Bytes by root (first to reach an object owns it) and by kind of object; what the
    line ids (``ids``: packed, ``session_core.packed_ids``) hold counts as "ids"."""
    by_root: dict[str, int] = {}
    by_kind: dict[str, int] = {}
    seen: set[int] = set()
    get_referents = gc.get_referents
    sizeof = sys.getsizeof
    for name, root in roots:
        total = 0
        packed = root is ids
        stack = [root]
        while stack:
            obj = stack.pop()
            key = id(obj)
            if key in seen or skip(obj):
                continue
            seen.add(key)
            size = sizeof(obj)
            total += size
            t = type(obj)
            if packed:
                kind = "ids (packed)"
            elif t is str:
                kind = "strings"
            elif t is dict:
                kind = "dicts"
            elif t is array.array:
                kind = "arrays (per-line columns)"
            elif t is list:
                kind = "lists (pointer columns, entries)"
            elif t is tuple:
                kind = "tuples (entries, spans)"
            elif t in (int, float):
                kind = "numbers"
            elif t in (bytes, bytearray, memoryview):
                kind = "bytes"
            else:
                kind = "other objects"
            by_kind[kind] = by_kind.get(kind, 0) + size
            if t not in (str, int, float, bytes, array.array):
                stack.extend(get_referents(obj))
        by_root[name] = total
    return by_root, by_kind


def _attrs(prefix: str, obj: Any) -> Iterator[tuple[str, Any]]:
    names = list(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        names.extend(getattr(cls, "__slots__", ()))
    for name in names:
        with contextlib.suppress(AttributeError):
            yield f"{prefix}.{name}", getattr(obj, name)


async def memory_child(kind: str, path: Path, lines: int, timeout: float) -> dict[str, Any]:
    from textual.message_pump import MessagePump

    from viewer.app import TailscopeApp

    app = TailscopeApp(path)
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await replayed(app, pilot, lines, timeout)
        await pilot.pause(0.5)
        gc.collect()
        rss = current_rss()
        if kind == "viewer-baseline":
            return {"rss": rss, "peak": peak_rss()}
        screen = app.file_screen
        state = screen.live.replay.state
        model = screen.live._model  # v1's neutral model beside the replay
        ids = state.events.ids  # (packed: the first root, so that it owns its buffers)
        skip_types = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                      types.MethodType, types.CodeType, types.FrameType)  # fmt: skip

        def skip(obj: Any) -> bool:
            return isinstance(obj, (*skip_types, MessagePump))

        roots = [
            ("state.events.ids", ids),
            *_attrs("state.events", state.events),
            *_attrs("state.events.facts", state.events.facts),
            *_attrs("state.tool_ops", state.tool_ops),
            *_attrs("state", state),
            *_attrs("model", model),
            *_attrs("snapshot", screen.transcript),
            *_attrs("conversation", screen.conversation),
        ]
        by_root, by_kind = _deep(roots, ids, skip)
    return {"rss": rss, "peak": peak_rss(), "by_root": by_root, "by_kind": by_kind,
            "ids": len(ids), "lines": len(state.event_lines)}  # fmt: skip


def figure_memory(size: str, data_dir: Path, timeout: float, figures: Figures) -> None:
    path, _marker, lines = marked_transcript(data_dir, size)
    with tempfile.TemporaryDirectory(prefix="figures-memory-") as directory:
        tiny = Path(directory) / "tiny.jsonl"
        meta = {"id": "m", "payload": {}, "ts": "2026-08-09T12:00:00.000000Z",
                "type": "session-meta", "v": 1}  # fmt: skip
        message = {**meta, "id": "a", "type": "message",
                   "payload": {"role": "user", "content": "hello"}}  # fmt: skip
        tiny.write_bytes(orjson.dumps(meta, option=OPTS) + orjson.dumps(message, option=OPTS))
        base = child("viewer-baseline", str(tiny), "2", str(timeout), timeout=timeout + 60)
    run = child("viewer-memory", str(path), str(lines), str(timeout), timeout=timeout + 300)
    file_size = path.stat().st_size
    print(f"## The viewer's memory at {size} ({lines:,} lines), after a headless load\n")
    print(f"RSS after the load {mb1(run['rss'])} (peak {mb1(run['peak'])}, "
          f"{run['peak'] / file_size:.0%} of the file); the same app on a two-line file: "
          f"{mb1(base['rss'])} (Python and Textual themselves).\n")  # fmt: skip
    print("| kind of object (from the state, the model, the snapshot, the view) | size |")
    print("|---|---:|")
    kinds = sorted(run["by_kind"].items(), key=lambda kv: -kv[1])
    for kind, nbytes in kinds:
        print(f"| {kind} | {mb1(nbytes)} |")
    counted = sum(run["by_kind"].values())
    print(f"| **all of them** | {mb1(counted)} |")
    print("\n| structure (first to reach an object owns it) | size |")
    print("|---|---:|")
    for name, nbytes in sorted(run["by_root"].items(), key=lambda kv: -kv[1])[:16]:
        print(f"| `{name}` | {mb1(nbytes)} |")
    other = run["rss"] - counted - base["rss"]
    print(
        f"\n* RSS {mb1(run['rss'])} = Python and Textual {mb1(base['rss'])} + these structures "
        f"{mb1(counted)} + {mb1(other)} not reached from them (allocator slack, caches, the "
        "widgets' own state)."
    )
    by_kind = run["by_kind"]
    dicts = by_kind.get("dicts", 0)
    columns = by_kind.get("arrays (per-line columns)", 0) + by_kind.get(
        "lists (pointer columns, entries)", 0
    )
    compactions = run["by_root"].get("state.compactions", 0)
    print(
        f"* ids {mb1(by_kind.get('ids (packed)', 0))} ({run['ids']:,}, packed), dicts "
        f"{mb1(dicts)}, per-line columns (arrays and lists) {mb1(columns)}, compaction records "
        f"{mb1(compactions)}, Python and Textual {mb1(base['rss'])}. README (1 GB, before ids were "
        "packed): ids 57 MB, "
        "dicts by id about 35 MB, per-line columns about 45 MB, Python and Textual about 60 MB."
    )
    figures.true(f"the viewer replayed {run['lines']:,} of {lines:,} lines", run["lines"] == lines)
    figures.true(f"{run['ids']:,} ids for {lines:,} lines", 0 < run["ids"] <= lines)
    figures.positive("the packed ids", by_kind.get("ids (packed)"))
    figures.true(
        f"the structures ({mb1(counted)}) exceed the whole RSS ({mb1(run['rss'])})",
        counted < run["rss"],
    )
    figures.true(
        f"the baseline ({mb1(base['rss'])}) exceeds the loaded app's RSS ({mb1(run['rss'])})",
        base["rss"] < run["rss"],
    )


# --- main ---------------------------------------------------------------------------

FIGURES = ("load", "compaction", "long-line", "datatable", "memory")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["_child"]:
        print(json.dumps(child_main(argv[1], argv[2:])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("figure", choices=(*FIGURES, "all"))
    parser.add_argument("--size", default="1GB", help="the generated file (open_big.py's)")
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per wait")
    parser.add_argument("--repeat", type=int, default=3, help="load: runs of each, the best kept")
    parser.add_argument("--smoke", action="store_true", help="2MB and small cases (for CI)")
    args = parser.parse_args(argv)
    size = "2MB" if args.smoke else args.size
    figures = Figures()
    chosen = FIGURES if args.figure == "all" else (args.figure,)
    print(f"bench/figures.py {' '.join(argv)}: {os.cpu_count()} CPUs, Python "
          f"{sys.version.split()[0]}, {time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n")  # fmt: skip
    for name in chosen:
        if name == "load":
            figure_load(
                size, args.data_dir, args.timeout, figures, 1 if args.smoke else args.repeat
            )
        elif name == "compaction":
            figure_compaction(args.smoke, figures)
        elif name == "long-line":
            figure_long_line(args.smoke, args.timeout, figures)
        elif name == "datatable":
            figure_datatable(size, args.data_dir, args.timeout, figures)
        elif name == "memory":
            figure_memory(size, args.data_dir, args.timeout, figures)
        print()
    return figures.verdict()


if __name__ == "__main__":
    sys.exit(main())
