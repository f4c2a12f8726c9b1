"""Two builds' read paths on the same file, each beside the bare loop, alternating.

    python bench/compare_replay.py OLD_TREE FILE [--what open|load|feed] [--rounds 2]

``OLD_TREE`` is another commit's ``session_core`` (and ``viewer``) unpacked with
``git archive REV session_core viewer | tar -x -C OLD_TREE``. Each round runs the old
build then this one, each in a fresh process: the best of three of ``open_transcript``
(``open``), v1's ``Session.load`` replay (``load``: ``replay_file`` as the load does it) or
the viewer's headless load (``feed``: every follow batch applied to the format's live
model, then its transcript), beside the best of three of the bare orjson loop in the same
process. Prints seconds and the ratio to the loop, per build and round.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

_CODE = """
import gc, sys, time
sys.path.insert(0, sys.argv[3])
from open_big import bare_loop
import session_core
from session_core.formats import format_of
path, what = sys.argv[1], sys.argv[2]
def run():
    if what == "open":
        session_core.open_transcript(path)
    elif what == "load":
        from session_core.reader import replay_file
        replay_file(path, tolerate_tail=False)
    else:
        from model_dump import batches
        gc.disable()
        model = format_of(path).live(path)
        for update in batches(path):
            model.apply(update)
        model.transcript(writer_alive=False)
        gc.enable()
best_loop = best = float("inf")
for _ in range(3):
    best_loop = min(best_loop, bare_loop(path))
    started = time.perf_counter()
    run()
    best = min(best, time.perf_counter() - started)
print(f"{best:.3f} s, {best / best_loop:.2f}x the loop ({best_loop:.3f} s)")
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old", type=Path, help="the other build's tree")
    parser.add_argument("file", type=Path)
    parser.add_argument("--what", choices=("open", "load", "feed"), default="open")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    builds = {"old": args.old.resolve(), "new": HERE.parent}
    for round_ in range(1, args.rounds + 1):
        for name, tree in builds.items():
            done = subprocess.run(
                [sys.executable, "-c", _CODE, str(args.file.resolve()), args.what, str(HERE)],
                env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
                capture_output=True,
                text=True,
                cwd="/",
                check=False,
            )
            said = done.stdout.strip() or " ".join(done.stderr.strip().splitlines()[-1:])
            print(f"round {round_} {name}: {said}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
