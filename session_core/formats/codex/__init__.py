"""Codex CLI rollouts (read-only format ``codex``; shared/spec/codex.md).

``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``, appended by Codex CLI and Codex
Desktop, idle ones compressed to ``.jsonl.zst`` (read transparently, never written).
Modules: ``items`` (response items into conversation items), ``tools`` (call
arguments and outputs), ``completed`` (newer ``item_completed`` tool items),
``context`` (turn contexts), ``usage`` (token counts), ``compaction`` (the replayed
view after a ``compacted`` line), ``user_turns`` (the view's user turns, the view
packed), ``builder`` (lines fed in file order, on its layers ``state``, ``turns``,
``calls``, ``responses`` and ``rewrites``), ``ops`` (packed tool operations), ``stamps``
(packed timestamps), ``lines`` (the typed hot lines), ``rows`` (what the replay JSON
copies from a line), ``tree`` (the sessions tree: listing, subagents).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, ClassVar

from ... import gc_pause
from ...column_items import message_count
from ...errors import TranscriptError
from ...linked import FileKey, LinkedLive
from ...model import Subagent, Transcript, Usage, ops_by_call
from ...tool_ops import ToolOp
from ..base import TAIL_WINDOW, AgentFormat, LiveModel, window_transcript
from ..builders import Builder

if TYPE_CHECKING:
    from .builder import CodexBuilder

# The format's own modules are imported when a file of it is read, not when it is
# registered: opening a file of another format does not pay for them.
NAME = "codex"
PLAIN, ZST = ".jsonl", ".jsonl.zst"

LINE_TYPES = frozenset(
    {
        "session_meta",
        "response_item",
        "event_msg",
        "turn_context",
        "compacted",
        "inter_agent_communication",
    }
)
SUBAGENT_LIMIT = 64 << 20  # a linked subagent bigger than this is listed, not read


class CodexFormat(AgentFormat):
    name: ClassVar[str] = NAME
    title: ClassVar[str] = "Codex rollout"
    extra_panes: ClassVar[tuple[str, ...]] = ("subagents",)  # (linked: ``subagents``)
    viewer_module: ClassVar[str | None] = "viewer.formats.subagents"
    # (an archived rollout is a session as well: listed with the others)
    home: ClassVar[tuple[str, ...]] = ("CODEX_HOME", ".codex", "sessions", "archived_sessions")
    running_total: ClassVar[bool] = True  # ``token_count``'s ``total_token_usage``
    # (a prompt's turn opens with its task event; the prompt is a user response item,
    # its event, or 0.149+'s completed item; a v2 subagent's, the task another agent
    # gave it, an ``inter_agent_communication`` line or an ``agent_message`` item)
    prompt_bytes: ClassVar[tuple[bytes, ...]] = (
        b'"task_started"',
        b'"user"',
        b'"user_message"',
        b'"UserMessage"',
        b'"inter_agent_communication"',
        b'"agent_message"',
    )
    # (its ``session_meta``'s words: the program that wrote it, its version, its start)
    meta_keys: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "version": ("cli_version",),
        "client": ("originator",),
        "started": ("timestamp",),
        "forked": ("forked_from_id",),
    }

    def written_since(self, path: str, since: float) -> list[str]:
        from .tree import written_since

        return written_since(path, since)

    def claims(self, record: dict[str, Any]) -> bool:
        kind = record.get("type")
        if kind is None and "type" not in record:
            from .builder import is_legacy_header  # (a rare, old file: the reader is needed)

            return is_legacy_header(record)
        return (
            isinstance(kind, str)
            and kind in LINE_TYPES
            and isinstance(record.get("payload"), dict)
            and isinstance(record.get("timestamp", ""), str)  # a copy may have lost it
            and "v" not in record
            and "seq" not in record
        )

    def unread_document(self, document: dict[str, Any]) -> str | None:
        # The TypeScript Codex CLI (spring 2025) saved each session whole, rewriting one
        # pretty-printed ``rollout-DATE-ID.json``: ``{session: {timestamp, id,
        # instructions}, items: [response items]}`` (its ``save-rollout.ts``).
        session, items = document.get("session"), document.get("items")
        if (
            isinstance(session, dict)
            and isinstance(session.get("id"), str)
            and isinstance(items, list)
            and set(document) == {"session", "items"}
        ):
            return (
                "a rollout of the TypeScript Codex CLI (2025: one JSON document, "
                "{session, items}, not JSON lines), which tailscope does not read"
            )
        return None

    def unread_started(self, document: dict[str, Any]) -> str | None:
        session = document.get("session")  # (``{timestamp, id, instructions}``)
        stamp = session.get("timestamp") if isinstance(session, dict) else None
        return stamp if isinstance(stamp, str) else None

    def unread_name(self, name: str) -> bool:
        return name.startswith("rollout-") and name.endswith(".json")  # (``save-rollout.ts``)

    def builder(self, path: str) -> Builder:
        from .builder import CodexBuilder

        return CodexBuilder(path)

    def tail(self, path: str | os.PathLike[str], window: int = TAIL_WINDOW) -> Transcript | None:
        """A big file's first screen (``window_transcript``). Its first total holds more
        than the window's responses (the file's count before the window, a paginated
        fork's parent's too), so, as a paginated fork's first total is read, only its own
        last usage is the window's (``TokenTally.based``): the window's runs and usage are
        its own responses', never the count before it. (A window that holds the header
        is read as the whole file is: the header says.)"""
        from .builder import CodexBuilder

        builder = CodexBuilder(os.fspath(path))
        builder.tally.based = True
        return window_transcript(self, path, window, builder)

    def written_at(self, path: str | os.PathLike[str]) -> float | None:
        """(A big rollout of bare items, the window of its end past its header: none of
        its lines says a time but that header's, the latest the file states.)"""
        from ...times import epoch
        from .tree import first_record

        said = super().written_at(path)
        if said is not None:
            return said
        head = first_record(os.fspath(path))
        stamp = None if head is None else head.get("timestamp")
        return epoch(stamp) if isinstance(stamp, str) else None

    def fed(self, path: str) -> Builder:
        with gc_pause.paused():  # nothing kept is cyclic: collections would only rescan it
            return super().fed(path)

    def read(self, path: str | os.PathLike[str], *, writer_alive: bool | None) -> Transcript:
        """The whole file once, without looking for subagents."""
        builder = self.fed(os.fspath(path))
        with gc_pause.paused():
            return builder.transcript(writer_alive)

    def open(self, path: str | os.PathLike[str], *, writer_alive: bool | None = None) -> Transcript:
        where = os.fspath(path)
        if writer_alive is None:
            writer_alive = self.writer_alive(where)
        return self.opened(self.fed(where), writer_alive)

    def opened(self, builder: Builder, writer_alive: bool | None) -> Transcript:
        """The model with its subagents' rollouts linked."""
        with gc_pause.paused():
            transcript = builder.transcript(writer_alive)
        attach_subagents(self, transcript)
        return transcript

    def live(self, path: str) -> LiveModel:
        return CodexLive(self, path)

    def discover(self, root: str) -> list[str] | None:
        from .tree import discover

        return discover(root)

    def part_of_another(self, path: str) -> bool:
        # a compressed rollout whose plain file is beside it: the plain one is the session
        return path.endswith(ZST) and os.path.exists(path[: -len(ZST)] + PLAIN)


# A child rollout's usage and messages as last read, by its path, with its (size, mtime):
# a followed session reads again only the children that changed.
ChildCache = dict[str, tuple[tuple[int, int], Usage, int]]


def attach_subagents(
    fmt: CodexFormat, transcript: Transcript, cache: ChildCache | None = None
) -> None:
    """Link the rollouts that name this session as their parent (siblings in its tree)."""
    from .tree import find_children

    session = transcript.meta.get("id")
    if not isinstance(session, str) or not session:
        return
    for path, meta in find_children(transcript.path, session):
        spawn = meta.get("source", {}).get("subagent", {}).get("thread_spawn", {})
        nickname, role = spawn.get("agent_nickname"), spawn.get("agent_role")
        description = " ".join(str(v) for v in (nickname, role) if isinstance(v, str)) or None
        child = str(meta.get("id") or os.path.basename(path))
        sub = Subagent(id=child, path=path, description=description)
        try:
            known = read_child(fmt, path, cache)
            if known is not None:
                _, sub.usage, sub.messages = known
                sub.read = True
        except (OSError, TranscriptError) as err:  # a damaged child never breaks its parent
            transcript.warnings.append(f"subagent {path} could not be read: {err}")
        for op in agent_ops(transcript.tool_operations):  # the call that spawned it names
            if op.subagent is not None:  # the child
                continue
            if child in (op.result or ""):
                op.subagent = path
                sub.call_id = op.call_id
                break
        transcript.subagents.append(sub)


def read_child(
    fmt: CodexFormat, path: str, cache: ChildCache | None
) -> tuple[tuple[int, int], Usage, int] | None:
    """A child rollout's usage and message count (with its (size, mtime) when read), read
    unless ``cache`` has it as it is now; None when it is over ``SUBAGENT_LIMIT``.
    ``OSError`` or ``TranscriptError`` when it cannot be read."""
    stat = os.stat(path)
    key = (stat.st_size, stat.st_mtime_ns)
    known = cache.get(path) if cache is not None else None
    if known is not None and known[0] == key:
        return known
    if stat.st_size > SUBAGENT_LIMIT:
        return None
    read = fmt.read(path, writer_alive=fmt.writer_alive(path))
    known = (key, read.usage, message_count(read))
    if cache is not None:
        cache[path] = known
    return known


def agent_ops(ops: Sequence[ToolOp]) -> Iterator[ToolOp]:
    """The operations whose tool names an agent (the calls that may spawn one): of a
    packed snapshot's, only those are made (a big file has 100,000s of operations)."""
    from .ops import CodexOps

    if isinstance(ops, CodexOps):
        yield from ops.of_tools(lambda tool: "agent" in tool)
    else:
        yield from (op for op in ops if "agent" in op.tool)


def __getattr__(name: str) -> Any:
    if name == "CodexBuilder":
        from .builder import CodexBuilder

        return CodexBuilder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class CodexLive(LinkedLive):
    """A followed rollout with its subagents' rollouts (``LinkedLive``): a child that did
    not change is not read again, and the calls that spawned them are linked on every
    snapshot."""

    format: CodexFormat

    def __init__(self, fmt: CodexFormat, path: str) -> None:
        super().__init__(fmt, path)
        self._children: ChildCache = {}

    def read_linked(self, lock: AbstractContextManager[Any]) -> None:
        """The child rollouts ``attach_subagents`` would read."""
        from .tree import find_children

        with lock:
            session = self.builder.meta.get("id")  # type: ignore[attr-defined]
        if isinstance(session, str) and session:
            for path, _meta in find_children(self.path, session):
                with contextlib.suppress(OSError, TranscriptError):  # (the link says)
                    read_child(self.format, path, self._children)

    def linked_folders(self) -> tuple[str, ...]:
        from .tree import child_folders

        return child_folders(self.path)

    def read_key(self, path: str) -> FileKey | None:
        known = self._children.get(path)
        return known[0] if known is not None else None

    def index_now(self) -> None:
        """The calls' ids, which the first draw looks up (an operation's state, for each
        call shown: 0.06 s of the UI thread at 1 GB)."""
        self.builder.op_items.index_now()  # type: ignore[attr-defined]

    def link(self, transcript: Transcript) -> Callable[[Transcript], None]:
        before = len(transcript.warnings)
        attach_subagents(self.format, transcript, self._children)
        agents, warnings = list(transcript.subagents), transcript.warnings[before:]
        # The calls ``attach_subagents`` linked (the only ones it links), not a walk of
        # every operation: that made each one, every REFRESH, at 1 GB.
        spawned = {sub.call_id: sub.path for sub in agents if sub.call_id is not None}

        def again(later: Transcript) -> None:
            later.subagents.extend(agents)
            later.warnings.extend(warnings)
            if spawned:  # (looked up by call id: a snapshot's operations are not all made)
                by_call = ops_by_call(later.tool_operations)
                for call_id, path in spawned.items():
                    op = by_call.get(call_id)
                    if op is not None and op.subagent is None:
                        op.subagent = path

        return again


__all__ = [
    "LINE_TYPES",
    "NAME",
    "CodexBuilder",
    "CodexFormat",
]
