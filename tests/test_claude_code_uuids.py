"""The packed uuid index of Claude Code's reader (``claude_code/uuids.py``): every uuid
found again, each node's uuid given back as it was written, odd ones kept as they are."""

from __future__ import annotations

import random
import uuid as uuidlib
from array import array

from session_core.formats.claude_code.uuids import ItemIds, UuidColumn, UuidIndex, packed, text_of


def test_many_uuids_found_again_and_given_back() -> None:
    rng = random.Random(5)
    texts = [str(uuidlib.UUID(int=rng.getrandbits(128), version=4)) for _ in range(5000)]
    index = UuidIndex()
    for node, text in enumerate(texts):
        assert index.find(text) == -1
        assert index.append(text) == (node, True)
    for node, text in enumerate(texts):
        assert index.find(text) == node
        assert index.uuid_of(node) == text
    assert index.find(str(uuidlib.UUID(int=rng.getrandbits(128), version=4))) == -1


def test_a_repeated_uuid_keeps_its_first_node() -> None:
    index = UuidIndex()
    a = "0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90"
    assert index.append(a) == (0, True)
    assert index.append("11111111-2222-4333-8444-555555555555") == (1, True)
    assert index.append(a) == (2, False)
    assert index.find(a) == 0
    assert index.uuid_of(2) == a


def test_uuids_of_other_shapes_kept_as_they_are() -> None:
    # Upper case and the lower case of the same digits are two uuids (one text per key
    # is packed); so is anything that is not a UUID at all.
    lower = "0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90"
    odd = [lower.upper(), "u1", "", "é" * 36, "0b7c5f0e 2a7d-4c1e-9f3a-6d2b8e4f1a90", "x" * 36]
    index = UuidIndex()
    assert index.append(lower) == (0, True)
    for node, text in enumerate(odd, start=1):
        assert index.find(text) == -1
        assert index.append(text) == (node, True)
    assert index.append("u1") == (len(odd) + 1, False)
    assert index.find(lower) == 0
    for node, text in enumerate(odd, start=1):
        assert index.find(text) == node
        assert index.uuid_of(node) == text


def test_packed_only_canonical_text() -> None:
    text = "0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90"
    key = packed(text)
    assert key is not None and len(key) == 16 and text_of(key) == text
    for other in (text.upper(), text.replace("-", ""), text[:-1] + "g", "-" + text[1:]):
        assert packed(other) is None


def test_column_names_items_by_their_nodes_uuid() -> None:
    index = UuidIndex()
    index.append("0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90")
    nodes = array("i", [0, -1])
    column = UuidColumn(nodes, index)
    column.append([], 3, role="user")
    column.append([], 7, role="system")
    assert column.id_of(0) == "0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90"
    assert column.id_of(1) == "line-7"


def test_item_ids_read_as_the_list_they_stand_for() -> None:
    index = UuidIndex()
    index.append("0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90")
    column = UuidColumn(array("i", [-1, 0, -1]), index)
    for line in (2, 5, 9):
        column.append([], line, role="user")
    ids = ItemIds(column, [2, 1, 0])
    want = ["line-9", "0b7c5f0e-2a7d-4c1e-9f3a-6d2b8e4f1a90", "line-2"]
    assert len(ids) == 3 and list(ids) == want and ids == want and ids[1] == want[1]
    assert ids[1:] == want[1:] and ids[-1] == "line-2" and "line-9" in ids
    assert ids != want[:2] and repr(ids) == repr(want)
