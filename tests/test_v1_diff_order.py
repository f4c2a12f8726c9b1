"""v1's ``tailscope diff`` and Diff tab list what is sent in the order it is sent: a
compaction's summary, written after the messages it kept, is listed where it is sent
(``[2 of 5 sent next]``), after what it folded; a summary folded later is ``-`` (naming
the compaction that folded it), one elided ``~``, so the ``=``/``+``/``~`` rows are the
messages sent next. Files written by the library's Session writer."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from helpers import file_loaded, screen_lines, screen_text, wait_for

from session_core import Message, Session
from session_core.reader import replay_file
from story import OLD_MTIME
from viewer.app import TailscopeApp
from viewer.cli import main
from viewer.screens.model_screen import ModelScreen

USAGE = {"usage": {"prompt-tokens": 100, "completion-tokens": 10, "total-tokens": 110}}


def _call(cid: str, args: str = '{"path":"a.py"}') -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": "fs_read", "arguments": args}}


def two_named(path: Path) -> dict[str, str]:
    """SYS U1 A1 U2 A2, C1 through A1, C2 through C1's summary, U3: sent SYS S2 U2 A2 U3."""
    with Session.create(path, meta={"agent": "t"}) as s:
        ids = {"sys": s.append_message(Message(role="system", content="SYS", sysprompt=True))}
        ids["u1"] = s.append_message(Message(role="user", content="U1 first"))
        ids["a1"] = s.append_message(Message(role="assistant", content="A1 first"), extra=USAGE)
        ids["u2"] = s.append_message(Message(role="user", content="U2 second"))
        ids["a2"] = s.append_message(Message(role="assistant", content="A2 second"), extra=USAGE)
        ids["c1"] = s.append_compaction("S1 of U1 A1", ids["a1"], tokens_before=9, tokens_after=1)
        ids["c2"] = s.append_compaction("S2 of S1", ids["c1"], tokens_before=5, tokens_after=1)
        ids["u3"] = s.append_message(Message(role="user", content="U3 third"))
    os.utime(path, (OLD_MTIME, OLD_MTIME))  # its writer long gone
    return ids


def elide_fold(path: Path) -> dict[str, str]:
    """A call alone, its result elided then folded; the summary and A2 elided since."""
    with Session.create(path, meta={"agent": "t"}) as s:
        ids = {"sys": s.append_message(Message(role="system", content="SYS", sysprompt=True))}
        ids["u1"] = s.append_message(Message(role="user", content="U1 read"))
        ids["a1"] = s.append_message(
            Message(role="assistant", content="", tool_calls=(_call("c1"),)), extra=USAGE
        )
        ids["t1"] = s.append_message(Message(role="tool", content="T1 result", tool_call_id="c1"))
        ids["e1"] = s.append_elision([{"id": ids["t1"], "stub": "[T1 elided]"}])
        ids["a2"] = s.append_message(Message(role="assistant", content="A2 text"), extra=USAGE)
        ids["c1"] = s.append_compaction("S1 incl T1", ids["t1"], tokens_before=8, tokens_after=1)
        ids["u2"] = s.append_message(Message(role="user", content="U2 next"))
        ids["e2"] = s.append_elision(
            [{"id": ids["c1"], "stub": "[S1 elided]"}, {"id": ids["a2"], "stub": "[A2 elided]"}]
        )
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    return ids


def _diff(path: Path, capsys: Any) -> list[str]:
    assert main(["diff", str(path)]) == 0
    return capsys.readouterr().out.splitlines()


def _rows(lines: list[str]) -> list[tuple[str, int, str]]:
    """Each row's sign, line and id (its first 8)."""
    found = []
    for line in lines[4:]:
        m = re.match(r"([=~+-]) line +(\d+)  \S+ +(\S{8})", line)
        if m:
            found.append((m.group(1), int(m.group(2)), m.group(3)))
    return found


def _sent_rows_are_the_count(lines: list[str], rows: list[tuple[str, int, str]]) -> None:
    sent = int(re.search(r"(\d+) messages sent next", lines[0]).group(1))  # type: ignore[union-attr]
    assert sum(sign in "=+~" for sign, _, _ in rows) == sent


def test_a_summary_is_listed_where_it_is_sent(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "two.jsonl"
    ids = two_named(path)
    lines = _diff(path, capsys)
    rows = _rows(lines)
    short = {v[:8]: k for k, v in ids.items()}
    assert [(sign, line, short[i]) for sign, line, i in rows] == [
        ("=", 2, "sys"),
        ("-", 3, "u1"),
        ("-", 4, "a1"),
        ("-", 7, "c1"),  # a summary folded since: not sent
        ("+", 8, "c2"),  # sent second, before the messages C1 left (its line: after them)
        ("=", 5, "u2"),
        ("=", 6, "a2"),
        ("=", 9, "u3"),
    ]
    _sent_rows_are_the_count(lines, rows)
    sent = [i for sign, _, i in rows if sign in "=+~"]
    assert sent == [m[:8] for m in replay_file(str(path), tolerate_tail=False).message_ids()]
    text = "\n".join(lines)
    # the folded summary still says it was one, and which compaction folded it
    at = next(n for n, line in enumerate(lines) if line.startswith("- line      7"))
    assert "compaction through" in lines[at] and "summary: S1 of U1 A1" in lines[at + 1]
    assert f"folded by compaction {ids['c2'][:8]} (line 8)" in lines[at + 2]
    assert "fallback no [2 of 5 sent next]" in text


def test_an_elided_summary_is_tilde_and_a_call_alone_is_named(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "elide.jsonl"
    ids = elide_fold(path)
    lines = _diff(path, capsys)
    rows = _rows(lines)
    short = {v[:8]: k for k, v in ids.items()}
    assert [(sign, line, short[i]) for sign, line, i in rows] == [
        ("=", 2, "sys"),
        ("-", 3, "u1"),
        ("-", 4, "a1"),
        ("-", 5, "t1"),
        ("~", 8, "c1"),  # the summary, sent as its stub
        ("~", 7, "a2"),
        ("=", 9, "u2"),
    ]
    _sent_rows_are_the_count(lines, rows)
    text = "\n".join(lines)
    assert "line      4  assistant " + ids["a1"][:8] + "  → fs_read a.py" in text
    assert f"elided by {ids['e1'][:8]} (line 6) at " in text
    assert f"elided by {ids['e2'][:8]} (line 10) at " in text
    assert "[2 of 4 sent next]" in text
    at = next(n for n, line in enumerate(lines) if line.startswith("~ line      8"))
    assert "sent:     [S1 elided]" in "\n".join(lines[at : at + 6])


def test_the_md_export_counts_what_a_compaction_folds(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "two.jsonl"
    two_named(path)
    for view, said in (("replayed", "folds 1 message through"), ("raw", "folds 2 messages")):
        out = tmp_path / f"{view}.md"
        assert main(["export", "--format", "md", "--view", view, str(path), "-o", str(out)]) == 0
        assert f"compaction summary: {said}" in out.read_text()
    assert "folds 1 messages" not in out.read_text()


async def test_the_diff_tab_reads_in_the_order_sent(tmp_path: Path) -> None:
    path = tmp_path / "two.jsonl"
    two_named(path)
    app = TailscopeApp(path)
    async with app.run_test(size=(140, 45)) as pilot:
        await file_loaded(pilot, ModelScreen)
        await pilot.press("2")
        await wait_for(pilot, lambda: "sent as written" in screen_text(app))
        lines = screen_lines(app)
        heads = [
            (m.group(1), int(m.group(2)), m.group(3))
            for m in (re.search(r"([=~+-]) line (\d+) (\w+) ", line) for line in lines)
            if m
        ]
        assert heads == [
            ("=", 2, "system"),
            ("-", 3, "user"),
            ("-", 4, "assistant"),
            ("-", 7, "user"),
            ("+", 8, "user"),
            ("=", 5, "user"),
            ("=", 6, "assistant"),
            ("=", 9, "user"),
        ]
        # the right-hand column, read down: what is sent, in the order sent
        right = [line.split("│")[-1].strip() for line in lines if "│" in line]
        sent = [r for r in right if r and not r.startswith("(not sent")]
        assert sent == ["SYS", "S2 of S1", "U2 second", "A2 second", "U3 third"]
        text = "\n".join(lines)
        # the folded summary names the compaction that folded it, as a message row does
        assert "(not sent: folded by the compaction at line 8)" in text
        row = next(line for line in lines if "line 7 user" in line)
        assert "folded into the summary of the compaction at line 8" in row
        assert "[2 of 5 sent next]" in next(line for line in lines if "line 8 user" in line)


async def test_the_diff_tab_marks_an_elided_summary_and_names_a_call(tmp_path: Path) -> None:
    path = tmp_path / "elide.jsonl"
    elide_fold(path)
    app = TailscopeApp(path)
    async with app.run_test(size=(160, 45)) as pilot:
        await file_loaded(pilot, ModelScreen)
        await pilot.press("2")
        await wait_for(pilot, lambda: "sent as written" in screen_text(app))
        lines = screen_lines(app)
        summary = next(line for line in lines if "line 8 user" in line)
        assert "~ line 8 user compaction summary: folded 3" in summary
        assert "[2 of 4 sent next]; elided at line 10; stub sent" in summary
        assert "elided at line 10; stub sent" in next(line for line in lines if "line 7 " in line)
        call = lines[next(n for n, line in enumerate(lines) if "line 4 assistant" in line) + 1]
        assert "→ fs_read a.py" in call
        right = [line.split("│")[-1].strip() for line in lines if "│" in line]
        assert [r for r in right if not r.startswith("(not sent")] == [
            "SYS",
            "[S1 elided]",
            "[A2 elided]",
            "U2 next",
        ]


def test_the_head_says_one_message_in_the_singular(tmp_path: Path, capsys: Any) -> None:
    """It said "1 message lines in the file, 1 messages sent next" (``text.count``'s rule)."""
    path = tmp_path / "one.jsonl"
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_message(Message(role="user", content="only"))
    assert main(["diff", str(path)]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert (
        head
        == f"{path}: 1 message line in the file, 1 message sent next; 0 compactions, 0 elisions"
    )
