"""``KeyIndex``: packed strings and their numbers, found as a dict finds them."""

from __future__ import annotations

import random

from session_core.key_index import KeyIndex


class _Colliding(str):
    """A key whose hash is every other's: found by probing past them."""

    def __hash__(self) -> int:
        return 7


def test_finds_what_a_dict_finds() -> None:
    rng = random.Random(5)
    index = KeyIndex()
    numbers: dict[str, int] = {}
    for n in range(20_000):  # (the table grows many times)
        key = f"toolu_{rng.getrandbits(64):x}" if n % 3 else f"ключ-{n}-\udcff"
        if key in numbers:
            continue
        assert index.find(key) == -1
        numbers[key] = index.add(key)
    assert len(index) == len(numbers)
    for key, number in numbers.items():
        assert index.find(key) == number and index.key(number) == key
    assert index.find("toolu_") == -1 and index.find("") == -1


def test_keys_with_one_hash_are_told_apart() -> None:
    index = KeyIndex()
    keys = [_Colliding(f"k{n}") for n in range(40)]
    for n, key in enumerate(keys):
        assert index.add(key) == n
    assert [index.find(key) for key in keys] == list(range(40))
    assert index.find(_Colliding("k40")) == -1
    assert index.key(39) == "k39" and index.key(0) == "k0"
