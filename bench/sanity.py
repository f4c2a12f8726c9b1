"""What every benchmark here shares: waits with a deadline, and figures that cannot be.

A regression must fail a run (CI's smoke included), never hang it and never
pass it: every wait has a deadline that fails the run with a message saying
what did not happen, and a figure that is impossible whatever the machine
(negative, zero where work was done, a ratio that cannot be, a tool that
never showed the end) fails it too.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from typing import NoReturn


class BenchFailed(SystemExit):
    """The run failed: exit 1, the reason printed."""


def fail(message: str) -> NoReturn:
    print(f"FAILED: {message}", file=sys.stderr, flush=True)
    raise BenchFailed(1)


class Deadline:
    """``check()`` fails the run once ``seconds`` have passed since it was made."""

    def __init__(self, seconds: float, what: str) -> None:
        self.seconds = seconds
        self.what = what
        self.end = time.perf_counter() + seconds

    def check(self) -> None:
        if time.perf_counter() > self.end:
            fail(f"{self.what}: not done after {self.seconds:g} s")


async def until(done: Callable[[], object], seconds: float, what: str, step: float = 0.005) -> None:
    """Await until ``done()`` is true, failing the run after ``seconds``."""
    deadline = Deadline(seconds, what)
    while not done():
        deadline.check()
        await asyncio.sleep(step)


class Figures:
    """Collects impossible figures; ``verdict()`` prints them and gives the exit status."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def positive(self, what: str, value: float | None) -> None:
        """A time or a size of real work: more than zero (and measured at all)."""
        if value is None or not value > 0:
            self.problems.append(f"{what} is {value!r}: work was done, so it must be > 0")

    def at_least(self, what: str, value: float | None, floor: float, why: str) -> None:
        if value is None or not value >= floor:
            self.problems.append(f"{what} is {value!r}, below {floor:g}: {why}")

    def true(self, what: str, ok: bool) -> None:
        if not ok:
            self.problems.append(what)

    def verdict(self) -> int:
        for problem in self.problems:
            print(f"IMPOSSIBLE: {problem}", file=sys.stderr)
        return 1 if self.problems else 0
