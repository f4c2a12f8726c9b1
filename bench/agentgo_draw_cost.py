"""What a followed agentgo file's draw asks of its model, per small append, at any size.

    python bench/agentgo_draw_cost.py FILE [--share 0.85] [--lines 10] [--appends 40]

The first ``--share`` of FILE is copied to a temporary file and read as the viewer reads
it (``follow``'s raw batches into the format's live model); then ``--appends`` times,
``--lines`` of its next lines are appended and applied, and timed: the snapshot
(``live.transcript``), its operations by call id (``ops_by_call``, what ``ItemsView.show``
asks each draw) and the header's calls and gaps (``CallStats``, each batch). Printed:
the medians, in ms. Run it with another build (``PYTHONPATH=/tmp/old python -P``) in
turn with this one to compare.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# This checkout's build, after a PYTHONPATH's: ``PYTHONPATH=/tmp/base python -P`` names
# the build measured (put first, this checkout's ran whatever PYTHONPATH said).
_GIVEN = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
_AT = max((i + 1 for i, p in enumerate(sys.path) if p and os.path.abspath(p) in _GIVEN), default=0)
sys.path.insert(_AT, str(HERE.parent))

from session_core.following import MAX_BATCH_BYTES  # noqa: E402
from session_core.formats import by_name  # noqa: E402
from session_core.tail_reader import TailReader  # noqa: E402
from session_core.tool_ops import ops_by_call  # noqa: E402
from viewer.agentgo_model import CallStats, touched_calls  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("file", type=Path, help="an agentgo-v1 file (bench/data's)")
    parser.add_argument("--share", type=float, default=0.85)
    parser.add_argument("--lines", type=int, default=10)
    parser.add_argument("--appends", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="agentgo-draw-") as tmp:
        target = Path(tmp) / args.file.name
        with open(args.file, "rb") as src, open(target, "wb") as dst:
            want = int(args.file.stat().st_size * args.share)
            while dst.tell() < want and (line := src.readline()):
                dst.write(line)
            rest = [src.readline() for _ in range(args.lines * args.appends)]
        live = by_name("agentgo-v1").live(str(target))
        tail = TailReader(str(target), parse=False)

        def catch_up() -> None:
            while (update := tail.step(MAX_BATCH_BYTES)) is not None:
                live.apply(update)
                if update.caught_up:
                    break

        catch_up()
        snapshot = live.transcript(writer_alive=True)
        view = live.view
        stats = CallStats()
        stats.update(view, list(view.call_order))
        counted = getattr(stats, "update_runs", None)  # (an older build counts no runs)
        seen = len(view.records)
        times: list[tuple[float, float, float]] = []
        fd = os.open(target, os.O_WRONLY | os.O_APPEND)
        try:
            for n in range(args.appends):
                os.write(fd, b"".join(rest[n * args.lines : (n + 1) * args.lines]))
                catch_up()
                started = time.perf_counter()
                snapshot = live.transcript(writer_alive=True)
                snapped = time.perf_counter()
                ops_by_call(snapshot.tool_operations)
                called = time.perf_counter()
                stats.update(view, touched_calls(view, seen))
                seen = len(view.records)
                if counted is not None:
                    counted(view)
                stats.shown_gaps(view)
                times.append((snapped - started, called - snapped, time.perf_counter() - called))
        finally:
            os.close(fd)
            tail.close()
    snap, by_call, header = (f"{statistics.median(t) * 1000:.2f}" for t in zip(*times, strict=True))
    print(
        f"{args.file.name}: {want:,} bytes read, "
        f"{len(snapshot.tool_operations):,} operations, {len(view.run_order):,} runs; "
        f"medians: snapshot {snap} ms, by call id {by_call} ms, header's calls and gaps "
        f"{header} ms"
    )


if __name__ == "__main__":
    main()
