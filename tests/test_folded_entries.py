"""A compaction's folded ids are kept as its entries' events (read from the lines' ids
when asked for) and its kept ids as the first of the sticky entries' ids: they, and
``folded_by``, say what a plain record of each compaction's head says, however the
entries came (a file's lines, dicts fed, a session's appends, a follow), with an id on
two lines and summaries folded by a later compaction."""

from __future__ import annotations

import contextlib
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import follow_into
from test_compaction_index import envelopes

from session_core import Message, Session
from session_core.errors import TranscriptError
from session_core.live import LiveTranscript
from session_core.reader import replay_file
from session_core.replay import Compaction, Entry, ReplayState

# (compaction id, folded ids, kept ids), in order
Heads = list[tuple[str, list[str], list[str]]]


class Recording(ReplayState):
    """Each compaction's head (the entries through its cut) as plain lists, taken before
    it applies."""

    def __init__(self) -> None:
        super().__init__()
        self.heads: Heads = []

    def _compacted(self, compaction: Compaction, head: list[Entry]) -> None:
        folded, kept = [e[0] for e in head if not e[2]], [e[0] for e in head if e[2]]
        self.heads.append((compaction.id, folded, kept))


def check(state: ReplayState, heads: Heads, others: set[str]) -> None:
    """``state``'s compactions and ``folded_by`` are the ones ``heads`` make (``others``:
    ids to look up besides)."""
    assert [(c.id, list(c.folded), list(c.kept)) for c in state.compactions] == heads
    by: dict[str, str] = {}  # the last compaction that folded each id
    for cid, folded, _kept in heads:
        by.update(dict.fromkeys(folded, cid))
    for c, (_cid, folded, kept) in zip(state.compactions, heads, strict=True):
        for made, plain in ((c.folded, folded), (c.kept, kept)):
            assert made == plain and len(made) == len(plain)
            assert [made[i] for i in range(-len(plain), len(plain))] == plain + plain
            assert made[1:-1] == plain[1:-1] and made[::-2] == plain[::-2]
            with pytest.raises(IndexError):
                made[len(plain)]
    folded_by = state.folded_by
    assert dict(folded_by) == by and list(folded_by) == list(by) and len(folded_by) == len(by)
    for mid in sorted(others | set(by) | {"nope", ""}):
        assert folded_by.get(mid) == by.get(mid) and (mid in folded_by) == (mid in by), mid
        if mid in by:
            assert folded_by[mid] == by[mid]
        else:
            with pytest.raises(KeyError):
                folded_by[mid]
    assert 5 not in folded_by and folded_by.get(None, "x") == "x"  # type: ignore[arg-type]


def uuids(envelope: dict[str, Any], style: str) -> dict[str, Any]:
    """The envelope with its ids (and those it names) as UUIDs: every one (``all``) or
    all but the session-meta's (``mixed``: the lines' ids kept in runs of both kinds)."""

    def new(mid: str) -> str:
        if style == "plain" or (style == "mixed" and mid == "meta"):
            return mid
        return str(uuid.uuid5(uuid.NAMESPACE_OID, mid))

    out = {**envelope, "id": new(envelope["id"]), "payload": dict(envelope["payload"])}
    payload = out["payload"]
    if "replaces-through-id" in payload:
        payload["replaces-through-id"] = new(payload["replaces-through-id"])
    if "items" in payload:
        payload["items"] = [{**item, "id": new(item["id"])} for item in payload["items"]]
    return out


def fed(lines: list[dict[str, Any]], every: int = 0) -> tuple[Recording, list[dict[str, Any]]]:
    """The lines fed as dicts (a refused one changes nothing), looked up in ``folded_by``
    every ``every`` lines (its index made as it goes); the lines applied."""
    state, applied = Recording(), []
    for number, envelope in enumerate(lines, start=1):
        with contextlib.suppress(TranscriptError):
            state.feed(envelope, number)
            applied.append(envelope)
        if every and number % every == 0:  # (its index made now, then grown on)
            by: dict[str, str] = {}
            for cid, folded, _kept in state.heads:
                by.update(dict.fromkeys(folded, cid))
            folded_by = state.folded_by
            assert [folded_by.get(e["id"]) for e in applied] == [by.get(e["id"]) for e in applied]
    return state, applied


def written(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in lines))
    return path


@pytest.mark.parametrize("style", ["plain", "all", "mixed"])
def test_folded_kept_and_folded_by_are_each_compaction_s_head(tmp_path: Path, style: str) -> None:
    """Random replays: messages (some sticky, some on two lines), compactions through any
    live one (some with an id in use), elisions; fed as dicts, looked up as they go, and
    their applied lines replayed from a file and followed."""
    for seed in range(30):
        lines = [uuids(e, style) for e in envelopes(seed)]
        state, applied = fed(lines, every=seed % 7 + 5)
        assert state.compactions, seed
        others = {e["id"] for e in lines}
        check(state, state.heads, others)
        if seed % 3 == 0:
            path = written(tmp_path / f"{style}-{seed}.jsonl", applied)
            check(replay_file(path, tolerate_tail=False), state.heads, others)
            live = LiveTranscript(str(path))
            follow_into(live.apply, path, 1 << 10, False)
            check(live.state, state.heads, others)


def duplicated() -> list[dict[str, Any]]:
    """ "a" on two lines, each copy folded by its own compaction; the first compaction's
    summary folded by the second; sticky "s" kept by both."""

    def message(mid: str, **more: Any) -> dict[str, Any]:
        return {"v": 1, "type": "message", "id": mid, "payload": {"content": mid, **more}}

    def compaction(cid: str, through: str) -> dict[str, Any]:
        payload = {"summary": f"summary {cid}", "replaces-through-id": through}
        return {"v": 1, "type": "compaction", "id": cid, "payload": payload}

    return [
        {"v": 1, "type": "session-meta", "id": "meta", "payload": {}},
        message("s", sticky=True),
        message("a"),
        message("b"),
        compaction("c1", "b"),  # folds the first "a" and "b"; its _index has the first "a"
        message("a"),
        message("x"),
        compaction("c2", "x"),  # folds c1's summary, the second "a" and "x"
        message("y"),
    ]


def test_an_id_on_two_lines_is_folded_by_the_last_compaction(tmp_path: Path) -> None:
    heads: Heads = [("c1", ["a", "b"], ["s"]), ("c2", ["c1", "a", "x"], ["s"])]
    state, applied = fed(duplicated())
    assert applied == duplicated() and state.heads == heads
    path = written(tmp_path / "dup.jsonl", applied)
    for replayed in (state, replay_file(path, tolerate_tail=False)):
        check(replayed, heads, {"s", "y", "meta"})
        assert dict(replayed.folded_by) == {"a": "c2", "b": "c1", "c1": "c2", "x": "c2"}
        assert list(replayed.folded_ids) == ["a", "b", "c1", "a", "x"]
        assert [e[0] for e in replayed.entries] == ["s", "c2", "y"]
        assert len(replayed.entry_events) == len(replayed.entries)


def test_a_session_s_appended_messages_are_folded_and_kept_by_their_ids(tmp_path: Path) -> None:
    """Appended messages are kept as dicts, not lines: a compaction of them says what a
    replay of the file says, before and after a load."""
    path = tmp_path / "appended.jsonl"
    with Session.create(path, meta={"agent": "fold-test"}) as s:
        system = s.append_message(Message(role="system", content="rules", sysprompt=True))
        first = [s.append_message(Message(role="user", content=f"m{n}")) for n in range(5)]
        pinned = s.append_message(Message(role="user", content="pinned", sticky=True))
        c1 = s.append_compaction("one", replaces_through_id=first[-1])
        later = [s.append_message(Message(role="assistant", content=f"r{n}")) for n in range(3)]
        c2 = s.append_compaction("two", replaces_through_id=later[1])
        heads: Heads = [
            (c1, first, [system]),  # (the pinned message comes after the cut)
            (c2, [c1, *later[:2]], [system, pinned]),
        ]
        others = {system, pinned, later[2]}
        check(s.state, heads, others)
        more = s.append_message(Message(role="user", content="after a fold"))
        c3 = s.append_compaction("three", replaces_through_id=more)
        heads.append((c3, [c2, later[2], more], [system, pinned]))
        check(s.state, heads, others)
    check(replay_file(path, tolerate_tail=False), heads, others)
    with Session.load(path) as loaded:
        check(loaded.state, heads, others)
        c4 = loaded.append_compaction("four", replaces_through_id=c3)
        heads.append((c4, [c3], [system, pinned]))
        check(loaded.state, heads, others)
    check(replay_file(path, tolerate_tail=False), heads, others)
