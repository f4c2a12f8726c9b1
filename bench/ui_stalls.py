"""How long the viewer's UI thread is kept from its event loop while a big file loads.

    python bench/ui_stalls.py FILE [--build NAME=ROOT ...] [--reps 2] [--after 3]
    python bench/ui_stalls.py --smoke    # every format's 2 MB file once, in CI

The app runs headless (``run_test``) in a process of its own, with ``steady_malloc`` as
the viewer has it. A task on the app's event loop wakes every 10 ms; each wake-up later
than that is a stall: the time a key, a scroll or a redraw would have waited. Measured
from the app's start until the file is loaded (the preview gone, every line replayed)
and ``--after`` seconds more, which takes in the first snapshots that link other files.
Prints the longest stall, the 99th percentile and the seconds to the load's end, per
build (``ROOT``: a tree holding ``session_core`` and ``viewer``, such as an older commit
unpacked by ``git archive REV | tar -x -C ROOT``; without ``--build``, this tree), the
builds in turn, round after round.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TICK = 0.01


def child(path: str, after: float) -> dict[str, float]:
    from session_core.malloc import steady_malloc

    steady_malloc()
    from viewer.app import TailscopeApp

    gaps: list[float] = []
    loaded_at = 0.0

    async def run() -> None:
        nonlocal loaded_at
        app = TailscopeApp(path)
        started = time.perf_counter()
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.file_screen
            last = time.perf_counter()
            end = None
            while end is None or time.perf_counter() < end:
                await asyncio.sleep(TICK)
                now = time.perf_counter()
                gaps.append(now - last - TICK)
                last = now
                if end is None and screen._loaded and not screen._previewing:
                    loaded_at = now - started
                    end = now + after
            await pilot.pause(0)

    asyncio.run(run())
    gaps.sort()
    return {
        "max": gaps[-1],
        "p99": gaps[int(len(gaps) * 0.99)],
        "over_100ms": float(sum(g > 0.1 for g in gaps)),
        "loaded": loaded_at,
    }


def run(root: str, path: str, after: float) -> dict[str, float]:
    """One load in a fresh process with ``root``'s build on the path."""
    argv = [sys.executable, "-P", str(Path(__file__).resolve()), path, "--child"]
    argv += ["--after", str(after)]
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.run(argv, env=env, check=True, capture_output=True, text=True)
    figures: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return figures


def smoke() -> int:
    """Each format's generated 2 MB file loaded once: the figures are there and sane."""
    import tempfile

    sys.path.insert(0, str(HERE))
    import model_scale

    with tempfile.TemporaryDirectory() as tmp:
        for fmt in model_scale.FORMATS:
            path, _marker, _lines = model_scale.bench_file(Path(tmp), fmt, "2MB")
            f = run(str(HERE.parent), str(path), 0.2)
            print(f"{fmt}: longest stall {f['max'] * 1000:.0f} ms, loaded at {f['loaded']:.2f} s")
            assert 0 < f["loaded"] < 60 and 0 <= f["p99"] <= f["max"] < 60, f
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file", nargs="?")
    parser.add_argument("--build", action="append", default=[], metavar="NAME=ROOT")
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--after", type=float, default=3.0)
    parser.add_argument("--smoke", action="store_true", help="every format, small, once")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.file, args.after)))
        return 0
    if args.smoke:
        return smoke()
    if args.file is None:
        parser.error("a FILE, or --smoke")
    builds = [b.split("=", 1) for b in args.build] or [["this", str(HERE.parent)]]
    seen: dict[str, list[dict[str, float]]] = {name: [] for name, _ in builds}
    for rep in range(args.reps):
        for name, root in builds:
            f = run(root, args.file, args.after)
            seen[name].append(f)
            print(
                f"round {rep + 1} {name:>8}: longest stall {f['max'] * 1000:.0f} ms, "
                f"p99 {f['p99'] * 1000:.0f} ms, {f['over_100ms']:.0f} over 100 ms, "
                f"loaded at {f['loaded']:.2f} s",
                flush=True,
            )
    for name, runs in seen.items():
        longest = statistics.median(r["max"] for r in runs) * 1000
        loaded = statistics.median(r["loaded"] for r in runs)
        print(f"{name:>8}: longest stall median {longest:.0f} ms, loaded median {loaded:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
