"""One tool operation in full: its arguments, result, the tool's own detail (an edit's
patch as a diff, a command's stdout and stderr), a running call's progress, and the
subagent it started (``s`` opens that file in its own screen, or, a subagent whose
lines are in this file, shows its first line in the opener's raw view)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, ClassVar

import orjson
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen

from session_core.model import ToolOp
from session_core.op_running import RanAtLeast, not_timed, op_took
from session_core.text import copied, count, duration_text, took_text

from ..safe import one_line_text
from ..widgets.block_view import Entry, ProseLines
from ..widgets.item_text import arguments_shown, as_json, capped
from ..widgets.keys_footer import KeysFooter

MAX_DETAIL = 200_000  # characters of one field shown (c copies the result in full)


def op_entries(op: ToolOp, ran: RanAtLeast | None = None) -> list[Entry]:
    """The detail's lines; ``ran``: how long a call not answered ran at least."""
    took = took_text(op.duration, op.started, op.ended, "from started to ended")
    if not took and (spanned := op_took(op)) is not None:  # (not timed by its writer)
        took = f"{duration_text(spanned)} from started to ended"
    if not took and ran is not None and ran.answered:
        where = f"line {ran.line:,}, " if ran.line else ""
        took = f"{ran.text}: answered at {where}{ran.ts} (its settle, which times it, not written)"
    elif not took and ran is not None and ran.now:
        took = f"{ran.text}: running at {ran.ts}, its writer at work"
    elif not took and ran is not None:
        where = f"line {ran.line:,}, " if ran.line else ""
        took = f"{ran.text}: not answered at its turn's last line ({where}{ran.ts})"
    elif not took and (why := not_timed(op)):
        took = f"? ({why})"
    facts = [
        ("tool", op.tool),
        ("state", op.label),
        ("call id", op.call_id),
        ("line", _lines_said(op)),
        ("run", op.run_id),
        ("message", op.message_id),
        # (a call written once it was done has no start in the file: its one line's
        # time is when it ended, as ``not_timed`` says under took)
        ("started", None if op.one_line() else op.started),
        ("ended", op.ended),
        ("last seen", op.last_seen and f"{op.last_seen} (its last line; it never ended)"),
        ("took", took),
        ("sidechain", "yes" if op.sidechain else None),
    ]
    out: list[Entry] = [("", f"{name}: {value}") for name, value in facts if value]
    if op.subagent:
        found = os.path.isfile(op.subagent)
        out.append(
            (
                "bold cyan",
                f"subagent: {op.subagent}" + ("  (s opens it)" if found else "  (missing)"),
            )
        )
    elif op.subagent_line is not None:
        at = f", line {op.subagent_line:,}" if op.subagent_line else ""
        out.append(("bold cyan", f"subagent: in this file{at}  (s shows it)"))
    out.append(("bold", "arguments"))
    out.append(("", _cut(arguments_text(op.arguments))))
    if op.progress_line:  # (0: its number is not known yet, the file's end read alone)
        at = f" at {op.progress_ts}" if op.progress_ts else ""
        out.append(("cyan", f"latest progress line: {op.progress_line:,}{at}"))
    if op.progress:
        out.append(("bold cyan", "latest progress"))
        out.append(("", _cut(op.progress)))
    out.append(("bold", "result"))
    out.append(
        (
            "red" if op.state == "failed" else "",
            _cut(op.result) if op.result is not None else "(no result)",
        )
    )
    if op.detail is not None:
        out.append(("bold", "detail"))
        out.extend(detail_entries(op.detail))
    return out


def _lines_said(op: ToolOp) -> str | None:
    """``12 (result at line 14)``; None where its line is not known (0: the file's end
    read alone, its lines counted from the window's first: ``lines_not_known``)."""
    if not op.line:
        return None
    return f"{op.line:,}" + (f" (result at line {op.result_line:,})" if op.result_line else "")


def arguments_text(arguments: Any) -> str:
    """A call's arguments as indented JSON: those written as a JSON text (v1's, Codex's
    function calls) indented too, anything else as it is."""
    if arguments is None:
        return "(none)"
    if isinstance(arguments, str) and arguments[:1] in ("{", "["):
        try:
            parsed = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return arguments
        return arguments_shown(parsed)
    return arguments_shown(arguments)


def detail_entries(detail: Any) -> list[Entry]:
    """A tool's structured result: a patch as a diff, stdout/stderr as sections, else JSON."""
    if isinstance(detail, dict):
        out: list[Entry] = []
        patch = detail.get("structuredPatch")
        if isinstance(patch, list) and patch:
            if detail.get("filePath"):
                out.append(("bold", f"--- {detail['filePath']}"))
            for hunk in patch:
                out.extend(_hunk(hunk))
            return out
        streams = [key for key in ("stdout", "stderr") if isinstance(detail.get(key), str)]
        if streams:
            for key in streams:
                out.append(("bold red" if key == "stderr" else "bold", key))
                out.append(("red" if key == "stderr" else "", _cut(detail[key]) or "(empty)"))
            rest = {k: v for k, v in detail.items() if k not in streams}
            if rest:
                out.append(("dim", _cut(as_json(rest))))
            return out
    return [("", _cut(as_json(detail)))]


def _hunk(hunk: Any) -> list[Entry]:
    if not isinstance(hunk, dict):
        return [("", as_json(hunk))]
    head = (
        f"@@ -{hunk.get('oldStart', '?')},{hunk.get('oldLines', '?')} "
        f"+{hunk.get('newStart', '?')},{hunk.get('newLines', '?')} @@"
    )
    out: list[Entry] = [("cyan", head)]
    for line in hunk.get("lines") or ():
        text = str(line)
        style = "green" if text.startswith("+") else "red" if text.startswith("-") else ""
        out.append((style, text))
    return out


class DetailLines(ProseLines):
    """The detail's lines, their scrolling keys in the footer: every dialog says its own
    keys there, as the help's does (its footer said only ``esc Close  c Copy result``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "move(1)", "Down"),
        Binding("k", "move(-1)", "Up"),
        Binding("g", "first", "Top"),
        Binding("G", "last", "Bottom"),
        # (the arrows too, unsaid: a key of two names showed only its arrow, ``↓ Down``)
        Binding("down", "move(1)", "Down", show=False),
        Binding("up", "move(-1)", "Up", show=False),
        Binding("home", "first", "Top", show=False),
        Binding("end", "last", "Bottom", show=False),
    ]


class OpDetailScreen(ModalScreen[None]):
    """The detail of one tool operation, over the screen that opened it."""

    DEFAULT_CSS = """
    OpDetailScreen {
        align: center middle;
        & > #op-detail-body {
            width: 90%;
            height: 90%;
            border: round $accent;
            background: $surface;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close"),
        Binding("s", "open_subagent", "Open subagent"),
        Binding("a", "open_artifact", "Open artifact"),
        Binding("c", "copy", "Copy result"),
    ]

    @classmethod
    def help_keys(cls, subagents: bool, artifacts: bool) -> list[Binding]:
        """Its keys as the help lists them: ``s`` only for a format whose operations may
        have a subagent (v1's and agentgo's never do), ``a`` one whose may have an
        artifact (v1's)."""
        scroll = [b for b in Binding.make_bindings(DetailLines.BINDINGS) if b.show]
        keys = [*Binding.make_bindings(cls.BINDINGS), *scroll]
        left = {"open_subagent": subagents, "open_artifact": artifacts}
        return [b for b in keys if left.get(b.action, True)]

    class ShowItem(Message):
        """``s`` on a call whose subagent is in this file: its opener shows that item
        (``ident``) in the raw view."""

        def __init__(self, ident: str) -> None:
            super().__init__()
            self.ident = ident

    def __init__(
        self,
        op: ToolOp,
        *,
        force_polling: bool = False,
        more: list[Entry] | None = None,
        artifact: Callable[[], None] | None = None,
        ran: RanAtLeast | None = None,
    ) -> None:
        super().__init__()
        self.op = op
        self.ran = ran  # how long it ran at least, a call not answered
        self.force_polling = force_polling  # for a subagent's screen, as the opener's
        self.more = more or []  # what the format says of it besides (its pane set's)
        self.artifact = artifact  # ``a``: opens its artifact (its pane set's; None: none)

    def compose(self) -> ComposeResult:
        with Vertical(id="op-detail-body") as body:
            # A Text: the tool's name is the file's, never markup or escapes to obey.
            body.border_title = one_line_text(f"{self.op.tool} · {self.op.label}", 120)
            yield DetailLines(id="op-detail")  # (arguments and results cut between words)
        # (its own keys first, the scrolling ones after: a narrow screen leaves out those)
        yield KeysFooter(first=("escape", "s", "a", "c"))

    def on_mount(self) -> None:
        found = self.query("#op-detail").results(DetailLines)
        view = next(found, None)
        if view is None:  # (closed before it mounted: a key behind the one that opened it)
            return
        view.set_entries([*op_entries(self.op, self.ran), *self.more])
        view.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_subagent":
            return bool(self.op.subagent or self.op.subagent_item)
        if action == "open_artifact":
            return self.artifact is not None
        return True

    def action_open_artifact(self) -> None:
        if self.artifact is not None:
            self.artifact()

    def action_open_subagent(self) -> None:
        path = self.op.subagent
        ident = self.op.subagent_item
        if not path and ident:
            stack = self.app.screen_stack
            opener = stack[-2] if len(stack) > 1 and stack[-1] is self else None
            self.dismiss()
            if opener is not None:
                opener.post_message(self.ShowItem(ident))
            return
        from ..format_screens import open_linked

        open_linked(self.app, path, force_polling=self.force_polling)

    def action_copy(self) -> None:
        text = copied(self.op.result or "")  # (inert, as every copy is)
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {count(len(text), 'character')} to the clipboard.")


__all__ = ["OpDetailScreen", "detail_entries", "op_entries"]


def _cut(text: str) -> str:
    return capped(text, MAX_DETAIL, "c copies the result")
