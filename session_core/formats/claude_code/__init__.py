"""Claude Code session transcripts (read-only format ``claude-code``).

``~/.claude/projects/<project>/<sessionId>.jsonl``, appended live by the Claude Code
CLI, its subagents in ``<sessionId>/subagents/``. Modules: ``lines`` (a line's facts,
typed by msgspec), ``blocks`` (content blocks into parts), ``threading`` (the
parentUuid chain, its uuids packed in ``packed_ids``), ``builder`` (lines fed in file
order), ``conversation`` (user and assistant lines: responses, calls, results, turns),
``progress`` (runs of progress lines), ``bookkeeping`` (the rare line types),
``usage`` (responses' usage, and the totals kept), ``chain`` (the chain an assembly
found, the next built on it), ``assemble`` (the model from what was kept), ``calls``
and ``call_ops`` (tool calls packed, a snapshot's operations), ``subagents`` (linked
files), ``background`` (calls launched in the background, Workflow runs' agents).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from ... import gc_pause
from ...model import Item, Transcript
from ..base import AgentFormat, LiveModel
from ..builders import Builder
from .summaries import SUMMARY_OPENINGS

if TYPE_CHECKING:
    from ...peeking import PeekSource
    from .builder import ClaudeCodeBuilder

# The format's own modules are imported when a file of it is read, not when it is
# registered: opening a file of another format does not pay for them.
NAME = "claude-code"

# Types of other formats' first records, never ours.
_CODEX_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
)
_CONVERSATION = frozenset({"user", "assistant", "system", "progress", "attachment"})
_BOOKKEEPING = frozenset(
    {
        "file-history-snapshot",
        "summary",
        "queue-operation",
        "permission-mode",
        "last-prompt",
        "custom-title",
        "ai-title",
        "pr-link",
        "tag",
        "agent-name",
    }
)


# Every line type the spec names (and the reader reads): a line of any other is kept as
# written and listed as such (``other_records``), a type newer than this reader.
NAMED_TYPES = (
    _CONVERSATION
    | _BOOKKEEPING
    | {
        "attribution-snapshot",
        "speculation-accept",
        "content-replacement",  # (2.1.x: a result the model was sent a preview of instead)
    }
)


class ClaudeCodeFormat(AgentFormat):
    name: ClassVar[str] = NAME
    title: ClassVar[str] = "Claude Code session"
    extra_panes: ClassVar[tuple[str, ...]] = ("subagents",)  # (linked: ``subagents``)
    viewer_module: ClassVar[str | None] = "viewer.formats.subagents"
    # (each a user line: its spec says "one per user line", so what is sent next is never
    # more than what was written; a queued prompt is listed when it is not sent, and so
    # is an error line: its own API-error message, an ``api_error``, sent to no model)
    kind_words: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "message": ("command", "compact-summary"),
        "conversation": ("queued", "error"),
        "compaction": ("compact-summary",),
    }
    # (its lines' ``gitBranch``, in the meta as ``git-branch``: the header says it)
    meta_keys: ClassVar[Mapping[str, tuple[str, ...]]] = {"branch": ("git-branch",)}
    # (every summary opens alike: its rows show what follows)
    openings: ClassVar[Mapping[str, tuple[str, ...]]] = {"compact-summary": SUMMARY_OPENINGS}
    home: ClassVar[tuple[str, ...]] = ("CLAUDE_CONFIG_DIR", ".claude", "projects")

    opens_past_unknown_lines: ClassVar[bool] = True  # newer versions keep adding types
    has_run_contexts: ClassVar[bool] = False  # (its runs have none to say)

    def claims(self, record: dict[str, Any]) -> bool:
        kind = record.get("type")
        if not isinstance(kind, str):
            return False
        if kind == "session-meta":
            return False  # transcript-v1
        if kind == "session_start" and "session_id" in record and "seq" in record:
            return False  # agentgo-v1
        if "payload" in record and kind in _CODEX_TYPES:
            return False  # codex
        if kind in _CONVERSATION:
            return isinstance(record.get("uuid"), str) or isinstance(record.get("sessionId"), str)
        if kind == "file-history-snapshot":
            return "snapshot" in record or "messageId" in record
        if kind == "summary":
            return "summary" in record or "leafUuid" in record
        if kind == "attribution-snapshot":  # (2.1.x; no sessionId)
            return "messageId" in record and "fileStates" in record
        if kind == "speculation-accept":  # (2.1.x, appended by itself; no sessionId)
            return "timeSavedMs" in record
        if kind in _BOOKKEEPING:
            return isinstance(record.get("sessionId"), str) or "operation" in record
        # a bookkeeping type newer than this reader: the envelope's key says whose it is
        return isinstance(record.get("sessionId"), str) and "payload" not in record

    def readable_text(self, item: Item) -> str | None:
        from .blocks import wrapped_text

        return wrapped_text(item.role, item.kind, item.parts)

    def builder(self, path: str) -> Builder:
        from .builder import ClaudeCodeBuilder

        return ClaudeCodeBuilder(path)

    def live(self, path: str) -> LiveModel:
        from .subagents import SubagentsLive

        return SubagentsLive(self, path)

    def fed(self, path: str) -> Builder:
        with gc_pause.paused():  # nothing kept is cyclic: collections would only rescan it
            return super().fed(path)

    def opened(self, builder: Builder, writer_alive: bool | None) -> Transcript:
        """The model with its linked subagent files' usage."""
        from .builder import ClaudeCodeBuilder
        from .subagents import attach

        assert isinstance(builder, ClaudeCodeBuilder)  # (``builder``'s, as ``fed`` made it)
        with gc_pause.paused():
            transcript = builder.transcript(writer_alive)
        attach(transcript, builder)
        return transcript

    def peek_source(self, path: str) -> PeekSource:
        from ...peeking import model_peek

        # (the file alone: a peek shows its records, not its subagents' usage)
        return model_peek(path, lambda: self.fed(path).transcript(None))

    def part_of_another(self, path: str) -> bool:
        # <sessionId>/subagents/agent-<id>.jsonl belongs to <sessionId>.jsonl, and so
        # (2.0.x) does <project>/agent-<id>.jsonl to the session its lines name
        up = _subagents_up(path)
        if up == 0:
            return Path(path).name.startswith("agent-")
        if up is not None:
            return True  # deeper: subagents/workflows/<run>/agent-*.jsonl (later 2.1.x)
        from .subagents import beside_session

        return beside_session(path)

    def session_of(self, path: str) -> str | None:
        # <sessionId>/subagents/[workflows/<run>/]agent-<id>.jsonl: <sessionId>.jsonl
        up = _subagents_up(path)
        if up is None:
            return None
        session = Path(path).parents[up + 1]
        return str(session) + ".jsonl" if session.name else None

    def written_since(self, path: str, since: float) -> list[str]:
        """The sessions of this one's project folder (its cwd's) written to since."""
        from .. import detect_format

        here = os.path.abspath(path)
        if self.part_of_another(here):
            return []  # a subagent's file: its session is where it goes on
        found: list[tuple[float, str]] = []
        try:
            with os.scandir(os.path.dirname(here)) as entries:
                for entry in entries:
                    name = entry.name
                    if not name.endswith(".jsonl") or name.startswith("agent-"):
                        continue
                    with contextlib.suppress(OSError):
                        written = entry.stat().st_mtime
                        if written > since and entry.path != here and entry.is_file():
                            found.append((written, entry.path))
        except OSError:
            return []
        return [p for _, p in sorted(found, reverse=True) if detect_format(p) == NAME]

    def discover(self, root: str) -> list[str] | None:
        """Session files of a ``~/.claude/projects`` tree (a project folder, the projects
        folder or ``~/.claude``); subagent files are not sessions of their own."""
        base = Path(root)
        if (base / "projects").is_dir():
            base = base / "projects"
        try:
            if base.name == "projects":
                projects = sorted(p for p in base.iterdir() if p.is_dir())
            elif base.parent.name == "projects":
                projects = [base]
            else:
                return None
            return [
                str(path)
                for project in projects
                for path in sorted(project.glob("*.jsonl"))
                if path.is_file() and not path.name.startswith("agent-")  # 2.0.x subagents
            ]
        except OSError:
            return []


def __getattr__(name: str) -> Any:
    if name == "ClaudeCodeBuilder":
        from .builder import ClaudeCodeBuilder

        return ClaudeCodeBuilder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _subagents_up(path: str) -> int | None:
    """How many folders above a file its nearest ``subagents`` folder is (0: the file's
    own folder), within the three levels a session's subagents nest; None: none is."""
    parts = Path(path).parent.parts[-4:]
    if "subagents" not in parts:
        return None
    return parts[::-1].index("subagents")


__all__ = ["NAME", "ClaudeCodeBuilder", "ClaudeCodeFormat"]
