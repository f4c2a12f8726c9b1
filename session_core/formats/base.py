"""The format interface: what every transcript format implements, once.

A format names itself, claims a file from its first record, and reads a file into the
neutral model (``session_core.model.Transcript``) through a ``Builder`` fed one record
at a time: the same builder serves the read-only replay (fed the whole file once) and
the live view (fed what ``follow`` hands on). Everything else a read path needs (peek,
check, the browser's summary, the export document, the diff, the replay JSON) has a
default here built on that model; a format overrides what it does better or stricter.
"""

from __future__ import annotations

import functools
import os
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from typing import IO, TYPE_CHECKING, Any, ClassVar

from ..errors import InvalidLineError, TranscriptError
from ..events import SPAN_MAX
from ..file_lines import feed_file
from ..item_ends import last_stamp
from ..line_warnings import first_damage
from ..model import Item, Transcript
from ..times import epoch
from ..update_notes import UpdateNotes
from ..window_lines import lines_not_known
from .builders import Builder
from .check_note import check_note

if TYPE_CHECKING:
    from ..exportdoc import Document, View
    from ..follow_update import FollowUpdate
    from ..peeking import PeekSource
    from ..scan import FileRead
    from ..scan_live import RowFold


# A file of a lock-less writer untouched this long has no writer; a fresher one's writer
# may still be at work: the one window of every surface (calls running or interrupted, an
# unfinished last line held back or a crash tail, the header's dot, the browser's status).
IDLE_SECONDS = 120.0
TAIL_WINDOW = 2 << 20  # bytes of a big file's end read for its first screen, at most
# A first screen needs a screenful and some: the window starts this small and grows (to
# TAIL_WINDOW) only while it holds fewer lines than that (a file of big lines).
FIRST_WINDOW, FIRST_LINES = 256 << 10, 300


class LiveModel(UpdateNotes):
    """A builder kept up to date from ``follow`` updates (parsed), never re-reading the file."""

    def __init__(self, fmt: TranscriptFormat, path: str) -> None:
        self.format = fmt
        self.path = path
        self.builder = fmt.builder(path)
        self._snapshot_made = False  # since the last reset (``read_ahead``)

    def read_ahead(self, update: FollowUpdate, lock: AbstractContextManager[Any]) -> None:
        """Called by a follower's worker after it applied ``update``, outside ``lock`` (the
        one its snapshots are read under), before the screen is told: work the screen's
        next snapshot would do on the UI thread, done here. A load's last batch: its
        first whole snapshot (0.27 s for a 1 GB v1 file; the next one costs what
        changed), taken under ``lock``, and ``index_now``. A model that reads other files
        for a snapshot reads them first, outside it."""
        if update.reset:
            self._snapshot_made = False
        if update.caught_up and not self._snapshot_made:
            self._snapshot_made = True
            with lock:
                self.transcript(writer_alive=None)
                self.index_now()

    def index_now(self) -> None:
        """Index now what a screen's first draw would look up, and so index, whole (the
        caller holds the state lock). Most models index as they read."""

    def apply(self, update: FollowUpdate) -> bool:
        """Apply one update; True when it reset the model (rebuild everything shown)."""
        if update.reset:
            self.builder = self.format.builder(self.path)
        self.note(update)
        builder = self.builder
        update.withdraw_from(builder.warnings)
        builder.warnings.extend(update.warnings)
        spans = update.spans
        builder.set_source(update.source if spans else None)
        if update.raw:
            builder.take_lines(update.raw, update.lines, spans)
        else:
            last, nth = 0, 1  # (a joined line's records come one after another)
            for index, (record, line) in enumerate(
                zip(update.envelopes, update.lines, strict=True)
            ):
                nth = nth + 1 if line == last else 1
                if nth > 1 or builder.id_suffix:
                    builder.record_on_line(nth)
                last = line
                if len(spans) == len(update.envelopes):
                    builder.span = spans[index]
                    builder.line_bytes = spans[index] & SPAN_MAX
                self._feed(record, line, b"")
            if builder.id_suffix:
                builder.record_on_line(1)
        builder.span = 0
        return update.reset

    def _feed(self, record: Any, line: int, raw: bytes) -> None:
        builder = self.builder
        builder.lines = max(builder.lines, line)
        if type(record) is not dict:
            builder.bad_line(line, raw, "is not a JSON object")
            return
        builder.feed(record, line)

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        return self.builder.transcript(writer_alive)

    def whole_transcript(self, writer_alive: bool | None = None) -> Transcript:
        """The model as a whole read of the lines applied would give it, what other files
        add to it read as they are now (a browser row: ``scan_live``)."""
        return self.transcript(writer_alive)

    def snapshot_due(self) -> bool:
        """The last snapshot may show less than one taken now would, though nothing was
        applied since (a session's subagents linked as they were a moment ago): a screen
        whose file has gone quiet takes another."""
        return False


class TranscriptFormat(ABC):
    """One transcript format. Built-ins and plugins register the same way (``register``)."""

    name: ClassVar[str]  # "transcript-v1", "agentgo-v1", "claude-code", "codex"
    title: ClassVar[str]  # what a person calls it: "Claude Code session"
    extra_panes: ClassVar[tuple[str, ...]] = ()  # panes only this format has
    # The dotted name of the module that registers those panes (``viewer.formats.
    # register_panes``), imported when a file of it is first shown. A string, so the
    # core imports no viewer; None: it has none (the shared tabs alone are shown).
    viewer_module: ClassVar[str | None] = None
    first_line: ClassVar[str] = ""  # what its first line is ("a session-meta line")
    # what its raw view holds, in words (the viewer's ``r`` says it)
    raw_view: ClassVar[str] = "every line of the file, with its kind and marks"
    # Its writers may open a file with lines of a type newer than this reader (bookkeeping
    # no format claims): it is detected by the first line it claims after them.
    opens_past_unknown_lines: ClassVar[bool] = False
    # Every writer of it holds a lock on the file while it writes (tailscope's is its only
    # one): no lock, no writer. A reader need not guess from a file's mtime whether
    # another is at work (v1's reference module does not lock: its files are guessed).
    only_locking_writers: ClassVar[bool] = False
    # Follow hands the live view parsed records (False: raw lines, parsed as applied).
    parsed_updates: ClassVar[bool] = True
    # Its reader reads a line of records with no line break between them as each
    # (``Builder.joins_lines``, which its builder says alike; ``follow`` parses so too).
    joins_lines: ClassVar[bool] = False
    # A line orjson refuses for a lone surrogate escape is read with U+FFFD in its place
    # (``indexing.mended``: Node writes them); False where the format's reference reads no
    # such line (v1's), so it is no JSON there either.
    mends_lines: ClassVar[bool] = True
    # A file may begin with UTF-8's byte order mark, read past (``reader.BOM``: v1's
    # reference decoder drops it); False: such a file is none of this format's.
    reads_bom: ClassVar[bool] = False
    # A blank line is no record and nothing wrong (False: every complete line must be a
    # record, agentgo's; a blank one is said as any line that is none, read or followed).
    blank_lines_ok: ClassVar[bool] = True
    # A last line that is whole but lacks its newline is read as a line, as a whole read
    # reads it (v1's spec: "gets the file's own line ending"); a follower holds it back
    # only while its writer may still be at work (``follow(settle=…)``). False: such a
    # line is the writer's unfinished tail, never read (agentgo's spec).
    keeps_unended_line: ClassVar[bool] = True
    # Its files can hold compactions or elisions (``Transcript.compactions``); False: the
    # format has no such thing and never lists one (the contract suite holds it to that,
    # and a format that says True to a sample that shows one).
    has_compactions: ClassVar[bool] = True
    # Its runs can carry a run context (``Run.context``: v1's run-context lines, Codex's
    # turn contexts); False: it records none, and a run's detail does not say each lacks one.
    has_run_contexts: ClassVar[bool] = True
    # Its usage's tokens are the writer's running total, whole in the file's last report:
    # a browser row read from the tail does not scale them up as it does a sum.
    running_total: ClassVar[bool] = False
    # A big file's row (its head and a tail window) reads on past the head for its first
    # prompt (``scan_model.middle_prompt``, as far as ``scan_title.PAST_HEAD``): the
    # bytes a line that may hold it (or open the turn it is asked in) holds one of.
    prompt_bytes: ClassVar[tuple[bytes, ...]] = (b'"user"',)
    # Its own words, beside the built-ins' (``session_core.vocabulary``): item kinds by
    # category (``{"error": ("rate-limit",)}``: ``e`` stops at such a line) and, by
    # neutral fact, the meta keys that hold it in order of preference (``{"model":
    # ("model_name",)}``: the browser's row and the header read it there).
    kind_words: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    meta_keys: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    # By item kind, the fixed words its writer opens every such item's text with: a row of
    # one line (``diff``'s, the Diff tab's) shows the text past them (``vocabulary.gist``).
    openings: ClassVar[Mapping[str, tuple[str, ...]]] = {}

    @abstractmethod
    def claims(self, record: dict[str, Any]) -> bool:
        """Is this parsed first record the start of a file of this format?"""

    def unread_document(self, document: dict[str, Any]) -> str | None:
        """What a file that is one JSON document, not JSON lines, is, where an older writer
        of this format wrote such files, which no reader reads (said, not "line 1 is not
        JSON"); None: none of its writers'."""
        return None

    def unread_started(self, document: dict[str, Any]) -> str | None:
        """When such a document (``unread_document``) says its session began, as
        written (a browser row's start); None: it does not say."""
        return None

    def unread_name(self, name: str) -> bool:
        """May a file named so be such a document? A directory's walk lists it by its name
        alone (no other file not ``*.jsonl`` is opened), its row saying what it is."""
        return False

    @abstractmethod
    def builder(self, path: str) -> Builder:
        """A fresh builder for one file."""

    def readable_text(self, item: Item) -> str | None:
        """An item's text in the words a person reads, where its writer wrapped it for the
        model (a Claude Code slash command as typed, ``/review the auth module``, not its
        XML): what every surface that shows an item shows in place of its text parts (the
        conversation, the diff's rows, the md and html exports: ``vocabulary.shown_parts``;
        the JSON export and the raw view keep them as written). None: as written."""
        return None

    # -- read paths, with defaults over the model ----------------------------------------

    def writer_alive(
        self,
        path: str | os.PathLike[str],
        *,
        held: bool | None = None,
        saw_lock: bool = False,
        now: float | None = None,
        quiet: float = IDLE_SECONDS,
    ) -> bool | None:
        """Is a writer still at work on this file, as far as a reader can tell? The one
        rule of every read path and the viewer (its calls running or interrupted).

        True while a writer holds the file: its lock, or open for writing in another
        process where the format's writers do not all lock (``held``, when the caller
        read it already: ``writers.writer_holds_lock``).
        A file that is gone has none (nothing can write it again; its calls left open
        stay interrupted); the file read is the path's compressed copy where that is
        all there is (``file_read``). A format whose writers all lock, or a file a writer
        was seen to lock (``saw_lock``, or by any read path of this process:
        ``writers.lock_gone``; that writer is gone, and the file not written since): no
        lock, no writer (but a copy of a
        pipe: ``no_lock_no_writer``). A file whose
        every process seen with it open for writing has exited has none
        (``writers.holders_gone``; a process that opens it for each write is not gone
        between writes while it runs). Otherwise a compressed file, or one untouched for
        ``quiet`` seconds (``IDLE_SECONDS``; as of ``now``: a browser row's,
        ``scan.settle_status``), has no writer; a fresher one may (``None``).
        """
        from ..compressed import file_read, is_compressed_file
        from ..writers import holders_gone, lock_gone, writer_holds_lock

        path = file_read(path)
        if not os.path.exists(path):
            return False
        if held is None:
            # (a format whose writers all lock has no writer without its lock: no scan of
            # every process's descriptors, 9 M instructions of an open here, 0.1 s on a
            # desktop of 20,000)
            held = writer_holds_lock(path, opened=not self.no_lock_no_writer(path))
        if held or saw_lock or self.no_lock_no_writer(path) or lock_gone(path):
            return held
        if holders_gone(path):
            return False  # every process seen with it open for writing has exited
        if is_compressed_file(path):
            return False
        try:
            age = (time.time() if now is None else now) - os.stat(path).st_mtime
        except OSError:
            return None
        return False if age > quiet else None

    def no_lock_no_writer(self, path: str | os.PathLike[str]) -> bool:
        """Whether the file has no writer once no lock is held on it: its format's writers
        all lock, and it is no copy of a pipe (whose writer, and its lock, are elsewhere:
        ``writers.pipe_copy``)."""
        from ..writers import is_pipe_copy

        return self.only_locking_writers and not is_pipe_copy(path)

    def written_at(self, path: str | os.PathLike[str]) -> float | None:
        """When the file's writer last wrote, as its lines say: the latest time its end
        (``tail``) states, the last line's that gives one, a header's where no line after
        it does (not ``last_time``: a mid-2025 Codex rollout begun months ago is long
        over), in seconds since the epoch; None where none says (or it cannot be read)."""
        end = self.tail(path)
        if end is None:
            return None
        return epoch(last_stamp(end.raw if end.line_ends is None else end.line_ends))

    def open(self, path: str | os.PathLike[str], *, writer_alive: bool | None = None) -> Transcript:
        """The whole file, read-only, into the model. ``TranscriptError`` when unreadable."""
        return self.opened(self.fed(os.fspath(path)), writer_alive)

    def fed(self, path: str) -> Builder:
        """A builder fed the whole file, read-only: ``open``'s read, before its model."""
        builder = self.builder(path)
        feed_file(builder, path)
        return builder

    def opened(self, builder: Builder, writer_alive: bool | None) -> Transcript:
        """``open``'s model of a builder ``fed`` the whole file (a format whose files link
        others', its subagents', links them here)."""
        return builder.transcript(writer_alive)

    def live(self, path: str) -> LiveModel:
        return LiveModel(self, path)

    def tail(self, path: str | os.PathLike[str], window: int = TAIL_WINDOW) -> Transcript | None:
        """A big file's first screen: the model of its end alone (``tail_transcript``)."""
        return window_transcript(self, path, window)

    def write_replay(self, path: str | os.PathLike[str], out: IO[bytes]) -> None:
        """``tailscope replay``'s bytes: ``dump_json(replay_json(path))``, written a message
        and an operation at a time (a format with a replay JSON of its own overrides it)."""
        from ..views import write_parts

        write_parts(self._replayed(path).json_parts(fragments=True), out)

    def replay_json(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        """``tailscope replay``: the shared keys (api.md) and the format's own."""
        return self._replayed(path).to_json()

    def _replayed(self, path: str | os.PathLike[str]) -> Transcript:
        """The whole file, read as every read path reads it: its writer's liveness told
        (so a call without a result is *running* or *interrupted* alike everywhere)."""
        return self.open(path, writer_alive=self.writer_alive(path))

    def check(self, path: str | os.PathLike[str]) -> str:
        """Validate strictly; the note after ``ok (``, or ``TranscriptError``.

        The default refuses a complete line that does not parse (damage); a torn last
        line is a warning (the writer's unfinished tail).
        """
        where = os.fspath(path)
        transcript = self._replayed(where)
        damage = first_damage(transcript.warnings, transcript.lines)
        if damage is not None:
            line, why = damage
            raise TranscriptError(
                f"{why}: damage, since only the last line may be torn (a crash tail); "
                "replay keeps it as it is, with a warning",
                path=where,
                line=line,
            )
        return check_note(transcript)

    def peek_source(self, path: str) -> PeekSource:
        """What a peek of the file shows (never raising is the caller's job): records in
        file order, read when asked."""
        from ..peeking import model_peek

        return model_peek(path, lambda: self._replayed(path))

    def document(self, path: str | os.PathLike[str], view: View = "replayed") -> Document:
        from ..exportdoc_model import model_document

        return model_document(self._replayed(path), view)

    def diff(self, path: str | os.PathLike[str]) -> str:
        """Raw versus replayed, as text (``tailscope diff``)."""
        from ..events import strict_rereads

        with strict_rereads(path):
            return "".join(self.diff_chunks(path))

    def diff_chunks(self, path: str | os.PathLike[str]) -> Iterator[str]:
        """``diff``'s text in pieces of whole lines, made as they are taken: the file is
        read (a bad one refused) before this returns; taken within
        ``events.strict_rereads`` (as ``diff`` takes them), a line changed since raises."""
        from ..diff_model import model_diff

        return model_diff(self._replayed(path))

    def summarise_file(self, read: FileRead) -> None:
        """Fill a browser row: the whole file up to ``budget`` bytes, else its head and a
        tail window of ``window`` bytes (counts scaled, the row flagged ``estimated``)."""
        from ..scan_model import summarise_model, windowed_model

        summary = read.summary
        if summary.size <= read.budget:
            builder = self.fed(summary.path)
            transcript = self.opened(builder, self.writer_alive(summary.path))
        else:
            builder = self.builder(summary.path)
            transcript = windowed_model(
                builder,
                lambda: self.builder(summary.path),
                summary,
                read.fh,
                read.head,
                read.window,
                self.prompt_bytes,
            )
        # (work read running: how the same lines read once the writer is gone)
        gone = functools.partial(builder.transcript, False)
        summarise_model(summary, transcript, running_total=self.running_total, gone=gone)

    def row_fold(self, path: str) -> RowFold | None:
        """What keeps a live browser row up to date from the lines appended to its file
        (``scan_live``), as ``summarise_file`` would read the whole: by default the
        format's live model, summarised as its whole read's. None: read again whole."""
        from ..scan_live import ModelFold

        return ModelFold(self, path)

    def part_of_another(self, path: str) -> bool:
        """Is this file part of another file's session (not a browser row of its own)?"""
        return False

    def session_of(self, path: str) -> str | None:
        """The session file a file that is part of another belongs to, where its path
        says so (None: it does not): the row that a change to it changes."""
        return None

    def written_since(self, path: str, since: float) -> list[str]:
        """Other sessions of this file's project written to after ``since`` (seconds since
        the epoch), the latest first: where its writer may have gone on (Claude Code
        starts a new file at ``/clear``). Not a subagent's file. None known by default."""
        return []

    @property
    def finds_other_sessions(self) -> bool:
        """Whether ``written_since`` can ever name a file (the viewer offers ``O`` then)."""
        return type(self).written_since is not TranscriptFormat.written_since

    def default_roots(self, environ: Mapping[str, str]) -> list[str]:
        """Where this format's writers keep their sessions on this machine (may not exist)."""
        return []

    def contract_sample(self, folder: str) -> str | None:
        """A small file of this format written into ``folder`` (there already), its path:
        what the contract suite (``tests/test_contract*.py``) reads it by, a format
        registered with one needing no fixture of its own there. None: it gives none.

        The suite asks of it: some 2 KB (it is followed 200 bytes at a time), a first
        line the format claims, then lines of one JSON object each (two of them one
        after another: a joined line is made of them); a tool call answered and one
        that is not; a compaction where the format ``has_compactions``. The suite gives
        the file an old mtime (no writer presumed: a call with no answer reads as
        interrupted, not running)."""
        return None

    def discover(self, root: str) -> list[str] | None:
        """Where the browser finds this format's sessions under ``root`` (None: not a tree
        this format lays out; the browser then lists every ``*.jsonl``)."""
        return None


class AgentFormat(TranscriptFormat):
    """A format another agent writes (Claude Code, Codex): read only, followed as raw
    lines with their spans (long texts stay in the file), its sessions kept under a
    home folder the environment may move (``home``)."""

    parsed_updates: ClassVar[bool] = False
    joins_lines: ClassVar[bool] = True  # (Claude Code has written ``{…}{…}``)
    # (the variable naming the home folder, the folder in $HOME otherwise, the folders
    # in it that hold its sessions)
    home: ClassVar[tuple[str, ...]]

    def default_roots(self, environ: Mapping[str, str]) -> list[str]:
        variable, folder, *trees = self.home
        home = environ.get(variable) or os.path.join(
            environ.get("HOME") or os.path.expanduser("~"), folder
        )
        return [os.path.join(home, tree) for tree in trees]


def tail_transcript(
    fmt: TranscriptFormat, path: str | os.PathLike[str], window: int = TAIL_WINDOW
) -> Transcript | None:
    """A big file's first screen, as its format reads its end (``fmt.tail``)."""
    return fmt.tail(path, window)


def window_transcript(
    fmt: TranscriptFormat,
    path: str | os.PathLike[str],
    window: int = TAIL_WINDOW,
    builder: Builder | None = None,
) -> Transcript | None:
    """The model of a file's last ``window`` bytes alone: a big file's first screen.

    Read-only, from the end (the complete lines after the first newline in the
    window; a partial last line is left for later). What refers to lines before the
    window is not there (a chain stops, a result has no call). Its lines are counted
    from the window's first, not the file's: every line number of it is 0, not known
    until the whole file is read (``lines_not_known``). None when the file
    cannot be read from its end (compressed, unreadable). ``builder``: one told its
    header's facts already (``fmt.builder``'s, else).
    """
    from ..compressed import is_zstd
    from ..reader import open_transcript

    where = os.fspath(path)
    span = min(window, FIRST_WINDOW)
    try:
        with open_transcript(where) as fh:
            head = fh.read(4)
            if is_zstd(head):
                return None
            size = os.fstat(fh.fileno()).st_size
            while True:
                start = max(0, size - span)
                fh.seek(start)
                data = fh.read(size - start)
                if start > 0:
                    cut = data.find(b"\n")
                    data = data[cut + 1 :] if cut >= 0 else b""
                if data.count(b"\n") >= FIRST_LINES or span >= window or start == 0:
                    break
                span = min(window, span * 4)
    except (OSError, TranscriptError):
        return None
    if not data:
        return None
    lines = data.split(b"\n")
    lines.pop()  # not a whole line yet
    if builder is None:
        builder = fmt.builder(where)
    for number, raw in enumerate(lines, 1):
        builder.take_line(raw, number)
    transcript = lines_not_known(builder.transcript(None))
    # A damaged line of the window is the full load's to report (with its real number).
    transcript.warnings = []
    transcript.extra["tail-window"] = len(data)
    return transcript


__all__ = [
    "InvalidLineError",
    "LiveModel",
    "TranscriptFormat",
    "check_note",
    "tail_transcript",
    "window_transcript",
]
