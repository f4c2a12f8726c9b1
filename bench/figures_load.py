"""load: ``Session.load``'s time and RSS, the collector paused and on, beside the bare
loop and the viewer's whole load."""

from __future__ import annotations

import asyncio
import gc
import time
from pathlib import Path
from typing import Any

from figures_common import HEIGHT, WIDTH, best_of, mb, peak_rss, ratio
from open_big import bare_loop, marked_transcript, replayed
from sanity import Figures

LOAD_KINDS = ("loop", "load", "load-gc-on", "viewer-load", "viewer-load-gc-on")


def _collector_on() -> None:
    """The collector stays on for the whole load: the shipped pause made a no-op."""
    from session_core import gc_pause

    gc_pause.hold = lambda: None
    gc_pause.release = lambda: None
    gc.enable()


def load_child(kind: str, args: list[str]) -> dict[str, Any]:
    """One run of one of ``LOAD_KINDS``, in a process of its own (``figures.py _child``)."""
    if kind == "loop":
        seconds = bare_loop(Path(args[0]))
        return {"seconds": seconds, "peak": peak_rss()}
    if kind.endswith("-gc-on"):
        _collector_on()
    if kind.startswith("viewer-load"):
        return asyncio.run(viewer_load(Path(args[0]), int(args[1]), float(args[2])))
    from session_core import Session

    before = sum(s["collections"] for s in gc.get_stats())
    t0 = time.perf_counter()
    session = Session.load(args[0])
    seconds = time.perf_counter() - t0
    state = session.state
    collections = sum(s["collections"] for s in gc.get_stats()) - before
    session.close()
    return {"seconds": seconds, "peak": peak_rss(), "lines": len(state.event_lines),
            "last_line": state.last_line, "gcs": collections}  # fmt: skip


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
        f"{paused['peak'] / 1e9:.2f} GB. performance.md (1 GB): 3.6 s (the loop 1.8 s), "
        "peak RSS 1.2 GB."
    )
    print(
        f"* collector on ÷ paused: {gc_ratio:.2f}× ({on['seconds']:.2f} s vs "
        f"{paused['seconds']:.2f} s) for Session.load, {viewer_ratio:.2f}× "
        f"({viewer_on['seconds']:.2f} s vs {viewer['seconds']:.2f} s) for the viewer's load. "
        "performance.md (1 GB): twice as long."
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
