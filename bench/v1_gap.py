"""A v1 file's load on the model screen's path against the old v1 screen's, headless.

    python bench/v1_gap.py --old OLD [FILE ...] [--size 100MB] [--reps 3] [--trace [N]]
        [--base ROOT]

``model``: what ``ModelScreen`` does with a v1 file: ``follow``'s raw batches applied to
``V1Live`` (``LiveTranscript``'s index pass, then ``V1Model.advance``), then the first
snapshot (``transcript()``) and its views' folded heights (the block view's rows).
``screen``: what the old v1 screen (``TranscriptScreen``, deleted since) did: the same
batches into ``LiveTranscript``, then the usage tally and the replayed conversation's
rows and their heights (``viewer.rows``), run from the tree ``--old`` names (a build
unpacked with ``git archive 8161f3d``). Each in a fresh ``python -P``, the two in turn
round after round (the first of each round alternating), so that a slow minute on a
shared machine slows both; the ratio model/screen is of the same round.

Per run: feed seconds (batches applied), the snapshot's (or rows') seconds, total, CPU,
peak RSS. ``--trace`` runs each once more under ``tracemalloc`` (slow: its times are not
compared) and prints the memory held after the load and its top ``N`` lines.
``--base ROOT`` adds the model screen's path of another build (a tree holding
``session_core``: ``git archive REV session_core viewer | tar -x -C ROOT``) to each
round, as ``base``. Without FILE: the generated v1 file of ``--size``
(``bench/data/open-big-SIZE.jsonl``).
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
KINDS = ("model", "screen")


def _model(path: str) -> tuple[Any, float, float]:
    from model_dump import batches

    from session_core.formats import by_name

    live = by_name("transcript-v1").live(path)
    started = time.perf_counter()
    for update in batches(path):
        live.apply(update)
    fed = time.perf_counter()
    transcript = live.transcript(writer_alive=False)
    transcript.messages.folded_heights()
    transcript.raw.folded_heights()
    return (live, transcript), fed - started, time.perf_counter() - fed


def _screen(path: str) -> tuple[Any, float, float]:
    from model_dump import batches
    from rich.style import Style

    from session_core.live import LiveTranscript
    from session_core.usage import UsageTally
    from viewer.rows import RowRenderer, replayed_rows

    live = LiveTranscript(path)
    started = time.perf_counter()
    for update in batches(path):
        live.apply(update)
    fed = time.perf_counter()
    usage = UsageTally()
    usage.update(live.state)
    renderer = RowRenderer(live.state, lambda _name: Style(), "replayed")
    renderer.index_new()
    rows = replayed_rows(renderer, live.state.entries, None)
    heights = [renderer.height(row, False, False, 100) for row in rows]
    return (live, usage, renderer, rows, heights), fed - started, time.perf_counter() - fed


def child(path: str, kind: str, trace: int) -> dict[str, Any]:
    """One load in this process."""
    import gc
    import resource

    sys.path.append(str(HERE))
    if trace:
        import tracemalloc

        tracemalloc.start()
    gc.disable()
    cpu, started = time.process_time(), time.perf_counter()
    kept, feed, after = (_model if kind == "model" else _screen)(path)
    figures: dict[str, Any] = {
        "feed": feed,
        "after": after,
        "total": time.perf_counter() - started,
        "cpu": time.process_time() - cpu,
        "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
    }
    if trace:
        gc.collect()
        snapshot = tracemalloc.take_snapshot()
        stats = snapshot.statistics("lineno")
        figures["held"] = sum(s.size for s in stats)
        figures["top"] = [
            (
                f"{s.traceback[0].filename.removeprefix(str(ROOT) + '/')}:{s.traceback[0].lineno}",
                s.size,
                s.count,
            )
            for s in stats[:trace]
        ]
    del kept
    return figures


def run(path: Path, kind: str, trace: int, root: Path = ROOT) -> dict[str, Any]:
    argv = [sys.executable, "-P", str(Path(__file__).resolve()), str(path), "--child", kind]
    if trace:
        argv += ["--trace", str(trace)]
    bench = root / "bench" if kind == "screen" else HERE  # the old screen's tree is all old
    env = dict(os.environ, PYTHONPATH=f"{root}:{bench}")
    out = subprocess.run(argv, env=env, check=True, capture_output=True, text=True, cwd="/")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def _range(values: list[float], digits: int) -> str:
    return f"{min(values):.{digits}f}–{max(values):.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="*")
    parser.add_argument("--size", default="100MB")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--trace", type=int, nargs="?", const=15, default=0, metavar="N")
    parser.add_argument("--base", type=Path, metavar="ROOT", help="another build, as base")
    parser.add_argument("--old", type=Path, help="the tree of a build with the old v1 screen")
    parser.add_argument("--child", choices=KINDS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.files[0], args.child, args.trace)))
        return 0
    if args.old is None or not (args.old / "viewer" / "rows.py").is_file():
        parser.error("--old: a tree with viewer/rows.py (git archive 8161f3d | tar -x -C DIR)")
    files = [Path(f).resolve() for f in args.files] or [
        HERE / "data" / f"open-big-{args.size}.jsonl"
    ]
    # name -> (the child's kind, the build's root)
    runs = {kind: (kind, args.old.resolve() if kind == "screen" else ROOT) for kind in KINDS}
    if args.base is not None:
        runs["base"] = ("model", args.base.resolve())
    names = list(runs)
    pairs = [("model", "screen"), ("base", "screen"), ("model", "base")]
    pairs = [(a, b) for a, b in pairs if a in runs and b in runs]
    for path in files:
        print(f"{path.name}: {args.reps} rounds of {', '.join(names)}", flush=True)
        seen: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
        ratios: dict[tuple[str, str], list[tuple[float, float, float]]] = {p: [] for p in pairs}
        for rep in range(args.reps):
            shift = rep % len(names)
            for name in names[shift:] + names[:shift]:
                kind, root = runs[name]
                f = run(path, kind, 0, root)
                seen[name].append(f)
                print(
                    f"round {rep + 1} {name:>6}: {f['total']:.2f} s (feed {f['feed']:.2f}, "
                    f"after {f['after']:.3f}; CPU {f['cpu']:.2f}), peak {f['peak'] / 1e6:.0f} MB",
                    flush=True,
                )
            for a, b in pairs:
                x, y = seen[a][-1], seen[b][-1]
                got = (x["total"] / y["total"], x["cpu"] / y["cpu"], x["peak"] / y["peak"])
                ratios[(a, b)].append(got)
                print(
                    f"round {rep + 1}: {a}/{b} total {got[0]:.3f}, CPU {got[1]:.3f}, "
                    f"peak {got[2]:.3f}",
                    flush=True,
                )
        for name, figures in seen.items():
            print(
                f"{name:>6}: total median {statistics.median(f['total'] for f in figures):.2f} s "
                f"({_range([f['total'] for f in figures], 2)}), after "
                f"{_range([f['after'] for f in figures], 3)} s, CPU "
                f"{_range([f['cpu'] for f in figures], 2)} s, peak "
                f"{_range([f['peak'] / 1e6 for f in figures], 0)} MB"
            )
        for (a, b), got in ratios.items():
            for what, at in (("total", 0), ("CPU", 1), ("peak", 2)):
                values = [r[at] for r in got]
                print(
                    f"{a}/{b} {what}: median {statistics.median(values):.3f} ({_range(values, 3)})"
                )
        if args.trace:
            for name in names:
                f = run(path, runs[name][0], args.trace, runs[name][1])
                print(f"{name} under tracemalloc: {f['held'] / 1e6:.1f} MB held")
                for where, size, number in f["top"]:
                    print(f"  {size / 1e6:8.2f} MB {number:>9,}  {where}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
