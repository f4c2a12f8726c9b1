"""``ArtifactScreen``: an oversized tool result, read from ``<stem>.artifacts/<file>``.

The file name comes from the transcript, so it is untrusted: anything but a
plain basename is refused before any file is touched. A missing file is
"not here any more" (artifacts are pruned; that is not an error). The file is
read in a thread worker, at most ``limit`` bytes, never on the UI thread.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea
from textual.worker import get_current_worker

from session_core.artifacts import artifact_dir, artifact_status, is_safe_basename, read_artifact
from session_core.codec import content_digest
from session_core.errors import TranscriptError
from session_core.text import size_text

from ..safe import inert, inert_text, one_line

DEFAULT_LIMIT = 2_000_000

REFUSED = "refused: not a plain file name"
MISSING = "not here any more"

ArtifactState = Literal["loading", "here", "missing", "refused", "unreadable"]


def _size(n: int) -> str:
    return f"{n} bytes" if n < 1000 else f"{size_text(n)} ({n:,} bytes)"


class ArtifactScreen(ModalScreen[None]):
    """Shows one artifact's text, or why it cannot be shown. ``escape``/``q`` closes."""

    # The text is a read-only TextArea (its arrows move a cursor, shift+arrows select,
    # ctrl+c copies); the keys every other view scrolls by, too (only page up and down
    # moved it: j, g, G did nothing). Priority: the text area takes letters first.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("q", "close", "Close", show=False),
        Binding("j", "move(1)", "Down", show=False, priority=True),
        Binding("k", "move(-1)", "Up", show=False, priority=True),
        Binding("g,ctrl+home", "edge(0)", "Top", priority=True),
        Binding("G,ctrl+end", "edge(1)", "Bottom", priority=True),
    ]

    def __init__(
        self,
        transcript: str | os.PathLike[str],
        file_name: object,
        record: Mapping[str, Any] | None = None,
        *,
        limit: int = DEFAULT_LIMIT,
    ) -> None:
        super().__init__()
        self.transcript = os.fspath(transcript)
        self.file_name = file_name
        self.record: dict[str, Any] = dict(record or {})
        self.limit = limit
        self.state: ArtifactState = "loading"
        self.cut = False
        self.text = ""  # what is shown (already inert)

    # -- layout -------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="artifact-dialog"):
            yield Static(self._title(), id="artifact-title")
            yield Static(self._record_line(), id="artifact-record")
            yield Static(Text("reading…"), id="artifact-status")
            yield TextArea(
                "",
                read_only=True,
                soft_wrap=False,
                show_line_numbers=True,
                id="artifact-body",
            )
            help_line = "escape closes · j k g G move · shift+arrows select, ctrl+c copies"
            yield Static(Text(help_line), id="artifact-help")
        yield Footer()  # (its own keys, not the screen's below, which do nothing here)

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

    def on_mount(self) -> None:
        self.query_one("#artifact-body", TextArea).display = False
        if not is_safe_basename(self.file_name):
            self._show_status("refused", REFUSED)
            return
        self._load()

    # -- reading (worker thread) ---------------------------------------------

    @work(thread=True, exclusive=True, group="artifact-read", description="artifact-read")
    def _load(self) -> None:
        worker = get_current_worker()
        status = artifact_status(self.transcript, self.file_name)
        if status.state == "refused":
            result: tuple[Any, ...] = ("refused", REFUSED)
        elif status.state == "missing":
            result = ("missing", MISSING)
        elif status.state == "unreadable":
            result = ("unreadable", status.detail)
        else:
            result = self._read()
        if not worker.is_cancelled:
            self.app.call_from_thread(self._deliver, result)

    def _read(self) -> tuple[Any, ...]:
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

    # -- showing (UI thread) ------------------------------------------------

    def _deliver(self, result: tuple[Any, ...]) -> None:
        if not self.is_attached:
            return
        if result[0] != "here":
            self._show_status(result[0], result[1])
            return
        _, text, size, cut, check = result
        self.state = "here"
        self.cut = cut
        self.text = text
        note = _size(size)
        if cut:
            note += f"; showing the first {_size(self.limit)}, the rest is cut"
        if check:
            note += f"; {check}"
        status = self.query_one("#artifact-status", Static)
        status.update(Text(note))
        status.set_class(cut, "-cut")
        body = self.query_one("#artifact-body", TextArea)
        body.load_text(text)
        body.display = True
        self.query_one("#artifact-dialog").add_class("-text")
        body.focus()
        self.refresh_bindings()  # (its keys to move through it, in the footer)

    def _show_status(self, state: str, message: str) -> None:
        self.state = state  # type: ignore[assignment]
        self.query_one("#artifact-help", Static).update(Text("escape closes"))
        status = self.query_one("#artifact-status", Static)
        status.update(inert_text(message))
        status.add_class(f"-{state}")
        self.query_one("#artifact-body", TextArea).display = False

    def action_close(self) -> None:
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The keys that move through the text, only where there is one to move."""
        if action in ("move", "edge"):
            return self.state == "here"
        return True

    def action_move(self, lines: int) -> None:
        body = self.query_one("#artifact-body", TextArea)
        if body.display:
            (body.action_cursor_down if lines > 0 else body.action_cursor_up)()

    def action_edge(self, end: int) -> None:
        """The text's first line (``end`` 0) or its last."""
        body = self.query_one("#artifact-body", TextArea)
        if body.display:
            body.move_cursor(body.document.end if end else (0, 0), center=False)
