"""``UnfinishedLineScreen``: a last line its writer left without a newline, whole
(``unfinished_line`` says where it is). Imported when it is opened, not at start: its
``TextArea`` (``text_file``) is not loaded by every viewer."""

from __future__ import annotations

import os

from rich.text import Text

from session_core.reader import cannot_read

from ..safe import inert
from .text_file import ReadResult, TextFileScreen
from .unfinished_line import LIMIT, MOVED, UnfinishedLine, line_bytes


class UnfinishedLineScreen(TextFileScreen):
    """The unfinished line's bytes as text (undecodable bytes as U+FFFD), inert."""

    def __init__(self, unfinished: UnfinishedLine, *, limit: int = LIMIT) -> None:
        super().__init__(limit=limit, soft_wrap=True)
        self.unfinished = unfinished

    def _title(self) -> Text:
        where = os.path.basename(self.unfinished.path)
        return Text.assemble(
            (f"line {self.unfinished.line}, unfinished", "bold"),
            ("  in ", "dim"),
            (inert(where), "dim"),
        )

    def _record_line(self) -> Text:
        return Text(
            "the writer left it without its newline: what was in flight when it stopped "
            "(not read as a record)",
            style="dim",
        )

    def _read(self) -> ReadResult:
        at = self.unfinished
        want = min(at.size, self.limit)
        try:
            data = line_bytes(at.path, at.start, want)
        except OSError as err:
            return ("unreadable", cannot_read(err))
        if len(data) < want:
            return ("missing", MOVED)
        text = data.decode("utf-8", "replace")
        return ("here", inert(text), at.size, at.size > self.limit, "")


__all__ = ["UnfinishedLineScreen"]
