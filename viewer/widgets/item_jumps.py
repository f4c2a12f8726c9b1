"""The conversation's jumps (``t``/``e``/``x``): what each stops at, and a jump still
looking, which asks its items a stretch at a time with the screen drawn between (an item
is made to be asked, about 32 µs: a jump with nothing ahead in a 1 GB raw view held the
screen 5.8 s)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from session_core.model import Item, ToolOp
from session_core.tool_ops import state_tone
from session_core.vocabulary import Kinds

from .block_view import BlockView
from .line_list import jump_failed, jump_label

JUMP_STEP = 2_000  # items a jump asks before the screen is drawn again (~60 ms at 1 GB)


def is_what(what: str, item: Item, ops: Mapping[str, ToolOp], kinds: Kinds) -> bool:
    """Is ``item`` a compaction, a call (or its result), or an error (a failed result, a
    call whose operation went wrong)? ``kinds``: its format's (``vocabulary.kinds_of``)."""
    if what == "compaction":
        return item.kind in kinds.compaction
    if what == "call":
        return any(p.kind in ("tool-call", "tool-result") for p in item.parts)
    if item.kind in kinds.error:
        return True
    for part in item.parts:
        if part.kind == "tool-result" and part.is_error:
            return True
        if part.kind == "tool-call":
            op = ops.get(part.call_id or "")
            if op is not None and state_tone(op.state) in ("bad", "warn"):
                return True
    return False


class ItemJumps(BlockView):
    """A view of items that jumps: ``items``, ``ops`` and the kinds of their format
    (``kind_words``) are the subclass's, and so is what it tells the user (``say``)."""

    items: Sequence[Item]
    ops: Mapping[str, ToolOp]
    kind_words: Kinds

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._jump: tuple[str, int, int, int] | None = None  # (what, ±1, where, steps)

    def say(self, text: str) -> None:
        raise NotImplementedError

    def _is(self, what: str, item: Item) -> bool:
        return is_what(what, item, self.ops, self.kind_words)

    def action_jump(self, what: str, direction: int) -> None:
        """The cursor to the next (or previous) call, error or compaction."""
        start = self.cursor if self.cursor >= 0 else (-1 if direction > 0 else len(self.items))
        self._jump = (what, direction, start + direction, 0)  # (a new jump ends the last)
        self._jump_step()

    def end_jump(self) -> None:
        """A jump still looking ends (the user moved, the items are others)."""
        self._jump = None

    def _jump_step(self) -> None:
        job = self._jump
        if job is None:
            return
        what, direction, index, steps = job
        items = self.items  # (a snapshot since: the same items, more of them, follow on)
        count = len(items)
        for _ in range(JUMP_STEP):
            if not 0 <= index < count:
                self._jump = None
                on_one = 0 <= self.cursor < count and self._is(what, items[self.cursor])
                self.say(jump_failed(what, direction, on_one))
                return
            if self._is(what, items[index]):
                self.jump_to(index)  # (which ends the jump)
                return
            index += direction
        self._jump = (what, direction, index, steps + 1)
        if steps == 0:
            way = "next" if direction > 0 else "previous"
            self.say(f"Looking for the {way} {jump_label(what)}…")
        self.set_timer(0.001, self._jump_step)  # (after the screen's other events)

    def move_to(self, index: int) -> None:
        self._jump = None  # (the user moved meanwhile: a jump still looking ends)
        super().move_to(index)

    def action_page(self, direction: int) -> None:
        self._jump = None
        super().action_page(direction)


__all__ = ["JUMP_STEP", "ItemJumps", "is_what"]
