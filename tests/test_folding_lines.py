"""The raw view's "folded by the compaction at line N" (``FoldingLines``): kept from one
snapshot to the next, only new compactions read, and always what reading every one of
them afresh gives (made afresh, it cost a 1 GB file's UI thread 0.3-0.7 s a snapshot)."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from helpers import follow_into
from test_model_diff import files

from session_core.formats import by_name
from session_core.model import Compaction
from viewer.widgets.folding_lines import FoldingLines


def afresh(compactions: Sequence[Compaction]) -> dict[str, int]:
    """The rule as it was written: every compaction's ids, the last compaction's line
    winning (one not from a line, 0, never overrides a line); no elision's (a stub's
    own ``elided`` mark says it, ``dropped_afresh`` a projection's drops)."""
    out: dict[str, int] = {}
    for compaction in compactions:
        if compaction.kind == "compaction":
            for ident in compaction.folded:
                out[ident] = compaction.line or out.get(ident, 0)
    return out


def dropped_afresh(compactions: Sequence[Compaction]) -> dict[str, int]:
    """Each id an elision dropped (an agentgo projection's), the last one's line winning."""
    return {
        ident: compaction.line
        for compaction in compactions
        if compaction.kind == "elision"
        for ident in compaction.dropped
    }


def followed(name: str, path: Path) -> int:
    """Follows the file in small batches, holding each snapshot's map to one made afresh;
    how many snapshots had compactions."""
    fmt = by_name(name)
    live = fmt.live(str(path))
    kept = FoldingLines()
    checked = 0

    def apply(update: Any) -> None:
        nonlocal checked
        live.apply(update)
        compactions = live.transcript(writer_alive=True).compactions
        assert kept.update(compactions) == afresh(compactions), (name, update.lines[-1:])
        assert kept.dropped == dropped_afresh(compactions), (name, update.lines[-1:])
        checked += bool(compactions)

    follow_into(apply, path, 300, fmt.parsed_updates)
    return checked


def test_every_snapshot_of_a_followed_file_is_read_afresh(tmp_path: Path) -> None:
    checked, folding = 0, set()
    for name, path in files(tmp_path):
        checked += followed(name, path)
        if afresh(by_name(name).open(str(path)).compactions):
            folding.add(name)
    assert folding == {"agentgo-v1", "claude-code", "codex", "transcript-v1"} and checked > 20


class Counted(Sequence[Compaction]):
    """Compactions whose folded ids count how often they are read."""

    def __init__(self, compactions: list[Compaction]) -> None:
        self.items = compactions
        self.read: list[int] = [0] * len(compactions)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index: Any) -> Any:
        compaction = self.items[index]
        at = index if index >= 0 else len(self.items) + index
        seen = self

        class Ids(Sequence[str]):
            """Ids whose every reading is counted (a compaction's folded, an elision's
            dropped: what each is read for)."""

            def __init__(self, ids: Sequence[str]) -> None:
                self.ids = ids

            def __len__(self) -> int:
                return len(self.ids)

            def __getitem__(self, i: Any) -> Any:
                return self.ids[i]

            def __iter__(self) -> Iterator[str]:
                seen.read[at] += 1
                return iter(self.ids)

        return Compaction(
            id=compaction.id,
            kind=compaction.kind,
            line=compaction.line,
            folded=Ids(compaction.folded),
            dropped=Ids(compaction.dropped),
        )


def made(n: int, *, first: int = 0) -> list[Compaction]:
    return [
        Compaction(id=f"c{i}", kind="compaction", line=10 * (i + 1), folded=[f"m{i}", f"n{i}"])
        for i in range(first, first + n)
    ]


def test_only_the_new_compactions_are_read() -> None:
    kept = FoldingLines()
    first = Counted(made(3))
    kept.update(first)
    assert first.read == [1, 1, 1]
    grown = Counted(made(5))
    assert kept.update(grown) == afresh(made(5))
    assert grown.read == [0, 0, 0, 1, 1]


@pytest.mark.parametrize(
    "then",
    [
        made(2),  # fewer
        made(3, first=1),  # as many, another last one
        [*made(2), Compaction(id="c2", kind="compaction", line=30, folded=["m2", "x"]), *made(1)],
    ],
    ids=["fewer", "another-last", "same-last-but-ids"],
)
def test_a_changed_past_is_read_again(then: list[Compaction]) -> None:
    kept = FoldingLines()
    kept.update(made(3))
    assert kept.update(then) == afresh(then)


def test_the_raw_view_keeps_it_across_snapshots(tmp_path: Path) -> None:
    """ItemsView reads only the new compactions of a snapshot, and starts again for
    another file."""
    from viewer.widgets.items_view import ItemsView

    name, path = files(tmp_path)[0]
    whole = by_name(name).open(str(path))
    view = ItemsView()
    view.mode = "raw"
    view.reload = lambda **_: None  # type: ignore[method-assign]  # (not mounted: no screen)
    expected = afresh(whole.compactions)
    compactions = Counted(list(whole.compactions))
    whole.compactions = compactions  # type: ignore[assignment]
    view.show(whole)
    assert view.folded_by == expected
    view.show(whole)
    assert compactions.read == [1] * len(compactions)
    other = whole.__class__(format=whole.format, path=str(path) + ".other")
    other.compactions = compactions  # type: ignore[assignment]
    view.show(other)
    assert compactions.read == [2] * len(compactions)


class Overlaid(Counted):
    """v1's layout: its compactions, then its elisions (``kind_counts``)."""

    def __init__(self, compactions: list[Compaction], elisions: list[Compaction]) -> None:
        super().__init__(compactions + elisions)
        self.made = len(compactions)

    def kind_counts(self) -> tuple[int, int]:
        return self.made, len(self.items) - self.made


def elisions(n: int) -> list[Compaction]:
    # (each stubs a message a compaction folds too, or one of its own)
    return [
        Compaction(
            id=f"e{i}", kind="elision", line=5 + 10 * i, folded=[f"m{i}" if i % 2 else f"s{i}"]
        )
        for i in range(n)
    ]


def test_compactions_then_elisions_each_only_grow() -> None:
    """A new compaction comes before the elisions: only it is read, and the map is
    what reading every one afresh gives."""
    kept = FoldingLines()
    kept.update(Overlaid(made(2), elisions(2)))
    grown = Overlaid(made(3), elisions(4))
    assert kept.update(grown) == afresh(made(3) + elisions(4))
    assert grown.read == [0, 0, 1, 0, 0, 1, 1]
    fewer = Overlaid(made(1), elisions(4))
    assert kept.update(fewer) == afresh(made(1) + elisions(4))


def test_what_a_projection_dropped_is_its_line_apart() -> None:
    """An id a projection dropped or stubbed is not folded (a later request may hold it
    again: the raw view then showed it ``[folded]``, sent): ``dropped`` names the line
    of the last projection that dropped it; a compaction that folds it after has its own."""
    overlays = [
        Compaction(id="p1", kind="elision", line=9, folded=["a", "b"], dropped=["a"]),
        Compaction(id="p2", kind="elision", line=14, folded=["a"], dropped=["a"]),
        Compaction(id="p3", kind="elision", line=20, folded=["c"], dropped=["c"]),
        Compaction(id="c1", kind="compaction", line=30, folded=["c"]),
    ]
    kept = FoldingLines()
    assert kept.update(overlays) == afresh(overlays) == {"c": 30}
    assert kept.dropped == dropped_afresh(overlays) == {"a": 14, "c": 20}
