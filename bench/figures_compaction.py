"""compaction: a long live tail and compactions that fold a few of it, replayed by the
current code, beside a plain replay and the re-indexing replay of before."""

from __future__ import annotations

import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import orjson
from figures_common import ratio
from gen_common import OPTS
from sanity import Figures


def compaction_files(directory: Path, live: int, compactions: int, fold: int) -> tuple[Path, Path]:
    """Two files of the same number of lines: one with ``compactions`` compaction lines
    that each fold ``fold`` messages (and the summary before), leaving ``live`` live
    messages; the other with a message in place of each compaction line."""
    total = live + fold * compactions
    every = total // (compactions + 1)
    ts = "2026-08-09T12:00:00.000000Z"

    def env(kind: str, eid: str, payload: dict[str, Any]) -> bytes:
        return orjson.dumps({"id": eid, "payload": payload, "ts": ts, "type": kind, "v": 1},
                            option=OPTS)  # fmt: skip

    paths = directory / f"compacted-{live}.jsonl", directory / f"plain-{live}.jsonl"
    with open(paths[0], "wb") as compacted, open(paths[1], "wb") as plain:
        meta = env("session-meta", str(uuid.uuid4()), {"agent": "bench"})
        compacted.write(meta)
        plain.write(meta)
        oldest: list[str] = []  # live message ids, oldest first (a reversed stack)
        start = 0
        done = 0
        for n in range(total):
            mid = f"m-{n:07d}-{uuid.uuid4().hex[:20]}"
            line = env("message", mid, {"role": "user" if n % 2 else "assistant",
                                        "content": f"message {n}"})  # fmt: skip
            compacted.write(line)
            plain.write(line)
            oldest.append(mid)
            if (n + 1) % every == 0 and done < compactions:
                through = oldest[start + fold - 1]
                start += fold
                cid = f"c-{done:04d}-{uuid.uuid4().hex[:20]}"
                payload = {"summary": f"summary {done}", "replaces-through-id": through}
                compacted.write(env("compaction", cid, payload))
                plain.write(env("message", cid, {"role": "user", "content": f"summary {done}"}))
                done += 1
    return paths


def reindexing_state(where: str) -> Any:
    """The replay before the shift: every live entry indexed again after each compaction."""
    from session_core.replay import ReplayState

    class ReindexingReplay(ReplayState):
        def _compacted(self, compaction: Any, head: Any) -> None:
            self._index.clear()
            self._shift = 0
            for position, entry in enumerate(self.entries):
                self._index[entry[0]] = position

    return ReindexingReplay(where, lazy_facts=True)


def timed_replay(path: Path, reindex: bool) -> tuple[float, Any]:
    from session_core import gc_pause
    from session_core.reader import _replay_into, open_transcript, replay_file

    where = str(path)
    t0 = time.perf_counter()
    if reindex:
        with gc_pause.paused():
            state = _replay_into(reindexing_state(where), open_transcript(where), where, False)
    else:
        state = replay_file(where, tolerate_tail=False)
    return time.perf_counter() - t0, state


def figure_compaction(smoke: bool, figures: Figures) -> None:
    sizes = [(5_000, 20), (10_000, 40)] if smoke else [(50_000, 200), (100_000, 400)]
    fold = 3
    repeat = 2 if smoke else 3
    print("## Compactions that fold a few of a long live tail (file replay)\n")
    print("| live messages | compactions | lines | plain replay (no compaction) | current code "
          "| ÷ plain | re-indexing every live message (before) | ÷ plain |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    results = []
    with tempfile.TemporaryDirectory(prefix="figures-compaction-") as directory:
        for live, count in sizes:
            compacted, plain = compaction_files(Path(directory), live, count, fold)
            best: dict[str, float] = {}
            states: dict[str, Any] = {}
            timed_replay(plain, False)  # imports done and the page cache warm for all three
            for _ in range(repeat):
                for name, path, reindex in (
                    ("plain", plain, False),
                    ("current", compacted, False),
                    ("before", compacted, True),
                ):
                    seconds, state = timed_replay(path, reindex)
                    best[name] = min(best.get(name, float("inf")), seconds)
                    states[name] = state
            current, before = states["current"], states["before"]
            live_now = sum(1 for e in current.entries if e[0].startswith("m-"))
            lines = len(current.event_lines)  # events replayed: every line of these files
            results.append((live, best))
            print(
                f"| {live_now:,} | {len(current.compactions):,} | {lines:,} | "
                f"{best['plain']:.3f} s | {best['current']:.3f} s | "
                f"{ratio(best['current'], best['plain']):.2f}× | {best['before']:.3f} s | "
                f"{ratio(best['before'], best['plain']):.2f}× |"
            )
            figures.true(f"{live_now:,} live messages left, {live:,} meant", live_now == live)
            figures.true(f"{len(current.compactions)} compactions replayed, {count} written",
                         len(current.compactions) == count)  # fmt: skip
            figures.true(
                "the re-indexing replay differs from the current one",
                [e[0] for e in before.entries] == [e[0] for e in current.entries],
            )
            plain_lines = len(states["plain"].event_lines)
            figures.true(f"the plain file's {plain_lines:,} lines are not {lines:,}",
                         plain_lines == lines)  # fmt: skip
            for name, seconds in best.items():
                figures.positive(f"{live:,} live: {name}", seconds)
    (small, s), (big, b) = results
    growth = {k: ratio(b[k], s[k]) for k in b}
    print(
        f"\n* from {small:,} to {big:,} live messages (×{big / small:g}, compactions too): "
        f"plain {growth['plain']:.1f}×, current {growth['current']:.1f}×, "
        f"re-indexing {growth['before']:.1f}× (the square would be {(big / small) ** 2:g}×)."
    )
    print(
        f"* {big:,} live messages and {sizes[-1][1]} compactions: current {b['current']:.2f} s "
        f"(plain replay {b['plain']:.2f} s), re-indexing {b['before']:.2f} s. "
        "docs/performance.md: 0.34 s now vs 2.5 s before."
    )
