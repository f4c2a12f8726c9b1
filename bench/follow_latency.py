"""How long an appended line takes to reach a follower.

    .venv/bin/python bench/follow_latency.py [--seconds 3] [--smoke]

A writer process appends through ``Session`` at 100, 1,000 and 10,000 lines/s
(and at 2 lines/s, where every line follows an idle pause, for five times as
long) for ``--seconds`` each, stamping every line with ``time.monotonic_ns()``
(one clock for every process on the machine) just before appending it. The
follower, in this process, notes when each line reaches it. Three followers
take turns on fresh files:

* ``follow`` (watchfiles events, plus its short hot polling after a change),
* ``follow(force_polling=True)``,
* the baseline: a plain 50 ms polling loop (seek to the offset, read, split
  lines, parse; sleep 50 ms), the approach of the best-known Textual log tailer.

A line's arrival is taken at the same point for every follower: when its
parsed record is in the consumer's hands (for ``follow``, when the update
carrying it is yielded; for the baseline, after it parsed the batch).

Printed: a markdown table of p50/p99/max latency per follower and rate, plus
p99 over the last third of each run (if the follower built a backlog, it
would show there), and whether the targets hold (p50 < 20 ms and p99 < 100 ms
at 1,000 lines/s; bounded latency at 10,000 lines/s; after an idle pause, at
2 lines/s, each ``follow`` within the baseline loop's p99). ``--smoke`` runs a
short version for CI. Exits 1 if a follower lost or duplicated a line, or on a
figure that cannot be (no line arrived, a negative latency), in every mode.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

RATES = (2, 100, 1_000, 10_000)  # 2 lines/s: every line comes after an idle pause
IDLE_LONGER = 5  # the 2 lines/s runs last this many times ``--seconds`` (more than a few lines)
BASELINE_POLL = 0.05


# --- the writer (a separate process) ------------------------------------------------


def writer_main() -> None:
    """Commands on stdin, one per line: ``PATH RATE SECONDS``.

    For each: create the transcript (meta line), print ``ready``, wait for a
    ``go`` line, append for SECONDS at RATE lines/s, append an ``x-end``
    event, print ``done COUNT``.
    """
    from session_core import Message, Session

    for command in sys.stdin:
        path, rate_text, seconds_text = command.split()
        rate, seconds = float(rate_text), float(seconds_text)
        session = Session.create(path, meta={"agent": "bench", "rate": rate})
        print("ready", flush=True)
        if sys.stdin.readline().strip() != "go":
            return
        total = max(1, int(rate * seconds))
        start = time.monotonic()
        for seq in range(total):
            delay = start + seq / rate - time.monotonic()
            if delay > 0.0005:
                time.sleep(delay)
            session.append_message(
                Message(role="assistant", content=f"line {seq} of a steady writer"),
                extra={"x-stamp": time.monotonic_ns(), "x-seq": seq},
            )
        session.append_event(type="x-end", payload={"count": total})
        session.close()
        print(f"done {total}", flush=True)


# --- followers ------------------------------------------------------------------------

Batch = tuple[int, list[dict[str, Any]]]  # (arrival monotonic_ns, records)


async def via_follow(path: str, *, force_polling: bool) -> AsyncIterator[Batch]:
    from session_core.following import follow

    async with contextlib.aclosing(follow(path, force_polling=force_polling)) as updates:
        async for update in updates:
            if update.envelopes:
                yield time.monotonic_ns(), update.envelopes


async def via_baseline(path: str) -> AsyncIterator[Batch]:
    """A plain polling tail: every 50 ms, read from the offset to the end."""
    offset = 0
    carry = b""
    with open(path, "rb") as fh:
        while True:
            fh.seek(offset)
            data = fh.read()
            if data:
                offset += len(data)
                *lines, carry = (carry + data).split(b"\n")
                records = [orjson.loads(line) for line in lines if line.strip()]
                yield time.monotonic_ns(), records  # parsed, as follow's updates are
            await asyncio.sleep(BASELINE_POLL)


BASELINE = "baseline: 50 ms polling loop"
FOLLOWERS: dict[str, Callable[[str], AsyncIterator[Batch]]] = {
    "follow (events)": lambda p: via_follow(p, force_polling=False),
    "follow (force_polling)": lambda p: via_follow(p, force_polling=True),
    BASELINE: via_baseline,
}


def impossible(runs: list[Run]) -> list[str]:
    """Figures that cannot be, whatever the machine: they fail every run, the smoke too."""
    out = []
    for run in runs:
        where = f"{run.follower} at {run.rate:,} lines/s"
        if run.written <= 0:
            out.append(f"{where}: the writer wrote no line")
        elif not run.latencies_ms:
            out.append(f"{where}: no line arrived")
        elif min(run.latencies_ms) < 0:
            out.append(f"{where}: a line arrived before it was written")
        if run.lost or run.duplicates:
            out.append(f"{where}: {run.lost} lost, {run.duplicates} duplicated")
    return out


# --- one run ------------------------------------------------------------------------


@dataclass
class Run:
    follower: str
    rate: int
    written: int = 0
    latencies_ms: list[float] = field(default_factory=list)  # in write order
    duplicates: int = 0

    @property
    def lost(self) -> int:
        return self.written - len(self.latencies_ms)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Writer:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls) -> Writer:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            os.path.abspath(__file__),
            "--writer",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        return cls(proc)

    async def send(self, text: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(text.encode() + b"\n")
        await self.proc.stdin.drain()

    async def expect(self, word: str, timeout: float) -> str:
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        text = line.decode().strip()
        if not text.startswith(word):
            raise RuntimeError(f"writer said {text!r}, expected {word!r}")
        return text

    async def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            await asyncio.wait_for(self.proc.wait(), 5)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()


async def measure(writer: Writer, directory: str, follower: str, rate: int, seconds: float) -> Run:
    path = os.path.join(directory, f"{follower.split()[0]}-{len(os.listdir(directory))}.jsonl")
    await writer.send(f"{path} {rate} {seconds}")
    await writer.expect("ready", 30)
    run = Run(follower, rate)
    arrivals: dict[int, int] = {}
    stamps: dict[int, int] = {}
    attached = asyncio.Event()
    ended = asyncio.Event()

    async def consume() -> None:
        async for arrived, batch in FOLLOWERS[follower](path):
            for record in batch:
                payload = record.get("payload") or {}
                if record.get("type") == "session-meta":
                    attached.set()
                elif record.get("type") == "x-end":
                    ended.set()
                elif "x-seq" in payload:
                    seq = payload["x-seq"]
                    if seq in arrivals:
                        run.duplicates += 1
                    else:
                        arrivals[seq] = arrived
                        stamps[seq] = payload["x-stamp"]

    task = asyncio.create_task(consume())
    try:
        await _until(attached.wait(), task, 30)
        await writer.send("go")
        done = await writer.expect("done", seconds * 3 + 30)
        run.written = int(done.split()[1])
        await _until(ended.wait(), task, 30)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    run.latencies_ms = [(arrivals[s] - stamps[s]) / 1e6 for s in sorted(arrivals)]
    return run


async def _until(waiting: Awaitable[Any], task: asyncio.Task[None], timeout: float) -> None:
    """Wait for ``waiting``, but fail fast if the consumer died."""
    waiter = asyncio.ensure_future(waiting)
    done, _ = await asyncio.wait({waiter, task}, timeout=timeout, return_when="FIRST_COMPLETED")
    if waiter not in done:
        waiter.cancel()
        if task in done:
            task.result()
        raise TimeoutError("the follower did not keep up")


# --- report -------------------------------------------------------------------------


def table(runs: list[Run]) -> str:
    rows = [
        "| follower | rate (lines/s) | lines | p50 ms | p99 ms | max ms | p99 last third ms "
        "| lost/dup |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        lat = run.latencies_ms
        late = lat[len(lat) * 2 // 3 :]
        rows.append(
            f"| {run.follower} | {run.rate:,} | {len(lat):,} | {percentile(lat, 0.5):.1f} "
            f"| {percentile(lat, 0.99):.1f} | {max(lat, default=float('nan')):.1f} "
            f"| {percentile(late, 0.99):.1f} | {run.lost}/{run.duplicates} |"
        )
    return "\n".join(rows)


def verdicts(runs: list[Run]) -> list[str]:
    out = []
    loop_p99 = {r.rate: percentile(r.latencies_ms, 0.99) for r in runs if r.follower == BASELINE}
    for run in runs:
        if run.rate == min(RATES) and run.follower != BASELINE and run.rate in loop_p99:
            p99, base = percentile(run.latencies_ms, 0.99), loop_p99[run.rate]
            out.append(
                f"{run.follower} at {run.rate} lines/s (each line after an idle pause): "
                f"p99 {p99:.1f} ms, the 50 ms loop's {base:.1f} ms: "
                f"{'within the loop' if p99 <= base else 'WORSE THAN THE LOOP'}"
            )
        if not run.follower.startswith("follow"):
            continue
        lat = run.latencies_ms
        if run.rate == 1_000:
            p50, p99 = percentile(lat, 0.5), percentile(lat, 0.99)
            ok = p50 < 20 and p99 < 100
            out.append(
                f"{run.follower} at 1,000 lines/s: p50 {p50:.1f} ms (< 20), "
                f"p99 {p99:.1f} ms (< 100): {'met' if ok else 'MISSED'}"
            )
        if run.rate == 10_000:
            third = max(1, len(lat) // 3)
            early, late = percentile(lat[:third], 0.99), percentile(lat[-third:], 0.99)
            bounded = late < max(100.0, 3 * early)
            out.append(
                f"{run.follower} at 10,000 lines/s: p99 first third {early:.1f} ms, "
                f"last third {late:.1f} ms: {'bounded' if bounded else 'BACKLOG GROWS'}"
            )
    return out


async def main(seconds: float, rates: tuple[int, ...]) -> int:
    writer = await Writer.start()
    runs: list[Run] = []
    try:
        with tempfile.TemporaryDirectory(prefix="follow-latency-") as directory:
            for rate in rates:
                for follower in FOLLOWERS:
                    took = seconds * IDLE_LONGER if rate == min(RATES) else seconds
                    runs.append(await measure(writer, directory, follower, rate, took))
    finally:
        await writer.close()
    print(
        f"follow latency: {seconds:g} s per run, writer in a separate process, "
        f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}\n"
    )
    print(table(runs))
    print()
    for line in verdicts(runs):
        print(f"* {line}")
    broken = impossible(runs)
    for line in broken:
        print(f"ERROR: {line}")
    return 1 if broken else 0


def cli() -> int:
    if sys.argv[1:2] == ["--writer"]:
        writer_main()
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="writing time per run")
    parser.add_argument("--smoke", action="store_true", help="a short run for CI")
    args = parser.parse_args()
    seconds = 0.1 if args.smoke else args.seconds
    return asyncio.run(main(seconds, RATES))


if __name__ == "__main__":
    sys.exit(cli())
