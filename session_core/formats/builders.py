"""``Builder``: what turns one file's records, in file order, into the neutral model.

Every format's read goes through one (``TranscriptFormat.builder``): the read-only
replay feeds it the whole file once, the live view (``LiveModel``) what ``follow`` hands
on. Its defaults here read a line, a joined line and a bad line alike for every format.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ..events import LineSource, line_text
from ..indexing import concatenated, loads_payload
from ..json_out import compact_json
from ..line_warnings import (
    KEPT,
    KEPT_LAST,
    UNFINISHED_SHOWN,
    bad_line_name,
    bad_line_reason,
    joined_warning,
    unfinished_line,
)
from ..model import (
    Part,
    PartSource,
    Transcript,
    make_lazy,
)
from ..other_records import OtherRecord
from ..parts import LinePart, head_span
from ..reader import is_blank

if TYPE_CHECKING:
    from ..item_column import ItemColumn


class Builder(ABC):
    """Turns one file's records, in file order, into a ``Transcript``.

    ``feed`` is called for every record that parses as a JSON object, with its 1-based
    line number; ``bad_line`` for a line that does not (a complete one, or a whole read's
    unfinished last line: ``unended``). ``transcript`` may be
    called at any time (after every batch, for a live view) and must be cheap enough
    for that: it assembles what ``feed`` kept, it does not read the file again.
    """

    # A line of records with no line break between them is read as each (``joined_line``,
    # where the format's writers are known to write such lines); else it is a bad line.
    joins_lines: ClassVar[bool] = False

    def __init__(self, path: str) -> None:
        self.path = path
        self.warnings: list[str] = []
        self.lines = 0
        # Where the line being fed is in the file (``span``: offset << 32 | length, 0 when
        # not known) and what it can be read again from: a builder keeps long texts as
        # ``LazyPart``s read back through ``part_source`` instead of keeping them.
        self.span = 0
        self.line_bytes = 0
        # The line being fed, as written, while ``feed`` reads it (b"": not at hand, as
        # for a record fed parsed, or one of a joined line's): a line kept as it is that
        # cannot be read again by its span is kept as these bytes (``kept_line``).
        self.line_raw: bytes | memoryview = b""
        self.part_source: PartSource | None = None
        self._line_source: LineSource | None = None
        # The line fed is a whole read's last, with no newline: what a follower holds back
        # (a writer's unfinished tail), where every other line fed is complete.
        self.unended = False
        # What tells apart the items of a joined line's records, after the line's number
        # ("", then ".2", ".3"...: ``joined_line`` sets it): a builder that names an item
        # by its line names it ``line_id``.
        self.id_suffix = ""
        self._prompt_looks, self._prompt_seen = 0, False  # (the default ``prompted``'s)
        # Its records of a type the format does not name, as written (``other_record``)
        self.other_records: list[OtherRecord] = []
        # The last line ``bad_line`` kept, and its warning (``warnings_said``)
        self.kept_bad: tuple[int, str] = (0, "")

    @abstractmethod
    def feed(self, record: dict[str, Any], line: int) -> None: ...

    def feed_line(self, raw: bytes, line: int) -> None:
        """One whole line's bytes (CR stripped, not blank), as every read path hands it.

        The default parses it (``loads_payload``) and calls ``feed`` (or ``bad_line``). A format
        with a decoder of its own for its hot lines (typed msgspec ``Struct``s that skip
        what they do not name) overrides this, and keeps ``feed`` for parsed records.
        """
        self.line_raw = b""  # (not a joined line's: none of its records is the line)
        try:
            # (as a typed decode reads it: a number beyond a double, ``1e400``, as
            # infinity; a lone surrogate escape, which Node writes, mended)
            record = loads_payload(raw)
        except ValueError:
            records = concatenated(raw) if self.joins_lines else None
            if records is None:
                self.bad_line(line, raw, bad_line_reason(raw))
            else:
                self.joined_line(line, records)
            return
        if type(record) is not dict:
            self.bad_line(line, raw, "is not a JSON object")
            return
        self.line_raw = raw
        self.feed(record, line)
        self.line_raw = b""

    def take_line(self, raw: bytes, line: int) -> None:
        """A line as a reader cut it from its bytes (a CR may end it, it may be blank):
        a blank one is skipped, any other fed (``feed_line``) as line ``line``."""
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not is_blank(raw):
            self.lines = max(self.lines, line)
            self.feed_line(raw, line)

    def take_lines(
        self, raws: Sequence[bytes | memoryview], lines: Sequence[int], spans: Sequence[int]
    ) -> None:
        """A batch of lines as a reader cut them, each with its span (``spans`` empty:
        not known): ``take_line`` each. A format may take a batch in one loop of its own."""
        for index, (raw, line) in enumerate(zip(raws, lines, strict=True)):
            if spans:
                self.span = spans[index]
                self.line_bytes = len(raw)
            self.take_line(bytes(raw), line)

    def feed_lines(self, raws: Sequence[bytes], lines: Sequence[int], spans: Sequence[int]) -> None:
        """A batch of whole lines as ``read_batches`` hands them (CR taken off, none blank),
        each with its span (0: not known): ``feed_line`` each. A format may take a batch
        in one loop of its own."""
        for raw, line, span in zip(raws, lines, spans, strict=True):
            self.lines = line
            self.span = span
            self.line_bytes = len(raw)
            self.feed_line(raw, line)

    def prompted(self) -> bool:
        """Whether a line fed so far was a prompt its session's title may be (a big file's
        row reads on past its head until one is: ``scan_model.middle_prompt``). A
        format's builder says it from what it keeps. The default builds the model, at the
        1st, 2nd, 4th, 8th... ask alone (each build costs every line fed so far: so all
        of them cost as much as the lines, where one at each ask cost their square),
        saying no in between: it may say yes a few lines late, never early."""
        from ..titles import model_first_prompt

        if not self._prompt_seen:
            self._prompt_looks += 1
            if self._prompt_looks & (self._prompt_looks - 1) == 0:  # (a power of two)
                self._prompt_seen = model_first_prompt(self.transcript(None)) is not None
        return self._prompt_seen

    def prompt_searched(self, searched: Builder) -> None:
        """A big file's row (``scan_model.windowed_model``), fed its head and about to be
        fed its tail window: its first prompt is the one ``searched`` (a builder of the
        same file fed the head and the lines past it that may hold one) knows, or none,
        never a prompt fed later (the tail's). The row takes ``searched``'s itself
        (``model_first_prompt``); a format whose model's title holds its first prompt
        takes it here."""
        return  # (the default model's title holds none)

    @staticmethod
    def line_parts(record: dict[str, Any]) -> list[Part]:
        """The parts one line gives (as ``feed`` made them): what a lazy part is read
        again from. A format that makes lazy parts implements it."""
        return []

    @staticmethod
    def shown_parts(raw: bytes) -> list[Part] | None:
        """A line's parts as the replay JSON's messages show them, read quicker than
        ``line_parts`` (``PartSource.shown_parts``); None: read as ``line_parts``."""
        return None

    def set_source(self, source: LineSource | None) -> None:
        """The file the lines fed from now on can be read again from (None: keep all)."""
        if source is self._line_source:
            return
        self._line_source = source
        if source is None:
            self.part_source = None
            return
        parts_of = type(self).line_parts

        def load(span: int) -> list[Part]:
            record = loads_payload(source.read(span))  # (as the typed decode took it)
            return parts_of(record) if type(record) is dict else []

        shown = type(self).shown_parts
        self.part_source = PartSource(
            load, read=source.read, shown=None if shown is Builder.shown_parts else shown
        )

    def rereadable(self) -> bool:
        """Can the line being fed be read again (a plain file's line, with its span)?
        Then a builder that keeps only its span need not make its parts whole."""
        return bool(self.span) and self.part_source is not None

    def lazy(self, parts: list[Part]) -> None:
        """Long parts of the line being fed stay in the file (``make_lazy``)."""
        if self.rereadable():
            assert self.part_source is not None
            make_lazy(parts, self.part_source, self.span, self.line_bytes)

    def kept_line(self, name: str | None, line: dict[str, Any] | bytes) -> Part:
        """The line being fed, kept as it is (``line``: a record of a type this reader does
        not know, or the bytes of a line that is no record), as its one ``other`` part
        named ``name``: where it can be read again (``rereadable``), its head alone (what
        a row shows, from its first bytes) and the line as written, read again by its span
        when asked for (an export, an expanded row: whole, and not held: ``LinePart``);
        else it whole, as written (``line_raw``: a compressed file's line, kept whole
        anyway), a record as compact JSON only where its line is not at hand (one of a
        joined line's, which has no line of its own)."""
        source = self.part_source if self.rereadable() else None
        if source is not None:  # (a record's head from its line's first bytes, read for it)
            start = line if isinstance(line, bytes) else source.line(head_span(self.span))
            if start is not None:
                # (its length in characters, as every part's size: from the line at hand)
                whole = line if isinstance(line, bytes) else self.line_raw
                size = len(line_text(bytes(whole))) if whole else None
                return LinePart(name, start, source, self.span, size)
        if isinstance(line, dict):
            written = self.line_raw
            text = line_text(bytes(written)) if written else compact_json(line)
        else:
            text = line_text(line)
        return Part("other", text, name=name)

    def other_record(self, line: int, kind: Any, record: Any) -> None:
        """A record of a type the format does not name (``kind``, as written), fed at
        ``line``: listed as written (``Transcript.other_records``), beside its raw row."""
        named = kind if isinstance(kind, str) else None
        self.other_records.append(OtherRecord(line, named, record))

    def bad_line_part(self, raw: bytes, why: str) -> Part:
        """A line that is no record (``bad_line``'s), kept as it is (``kept_line``) and
        named by its warning's words: "not valid JSON", "not a JSON object"..."""
        return self.kept_line(bad_line_name(why), raw)

    def joined_line(self, line: int, records: list[dict[str, Any]]) -> None:
        """A line of several records with no line break between them (``concatenated``;
        a format whose builder ``joins_lines``): each fed as line ``line``, kept whole (a
        span reads the whole line, not one of them), an item named by its line told
        apart (``L12``, ``L12.2``...: ``id_suffix``, and the ``id_columns``' own), and a
        warning that says so (not damage: the writer wrote it so)."""
        self.warnings.append(joined_warning(line, len(records)))
        span, self.span = self.span, 0
        try:
            for number, record in enumerate(records, 1):
                self.record_on_line(number)
                self.feed(record, line)
        finally:
            self.span = span
            self.record_on_line(1)

    def record_on_line(self, number: int) -> None:
        """The record fed next is its line's ``number``th (1: the first, as every line's
        is but a joined one's): an item named by its line is told apart by ``id_suffix``
        (``.2``...), here and in the ``id_columns``."""
        self.id_suffix = f".{number}" if number > 1 else ""
        for column in self.id_columns():
            column.id_suffix = self.id_suffix

    def line_id(self, line: int, prefix: str = "L") -> str:
        """The id of an item named by its line (``L12``; ``L12.2``, the second record
        of a joined line): unique as long as the line gives one such item a record."""
        return f"{prefix}{line}{self.id_suffix}"

    def id_columns(self) -> tuple[ItemColumn, ...]:
        """The builder's item columns that name an item by its line (``joined_line``)."""
        return ()

    def bad_line(self, line: int, raw: bytes, why: str) -> None:
        """A line that is not a JSON object: kept as a warning (and raw, where shown); a
        whole read's last line without its newline (``unended``) is a crash tail, not
        read, not kept (``keeps_line``), said in every format's words: what it began with
        is said."""
        if self.unended:
            self.warnings.append(unfinished_line(line, len(raw), raw[:UNFINISHED_SHOWN]))
        else:
            said = f"line {line} {why}{KEPT}"
            self.kept_bad = (line, said)
            self.warnings.append(said)

    def warnings_said(self, writer_alive: bool | None) -> list[str]:
        """The warnings (a copy) as a transcript says them: a line kept that could not be
        read and is the last, its writer not at work, said to be taken for a crash tail,
        not damage (``KEPT_LAST``), as ``check`` and the browser take it; a line after it
        makes it damage again, said in damage's words."""
        said = list(self.warnings)
        line, kept = self.kept_bad
        if line != self.lines or writer_alive is not False:  # (None: it may be at work)
            return said
        for at in range(len(said) - 1, -1, -1):  # (said last of the line-by-line ones)
            if said[at] is kept:
                said[at] = kept.removesuffix(KEPT) + KEPT_LAST
                break
        return said

    def keeps_line(self) -> bool:
        """Whether the line ``bad_line`` was just told of is kept (raw, where shown): not
        a crash tail, which is not read."""
        return not self.unended

    @abstractmethod
    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        """The model as far as it was fed; ``writer_alive`` decides running vs interrupted."""


class RawColumnBuilder(Builder):
    """A builder whose lines' items go into one ``ItemColumn``, ``raw`` (set by the
    subclass): it names an item by its line, and reads an item kept by span back through
    the builder's ``part_source`` (Claude Code's and Codex's)."""

    raw: ItemColumn

    def set_source(self, source: LineSource | None) -> None:
        super().set_source(source)
        if self.part_source is not None:
            self.raw.source = self.part_source  # spans fed before stay readable

    def id_columns(self) -> tuple[ItemColumn, ...]:
        return (self.raw,)


__all__ = ["Builder", "RawColumnBuilder"]
