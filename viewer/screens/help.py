"""The ``?`` screen: every key, built from the bindings themselves, so a key added to a
screen or a widget shows here without anyone editing a list."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.actions import parse as parse_action
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer, VerticalScroll
from textual.dom import DOMNode
from textual.keys import key_to_character
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Footer, Static

from ..widgets.model_status import LIVE_STATES

NAMES = {
    "slash": "/",
    "question_mark": "?",
    "escape": "esc",
    "pagedown": "PgDn",
    "pageup": "PgUp",
    "ctrl+pagedown": "ctrl+PgDn",
    "ctrl+pageup": "ctrl+PgUp",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
}
# What no binding says: the mouse, as a screen's ``HELP_MOUSE`` says it (the browser's
# double click opens a file, where the help said it "folds or expands"), else as a
# file's screens have it, else as every list has it.
FILE_MOUSE = "mouse: click selects, double-click folds or expands, the wheel scrolls"
MOUSE = "mouse: click selects, the wheel scrolls"
NOTES = ("ctrl+p: the command palette, every action by name",)
# A file's screens alone: the browser's palette has no Export… (which it said), and its
# rows no conversation's tags.
FILE_NOTES = (
    "ctrl+p, then Export…: the transcript as HTML, Markdown or JSON, written beside it",
    "[sticky] on a message: context a compaction keeps (v1: one written sticky, sysprompt or"
    " with a depth; Codex: a developer or system message, its instructions); one a"
    " compaction folded is marked folded instead",
)

Section = tuple[str, Sequence[BindingType]]
SHARED_TITLE = "Most tabs"  # their shared keys, said once (a tab binding one otherwise says so)
ACROSS_TITLE = "Tables too wide"  # (the keys that scroll one across the window, said once)
SCROLL_ACROSS = frozenset({"scroll_left", "scroll_right", "page_left", "page_right"})


def _same(binding: Binding) -> tuple[str, str, str]:
    return (binding.key, binding.action, binding.tooltip or binding.description)


# The keys every scrolling widget has from Textual (``left`` "Scroll Left", ``pageup``):
# in our lists, ours move the cursor instead or they do nothing (lines cut to the width;
# the footer, never focused); where they do something, a table's columns scrolled
# across a narrow window, the table binds them again in our words.
TEXTUAL_SCROLLING = {_same(b) for b in Binding.make_bindings(ScrollableContainer.BINDINGS)}


def key_name(key: str) -> str:
    if key in NAMES:
        return NAMES[key]
    char = key_to_character(key) if len(key) > 1 else key
    return char if char and char.isprintable() and char != " " else key


def what_it_does(binding: Binding) -> str:
    """A key's words, here and in the command palette: its tooltip where it has one (the
    footer's word is short: a key that does two things says when it does which), else
    its description, else its action."""
    return binding.tooltip or binding.description or binding.action


def binding_rows(bindings: Sequence[BindingType]) -> list[tuple[str, str]]:
    """(keys, what) per action, its keys joined: ``j / down``, ``next``."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for binding in Binding.make_bindings(bindings):
        grouped.setdefault((binding.action, what_it_does(binding)), []).append(
            key_name(binding.key)
        )
    return [(" / ".join(keys), what) for (_action, what), keys in grouped.items()]


def offers(node: DOMNode, action: str) -> bool:
    """Whether ``node`` offers ``action`` (a binding's) now: its ``check_action`` not False,
    asked as Textual asks it for a key, with the action's name and parameters parsed from
    the string (``jump`` and ``('call', 1)``, not ``jump('call', 1)``), of the node that
    a namespace names (``app.quit``: the app)."""
    namespace, name, parameters = parse_action(action)
    target = {"app": node.app, "screen": node.screen}.get(namespace, node)
    return target.check_action(name, parameters) is not False


def offered(node: DOMNode, bindings: Sequence[BindingType]) -> list[Binding]:
    """The bindings whose actions ``node`` offers now."""
    return [b for b in Binding.make_bindings(bindings) if offers(node, b.action)]


def _title(cls: type) -> str:
    """A widget class's section: its ``HELP_TITLE``, else its name in words."""
    title = getattr(cls, "HELP_TITLE", None)
    if isinstance(title, str):
        return title
    words = re.sub(r"(?<!^)(?=[A-Z])", " ", cls.__name__).split()
    return " ".join([words[0], *(w.lower() for w in words[1:])]) if words else cls.__name__


def _ours(cls: type) -> bool:
    return cls.__module__.startswith("viewer.")


def _in_written_order(cls: type, bound: Iterable[Binding]) -> list[Binding]:
    """``bound`` (a widget's keys) in the order its classes write them, its own class's
    first (``X / N / p``, as written, not ``N / p / X``); any bound at run time last."""
    live = {(b.key, b.action): b for b in bound}
    order = {
        (binding.key, binding.action): None
        for klass in cls.__mro__
        for binding in Binding.make_bindings(klass.__dict__.get("BINDINGS", []))
    }
    return [live[k] for k in order if k in live] + [b for k, b in live.items() if k not in order]


def class_bindings(cls: type[DOMNode]) -> list[Binding]:
    """Every key a widget of ``cls`` has: its own and those it inherits (Textual's too, a
    table's ``left`` / ``right``), a key bound again replacing the inherited one."""
    merged = cls._merge_bindings().key_to_bindings
    return _in_written_order(cls, (b for bindings in merged.values() for b in bindings))


def widget_bindings(widget: Widget) -> list[Binding]:
    """The keys of one of our widgets as it has them now, and those of the widgets it
    mounts later (its ``MOUNTS_LATER``: a run's sections, mounted when a run is shown);
    Textual's own containers' none (theirs scroll what ours move through), nor the keys
    every scrolling widget has from Textual, as Textual words them (``TEXTUAL_SCROLLING``)."""
    cls = type(widget)
    if not _ours(cls):
        return []
    live = (b for bindings in widget._bindings.key_to_bindings.values() for b in bindings)
    later: Iterable[type[DOMNode]] = getattr(cls, "MOUNTS_LATER", ())
    found = [*_in_written_order(cls, live), *(b for kind in later for b in class_bindings(kind))]
    return [b for b in found if _same(b) not in TEXTUAL_SCROLLING]


def _across(sections: list[Section], at: int) -> list[Section]:
    """``sections`` with the keys that scroll a table across taken out of each, said
    once in a section of their own, the ``at``-th."""
    across = _unique(b for _t, bs in sections for b in Binding.make_bindings(bs) if _scrolls(b))
    rest = [
        (title, [b for b in Binding.make_bindings(bs) if not _scrolls(b)]) for title, bs in sections
    ]
    return [*rest[:at], *([(ACROSS_TITLE, across)] if across else []), *rest[at:]]


def _scrolls(binding: Binding) -> bool:
    return binding.action in SCROLL_ACROSS


def _unique(bindings: Iterable[Binding]) -> list[Binding]:
    kept: dict[tuple[str, str, str], Binding] = {}
    for binding in bindings:
        kept.setdefault(_same(binding), binding)
    return list(kept.values())


def pane_sections(panes: Sequence[tuple[str, Widget]]) -> list[Section]:
    """A section for each pane (its title, every key of each widget in it). The keys most
    panes share (moving through a list) are said once, first: each in more than half of
    them, and every other one binding that key to something of its own, said there."""
    keys = [
        (title, _unique(b for w in [pane, *pane.query("*")] for b in widget_bindings(w)))
        for title, pane in panes
    ]
    had = [{_same(b) for b in bindings} for _title, bindings in keys]
    bound = [{b.key for b in bindings} for _title, bindings in keys]

    def shared_by_all(binding: Binding) -> bool:
        same = _same(binding)
        holding = sum(same in h for h in had)
        return holding * 2 > len(keys) > 1 and all(
            same in h or binding.key in b for h, b in zip(had, bound, strict=True)
        )

    first = [b for b in _unique(b for _t, bs in keys for b in bs) if shared_by_all(b)]
    shared = {_same(b) for b in first}
    return _across(
        [
            *([(SHARED_TITLE, first)] if first else []),
            *((title, [b for b in bs if _same(b) not in shared]) for title, bs in keys),
        ],
        1 if first else 0,
    )


def screen_sections(screen: Screen[object]) -> list[Section]:
    """The keys of a screen, of every widget of ours on it, and of the app."""
    sections: list[Section] = [("This screen", offered(screen, screen.BINDINGS))]
    seen: set[type] = set()
    for widget in screen.query("*"):
        cls = type(widget)
        if cls in seen or not _ours(cls):
            continue
        seen.add(cls)
        own = widget_bindings(widget)
        if own:
            sections.append((_title(cls), own))
    sections.append(("Everywhere", offered(screen.app, screen.app.BINDINGS)))
    return _across(sections, -1)  # (before the app's)


class BindingsHelpScreen(ModalScreen[None]):
    """Every key of the given sections, as their bindings say."""

    # (the list keys scroll it as every other view's: only arrows and pages did; the
    # footer names them, as every dialog says its own keys)
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "dismiss", "Close"),
        Binding("j", "scroll_lines(1)", "Down"),
        Binding("k", "scroll_lines(-1)", "Up"),
        Binding("g", "edge(0)", "Top"),
        Binding("G", "edge(1)", "Bottom"),
    ]

    def action_scroll_lines(self, lines: int) -> None:
        self.query_one("#help-body", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_edge(self, end: int) -> None:
        body = self.query_one("#help-body", VerticalScroll)
        body.scroll_end(animate=False) if end else body.scroll_home(animate=False)

    def __init__(
        self,
        title: str,
        sections: Iterable[Section],
        *,
        of_file: bool = False,
        mouse: str | None = None,
    ) -> None:
        """``of_file``: the screen below is a file's (*Export…* in its palette, tags on its
        messages); ``mouse``: what the mouse does there, if not as ``of_file`` says."""
        super().__init__()
        self.title_text = title
        self.sections = list(sections)
        self.of_file = of_file
        said = [mouse or (FILE_MOUSE if of_file else MOUSE), *NOTES]
        self.notes = [*said, *FILE_NOTES] if of_file else said

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold")
        table.add_column()
        for section, bindings in self.sections:
            rows = binding_rows(bindings)
            if not rows:
                continue
            table.add_row(Text(section, style="bold underline"), "")
            for keys, what in rows:
                table.add_row(Text(keys), Text(what))
            table.add_row("", "")
        if self.of_file:  # (the header's dot, what each of its words means)
            table.add_row(Text("The header's dot", style="bold underline"), "")
            for state, (style, means) in LIVE_STATES.items():
                table.add_row(Text(f"● {state}", style=style), Text(means))
            table.add_row("", "")
        with VerticalScroll(id="help-body"):
            yield Static(Text(self.title_text, style="bold"), id="help-title")
            yield Static(table)
            yield Static(Text("\n".join(self.notes), style="dim"))
            yield Static(Text("escape closes", style="dim"))
        yield Footer()  # (its own keys, not the screen's below, which do nothing here)


__all__ = [
    "BindingsHelpScreen",
    "Section",
    "binding_rows",
    "key_name",
    "offers",
    "pane_sections",
    "screen_sections",
    "what_it_does",
    "widget_bindings",
]
