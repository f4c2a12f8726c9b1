"""Where the replayed view's user turns begin, as Codex itself counts them, and the two
rewrites that count them: a ``thread_rolled_back`` event (the newest N user turns
dropped) and a ``compacted`` line without a ``replacement_history`` (older writers: the
user messages kept within a token budget, then the summary).

A user turn begins at a user message a person sent: not one of the messages Codex
injects as context (its tagged fragments, a project's AGENTS.md), which it recognises by
their start and end markers (codex-rs ``context`` module). Before the cut, the context
updates injected for the dropped turn (contextual developer and user messages right
above it) go with it, but never those before the first turn.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence

from ...indexed import Indexed
from ...model import Item
from ...parts import Part

# (start, end) of the fragments Codex injects as user messages; matched ignoring case,
# after leading (and, for the end, trailing) whitespace.
CONTEXTUAL_USER_MARKERS = (
    ("# AGENTS.md instructions for ", "</INSTRUCTIONS>"),
    ("<user_instructions>", "</user_instructions>"),
    ("<agents_instructions>", "</agents_instructions>"),
    ("<environment_context>", "</environment_context>"),
    ("<multiagent_context>", "</multiagent_context>"),
    ("<skill>", "</skill>"),
    ("<user_shell_command>", "</user_shell_command>"),
    ("<turn_aborted>", "</turn_aborted>"),
    ("<subagent_notification>", "</subagent_notification>"),
    ("<goal_context>", "</goal_context>"),
    ("<hook_prompt", "</hook_prompt>"),
)
# How the developer messages Codex injects per turn begin.
CONTEXTUAL_DEVELOPER_PREFIXES = (
    "<permissions instructions>",
    "<model_switch>",
    "<collaboration_mode>",
    "<realtime_conversation>",
    "<personality_spec>",
    "<token_budget>",
)
# Older writers' compaction keeps this much of the user messages (codex-rs
# ``COMPACT_USER_MESSAGE_MAX_TOKENS``), a token taken as four bytes of text.
USER_MESSAGE_BUDGET = 20_000

Entry = int | Item  # a raw item's index, or an item of the view's own


class View(Indexed[Entry]):
    """The replayed view's entries (what its rewrites read, a sequence of them), packed:
    raw indexes in an array (8 bytes each, not an int object), an item of its own kept
    in ``own`` and coded as ``-1 -`` its place there (as ``Items`` reads them)."""

    __slots__ = ("codes", "own")

    def __init__(self, codes: array[int] | None = None, own: list[Item] | None = None) -> None:
        self.codes = array("q") if codes is None else codes
        self.own: list[Item] = [] if own is None else own

    @classmethod
    def of(cls, entries: Iterable[Entry]) -> View:
        view = cls()
        for entry in entries:
            view.append(entry)
        return view

    def __len__(self) -> int:
        return len(self.codes)

    def _one(self, index: int) -> Entry:
        code = self.codes[index]
        return self.own[-1 - code] if code < 0 else code

    def __iter__(self) -> Iterator[Entry]:
        # (a compaction reads the whole view: at C speed when it has no items of its own)
        own = self.own
        if not own:
            return iter(self.codes)
        return (own[-1 - code] if code < 0 else code for code in self.codes)

    def append(self, entry: Entry) -> None:
        if isinstance(entry, Item):
            self.codes.append(-1 - len(self.own))
            self.own.append(entry)
        else:
            self.codes.append(entry)

    def head(self, stop: int) -> View:
        """Its first ``stop`` entries (its own items shared: they are only appended to)."""
        return View(self.codes[:stop], self.own)


class Shape:
    """How to read an entry of the view: its role (cheap), its parts (a raw item's are
    read again from its line, so only a user or developer message's are asked for)."""

    __slots__ = ("parts", "role")

    def __init__(self, role: Callable[[Entry], str], parts: Callable[[Entry], list[Part]]) -> None:
        self.role = role
        self.parts = parts


def _fold(text: str) -> str:
    return text.strip().lower()


def contextual_user(text: str) -> bool:
    folded = _fold(text)
    return any(
        folded.startswith(start.lower()) and folded.endswith(end.lower())
        for start, end in CONTEXTUAL_USER_MARKERS
    )


def contextual_developer(text: str) -> bool:
    folded = text.lstrip().lower()
    return folded.startswith(CONTEXTUAL_DEVELOPER_PREFIXES)


def _texts(parts: list[Part]) -> list[str]:
    return [p.text for p in parts if p.kind == "text"]


def starts_turn(role: str, parts: list[Part]) -> bool:
    """A user message a person sent (no part of it one Codex injects)."""
    return role == "user" and not any(contextual_user(t) for t in _texts(parts))


def _starts(entry: Entry, shape: Shape) -> bool:
    return shape.role(entry) == "user" and starts_turn("user", shape.parts(entry))


def _context_update(entry: Entry, shape: Shape) -> bool:
    role = shape.role(entry)
    if role == "developer":
        return any(contextual_developer(t) for t in _texts(shape.parts(entry)))
    return role == "user" and any(contextual_user(t) for t in _texts(shape.parts(entry)))


def first_turn(view: Sequence[Entry], shape: Shape) -> int:
    """Where the first user turn begins (``len(view)``: none does); what comes before it
    is the session's prefix, its initial context."""
    return next((p for p, entry in enumerate(view) if _starts(entry, shape)), len(view))


def rollback_cut(view: Sequence[Entry], shape: Shape, turns: int) -> int:
    """Where the view ends once its newest ``turns`` user turns are dropped (``len(view)``
    when there are none to drop). Read from the end back, only as far as the turn before
    the cut (a long view's older messages are not read again)."""
    if turns <= 0:
        return len(view)
    found = 0
    cut = len(view)
    position = len(view) - 1
    while position >= 0 and found < turns:
        if _starts(view[position], shape):
            found += 1
            cut = position
        position -= 1
    if not found:
        return len(view)
    # The context injected for the first dropped turn goes with it, unless no turn comes
    # before it: what precedes the first turn is the session's prefix, never dropped.
    above = cut
    while above > 0 and _context_update(view[above - 1], shape):
        above -= 1
    if any(_starts(view[p], shape) for p in range(above - 1, -1, -1)):
        return above
    return cut


def kept_user_messages(
    view: Sequence[Entry], shape: Shape, start: int = 0, budget: int = USER_MESSAGE_BUDGET
) -> tuple[list[int], int | None, int]:
    """What an older compaction keeps of the user messages from ``start`` on: the
    positions of those kept whole (oldest first), the position of the one cut to fit (or
    None) and how many bytes of it fit. Newest first until ``budget`` tokens are spent,
    as Codex chooses them."""
    remaining = budget * 4
    kept: list[int] = []
    cut: int | None = None
    for position in range(len(view) - 1, start - 1, -1):
        if remaining <= 0:
            break
        entry = view[position]
        if shape.role(entry) != "user":
            continue
        parts = shape.parts(entry)
        if not starts_turn("user", parts):
            continue
        size = sum(len(t.encode("utf-8", "surrogatepass")) for t in _texts(parts))
        if size > remaining:
            cut = position
            break
        kept.append(position)
        remaining -= size
    kept.reverse()
    return kept, cut, remaining


__all__ = [
    "CONTEXTUAL_DEVELOPER_PREFIXES",
    "CONTEXTUAL_USER_MARKERS",
    "USER_MESSAGE_BUDGET",
    "Entry",
    "Shape",
    "View",
    "contextual_developer",
    "contextual_user",
    "first_turn",
    "kept_user_messages",
    "rollback_cut",
    "starts_turn",
]
