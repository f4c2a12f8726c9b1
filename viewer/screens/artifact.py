"""``ArtifactScreen``: an oversized tool result, read from ``<stem>.artifacts/<file>``.

The file name comes from the transcript, so it is untrusted: anything but a
plain basename is refused before any file is touched. A missing file is
"not here any more" (artifacts are pruned; that is not an error). The file is
read as every ``TextFileScreen`` reads its text.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from rich.text import Text

from session_core.artifacts import (
    MISSING,
    REFUSED,
    artifact_dir,
    artifact_status,
    is_safe_basename,
    read_artifact,
)
from session_core.codec import content_digest
from session_core.errors import TranscriptError

from ..safe import inert, one_line
from .text_file import DEFAULT_LIMIT, ReadResult, TextFileScreen


class ArtifactScreen(TextFileScreen):
    """Shows one artifact's text, or why it cannot be shown. ``escape``/``q`` closes."""

    def __init__(
        self,
        transcript: str | os.PathLike[str],
        file_name: object,
        record: Mapping[str, Any] | None = None,
        *,
        limit: int = DEFAULT_LIMIT,
    ) -> None:
        super().__init__(limit=limit)
        self.transcript = os.fspath(transcript)
        self.file_name = file_name
        self.record: dict[str, Any] = dict(record or {})

    def _title(self) -> Text:
        shown = one_line(
            self.file_name if isinstance(self.file_name, str) else repr(self.file_name)
        )
        where = os.path.basename(artifact_dir(self.transcript))
        return Text.assemble(
            ("artifact ", "bold"), (shown, "bold"), ("  in ", "dim"), (inert(where), "dim")
        )

    def _record_line(self) -> Text:
        parts: list[tuple[str, str] | str] = []
        for key in ("bytes", "chars", "elided-chars", "digest"):
            if key in self.record:
                if parts:
                    parts.append("   ")
                parts.append((f"{key} ", "dim"))
                parts.append(one_line(self.record[key], 80))
        if not parts:
            return Text("(the transcript says nothing more about it)", style="dim")
        return Text.assemble(*parts)

    def _start(self) -> None:
        if not is_safe_basename(self.file_name):
            self._show_status("refused", REFUSED)
            return
        self._load()

    def _read(self) -> ReadResult:
        status = artifact_status(self.transcript, self.file_name)
        if status.state == "refused":
            return ("refused", REFUSED)
        if status.state == "missing":
            return ("missing", MISSING)
        if status.state == "unreadable":
            return ("unreadable", status.detail)
        try:
            assert isinstance(self.file_name, str)
            size = os.path.getsize(os.path.join(artifact_dir(self.transcript), self.file_name))
            text = read_artifact(self.transcript, self.file_name, limit=self.limit)
        except FileNotFoundError:
            return ("missing", MISSING)
        except (OSError, TranscriptError) as err:
            reason = err.reason if isinstance(err, TranscriptError) else str(err.strerror)
            return ("unreadable", f"cannot be read: {reason}")
        if text is None:
            return ("missing", MISSING)
        cut = size > self.limit
        check = ""
        digest = self.record.get("digest")
        if not cut and isinstance(digest, str) and digest:
            same = content_digest(text) == digest
            check = "digest matches" if same else "digest differs from the transcript's"
        return ("here", inert(text), size, cut, check)


__all__ = ["MISSING", "REFUSED", "ArtifactScreen"]
