"""A compaction moves the live tail as one (``ReplayState._shift``) instead of indexing
every live message again: the same replay as re-indexing everything, and linear."""

from __future__ import annotations

import contextlib
import random
from typing import Any

from session_core.errors import TranscriptError
from session_core.replay import Compaction, Entry, ReplayState


class ReindexingReplay(ReplayState):
    """The plain way: after a compaction, every live entry is indexed again."""

    def _compacted(self, compaction: Compaction, head: list[Entry]) -> None:
        self._index.clear()
        self._shift = 0
        for position, entry in enumerate(self.entries):
            self._index[entry[0]] = position


def envelopes(seed: int) -> list[dict[str, Any]]:
    """Messages (some sticky, some lines twice, as a damaged file has them), compactions
    through any live message, elisions of any."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = [{"v": 1, "type": "session-meta", "id": "meta", "payload": {}}]
    ids: list[str] = []
    for n in range(400):
        roll = rng.random()
        if roll < 0.6 or not ids:
            payload: dict[str, Any] = {"role": "user", "content": f"m{n}"}
            if rng.random() < 0.1:
                payload["sticky"] = True
            mid = rng.choice(ids) if ids and rng.random() < 0.08 else f"m{n}"  # a repeat
            ids.append(mid)
            out.append({"v": 1, "type": "message", "id": mid, "payload": payload})
        elif roll < 0.8:
            through = rng.choice(ids)
            out.append(
                {
                    "v": 1,
                    "type": "compaction",
                    "id": rng.choice([f"c{n}", *ids[-3:]]),  # sometimes an id in use
                    "payload": {"summary": f"s{n}", "replaces-through-id": through},
                }
            )
        else:
            items = [{"id": rng.choice(ids), "stub": f"[{n}]"} for _ in range(rng.randint(1, 3))]
            out.append({"v": 1, "type": "elision", "id": f"e{n}", "payload": {"items": items}})
    return out


def replayed(state: ReplayState, seed: int) -> ReplayState:
    for number, envelope in enumerate(envelopes(seed), start=1):
        with contextlib.suppress(TranscriptError):  # refused: changes nothing
            state.feed(envelope, number)
    return state


def picture(state: ReplayState) -> tuple[Any, ...]:
    entries: list[Entry] = state.entries
    ids = {entry[0] for entry in entries} | set(state.folded_by) | {"nope"}
    return (
        [(entry[0], entry[2], entry[3]) for entry in entries],
        {mid: state.sent_position(mid) for mid in ids},
        {mid: state.live_entry(mid) for mid in ids},
        {mid: state.is_live(mid) for mid in ids},
        dict(state.folded_by),
        [(c.id, c.kept, c.folded) for c in state.compactions],
        [(e.message_id, e.stub) for e in state.elisions],
        state.warnings,
    )


def test_a_moved_tail_replays_as_indexing_everything_again() -> None:
    for seed in range(40):
        moved = replayed(ReplayState(), seed)
        plain = replayed(ReindexingReplay(), seed)
        assert picture(moved) == picture(plain), seed
        assert moved.compactions, seed


def test_a_compaction_leaves_the_tail_index_alone() -> None:
    """Its cost is what it folds, not what stays live: the tail's index entries are not
    written (only _shift changes), however long the tail."""
    state = ReplayState()
    state.feed({"v": 1, "type": "session-meta", "id": "meta", "payload": {}})
    for n in range(5_000):
        state.feed({"v": 1, "type": "message", "id": f"m{n}", "payload": {"content": "x"}})
    tail = {f"m{n}": state._index[f"m{n}"] for n in range(10, 5_000)}
    for n in range(2):
        state.feed(
            {
                "v": 1,
                "type": "compaction",
                "id": f"c{n}",
                "payload": {"summary": "s", "replaces-through-id": f"m{5 * n + 4}"},
            }
        )
    assert {mid: state._index[mid] for mid in tail} == tail
    # Ten messages and the first summary folded, the second summary in their place.
    assert state._shift == -10 + 1
    assert [e[0] for e in state.entries[:2]] == ["c1", "m10"]
    assert state.live_entry("m4999") == state.entries[-1] and not state.is_live("m3")


class Observing(ReplayState):
    """What ``_compacted`` is shown: each compaction once it is applied, with its head."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, list[str]]] = []

    def _compacted(self, compaction: Compaction, head: list[Entry]) -> None:
        assert self.compactions[-1] is compaction  # (applied: its record in place)
        assert self.entries[0][0] in (compaction.id, *self.sticky_ids)  # (the head replaced)
        self.seen.append((compaction.id, [entry[0] for entry in head]))


def test_a_subclass_observes_each_compaction_by_its_hook() -> None:
    """Once per compaction applied (a refused one is not), after it: the subclasses of
    these tests observe it so, not by ``_compact``'s signature (a change of it, the line's
    raw bytes, broke them all, CI on c996dfec)."""
    for seed in range(10):
        state = replayed(Observing(), seed)
        assert [cid for cid, _head in state.seen] == [c.id for c in state.compactions], seed
        for (_cid, head), compaction in zip(state.seen, state.compactions, strict=True):
            assert len(head) == len(compaction.folded) + len(compaction.kept), seed
