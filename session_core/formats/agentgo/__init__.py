"""agentgo-v1 on the format seam: its strict reader, view, peek, summary and export, and
its neutral model (``.model.AgentGoModel``), kept a snapshot at a time while a
file is followed (``AgentGoLive``) and read from a big file's end first
(``AgentGoFormat.tail``)."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any, ClassVar

from ...events import LineSource
from ...line_warnings import as_of_writer
from ...model import Transcript, Usage
from ...open_work import agentgo_open_work
from ...other_records import others_said
from ...text import count, ops_said
from ...tool_ops import state_label
from ...window_lines import lines_not_known
from ..base import TAIL_WINDOW, LiveModel, TranscriptFormat
from ..builders import Builder
from ..check_note import failed_runs_said, note_of, usage_said
from .asked import UnstartedCounter, is_tool_execution
from .model import NAME, AgentGoModel, transcript_of
from .runs_made import run_state

if TYPE_CHECKING:
    from ...agentgo.view import AgentGoView
    from ...exportdoc import Document, View
    from ...follow_update import FollowUpdate
    from ...peeking import PeekSource
    from ...scan import FileRead
    from ...scan_live import RowFold


class AgentGoBuilder(Builder):
    """The agentgo view fed record by record (a rule broken is a warning, as when live),
    and its neutral model kept beside it (``AgentGoModel``)."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        from ...agentgo.live import LiveAgentGo

        self.live = LiveAgentGo(path)
        self.live.fed = self._fed
        self.model = AgentGoModel(self.live.view)

    def set_source(self, source: LineSource | None) -> None:
        super().set_source(source)
        if source is not None:
            self.live.view.records.source = source  # the spans fed from now on are into it

    def feed(self, record: dict[str, Any], line: int) -> None:
        self.live.view.warnings.extend(self.live.apply_record(record, line, self.span))

    def feed_line(self, raw: bytes, line: int) -> None:
        """A big model_request with a span is skimmed (``skim_request``): read again by
        span when asked for; any other line parsed whole."""
        from ...agentgo.reader import skim_request

        record = skim_request(raw) if self.span else None
        if record is None:
            super().feed_line(raw, line)
        else:
            self.feed(record, line)

    def _fed(self, record: dict[str, Any], span: int) -> None:
        """A record the live view took: what the model needs of it, while it is parsed."""
        view = self.live.view
        if self.model.view is not view:  # the live view was reset: a new file
            self.model = AgentGoModel(view)
        self.model.fed(record, span)

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        view = self.live.view
        if self.model.view is not view:
            self.model = AgentGoModel(view)
        if self.warnings:
            view.warnings[:0] = [w for w in self.warnings if w not in view.warnings]
        return self.model.transcript(self.path, writer_alive)


class AgentGoLive(LiveModel):
    """The live model of an agentgo file: ``follow``'s raw lines applied to the format's own
    view (``LiveAgentGo``, which parses them), the neutral model a snapshot of it."""

    builder: AgentGoBuilder

    def apply(self, update: FollowUpdate) -> bool:
        self.note(update)
        self.builder.live.apply(update)  # a reset starts its view again
        return update.reset

    @property
    def view(self) -> AgentGoView:
        """The format's own view, as far as the file was applied."""
        return self.builder.live.view


class AgentGoFormat(TranscriptFormat):
    name: ClassVar[str] = NAME
    title: ClassVar[str] = "agentgo-v1 session"
    only_locking_writers: ClassVar[bool] = True  # (no public writer of it but ours)
    first_line: ClassVar[str] = "an agentgo session_start"
    raw_view: ClassVar[str] = (
        "every committed message (folded and stubbed marked), and records of unknown types "
        "or shapes, as written"
    )
    extra_panes: ClassVar[tuple[str, ...]] = ("calls", "checkpoints", "timeline")
    viewer_module: ClassVar[str | None] = "viewer.formats.agentgo"
    parsed_updates: ClassVar[bool] = False  # LiveAgentGo parses each line as it applies it
    has_run_contexts: ClassVar[bool] = False  # (its runs have none to say)
    blank_lines_ok: ClassVar[bool] = False  # every complete line must be a record
    keeps_unended_line: ClassVar[bool] = False  # (a last line without newline is ignored)
    # (a committed message holding a compaction's summary: ``AgentGoModel``)
    kind_words: ClassVar[Mapping[str, tuple[str, ...]]] = {"compaction": ("summary",)}
    # (its meta's ``version`` is the format's, always 1: said by its name, as v1's is,
    # not as a writer's version among the header's facts, where it read ``version=1``)
    meta_keys: ClassVar[Mapping[str, tuple[str, ...]]] = {"version": ()}

    def claims(self, record: dict[str, Any]) -> bool:
        return record.get("type") == "session_start" and "session_id" in record and "seq" in record

    def builder(self, path: str) -> Builder:
        return AgentGoBuilder(path)

    def live(self, path: str) -> AgentGoLive:
        return AgentGoLive(self, path)

    def tail(self, path: str | os.PathLike[str], window: int = TAIL_WINDOW) -> Transcript | None:
        """A big session's last committed messages, read backwards from its end by the
        format's own tail reader (with its own budget: a window's records alone are no
        session, its ``session_start`` is not in it)."""
        from ...agentgo.tail import read_tail
        from ...compressed import is_compressed_file
        from ...errors import TranscriptError

        where = os.fspath(path)
        if is_compressed_file(where):
            return None  # (no end to read backwards to: it is read whole, as it comes)
        try:
            view, _size = read_tail(where)
        except (OSError, TranscriptError):
            return None
        # (a few dozen messages, their lines counted from the window's first: not known)
        transcript = lines_not_known(AgentGoModel(view).transcript(where, None))
        transcript.messages = list(transcript.raw)  # (as they were before the lines went)
        return transcript

    def _view(self, path: str | os.PathLike[str], writer_alive: bool | None) -> AgentGoView:
        from ...agentgo.reader import read_view

        view = read_view(path)
        view.writer_alive = writer_alive
        return view

    def open(self, path: str | os.PathLike[str], *, writer_alive: bool | None = None) -> Transcript:
        from ...agentgo.reader import read_view
        from ...agentgo.view import AgentGoView

        where = os.fspath(path)
        view = AgentGoView()
        model = AgentGoModel(view)  # fed as the file is read: nothing read twice
        read_view(where, view=view, fed=model.fed)
        view.writer_alive = writer_alive
        return model.transcript(where, writer_alive)

    def replay_json(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        from ...gc_pause import paused

        with paused():  # everything it reads again is kept in the result: none is cyclic
            return {
                key: list(value) if isinstance(value, Iterator) else value
                for key, value in self._replay_parts(os.fspath(path))
            }

    def write_replay(self, path: str | os.PathLike[str], out: IO[bytes]) -> None:
        """``dump_json(replay_json(path))``, byte for byte, written a message and a call at
        a time: a big session's replay is never held whole."""
        from ...gc_pause import paused
        from ...views import write_parts

        with paused():
            parts = self._replay_parts(os.fspath(path))
            first = next(parts)  # the file is read whole (or refused) before a byte is out
            write_parts(itertools.chain((first,), parts), out)

    def _replay_parts(self, where: str) -> Iterator[tuple[str, Any]]:
        """The format's own keys (the view's), then the shared keys the neutral model
        makes: its tool operations, compactions and usage; all with the lock's word on
        the writer (a run whose writer is gone is interrupted, as its calls are)."""
        alive = self.writer_alive(where)  # (a locking format's: the lock's word)
        view = self._view(where, alive)
        yield from view.json_parts()
        from ...agentgo.folds import ContextFolds, context_compactions

        ops, tally = AgentGoModel(view).operations(alive)
        yield "tool-operations", (op.to_json() for op in ops)
        compactions = context_compactions(view, ContextFolds(view))
        yield "compactions", (c.to_json() for c in compactions)
        yield "usage", Usage.of_totals(tally.transcript).to_json()

    def check(self, path: str | os.PathLike[str]) -> str:
        """Read strictly, streaming: what the note says is counted, no record is kept."""
        from ...agentgo.folds_streamed import StreamedFolds
        from ...agentgo.reader import read_view
        from ...agentgo.view import AgentGoView
        from ...events import strict_rereads
        from ...usage import FedCallUsage

        view, usage, unstarted = AgentGoView(keep=False), FedCallUsage(), UnstartedCounter()
        folds = StreamedFolds(view)  # (what each projection stubbed, as its request streams)

        def fed(record: dict[str, Any], span: int) -> None:
            usage.fed(view, record)
            unstarted.fed(view, record)
            folds.fed(record, span)

        with strict_rereads(path):  # (a line read again that changed since: refused)
            read_view(path, view=view, fed=fed)
        view.writer_alive = self.writer_alive(path)  # (an open run of a gone writer: cut off)
        # (its committed messages, said so: what is sent next is the last request's)
        parts = [NAME, f"{count(len(view.messages), 'message')} committed"]
        # The operations replay lists: each tool execution, then each ask none is of.
        said = unstarted.counts(view)
        executions = sum(1 for call in view.calls.values() if is_tool_execution(call))
        parts += ops_said(executions + said.total())
        gaps = len(view.gaps())
        if gaps:
            parts.append(f"{count(gaps, 'gap')} (runs or calls without their terminal event)")
        # (what was in flight, in every format's words: the calls and runs of the gaps)
        parts.extend(agentgo_open_work(view).said())
        # The calls asked for that no execution began, as replay lists them (v1's words)
        for state in ("never-dispatched", "not-dispatched-yet"):
            if said[state]:
                parts.append(f"{count(said[state], 'call')} {state_label(state)}")
        # (a failed run left open by a writer now gone is not finished too: said above)
        states = [run_state(view.runs[r], view.run_status(r)) for r in view.run_order]
        parts.extend(failed_runs_said(states))
        # (the spec's "anything else", kept and shown raw: said, not warned, as every
        # format says them)
        parts.extend(others_said(len(view.unknown)))
        # (as every format's note counts them, with what the projections stubbed, each
        # found from the request after it; replay lists them)
        parts += folds.counted().said()
        # (a response counted for every model call answered: none counted, none made)
        parts.append(usage_said(Usage.of_totals(usage.tally(view).transcript), True))
        # (a last line its writer may still be writing is no crash tail yet: the one rule)
        return note_of(parts, as_of_writer(view.warnings, view.writer_alive))

    def peek_source(self, path: str) -> PeekSource:
        from ...peeking import agentgo_source

        return agentgo_source(path)

    def document(self, path: str | os.PathLike[str], view: View = "replayed") -> Document:
        from ...exportdoc_agentgo import agentgo_document

        where = os.fspath(path)
        return agentgo_document(self._view(where, self.writer_alive(where)), where, view)

    def diff_chunks(self, path: str | os.PathLike[str]) -> Iterator[str]:
        """The committed conversation beside the last model request's messages (what an
        agentgo file says its model was sent): ``agentgo.diff``. (One piece: its head
        counts what its rows find; an agentgo file has a row per committed message.)"""
        from ...agentgo.diff import agentgo_diff

        where = os.fspath(path)
        return iter((agentgo_diff(self._view(where, None), where),))

    def summarise_file(self, read: FileRead) -> None:
        from ...scan_agentgo import agentgo_summary

        agentgo_summary(read)

    def row_fold(self, path: str) -> RowFold:
        from ...scan_live import AgentGoFold

        return AgentGoFold(path)


__all__ = [
    "NAME",
    "AgentGoBuilder",
    "AgentGoFormat",
    "AgentGoLive",
    "AgentGoModel",
    "transcript_of",
]
