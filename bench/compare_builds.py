"""Two builds of the viewer on the same big file, launched alternately, in one run.

    python bench/compare_builds.py OLD_TAILSCOPE [--format claude-code] [--size 1GB] [--reps 3]

``OLD_TAILSCOPE`` is another build's ``tailscope`` (an older commit unpacked with
``git archive`` and run with ``PYTHONPATH`` pointing at it, and ``python -P`` so that
the current directory's tree is not imported instead). Each build is launched in tmux
as ``model_scale.py`` launches it (``open_big``'s watch), old and new in turn, and the
figures are: seconds until the file's end is on screen, until the header counts every
line (the full load), the CPU seconds the build used until then, and the peak RSS.
Alternating is what makes the two comparable on a noisy machine: a slow minute slows
both (the CPU seconds less than the seconds).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import model_scale  # noqa: E402
import open_big  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old", help="the other build's tailscope")
    parser.add_argument("--format", default="transcript-v1", choices=model_scale.FORMATS)
    parser.add_argument("--size", default="1GB")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--timeout", type=float, default=240.0)
    args = parser.parse_args(argv)
    if not open_big.have_tmux("compare_builds"):
        return 1
    path, marker, lines = model_scale.bench_file(args.data_dir, args.format, args.size)
    builds = {"old": args.old, "new": open_big.TAILSCOPE}
    seen: dict[str, list[tuple[float, float, int, float]]] = {name: [] for name in builds}
    for rep in range(args.reps):
        for name, tailscope in builds.items():
            cpu: list[float] = []
            (end, complete), peak = open_big.watch(
                f"{tailscope} {path}", [marker, f"{lines:,} lines"], args.timeout, cpu
            )
            if end is None or complete is None:
                print(f"{name}: did not show the end and every line within {args.timeout} s")
                return 1
            seen[name].append((end, complete, peak, cpu[0]))
            print(
                f"{rep + 1} {name}: end {end:.2f} s, complete {complete:.2f} s "
                f"(CPU {cpu[0]:.2f} s), {peak >> 20} MB"
            )
    print(f"\n{args.format} {args.size}, {args.reps} launches each, alternately:")
    for name, runs in seen.items():
        ends = sorted(r[0] for r in runs)
        completes = sorted(r[1] for r in runs)
        peaks = sorted(r[2] >> 20 for r in runs)
        cpus = sorted(r[3] for r in runs)
        print(
            f"{name}: end {ends[0]:.2f}–{ends[-1]:.2f} s, complete {completes[0]:.2f}–"
            f"{completes[-1]:.2f} s (median {completes[len(completes) // 2]:.2f}), "
            f"CPU {cpus[0]:.2f}–{cpus[-1]:.2f} s (median {cpus[len(cpus) // 2]:.2f}), "
            f"peak {peaks[0]}–{peaks[-1]} MB"
        )
    for what, at in (("complete", 1), ("CPU", 3), ("peak", 2)):  # each round's, sorted
        pairs = zip(seen["old"], seen["new"], strict=True)
        ratios = sorted(new[at] / old[at] for old, new in pairs)
        print(f"new/old {what}: {', '.join(f'{r:.3f}' for r in ratios)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
