"""The viewer's full load of a file, headless, for builds side by side.

    python bench/model_feed.py [FILE] [--format NAME] [--size 100MB] [--reps 5]
        [--build NAME=ROOT ...] [--base ROOT] [--v1] [--draw] [--steady]

What the model screen's worker does with a file, without the screen: ``follow``'s raw
batches (``MAX_BATCH_BYTES``, as ``TailReader`` reads them) applied to ``fmt.live(path)``,
the cyclic collector paused, then one snapshot (``transcript()``); ``--draw`` also
takes a snapshot whenever the screen would (every ``DRAW_EVERY`` seconds, or a tenth of
the time at most); ``--steady`` fixes the C allocator's mmap threshold first, as the
viewer does (``session_core.malloc.steady_malloc``). FILE's format is ``--format`` or
the one that claims its first line; without FILE, the generated file of ``--format``
at ``--size`` (made if missing).

Each build (a tree holding ``session_core``: this one, or an older commit unpacked with
``git archive REV session_core viewer | tar -x -C ROOT``) is run in a fresh ``python
-P`` with ``PYTHONPATH=ROOT``, the builds in turn, round after round, so that a slow
minute on a shared machine slows each. ``--base ROOT`` is ``--build base=ROOT`` (with
this tree beside it as ``new`` when no other ``--build`` is named), and each other build
is also given as a ratio to it. ``--v1`` adds v1's live replay (``LiveTranscript``, no
snapshots) of the v1 file of ``--size`` to each round.

Per run: the seconds from the model's making to the last batch applied (the draws
among them), the last snapshot's seconds, the total, the CPU seconds of all (steadier
than the clock on a shared machine), the draws and the peak RSS; per round, a bare
``orjson.loads`` loop over the file beside them.
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
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
V1_REPLAY = "v1-replay"  # the child's kind for ``--v1``: v1's LiveTranscript

Figures = dict[str, float]


def child(path: str, kind: str, draw: bool, steady: bool = False) -> Figures:
    """One load in this process (run with the build's ``session_core`` on the path)."""
    import gc
    import resource

    sys.path.append(str(HERE))
    from model_dump import batches

    if steady:
        from session_core.malloc import steady_malloc

        steady_malloc()
    gc.disable()
    cpu, started = time.process_time(), time.perf_counter()
    if kind == V1_REPLAY:
        from session_core.live import LiveTranscript

        model: Any = LiveTranscript(path)
    else:
        from session_core.formats import by_name

        model = by_name(kind).live(path)
    snapshots, snap_time = 0, 0.0
    drawn_at, cost = started, 0.0
    for update in batches(path):
        model.apply(update)
        now = time.perf_counter()
        screen_draws = draw and kind != V1_REPLAY and not update.caught_up
        if screen_draws and now >= drawn_at + max(0.4, cost / 0.1):
            model.transcript(writer_alive=False)
            drawn_at = time.perf_counter()
            cost = drawn_at - now
            snapshots += 1
            snap_time += cost
    fed = time.perf_counter()
    if kind != V1_REPLAY:
        model.transcript(writer_alive=False)
    done = time.perf_counter()
    return {
        "feed": fed - started,
        "snapshot": done - fed,
        "total": done - started,
        "cpu": time.process_time() - cpu,
        "snapshots": snapshots,
        "snap_time": snap_time,
        "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }


def loop(path: Path) -> float:
    """A bare ``orjson.loads`` over every line: the floor under any reader."""
    import orjson

    started = time.perf_counter()
    loads = orjson.loads
    with open(path, "rb") as fh:
        for line in fh:
            loads(line)
    return time.perf_counter() - started


def run(root: str, path: Path, kind: str, draw: bool, steady: bool = False) -> Figures:
    argv = [sys.executable, "-P", str(Path(__file__).resolve()), str(path), "--child", kind]
    if draw:
        argv.append("--draw")
    if steady:
        argv.append("--steady")
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.run(argv, env=env, check=True, capture_output=True, text=True, cwd="/")
    result: Figures = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _generated(fmt: str, size: str) -> Path:
    import model_scale

    return Path(model_scale.bench_file(HERE / "data", fmt, size)[0])


def _range(values: list[float], digits: int) -> str:
    return f"{min(values):.{digits}f}–{max(values):.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file", nargs="?", help="default: the generated file of --format")
    parser.add_argument("--format", help="a registered format's name (default: FILE's)")
    parser.add_argument("--size", default="100MB", help="of the generated files (100MB)")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--build", action="append", default=[], help="NAME=ROOT")
    parser.add_argument("--base", metavar="ROOT", help="a build the others are divided by")
    parser.add_argument("--v1", action="store_true", help="v1's live replay beside them")
    parser.add_argument("--draw", action="store_true", help="snapshots as the screen draws")
    parser.add_argument(
        "--steady", action="store_true", help="the viewer's allocator setting (steady_malloc)"
    )
    parser.add_argument("--child", metavar="KIND", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.file, args.child, args.draw, args.steady)))
        return 0
    sys.path.insert(0, str(HERE))
    if args.file is None:
        if args.format is None:
            parser.error("name a FILE or a --format")
        path = _generated(args.format, args.size)
    else:
        path = Path(args.file).resolve()
    from model_dump import format_name

    kind = format_name(str(path), args.format)
    builds = dict(b.split("=", 1) for b in args.build)
    if args.base is not None:
        builds = {"base": args.base, **(builds or {"new": str(ROOT)})}
    builds = builds or {"this": str(ROOT)}
    runs = [(name, root, path, kind) for name, root in builds.items()]
    if args.v1:
        runs.append(("v1", str(ROOT), _generated("transcript-v1", args.size), V1_REPLAY))
    print(f"{path.name} ({kind}), {len(runs)} runs a round", flush=True)
    seen: dict[str, list[Figures]] = {name: [] for name, *_ in runs}
    loops: list[float] = []
    base = seen.get("base", [])
    others = {n: f for n, f in seen.items() if "base" in seen and n not in ("base", "v1")}
    for rep in range(args.reps):
        for name, root, file, what in runs[rep % len(runs) :] + runs[: rep % len(runs)]:
            f = run(root, file, what, args.draw, args.steady)
            seen[name].append(f)
            print(
                f"round {rep + 1} {name:>8}: {f['total']:.2f} s (feed {f['feed']:.2f}, "
                f"snapshot {f['snapshot']:.3f}, {f['snapshots']:.0f} draws "
                f"{f['snap_time']:.2f} s; CPU {f['cpu']:.2f} s), peak {f['peak'] / 1e6:.0f} MB",
                flush=True,
            )
        loops.append(loop(path))
        ratios = [
            f", {name}/base {f[-1]['total'] / base[-1]['total']:.3f} "
            f"(CPU {f[-1]['cpu'] / base[-1]['cpu']:.3f})"
            for name, f in others.items()
        ]
        print(f"round {rep + 1}: loop {loops[-1]:.2f} s{''.join(ratios)}", flush=True)
    print()
    for name, figures in seen.items():
        totals = [f["total"] for f in figures]
        feeds = [f["feed"] for f in figures]
        print(
            f"{name:>8}: total median {statistics.median(totals):.2f} s ({_range(totals, 2)}), "
            f"feed {_range(feeds, 2)} s, snapshot median "
            f"{statistics.median(f['snapshot'] for f in figures):.3f} s, CPU "
            f"{_range([f['cpu'] for f in figures], 2)} s, peak "
            f"{max(f['peak'] for f in figures) / 1e6:.0f} MB"
        )
    for name, figures in others.items():
        ratios = [f["total"] / b["total"] for b, f in zip(base, figures, strict=True)]
        cpus = [f["cpu"] / b["cpu"] for b, f in zip(base, figures, strict=True)]
        print(
            f"{name}/base: median {statistics.median(ratios):.3f} ({_range(ratios, 3)}); "
            f"CPU median {statistics.median(cpus):.3f} ({_range(cpus, 3)})"
        )
    print(f"loop: median {statistics.median(loops):.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
