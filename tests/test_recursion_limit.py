"""A value as deep as orjson reads (1,024 levels) is past Python's default recursion
limit (1,000): importing ``session_core`` raises the limit, never lowers it, so that a
program using the library can read, copy and show such values."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

from session_core import Session
from session_core.indexing import RECURSION_LIMIT


def _limit_after_import(before: int) -> int:
    script = (
        f"import sys; sys.setrecursionlimit({before}); import session_core; "
        "print(sys.getrecursionlimit())"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True)
    return int(done.stdout)


def test_importing_the_library_raises_the_limit_and_never_lowers_it() -> None:
    assert _limit_after_import(1000) == RECURSION_LIMIT
    assert _limit_after_import(RECURSION_LIMIT * 2) == RECURSION_LIMIT * 2


def _nested(depth: int) -> list[object]:
    value: list[object] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_the_session_api_copies_values_nested_as_deep_as_orjson_reads(tmp_path: Path) -> None:
    """``Session``'s getters return deep copies (``copy.deepcopy``: two frames a level);
    a dispatch's arguments and a custom event nested 1,000 deep (written by another
    writer: orjson writes 254 levels) come back whole."""
    path = tmp_path / "deep.jsonl"
    with Session.create(path, meta={"agent": "t"}):
        pass
    deep = "[" * 1000 + "]" * 1000
    op = str(uuid.uuid4())
    lines = [
        f'{{"id":"{op}","type":"tool-dispatched","v":1,"ts":"2026-01-01T00:00:00Z",'
        '"payload":{"call-id":"c1","tool":"t","arguments":{"a":' + deep + "},"
        '"idempotency":"read-only","run-id":"r1","round":1}}',
        f'{{"id":"{uuid.uuid4()}","type":"x-deep","v":1,"ts":"2026-01-01T00:00:00Z",'
        '"payload":{"deep":' + deep + "}}",
    ]
    with path.open("a") as fh:
        fh.write("".join(line + "\n" for line in lines))
    nested = _nested(1000)
    loaded = Session.load(path)
    try:
        assert loaded.events()[-1]["payload"]["deep"] == nested
        assert [p["op-id"] for p in loaded.pending_tool_operations()] == [op]
        assert loaded.tool_operations()[0]["arguments"] == {"a": nested}
    finally:
        loaded.close()
