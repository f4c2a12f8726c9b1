"""A run of a transcript (a turn, for the formats that have turns) in the neutral model:
what started it, how it ended and why, its usage (``session_core.model`` names them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .text import one_line
from .times import seconds_between
from .usage_totals import Usage


@dataclass(slots=True)
class RunContext:
    """What a run was started with: facts and named sections (instructions, ...)."""

    facts: list[tuple[str, str]] = field(default_factory=list)
    sections: list[tuple[str, str]] = field(default_factory=list)  # (name, text)
    line: int = 0
    # The facts each run has a value of its own of (Codex's ``turn_id``): that it differs
    # from the previous run's is no change, never marked or listed as one.
    own_facts: tuple[str, ...] = ()


# What a fork's copy of its parent's turn says of its usage.
COPIED_USAGE = "the parent's (a copy of its turn: counted in the parent's file)"
# What it says of its state where the copy ends before the turn did (its end not copied:
# the turn went on in the parent's file), in place of the "interrupted" it reads as: no
# run of this file's was cut off (``check`` and the browser leave it out likewise).
COPIED_CUT = "the parent's"
COPIED_CUT_SAID = f"{COPIED_CUT} (a copy of its turn, cut short: it went on in the parent's file)"


# A run's state: *failed* where the file says its loop ended in an error (agentgo's
# ``agent_end``), in the word a failed tool operation has; every other but finished is
# a run that did not finish well (the Runs tab's ``e`` stops at it).
RunState = Literal["finished", "running", "interrupted", "aborted", "failed"]


@dataclass(slots=True)
class Run:
    """A run (a turn, for the formats that have turns)."""

    id: str
    state: RunState
    line: int
    end_line: int | None = None
    started: str | None = None
    ended: str | None = None
    duration: float | None = None  # seconds
    prompt: str | None = None  # what started it (a user's prompt)
    # Its prompt was given encrypted (another agent's task to a Codex subagent):
    # ``prompt`` says that it was, ``[agent message, encrypted, 812 chars]``, no words of
    # it, and is no title (``titles.model_first_prompt`` passes it over).
    sealed: bool = False
    usage: Usage = field(default_factory=Usage)
    context: RunContext | None = None
    items: int = 0  # conversation items in it
    # A fork's copy of its parent's turn: its responses are the parent's, counted in the
    # parent's file (its ``usage`` holds none of them: not unknown, not 0).
    copied: bool = False
    # The model answered in it (a message, reasoning, a call of its): a run whose usage
    # no response reported is then unknown (a file that wrote no report), never one that
    # made no model request. (A format that counts a response per model output, as v1,
    # Claude Code and agentgo do, has it said by its ``usage`` too.)
    answered: bool = False
    # Why it ended as it did, where its file says (Codex's ``turn_aborted`` reason:
    # ``interrupted``, ``replaced`` by a new prompt, ``review_ended``), as written.
    reason: str | None = None

    def end_at(self, line: int | None, ts: str | None) -> None:
        """It ended at ``line`` (its last, or its end event's), at ``ts``: how long it took
        is from its start to then (None, never 0, where either time is unknown)."""
        self.end_line, self.ended = line, ts
        self.duration = seconds_between(self.started, ts)

    def state_word(self) -> str:
        """Its state as the Runs tab's column says it: ``COPIED_CUT`` for a fork's copy
        of its parent's turn that did not finish in the copy."""
        return COPIED_CUT if self.copied and self.state != "finished" else self.state

    def state_said(self) -> str:
        """Its state, with why it ended so where its file says: ``aborted (replaced)``
        (the reason on one line, inert); a copied turn cut short says so."""
        if self.copied and self.state != "finished":
            return COPIED_CUT_SAID
        return f"{self.state} ({one_line(self.reason)})" if self.reason else self.state

    @property
    def unrequested(self) -> bool:
        """It made no model request: no response to count, none reported
        (``Usage.unrequested``) and no output of the model in it (``answered``)."""
        return not self.answered and self.usage.unrequested

    def describe_usage(self) -> str:
        """Its ``usage.describe()``, or that its usage is its parent's; blank where it made
        no model request (``unrequested``), as the Runs tab says it."""
        if self.copied:
            return COPIED_USAGE
        return "" if self.unrequested else self.usage.describe()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "state": self.state,
            "line": self.line,
            "end-line": self.end_line,
            "started": self.started,
            "ended": self.ended,
            "duration": self.duration,
            "usage": self.usage.to_json(),
        }
        if self.copied:  # (only then: every other run's keys as were)
            out["copied-from-parent"] = True
        if self.prompt is not None:
            out["prompt"] = self.prompt
        if self.context is not None:
            out["context"] = {
                "facts": [list(f) for f in self.context.facts],
                "sections": [{"name": n, "text": t} for n, t in self.context.sections],
            }
        return out


def runs_in_state(runs: Sequence[Run], state: RunState) -> int:
    """How many of ``runs`` are in ``state``: a sequence that makes each run when asked
    for (v1's ``V1Runs``) counts them without making them (``count_state``)."""
    known = getattr(runs, "count_state", None)
    if known is not None:
        return int(known(state))
    return sum(1 for run in runs if run.state == state)


__all__ = [
    "COPIED_CUT",
    "COPIED_CUT_SAID",
    "COPIED_USAGE",
    "Run",
    "RunContext",
    "RunState",
    "runs_in_state",
]
