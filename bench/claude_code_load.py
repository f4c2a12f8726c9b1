"""The viewer's full load of a Claude Code file, headless, for builds side by side.

    python bench/claude_code_load.py [--size 100MB] [--reps 5] [--build NAME=ROOT ...] [--v1]

What the model screen's worker does with a file, without the screen: ``follow``'s raw
batches (4 MB, as ``_Tail`` reads them) applied to ``fmt.live(path)``, the collector
paused, then one snapshot (``transcript()``). Each build (a tree holding
``session_core``: this one, or an older commit unpacked with ``git archive REV
session_core viewer | tar -x -C ROOT``) is run in a fresh ``python -P`` with
``PYTHONPATH=ROOT``, the builds in turn, round after round, so that a slow minute on a
shared machine slows each; ``--v1`` adds v1's live replay (``LiveTranscript``) of the
v1 file of the same size to each round. Per run: seconds to apply every batch, the
snapshot's seconds, the CPU seconds of both (steadier than the clock on a shared
machine), and the peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

_CHILD = r"""
import gc, json, os, resource, sys, time
from session_core.following import MAX_BATCH_BYTES, _Tail
path, kind = sys.argv[1], sys.argv[2]
gc.disable()
if kind == "v1":
    from session_core.live import LiveTranscript
    model = LiveTranscript(path)
else:
    from session_core.formats import by_name
    model = by_name("claude-code").live(path)
tail = _Tail(os.path.abspath(path), parse=False)
started, cpu = time.perf_counter(), time.process_time()
while True:
    update = tail.step(MAX_BATCH_BYTES)
    if update is None:
        break
    model.apply(update)
    if update.caught_up:
        break
fed = time.perf_counter()
if kind != "v1":
    model.transcript(writer_alive=False)
done = time.perf_counter()
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
figures = {"feed": fed - started, "snapshot": done - fed, "peak": peak}
print(json.dumps({**figures, "cpu": time.process_time() - cpu}))
"""


def _file(kind: str, size: str) -> Path:
    sys.path.insert(0, str(HERE))
    import model_scale

    fmt = "transcript-v1" if kind == "v1" else "claude-code"
    return model_scale.bench_file(HERE / "data", fmt, size)[0]


def run(root: str, path: Path, kind: str) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.run(
        [sys.executable, "-P", "-c", _CHILD, str(path), kind],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        cwd="/",
    ).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="100MB")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--build", action="append", default=[], help="NAME=ROOT")
    parser.add_argument("--v1", action="store_true", help="v1's live replay beside them")
    args = parser.parse_args(argv)
    builds = dict(b.split("=", 1) for b in args.build) or {"this": str(ROOT)}
    runs: list[tuple[str, str]] = [(name, "claude-code") for name in builds]
    if args.v1:
        runs.append(("v1", "v1"))
    paths = {kind: _file(kind, args.size) for _, kind in runs}
    seen: dict[str, list[dict[str, float]]] = {name: [] for name, _ in runs}
    for rep in range(args.reps):
        order = runs[rep % len(runs) :] + runs[: rep % len(runs)]
        for name, kind in order:
            root = builds.get(name, str(ROOT))
            figures = run(root, paths[kind], kind)
            seen[name].append(figures)
            print(
                f"round {rep + 1} {name:>8}: feed {figures['feed']:.2f} s, snapshot "
                f"{figures['snapshot']:.3f} s (CPU {figures['cpu']:.2f} s in all), peak "
                f"{figures['peak'] / 1e6:.0f} MB",
                flush=True,
            )
    print()
    for name, figures in seen.items():
        feeds = [f["feed"] for f in figures]
        cpus = [f["cpu"] for f in figures]
        print(
            f"{name:>8}: feed {min(feeds):.2f}–{max(feeds):.2f} s "
            f"(median {statistics.median(feeds):.2f}), snapshot median "
            f"{statistics.median(f['snapshot'] for f in figures):.3f} s, CPU in all "
            f"{min(cpus):.2f}–{max(cpus):.2f} s, peak "
            f"{max(f['peak'] for f in figures) / 1e6:.0f} MB"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
