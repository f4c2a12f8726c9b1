"""long-line: one 50 MB tool result, loaded and expanded in the viewer."""

from __future__ import annotations

import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import orjson
from figures_common import HEIGHT, WIDTH, child, peak_rss
from gen_common import OPTS
from open_big import replayed
from sanity import Figures


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
        "more there is. docs/performance.md: 'loads in 0.3 s and expands to a bounded excerpt'."
    )
    figures.true(
        f"Session.load replayed {replayed_lines} of {lines} lines", replayed_lines == lines
    )
    figures.true("the expanded excerpt says how much more there is", view["said"])
    for what, value in (("the loop", loop), ("Session.load", load), ("the viewer", view["loaded"]),
                        ("the expansion", view["expanded"])):  # fmt: skip
        figures.positive(what, value)
