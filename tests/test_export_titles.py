"""An export's title is the session's title as the browser's row gives it (the meta's
``title``, else its first prompt), in every format: a v1 export was titled by its agent
though its meta had a title, and without one though the row showed its first prompt; a
Codex export by its session id, an agentgo export by a fixed phrase. A big file's row
(its head and a tail window) finds the same title in its head. A message whose response
reported no usage says "usage: unknown", once."""

from __future__ import annotations

from pathlib import Path

import pytest
from codex_writer import SESSION, RolloutWriter
from format_fixtures import BUILT_IN

from session_core import Message, Session
from session_core.export import document, export
from session_core.formats import by_name
from session_core.scan import scan_file


def _v1(path: Path, meta: dict[str, str]) -> Path:
    with Session.create(path, meta=meta) as s:
        s.append_message(Message(role="user", content="go"))
        s.append_message(Message(role="assistant", content="done"))  # (no usage reported)
    return path


@pytest.mark.parametrize(
    ("meta", "title"),
    [
        ({"agent": "nightly", "title": "overnight  refactor\nof the parser"}, None),
        ({"agent": "nightly"}, "go"),  # (its first prompt)
    ],
    ids=["titled", "untitled"],
)
def test_a_v1_export_is_titled_as_the_browser_titles_it(
    tmp_path: Path, meta: dict[str, str], title: str | None
) -> None:
    path = _v1(tmp_path / "t.jsonl", meta)
    shown = scan_file(path, live_window=0).title
    heading = export(path, "md").splitlines()[0]
    if title is None:  # (the browser's: one line)
        assert shown == "overnight refactor of the parser"
        assert heading == f"# {shown}"
    else:
        assert heading == f"# {title}"


def test_a_v1_export_with_neither_title_nor_prompt_is_named_by_its_agent(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "nightly"}) as s:
        s.append_message(Message(role="assistant", content="done"))
    assert scan_file(path, live_window=0).title is None  # (the row: its path)
    assert export(path, "md").splitlines()[0] == "# nightly — tailscope export"


@pytest.mark.parametrize("fmt", sorted(BUILT_IN))
@pytest.mark.parametrize("budget", [1 << 20, 1], ids=["whole", "windowed"])
def test_every_format_exports_the_title_its_row_shows(
    tmp_path: Path, fmt: str, budget: int
) -> None:
    path = BUILT_IN[fmt](tmp_path)
    # (windowed: the row reads the head and the last 300 bytes, which hold no prompt)
    row = scan_file(path, live_window=0, budget=budget, window=300)
    assert row.title
    assert document(path).title == row.title
    assert f"<title>{row.title}</title>" in export(path, "html")


def test_an_unreported_usage_is_said_once(tmp_path: Path) -> None:
    text = export(_v1(tmp_path / "t.jsonl", {"agent": "a"}), "md")
    assert "usage: unknown (not reported)" in text.replace("\\", "")
    assert "usage unknown (not reported)" not in text.replace("\\", "")


def test_a_fallback_title_is_capped_as_every_title_is(tmp_path: Path) -> None:
    """An agentgo session with no prompt is titled by its id: one line of 200 characters
    at most, as a prompt's title is (a 300-character id gave a 300-character title)."""
    import json

    sid = "sid\n# x" + "z" * 300
    records = [
        {"type": "session_start", "seq": 0, "session_id": sid, "data": {"version": 1}},
        {"type": "run_close", "seq": 1, "session_id": sid, "run_id": "r1", "data": {}},
    ]
    path = tmp_path / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    title = document(path).title
    assert title == ("sid # x" + "z" * 300)[:199] + "…"
    assert export(path, "md").splitlines()[0] == f"# {title.replace('#', chr(92) + '#')}"


ABSENT = object()  # (a ``thread_name_updated`` without its ``thread_name``)


def test_a_codex_threads_name_is_its_title(tmp_path: Path) -> None:
    """A rollout's ``thread_name_updated`` (the name the user gave the thread; the latest
    wins, none where it was cleared) is its title, as Claude Code's custom title is: in
    the row, the export and the meta (``replay``); a name a fork copied from its parent
    (the parent's thread id) is not. It was the first prompt."""

    def rollout(*names: tuple[str, object]) -> Path:
        path = tmp_path / f"rollout-{len(list(tmp_path.iterdir()))}.jsonl"
        w = RolloutWriter(path)
        w.session_meta()
        w.task_started("t1")
        w.message("user", "look at the screenshot and fix the build")
        w.event("user_message", message="look at the screenshot and fix the build")
        for thread, name in names:
            if name is ABSENT:  # (Codex leaves a cleared name out)
                w.event("thread_name_updated", thread_id=thread)
            else:
                w.event("thread_name_updated", thread_id=thread, thread_name=name)
        w.message("assistant", "Fixed.")
        w.task_complete("t1")
        return path

    prompt = "look at the screenshot and fix the build"
    cases = {
        rollout((SESSION, "Build fix"), (SESSION, "Fix the  build")): "Fix the build",
        rollout((SESSION, "Fix the build"), (SESSION, None)): prompt,  # (cleared)
        rollout((SESSION, "Fix the build"), (SESSION, ABSENT)): prompt,  # (cleared)
        rollout((SESSION, "Fix the build"), (SESSION, " ")): prompt,  # (cleared)
        # a name of no type Codex writes changes nothing (it cleared the title)
        rollout((SESSION, "Fix the  build"), (SESSION, 5)): "Fix the build",
        rollout((SESSION, "Fix the  build"), (SESSION, ["x"])): "Fix the build",
        rollout(("019c-parent", "Parent's name")): prompt,  # (a fork's copy)
    }
    for path, title in cases.items():
        assert scan_file(path, live_window=0).title == title
        assert export(path, "md").splitlines()[0] == f"# {title}"
        meta = by_name("codex").open(path, writer_alive=False).meta
        assert meta.get("title") == (None if title == prompt else "Fix the  build")


def test_a_long_first_prompt_is_cut_alike_in_every_format(tmp_path: Path) -> None:
    """A Claude Code title (its first prompt's first line) was cut at 120 characters, the
    others' at 200: one limit, one cut, ``…`` where it cut."""
    from claude_code_writer import CCWriter

    prompt = " ".join(f"w{n}" for n in range(150))  # (590 characters)
    expected = prompt[:199] + "…"
    w = CCWriter()
    w.user(prompt)
    claude = w.write(tmp_path / "cc.jsonl")
    with Session.create(tmp_path / "v1.jsonl") as s:
        s.append_message(Message(role="user", content=prompt))
    for path in (claude, tmp_path / "v1.jsonl"):
        assert document(path).title == expected, path
        assert scan_file(path, live_window=0).title == expected, path
