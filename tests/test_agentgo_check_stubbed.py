"""``check`` says what an agentgo projection stubbed and dropped as every other surface
says it (``2 elisions (5 messages stubbed)``): its streaming read keeps no record, so each
projection's folds are found as the request after it streams by (``StreamedFolds``),
read again by span where it was skimmed to its config. It said the projections alone
(``1 elision``): the header and the exports said ``(1 message stubbed)`` of the same file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from codex_writer import zst_copy
from helpers import run_cli

from agentgo_helpers import projected
from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.model import overlay_counts


def _checked(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    code, out, err = run_cli(capsys, "check", str(path))
    assert code == 0 and not err, (out, err)
    return out


@pytest.mark.parametrize("turns", [True, False])
def test_check_says_what_the_projections_stubbed_as_the_header_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], turns: bool
) -> None:
    path = projected(tmp_path / "s.jsonl", turns=turns)
    counts = overlay_counts(open_transcript(path).compactions)
    said = "2 elisions (2 messages stubbed, 1 dropped; 1 of them not sent yet)"
    assert counts.said() == [said]  # (what the header and the exports say)
    assert f", {said}, usage" in _checked(capsys, path)


def test_a_compressed_files_check_says_them_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``.zst`` has no span to read a line again by: its messages are hashed as they
    stream by, its requests parsed whole."""
    plain = projected(tmp_path / "s.jsonl")
    packed = Path(zst_copy(str(plain), str(tmp_path / "packed.jsonl.zst")))
    said = "2 elisions (2 messages stubbed, 1 dropped; 1 of them not sent yet)"
    assert f", {said}, usage" in _checked(capsys, packed)


def test_a_line_changed_since_it_was_read_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A line read again by its span that is no longer what was read (the request
    skimmed, a committed message): the check fails, never counts what the file does not
    say."""
    from session_core.agentgo import folds_streamed

    path = projected(tmp_path / "s.jsonl")
    real = folds_streamed.StreamedFolds._read

    def overwritten(self: folds_streamed.StreamedFolds, span: int, index: int) -> Any:
        text = path.read_bytes()
        path.write_bytes(
            text.replace(b'"message_end"', b'"message_enD"').replace(b"_request", b"_requesT")
        )
        return real(self, span, index)

    monkeypatch.setattr(folds_streamed.StreamedFolds, "_read", overwritten)
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 1 and "changed on disk while it was being read" in out, out


def test_a_compaction_before_and_a_nested_call_between_count_as_elsewhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A compaction folds the first answer into a summary; a projection then stubs a
    result, its request after a tool's own model call (nested: it sends other messages):
    the check's counts are the neutral model's, the projection's found from the loop's
    request, not the nested call's."""
    user = {"kind": "user", "content": [{"type": "text", "text": "go"}]}
    summary = {"kind": "user", "content": [{"type": "text", "text": "SUMMARY"}]}
    ask = {
        "kind": "assistant",
        "content": [{"type": "tool_call", "id": "c1", "name": "fs_read", "arguments": {}}],
    }
    result = {"kind": "tool_result", "content": [{"type": "text", "text": "R" * 9000}]}
    result["tool_call_id"] = "c1"
    stub = {**result, "content": [{"type": "text", "text": "[aged]"}]}
    path = tmp_path / "c.jsonl"
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("message_end", {"message": user})
        run.record("context_compacted", {"summary": "SUMMARY"})
        turn = {"id": "t1", "kind": "model", "attempt": 1, "turn_index": 1}
        request = {"messages": [summary], "tools": [], "config": {}}
        run.record("model_request", request, execution=turn)
        run.record("model_exec_end", {"message": ask}, execution=turn)
        run.record("message_end", {"message": ask})
        run.record("message_end", {"message": result})
        run.record("context_projected", {})
        nested = {"id": "n1", "kind": "model", "attempt": 1, "parent_id": "x"}
        request = {"messages": [user], "tools": [], "config": {}}
        run.record("model_request", request, execution=nested)
        turn = {"id": "t2", "kind": "model", "attempt": 1, "turn_index": 2}
        request = {"messages": [summary, ask, stub], "tools": [], "config": {"pad": "p" * 9000}}
        run.record("model_request", request, execution=turn)
        run.close()
    counts = overlay_counts(open_transcript(path).compactions)
    said = ", ".join(counts.said())
    assert said == "1 compaction, 1 elision (1 message stubbed)"
    assert f", {said}, usage" in _checked(capsys, path)
