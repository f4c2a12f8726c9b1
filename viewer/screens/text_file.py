"""``TextFileScreen``: a text read from a file in a worker, shown read-only, or why not.

What an artifact holds and what a writer left unfinished are read so: at most ``limit``
bytes, never on the UI thread, made inert before they are shown. A subclass says what
the text is (``_title``, ``_record_line``) and reads it (``_read``).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static, TextArea
from textual.worker import get_current_worker

from session_core.text import size_text

from ..safe import inert_text

DEFAULT_LIMIT = 2_000_000

TextState = Literal["loading", "here", "missing", "refused", "unreadable"]
# What ``_read`` gives: ("here", inert text, its size in bytes, cut?, a note) or
# (another state, why).
ReadResult = tuple[Any, ...]


def bytes_text(n: int) -> str:
    return f"{n} bytes" if n < 1000 else f"{size_text(n)} ({n:,} bytes)"


class TextFileScreen(ModalScreen[None]):
    """One text, or why it cannot be shown. ``escape``/``q`` closes."""

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

    def __init__(self, *, limit: int = DEFAULT_LIMIT, soft_wrap: bool = False) -> None:
        super().__init__()
        self.limit = limit
        self.soft_wrap = soft_wrap  # (a JSON line is one line: wrapped, it can be read)
        self.state: TextState = "loading"
        self.cut = False
        self.text = ""  # what is shown (already inert)

    # -- what a subclass says -------------------------------------------------

    def _title(self) -> Text:
        raise NotImplementedError

    def _record_line(self) -> Text:
        raise NotImplementedError

    def _read(self) -> ReadResult:
        """In the worker thread: the text (``ReadResult``), at most ``limit`` bytes."""
        raise NotImplementedError

    def _start(self) -> None:
        """On mount: read the text (a subclass may refuse before any file is touched)."""
        self._load()

    # -- layout -------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="text-dialog"):
            yield Static(self._title(), id="text-title")
            yield Static(self._record_line(), id="text-record")
            yield Static(Text("reading…"), id="text-status")
            yield TextArea(
                "",
                read_only=True,
                soft_wrap=self.soft_wrap,
                show_line_numbers=True,
                id="text-body",
            )
            help_line = "escape closes · j k g G move · shift+arrows select, ctrl+c copies"
            yield Static(Text(help_line), id="text-help")
        yield Footer()  # (its own keys, not the screen's below, which do nothing here)

    def on_mount(self) -> None:
        self.query_one("#text-body", TextArea).display = False
        self._start()

    # -- reading (worker thread) ---------------------------------------------

    @work(thread=True, exclusive=True, group="text-read", description="text-read")
    def _load(self) -> None:
        worker = get_current_worker()
        result = self._read()
        if not worker.is_cancelled:
            self.app.call_from_thread(self._deliver, result)

    # -- showing (UI thread) ------------------------------------------------

    def _deliver(self, result: ReadResult) -> None:
        if not self.is_attached:
            return
        if result[0] != "here":
            self._show_status(result[0], result[1])
            return
        _, text, size, cut, check = result
        self.state = "here"
        self.cut = cut
        self.text = text
        note = bytes_text(size)
        if cut:
            note += f"; showing the first {bytes_text(self.limit)}, the rest is cut"
        if check:
            note += f"; {check}"
        status = self.query_one("#text-status", Static)
        status.update(Text(note))
        status.set_class(cut, "-cut")
        body = self.query_one("#text-body", TextArea)
        body.load_text(text)
        body.display = True
        self.query_one("#text-dialog").add_class("-text")
        body.focus()
        self.refresh_bindings()  # (its keys to move through it, in the footer)

    def _show_status(self, state: TextState, message: str) -> None:
        self.state = state
        self.query_one("#text-help", Static).update(Text("escape closes"))
        status = self.query_one("#text-status", Static)
        status.update(inert_text(message))
        status.add_class(f"-{state}")
        self.query_one("#text-body", TextArea).display = False

    def action_close(self) -> None:
        self.dismiss(None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The keys that move through the text, only where there is one to move."""
        if action in ("move", "edge"):
            return self.state == "here"
        return True

    def action_move(self, lines: int) -> None:
        body = self.query_one("#text-body", TextArea)
        if body.display:
            (body.action_cursor_down if lines > 0 else body.action_cursor_up)()

    def action_edge(self, end: int) -> None:
        """The text's first line (``end`` 0) or its last."""
        body = self.query_one("#text-body", TextArea)
        if body.display:
            body.move_cursor(body.document.end if end else (0, 0), center=False)


__all__ = ["DEFAULT_LIMIT", "ReadResult", "TextFileScreen", "TextState", "bytes_text"]
