"""A cost a file wrote is read by the rule its token counts are: a finite number, never
below 0, else unknown (README: "A count below 0 is no count"). A negative cost lowered
the total (``$-5.0000``) in v1 and agentgo; v1's ``1e400`` (infinity) read ``$inf`` in
``check``, the header and the exports and ``null`` in ``replay``. A finite absurd one is
said compactly (``cost_text``: ``$1.000e+308``, not 309 digits)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agentgo_helpers import REQUEST, model, text
from session_core import Message, Session
from session_core.agentgo import AgentGoSession
from session_core.text import cost_text
from viewer.browser_cells import money
from viewer.cli import main

PRICED = 0.25


def _v1(path: Path, cost_json: str) -> Path:
    """Two responses: one that cost ``PRICED``, one whose cost is ``cost_json`` as written."""
    with Session.create(path) as s:
        s.append_message(Message(role="user", content="hi"))
        for cost in (PRICED, 7.0):
            usage = {"prompt-tokens": 10, "completion-tokens": 5, "cost": cost}
            s.append_message(Message(role="assistant", content="ok"), extra={"usage": usage})
    path.write_text(path.read_text().replace('"cost":7.0', f'"cost":{cost_json}'))
    assert f'"cost":{cost_json}' in path.read_text()
    return path


def _checked(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["check", str(path)]) == 0
    return capsys.readouterr().out


def _replayed_cost(path: Path, capsys: pytest.CaptureFixture[str]) -> object:
    assert main(["replay", str(path)]) == 0
    return json.loads(capsys.readouterr().out)["usage"]["cost"]


@pytest.mark.parametrize("written", ["-5.0", "-5", "1e400", "-1e400"])
def test_v1_a_cost_that_is_none_is_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], written: str
) -> None:
    path = _v1(tmp_path / "v1.jsonl", written)
    said = _checked(path, capsys)
    assert "$0.2500 (1 of 2 priced)" in said, said
    assert "inf" not in said and "$-" not in said
    assert _replayed_cost(path, capsys) == PRICED  # (the one it counted, as check says)
    assert main(["export", str(path), "--format", "md", "-o", "-"]) == 0
    exported = capsys.readouterr().out
    assert "$inf" not in exported and "$-" not in exported


def test_v1_an_absurd_cost_is_said_compactly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    said = _checked(_v1(tmp_path / "v1.jsonl", "1e308"), capsys)
    assert "$1.000e+308" in said and not re.search(r"\d{20}", said), said


def test_agentgo_a_negative_cost_is_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ag.jsonl"
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        for n, cost in enumerate((PRICED, -5.0)):
            call = model(f"m{n}")
            usage = {"input_tokens": 10, "output_tokens": 5, "cost": cost}
            message = text("assistant", "ok")
            run.record("model_request", REQUEST, execution=call)
            run.record("model_exec_end", {"message": message, "usage": usage}, execution=call)
            run.record("message_end", {"message": message})
        run.record("agent_end", {})
    said = _checked(path, capsys)
    assert "$0.2500 (1 of 2 priced)" in said and "$-" not in said, said


def test_cost_text() -> None:
    assert cost_text(11.24051) == "$11.2405" and cost_text(0.00001) == "<$0.0001"
    assert cost_text(1e308) == "$1.000e+308" and cost_text(123_456_789.0) == "$123456789.0000"
    assert money(1e308) == "$1.000e+308" and money(123_456.0) == "$123,456"
