"""``SectionView``: one section of a run's context in the Run contexts pane, a header
line and its body, folded to a few lines until expanded; the focused one's header
begins with ``▌`` (not told by colour alone), and ``j`` / ``k`` step between the
sections, ``escape`` goes back to the runs list."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from session_core.text import count

from ..safe import inert, one_line, short_id

SectionStatus = Literal["new", "changed", "same", "removed", "first"]
FOLD_LINES = 3
EXPANDED_LIMIT = 200_000  # characters of one body shown when expanded
FOCUS_MARK = "▌"  # the focused section's header begins with it, as a table's cursor row

FALLBACK_STYLES: dict[str, str] = {
    "section--new": "green",
    "section--changed": "yellow",
    "section--same": "dim",
    "section--removed": "red",
    "section--first": "",
    "section--name": "bold",
    "section--meta": "dim",
    "section--missing": "italic red",
    "section--fold": "dim italic",
    "run-context--label": "bold",
    "run-context--new": "green",
    "run-context--changed": "yellow",
    "run-context--removed": "red",
    "run-context--same": "dim",
}


def _component_style(widget: Widget, component: str) -> Style:
    try:
        style = widget.get_component_rich_style(component, partial=True)
    except KeyError:
        style = Style()
    return style if style else Style.parse(FALLBACK_STYLES.get(component, ""))


@dataclass(slots=True)
class SectionInfo:
    """One section of a run as shown: where its body lives and how it compares."""

    name: str
    digest: str
    location: str  # "inline" or "rendered-in <id>"
    carrier: str | None  # the envelope id named by rendered-in
    status: SectionStatus
    body: str | None  # None: the carrying line is not in this transcript
    previous_digest: str | None = None


def folded_note(lines: int) -> str:
    """What a folded section says below the lines it shows, of a body of ``lines`` lines:
    what it hides, or that it hides none (a short body, folded, read as one unfolded but
    for its arrow)."""
    hidden = lines - FOLD_LINES
    if hidden > 0:
        return f"… {count(hidden, 'more line')} folded (enter: expand)"
    return f"(folded: {'its line' if lines == 1 else f'all {lines} lines'} shown)"


class SectionView(Widget, can_focus=True):
    """One section: a header line and its body, folded to a few lines until expanded."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_body", "Expand a section", show=False),
        Binding("space", "toggle_body", "Expand a section", show=False),
        Binding("j", "step(1)", "Next section", show=False),
        Binding("k", "step(-1)", "Previous section", show=False),
        Binding("escape", "leave", "Back to the runs"),
    ]

    @dataclass
    class Toggled(Message):
        """The section was expanded or folded (the pane remembers it per run)."""

        view: SectionView

    @dataclass
    class Left(Message):
        """``escape``: the focus goes back to the runs list."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "section--new",
        "section--changed",
        "section--same",
        "section--removed",
        "section--first",
        "section--name",
        "section--meta",
        "section--missing",
        "section--fold",
    }

    expanded: reactive[bool] = reactive(False, layout=True)

    def __init__(
        self, info: SectionInfo, *, key: tuple[str, int] = ("", -1), expanded: bool = False
    ) -> None:
        super().__init__(classes=f"-{info.status}")
        self.info = info
        self.key = key  # (run-context line id, position): what the pane remembers
        self.set_reactive(SectionView.expanded, expanded)

    def render(self) -> Text:
        info = self.info
        out = Text(end="")
        mark = FOCUS_MARK if self.has_focus else " "  # (its style alone was not seen)
        marker = "▼ " if self.expanded else "▶ "
        out.append(mark + marker, _component_style(self, "section--meta"))
        out.append(one_line(info.name, 60), _component_style(self, "section--name"))
        out.append("   ")
        if info.status != "first":
            out.append(f"[{info.status}]", _component_style(self, f"section--{info.status}"))
            out.append("   ")
        meta = _component_style(self, "section--meta")
        out.append(f"digest {short_id(info.digest)}", meta)
        if info.status == "changed" and info.previous_digest:
            out.append(f" (was {short_id(info.previous_digest)})", meta)
        out.append(f"   {info.location}", meta)
        body = info.body
        if body is None:
            out.append(
                "\n  body not in this transcript", _component_style(self, "section--missing")
            )
            return out
        lines = inert(body).split("\n")
        if body == "":
            out.append("\n  (empty)", _component_style(self, "section--fold"))
            return out
        if self.expanded:
            shown = "\n".join(lines)
            more = len(shown) - EXPANDED_LIMIT
            out.append("\n" + shown[:EXPANDED_LIMIT])
            if more > 0:
                out.append(
                    f"\n… {count(more, 'more character')}", _component_style(self, "section--fold")
                )
            return out
        out.append("\n" + "\n".join(lines[:FOLD_LINES]))
        out.append("\n" + folded_note(len(lines)), _component_style(self, "section--fold"))
        return out

    def action_toggle_body(self) -> None:
        self.expanded = not self.expanded
        self.post_message(self.Toggled(self))

    def action_step(self, direction: int) -> None:
        """The focus to the next (1) or previous (-1) section, if there is one."""
        if self.parent is None:
            return
        sections = list(self.parent.query_children(SectionView))
        at = sections.index(self) + direction
        if 0 <= at < len(sections):
            sections[at].focus()

    def action_leave(self) -> None:
        self.post_message(self.Left())

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.focus()
        self.action_toggle_body()
