"""A Codex call whose ``call_id`` (what its output names) is left out or no non-empty
string is warned of by its line, the id as written, as a Claude Code block with no usable
id is: its operation was named by its item's ``id`` or its line without a word, and its
output, naming the id as written, answered it never (that output is warned of as an
orphan). By ``check``, a whole read (typed lines), and a followed read alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from codex_writer import RolloutWriter
from helpers import follow_into, run_cli

from session_core import open_transcript
from session_core.formats import CODEX, by_name

_GONE = object()


def _with(payload: dict[str, Any], call_id: Any) -> dict[str, Any]:
    return payload if call_id is _GONE else {**payload, "call_id": call_id}


@pytest.mark.parametrize(
    ("call_id", "said"),
    [
        (7, "has call_id 7, not a non-empty string"),
        (None, "has call_id null, not a non-empty string"),
        ("", 'has call_id "", not a non-empty string'),
        (_GONE, "has no call_id"),
    ],
)
@pytest.mark.parametrize(
    "call",
    [
        {"type": "function_call", "name": "shell", "arguments": '{"command": ["ls"]}'},
        {"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch"},
    ],
)
@pytest.mark.parametrize("ident", [None, "fc_1", "fc_\x1b[31mX"])
def test_a_call_with_no_call_id_is_warned_of_by_its_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    call: dict[str, Any],
    ident: str | None,
    call_id: Any,
    said: str,
) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "go")
    odd = w.write("response_item", _with({**call, "id": ident} if ident else call, call_id))
    w.function_call("shell", {"command": ["pwd"]}, "c2")
    w.function_output("c2", "/work")
    w.task_complete("t1")
    path = Path(w.path)
    # (quoted as JSON writes it, as every refusal quotes a value: inert)
    quoted = ident.replace("\x1b", "\\u001b") if ident else None
    named = f'"{quoted}" (by its id)' if quoted else f'"L{odd}" (by its line)'
    warning = f"line {odd}: a {call['type']} {said}: its operation is named {named}"
    whole = open_transcript(path)
    assert whole.warnings.count(warning) == 1, whole.warnings
    ops = [(op.call_id, op.state) for op in whole.tool_operations]
    assert ops == [(ident or f"L{odd}", "interrupted"), ("c2", "completed")]
    code, out, _err = run_cli(capsys, "check", str(path))
    assert code == 0 and f"warning: {warning}" in out, out
    for parse in (False, True):
        live = by_name(CODEX).live(str(path))
        follow_into(live.apply, path, 1 << 16, parse=parse)
        assert warning in live.transcript(writer_alive=False).warnings


def test_a_call_with_a_call_id_and_one_settled_by_its_status_are_not_warned_of(
    tmp_path: Path,
) -> None:
    """(a web search names no call_id: no output answers it; a local shell call's output
    may name its id, as Codex pairs them)"""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "go")
    searched = w.web_search("completed", "python")
    w.function_call("shell", {"command": ["pwd"]}, "c2")
    w.function_output("c2", "/work")
    action = {"type": "exec", "command": ["ls"]}
    shell = {"type": "local_shell_call", "id": "ls_1", "status": "completed", "action": action}
    w.write("response_item", shell)
    w.function_output("ls_1", "a.txt")
    w.task_complete("t1")
    t = open_transcript(Path(w.path))
    assert t.warnings == []
    assert [(op.call_id, op.result) for op in t.tool_operations] == [
        (f"L{searched}", None),
        ("c2", "/work"),
        ("ls_1", "a.txt"),
    ]
