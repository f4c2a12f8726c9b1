"""What one small append costs a followed big file's model: the batch applied, then the
snapshot a screen draws from.

    python bench/snapshot_cost.py [--size 1GB] [--formats ...] [--share 0.85]
                                  [--lines 100] [--appends 20] [--profile]

For each format, the first ``--share`` of its generated file (``model_scale.bench_file``)
is copied to a temporary file and read as the viewer reads it (``follow``'s raw batches
into ``fmt.live(path)``); then ``--appends`` times, ``--lines`` of the file's next lines
are appended, read (``TailReader.step``) and applied, and a snapshot taken
(``live.transcript``). Printed: the medians and the worst of both, in ms. A snapshot
that costs in proportion to the whole file shows here at 1 GB, and is what a followed
big file's lag is made of (the model screen draws at most one snapshot per a few times
its cost). ``--profile``: cProfile of the appends, by cumulative time.

Run it with another build (``PYTHONPATH=/tmp/old python -P bench/snapshot_cost.py``) in
turn with this one to compare.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import model_scale  # noqa: E402


def measure(path: Path, fmt: str, share: float, lines: int, appends: int, profile: bool) -> str:
    from session_core.following import MAX_BATCH_BYTES
    from session_core.formats import by_name
    from session_core.tail_reader import TailReader

    with tempfile.TemporaryDirectory(prefix="snapshot-cost-") as tmp:
        target = Path(tmp) / path.name
        with open(path, "rb") as src, open(target, "wb") as dst:
            want = int(path.stat().st_size * share)
            while dst.tell() < want and (line := src.readline()):
                dst.write(line)
            rest = [src.readline() for _ in range(lines * appends)]
        base = target.stat().st_size
        if not rest[-1]:
            raise SystemExit(f"{fmt}: fewer than {lines * appends} lines after the base")
        model = by_name(fmt).live(str(target))
        tail = TailReader(str(target), parse=False)

        def catch_up() -> None:
            while (update := tail.step(MAX_BATCH_BYTES)) is not None:
                model.apply(update)
                if update.caught_up:
                    break

        try:
            catch_up()
            model.transcript(writer_alive=True)
            applied: list[float] = []
            snapped: list[float] = []
            profiler = cProfile.Profile()
            fd = os.open(target, os.O_WRONLY | os.O_APPEND)
            try:
                for n in range(appends):
                    os.write(fd, b"".join(rest[n * lines : (n + 1) * lines]))
                    if profile:
                        profiler.enable()
                    started = time.perf_counter()
                    catch_up()
                    read = time.perf_counter()
                    model.transcript(writer_alive=True)
                    done = time.perf_counter()
                    if profile:
                        profiler.disable()
                    applied.append(read - started)
                    snapped.append(done - read)
            finally:
                os.close(fd)
        finally:
            tail.close()
    if profile:
        pstats.Stats(profiler).sort_stats("cumtime").print_stats(30)
    applied.sort()
    snapped.sort()
    mid = len(applied) // 2
    return (
        f"| {fmt} | {base / 1e6:.0f} MB "
        f"| {lines} | {applied[mid] * 1e3:.1f} | {applied[-1] * 1e3:.1f} "
        f"| {snapped[mid] * 1e3:.1f} | {snapped[-1] * 1e3:.1f} |"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", default="1GB")
    parser.add_argument("--formats", default=",".join(model_scale.FORMATS))
    parser.add_argument("--share", type=float, default=0.85)
    parser.add_argument("--lines", type=int, default=100)
    parser.add_argument("--appends", type=int, default=20)
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    print("| format | base | lines | apply ms: median | worst | snapshot ms: median | worst |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for fmt in [f.strip() for f in args.formats.split(",") if f.strip()]:
        path, _marker, _lines = model_scale.bench_file(args.data_dir, fmt, args.size)
        print(measure(path, fmt, args.share, args.lines, args.appends, args.profile), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
