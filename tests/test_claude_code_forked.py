"""A forked Claude Code session (``/branch``, ``claude --fork-session``, 2.1.x): the new
file begins with copies of the parent's lines under the fork's OWN ``sessionId``, each
naming its source in ``"forkedFrom": {"sessionId": <parent>, "messageUuid": <orig>}``
(the shape other readers' fixtures quote). Its copies are found by the resumed case's
rule (``formats/claude_code/resumed.py``): said as copied, counted once in a total."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from test_claude_code_decode import FMT, by_dict, everything
from test_claude_code_resumed import NEW, OLD, _line, _old_lines, _said, _write

from session_core.export import export
from session_core.scan import scan_dir
from viewer.browser_cells import detail, totals


def _forked(line: dict[str, Any]) -> dict[str, Any]:
    """A copy of the parent's line as a fork writes it: a new uuid, the fork's id, and
    where it came from."""
    out = copy.deepcopy(line)
    out["forkedFrom"] = {"sessionId": OLD, "messageUuid": line["uuid"]}
    out["sessionId"] = NEW
    out["uuid"] = "f" + line["uuid"][1:]
    if line["parentUuid"] is not None:
        out["parentUuid"] = "f" + line["parentUuid"][1:]
    return out


def forked_pair(folder: Path, *, own: bool = True, mode_first: bool = False) -> tuple[Path, Path]:
    """The parent's file and the fork's: the copies, then (``own``) a new prompt and its
    answer (1,160 tokens a response, 2 copied); ``mode_first``: the fork's file begins
    with a line of its own id (a ``permission-mode`` line, as 2.1.x writes one first)."""
    old = _write(folder / f"{OLD}.jsonl", _old_lines())
    lines = [_forked(line) for line in _old_lines()]
    if mode_first:
        lines.insert(0, {"type": "permission-mode", "permissionMode": "default", "sessionId": NEW})
    if own:
        prompt = _line(NEW, 15, "user", {"role": "user", "content": "try another way"})
        prompt["parentUuid"] = lines[-1]["uuid"]
        lines += [prompt, _said(NEW, 16, "msg_04C", [{"type": "text", "text": "Ok."}], "end_turn")]
    return old, _write(folder / f"{NEW}.jsonl", lines)


def test_check_and_replay_say_the_copies_forked(tmp_path: Path) -> None:
    old, new = forked_pair(tmp_path / "-tmp-y")
    assert FMT.check(new).endswith(
        "usage 3,480 tok · $0.0044 (2,320 tok of it, 2 responses, copied from session "
        "44444444…: forked)"
    )
    data = FMT.replay_json(new)
    assert data["resumed-from"] == [OLD] and data["forked-from"] == [OLD]
    assert data["usage-copied"]["reported"] == 2
    assert "resumed-as" not in data["meta"]  # (its lines carry its own id: session-id is it)
    assert data["meta"]["session-id"] == NEW
    earlier = FMT.replay_json(old)
    assert "resumed-from" not in earlier and "forked-from" not in earlier


def test_the_footer_counts_a_forks_copy_once(tmp_path: Path) -> None:
    forked_pair(tmp_path / "projects" / "-tmp-y")
    rows = list(scan_dir(str(tmp_path / "projects")))
    said = totals(rows, len(rows), 80).plain
    # 3 distinct responses (the rows hold 2,320 + 3,480)
    assert "tokens 3,480" in said and "5,800" not in said, said
    # (in the header's word: nothing was resumed)
    assert "forked: 2,320 copied tokens counted once" in said and "resumed" not in said, said
    row = next(r for r in rows if r.path.endswith(f"{NEW}.jsonl"))
    assert "copied from session 44444444…: forked" in detail(row, row.path, 300).plain


def test_a_fork_of_copies_alone_is_still_copies(tmp_path: Path) -> None:
    """Just forked, no line of its own yet: every line says it is a copy (a resumed file
    with none of its own id is a continuation, its lines its own; a fork's say so)."""
    _old, new = forked_pair(tmp_path / "-tmp-y", own=False)
    assert FMT.check(new).endswith(
        "(2,320 tok of it, 2 responses, copied from session 44444444…: forked)"
    )


def test_a_line_of_its_own_before_the_copies_leaves_them_copies(tmp_path: Path) -> None:
    """The fork's first line is its own (a ``permission-mode`` line), its copies after it:
    they are copies still (their lines say so), counted once, not as its own."""
    _old, new = forked_pair(tmp_path / "projects" / "-tmp-y", mode_first=True)
    assert FMT.check(new).endswith(
        "usage 3,480 tok · $0.0044 (2,320 tok of it, 2 responses, copied from session "
        "44444444…: forked)"
    )
    data = FMT.replay_json(new)
    assert data["forked-from"] == [OLD] and data["usage-copied"]["reported"] == 2
    said = totals(list(scan_dir(str(tmp_path / "projects"))), 2, 80).plain
    assert "tokens 3,480" in said and "forked: 2,320 copied tokens counted once" in said, said


def test_the_export_says_forked_as(tmp_path: Path) -> None:
    _old, new = forked_pair(tmp_path / "-tmp-y")
    facts = export(new, "md").split("\n## ", 1)[0]
    said = "2,320 tok of it, 2 responses, copied from session 44444444…: forked as 55555555…"
    assert f"| forked | {said} |" in facts and "| resumed |" not in facts, facts


def test_typed_and_dict_paths_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _old, new = forked_pair(tmp_path / "-tmp-y")
    typed = FMT.open(new, writer_alive=False)
    assert typed.resumed is not None and typed.resumed.forked == {OLD}
    assert everything(typed) == everything(by_dict(new, monkeypatch))


def test_a_forked_from_of_another_shape_is_no_fork(tmp_path: Path) -> None:
    """``forkedFrom`` as a string: read as absent (the line kept, no crash, no copy)."""
    _old, new = forked_pair(tmp_path / "-tmp-y")
    lines = [json.loads(line) for line in new.read_text().splitlines()]
    for line in lines:
        line.pop("forkedFrom", None)
    lines[0]["forkedFrom"] = OLD
    _write(new, lines)
    t = FMT.open(new, writer_alive=False)
    assert t.resumed is None and t.usage.tokens == 3480


def test_followed_with_its_own_line_first_says_what_open_says(tmp_path: Path) -> None:
    """Followed a batch at a time (its ``permission-mode`` line, then the copies as they
    come, then its own lines): each copy told as it comes, the total open's."""
    from helpers import follow_into

    _old, new = forked_pair(tmp_path / "-tmp-y", mode_first=True)
    live = FMT.live(str(new))
    seen: list[int | None] = []

    def apply(update: Any) -> None:
        live.apply(update)
        said = live.transcript(writer_alive=True).resumed
        seen.append(None if said is None else said.usage.tokens)

    follow_into(apply, new, 512, FMT.parsed_updates)
    followed = live.transcript(writer_alive=False).to_json()
    opened = FMT.open(new, writer_alive=False).to_json()
    assert followed["usage-copied"] == opened["usage-copied"] and followed["forked-from"] == [OLD]
    assert seen[-1] == 2320 and all(s in (None, 1160, 2320) for s in seen), seen
