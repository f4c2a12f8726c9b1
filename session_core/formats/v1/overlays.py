"""transcript-v1's compactions and elisions in the neutral model: the overlays a snapshot
indexes (``Overlays``: an elision made only when read), and a compaction line's parts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...indexed import Indexed
from ...item_heights import FOLD_PARTS
from ...model import Compaction, Part
from ...overlay_said import OverlayCounts
from ...text import WRITTEN_NULL, count, count_text

if TYPE_CHECKING:
    from ...elisions import Elisions
    from ...replay import Compaction as ReplayCompaction
    from ...replay import Elision, ReplayState


def compactions_of(state: ReplayState, lines: dict[str, int] | None = None) -> list[Compaction]:
    """A v1 replay's compactions, then its elisions, in the neutral model (at their
    ``lines``, where given: compaction and elision id -> line)."""
    at = lines or {}
    return [made_compaction(c, at) for c in state.compactions] + [
        made_elision(e, at) for e in state.elisions
    ]


def replay_counts(state: ReplayState) -> OverlayCounts:
    """A v1 replay's compactions and elision lines, and the messages those stubbed (each
    once): what ``check``, ``diff``, the export and the header count (``Overlays``)."""
    elisions = state.elisions
    return OverlayCounts(len(state.compactions), elisions.line_count, stubbed=len(elisions.mids))


class Overlays(Indexed[Compaction]):
    """A snapshot's compactions (made), then its first ``n`` elisions, each made from
    the replay's record when indexed (one a message stubbed: ``counted`` says the
    elision lines and the messages they stubbed, as the replay had them: ``counts``,
    its ``replay_counts``, so that the header counts as ``check``, ``diff`` and the
    export do, from one expression)."""

    __slots__ = ("_counts", "_elisions", "_lines", "_made", "_n")

    def __init__(
        self,
        made: list[Compaction],
        elisions: Elisions,
        n: int,
        lines: dict[str, int],
        counts: OverlayCounts,
    ) -> None:
        self._made, self._elisions, self._n, self._lines = list(made), elisions, n, lines
        self._counts = counts

    def __len__(self) -> int:
        return len(self._made) + self._n

    def kind_counts(self) -> tuple[int, int]:
        """How many compactions and elisions, none of them made."""
        return len(self._made), self._n

    def counted(self) -> OverlayCounts:
        """The compactions, the elision lines and the messages they stubbed (each once)."""
        return self._counts

    def _one(self, index: int) -> Compaction:
        made = self._made
        if index < len(made):
            return made[index]
        return made_elision(self._elisions[index - len(made)], self._lines)


def made_compaction(c: ReplayCompaction, at: dict[str, int]) -> Compaction:
    return Compaction(
        id=c.id,
        kind="compaction",
        line=at.get(c.id, c.line),
        summary=c.summary,
        folded=c.folded,  # (a compaction's lists are not changed once it is applied)
        kept=c.kept,
        # (a written null, said ``null`` by the rows, is no count to the model: None)
        tokens_before=None if c.tokens_before is WRITTEN_NULL else c.tokens_before,
        tokens_after=None if c.tokens_after is WRITTEN_NULL else c.tokens_after,
        ts=c.ts,
    )


def made_elision(e: Elision, at: dict[str, int]) -> Compaction:
    return Compaction(
        id=e.elision_id,
        kind="elision",
        line=at.get(e.elision_id, e.elision_line),
        summary=e.stub,
        folded=[e.message_id],
    )


def compaction_parts(record: ReplayCompaction | None, lines: dict[str, int]) -> list[Part]:
    """A compaction line's item: what it folded, tokens before and after, its summary."""
    if record is None:
        return [Part("other", "not applied", name="compaction")]
    before, after = count_text(record.tokens_before), count_text(record.tokens_after)
    what = (
        f"folded {count(len(record.folded), 'message')} (kept {len(record.kept)} sticky)"
        f" · tokens {before} → {after} · fallback {'yes' if record.fallback else 'no'}"
    )
    return [Part("other", what, name="compaction"), Part("text", record.summary)]


def elision_parts(elisions: Sequence[Elision], taken: int, end: int) -> list[Part]:
    """An elision line's item: each message it stubbed (its line) and the stub, of its
    records ``elisions[taken:end]``, the first ``FOLD_PARTS`` of them (and how many more)."""
    parts = []
    for record in elisions[taken : min(end, taken + FOLD_PARTS)]:
        at = record.line
        where = f"line {at:,}" if at is not None else record.message_id[:8]
        parts.append(Part("other", f"{where} → {record.stub}", name="✂ stubbed"))
    if end - taken > FOLD_PARTS:
        parts.append(Part("other", count(end - taken - FOLD_PARTS, "more message"), name="✂"))
    return parts or [Part("other", "nothing", name="✂ stubbed")]
