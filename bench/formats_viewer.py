"""Every format's viewer on its file of one size, launched in turn, round after round.

    python bench/formats_viewer.py [--size 1GB] [--reps 3] [--formats ...]

What "loads within v1's figures" asks, measured so that a noisy machine cannot decide
it: each round launches the viewer on every format's file in turn (the order rotated
each round), as ``model_scale.py`` launches it (``open_big``'s tmux watch), after a
bare ``orjson.loads`` loop over the same file. Per launch: seconds until the file's end
(its marker) is on screen, until the header counts every line (the full load), the
load ÷ the loop, and the peak RSS (÷ the file). Per format over the rounds: the median
of each, and each round's load ÷ v1's load in the same round.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import model_scale  # noqa: E402
import open_big  # noqa: E402

V1 = "transcript-v1"
FORMATS = model_scale.FORMATS


def bench_file(data_dir: Path, fmt: str, size: str) -> tuple[Path, str, str]:
    """The format's generated file, its last message's marker, and what the header says
    once every line is loaded."""
    path, marker, lines = model_scale.bench_file(data_dir, fmt, size)
    return path, marker, f"{lines:,} lines"


@dataclass
class Launch:
    loop: float
    end: float
    complete: float
    peak: int


@dataclass
class Seen:
    path: Path
    size: int
    launches: list[Launch] = field(default_factory=list)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="1GB")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--timeout", type=float, default=240.0)
    args = parser.parse_args(argv)
    if not open_big.have_tmux("formats_viewer"):
        return 1
    open_big.as_installed()
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    files = {fmt: bench_file(args.data_dir, fmt, args.size) for fmt in formats}
    seen = {fmt: Seen(path, path.stat().st_size) for fmt, (path, _m, _n) in files.items()}
    for rep in range(args.reps):
        order = formats[rep % len(formats) :] + formats[: rep % len(formats)]
        for fmt in order:
            path, marker, loaded = files[fmt]
            loop = open_big.bare_loop(path)
            (end, complete), peak = open_big.watch(
                f"{open_big.TAILSCOPE} {path}", [marker, loaded], args.timeout
            )
            if end is None or complete is None:
                print(f"{fmt}: did not show the end and every line within {args.timeout} s")
                return 1
            seen[fmt].launches.append(Launch(loop, end, complete, peak))
            print(
                f"round {rep + 1} {fmt}: loop {loop:.2f} s, end {end:.2f} s, complete "
                f"{complete:.2f} s ({complete / loop:.2f}× the loop), {peak >> 20} MB",
                flush=True,
            )
    print(f"\n{args.size}, {args.reps} rounds, every format launched in turn each round:")
    print(
        "| format | end on screen | load complete | ÷ the loop | ÷ v1's load, same round "
        "| peak RSS (÷ file) |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    base = seen.get(V1)
    for fmt, s in seen.items():
        runs = s.launches
        against = (
            ", ".join(
                f"{r.complete / b.complete:.2f}" for r, b in zip(runs, base.launches, strict=True)
            )
            if base is not None and fmt != V1
            else "—"
        )
        peak = median([float(r.peak) for r in runs])
        print(
            f"| {fmt} | {median([r.end for r in runs]):.2f} s "
            f"| {median([r.complete for r in runs]):.2f} s "
            f"| {median([r.complete / r.loop for r in runs]):.2f}× "
            f"| {against} | {int(peak) >> 20} MB ({peak / s.size:.0%}) |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
