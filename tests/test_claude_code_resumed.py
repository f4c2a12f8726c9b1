"""A resumed Claude Code session (``--resume`` / ``--continue``): the new file begins with a
copy of the earlier session's lines (their uuids, responses and old ``sessionId``), then
its own with the new id (kenn-io/agentsview#307, ccusage#1765, claude-code#4926). The
file's usage keeps the copies (its lines); ``check``, ``replay``, the header and the
browser row say how much of it is copied, and the browser's footer counts a copy once."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from helpers import app_loaded, screen_lines
from test_browser import QuickApp, browser, scanned
from test_claude_code_decode import FMT, by_dict, everything

from session_core.export import export
from session_core.scan import scan_dir
from viewer.browser_cells import detail, totals
from viewer.screens.model_screen import ModelScreen

OLD = "44444444-4444-4444-8444-444444444444"
NEW = "55555555-5555-4555-8555-555555555555"
USAGE = {
    "input_tokens": 10,
    "cache_creation_input_tokens": 100,
    "cache_read_input_tokens": 1000,
    "output_tokens": 50,
    "service_tier": "standard",
}  # 1,160 tokens a response


def _uid(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-000000000000"


def _line(session: str, n: int, kind: str, message: dict[str, Any], **more: Any) -> dict[str, Any]:
    """A conversation line as Claude Code 1.0.80 writes it."""
    return {
        "parentUuid": _uid(n - 1) if n > 11 else None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/tmp/y",
        "sessionId": session,
        "version": "1.0.80",
        "gitBranch": "main",
        "type": kind,
        "uuid": _uid(n),
        "timestamp": f"2025-07-01T10:00:{n:02d}.000Z",
        "message": message,
        **more,
    }


def _said(session: str, n: int, msg: str, content: list[dict[str, Any]], stop: str) -> Any:
    message = {
        "id": msg,
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-20250514",
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": dict(USAGE),
    }
    return _line(session, n, "assistant", message, requestId=msg.replace("msg", "req"))


def _old_lines() -> list[dict[str, Any]]:
    write = {"file_path": "/tmp/y/hello.py", "content": "print('hi')\n"}
    call = {"type": "tool_use", "id": "toolu_w1", "name": "Write", "input": write}
    result = {"tool_use_id": "toolu_w1", "type": "tool_result", "content": "File created"}
    return [
        _line(OLD, 11, "user", {"role": "user", "content": "Write hello.py"}),
        _said(OLD, 12, "msg_04A", [call], "tool_use"),
        _line(OLD, 13, "user", {"role": "user", "content": [result]}),
        _said(OLD, 14, "msg_04B", [{"type": "text", "text": "Created hello.py"}], "end_turn"),
    ]


def _write(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def resumed_pair(folder: Path, *, new: str = NEW, with_old: bool = True) -> tuple[Path, Path]:
    """The earlier session's file (``with_old``) and the resumed one's: a summary, the
    copies with the old id, then a new prompt and its answer with the new id."""
    old = folder / f"{OLD}.jsonl"
    if with_old:
        _write(old, _old_lines())
    summary = {"type": "summary", "summary": "Create hello.py script", "leafUuid": _uid(14)}
    own = [
        _line(new, 15, "user", {"role": "user", "content": "now add a main guard"}),
        _said(new, 16, "msg_04C", [{"type": "text", "text": "Done."}], "end_turn"),
    ]
    copied = [copy.deepcopy(line) for line in _old_lines()]
    return old, _write(folder / f"{new}.jsonl", [summary, *copied, *own])


def test_replay_says_the_copied_usage_and_both_ids(tmp_path: Path) -> None:
    old, new = resumed_pair(tmp_path / "-tmp-y")
    data = FMT.replay_json(new)
    # the file's usage as the spec says it: every response of its lines, copies too
    assert data["usage"]["reported"] == 3 and data["usage"]["cache-read-tokens"] == 3000
    assert data["resumed-from"] == [OLD]
    copied = data["usage-copied"]
    assert set(copied) == set(data["usage"])  # (the same shape)
    assert (copied["reported"], copied["input-tokens"]) == (2, 20)
    assert copied["cache-read-tokens"] == 2000
    assert data["meta"]["session-id"] == OLD  # (kept: its first conversation line's)
    assert data["meta"]["resumed-as"] == NEW
    earlier = FMT.replay_json(old)  # not resumed: no key added
    assert "resumed-from" not in earlier and "usage-copied" not in earlier
    assert "resumed-as" not in earlier["meta"]


def test_check_says_how_much_is_copied(tmp_path: Path) -> None:
    old, new = resumed_pair(tmp_path / "-tmp-y")
    assert FMT.check(new).endswith(
        "usage 3,480 tok · $0.0044 (2,320 tok of it, 2 responses, copied from session "
        "44444444…: resumed)"
    )
    assert FMT.check(old).endswith("usage 2,320 tok · $0.0029")


def test_a_name_that_is_no_session_id_takes_its_last_lines_id(tmp_path: Path) -> None:
    _old, new = resumed_pair(tmp_path / "-tmp-y")
    renamed = new.rename(new.with_name("continued.jsonl"))
    t = FMT.open(renamed, writer_alive=False)
    assert t.resumed is not None and t.resumed.own == NEW and t.resumed.sources == [OLD]


def test_typed_and_dict_paths_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _old, new = resumed_pair(tmp_path / "-tmp-y")
    typed = FMT.open(new, writer_alive=False)
    assert typed.resumed is not None
    assert everything(typed) == everything(by_dict(new, monkeypatch))


def test_the_footer_counts_a_copy_once(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "-tmp-y"
    resumed_pair(folder)
    rows = list(scan_dir(str(tmp_path / "projects")))
    said = totals(rows, len(rows), 80).plain
    # 3 distinct responses, 1,160 tokens each (the two files' rows hold 2,320 + 3,480)
    assert "tokens 3,480" in said and "5,800" not in said, said
    assert "resumed: 2,320 copied tokens counted once" in said, said
    assert all(len(line) <= 80 for line in said.split("\n"))
    new_row = next(r for r in rows if r.path.endswith(f"{NEW}.jsonl"))
    assert new_row.tokens == 3480  # (the row's own usage as the file's: copies in it)
    assert "2,320 tok of it, 2 responses, copied from session 44444444…: resumed" in (
        detail(new_row, new_row.path, 300).plain
    )


def test_a_copy_whose_source_is_not_listed_is_counted_once(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "-tmp-y"
    resumed_pair(folder, with_old=False)  # (the earlier session's file is gone)
    rows = list(scan_dir(str(tmp_path / "projects")))
    said = totals(rows, len(rows), 80).plain
    assert "tokens 3,480" in said and "copies of 1 unlisted session counted once" in said
    # resumed twice from the same earlier session: its copy counted in one of them
    resumed_pair(folder, new="66666666-6666-4666-8666-666666666666", with_old=False)
    rows = list(scan_dir(str(tmp_path / "projects")))
    said = totals(rows, len(rows), 80).plain
    assert "tokens 4,640" in said, said  # 2 copied + 1 new + 1 new
    assert "resumed: 2,320 copied tokens counted once" in said, said


def test_the_export_says_the_copies_and_the_new_id_as_the_header_does(tmp_path: Path) -> None:
    """``replay`` and the header said a resumed file's copied share and the export did
    not: its facts say it after the usage, in the header's words (Markdown and HTML);
    the earlier session's export says nothing of it."""
    old, new = resumed_pair(tmp_path / "-tmp-y")
    said = "2,320 tok of it, 2 responses, copied from session 44444444…: resumed as 55555555…"
    md = export(new, "md")
    facts = md.split("\n## ", 1)[0]
    assert "| usage | 3,480 tok " in facts, facts
    assert f"| resumed | {said} |" in facts, facts
    assert facts.index("| usage |") < facts.index("| resumed |")
    assert said in export(new, "html").split("<h2", 1)[0]
    assert "resumed" not in export(old, "md") and "copied from" not in export(old, "html")
    assert '"usage-copied"' in export(new, "json")  # (the JSON export is replay's: said)


async def test_the_header_says_the_copies_and_the_new_id(tmp_path: Path) -> None:
    _old, new = resumed_pair(tmp_path / "-tmp-y")
    async with app_loaded(new, ModelScreen, (200, 40)) as (app, _pilot):
        text = "".join("".join(screen_lines(app)).split())  # (its parts: their blanks apart)
        assert "copiedfromsession44444444…:resumedas55555555…" in text, text


async def test_the_browser_footer_on_screen(tmp_path: Path) -> None:
    resumed_pair(tmp_path / "projects" / "-tmp-y")
    app = QuickApp(str(tmp_path / "projects"))
    async with app.run_test(size=(80, 30)) as pilot:
        await scanned(pilot)
        said = str(browser(app).query_one("#browser-totals").render())
        assert "tokens 3,480" in said and "copied tokens counted once" in said, said


def test_an_earlier_sessions_id_is_shown_inert(tmp_path: Path) -> None:
    """The ids come from the file: an escape sequence or markup in one is shown as text."""
    hostile = "\x1b[2J[bold red]x"
    folder = tmp_path / "projects" / "-tmp-y"
    _old, new = resumed_pair(folder, with_old=False)
    lines = [json.loads(line) for line in new.read_text().splitlines()]
    for line in lines[1:5]:
        line["sessionId"] = hostile
    _write(new, lines)
    assert FMT.replay_json(new)["resumed-from"] == [hostile]  # (JSON: as written)
    row = next(iter(scan_dir(str(tmp_path / "projects"))))
    shown = detail(row, row.path, 300)
    assert "\x1b" not in shown.plain and "[bold red]x" in shown.plain
    assert not any("red" in str(span.style) for span in shown.spans)


def test_followed_in_small_batches_says_what_open_says(tmp_path: Path) -> None:
    """Assembled after every batch (the copies still coming, then the new lines): no
    copy is told before the file's first line of its own id (till then no line shows the
    file resumed), then the copies' usage is the whole file's open's."""
    from helpers import follow_into

    from session_core.formats import CLAUDE_CODE, by_name

    _old, new = resumed_pair(tmp_path / "-tmp-y")
    fmt = by_name(CLAUDE_CODE)
    live = fmt.live(str(new))
    seen: list[Any] = []

    def apply(update: Any) -> None:
        live.apply(update)
        said = live.transcript(writer_alive=True).resumed
        seen.append(None if said is None else said.usage.tokens)

    follow_into(apply, new, 512, fmt.parsed_updates)
    followed = live.transcript(writer_alive=False).to_json()
    opened = fmt.open(new, writer_alive=False).to_json()
    assert followed["usage-copied"] == opened["usage-copied"] and followed["resumed-from"] == [OLD]
    told = seen.index(2320)  # (every copy at once, as soon as the file's own line came)
    assert told > 0 and set(seen[:told]) == {None} and set(seen[told:]) == {2320}, seen
