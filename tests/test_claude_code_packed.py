"""What Claude Code's reader keeps packed (uuids in ``packed_ids``, a response's counts as
int64s) reads as it was written, the odd values of a hostile file too: uuids that are
not canonical UUIDs, counts no int64 holds."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text, tool_use, usage
from test_claude_code_variants import FMT, both


def test_counts_past_int64_are_unknown(tmp_path: Path) -> None:
    """A count no int64 holds (which orjson, the dict path's parser, reads as a float
    past 64 bits) is unknown, read typed or as a dict: never a count to add up or price."""
    w = CCWriter()
    w.user("go")
    # Each response over two lines: the first line's output count is 3 (partial).
    w.assistant("m1", [text("a"), text("b")], usage=usage(1 << 70, -5, 7, 0), stop="end_turn")
    w.user("again")
    w.assistant("m2", [text("c"), text("d")], usage=usage(-(1 << 64), 1 << 63, 0, 2))
    t = FMT.open(w.write(tmp_path / "s.jsonl"), writer_alive=False)
    got = [
        (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens)
        for item in t.raw
        if (u := item.usage) is not None
    ]
    # (a negative count is none: unknown, as v1 and Codex read one)
    assert got == [(None, 3, 7, 0), (None, 3, 0, 2)]  # (3: the first line's)
    assert t.usage.input_tokens is None and t.usage.cost is None and t.usage.in_part == 2


def test_uuids_of_other_shapes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Upper-case UUIDs, short ids, the lower case of an upper-case one: each its own
    line, chained by its own text, named by it."""
    w = CCWriter()
    w.user("first")
    w.assistant("m1", [tool_use("t1", "Bash", command="ls")], usage=usage(1, 2))
    w.result("t1", "a.py")
    w.assistant("m2", [text("done")], usage=usage(3, 4), stop="end_turn")
    canonical = "0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90"
    names = [canonical.upper(), "u-1", canonical, "ÜBER-ä"]
    old = [line["uuid"] for line in w.lines]
    rename = dict(zip(old, names, strict=True))
    for line in w.lines:
        line["uuid"] = rename[line["uuid"]]
        if line["parentUuid"] is not None:
            line["parentUuid"] = rename[line["parentUuid"]]
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert [item.id for item in t.raw] == names
    assert [item.id for item in t.messages] == names
    assert [op.state for op in t.tool_operations] == ["completed"]


def test_node_ids_held_aside_read_and_found_as_packed_ids() -> None:
    """The uuids held aside until a batch is packed (``HeldIds``) read, find and say
    "first" as a ``PackedIds("first")`` given the same ids does: across batches, repeats
    within and across them, ids of other shapes, a lookup before and after each add."""
    import random
    import uuid as uuidlib

    from session_core.formats.claude_code.held_ids import HeldIds
    from session_core.packed_ids import BATCH, PackedIds

    rng = random.Random(3)
    ids: list[str] = []
    for n in range(3 * BATCH + 17):
        pick = rng.random()
        if ids and pick < 0.05:
            ids.append(rng.choice(ids))  # a repeat (of a held id, or a packed one)
        elif pick < 0.1:
            ids.append(f"line-{n}-\udcff")
        else:
            ids.append(str(uuidlib.UUID(int=rng.getrandbits(128))))
    held, plain = HeldIds(), PackedIds("first")
    for n, ident in enumerate(ids):
        if n % 3:
            assert held.find(ident) == plain.find(ident)
        assert held.add(ident) == plain.add(ident)
        if n % 500 == 0:
            probe = ids[rng.randrange(n + 1)]
            assert held.find(probe) == plain.find(probe)
            assert held[n] == plain[n] and held[-1] == ident
    assert len(held) == len(plain) == len(ids)
    assert list(held) == ids and held.texts(5, BATCH + 9) == ids[5 : BATCH + 9]
    assert [held.find(i) for i in ids] == [plain.find(i) for i in ids]
    assert held.find("absent") == -1
