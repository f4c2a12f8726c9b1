"""agentgo's runs in the neutral model, kept a snapshot at a time (``RunsMade``): a run
is made again only when something it shows may have changed since the last snapshot,
so a followed file's snapshot costs the runs its new lines touched, not every run."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ...model import Run, RunState, Usage
from .raw_rows import file_line

if TYPE_CHECKING:
    from ...agentgo.calls import Run as AgentGoRun
    from ...agentgo.view import AgentGoView
    from ...usage import UsageTally

# ``agentgo.records.ODD_RUN`` (a run_id not a str), not imported: this module is imported
# by every format's registration, and ``session_core.agentgo`` is loaded when an agentgo
# file is read (a v1 file's viewer needs none of it: tests/test_headless_import.py).
_ODD_RUN = -2


def run_state(run: AgentGoRun, status: str) -> RunState:
    """A run's state in the shared words: *failed* where its loop's ``agent_end`` carries
    an error (the word a failed tool operation has), however its scope closed; else
    finished (closed), running (open) or interrupted."""
    if run.failed:
        return "failed"
    return "finished" if status == "closed" else "running" if status == "open" else "interrupted"


class RunsMade:
    """Each run of a view as the neutral model's ``Run``, kept between snapshots.

    What a run shows comes from its own records (its times, lines, close, loop outcome:
    each record's run is in ``records.runs``), its messages (``items``, the prompt:
    ``touched`` as the model takes them), its model calls' usage (``touched`` as the
    model takes the calls) and its status, which only the last run's can change without
    a record of its own (a new run after it, the writer's end). Those runs are made
    again at a snapshot (``wanted``, then ``runs``); every other keeps its ``Run``, which
    nothing changes once made (a snapshot's list is its own).
    """

    def __init__(self, view: AgentGoView) -> None:
        self.view = view
        self.made: list[Run] = []  # by the run's index in view.run_order
        self.items: Counter[str] = Counter()  # run id -> its committed messages, so far
        self.touched: set[str] = set()  # run ids whose messages or calls came since
        self._records = 0  # of view.records, whose runs were looked at
        self.remade = 0  # runs made, over every snapshot (what a test counts)

    def wanted(self) -> set[int]:
        """The runs (their indexes) a snapshot makes again: those touched since the last,
        the last one made before and every one since."""
        view = self.view
        runs = view.records.runs
        new = set(runs[self._records :])
        self._records = len(runs)
        order = view.run_order
        # (``ODD_RUN``: a run_id not a str, whose record names no run index; rare: every run)
        wanted = set(range(len(order))) if _ODD_RUN in new else {at for at in new if at >= 0}
        for run_id in self.touched:
            run = view.runs.get(run_id)
            if run is not None:
                wanted.add(run.index)
        self.touched.clear()
        wanted.update(range(max(0, len(self.made) - 1), len(order)))
        return wanted

    def runs(
        self, wanted: set[int], tally: UsageTally, prompts: dict[str | None, str]
    ) -> list[Run]:
        """Every run as of now, those ``wanted`` made again (``tally``: at least their
        usage)."""
        view = self.view
        order, made = view.run_order, self.made
        for at in sorted(wanted):
            run_id = order[at]
            one = self._run(view.runs[run_id], tally, prompts.get(run_id))
            if at < len(made):
                made[at] = one
            else:
                made.append(one)
        self.remade += len(wanted)
        return list(made)

    def _run(self, run: AgentGoRun, tally: UsageTally, prompt: str | None) -> Run:
        status = self.view.run_status(run.id)
        used = tally.runs.get(run.id)
        made = Run(
            id=run.id,
            state=run_state(run, status),
            line=file_line(run.first_line, run.first_seq),
            started=run.first_time,
            ended=run.last_time or None,
            usage=Usage.of_totals(used) if used is not None else Usage(),
            items=self.items[run.id],
            prompt=prompt,
        )
        if run.close_seq is not None:  # (its close, else its last record: cut off)
            made.end_at(file_line(run.close_line, run.close_seq), made.ended)
        elif status != "open":
            made.end_at(file_line(run.last_line, run.last_seq), made.ended)
        return made
