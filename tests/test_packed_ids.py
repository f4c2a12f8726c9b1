"""Ids kept packed (``packed_ids.PackedIds``, v1's replay and Claude Code's reader): every
id found again, each node's id given back as it was written, a batch of canonical UUIDs
packed as 16 bytes each and any other id kept as it is."""

from __future__ import annotations

import random
import uuid as uuidlib
from array import array

import pytest

from session_core.column_items import ItemIds
from session_core.node_id_column import NodeIdColumn
from session_core.packed_ids import BATCH, PackedIds, _low_halves, packed, packed_run, text_of


def _uuids(n: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    return [str(uuidlib.UUID(int=rng.getrandbits(128), version=4)) for _ in range(n)]


def test_many_uuids_found_again_and_given_back() -> None:
    texts = _uuids(5000)
    index = PackedIds("first")
    for node, text in enumerate(texts):
        assert index.find(text) == -1
        assert index.add(text) == (node, True)
    for node, text in enumerate(texts):
        assert index.find(text) == node
        assert index[node] == text
    assert index.find(_uuids(1, seed=6)[0]) == -1
    assert len(index._keys) == 16 * len(texts) and not index._text  # packed, not text


def test_a_repeated_id_keeps_its_first_or_its_last_node() -> None:
    a = "0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90"
    first = PackedIds("first")
    assert first.add(a) == (0, True)
    assert first.add("11111111-2222-4333-8444-555555555555") == (1, True)
    assert first.add(a) == (2, False)
    assert first.find(a) == 0 and first[2] == a
    last = PackedIds("last")
    for ident in (a, "op-1", a, "op-1", "op-2"):
        last.append(ident)
    assert last.find(a) == 2 and last.find("op-1") == 3 and last.find("op-2") == 4
    assert last.add(a) == (5, False) and last.find(a) == 5


def test_ids_of_other_shapes_kept_as_they_are() -> None:
    # Upper case and the lower case of the same digits are two ids (one text per key
    # is packed); so is anything that is not a UUID at all.
    lower = "0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90"
    odd = [
        lower.upper(),
        "u1",
        "",
        "é" * 36,
        "0b7c5f0e 2a7d-4c1e-9f3a-6d2b8e4f1a90",
        "x" * 36,
        "\ud800 lone surrogate",
    ]
    index = PackedIds("first")
    assert index.add(lower) == (0, True)
    for node, text in enumerate(odd, start=1):
        assert index.find(text) == -1
        assert index.add(text) == (node, True)
    assert index.add("u1") == (len(odd) + 1, False)
    assert index.find(lower) == 0
    for node, text in enumerate(odd, start=1):
        assert index.find(text) == node
        assert index[node] == text


@pytest.mark.parametrize("keep", ["first", "last", None])
def test_batches_of_uuids_and_of_other_ids_read_back_in_order(keep: str | None) -> None:
    # Appended as a reader appends them (``tail``, packed a batch at a time): runs of
    # UUIDs, a batch with one other id among them (kept as text, all of it), call ids.
    uuids = _uuids(3 * BATCH)
    calls = [f"call_{n:024d}" for n in range(BATCH + 7)]
    mixed = [*uuids[:100], "naïve-id", *uuids[100:200]]
    ids = uuids[: 2 * BATCH] + mixed + calls + uuids[2 * BATCH :] + uuids[:3]
    column = PackedIds(keep)  # type: ignore[arg-type]
    for at, ident in enumerate(ids):
        column.tail.append(ident)
        if at % 1000 == 999:
            column.pack()
    assert len(column) == len(ids)
    assert column == ids and column[-1] == ids[-1] and column[5:9] == ids[5:9]
    assert len(column._firsts) >= 3  # runs of uuids, of text, of uuids again
    if keep is None:
        with pytest.raises(TypeError):
            column.find(ids[0])
        return
    want: dict[str, int] = {}
    for node, ident in enumerate(ids):
        if keep == "last" or ident not in want:
            want[ident] = node
    assert all(column.find(ident) == node for ident, node in want.items())
    assert column.find("call_x") == -1


def test_packed_only_canonical_text() -> None:
    text = "0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90"
    key = packed(text)
    assert key is not None and len(key) == 16 and text_of(key) == text
    for other in (text.upper(), text.replace("-", ""), text[:-1] + "g", "-" + text[1:]):
        assert packed(other) is None
    many = _uuids(50)
    keys = packed_run("".join(many), 50)
    assert keys is not None and [text_of(keys[i : i + 16]) for i in range(0, 800, 16)] == many
    for bad in (text.upper(), text[:-1] + " ", text[:8] + "x" + text[9:], "é" * 36):
        assert packed_run("".join([*many[:20], bad, *many[20:]]), 51) is None
    # A hyphen moved within one id: the count of hyphens is right, their places are not.
    moved = many[0][:7] + "-" + many[0][7] + many[0][9:]
    assert packed_run(moved + many[1], 2) is None


def test_column_names_items_by_their_nodes_uuid() -> None:
    index = PackedIds("first")
    index.add("0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90")
    nodes = array("i", [0, -1])
    column = NodeIdColumn(nodes, index, "line-")
    column.append([], 3, role="user")
    column.append([], 7, role="system")
    assert column.id_of(0) == "0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90"
    assert column.id_of(1) == "line-7"


def test_item_ids_read_as_the_list_they_stand_for() -> None:
    index = PackedIds("first")
    index.add("0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90")
    column = NodeIdColumn(array("i", [-1, 0, -1]), index, "line-")
    for line in (2, 5, 9):
        column.append([], line, role="user")
    ids = ItemIds(column, [2, 1, 0])
    want = ["line-9", "0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90", "line-2"]
    assert len(ids) == 3 and list(ids) == want and ids == want and ids[1] == want[1]
    assert ids[1:] == want[1:] and ids[-1] == "line-2" and "line-9" in ids
    assert ids != want[:2] and repr(ids) == repr(want)


def test_texts_made_a_run_at_a_time_are_the_ids() -> None:
    uuids = _uuids(300)
    ids = [*uuids[:100], "odd one", *uuids[100:]]
    column = PackedIds()
    column.extend(uuids[:100])
    column.pack()
    column.extend(ids[100:])
    assert column.texts(0, len(ids)) == ids and column.texts(95, 110) == ids[95:110]
    assert column.texts(7, 7) == [] and list(column) == ids


class _Colliding(str):
    """An id whose hash is every other's: found by probing past them."""

    def __hash__(self) -> int:
        return 7


def test_call_ids_added_one_at_a_time_found_as_a_dict_finds_them() -> None:
    # (Claude Code's call ids and response keys: looked up, then added when not found)
    rng = random.Random(5)
    ids = PackedIds("first")
    numbers: dict[str, int] = {}
    for n in range(20_000):  # (the table grows many times)
        key = f"toolu_{rng.getrandbits(64):x}" if n % 3 else f"ключ-{n}-\udcff"
        if key in numbers:
            continue
        assert ids.find(key) == -1
        numbers[key] = ids.add(key)[0]
    assert len(ids) == len(numbers)
    for key, number in numbers.items():
        assert ids.find(key) == number and ids[number] == key
    assert ids.find("toolu_") == -1 and ids.find("") == -1


def test_ids_with_one_hash_are_told_apart() -> None:
    ids = PackedIds("first")
    keys = [_Colliding(f"k{n}") for n in range(40)]
    for n, key in enumerate(keys):
        assert ids.add(key) == (n, True)
    assert [ids.find(key) for key in keys] == list(range(40))
    assert ids.find(_Colliding("k40")) == -1
    assert ids[39] == "k39" and ids[0] == "k0"


def test_hashes_kept_as_their_low_32_bits() -> None:
    # (a batch's are cut at C speed from the int64s' memory: the same as one at a time)
    rng = random.Random(9)
    values = [rng.getrandbits(64) - (1 << 63) for _ in range(1000)] + [-1, 0, 1 << 31]
    low = [((h + (1 << 31)) & ((1 << 32) - 1)) - (1 << 31) for h in values]
    assert list(_low_halves(array("q", values))) == low
    ids = PackedIds("first")
    batch = _uuids(BATCH + 5)
    ids.extend(batch)  # (packed as a batch)
    ids.add("toolu_one")  # (one at a time)
    assert ids.find("toolu_one") == len(batch)
    assert [ids.find(u) for u in batch[::97]] == list(range(0, len(batch), 97))
