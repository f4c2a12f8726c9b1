"""Claude Code lines, fed in file order, kept compactly for the model.

What is kept: one item per conversation line (one per API response, however many
lines it was split over), one condensed item per run of adjacent ``progress`` lines
(their dicts are not kept: only counts and the latest bash output of a running call),
the chain's nodes as arrays, and small records of calls, runs and compactions.
``transcript()`` (``assemble.py``) puts the model together from these without
re-reading anything.
"""

from __future__ import annotations

import os
from array import array
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import msgspec

from ...item_heights import folded_height
from ...model import Part, Run, Transcript
from ...node_id_column import NodeIdColumn
from ...utf8 import BlockLines
from ..builders import Builder, RawColumnBuilder
from . import blocks, conversation
from .bookkeeping import rare_line
from .calls import CallColumn
from .file_links import FileLinks
from .lines import DUPLICATE, Line, Said, decode, line_of
from .progress import KNOWN, ProgressRuns
from .records import Boundary, RunMark
from .responses import Responses
from .sidechains import Sidechains
from .subagents import NamedAgents
from .threading import ASSISTANT, SYSTEM, USER, Threads
from .usage import UsageBook

if TYPE_CHECKING:
    from ...resumed import Resumed
    from .chain import Chain

SIDECHAIN, META = 1, 2  # raw item flags
_META_KEYS = {  # a Line's field -> the meta key
    "sessionId": "session-id",
    "cwd": "cwd",
    "gitBranch": "git-branch",
    "version": "version",
    "slug": "slug",
    "agentId": "agent-id",
    "timestamp": "started",
}
_META_ITEMS = tuple(_META_KEYS.items())
# The lines whose ``agentId`` is the file's agent (a subagent's envelope); bookkeeping
# lines name another (``fork-context-ref``, a Workflow journal's ``started``/``result``).
_ENVELOPES = frozenset({"user", "assistant", "system", "progress", "attachment"})
_SENT = frozenset({"user", "assistant"})  # the line types whose ``message`` is read
META_LINES = 1000  # the session's facts are looked for in its first lines (some never come)


class ClaudeCodeBuilder(RawColumnBuilder):
    """Feeds Claude Code records; ``transcript()`` assembles them (see ``assemble``)."""

    joins_lines: ClassVar[bool] = True  # (2.0.76-2.1.17 wrote ``{…}{"type":"summary"…}``)

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.threads = Threads()
        self.raw_node = array("i")  # the raw item's first node (-1: a line without uuid)
        # (an item is named by its node's uuid; one without a uuid is "line-<n>")
        self.raw = NodeIdColumn(self.raw_node, self.threads.uuids, "line-")
        self.raw.elided_stub = blocks.CLEARED  # (a microcompact_boundary's elisions)
        self.raw_flags = bytearray()
        self.node_raw = array("i")  # node -> raw item
        self.responses = Responses(self.raw)
        self.calls = CallColumn(self.raw)
        # A result before its call: its item, part, the part's index, its line's span
        # and what it says of the call (``conversation._answer``).
        self.unpaired: dict[str, tuple[int, Part, int, int, Said]] = {}
        # The nodes of user lines holding a tool_result with no usable id (rare): kept on
        # the chain beside the response they follow, as a result is (``chain.recover``).
        self.idless_answers: list[int] = []
        self.progress_out: dict[str, str] = {}  # call id -> latest bash output
        # call id -> its latest progress line and that line's time, until it is answered
        self.progress_at: dict[str, tuple[int, str | None]] = {}
        # call id -> agentId (agent_progress, results, a file's first prompt: ``file_links``)
        self.agent_of: dict[str, str] = {}
        # A call linked to a subagent, by its index: its id and description, taken once
        # (a live session is linked again every 2 s: each call's line read and parsed
        # again took 50-75 ms of the UI thread with 1,854 subagents).
        self.linked_calls: dict[int, tuple[str, str | None]] = {}
        self.agent_paths: dict[str, str | None] = {}  # agentId -> its file, if there
        self.named = NamedAgents()  # the calls that name one, and its file
        self.agent_folders: tuple[str, ...] | None = None  # where they are looked for
        self.agents_unlisted: str | None = None  # why their folder could not be listed
        self.sides = Sidechains()  # in-file subagents (1.0.x): their roots, Task calls
        self.file_links = FileLinks()  # subagent files linked by their first prompt
        self.runs: list[RunMark] = []
        # The ``Run`` of each turn but the last, as made (``assemble._runs``): only the
        # last turn's mark changes, so the others are made again only when their
        # usage is (``UsageBook.runs_touched``).
        self.made_runs: list[Run] = []
        self.boundaries: list[Boundary] = []
        # Each item's results the elisions so far sent otherwise (one may clear some of a
        # line's results, a later one others): what its stub is made of, each call id's
        # text sent in its result's place (None: a microcompact's stub)
        self.cleared_results: dict[int, dict[str, str | None]] = {}
        # A response's item whose stop reason says why the model stopped other than by
        # ending its turn or calling a tool: that reason, as every format's message says
        # it (``[finish refusal]``: ``text.finish_mark``; few items have one)
        self.finishes: dict[int, str] = {}
        # A response written again where it was (``conversation``): the earlier one's item
        # (its calls are the copy's: not made again)
        self.copy_of: dict[int, int] = {}
        # The items of responses another took the place of (written again where it was, or
        # the other side's copy): their usage, shown as written, is counted with the copy's
        # (the raw view's mark, ``USAGE_WITH_COPY``)
        self.counted_with_copy: set[int] = set()
        self.moved_calls: set[int] = set()  # its answered calls, till the copy's results
        # The nodes any compaction folded (a byte each, 1: folded), and how many of the
        # boundaries are in it: a boundary's chain is worked out once, so it is OR-ed in
        # once, not again on every snapshot (99 compactions of 200 MB: 12 of a
        # snapshot's 13 ms).
        self.folded_nodes = bytearray()
        self.folded_upto = 0
        self.meta: dict[str, Any] = {"agent": "claude-code"}
        self._meta_missing = _META_ITEMS  # the facts not found yet, in a fixed order
        # Records still to look in for the session's facts (the first META_LINES; 0 once
        # every fact is found: a main file never names an agent, so not that alone)
        self._meta_left = META_LINES
        self.titles: dict[str, str] = {}  # "custom-title" / "ai-title" / "prompt"
        self.summaries: list[tuple[str | None, str]] = []  # summary lines: leafUuid, text
        self.type_counts: Counter[str] = Counter()
        self.progress_counts: Counter[str] = Counter()
        self.has_main = False
        self.leaf_main = -1  # the latest main-chain conversation node
        self.leaf_side = -1
        self.conv_main = -1  # the latest main-chain user/assistant node
        self.progress = ProgressRuns()  # the open run of adjacent progress lines
        self.version = 0  # bumped by every feed (the assembly caches on it)
        self.chain: Chain | None = None  # the last assembly's (``assemble`` builds on it)
        # responses' usage (the raw column's facts), and the totals the assembly keeps
        self.usage = UsageBook(self.responses, self.raw)
        self.answered: list[int] = []  # calls answered since the last assembly
        # The file's own side: its first conversation line's isSidechain (a subagent's
        # own file is all sidechain lines); a line of the other side is an in-file
        # sidechain (1.0.x subagents), on no turn of the file's and no compaction.
        self.home: bool | None = None
        self.off = False  # the line being fed is of the other side
        self.agent_file = os.path.basename(path).startswith("agent-")
        # Where the lines' ``sessionId`` changes: the raw item it changes at, and the new
        # id (a resumed session's file begins with the earlier session's lines: ``resumed``).
        self.session_now: str | None = None
        self.session_marks: list[tuple[int, str]] = []
        # (``resumed``'s last answer, and the spans of copied lines it was made of)
        self.resumed_kept: tuple[tuple[tuple[int, int], ...], Resumed] | None = None
        self.forked_from: set[str] = set()  # the sessions a fork's lines say they copy

    # -- feeding ---------------------------------------------------------------------

    def prompted(self) -> bool:
        return "prompt" in self.titles  # (the first prompt's, as its run has it)

    def prompt_searched(self, searched: Builder) -> None:
        # (the meta ``title``'s prompt: "" where none was found, so that the tail's, a
        # later one, is not taken; a custom or ai title still beats it)
        found = searched.titles.get("prompt") if isinstance(searched, ClaudeCodeBuilder) else None
        self.titles["prompt"] = found or ""

    def feed_line(self, raw: bytes, line: int) -> None:
        if not self.rereadable():
            # Its parts are kept whole (a compressed file, a last line without its
            # newline): the dict path makes them.
            super().feed_line(raw, line)
            return
        try:
            facts = decode(raw)
        except msgspec.DecodeError:
            Builder.feed_line(self, raw, line)  # (orjson's reasons; a lone surrogate mended)
            return
        self._typed(facts, raw, line)

    def feed_lines(self, raws: Sequence[bytes], lines: Sequence[int], spans: Sequence[int]) -> None:
        """``Builder.feed_lines`` in one loop: a line that can be read again (its span known,
        the file's source set) is decoded typed here, not through ``feed_line``."""
        if self.part_source is None:
            super().feed_lines(raws, lines, spans)
            return
        for raw, line, span in zip(raws, lines, spans, strict=True):
            self.lines = line
            self.span = span
            self.line_bytes = len(raw)
            if not span:  # (too long to be read again by span)
                self.feed_line(raw, line)
                continue
            try:
                facts = decode(raw)
            except msgspec.DecodeError:
                Builder.feed_line(self, raw, line)  # (as above)
                continue
            if facts is not None:
                self.line_raw = raw
                self._feed(facts, None, line)
            else:
                self._whole(raw, line)

    def take_lines(
        self, raws: Sequence[bytes | memoryview], lines: Sequence[int], spans: Sequence[int]
    ) -> None:
        """A batch as ``take_line`` takes it (``spans`` empty: not known), in one loop: a
        line that can be read again is decoded where it is (a view into the block read),
        not copied first."""
        if not spans or self.part_source is None:
            for index, (raw, line) in enumerate(zip(raws, lines, strict=True)):
                if spans:
                    self.span, self.line_bytes = spans[index], len(raw)
                self.take_line(bytes(raw), line)
            return
        block_ascii = BlockLines().ascii
        for raw, line, span in zip(raws, lines, spans, strict=True):
            self.span = span
            self.line_bytes = len(raw)
            if not span:  # (too long to be read again by span)
                self.take_line(bytes(raw), line)
                continue
            cut = raw[:-1] if raw and raw[-1] == 13 else raw  # its CR off, as take_line's
            try:
                facts = decode(cut, block_ascii(cut))
            except msgspec.DecodeError:  # blank, torn or not JSON: as ``take_line`` says
                self.take_line(bytes(raw), line)
                continue
            self._typed(facts, cut, line)

    def _typed(self, facts: Line | None, raw: bytes | memoryview, line: int) -> None:
        """A line that can be read again, decoded typed (None: read as a dict, ``decode``
        says why)."""
        if facts is not None:
            self.line_raw = raw
            self._feed(facts, None, line)
        else:
            self._whole(raw, line)

    def _whole(self, raw: bytes | memoryview, line: int) -> None:
        """A line read as a dict: not a hot line, one with a field of another type, or a
        repeated one (shown as it is)."""
        super().feed_line(bytes(raw), line)

    def feed(self, record: dict[str, Any], line: int) -> None:
        message = record.get("message")  # (one of no shape the typed path reads: here)
        if message is not None and type(message) is not dict and record.get("type") in _SENT:
            odd = blocks.odd_message(line, message)
            if odd is not None:
                self.warnings.append(odd)
        self._feed(line_of(record), record, line)

    def bad_line(self, line: int, raw: bytes, why: str) -> None:
        """A line that is not a JSON object: a warning (``Builder``'s: an unfinished last
        line a warning alone, as a follower holds it back)."""
        super().bad_line(line, raw, why)
        self.version += 1
        if line > self.lines:
            self.lines = line
        if self.unended:
            return
        self.progress.close(self)
        part = self.bad_line_part(raw, why)
        self.add_item([part], line, -1, False, role="system", kind="record", keep=True)

    def _feed(self, facts: Line, record: dict[str, Any] | None, line: int) -> None:
        """One line: its facts, and (a line type that is not hot) its record."""
        meta_left = self._meta_left  # (records, not lines: blank lines hold no facts)
        if meta_left:
            self._meta_left = meta_left - 1
        uuid = facts.uuid
        repeated = uuid is not None and self.threads.uuids.find(uuid) >= 0
        if repeated and record is None:
            self._whole(self.line_raw, line)  # shown as it is: its record, whole
            return
        # (a progress of a kind newer than the reader: kept whole, as its own item;
        # ``progress_known``, inline: a progress line is most lines)
        odd_progress = False
        if facts.type == "progress":
            data = facts.data
            odd_progress = data is not None and data.type is not None and data.type not in KNOWN
            if odd_progress and record is None:
                self._whole(self.line_raw, line)  # kept as it is: its record, whole
                return
        self.version += 1
        if line > self.lines:
            self.lines = line
        session = facts.sessionId
        forked = facts.forkedFrom
        if forked is not None and forked.sessionId is not None:
            # (a fork's copy, under the fork's own id: marked as its parent's, as a
            # resumed file's copy is by its own old id)
            session = forked.sessionId
            self.forked_from.add(session)
        if session is not None and session != self.session_now:  # (a compare per line)
            self.session_now = session
            self.session_marks.append((len(self.raw), session))
        kind = facts.type or "?"
        self.type_counts[kind] += 1
        if meta_left:
            self._take_meta(facts)
        side = facts.isSidechain is True
        if self.home is None and uuid is not None:
            # A subagent's own file (its lines name their agent, or its name does); a
            # session's file whose first lines are an in-file sidechain is still main's.
            self.home = side and (facts.agentId is not None or self.agent_file)
        self.off = side if self.home is None else side is not self.home
        if repeated:
            uuid = None  # a repeated line: shown, but not a second node of the chain
            kind = DUPLICATE
        ts = facts.timestamp
        runs = self.runs
        if kind == "progress" and not odd_progress:
            self.progress.feed(self, facts, line, uuid, side)
            if runs and not self.off:  # (a run cut off in a tool ends at its progress)
                run = runs[-1]
                run.last_line, run.last_ts = line, ts or run.last_ts
            return
        self.progress.close(self)
        if kind == "assistant":
            conversation.assistant(self, facts, record is None, line, uuid, side, ts)
        elif kind == "user":
            conversation.user(self, facts, record is None, line, uuid, side, ts)
        else:
            record = record if record is not None else {}  # (hot lines come with none)
            rare_line(self, kind, record, facts, line, uuid, side, ts)
        # The latest turn's last line so far: this one, a line of the conversation (on a
        # chain); a bookkeeping line (a ``pr-link``, a snapshot, a title) written after
        # the turn's last is no part of it, and does not stretch its end.
        if runs and not self.off and facts.uuid is not None:
            run = runs[-1]
            run.last_line, run.last_ts = line, ts or run.last_ts

    def _take_meta(self, facts: Line) -> None:
        missing = self._meta_missing  # (those alone asked: most are found at once)
        found: list[str] = []
        for key, name in missing:
            if key != "agentId" or facts.type in _ENVELOPES:
                value = getattr(facts, key)
                if value:
                    self.meta[name] = value
                    found.append(key)
        if found:
            missing = self._meta_missing = tuple(item for item in missing if item[0] not in found)
            if not missing:
                self._meta_left = 0  # (every fact found: none looked for again)

    def node_for(self, facts: Line, uuid: str | None, line: int, kind: int, side: bool) -> int:
        if uuid is None:
            return -1
        node = self.threads.add(uuid, facts.parentUuid, line, kind, side)
        self.node_raw.append(len(self.raw))  # the item appended next (split lines: re-pointed)
        if not side:
            self.has_main = True
        if kind in (USER, ASSISTANT, SYSTEM):
            if side:
                self.leaf_side = node
            else:
                self.leaf_main = node
                if kind != SYSTEM:
                    self.conv_main = node
        return node

    def add_item(
        self,
        parts: list[Part],
        line: int,
        node: int,
        side: bool,
        *,
        role: str,
        kind: str = "message",
        ts: str | None = None,
        model: str | None = None,
        meta: bool = False,
        keep: bool = False,
    ) -> int:
        """One raw item (named by its node's uuid); its parts are read again by its
        line's span unless ``keep`` (parts the builder made up)."""
        self.raw_node.append(node)
        # (a subagent's own file is all sidechain lines: marking each of them says nothing)
        sidechain = side and self.home is not True
        self.raw_flags.append((SIDECHAIN if sidechain else 0) | (META if meta else 0))
        index = self.raw.append(
            parts,
            line,
            role=role,
            kind=kind,
            ts=ts,
            model=model,
            span=self.span,
            keep=keep,
        )
        if role == "user":  # (a wrapper, ``/exit``: as tall in the conversation as its words)
            said = blocks.wrapped_text(role, kind, parts)
            if said is not None:
                shown = [Part("text", said) if p.kind == "text" else p for p in parts]
                height = folded_height(shown)
                if height != self.raw.height[index]:
                    self.raw.shown_height[index] = height
        return index

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        from .assemble import assemble

        self.progress.write(self)
        self.usage.settle()
        return assemble(self, writer_alive)

    # A user or assistant line's parts again (a lazy part's text and data).
    line_parts = staticmethod(blocks.line_parts)
