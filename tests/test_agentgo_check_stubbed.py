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

from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.model import overlay_counts

USER = {"kind": "user", "content": [{"type": "text", "text": "fix it"}]}
BULK = "x" * 12000  # (a request line over the skim's 8 KiB: skimmed, read again by span)


def _ask(call: str) -> dict[str, Any]:
    return {
        "kind": "assistant",
        "content": [{"type": "tool_call", "id": call, "name": "fs_read", "arguments": {}}],
    }


def _result(call: str, text: str) -> dict[str, Any]:
    return {
        "kind": "tool_result",
        "content": [{"type": "text", "text": text}],
        "tool_call_id": call,
    }


def _model(turn: int | None) -> dict[str, Any]:
    extra = {} if turn is None else {"turn_index": turn}
    return {"id": f"turn-{turn}", "kind": "model", "attempt": 1, **extra}


def _written(path: Path, *, turns: bool = True) -> Path:
    """Three calls' results, a projection that ages two and drops the third, a request
    that says so; a second projection no request follows yet: ``turns`` False names no
    turn (the loop's call told by its last message being the last committed)."""
    asks = [_ask(f"c{i}") for i in range(3)]
    results = [_result(f"c{i}", f"LONG RESULT {i} {BULK}") for i in range(3)]
    stubs = [_result(f"c{i}", "[aged]") for i in range(2)]
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("message_end", {"message": USER})
        history = [USER]
        for i in range(3):
            turn = _model(i if turns else None)
            request = {"messages": list(history), "tools": [], "config": {}}
            run.record("model_request", request, execution=turn)
            run.record("model_exec_end", {"message": asks[i]}, execution=turn)
            run.record("message_end", {"message": asks[i]})
            run.record("message_end", {"message": results[i]})
            history += [asks[i], results[i]]
        run.record("context_projected", {"replaced": 3})
        sent = [USER, asks[0], stubs[0], asks[1], stubs[1], asks[2]]
        if not turns:  # (its last message the last committed: a fourth question)
            sent.append(USER)
            run.record("message_end", {"message": USER})
        tools = [{"name": "fs_read", "description": BULK, "schema": {}}]  # (skimmed)
        request = {"messages": sent, "tools": tools, "config": {"model": "m"}}
        run.record("model_request", request, execution=_model(3 if turns else None))
        run.record("context_projected", {"replaced": 1})
        run.close()
    return path


def _checked(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    code, out, err = run_cli(capsys, "check", str(path))
    assert code == 0 and not err, (out, err)
    return out


@pytest.mark.parametrize("turns", [True, False])
def test_check_says_what_the_projections_stubbed_as_the_header_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], turns: bool
) -> None:
    path = _written(tmp_path / "s.jsonl", turns=turns)
    counts = overlay_counts(open_transcript(path).compactions)
    said = "2 elisions (2 messages stubbed, 1 dropped; 1 of them not sent yet)"
    assert counts.said() == [said]  # (what the header and the exports say)
    assert f", {said}, usage" in _checked(capsys, path)


def test_a_compressed_files_check_says_them_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``.zst`` has no span to read a line again by: its messages are hashed as they
    stream by, its requests parsed whole."""
    plain = _written(tmp_path / "s.jsonl")
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

    path = _written(tmp_path / "s.jsonl")
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
