"""The "Export…" dialog: format, view and where to write; the export runs in a thread."""

from __future__ import annotations

import os
import threading
from pathlib import Path, PurePath
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, RadioSet, Static

from session_core.errors import TranscriptError
from session_core.export import (
    Format,
    Writes,
    default_output,
    export_into,
    names_folder,
    open_export,
    same_file,
)
from session_core.exportdoc import View
from session_core.text import name_line

from ..safe import inert_text
from ..stdin_spool import is_spool
from ..widgets.choice_button import ChoiceButton

STYLES = Path(__file__).parent.parent / "styles"


def suggested_output(transcript: str, fmt: Format) -> str:
    """Where the dialog offers to write: beside the transcript (``default_output``, relative
    to the working directory when the transcript's path is; ``export_target`` reads it so),
    in a name the box shows as it is. The box draws its text raw, so a character that
    ``name_line`` would show otherwise (an escape sequence, a tab, an invisible mark) is
    ``_`` in the name offered, and a folder holding one gives way to the working
    directory."""
    out = default_output(transcript, fmt)
    if is_spool(transcript):  # (a copy of standard input, and its folder, go at the end)
        out = os.path.join(os.getcwd(), os.path.basename(out))
    if name_line(out) == out:
        return out
    folder, name = os.path.split(out)
    name = "".join(char if name_line(char) == char else "_" for char in name)
    if name_line(folder) != folder:
        folder = os.getcwd() if name_line(os.getcwd()) == os.getcwd() else ""
    return os.path.join(folder, name)


def export_target(typed: str) -> str:
    """The file a path in the box names: a relative one is relative to the working
    directory, as in a shell and as the path offered (``suggested_output``) is. (It was
    joined to the transcript's folder, so ``tailscope live/lag.jsonl`` offered
    ``live/lag.html`` and wrote ``live/live/lag.html``, or failed.) It is joined, not
    normalised, so the system reads it as a shell's ``>`` does: ``sym/../x.html`` is
    beside the folder ``sym`` links to, and ``newdir/`` keeps the ``/`` that names a
    folder (``abspath`` made them ``./x.html`` and a file ``newdir``)."""
    return os.path.join(os.getcwd(), os.path.expanduser(typed))


FORMAT_LABELS: dict[Format, str] = {"md": "Markdown", "html": "HTML", "json": "JSON"}


class _Stopped(Exception):
    """The export was cancelled while it was written (its temporary file is removed)."""


class _Stoppable:
    """The export's output, which stops it at its next write once ``stop`` is set."""

    def __init__(self, out: Writes, stop: threading.Event) -> None:
        self._out = out
        self._stop = stop

    def write(self, data: bytes, /) -> int:
        if self._stop.is_set():
            raise _Stopped
        return self._out.write(data)


class ExportScreen(ModalScreen[str | None]):
    """Dismissed with the written path, or ``None`` when cancelled."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [STYLES / "export.tcss"]
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, transcript: str, fmt: Format = "html", view: View = "replayed") -> None:
        super().__init__()
        self.transcript = transcript
        self.fmt: Format = fmt
        self.view: View = view
        self._confirmed: str | None = None  # the existing path the user agreed to replace
        self._exporting = False
        self._stop = threading.Event()  # set: the export running stops at its next write

    def compose(self) -> ComposeResult:
        with Vertical(id="export-body"):
            yield Static("Export this transcript", id="export-title")
            with Horizontal(id="export-choices"):
                with RadioSet(id="export-format"):
                    for fmt, label in FORMAT_LABELS.items():
                        yield ChoiceButton(label, value=fmt == self.fmt, name=fmt)
                with RadioSet(id="export-view"):
                    yield ChoiceButton(
                        "Replayed (sent next)", value=self.view == "replayed", name="replayed"
                    )
                    yield ChoiceButton("Raw (as written)", value=self.view == "raw", name="raw")
            yield Input(suggested_output(self.transcript, self.fmt), id="export-path")
            yield Static(id="export-status")
            with Horizontal(id="export-buttons"):
                yield Button("Export", variant="primary", id="export-go")
                yield Button("Cancel", id="export-cancel")
        yield Footer()  # (its own keys, not the screen's below, which do nothing here)

    def on_mount(self) -> None:
        self._sync_view()
        self.query_one("#export-path", Input).focus()

    def _sync_view(self) -> None:
        # JSON is what `tailscope replay` prints: the replayed view only.
        self.query_one("#export-view", RadioSet).disabled = self.fmt == "json"
        self._say(self._choice())

    def _choice(self) -> str:
        """What Export writes, in words (beside the radio buttons' dots)."""
        view = "replayed" if self.fmt == "json" else self.view
        return f"{FORMAT_LABELS[self.fmt]}, the {view} view: enter or Export writes it."

    def _say(self, text: str, problem: bool = False) -> None:
        status = self.query_one("#export-status", Static)
        status.set_class(problem, "problem")
        status.update(inert_text(text))

    @on(RadioSet.Changed, "#export-format")
    def _format_changed(self, event: RadioSet.Changed) -> None:
        path = self.query_one("#export-path", Input)
        old = suggested_output(self.transcript, self.fmt)
        self.fmt = event.pressed.name  # type: ignore[assignment]
        if path.value == old:  # still the default: follow the format
            path.value = suggested_output(self.transcript, self.fmt)
        self._confirmed = None
        self._sync_view()

    @on(RadioSet.Changed, "#export-view")
    def _view_changed(self, event: RadioSet.Changed) -> None:
        self.view = event.pressed.name  # type: ignore[assignment]
        self._say(self._choice())

    @on(Input.Changed, "#export-path")
    def _path_changed(self) -> None:
        self._confirmed = None
        self.query_one("#export-go", Button).label = "Export"

    @on(Button.Pressed, "#export-cancel")
    def action_cancel(self) -> None:
        """Closed without writing, and said so (a Tab too many lands on Cancel). While an
        export is written, it is stopped first and its temporary file removed: it said
        "nothing written" and went on to write the file (an audit: 9 MB, 20 s later)."""
        if self._exporting:
            self._stop.set()
            self._say("Stopping the export…")
            return  # (``_stopped`` closes the dialog once the worker has let go)
        self.app.notify("Export cancelled: nothing written.", timeout=3)
        self.dismiss(None)

    @on(Input.Submitted, "#export-path")
    @on(Button.Pressed, "#export-go")
    def _go(self) -> None:
        typed = self.query_one("#export-path", Input).value.strip()
        if not typed:
            self._say("Where should the export go?", problem=True)
            return
        target = export_target(typed)
        if same_file(target, self.transcript):
            self._say("That is the transcript itself; choose another file.", problem=True)
            return
        if names_folder(target):
            name = os.path.basename(suggested_output(self.transcript, self.fmt))
            there = os.path.isdir(target)  # (``newdir/`` with no ``newdir``: none is)
            said = "is a folder" if there else "names a folder, and there is none"
            self._say(
                f"{typed} {said}: name a file in it, such as {os.path.join(typed, name)}"
                if there
                else f"{typed} {said}: name a file to export to",
                problem=True,
            )
            return
        if os.path.exists(target) and self._confirmed != target:
            self._confirmed = target
            self.query_one("#export-go", Button).label = "Overwrite"
            self._say(f"{target} exists: press Overwrite to replace it.", problem=True)
            return
        self._say("Exporting… (escape stops it)")
        self.query_one("#export-go", Button).disabled = True
        self._exporting = True
        self._stop.clear()
        self.run_export(target, self.fmt, "replayed" if self.fmt == "json" else self.view)

    @work(thread=True, exclusive=True, group="export", description="export")
    def run_export(self, target: str, fmt: Format, view: View) -> None:
        try:
            with open_export(target, self.transcript) as out:
                export_into(self.transcript, fmt, view, _Stoppable(out, self._stop))
        except _Stopped:
            self.app.call_from_thread(self._stopped)
            return
        except (TranscriptError, OSError) as err:
            self.app.call_from_thread(self._failed, str(err))
            return
        self.app.call_from_thread(self._done, target, fmt)

    def _stopped(self) -> None:
        self._exporting = False
        self.app.notify("Export cancelled: nothing written.", timeout=3)
        self.dismiss(None)

    def _failed(self, why: str) -> None:
        self._exporting = False
        self.query_one("#export-go", Button).disabled = False
        # (said in the dialog, which stays open: a toast as well covered its buttons)
        self._say(f"Export failed: {why}", problem=True)

    def _done(self, target: str, fmt: Format) -> None:
        self._exporting = False
        self.app.notify(f"Exported {FORMAT_LABELS[fmt]} to {target}")
        self.dismiss(target)
