"""The ``f`` screen: which of a tab's rows to show, by lists of what the file has (the
conversation's roles and line types, the tool operations' tools and states)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from rich.cells import cell_len
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, SelectionList, Static

from ..safe import one_line
from ..widgets.tick_list import TickList

Choice = tuple[frozenset[str] | None, ...]  # each list's ticked choices (None: all)
LABEL_WIDTH = 60  # a choice's words at most
LIST_CHROME = 10  # a list's cells besides its prompts: tick box, border, padding, scroll bar
BODY_CHROME = 4  # the dialog's besides its lists: its border and padding
MIN_WIDTH = 70  # the dialog's width where its lists need less (its intro's two lines)


@dataclass(frozen=True, slots=True)
class FilterList:
    """One list of the dialog: its choices (the file's words, so shown as text, never
    as markup: a role "[/x]" froze the app), those shown now (None: all), how many rows
    each has where that is known, and a choice's words where they are not its value."""

    key: str  # (its list's id: ``filter-<key>``)
    title: str
    choices: tuple[str, ...]
    shown: frozenset[str] | None
    counts: Mapping[str, int] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)

    @property
    def ticked(self) -> frozenset[str]:
        """The choices ticked as the dialog opens (none ticked is a filter too)."""
        return frozenset(self.choices) if self.shown is None else self.shown

    def label(self, choice: str) -> str:
        # (a file's word cut short; the states' own labels whole: the longest, v1's
        # "interrupted: running when the writer died", is 41)
        return one_line(self.labels.get(choice, choice), LABEL_WIDTH)

    @property
    def width(self) -> int:
        """The cells its list takes to show every choice whole: the widest prompt, its
        tick box, the list's border, padding and scroll bar."""
        widest = max((self.prompt(c).cell_length for c in self.choices), default=0)
        return max(widest, cell_len(self.title) + 2) + LIST_CHROME

    def prompt(self, choice: str) -> Content:
        """A choice's count, then its words: a list narrower than its widest choice
        (a long tool name beside v1's crash states at 80 columns) cuts the words' end,
        never the count (it was hidden after a cut label)."""
        counted = self.counts.get(choice)
        said = self.label(choice)
        if counted is None:
            return Content(said)
        digits = max((len(f"{n:,}") for n in self.counts.values()), default=0)
        return Content(f"{counted:>{digits},}  {said}")


def hidden_said(lists: Sequence[tuple[FilterList, frozenset[str]]]) -> str:
    """What a filter hides, in words, a list at a time (a tick is told from no tick by
    colour alone): "roles: hiding tool · line types: all shown"."""
    said = []
    for choices, shown in lists:
        hidden = [choices.label(c) for c in choices.choices if c not in shown]
        listed = f"hiding {', '.join(hidden)}" if hidden else "all shown"
        said.append(f"{choices.title}: {listed}")
    return " · ".join(said)


class FilterScreen(ModalScreen[Choice]):
    """Which of a tab's rows to show, a list of choices each (every choice ticked: no
    filter); it answers each list's ticks (None: all of them)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, intro: str, lists: Sequence[FilterList]) -> None:
        super().__init__()
        self.intro = intro
        self.lists = tuple(lists)

    @classmethod
    def conversation(
        cls,
        roles: frozenset[str] | None,
        types: frozenset[str] | None,
        role_choices: tuple[str, ...],
        type_choices: tuple[str, ...],
    ) -> FilterScreen:
        """The conversation's: ``roles``, ``types``, those shown now (None: all); the
        choices, those the file has (``ItemsView.filter_choices``)."""
        return cls(
            "Show these roles (messages) and line types (raw view): "
            "space ticks one, tab goes on to the next list and the buttons",
            [
                # (a role and a line type may share a name)
                FilterList("roles", "roles", role_choices, roles),
                FilterList("types", "line types", type_choices, types),
            ],
        )

    def compose(self) -> ComposeResult:
        with Vertical(id="filter-body") as body:
            # (as wide as its lists' choices need, the stylesheet's 70 at least; the
            # stylesheet's max-width keeps it on a narrow screen)
            body.styles.width = max(MIN_WIDTH, sum(c.width for c in self.lists) + BODY_CHROME)
            yield Static(self.intro)
            narrowest = min(self.lists, key=lambda c: c.width)
            with Horizontal(id="filter-lists"):
                for choices in self.lists:
                    shown = choices.ticked
                    listed = TickList(
                        *[(choices.prompt(c), c, c in shown) for c in choices.choices],
                        id=f"filter-{choices.key}",
                    )
                    listed.border_title = choices.title
                    # (the narrowest list whole, the others share the rest by their
                    # prompts' width: v1's crash states were cut at 120 columns beside
                    # the tools' short names, and at 80 beside a long tool name)
                    whole = choices is narrowest and len(self.lists) > 1
                    listed.styles.width = choices.width if whole else f"{choices.width}fr"
                    yield listed
            given = [c.ticked for c in self.lists]
            yield Static(self._said(given), id="filter-said", markup=False)
            with Horizontal(id="filter-buttons"):
                yield Button("Apply", variant="primary", id="filter-apply")
                yield Button("Everything", id="filter-all")
                yield Button("Cancel", id="filter-cancel")
        yield Footer()  # (its own keys, not the screen's below, which do nothing here)

    def _said(self, ticks: Sequence[frozenset[str]]) -> str:
        """What the ticks say, in words."""
        return hidden_said(list(zip(self.lists, ticks, strict=True)))

    def follow(self, lists: Sequence[FilterList]) -> None:
        """The file read further while the dialog is open: each list's counts as they are
        now (a choice gone: 0), the choices come since after the others, ticked (a
        filter shows what it did not offer), the ticks and the highlight kept. Before
        it is mounted (pushed, a snapshot first) ``on_mount`` draws them: its lists may
        be composed of those it had, and not all in place yet."""
        followed = []
        for old, new in zip(self.lists, lists, strict=True):
            added = [c for c in new.choices if c not in old.choices]
            choices = (*old.choices, *added)
            # (counted before or now: a file reset to one with none counts each 0)
            counted = new.counts or old.counts
            counts = {c: new.counts.get(c, 0) for c in choices} if counted else {}
            shown = None if old.shown is None else old.shown.union(added)
            followed.append(FilterList(old.key, old.title, choices, shown, counts, old.labels))
        self.lists = tuple(followed)
        if self.is_mounted:
            self._draw()

    def _draw(self) -> None:
        """Each list's prompts as ``lists`` has them (the counts' width may change), the
        choices it lacks added, ticked; what the ticks say."""
        for mine in self.lists:
            listed = self.query_one(f"#filter-{mine.key}", SelectionList)
            drawn = listed.option_count
            for index, choice in enumerate(mine.choices[:drawn]):
                listed.replace_option_prompt_at_index(index, mine.prompt(choice))
            listed.add_options([(mine.prompt(c), c, True) for c in mine.choices[drawn:]])
        self._say()

    @on(SelectionList.SelectedChanged)
    def _ticked(self) -> None:
        if self.is_mounted:  # (before, ``on_mount`` says it)
            self._say()

    def _say(self) -> None:
        self.query_one("#filter-said", Static).update(self._said(self._ticks()))

    def _ticks(self) -> list[frozenset[str]]:
        """Each list's choices ticked now."""
        return [
            frozenset(self.query_one(f"#filter-{c.key}", SelectionList).selected)
            for c in self.lists
        ]

    def on_mount(self) -> None:
        if not self.is_attached:
            # The app exits (or the dialog went) in the tick it was pushed: its lists are
            # removed already, nothing to draw (``_draw`` stopped on ``NoMatches``).
            return
        self._draw()  # (as followed since it was composed)
        # The first list focused on its first choice: space ticks it at once (nothing
        # was highlighted, so a space did nothing until an arrow key).
        first = self.query(SelectionList).first()
        if first.option_count:
            first.highlighted = 0
        first.focus()

    @on(Button.Pressed, "#filter-cancel")
    def _cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#filter-all")
    def _everything(self) -> None:
        self.dismiss(tuple(None for _ in self.lists))

    @on(Button.Pressed, "#filter-apply")
    def _apply(self) -> None:
        self.dismiss(
            tuple(
                None if ticked == frozenset(c.choices) else ticked
                for c, ticked in zip(self.lists, self._ticks(), strict=True)
            )
        )


__all__ = ["Choice", "FilterList", "FilterScreen", "hidden_said"]
