"""The conversation's filter (``f``): which roles and line kinds ``ItemsView`` shows, what
it offers, and why a view it leaves empty is empty."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from session_core.column_items import Items
from session_core.model import Item, Transcript
from session_core.text import count

if TYPE_CHECKING:
    from .items_view import ItemsMode

# What the filter offers (``f``): conversation items by role, lines by kind. A kind not
# listed here is always shown (a format's own, or one newer than this list).
FILTER_ROLES = ("system", "developer", "user", "assistant", "tool")
FILTER_KINDS = (
    "message",
    "meta",
    "command",
    "hook",
    "queued",
    "queue",
    "compact-summary",
    "compaction",
    "summary",
    "system",
    "progress",
    "attachment",
    "event",
    "context",
    "record",
)


def lets_through(value: str, chosen: frozenset[str] | None, offered: frozenset[str]) -> bool:
    """Whether a filter that shows ``chosen`` of what it ``offered`` (None: all) shows a
    row of ``value``: one it did not offer, come since it was set, is shown."""
    return chosen is None or value in chosen or value not in offered


def none_through(every: int, noun: str) -> str:
    """What a view a filter leaves empty says, of the ``every`` rows (``noun``s) it hides."""
    return f"The filter lets none of the {count(every, noun)} through: f changes it."


class ItemFilter:
    """The filter of an items view (a mixin of ``ItemsView``, as its search is): the roles
    and kinds shown, and what a format's own panes narrow it to."""

    # (the view's own)
    items: Sequence[Item]
    transcript: Transcript
    mode: ItemsMode
    new_count: int
    follows_end: bool

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)  # type: ignore[call-arg]
        self.roles: frozenset[str] | None = None  # the filter (None: everything)
        self.kinds: frozenset[str] | None = None
        # ... of the roles and kinds it offered (others, come since, are shown)
        self.offered: tuple[frozenset[str], frozenset[str]] = (
            frozenset(FILTER_ROLES),
            frozenset(FILTER_KINDS),
        )
        # What a format's own panes narrow the view to (the one run they show, say).
        self.narrow: Callable[[Sequence[Item]], Sequence[Item]] | None = None

    if TYPE_CHECKING:  # (the view's, and its jumps': never defined here, which would hide them)

        def show(self, transcript: Transcript, *, to_end: bool | None = None) -> None: ...

        def end_jump(self) -> None: ...

        def cursor_screen_row(self) -> int | None: ...

        def cursor_to_screen_row(self, row: int) -> None: ...

    def _shown(self, items: Sequence[Item]) -> Sequence[Item]:
        """The items the filter lets through (a pass over them when one is set)."""
        if self.narrow is not None:
            items = self.narrow(items)
        roles, kinds = self.roles, self.kinds
        if roles is None and kinds is None:
            return items
        offered_roles, offered_kinds = self.offered

        def keep(role: str, kind: str) -> bool:
            return lets_through(role, roles, offered_roles) and lets_through(
                kind, kinds, offered_kinds
            )

        if isinstance(items, Items):
            return items.having(keep)  # (none built)
        return [item for item in items if keep(item.role, item.kind)]

    def empty_note(self) -> str | None:
        """Why nothing is shown, where the file has items the view leaves out: the run
        chosen (agentgo), the filter, or a replayed view that is sent none of them."""
        if len(self.items):
            return None
        transcript = self.transcript
        every = transcript.raw if self.mode == "raw" else transcript.messages
        if self.narrow is not None and len(every) and not len(self.narrow(every)):
            if self.mode == "replayed" and len(self.narrow(transcript.raw)):
                return (
                    "The model is sent nothing of the run chosen (a compaction folded it): "
                    "r shows every line; a, every run."
                )
            return "The run chosen has nothing here: a shows every run."
        if len(every):
            return none_through(len(every), "item")
        if self.mode == "replayed" and len(transcript.raw):
            return "Nothing here is sent to the model (yet): r shows the raw view."
        return None

    def filter_choices(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """What the filter offers: the roles of the file's messages and lines, and the
        kinds of its lines (the usual ones first, in their order), and any it has set."""
        roles: set[str] = set(self.roles or ())
        kinds: set[str] = set(self.kinds or ())
        transcript = self.transcript
        for items in (transcript.messages, transcript.raw):
            if isinstance(items, Items):
                found_roles, found_kinds = items.roles_and_kinds()
            else:
                found_roles = {item.role for item in items}
                found_kinds = {item.kind for item in items}
            roles |= found_roles
            if items is transcript.raw:
                kinds |= found_kinds
        roles.discard("")
        return _ordered(roles, FILTER_ROLES), _ordered(kinds, FILTER_KINDS)

    def set_filter(
        self,
        roles: frozenset[str] | None,
        kinds: frozenset[str] | None,
        offered: tuple[Iterable[str], Iterable[str]] = (FILTER_ROLES, FILTER_KINDS),
    ) -> None:
        """Show only these roles and kinds of those ``offered`` (None: all), keeping the
        cursor on its item (else the first shown at or after its line) and that where it
        was on screen (the view kept its scroll: the cursor was off screen)."""
        self.end_jump()  # (its items are others now)
        row = None if self.follows_end else self.cursor_screen_row()
        self.offered = (frozenset(offered[0]), frozenset(offered[1]))
        self.roles = None if roles is None or roles >= self.offered[0] else roles
        self.kinds = None if kinds is None or kinds >= self.offered[1] else kinds
        self.show(self.transcript, to_end=self.follows_end)
        self.new_count = 0
        if row is not None:
            self.cursor_to_screen_row(row)

    @property
    def filtered(self) -> bool:
        return self.roles is not None or self.kinds is not None


def _ordered(found: set[str], usual: tuple[str, ...]) -> tuple[str, ...]:
    """``found``, the ``usual`` ones first in their order, then the rest by name."""
    return (*(u for u in usual if u in found), *sorted(found.difference(usual)))


__all__ = ["FILTER_KINDS", "FILTER_ROLES", "ItemFilter", "lets_through", "none_through"]
