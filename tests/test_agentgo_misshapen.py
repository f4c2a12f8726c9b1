"""A record of a named agentgo type not in its shape (data not an object, an execution
that is not one or has attempt 0, no run_id) was read as what its type says: a
``model_exec_end`` with ``data: [1]`` became a call ended ``ok`` with no message (success
invented, usage lost), one with ``execution: "x"`` vanished (in no call and not among the
other records, while the timeline said ``ok``), and attempt 0 or no run_id split the call
in two. It is kept raw among the other records and said by its line, on every read
path, and ends no call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import follow_into, for_screen, neutral, run_cli, screen_text

from session_core import open_transcript, peek
from session_core.agentgo import AgentGoSession
from session_core.formats import AGENTGO, by_name
from viewer.screens.model_screen import ModelScreen

opened, _shows = for_screen(ModelScreen, (120, 30))
TURN = {"id": "turn-1", "kind": "model", "attempt": 1}
USAGE = {"input_tokens": 10, "output_tokens": 2}


def _damage(record: dict[str, Any], how: str) -> None:
    if how == "data_list":
        record["data"] = [1]
    elif how == "no_data":
        del record["data"]
    elif how == "execution_str":
        record["execution"] = "x"
    elif how == "attempt_0":
        record["execution"]["attempt"] = 0
    elif how == "no_run_id":
        del record["run_id"]
    elif how == "no_execution":
        del record["execution"]
    elif how == "kind_list":  # (no key of a set: it raised a TypeError)
        record["execution"]["kind"] = ["model"]


HOW = [
    "data_list",
    "no_data",
    "execution_str",
    "attempt_0",
    "no_run_id",
    "no_execution",
    "kind_list",
]


def write_damaged(path: Path, how: str) -> int:
    """A session whose one model call's model_exec_end is damaged ``how``: its line."""
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record(
            "model_request",
            {"messages": [], "tools": [], "config": {"model": "m1"}},
            execution=TURN,
        )
        answer = {"kind": "assistant", "content": [{"type": "text", "text": "done"}]}
        run.record("model_exec_end", {"message": answer, "usage": USAGE}, execution=TURN)
        run.close()
    lines = path.read_bytes().splitlines(keepends=True)
    number = next(n for n, raw in enumerate(lines, 1) if b'"model_exec_end"' in raw)
    record = orjson.loads(lines[number - 1])
    _damage(record, how)
    lines[number - 1] = orjson.dumps(record) + b"\n"
    path.write_bytes(b"".join(lines))
    return number


@pytest.mark.parametrize("how", HOW)
def test_a_misshapen_record_is_kept_raw_said_and_ends_no_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    path = tmp_path / "s.jsonl"
    number = write_damaged(path, how)
    said = f"line {number}: a misshapen model_exec_end ("
    fmt = by_name(AGENTGO)
    replay = fmt.replay_json(path)
    assert [o["line"] for o in replay["other-records"]] == [number]
    # one call, not split, and no outcome invented for it: a gap, its usage unknown
    assert [(c["id"], c["attempt"], c["status"]) for c in replay["calls"]] == [("turn-1", 1, "gap")]
    assert replay["usage"]["input-tokens"] is None
    assert any(w.startswith(said) for w in replay["warnings"])
    whole = open_transcript(path)
    assert any(w.startswith(said) for w in whole.warnings)
    assert any(w.startswith(said) for w in peek(path).warnings)
    code, out, _err = run_cli(capsys, "check", str(path))
    assert code == 0 and said in out and "usage unknown" in out
    live = fmt.live(str(path))
    follow_into(live.apply, path, 1 << 12, fmt.parsed_updates)
    assert neutral(live.transcript(False)) == neutral(whole)


async def test_the_timeline_shows_it_raw_as_the_calls_tab_shows_a_gap(tmp_path: Path) -> None:
    """The timeline said ``ok: done`` of the record the calls tab could not see."""
    path = tmp_path / "s.jsonl"
    write_damaged(path, "execution_str")
    async with opened(path) as (app, pilot):
        await pilot.press("5")
        await pilot.pause(0.2)
        text = screen_text(app)
        assert "(misshapen, raw)" in text and "ok: done" not in text


def test_the_writer_refuses_an_execution_kind_that_is_no_string(tmp_path: Path) -> None:
    """The writer's rule is the readers' (``shape.execution_said``): a kind that is a list
    was a TypeError, not a refusal."""
    from session_core.errors import RefusedAppendError

    with AgentGoSession.create(tmp_path / "s.jsonl") as s:
        run = s.begin_run()
        with pytest.raises(RefusedAppendError, match="execution kind must be one of"):
            run.record("model_request", {}, execution={**TURN, "kind": ["model"]})


@pytest.mark.parametrize("how", ["no_run_id", "execution_str", "attempt_0"])
def test_peek_lists_no_message_of_a_misshapen_message_end(tmp_path: Path, how: str) -> None:
    """``peek``'s messages are the view's (``shape.well_shaped``): a misshapen
    ``message_end`` is kept raw, as its warning says, never listed as a message."""
    path = tmp_path / "s.jsonl"
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        for text in ("hello", "kept"):
            message = {"kind": "user", "content": [{"type": "text", "text": text}]}
            run.record("message_end", {"message": message})
        run.close()
    lines = path.read_bytes().splitlines(keepends=True)
    number = next(n for n, raw in enumerate(lines, 1) if b'"kept"' in raw)
    record = orjson.loads(lines[number - 1])
    record.setdefault("execution", dict(TURN))
    _damage(record, how)
    lines[number - 1] = orjson.dumps(record) + b"\n"
    path.write_bytes(b"".join(lines))
    replay = by_name(AGENTGO).replay_json(path)
    assert number in [o["line"] for o in replay["other-records"]]
    result = peek(path)
    assert any(w.startswith(f"line {number}: a misshapen message_end") for w in result.warnings)
    assert [m.content for m in result.messages] == ["hello"]
