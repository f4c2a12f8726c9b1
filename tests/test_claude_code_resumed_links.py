"""A resumed Claude Code session's copies told by where they are, not by their id alone:
a continuation file whose new lines carry the earlier session's id (claude-code#30606,
#87884) holds no copy; a copied Task call's subagent is the earlier session's, its file in
that session's folder (``<oldId>/subagents/``); and the browser's footer never leaves out
more than the source's file holds."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from test_claude_code_decode import FMT, by_dict, everything
from test_claude_code_resumed import NEW, OLD, _line, _said, _uid, _write, resumed_pair

from session_core.scan import scan_dir
from viewer.browser_cells import detail, totals

CONT = "66666666-6666-4666-8666-666666666666"


def _rows(folder: Path) -> Any:
    rows = list(scan_dir(str(folder)))
    return rows, totals(rows, len(rows), 200).plain


# -- a continuation file: new lines under the earlier id ---------------------------------


def continuation(folder: Path) -> tuple[Path, Path]:
    """The earlier session (2 responses) and a file named by its own id whose lines, new
    (uuids and responses found nowhere in the earlier one), all carry the earlier id."""
    old, _new = resumed_pair(folder)
    _new.unlink()
    lines = [
        _line(OLD, 31, "user", {"role": "user", "content": "continued"}),
        _said(OLD, 32, "msg_05A", [{"type": "text", "text": "new work"}], "end_turn"),
        _line(OLD, 33, "user", {"role": "user", "content": "more"}),
        _said(OLD, 34, "msg_05B", [{"type": "text", "text": "more work"}], "end_turn"),
    ]
    lines[0]["parentUuid"] = None
    return old, _write(folder / f"{CONT}.jsonl", lines)


def test_a_continuation_under_the_earlier_id_is_no_copy(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "-tmp-y"
    _old, cont = continuation(folder)
    data = FMT.replay_json(cont)
    assert "resumed-from" not in data and "usage-copied" not in data
    assert data["meta"]["session-id"] == OLD and data["meta"]["continued-as"] == CONT
    assert FMT.check(cont).endswith("usage 2,320 tok · $0.0029")
    rows, said = _rows(tmp_path / "projects")
    assert "tokens 4,640" in said and "copied" not in said, said  # 2 + 2 responses
    assert {r.session for r in rows} == {OLD, CONT}  # (its own id, not the earlier's)


def test_lines_of_another_id_after_the_files_own_are_its_own(tmp_path: Path) -> None:
    """Only the lines before the file's first of its own id are copies: one of the earlier
    id written after it is the file's."""
    _old, new = resumed_pair(tmp_path / "-tmp-y")
    later = _said(OLD, 17, "msg_04D", [{"type": "text", "text": "again"}], "end_turn")
    with new.open("a") as out:
        out.write(json.dumps(later) + "\n")
    data = FMT.replay_json(new)
    assert data["usage"]["reported"] == 4 and data["usage-copied"]["reported"] == 2


def test_continuation_typed_and_dict_paths_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _old, cont = continuation(tmp_path / "-tmp-y")
    typed = FMT.open(cont, writer_alive=False)
    assert typed.resumed is None and typed.meta["continued-as"] == CONT
    assert everything(typed) == everything(by_dict(cont, monkeypatch))


# -- the footer leaves out no more than the source holds ---------------------------------


def test_a_copy_larger_than_its_listed_source_is_counted(tmp_path: Path) -> None:
    """The earlier session's file as listed holds one response; the resumed file's lines
    of its id hold two: they are no copy of that file, and the footer counts them."""
    folder = tmp_path / "projects" / "-tmp-y"
    old, _new = resumed_pair(folder)
    _write(
        old,
        [
            _line(OLD, 11, "user", {"role": "user", "content": "hi"}),
            _said(OLD, 12, "msg_X", [], "end_turn"),
        ],
    )
    _, said = _rows(tmp_path / "projects")
    assert "tokens 4,640" in said and "copied tokens" not in said, said  # 1,160 + 3,480


# -- a copied Task call: its subagent is the earlier session's ---------------------------


def _task_lines(session: str) -> list[dict[str, Any]]:
    call = {"type": "tool_use", "id": "toolu_t1", "name": "Task"}
    call["input"] = {"description": "explore", "prompt": "look"}
    result = {"tool_use_id": "toolu_t1", "type": "tool_result", "content": "found"}
    said = {"content": [{"type": "text", "text": "found"}], "agentId": "ax1"}
    said |= {"totalDurationMs": 3000, "status": "completed"}
    return [
        _line(session, 11, "user", {"role": "user", "content": "delegate"}),
        _said(session, 12, "msg_T1", [call], "tool_use"),
        _line(session, 13, "user", {"role": "user", "content": [result]}, toolUseResult=said),
        _said(session, 14, "msg_T2", [{"type": "text", "text": "ok"}], "end_turn"),
    ]


def resumed_task(folder: Path, *, with_old: bool = True) -> Path:
    """The earlier session with a Task call and its subagent's file in its own folder
    (``with_old``: both there), and the file resumed from it: the copies, then a turn."""
    if with_old:
        _write(folder / f"{OLD}.jsonl", _task_lines(OLD))
        agent = [
            _line(OLD, 100, "user", {"role": "user", "content": "look"}, agentId="ax1"),
            _said(OLD, 101, "msg_S1", [{"type": "text", "text": "found"}], "end_turn"),
        ]
        agent[1]["agentId"] = "ax1"
        for line in agent:
            line["isSidechain"] = True
        agent[0]["parentUuid"], agent[1]["parentUuid"] = None, _uid(100)
        _write(folder / OLD / "subagents" / "agent-ax1.jsonl", agent)
    own = [
        _line(NEW, 15, "user", {"role": "user", "content": "more"}),
        _said(NEW, 16, "msg_T3", [{"type": "text", "text": "more"}], "end_turn"),
    ]
    return _write(folder / f"{NEW}.jsonl", [*copy.deepcopy(_task_lines(OLD)), *own])


def test_a_copied_calls_subagent_is_found_in_the_earlier_sessions_folder(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "-tmp-y"
    new = resumed_task(folder)
    data = FMT.replay_json(new)
    (sub,) = data["subagents"]
    assert sub["path"] == str(folder / OLD / "subagents" / "agent-ax1.jsonl")
    assert sub["usage-counted"] and sub["copied-from"] == OLD
    assert data["usage-with-subagents"]["reported"] == 4  # 3 of its own + the subagent's
    assert data["usage-with-subagents-partial"] is False
    assert data["usage-with-subagents-said"] == "with 1 subagent"
    rows, said = _rows(tmp_path / "projects")
    assert not any(r.tokens_partial for r in rows)
    # 4 responses: the session's 2 and its subagent's 1 (counted in its row), the new 1
    assert "tokens 4,640" in said and "3,480 copied tokens counted once" in said, said


def test_a_copied_calls_subagent_not_there_is_the_earlier_sessions(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "-tmp-y"
    new = resumed_task(folder, with_old=False)
    data = FMT.replay_json(new)
    (sub,) = data["subagents"]
    assert sub["path"] is None and sub["copied-from"] == OLD and not sub["usage-counted"]
    assert data["usage-with-subagents-partial"] is False
    said = data["usage-with-subagents-said"]
    assert said == "1 subagent, the earlier session's (copied calls), not read"
    assert "its file not read" not in FMT.check(new)
    rows, footer = _rows(tmp_path / "projects")
    (row,) = rows
    assert not row.tokens_partial and "≥" not in footer and "tokens 3,480" in footer, footer
    assert "at least" not in detail(row, row.path, 300).plain


def test_copied_task_typed_and_dict_paths_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for with_old in (True, False):
        new = resumed_task(tmp_path / f"-tmp-{with_old}", with_old=with_old)
        typed = FMT.open(new, writer_alive=False)
        assert typed.subagents[0].copied_from == OLD
        assert everything(typed) == everything(by_dict(new, monkeypatch))


@pytest.mark.parametrize("with_old", [True, False])
def test_copied_task_followed_says_what_open_says(tmp_path: Path, with_old: bool) -> None:
    from helpers import follow_into

    from session_core.formats import CLAUDE_CODE, by_name

    new = resumed_task(tmp_path / "-tmp-y", with_old=with_old)
    fmt = by_name(CLAUDE_CODE)
    live = fmt.live(str(new))

    def apply(update: Any) -> None:  # (a snapshot each batch: the copies before the own)
        live.apply(update)
        live.transcript(writer_alive=True)

    follow_into(apply, new, 256, fmt.parsed_updates)
    followed = live.transcript(writer_alive=False).to_json()
    opened = fmt.open(new, writer_alive=False).to_json()
    keys = ("subagents", "usage-with-subagents", "usage-with-subagents-said", "usage-copied")
    assert [followed[k] for k in keys] == [opened[k] for k in keys]
