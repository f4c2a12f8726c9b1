"""A Claude Code ``tool_use`` block whose ``id`` is left out or is no non-empty string can
be answered by no result, and is no tool operation: that is said, naming its line and the
id as written (audit E-F9: ``"id": 7`` was in ``tool-calls`` as ``null``, with no
operation and no warning), by ``check``, a whole read, and a followed read (the viewer's
warnings), read typed and as dicts alike. So is a ``tool_result`` whose ``tool_use_id`` is
(it answered nothing, silently), and a server tool's call or result (a web search's)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from claude_code_helpers import both
from claude_code_writer import CCWriter, text, tool_use
from helpers import follow_into, run_cli

from session_core import peek
from session_core.following import FollowUpdate
from session_core.formats import CLAUDE_CODE, by_name
from session_core.model import Transcript

_GONE = object()


def _with_id(block: dict[str, Any], key: str, call_id: Any) -> dict[str, Any]:
    """``block`` with ``key`` set to ``call_id``, or left out for ``_GONE``."""
    if call_id is _GONE:
        del block[key]
    else:
        block[key] = call_id
    return block


def _call(call_id: Any) -> dict[str, Any]:
    return _with_id(tool_use("t1", "Bash", command="ls"), "id", call_id)


@dataclass
class _Env:
    """The fixtures each test here reads with: a folder, and what ``both`` and the CLI use."""

    tmp_path: Path
    monkeypatch: pytest.MonkeyPatch
    capsys: pytest.CaptureFixture[str]


@pytest.fixture
def env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> _Env:
    return _Env(tmp_path, monkeypatch, capsys)


def _warned_everywhere(path: Path, warning: str, env: _Env) -> Transcript:
    """The file read whole (typed, and as dicts the same), warned of by ``check``, and by
    a followed read: the whole read's transcript."""
    whole = both(path, env.monkeypatch)
    assert whole.warnings.count(warning) == 1, whole.warnings
    code, out, _err = run_cli(env.capsys, "check", str(path))
    assert code == 0 and f"warning: {warning}" in out, out
    live = by_name(CLAUDE_CODE).live(str(path))

    def apply(update: FollowUpdate) -> None:
        live.apply(update)

    follow_into(apply, path, 1 << 16, parse=False)
    assert warning in live.transcript(writer_alive=False).warnings
    return whole


@pytest.mark.parametrize(
    ("call_id", "said"),
    [
        (7, "has id 7, not a non-empty string"),
        (None, "has id null, not a non-empty string"),
        ("", 'has id "", not a non-empty string'),
        (_GONE, "has no id"),
    ],
)
def test_a_call_with_no_id_is_warned_of_by_its_line(env: _Env, call_id: Any, said: str) -> None:
    w = CCWriter()
    w.user("list the files")
    w.assistant("m1", [text("looking"), _call(call_id)])
    w.assistant("m2", [tool_use("t2", "Read", file_path="a")])
    w.result("t2", "a's text")
    path = w.write(env.tmp_path / "s.jsonl")
    warning = f"line 3: a tool_use block {said}: no tool operation is made of it"
    whole = _warned_everywhere(path, warning, env)
    assert [op.call_id for op in whole.tool_operations] == ["t2"]
    # In the replay and peek: an id written as a string is listed as written; one that is
    # no string is said raw in the content, as written (was: "id": null, listed), never
    # listed with a null id; the calls in written order.
    call = _call(call_id)
    raw = orjson.dumps(call).decode()
    listed: list[dict[str, Any]] = []
    content = "looking"
    if call_id == "":
        listed.append({"id": "", "name": "Bash", "arguments": call["input"]})
    else:
        content += f"\n{raw}"
    replayed = by_name(CLAUDE_CODE).replay_json(path)["messages"][1]
    peeked = peek(path).to_json()["messages"][1]
    for said in (replayed, peeked):
        assert (said["content"], said.get("tool-calls", [])) == (content, listed)


_IDS = [
    (7, "has tool_use_id 7, not a non-empty string"),
    (None, "has tool_use_id null, not a non-empty string"),
    ("", 'has tool_use_id "", not a non-empty string'),
    (_GONE, "has no tool_use_id"),
]


def _answer(block: dict[str, Any], call_id: Any) -> dict[str, Any]:
    return _with_id(block, "tool_use_id", call_id)


@pytest.mark.parametrize(("call_id", "said"), _IDS)
def test_a_result_with_no_id_is_warned_of_by_its_line_and_answers_nothing(
    env: _Env, call_id: Any, said: str
) -> None:
    """It is shown in its message as written and is no call's result: the call it may
    have meant stays unanswered (interrupted, its writer gone), the next is answered."""
    w = CCWriter()
    w.user("list the files")
    w.assistant("m1", [tool_use("t1", "Bash", command="ls")])
    block = {"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"}
    w.user([_answer(block, call_id)])
    w.assistant("m2", [tool_use("t2", "Read", file_path="a")])
    w.result("t2", "a's text")
    path = w.write(env.tmp_path / "s.jsonl")
    warning = f"line 3: a tool_result block {said}: it is no call's result"
    whole = _warned_everywhere(path, warning, env)
    ops = {op.call_id: op for op in whole.tool_operations}
    assert (ops["t1"].state, ops["t1"].result) == ("interrupted", None)
    assert (ops["t2"].state, ops["t2"].result) == ("completed", "a's text")
    shown = [p for m in whole.messages for p in m.parts if p.kind == "tool-result"]
    assert [(p.call_id or None, p.text) for p in shown] == [(None, "a.txt"), ("t2", "a's text")]


_SEARCH = {"type": "server_tool_use", "id": "srv1", "name": "web_search", "input": {"q": "x"}}
_FOUND = {
    "type": "web_search_tool_result",
    "tool_use_id": "srv1",
    "content": [{"type": "web_search_result", "title": "X", "url": "https://x.org"}],
}


@pytest.mark.parametrize(("call_id", "said"), _IDS)
def test_a_server_tools_result_with_no_id_is_warned_of(env: _Env, call_id: Any, said: str) -> None:
    w = CCWriter(version="2.0.50")
    w.user("search")
    w.assistant("m1", [_SEARCH, _answer(dict(_FOUND), call_id), text("found")])
    path = w.write(env.tmp_path / "s.jsonl")
    warning = f"line 3: a web_search_tool_result block {said}: it is no call's result"
    (op,) = _warned_everywhere(path, warning, env).tool_operations
    assert (op.call_id, op.result) == ("srv1", None)


@pytest.mark.parametrize(("call_id", "said"), _IDS)
def test_a_server_tools_call_with_no_id_is_warned_of(env: _Env, call_id: Any, said: str) -> None:
    """(It made no operation and was said by nothing: ``server_call`` took a block with
    no id for no server tool's.)"""
    search = _with_id(dict(_SEARCH), "id", call_id)
    w = CCWriter(version="2.0.50")
    w.user("search")
    w.assistant("m1", [search, text("found")])
    path = w.write(env.tmp_path / "s.jsonl")
    warning = f"line 2: a server_tool_use block {said.replace('tool_use_id', 'id')}: "
    warning += "no tool operation is made of it"
    assert _warned_everywhere(path, warning, env).tool_operations == []
    # shown raw in its message as an unknown block is (it was in no JSON surface)
    raw = orjson.dumps(search).decode()
    (said,) = by_name(CLAUDE_CODE).replay_json(path)["messages"][1:]
    assert said["content"] == f"{raw}\nfound" and "tool-calls" not in said
    assert peek(path).to_json()["messages"][1]["content"] == f"{raw}\nfound"


_TS = "2026-02-12T16:02:20.000Z"


def _line(kind: str, uuid: str, parent: str | None, message: dict[str, Any]) -> dict[str, Any]:
    return {
        **{"parentUuid": parent, "isSidechain": False, "type": kind, "uuid": uuid},
        **{"sessionId": "s1", "timestamp": _TS, "message": message},
    }


def _response(uuid: str, parent: str, block: dict[str, Any], mid: str = "m1") -> dict[str, Any]:
    usage = {"input_tokens": 1, "output_tokens": 1}
    message = {"model": "claude-opus-4-6", "id": mid, "role": "assistant"}
    return _line("assistant", uuid, parent, {**message, "content": [block], "usage": usage})


def _user(uuid: str, parent: str | None, content: Any) -> dict[str, Any]:
    return _line("user", uuid, parent, {"role": "user", "content": content})


def _written(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


@pytest.mark.parametrize(("call_id", "said"), _IDS)
def test_a_parallel_result_with_no_id_stays_in_the_conversation(
    env: _Env, call_id: Any, said: str
) -> None:
    """Two calls of one response split over two lines, each line's result hung from it,
    the next line from the second's (as Claude Code writes parallel calls): the first
    result, naming no call, is still sent next and shown as written (it was taken for
    another branch: the walk kept it as the first call's answer alone)."""
    first = {"type": "tool_result", "tool_use_id": "t1", "content": "ORPHAN TEXT"}
    path = _written(
        env.tmp_path / "s.jsonl",
        [
            _user("u0", None, "list and read"),
            _response("a1", "u0", tool_use("t1", "Bash", command="ls")),
            _response("a2", "a1", tool_use("t2", "Read", file_path="a")),
            _user("r1", "a1", [_answer(first, call_id)]),
            _user("r2", "a2", [{"type": "tool_result", "tool_use_id": "t2", "content": "a"}]),
            _response("a3", "r2", text("done"), "m2"),
        ],
    )
    warning = f"line 4: a tool_result block {said}: it is no call's result"
    _warned_everywhere(path, warning, env)
    replayed = by_name(CLAUDE_CODE).replay_json(path)["messages"]
    assert [m["id"] for m in replayed] == ["u0", "a1", "r1", "r2", "a3"]
    assert "ORPHAN TEXT" in replayed[2]["content"]
    code, out, _err = run_cli(env.capsys, "check", str(path))
    assert code == 0 and "5 messages sent next" in out, out
    for batch in (1 << 16, 200):  # (followed: whole, and a line or two an update)
        live = by_name(CLAUDE_CODE).live(str(path))
        follow_into(live.apply, path, batch, parse=False)
        sent = live.transcript(writer_alive=False).messages
        assert [m.id for m in sent] == ["u0", "a1", "r1", "r2", "a3"]


def test_a_result_with_no_id_beside_one_with_an_id_answers_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its text is said beside the result (``text``), not joined into it, and it is named
    by no ``tool-call-ids`` entry (it was: ``[t1, null]``), in the replay and peek alike."""
    real = {"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"}
    path = _written(
        tmp_path / "s.jsonl",
        [
            _user("u0", None, "list"),
            _response("a1", "u0", tool_use("t1", "Bash", command="ls")),
            _user("r1", "a1", [real, {"type": "tool_result", "content": "ORPHAN"}]),
        ],
    )
    both(path, monkeypatch)
    (answer,) = [m for m in by_name(CLAUDE_CODE).replay_json(path)["messages"] if m["id"] == "r1"]
    peeked = peek(path).to_json()["messages"][2]
    for said in (answer, peeked):
        assert (said["content"], said["tool-call-id"], said["text"]) == ("a.txt", "t1", "ORPHAN")
        assert "tool-call-ids" not in said
