"""The Codex viewer's load without the viewer: two builds, alternately, in one run.

    python bench/codex_feed.py FILE [--base /tmp/codexbase] [--reps 5] [--draw]

Each launch is a process of its own that reads FILE as the model screen's worker does
(``follow``'s raw batches of ``MAX_BATCH_BYTES`` into ``fmt.live(path).apply``, the
cyclic collector paused) and takes one ``transcript()`` at the end; ``--draw`` also
takes a snapshot whenever the screen would (every ``DRAW_EVERY`` seconds, or a tenth
of the time at most). Per launch: the seconds fed, the last snapshot's, the total.
The builds alternate (``--base`` is another build unpacked by ``git archive``, run
with ``PYTHONPATH`` and ``python -P``; the other is this tree), so a slow minute
slows both; a bare ``orjson.loads`` loop over the file is timed beside each pair.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TREE = HERE.parent


def child(path: str, draw: bool) -> dict[str, float]:
    from session_core import gc_pause
    from session_core.following import MAX_BATCH_BYTES, _Tail
    from session_core.formats import by_name

    cpu = time.process_time()
    started = time.perf_counter()
    live = by_name("codex").live(path)
    tail = _Tail(path, parse=False)
    snapshots = 0
    snap_time = 0.0
    drawn_at, cost = started, 0.0
    gc_pause.hold()
    try:
        while True:
            update = tail.step(MAX_BATCH_BYTES)
            if update is None:
                break
            live.apply(update)
            if update.caught_up:
                break
            now = time.perf_counter()
            if draw and now >= drawn_at + max(0.4, cost / 0.1):
                live.transcript(writer_alive=False)
                drawn_at = time.perf_counter()
                cost = drawn_at - now
                snapshots += 1
                snap_time += cost
        fed = time.perf_counter()
        live.transcript(writer_alive=False)
        done = time.perf_counter()
    finally:
        tail.close()
        gc_pause.release()
    return {
        "fed": fed - started,
        "last": done - fed,
        "total": done - started,
        "cpu": time.process_time() - cpu,
        "snapshots": snapshots,
        "snap_time": snap_time,
    }


def loop(path: str) -> float:
    import orjson

    started = time.perf_counter()
    loads = orjson.loads
    with open(path, "rb") as fh:
        for line in fh:
            loads(line)
    return time.perf_counter() - started


def launch(build: str | None, path: str, draw: bool) -> dict[str, float]:
    env = dict(os.environ)
    argv = [sys.executable]
    if build is not None:
        env["PYTHONPATH"] = build
        argv.append("-P")
    else:
        env["PYTHONPATH"] = str(TREE)
    argv += [str(Path(__file__).resolve()), path, "--child"]
    if draw:
        argv.append("--draw")
    out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("--base", default="/tmp/codexbase")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--draw", action="store_true")
    parser.add_argument("--child", action="store_true")
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.file, args.draw)))
        return 0
    seen: dict[str, list[dict[str, float]]] = {"base": [], "new": []}
    loops: list[float] = []
    for rep in range(args.reps):
        order = [("base", args.base), ("new", None)]
        if rep % 2:
            order.reverse()
        for name, build in order:
            seen[name].append(launch(build, args.file, args.draw))
        loops.append(loop(args.file))
        b, n = seen["base"][-1], seen["new"][-1]
        print(
            f"rep {rep + 1}: base {b['total']:.2f} s (fed {b['fed']:.2f}, last {b['last']:.2f},"
            f" {b['snapshots']:.0f} snaps {b['snap_time']:.2f} s), new {n['total']:.2f} s"
            f" (fed {n['fed']:.2f}, last {n['last']:.2f}, {n['snapshots']:.0f} snaps"
            f" {n['snap_time']:.2f} s), new/base {n['total'] / b['total']:.3f}"
            f" (CPU {b['cpu']:.2f} / {n['cpu']:.2f} s: {n['cpu'] / b['cpu']:.3f}),"
            f" loop {loops[-1]:.2f} s",
            flush=True,
        )
    ratios = [n["total"] / b["total"] for b, n in zip(seen["base"], seen["new"], strict=True)]
    cpus = [n["cpu"] / b["cpu"] for b, n in zip(seen["base"], seen["new"], strict=True)]
    for name, runs in seen.items():
        totals = [r["total"] for r in runs]
        print(
            f"{name}: total median {statistics.median(totals):.2f} s "
            f"(range {min(totals):.2f}–{max(totals):.2f})"
        )
    print(
        f"new/base: median {statistics.median(ratios):.3f} (range {min(ratios):.3f}–"
        f"{max(ratios):.3f}); CPU median {statistics.median(cpus):.3f} (range "
        f"{min(cpus):.3f}–{max(cpus):.3f}); loop median {statistics.median(loops):.2f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
