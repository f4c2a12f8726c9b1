"""Subagent files: ``<sessionId>/subagents/agent-<agentId>.jsonl`` beside the session
(since 2.1.x), or ``agent-<agentId>.jsonl`` in the session's own folder (2.0.x, where
the folder's agent files are every session's: the sessionId their lines name says
whose).

Linked from the Task/Agent call whose result (or ``agent_progress``) names the agent, or
whose prompt its first line is (``file_links``: a teammate call not answered yet).
Their usage is read (read-only, with the same builder) when a whole file is opened, and
for a followed file once it has caught up and then every few seconds (``SubagentsLive``,
a ``LinkedLive``: a file that did not change is not read again), within a bound of files
and bytes.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from ...column_items import message_count
from ...errors import TranscriptError
from ...file_lines import feed_file
from ...line_warnings import crash_tail, damage_warning
from ...linked import FileKey, LinkedLive
from ...model import Subagent, ToolOp, Transcript, Usage
from ...text import count
from . import background
from .background import Outcome
from .resumed import copied_from, copied_marks, resumed

if TYPE_CHECKING:
    from .builder import ClaudeCodeBuilder
    from .sidechains import InFile

MAX_FILES = 200
MAX_BYTES = 1 << 30  # read at most this much subagent transcript per session
# What no file name in a folder holds: a path separator (or NUL). An agentId (or a
# session id) with one names no file of its own; any other is looked for as written
# (``agent-dot.x.jsonl`` is one: it was said "not there" when it was).
_NOT_IN_A_NAME = re.compile("[/\x00" + re.escape(os.sep + (os.altsep or "")) + "]")
MAX_SIBLINGS = 5000  # 2.0.x agent files beside a session looked at for its own
_HEAD = 8192  # bytes of an agent file's start that name its session


class NamedAgents:
    """The calls that name a subagent, by index: the agent their result names, else
    their ``agent_progress``'s; and each agent's file (``path_for``). Kept up to date a
    snapshot at a time from what was named since: a session with 1,878 subagents looked
    every one up again for each snapshot of a followed file."""

    def __init__(self) -> None:
        self.of: dict[int, str] = {}
        self.paths: dict[int, str | None] = {}
        self._results: set[int] = set()  # named by their result (the progress's gives way)
        self._named = 0  # of ``calls.agents_named``
        self._progress = 0  # of ``agent_of``
        self._unfound: list[str] = []  # call ids a progress named, their call not read yet

    def update(self, b: ClaudeCodeBuilder) -> dict[int, str]:
        calls, progress = b.calls, b.agent_of
        new = calls.agents_named - self._named
        if new:
            results = calls.agent
            start = max(0, len(results) - new)
            for at, agent in itertools.islice(results.items(), start, None):
                self._name(b, at, agent)
                self._results.add(at)
            self._named = calls.agents_named
        if len(progress) > self._progress:
            self._unfound.extend(itertools.islice(progress, self._progress, None))
            self._progress = len(progress)
        if self._unfound:
            unfound: list[str] = []
            for call_id in self._unfound:
                at = calls.find(call_id)
                if at < 0:
                    unfound.append(call_id)
                elif at not in self._results:
                    self._name(b, at, progress[call_id])
            self._unfound = unfound
        return self.of

    def _name(self, b: ClaudeCodeBuilder, at: int, agent: str) -> None:
        self.of[at] = agent
        self.paths[at] = path_for(b, agent)


def beside_session(path: str) -> bool:
    """A 2.0.x subagent file: ``agent-*.jsonl`` in a project folder of
    ``~/.claude/projects`` (session files there are named by their UUIDs)."""
    here = Path(path)
    return (
        here.name.startswith("agent-")
        and here.suffix == ".jsonl"
        and here.parent.parent.name == "projects"
    )


def folder_of(session: str) -> Path:
    """Where a session's subagent files are (a subagent file's own folder for itself)."""
    here = Path(session)
    if here.parent.name == "subagents":
        return here.parent
    return here.parent / _stem(here) / "subagents"


def agent_folders(session: str) -> tuple[str, str]:
    """The folders the session's agent files are listed from (``agent_file_names``):
    its ``subagents/`` folder (2.1.x), and its own folder (2.0.x)."""
    return (str(folder_of(session)), os.path.dirname(session))


def _stem(session: Path) -> str:
    """A session file's name without ``.jsonl`` (nor ``.zst``, its compressed copy's)."""
    return Path(session.name.removesuffix(".zst")).stem


def names_a_file(agent: str) -> bool:
    """Whether an agent's (or a session's) id can name a file in a folder: not empty,
    not ``.`` nor ``..``, and no separator in it (nothing that reaches out of it)."""
    return agent not in ("", ".", "..") and not _NOT_IN_A_NAME.search(agent)


def path_for(b: ClaudeCodeBuilder, agent: str) -> str | None:
    """The agent's own file, when it is there (looked up once per agent and builder)."""
    cache: dict[str, str | None] = b.agent_paths
    if agent in cache:
        return cache[agent]
    found: str | None = None
    if names_a_file(agent):
        folders = b.agent_folders
        if folders is None:  # 2.1.x, then 2.0.x; each as ``str(folder / name)`` begins
            where = (folder_of(b.path), Path(b.path).parent)
            folders = b.agent_folders = tuple(str(folder / "-")[:-1] for folder in where)
        name = f"agent-{agent}.jsonl"
        for folder in folders:
            candidate = folder + name
            if os.path.isfile(candidate) and candidate != b.path:
                found = candidate
                break
    cache[agent] = found
    return found


def path_in_source(b: ClaudeCodeBuilder, agent: str, source: str) -> str | None:
    """A resumed file's copied call's agent file, in the earlier session's folder beside
    the file (``<source>/subagents/``), when it is there (looked up once per agent)."""
    cache = b.agent_paths
    key = f"{source}/{agent}"  # (an agentId that names a file holds no ``/``)
    if key not in cache:
        found = None
        if names_a_file(agent) and names_a_file(source):
            candidate = Path(b.path).parent / source / "subagents" / f"agent-{agent}.jsonl"
            found = str(candidate) if candidate.is_file() else None
        cache[key] = found
    return cache[key]


def source_folders(b: ClaudeCodeBuilder) -> list[str]:
    """The folders of the earlier sessions a resumed file copied (their subagents')."""
    found = resumed(b)
    parent = Path(b.path).parent
    return (
        [str(parent / s / "subagents") for s in found.sources if names_a_file(s)] if found else []
    )


class Spawned(NamedTuple):
    """The call in a subagent's file that started another subagent."""

    call_id: str
    description: str | None
    took: float | None  # its writer's own duration (the call's ``totalDurationMs``)


class FileRead(NamedTuple):
    """What a subagent file was found to hold."""

    key: FileKey  # its (size, mtime) when read
    usage: Usage
    messages: int
    damage: str | None  # its first damaged line (what its read left out)
    tail: str | None  # its crash tail
    outcome: Outcome  # what its turns say of its run (a launched call's state)
    spawned: dict[str, Spawned]  # agents its calls started


# Those by path. A live session keeps one, so that a snapshot reads again only the files
# that changed since the last.
ReadCache = dict[str, FileRead]


def attach(
    transcript: Transcript, b: ClaudeCodeBuilder, cache: ReadCache | None = None
) -> background.Settled:
    """Fill ``transcript.subagents``: linked agents first (and in-file sidechains, as
    their calls link them), then the folder's other files (the compaction summariser's
    ``agent-acompact-*``, a Workflow run's agents, agents named nowhere); settle the
    calls launched in the background by their files (``background.settle``: what was
    settled)."""
    entries, skipped = _files(_linked(transcript, b), b)
    unlisted = transcript.subagents_unlisted = b.agents_unlisted
    if unlisted is not None:
        transcript.warnings.append(
            f"subagents folder {unlisted}: a subagent only it holds is not known, and "
            "the subagents counted and their usage are lower bounds"
        )
    reads: list[tuple[Subagent, FileRead | None]] = []
    for sub, path, key in entries:
        transcript.subagents.append(sub)
        if path is None or key is None:
            reads.append((sub, None))
            continue
        try:
            read = _read(path, key, cache)
        except TranscriptError as err:
            transcript.warnings.append(f"subagent {sub.id}: {err}")
            reads.append((sub, None))
            continue
        sub.usage, sub.messages, sub.read = read.usage, read.messages, True
        reads.append((sub, read))
        if not key[0] and transcript.writer_alive is False:  # (else: it may be about to)
            transcript.warnings.append(
                f"subagent {os.path.basename(path)}: its file is empty; its usage is "
                "unknown, and the session's with it a lower bound"
            )
        # (a last line its writer is still writing is no crash tail: not said)
        cut = read.damage or (read.tail if transcript.writer_alive is not True else None)
        if cut is not None:
            sub.left_out = cut
            if sub.counted:
                transcript.warnings.append(
                    f"subagent {os.path.basename(path)}: {cut}; its usage and the "
                    "session's with it are lower bounds"
                )
    _link_spawned(reads)
    settled = background.settle(transcript, reads)
    if skipped:
        # One warning for them all: a session can have thousands.
        transcript.warnings.append(
            f"{count(skipped, 'subagent file')} not read for usage (over the bound of "
            f"{MAX_FILES} files and {MAX_BYTES >> 20} MB a session)"
        )
    return settled


def _link_spawned(reads: list[tuple[Subagent, FileRead | None]]) -> None:
    """A subagent no call of the session's file names, started by another subagent (its
    call in that one's file): linked to that call."""
    spawned: dict[str, Spawned] = {}
    for _sub, read in reads:
        if read is not None:
            spawned.update(read.spawned)
    if not spawned:
        return
    for sub, _read in reads:
        call = spawned.get(sub.id) if sub.call_id is None and not sub.unnamed else None
        if call is not None:
            sub.call_id = call.call_id
            sub.description = call.description or sub.description
            sub.took = call.took


# (agent, call id, description, the earlier session its call was copied from); agent
# None: a call not answered yet that names none, and no file's first prompt is its
# (``file_links``)
Linked = list[tuple[str | None, str | None, str | None, str | None]]


def _linked(transcript: Transcript, b: ClaudeCodeBuilder) -> Linked:
    """The agents whose files are linked, in order: (agent, call id, description). An
    in-file sidechain's subagent is put on ``transcript`` here, as its call links it."""
    linked: Linked = []
    known: set[str] = set()
    ops, calls = transcript.tool_operations, b.calls
    # The calls that name an agent or are linked to a sidechain (a few), in order: the
    # operations are not all made for them.
    named = b.named.update(b)
    described = b.linked_calls
    # (a call no result answered yet, naming no agent: its subagent's file not known)
    unanswered = [at for at in b.sides.tasks if calls.result[at] < 0]
    copies = copied_marks(b)  # (a resumed file's: its copied calls' agents are earlier)
    for at in sorted({*named, *calls.sidechain, *unanswered}):
        if at >= len(ops):
            break
        call = described.get(at)
        if call is None:
            op = ops[at]
            call = described[at] = (op.call_id, _description(op))
        call_id, description = call
        agent = named.get(at)
        side = calls.sidechain.get(at)
        if side is not None:
            transcript.subagents.append(_in_file(b, side, call_id, description))
        elif agent is None:
            linked.append((None, call_id, description, None))
        elif agent not in known:
            known.add(agent)
            # (a resumed file's copied call: its subagent is the earlier session's)
            source = copied_from(b, calls.response[at], copies)
            linked.append((agent, call_id, description, source))
    own = Path(b.path).name
    for name in agent_file_names(b):
        agent = name[len("agent-") : -len(".jsonl")]
        if agent not in known and name != own:
            known.add(agent)
            desc = "compaction summariser" if agent.startswith("acompact") else None
            linked.append((agent, None, desc, None))
    _workflow_agents(b, ops, known, linked)
    return linked


def _workflow_agents(b: ClaudeCodeBuilder, ops: Any, known: set[str], linked: Linked) -> None:
    """A Workflow run's agent files (``background.workflow_files``), each linked to the
    Workflow call whose result names the run."""
    if folder_of(b.path) == Path(b.path).parent:
        return  # (a subagent's file: its siblings are not its own)
    runs = {run: at for at, run in b.calls.workflow.items() if at < len(ops)}
    for run, path in background.workflow_files(folder_of(b.path)):
        agent = os.path.basename(path)[len("agent-") : -len(".jsonl")]
        if agent in known:
            continue
        known.add(agent)
        b.agent_paths[agent] = path
        at = runs.get(run)
        if at is None:
            linked.append((agent, None, f"workflow {run}", None))
            continue
        call = b.linked_calls.get(at)
        if call is None:
            op = ops[at]
            call = b.linked_calls[at] = (op.call_id, _description(op))
        linked.append((agent, call[0], call[1] or f"workflow {run}", None))


def agent_file_names(b: ClaudeCodeBuilder) -> list[str]:
    """The names of the session's subagent files (``agent-<id>.jsonl``), in its
    ``subagents/`` folder (2.1.x) or beside it (2.0.x, those whose lines name it)."""
    folder = folder_of(b.path)
    if folder == Path(b.path).parent or Path(b.path).name.startswith("agent-"):
        # a subagent file itself (in ``subagents/``, or a 2.0.x one beside its session in
        # any folder, a project's copied out of ``~/.claude/projects`` too): its siblings
        # are not its own
        return []
    b.agents_unlisted = None
    try:
        return _agent_files(folder) or _own_siblings(b)
    except OSError as err:  # (said, and the subagents known counted as at least these)
        where = err.filename or folder
        b.agents_unlisted = f"{where} cannot be read ({err.strerror})"
        return []


def _files(
    linked: Linked, b: ClaudeCodeBuilder
) -> tuple[list[tuple[Subagent, str | None, FileKey | None]], int]:
    """Each linked agent's ``Subagent``, with its file and that file's key when it is to
    be read (within the bound of files and bytes); how many were over the bound."""
    entries: list[tuple[Subagent, str | None, FileKey | None]] = []
    budget = MAX_BYTES
    read_files = skipped = 0
    for agent, call_id, desc, source in linked:
        if agent is None:  # (its call's id names it: no line names its agent yet)
            unnamed = Subagent(call_id or "?", None, call_id, desc, unnamed=True)
            entries.append((unnamed, None, None))
            continue
        path = path_for(b, agent)
        if path is None and source is not None:
            path = path_in_source(b, agent, source)
        sub = Subagent(id=agent, path=path, call_id=call_id, description=desc)
        sub.copied_from, sub.no_file_name = source, not names_a_file(agent)
        sub.folder_unread = path is None and b.agents_unlisted is not None
        key: FileKey | None = None
        if path is not None:
            sub.description = sub.description or meta_description(path)
            try:
                stat = os.stat(path)
            except OSError:
                stat = None
            if stat is not None:
                size = stat.st_size
                if read_files >= MAX_FILES or size > budget:
                    skipped += 1
                else:
                    budget -= size
                    read_files += 1
                    key = (size, stat.st_mtime_ns)
        entries.append((sub, path, key))
    return entries, skipped


def _read(path: str, key: FileKey, cache: ReadCache | None) -> FileRead:
    """What the file at ``path`` holds (its usage, message count and what its read left
    out), read unless ``cache`` has it as it is now (``key``); ``TranscriptError`` when
    it cannot be."""
    known = cache.get(path) if cache is not None else None
    if known is None or known.key != key:
        builder = read_builder(path)
        read = builder.transcript(None)
        known = FileRead(
            key,
            read.usage,
            message_count(read),
            damage_warning(read.warnings, read.lines),
            crash_tail(read.warnings, read.lines),
            background.outcome_of(read),
            _spawned(builder, read),
        )
        if cache is not None:
            cache[path] = known
    return known


class SubagentsLive(LinkedLive):
    """A followed session with its subagents (``LinkedLive``), each subagent file read
    again only when it changed since it was last read."""

    def __init__(self, fmt: Any, path: str) -> None:
        super().__init__(fmt, path)
        self._cache: ReadCache = {}

    def read_linked(self, lock: AbstractContextManager[Any]) -> None:
        """The subagent files ``attach`` would read (within its bound)."""
        b: ClaudeCodeBuilder = self.builder  # type: ignore[assignment]
        with lock:
            entries, _ = _files(_linked(b.transcript(None), b), b)
        for _sub, path, key in entries:
            if path is not None and key is not None:
                with contextlib.suppress(TranscriptError):  # (the link says why)
                    _read(path, key, self._cache)

    def linked_folders(self) -> tuple[str, ...]:
        # (and a Workflow's: a run's folder, and each run's, change as agents come)
        subagents = folder_of(self.path)
        runs = background.workflow_folders(subagents)
        workflows = (str(subagents / "workflows"),) if runs else ()
        # (a resumed file's copied calls' agents, in the earlier sessions' folders)
        earlier = source_folders(self.builder)  # type: ignore[arg-type]
        return (*agent_folders(self.path), *workflows, *map(str, runs), *earlier)

    def read_key(self, path: str) -> FileKey | None:
        known = self._cache.get(path)
        return known.key if known is not None else None

    def link(self, transcript: Transcript) -> Callable[[Transcript], None]:
        before = len(transcript.warnings)
        settled = attach(transcript, self.builder, self._cache)  # type: ignore[arg-type]
        agents, warnings = list(transcript.subagents), transcript.warnings[before:]

        def again(later: Transcript) -> None:
            later.subagents.extend(agents)
            later.subagents_unlisted = transcript.subagents_unlisted
            later.warnings.extend(warnings)
            background.apply(later, settled)

        return again


def _description(op: ToolOp) -> str | None:
    args = op.arguments
    desc = args.get("description") if isinstance(args, dict) else None
    return desc if isinstance(desc, str) else None


def _in_file(b: ClaudeCodeBuilder, side: InFile, call_id: str, desc: str | None) -> Subagent:
    """A subagent whose lines are in the session's file (1.0.x): its usage is its
    responses', each once (and in the file's own usage already)."""
    return Subagent(
        id=side.ident,
        path=None,
        call_id=call_id,
        description=desc,
        usage=b.usage.fold(side.responses),
        messages=side.messages,
        line=side.line,
    )


def _agent_files(folder: Path) -> list[str]:
    """The ``agent-*.jsonl`` names in ``folder`` (none where it is not there); OSError
    where it cannot be listed (``glob`` would say nothing of it: none, as if none)."""
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(n for n in names if n.startswith("agent-") and n.endswith(".jsonl"))


def _own_siblings(b: ClaudeCodeBuilder) -> list[str]:
    """2.0.x: the agent files beside the session whose first line names its sessionId
    (each file's owner read once per process: a folder can hold thousands of them, and
    the browser opens every session in it)."""
    version = b.meta.get("version")
    if isinstance(version, str) and not version.startswith("2.0."):
        return []  # 1.0.x kept subagents in the session's file, 2.1.x in subagents/
    here = Path(b.path)
    ids = {i for i in (_stem(here), b.meta.get("session-id")) if isinstance(i, str)}
    names = _agent_files(here.parent)[:MAX_SIBLINGS]
    if not names:
        return []
    owners = _OWNERS.setdefault(str(here.parent), {})
    out: list[str] = []
    for name in names:
        owner = owners.get(name)
        if owner is None:
            owner = _owner(here.parent / name)
            if owner is not None:  # (a file not yet written to is read again next time)
                owners[name] = owner
        if owner in ids:
            out.append(name)
    return out


_OWNERS: dict[str, dict[str, str]] = {}  # folder -> agent file -> the sessionId it names
_SESSION_ID = re.compile(rb'"sessionId"\s*:\s*"([^"\\]{1,200})"')


def _owner(path: Path) -> str | None:
    try:
        with open(path, "rb") as f:
            head = f.read(_HEAD)
    except OSError:
        return None
    found = _SESSION_ID.search(head)
    return found.group(1).decode("utf-8", "replace") if found else None


def _spawned(b: ClaudeCodeBuilder, read: Transcript) -> dict[str, Spawned]:
    """The agents a subagent's calls name (results, progress): the call that started
    each (``read``, what ``b`` made: its operations, whose durations are the calls')."""
    out: dict[str, Spawned] = {}
    calls, ops = b.calls, read.tool_operations
    for at, agent in b.named.update(b).items():
        args = calls.arguments(at)
        desc = args.get("description") if isinstance(args, dict) else None
        took = ops[at].duration if at < len(ops) else None
        out.setdefault(
            agent, Spawned(calls.id_of(at), desc if isinstance(desc, str) else None, took)
        )
    return out


def read_file(path: str) -> Transcript:
    """A subagent file read by the same builder (without its own subagents);
    ``TranscriptError`` where it holds something else (it read as 0 messages)."""
    return read_builder(path).transcript(None)


def read_builder(path: str) -> ClaudeCodeBuilder:
    """A subagent file fed whole to its own builder (``read_file``'s)."""
    from .. import detect_format
    from .builder import ClaudeCodeBuilder

    found = detect_format(path)
    if found != "claude-code" and (found is not None or os.path.getsize(path) > 0):
        # (an empty file is a subagent about to write: 0 messages so far)
        what = f"a {found} file" if found is not None else "no transcript"
        raise TranscriptError(f"its file is {what}, not Claude Code's", path=path)
    builder = ClaudeCodeBuilder(path)
    feed_file(builder, path)
    return builder


def meta_description(path: str) -> str | None:
    """``agent-<id>.meta.json``'s description, when there is one (small, read whole)."""
    meta = Path(path[: -len(".jsonl")] + ".meta.json")
    try:
        if meta.stat().st_size > 1 << 20:
            return None
        data: Any = orjson.loads(meta.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    desc = data.get("description") if isinstance(data, dict) else None
    return desc if isinstance(desc, str) else None
