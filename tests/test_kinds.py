"""Events' types kept as a byte each (``events.Kinds``): read back as the list they stand for."""

from __future__ import annotations

import pytest

from session_core.events import Kinds


def test_kinds_read_as_the_list_appended() -> None:
    kinds = Kinds()
    appended = ["session-meta", "message", "message", "tool-dispatched", "x-note", "message"]
    for kind in appended:
        kinds.append(kind)
    assert list(kinds) == appended
    assert kinds == appended
    assert kinds[1] == "message" and kinds[-1] == "message" and kinds[4] == "x-note"
    assert kinds[2:4] == ["message", "tool-dispatched"]
    assert len(kinds.codes) == len(appended)  # a byte each
    assert kinds.index("message", 3) == 5
    assert kinds.index("message", 0, 2) == 1
    with pytest.raises(ValueError):
        kinds.index("message", 3, 5)
    with pytest.raises(ValueError):
        kinds.index("compaction")
    assert kinds.known("compaction") == -1
    assert kinds.known("x-note") == kinds.codes[4]
    with pytest.raises(IndexError):
        kinds[6]


def test_kinds_past_255_types_are_kept_by_index() -> None:
    kinds = Kinds()
    appended = [f"x-{n}" for n in range(300)] + ["x-3", "x-280", "x-299"]
    for kind in appended:
        kinds.append(kind)
    assert list(kinds) == appended
    assert kinds[280] == "x-280" and kinds[-2] == "x-280"
    assert kinds.index("x-299") == 299
    assert kinds.index("x-280", 281) == len(appended) - 2
    assert kinds.index("x-3", 4) == 300
