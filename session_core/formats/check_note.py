"""A check note: what ``tailscope check`` says of a file that reads ok, in every
format's words (the counts, what was in flight, the usage, the first warnings)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..line_warnings import as_of_writer
from ..model import Transcript, Usage, overlay_counts
from ..open_work import open_work
from ..other_records import others_said
from ..text import count, ops_said


def check_note(transcript: Transcript) -> str:
    """``claude-code, 12 messages sent next, 3 tool operations, 1 compaction; warning: ...``
    (the messages the model is sent next, said so: the browser's "msgs" counts them as
    written)."""
    parts = [transcript.format, f"{count(len(transcript.messages), 'message')} sent next"]
    parts += ops_said(len(transcript.tool_operations))
    parts.extend(open_work(transcript).said())  # (what was in flight: every surface's words)
    parts.extend(failed_runs_said(run.state for run in transcript.runs if not run.copied))
    parts.extend(others_said(len(transcript.other_records)))  # (kept raw: said, not warned)
    parts.extend(overlay_counts(transcript.compactions).said())
    usage = usage_said(transcript.usage, transcript.made_no_response())
    if transcript.resumed is not None:  # (its copies are in it: said how much, and whose)
        usage += f" ({transcript.resumed.said()})"
    parts.append(usage)
    if transcript.subagents:
        parts.append(subagents_said(transcript))
    # (a last line its writer may still be writing is no crash tail yet: the one rule)
    return note_of(parts, as_of_writer(transcript.warnings, transcript.writer_alive))


def subagents_said(transcript: Transcript) -> str:
    """A check note's usage with the subagents, in the viewer header's words: ``with 2
    subagents 4,640 tok · $0.0058``; where none is counted, why alone (``1 subagent, its
    file not read``: never a total that is the file's own)."""
    words = transcript.with_subagents_text()
    both = transcript.usage_with_subagents
    if both is None or not any(s.counted for s in transcript.subagents):
        return words
    least = "at least " if transcript.subagents_left_out() is not None else ""
    return f"{words} {least}{both.brief()}"


def failed_runs_said(states: Iterable[str]) -> list[str]:
    """A check note's runs whose loop ended in an error, ``2 runs failed`` (work that
    ended: the runs left in flight are ``open_work``'s); a run copied from a fork's
    parent is the parent's, not counted (``check_note``)."""
    failed = sum(1 for state in states if state == "failed")
    return [f"{count(failed, 'run')} failed"] if failed else []


def usage_said(usage: Usage, none_made: bool) -> str:
    """A check note's usage: the file's own, as ``replay``'s ``usage`` holds it (each
    response once), ``usage 12,345 tok · $0.0210``; ``usage unknown`` where no response
    reported any (never 0); ``usage none (no model response)`` where none was made
    (``none_made``: its caller knows)."""
    return f"usage {usage.brief(none_made)}"


def note_of(parts: Sequence[str], warnings: Sequence[str]) -> str:
    """A check note: its counts, then the first warnings and how many more there are."""
    note = ", ".join(parts)
    for warning in warnings[:NOTE_WARNINGS]:
        note += f"; warning: {warning}"
    if len(warnings) > NOTE_WARNINGS:
        note += f"; and {count(len(warnings) - NOTE_WARNINGS, 'more warning')}"
    return note


NOTE_WARNINGS = 5  # warnings a check note spells out (a damaged file can have thousands)


__all__ = [
    "NOTE_WARNINGS",
    "check_note",
    "failed_runs_said",
    "note_of",
    "subagents_said",
    "usage_said",
]
