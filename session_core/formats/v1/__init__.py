"""transcript-v1 on the format seam: its replay, peek, check, summary, export and diff.

The v1 machinery (``replay``, ``reader``, ``repair``, ``session``) is the writer's and
the scale engine's; this module only says how each read path reaches it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any, ClassVar

from ...line_warnings import as_of_writer
from ...model import (
    Transcript,
    Usage,
)
from ...text import count
from ...window_lines import lines_not_known
from ..base import LiveModel, TranscriptFormat
from ..builders import Builder
from ..check_note import note_of, usage_said
from .left_open import check_ops
from .model import NAME, V1Model, transcript_of

if TYPE_CHECKING:
    from ...exportdoc import Document, View
    from ...follow_update import FollowUpdate
    from ...peeking import PeekSource
    from ...replay import ReplayState
    from ...scan import FileRead
    from ...scan_live import RowFold

TAIL = 1 << 20  # bytes of a big file's end its first screen shows (v1's lines are dense)


class V1Builder(Builder):
    """A v1 replay fed record by record (a line that breaks a rule is a warning)."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        from ...replay import ReplayState

        self.state = ReplayState(path)
        self._model: V1Model | None = None

    def feed(self, record: dict[str, Any], line: int) -> None:
        from ...errors import TranscriptError
        from ...reader import check_envelope

        state = self.state
        try:
            check_envelope(record, line, self.path)
            if not state.event_lines and record["type"] != "session-meta":
                raise TranscriptError("is not session-meta; a transcript starts with one")
            state.feed(record, line)
        except TranscriptError as err:
            self.warnings.append(f"line {line}: {err.reason} (not applied)")

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        self.state.warnings[:0] = [w for w in self.warnings if w not in self.state.warnings]
        if self._model is None:
            self._model = V1Model(self.state)
        return self._model.transcript(self.path, writer_alive)


class V1Live(LiveModel):
    """The live model of a v1 file: ``follow``'s raw lines applied by ``LiveTranscript``
    (the index pass the v1 screen uses), the neutral model a ``V1Model`` of its replay."""

    def __init__(self, fmt: TranscriptFormat, path: str) -> None:
        super().__init__(fmt, path)
        from ...live import LiveTranscript

        self.replay = LiveTranscript(path, keep_refused=True)  # (the raw view shows them)
        self._model: V1Model | None = None

    def apply(self, update: FollowUpdate) -> bool:
        self.note(update)
        self.replay.apply(update)  # a reset starts its state again
        # The model takes the new lines here, where they are applied (the follow worker,
        # in the viewer): a snapshot, on the screen's thread, has only the rest to do.
        self.model().advance()
        return update.reset

    def model(self) -> V1Model:
        """The neutral model of the replay (a new one after a reset)."""
        state = self.replay.state
        if self._model is None or self._model.state is not state:
            self._model = V1Model(state)
        return self._model

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        return self.model().transcript(self.path, writer_alive)

    def index_now(self) -> None:
        """The ids compactions folded, which the first draw looks up (at 1 GB, 309,000
        ids: 0.045 s that the UI thread would spend)."""
        self.replay.state.folded_by.index_now()


class V1Format(TranscriptFormat):
    name: ClassVar[str] = NAME
    title: ClassVar[str] = "transcript-v1"
    first_line: ClassVar[str] = "a session-meta line"
    parsed_updates: ClassVar[bool] = False
    mends_lines: ClassVar[bool] = False  # (as LLM::Agent::Session, which JSON::Fast reads)
    reads_bom: ClassVar[bool] = True  # (as Raku's UTF-8 decoder, which drops it)
    raw_view: ClassVar[str] = (
        "every message line as written (folded and elided marked), and lines of unknown types"
    )
    # Its own panes on the model screen (viewer.formats.v1): the diff of every message
    # line as written and as sent, and the run contexts with what changed between runs.
    extra_panes: ClassVar[tuple[str, ...]] = ("changes", "contexts")
    viewer_module: ClassVar[str | None] = "viewer.formats.v1"

    def claims(self, record: dict[str, Any]) -> bool:
        # (its type alone: a meta line that lacks "v" is v1's, said to lack it)
        return record.get("type") == "session-meta"

    def builder(self, path: str) -> Builder:
        return V1Builder(path)

    def live(self, path: str) -> LiveModel:
        return V1Live(self, path)

    def _state(
        self, path: str | os.PathLike[str], facts: bool = False, keep_tail: bool = False
    ) -> ReplayState:
        from ...reader import replay_file

        return replay_file(path, tolerate_tail=True, facts=facts, keep_tail=keep_tail)

    def open(self, path: str | os.PathLike[str], *, writer_alive: bool | None = None) -> Transcript:
        where = os.fspath(path)
        # The model measures every message line by its facts: taken as read, not by
        # reading each line again after the replay (0.66 -> 0.52 s at 100 MB).
        # (a crash tail kept for the raw view, as a follow keeps it)
        return transcript_of(self._state(where, True, True), where, writer_alive)

    def tail(self, path: str | os.PathLike[str], window: int = TAIL) -> Transcript | None:
        """A big file's first screen: its last ``window`` bytes (at most ``TAIL``)
        replayed leniently (what refers to lines before them is skipped; lines are not
        numbered yet)."""
        from ...tailwindow import preview_state, read_tail_window

        where = os.fspath(path)
        end = read_tail_window(where, min(window, TAIL))
        return lines_not_known(transcript_of(preview_state(end, where), where, None))

    def replay_json(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        from ...views import replay_json

        return replay_json(self._state(path), writer_alive=self.writer_alive(path))

    def write_replay(self, path: str | os.PathLike[str], out: IO[bytes]) -> None:
        from ...views import write_replay

        # Its operation states and usage read every message line's facts: taken as read.
        state = self._state(path, facts=True)
        write_replay(state, out, writer_alive=self.writer_alive(path))

    def check(self, path: str | os.PathLike[str]) -> str:
        # The replay's counts, not its JSON view: a check reads no message body; each
        # message line's facts (its usage) taken in the replay's pass, packed.
        from ...other_records import others_said
        from ...usage import tally_state
        from .others import unknown_at
        from .overlays import replay_counts

        state = self._state(path, facts=True)
        alive = self.writer_alive(path)
        # (what is sent next, said so: the browser's "msgs" counts the messages as written)
        parts = [NAME, f"{count(len(state.entries), 'message')} sent next"]
        # (what was left open: the browser's row and the header say the same)
        parts += check_ops(state, alive)
        # (the lines of a type not named, kept in events: said as every format says them)
        parts += others_said(len(unknown_at(state)))
        # (as every format's note counts them: each elision line once, with what it stubbed)
        parts += replay_counts(state).said()
        # (a response counted for every model output: none counted, none made)
        parts.append(usage_said(Usage.of_totals(tally_state(state).transcript), True))
        # (a last line its writer may still be writing is no crash tail yet: the one rule)
        return note_of(parts, as_of_writer(state.warnings, alive))

    def peek_source(self, path: str) -> PeekSource:
        from ...peeking import v1_source

        return v1_source(path)

    def document(self, path: str | os.PathLike[str], view: View = "replayed") -> Document:
        from ...exportdoc_v1 import v1_document

        where = os.fspath(path)
        # (a crash tail not kept, for the raw view either: its warning quotes its start,
        # as every format's does; kept, a 30 MB tail was exported whole)
        state = self._state(where)
        return v1_document(state, where, view, self.writer_alive(where))

    def diff_chunks(self, path: str | os.PathLike[str]) -> Iterator[str]:
        from ...diff import render_diff

        return render_diff(self._state(path), os.fspath(path))

    def summarise_file(self, read: FileRead) -> None:
        from ... import scan_v1

        scan_v1.v1_summary(read)

    def row_fold(self, path: str) -> RowFold:
        from ...scan_live import V1Fold

        return V1Fold(path)
