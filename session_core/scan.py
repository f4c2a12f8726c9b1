"""Summaries of transcript files for a directory browser: bounded, read-only, never raising.

``scan_file(path)`` answers, for one file: its format, agent and model, when it
started and was last active, its size, message lines, tool calls, tokens and
cost (``None`` = unknown, never 0), and a status. ``scan_dir(root)`` does it
for every ``*.jsonl`` below a directory.

Status rules, first match wins:

* **not-a-transcript**: empty, or the first non-blank line is neither a v1
  ``session-meta`` line nor an agentgo ``session_start`` record.
* **damaged**: the file would not load, and the reason says why. v1: what
  ``load`` refuses (a malformed line that is not the last, a bad envelope,
  a fatal replay rule); a malformed *last* line alone is a crash tail, not
  damage. agentgo: what the strict reader refuses (a complete line that does
  not parse, another session id, a seq gap, a wrong version).
* **unreadable**: the file (or a directory below the root) cannot be read at all:
  permission denied, an I/O error, a symbolic link to nothing (or gone); the reason
  gives the system's words.
* **live**: its writer may be at work, by the one rule every read path and the
  viewer tell it by (``TranscriptFormat.writer_alive``): a writer holds the file: its
  lock (``/proc/locks``), or open for writing in another process (``/proc/*/fd``:
  Codex keeps its rollout open while the session runs); or the file changed within
  the last ``live_window`` seconds (``IDLE_SECONDS``; writers that do not lock: not
  agentgo's, which all do; not a compressed file, which none appends to; not a file
  whose writer this process saw is gone: its lock let go, or every process seen with
  it open exited). What it left open is said as running then (a v1 unanswered end
  or an operation dispatched and not settled: ``ops.cut_off_state``; a model format's
  turn or call); once it is not, the row says
  what the same lines read with the writer gone say (finished, or what was left
  open), as a fresh ``check`` does, the file not read again.
* **crashed**: not live, and the writer left work unfinished: v1 tool
  operations dispatched and never settled, a last message that is no answer of the
  model's (cut off), or a crash tail (a malformed final line); agentgo runs without
  ``run_close``, calls without their terminal event, or an unfinished final line.
* **finished**: everything else.

Bounded reading: a file up to ``budget`` bytes is read whole (v1 through the
same read-only replay ``tailscope replay`` uses). A bigger one is read as its
head (meta, first records) and a tail window of ``window`` bytes starting at a
line boundary; its counts are extrapolated from the window and flagged
``estimated``, and damage is only looked for inside what was read. Before a v1 window
the lines that name an operation are read (``tallies.open_before``: found by their
bytes, the others passed over): those left open there and not settled in the window are
pending too, as ``check`` counts them.

Nothing here writes, takes a lock, or keeps a file open after returning.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Literal

from .compressed import CompressedReadError, maybe_decompress
from .errors import TranscriptError
from .formats import HEAD_LINES, Format, by_name, detect_records, not_a_transcript
from .formats.base import IDLE_SECONDS
from .formats.v1.ops import unanswered_end
from .indexing import head_record
from .open_work import OpenWork
from .reader import (
    NotAFileError,
    bom_length,
    cannot_read,
    is_blank,
    missing_file,
    open_regular,
)
from .scan_window import LAST_LINE_MAX
from .times import epoch, seconds_between
from .writers import LockTable, seen_gone

Status = Literal["live", "finished", "crashed", "damaged", "unreadable", "not-a-transcript"]
STATUSES: tuple[Status, ...] = (
    "live",
    "finished",
    "crashed",
    "damaged",
    "unreadable",
    "not-a-transcript",
)

BUDGET = 64 << 20  # read files up to this size whole
WINDOW = 4 << 20  # above it: this much of the tail
HEAD = 1 << 20  # ...and this much of the head
FIRST_LINE_LIMIT = 1 << 24  # a first line longer than this is not a transcript's


@dataclass(frozen=True, slots=True)
class LeftOpen:
    """What a model format's read found its writer left open (``scan_model.left_open``):
    tool calls without a result, why the row is crashed in words (None: nothing), and
    whether any of it is running (its writer may be at work)."""

    pending: int
    reason: str | None
    running: bool
    # (v1's: as read while a writer holds the file, where that says less of its end)
    held: str | None = None


@dataclass(slots=True)
class FileSummary:
    """What a browser row shows of one file. Counts are ``None`` when unknown."""

    path: str
    rel: str = ""  # the path relative to the scanned directory
    status: Status = "not-a-transcript"
    # why damaged, unreadable, crashed or not a transcript (or live: so far); finished:
    # only what was not read (``last_line_unread``)
    reason: str | None = None
    format: Format | None = None
    agent: str | None = None  # the agent, or the project a session ran in (its cwd's name)
    title: str | None = None  # a session's title (a summary line, or its first prompt)
    untitled: str | None = None  # why a file has no title (none said: it has none)
    model: str | None = None
    started: str | None = None  # the first record's timestamp, as written
    # no record says when it began (an older writer's document that does not say): the
    # row's start is its file's time (``mtime``: when it was last written), said so
    started_by_file: bool = False
    last_ts: str | None = None  # the last record's timestamp, as written
    mtime: float = 0.0
    size: int = 0
    # what stands for its size where nothing was there to measure (None: ``size`` is it):
    # "a broken link", "not there", never 0 bytes
    unsized: str | None = None
    device: int = 0
    inode: int = 0
    messages: int | None = None
    tool_calls: int | None = None
    tokens: int | None = None
    cost: float | None = None
    # no model response was made (``usage_totals.made_none``: the header's "none (no model
    # response)"), so ``tokens`` and ``cost`` are None for none, not unknown
    no_response: bool = False
    estimated: bool = False  # counts extrapolated from a tail window (a big file)
    # a windowed read's last line, longer than it looks back for (``LAST_LINE_MAX``), not
    # read: "ended" (a newline ends it) or "cut" (none does: a crash tail)
    last_line_unread: Literal["ended", "cut"] | None = None
    # a windowed read's bytes no scale is measured by: its last line, and a long line the
    # window began in (``tail_window``)
    unmeasured: int = 0
    # a known total that leaves out responses that did not report (a lower bound)
    tokens_partial: bool = False
    cost_partial: bool = False
    lower_why: list[str] = field(default_factory=list)  # why, in words (none: responses')
    pending: int = 0  # v1 tool operations never settled; agentgo gaps
    # runs whose loop ended in an error (an agentgo ``agent_end`` with one: the Runs tab's
    # *failed*); work that ended, not left open: no crash, said beside the status
    failed_runs: int = 0
    # the calls a message asked for that no execution is of, in ``check``'s words ("1 call
    # never dispatched"): agentgo's, whose loop said it ended (an open run is a gap)
    unstarted: str | None = None
    # ...as read with its writer at work and with it gone (its open run cut off: "never
    # dispatched", not "not dispatched yet"), where the two differ: ``settle_status``
    # says the one that holds by the writer-alive rule, as ``check`` does
    unstarted_by_writer: tuple[str, str] | None = None
    crash_tail: bool = False
    # v1: its last message is no answer of the model's (``ops.cut_off``): ``reason`` says
    # how that stands as of the status (``settle_status``) beside what else is open
    unanswered: bool = False
    left_open: str | None = None
    # A model format's read that found work running (a turn, a call: its writer may be at
    # work): what it left open as read, and as the same lines read with the writer gone;
    # ``settle_status`` says the one that holds as of the status (None: nothing running)
    running: LeftOpen | None = None
    gone: LeftOpen | None = None
    locked: bool | None = None  # a writer holds it: a lock, or open (None: /proc did not say)
    # Where a format links subagents' files, ``tokens`` and ``cost`` hold theirs too:
    with_subagents: str | None = None  # what the row's usage holds, in words
    # ...the subagents' alone: the file reported no tokens (no cost) of its own
    tokens_alone: bool = False
    cost_alone: bool = False
    subagents: tuple[str, ...] = ()  # the linked subagents' own files (absolute paths)
    counted: tuple[str, ...] = ()  # ...those whose usage ``tokens`` and ``cost`` hold
    parent: str | None = None  # the session this file is a subagent of (its own meta says)
    session: str | None = None  # the file's own session id, where it says one
    # A resumed session's file: its usage copied from each earlier session (id, tokens,
    # cost, forked from it; a total counts a copy once: ``browser_copies``), in words
    copied: tuple[tuple[str, int | None, float | None, bool], ...] = ()
    resumed: str | None = None

    @property
    def is_folder(self) -> bool:
        """A folder that cannot be listed (a scan's row for it), not a file."""
        return self.unsized == FOLDER

    @property
    def counts_known(self) -> bool:
        """Whether the file was read as a transcript, so its counts mean something (not
        another kind of file, not damaged, not unreadable)."""
        return self.format is not None and self.status not in ("damaged", "unreadable")

    @property
    def last_activity(self) -> float:
        """Seconds since the epoch: the last record's time, else the file's mtime (a file
        copied or touched since keeps when its writer was last at work); a live file's
        the later of the two (its writer is at work now)."""
        stamp = epoch(self.last_ts)
        if stamp is None:
            return self.mtime
        return max(stamp, self.mtime) if self.status == "live" else stamp

    @property
    def started_at(self) -> float | None:
        return epoch(self.started)

    @property
    def duration(self) -> float | None:
        """Seconds from the first record's time to the last's (a big file's too: its head's
        first, its tail's last); None where either is unknown."""
        return seconds_between(self.started, self.last_ts)


@dataclass(slots=True)
class FileRead:
    """What the scan read of one file, for its format to fill the row from."""

    summary: FileSummary
    fh: IO[bytes]  # positioned after ``head`` (a compressed file: its decompressed stream)
    head: bytes  # the first bytes, at least the first line
    first: dict[str, Any]  # the first record, parsed
    budget: int  # read files up to this size whole
    window: int  # above it: this much of the tail


# -- locks -------------------------------------------------------------------------


# -- one file ------------------------------------------------------------------------


def scan_file(
    path: str | os.PathLike[str],
    *,
    live_window: float = IDLE_SECONDS,
    budget: int = BUDGET,
    window: int = WINDOW,
    locks: LockTable | None = None,
    now: float | None = None,
) -> FileSummary:
    """Summarise one file (see the module docstring for the status rules). Never raises."""
    where = os.fspath(path)
    summary = FileSummary(path=where, rel=os.path.basename(where))
    try:
        _scan_into(summary, where, budget, window)
    except _Unreadable as err:
        summary.status, summary.reason = "unreadable", err.reason
    except TranscriptError as err:
        summary.status, summary.reason = "damaged", _reason(err)
    except CompressedReadError as err:  # (its data: truncated or corrupt)
        summary.status, summary.reason = "damaged", f"could not be read: {err.strerror or err}"
    except OSError as err:  # (a read that failed after the open: an I/O error)
        summary.status, summary.reason = "unreadable", f"could not be read: {err.strerror or err}"
    except Exception as err:  # a summary, never an exception: the browser keeps listing
        summary.status, summary.reason = "damaged", f"could not be read: {err}"
    return settle_status(summary, live_window=live_window, locks=locks, now=now)


def settle_status(
    summary: FileSummary,
    *,
    live_window: float = IDLE_SECONDS,
    locks: LockTable | None = None,
    now: float | None = None,
) -> FileSummary:
    """A row read as a transcript, its status by the rules (the module docstring) as of
    ``now``: live, crashed or finished; one that was not (damaged...) as it is. Reads
    the locks, never the file (``scan_live``: a row whose file did not change)."""
    fmt = summary.format
    if fmt is None or not summary.counts_known:
        return summary
    unread = summary.last_line_unread
    if unread is not None:  # (nothing of the end was read: its counts are unknown)
        summary.messages = summary.tool_calls = summary.tokens = None
        summary.cost, summary.no_response = None, False
        # Crashed only where the last line is cut: what the lines before it left open
        # (or settled) was not read, and a whole last line is no crash.
        summary.crash_tail = unread == "cut"
        summary.reason = f"its last line is over {LAST_LINE_MAX >> 20} MB: the end was not read"
    table = locks or LockTable.read()
    summary.locked = table.holds(summary.device, summary.inode)
    if summary.locked:
        table.note(summary.path, summary.device, summary.inode)
    # (the one rule: a format whose writers all lock is live only while one does,
    # agentgo's; nobody appends to a compressed file, however fresh: Codex packs an idle
    # rollout; a writer seen holding the file and gone is gone, however fresh the file)
    alive = by_name(fmt).writer_alive(summary.path, held=summary.locked, now=now, quiet=live_window)
    if alive is not False and not summary.locked and _writer_went(summary):
        alive = False
    if summary.crash_tail and unread is not None:  # (a crash tail once its writer is gone)
        summary.reason = f"{summary.reason}; " + (
            "a crash tail (it is unfinished)" if alive is False else "unfinished yet"
        )
    if summary.unstarted_by_writer is not None:
        _unstarted_now(summary, summary.unstarted_by_writer, alive)
    if unread is None:
        _work_goes_on(summary, alive)
    # (after: a v1 window's end is said beside what it left open, as of the status)
    if summary.unanswered and unread is None:
        _v1_end(summary, alive)
    if alive is not False:
        summary.status = "live"
    elif summary.reason is not None and unread != "ended":
        summary.status = "crashed"
    else:
        summary.status = "finished"
    return summary


def _writer_went(summary: FileSummary) -> bool:
    return seen_gone(summary.path, summary.device, summary.inode, summary.size, summary.mtime)


class _Unreadable(TranscriptError):
    """The file could not be opened for reading (permission, I/O): not its data's fault."""


def _reason(err: TranscriptError) -> str:
    return f"line {err.line}: {err.reason}" if err.line is not None else err.reason


def _scan_into(summary: FileSummary, where: str, budget: int, window: int) -> None:
    try:
        fh = open_regular(where)
    except FileNotFoundError:  # (gone, or a link to nothing: not its data's fault)
        summary.unsized = "a broken link" if os.path.islink(where) else "not there"
        raise _Unreadable(missing_file(where)) from None
    except IsADirectoryError:
        raise TranscriptError("is a directory") from None
    except NotAFileError:
        summary.reason = "not a regular file (a FIFO, a device...)"
        return
    except OSError as err:
        with contextlib.suppress(OSError):  # (its size and time, where stat can tell them)
            st = os.stat(where)
            summary.size, summary.mtime = st.st_size, st.st_mtime
        raise _Unreadable(cannot_read(err)) from None
    with fh:
        st = os.fstat(fh.fileno())
        summary.size, summary.mtime = st.st_size, st.st_mtime
        summary.device, summary.inode = st.st_dev, st.st_ino
        plain = fh
        fh = maybe_decompress(fh)  # a .jsonl.zst: its lines (the row keeps the file's size)
        if fh is not plain:
            budget = max(budget, 1 << 62)  # a stream cannot seek to a tail window: read whole
        head = fh.read(HEAD)
        while b"\n" not in head and len(head) < FIRST_LINE_LIMIT:  # a huge first line
            more = fh.read(HEAD)
            if not more:
                break
            head += more
        # (detection reads at most the head's first HEAD_LINES + 1 records: each parsed
        # once; past a byte order mark, which only a format that reads one may begin with)
        bom = bom_length(head)
        records = list(itertools.islice(_head_records(head[bom:]), HEAD_LINES + 1))
        name = detect_records(records, bool(bom))
        if name is None and bom and (unmarked := detect_records(records)) is not None:
            # a format that reads no byte order mark, led by one: its line 1 is damage,
            # named as ``check`` names it
            from .views import first_line_refused

            summary.format = unmarked
            raise first_line_refused(where, 1, head.split(b"\n", 1)[0])
        if name is None:  # (as every command says it: empty past a mark, white space; an
            from .views import why_unclaimed  # older writer's document)

            why = why_unclaimed(where)
            summary.reason = "empty" if why.empty else why.document or not_a_transcript()
            if why.document is not None:  # (as it says it began, else its file's time)
                said = why.started if epoch(why.started) is not None else None
                summary.started, summary.started_by_file = said, said is None
            return
        summary.format = name
        first = records[0]  # (a format claimed the head: its first record is an object)
        by_name(name).summarise_file(FileRead(summary, fh, head, first, budget, window))


def _head_records(head: bytes) -> Iterator[Any]:
    """The head's first non-blank lines, parsed (None: no JSON), as detection asks."""
    for raw in head.split(b"\n", HEAD_LINES * 4)[: HEAD_LINES * 4]:
        if not is_blank(raw):
            yield head_record(raw)


def _v1_end(summary: FileSummary, alive: bool | None) -> None:
    """How the row's unanswered end stands by its writer (``alive``: as its runs and
    ``check`` tell it: ``ops.unanswered_end``), said in its reason after what its read
    found open (``left_open``): a window's, which cannot say it as of its read."""
    said = OpenWork(cut_off=unanswered_end(True, alive)).said()  # (none: an answer, held)
    summary.reason = "; ".join(w for w in (summary.left_open, *said) if w) or None


def _unstarted_now(summary: FileSummary, said: tuple[str, str], alive: bool | None) -> None:
    """The calls no execution is of, as ``check`` says them by its writer (``alive``):
    not dispatched yet while the writer may be at work, never dispatched once it is gone."""
    summary.unstarted = said[1] if alive is False else said[0]


def _work_goes_on(summary: FileSummary, alive: bool | None) -> None:
    """The row's reason and pending by its writer (``alive``, the one rule every read path
    tells it by: ``TranscriptFormat.writer_alive``): the work a row was read running (a
    turn, a call) as read while it may be at work, else as its lines read with the
    writer gone (a fresh ``check`` says the same)."""
    running, gone = summary.running, summary.gone
    if running is None or gone is None:
        return
    said = gone if alive is False else running
    summary.pending, summary.reason = said.pending, said.reason
    if alive is True and running.held is not None:  # (``check``'s words while it is held)
        summary.reason = running.held or None


# -- directories -----------------------------------------------------------------------


@dataclass(slots=True)
class _Walk:
    root: str
    recursive: bool
    seen: set[tuple[int, int]] = field(default_factory=set)
    problems: list[FileSummary] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)  # the ones listed


LISTED = (".jsonl", ".jsonl.zst")  # what a directory walk looks at (a format decides the rest)
FOLDER = "a directory"  # a row's ``unsized`` where it is a folder that cannot be listed


def listed_name(name: str) -> bool:
    """Is a file so named a row of a directory's walk: a ``*.jsonl`` (``.zst`` too), or an
    older writer's document no reader reads, as a format names it (``unread_name``)."""
    from .formats import FORMATS

    return name.endswith(LISTED) or any(fmt.unread_name(name) for fmt in FORMATS)


def part_of_another(path: str) -> bool:
    """A file some format says is not a session of its own (a subagent's file, the
    compressed copy of a plain rollout): shown from its session, not as a row."""
    from .formats import FORMATS

    return any(fmt.part_of_another(path) for fmt in FORMATS)


def session_of(path: str) -> str | None:
    """The session file that a file part of another belongs to, where a format's layout
    says so by its path (``TranscriptFormat.session_of``)."""
    from .formats import FORMATS

    return next((s for fmt in FORMATS if (s := fmt.session_of(path)) is not None), None)


def default_roots(environ: Mapping[str, str] | None = None) -> list[str]:
    """Where agents keep their sessions on this machine, for ``tailscope`` with no path:
    each format's own directory that exists ($CLAUDE_CONFIG_DIR, $CODEX_HOME honoured)."""
    from .formats import FORMATS

    env = os.environ if environ is None else environ
    found: list[str] = []
    for fmt in FORMATS:
        for root in fmt.default_roots(env):
            if os.path.isdir(root) and root not in found:
                found.append(root)
    return found


def list_transcript_paths(
    root: str | os.PathLike[str], recursive: bool = True, *, folders: list[str] | None = None
) -> tuple[list[str], list[FileSummary]]:
    """Every file ``listed_name`` names below ``root`` (sorted), a summary per unreadable
    directory; ``folders``: the directories listed are added to (looked at again).

    Symlinked directories are followed once (a loop is cut); ``*.repair``
    leftovers are not transcripts and are skipped.
    """
    walk = _Walk(os.fspath(root), recursive)
    paths: list[str] = []
    _walk_into(walk, walk.root, paths)
    paths.sort()
    if folders is not None:
        folders.extend(walk.folders)
    return paths, walk.problems


def readable_folders(roots: Iterable[str | os.PathLike[str]]) -> tuple[list[str], list[str]]:
    """Every folder below ``roots`` that can be listed, and every one that cannot: for a
    watcher that must watch them one by one (a recursive watch fails on one unreadable
    folder)."""
    readable: list[str] = []
    unreadable: list[str] = []
    for root in roots:
        walk = _Walk(os.fspath(root), True)
        _walk_into(walk, walk.root, [])
        readable.extend(walk.folders)
        unreadable.extend(problem.path for problem in walk.problems)
    return readable, unreadable


def _walk_into(walk: _Walk, directory: str, out: list[str]) -> None:
    try:
        st = os.stat(directory)
        key = (st.st_dev, st.st_ino)
        if key in walk.seen:
            return  # a symlink loop, or a directory reached twice
        walk.seen.add(key)
        with os.scandir(directory) as entries:
            found = sorted(entries, key=lambda e: e.name)
        walk.folders.append(directory)
    except OSError as err:
        problem = FileSummary(path=directory, rel=_rel(walk.root, directory))
        problem.status = "unreadable"
        problem.reason = f"this directory cannot be listed: {err.strerror or err}"
        problem.unsized = FOLDER
        walk.problems.append(problem)
        return
    for entry in found:
        try:
            is_dir = entry.is_dir(follow_symlinks=True)
        except OSError:
            is_dir = False
        if is_dir:
            if walk.recursive:
                _walk_into(walk, entry.path, out)
        elif listed_name(entry.name) and not part_of_another(entry.path):
            out.append(entry.path)


def _rel(root: str, path: str) -> str:
    try:
        return os.path.relpath(path, root)
    except ValueError:
        return path


def scan_dir(
    root: str | os.PathLike[str],
    recursive: bool = True,
    *,
    live_window: float = IDLE_SECONDS,
    budget: int = BUDGET,
    window: int = WINDOW,
) -> Iterator[FileSummary]:
    """A summary per ``*.jsonl`` below ``root`` (and per unreadable directory), in path order."""
    where = os.fspath(root)
    paths, problems = list_transcript_paths(where, recursive)
    yield from problems
    locks = LockTable.read()
    read_at = time.monotonic()
    for path in paths:
        if time.monotonic() - read_at > 1.0:  # a long scan: writers come and go
            locks, read_at = LockTable.read(), time.monotonic()
        summary = scan_file(
            path, live_window=live_window, budget=budget, window=window, locks=locks
        )
        summary.rel = _rel(where, path)
        yield summary


__all__ = [
    "BUDGET",
    "FOLDER",
    "STATUSES",
    "WINDOW",
    "FileSummary",
    "LockTable",
    "Status",
    "epoch",
    "list_transcript_paths",
    "readable_folders",
    "scan_dir",
    "scan_file",
]
