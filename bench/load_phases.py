"""Where v1's ``Session.load`` replay spends its time, step by step, beside the loop.

    python bench/load_phases.py FILE [--rounds 3]

Wraps the replay's steps (``BlockPass.plan``: the typed decode, UTF-8 checks and the
runs' plan; ``BlockPass.apply``: a run's columns; ``ReplayState.feed``: a line at a
time, compactions and elisions; ``feed_side``: run contexts and other side lines) in
timers, and prints each step's seconds per round beside the whole replay and the bare
orjson loop in the same process (the timers' own cost is a few hundred calls').
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from open_big import bare_loop

from session_core import block_replay, replay
from session_core.reader import replay_file

STEPS = {
    block_replay.BlockPass: ("plan", "apply", "spans"),
    replay.ReplayState: ("feed", "feed_side", "_compact", "_elide", "_run_context"),
}


def _timed(totals: dict[str, float], name: str, step: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return step(*args, **kwargs)
        finally:
            totals[name] = totals.get(name, 0.0) + time.perf_counter() - started

    return run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    totals: dict[str, float] = {}
    for cls, names in STEPS.items():
        for name in names:
            setattr(cls, name, _timed(totals, name, getattr(cls, name)))
    for _ in range(args.rounds):
        totals.clear()
        loop = bare_loop(args.file)
        started = time.perf_counter()
        replay_file(str(args.file), tolerate_tail=False)
        whole = time.perf_counter() - started
        steps = "  ".join(f"{name} {seconds:.4f}" for name, seconds in totals.items())
        print(f"loop {loop:.3f} s  load {whole:.3f} s ({whole / loop:.2f}x)  {steps}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
