"""A Claude Code ``tool_use`` block whose ``id`` is left out or is no non-empty string can
be answered by no result, and is no tool operation: that is said, naming its line and the
id as written (audit E-F9: ``"id": 7`` was in ``tool-calls`` as ``null``, with no
operation and no warning), by ``check``, a whole read, and a followed read (the viewer's
warnings), read typed and as dicts alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from claude_code_helpers import both
from claude_code_writer import CCWriter, text, tool_use
from helpers import follow_into, run_cli

from session_core.following import FollowUpdate
from session_core.formats import CLAUDE_CODE, by_name

_GONE = object()


def _call(call_id: Any) -> dict[str, Any]:
    block = tool_use("t1", "Bash", command="ls")
    if call_id is _GONE:
        del block["id"]
    else:
        block["id"] = call_id
    return block


@pytest.mark.parametrize(
    ("call_id", "said"),
    [
        (7, "has id 7, not a non-empty string"),
        (None, "has id null, not a non-empty string"),
        ("", 'has id "", not a non-empty string'),
        (_GONE, "has no id"),
    ],
)
def test_a_call_with_no_id_is_warned_of_by_its_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    call_id: Any,
    said: str,
) -> None:
    w = CCWriter()
    w.user("list the files")
    w.assistant("m1", [text("looking"), _call(call_id)])
    w.assistant("m2", [tool_use("t2", "Read", file_path="a")])
    w.result("t2", "a's text")
    path = w.write(tmp_path / "s.jsonl")
    warning = f"line 3: a tool_use block {said}: no tool operation is made of it"
    whole = both(path, monkeypatch)
    assert [op.call_id for op in whole.tool_operations] == ["t2"]
    assert warning in whole.warnings, whole.warnings
    code, out, _err = run_cli(capsys, "check", str(path))
    assert code == 0 and f"warning: {warning}" in out, out
    live = by_name(CLAUDE_CODE).live(str(path))

    def apply(update: FollowUpdate) -> None:
        live.apply(update)

    follow_into(apply, path, 1 << 16, parse=False)
    assert warning in live.transcript(writer_alive=False).warnings
