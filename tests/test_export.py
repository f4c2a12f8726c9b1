"""Exports (Markdown, HTML, JSON) and usage totals: round trips, hostile content, read-only."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import file_loaded, fingerprint, said, wait_for
from markdown_it import MarkdownIt

from session_core import Message, Session
from session_core.errors import TranscriptError
from session_core.export import export, write_export
from story import write_story
from viewer.cli import main

SCRIPT = "<script>alert(1)</script>"
LINK = "[click](javascript:alert(1))"
IMG = "<img src=x onerror=alert(1)>"
FENCES = "before\n```\nbreak out\n````\n`````python\nstill inside"
ESCAPES = "clear \x1b[2J clip \x1b]52;c;SGVsbG8=\x07 end"
HOSTILE = "\n".join([SCRIPT, LINK, IMG, FENCES, ESCAPES])
PAYLOADS = (SCRIPT, LINK, IMG, "\x1b[2J", "\x1b]52")


def hostile_transcript(path: Path) -> Path:
    with Session.create(path, meta={"agent": SCRIPT, "model": LINK}) as s:
        s.append_run_context(
            run_id="run|1",
            digest="d1",
            facts=[("note", IMG)],
            sections=[{"name": SCRIPT, "digest": "sec1", "rendered": HOSTILE}],
        )
        s.append_message(Message(role="user", content=HOSTILE))
        call = {
            "id": "call|1",
            "type": "function",
            "function": {"name": "ev|il<b>", "arguments": '{"q": "</pre><script>x()</script>"}'},
        }
        s.append_message(
            Message(role="assistant", content=LINK, tool_calls=(call,)),
            extra={"usage": {"prompt-tokens": 10, "completion-tokens": 5, "total-tokens": 15}},
        )
        op = s.append_tool_dispatched(
            call_id="call|1", tool="ev|il<b>", arguments="{}", run_id="run|1", round=1
        )
        s.append_message(Message(role="tool", content=HOSTILE, tool_call_id="call|1"))
        s.append_tool_settled(op_id=op, outcome="failed", error=SCRIPT, duration=0.5)
        s.append_event(type="x-note", payload={"text": IMG})
    return path


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    return hostile_transcript(tmp_path / "hostile.jsonl")


@pytest.fixture
def story(tmp_path: Path) -> Path:
    path = tmp_path / "story.jsonl"
    write_story(path, hostile=True)
    return path


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, bytes, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out.encode("utf-8"), out.err


# -- JSON round trips -------------------------------------------------------------------


class TestJsonRoundTrip:
    def test_v1_json_export_equals_replay(self, story: Path, capsysbinary: Any) -> None:
        assert main(["replay", str(story)]) == 0
        replayed = capsysbinary.readouterr().out
        assert main(["export", str(story), "--format", "json"]) == 0
        exported = capsysbinary.readouterr().out
        assert exported == replayed
        assert export(story, "json").encode() == replayed

    def test_agentgo_json_export_equals_replay(self, tmp_path: Path, capsysbinary: Any) -> None:
        path = write_agentgo(tmp_path / "ag.jsonl")
        assert main(["replay", str(path)]) == 0
        replayed = capsysbinary.readouterr().out
        assert main(["export", str(path), "--format", "json", "-o", str(tmp_path / "o.json")]) == 0
        assert (tmp_path / "o.json").read_bytes() == replayed
        assert b'"agentgo-v1"' in replayed

    def test_json_raw_view_is_a_usage_error(self, story: Path, capsys: Any) -> None:
        assert main(["export", str(story), "--format", "json", "--view", "raw"]) == 2


def write_agentgo(path: Path) -> Path:
    """A small agentgo session through its writer: one run, a model call, a tool call."""
    import orjson

    records: list[dict[str, Any]] = []
    sid = "s-1"

    def rec(kind: str, data: dict[str, Any] | None = None, **extra: Any) -> None:
        records.append(
            {
                "seq": len(records),
                "session_id": sid,
                "type": kind,
                "time": f"2026-08-09T10:00:{len(records):02d}Z",
                "data": data or {},
                **extra,
            }
        )

    run = {"run_id": "r1"}
    rec("session_start", {"version": 1})
    rec("run_start", **run)
    rec("agent_start", **run)
    rec("turn_start", {"turn_index": 0}, **run)
    model = {"execution": {"id": "m1", "kind": "model", "attempt": 1, "turn_index": 0}}
    rec("model_request", {"messages": [], "tools": [], "config": {"model": "k2"}}, **run, **model)
    assistant = {
        "kind": "assistant",
        "content": [
            {"type": "text", "text": SCRIPT},
            {"type": "tool_call", "id": "tc|1", "name": "ev|il", "arguments": {"a": LINK}},
        ],
    }
    usage = {"input_tokens": 100, "output_tokens": 20, "cost": 0.01}
    rec("model_exec_end", {"message": assistant, "usage": usage}, **run, **model)
    rec("message_end", {"message": assistant}, **run)
    tool = {"execution": {"id": "t1", "kind": "tool", "attempt": 1, "parent_id": "m1"}}
    rec("tool_exec_start", {"tool": "ev|il", "tool_call_id": "tc|1", "args": {}}, **run, **tool)
    rec("tool_exec_end", {"is_error": False}, **run, **tool)
    result = {
        "kind": "tool_result",
        "tool_call_id": "tc|1",
        "content": [{"type": "text", "text": IMG}],
    }
    rec("message_end", {"message": result}, **run)
    model2 = {"execution": {"id": "m2", "kind": "model", "attempt": 1, "turn_index": 1}}
    rec("model_request", {"messages": [], "tools": [], "config": {"model": "k2"}}, **run, **model2)
    rec("model_exec_end", {"error": "boom"}, **run, **model2)
    rec("agent_end", {"stop_reason": "stop"}, **run)
    rec("run_close", **run)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


# -- Markdown -----------------------------------------------------------------------------


def fenced_blocks(text: str) -> list[str]:
    md = MarkdownIt("commonmark")
    return [t.content for t in md.parse(text) if t.type == "fence"]


class TestMarkdown:
    @pytest.mark.parametrize("view", ["replayed", "raw"])
    def test_hostile_content_stays_in_its_fence(self, hostile: Path, view: str) -> None:
        text = export(hostile, "md", view)  # type: ignore[arg-type]
        md = MarkdownIt("commonmark")
        tokens = md.parse(text)
        kinds = set()
        for token in tokens:
            kinds.add(token.type)
            for child in token.children or []:
                kinds.add(child.type)
        # No raw HTML and no link anywhere: every hostile string is text.
        assert not kinds & {"html_block", "html_inline", "link_open", "image"}
        blocks = fenced_blocks(text)
        shown = HOSTILE.replace("\x1b", "␛").replace("\x07", "␇")
        # The whole hostile content is one fence's body, however many backticks it holds.
        assert blocks.count(shown + "\n") >= 2  # the user message and the tool result
        for payload in PAYLOADS:
            if "\x1b" in payload:
                assert payload not in text
        rendered = md.render(text)
        assert "<script" not in rendered and "<img" not in rendered
        assert 'href="javascript' not in rendered
        assert "␛[2J" in text and "␛]52;c;" in text

    def test_urls_and_addresses_in_text_are_no_links(self, tmp_path: Path) -> None:
        """GitHub-flavoured Markdown links a bare URL, a www. name and an e-mail address
        in text (a header fact, a table cell, a result's preview): an export makes none."""
        url, www, mail = "https://example.com/x?a=1", "www.example.org", "dev@example.net"
        said = f"see {url} or {www}, mail {mail}"
        path = tmp_path / "links.jsonl"
        with Session.create(path, meta={"agent": said}) as s:
            call = {"id": "c1", "type": "function", "function": {"name": url, "arguments": "{}"}}
            s.append_message(Message(role="assistant", content=said, tool_calls=(call,)))
            op = s.append_tool_dispatched(call_id="c1", tool=www, arguments="{}")
            s.append_message(Message(role="tool", content=said, tool_call_id="c1"))
            s.append_tool_settled(op_id=op, outcome="failed", error=said, duration=0.1)
        for view in ("replayed", "raw"):
            text = export(path, "md", view)  # type: ignore[arg-type]
            md = MarkdownIt("gfm-like", {"linkify": True})
            links = [
                child.attrs.get("href")
                for token in md.parse(text)
                for child in token.children or []
                if child.type == "link_open"
            ]
            assert links == [], links
            # (markdown-it links no escaped "@"; GitHub's cmark-gfm still does: a word
            # joiner after it is what breaks its address, as cmark-gfm 2025.10 renders it)
            outside = re.sub(r"(?ms)^```.*?^```", "", text)
            assert "@" in outside and re.findall("@(?!\u2060)", outside) == []
            # and the text reads as written: the escapes and the joiner render as nothing
            assert url in md.render(text) and mail in md.render(text).replace("\u2060", "")

    def test_pipes_in_tool_names_do_not_break_tables(self, hostile: Path) -> None:
        text = export(hostile, "md")
        table = [line for line in text.splitlines() if line.startswith("| failed")]
        assert table, text
        assert "ev\\|il\\<b\\>" in table[0] and "call\\|1" in table[0]
        header = next(line for line in text.splitlines() if line.startswith("| state"))

        # every row has as many unescaped cell separators as the header
        def cells(line: str) -> int:
            return len(re.findall(r"(?<!\\)\|", line))

        assert cells(table[0]) == cells(header)

    def test_raw_view_marks_compaction_and_elision(self, story: Path) -> None:
        text = export(story, "md", "raw")
        assert "folded by the compaction at line 15" in text
        assert "elided by the elision at line 14" in text
        assert "[elided: 30 lines of tests/test_ops.py]\n" in fenced_blocks(text)
        assert "tokens 2,100 → 240" in text
        replayed = export(story, "md", "replayed")
        assert "folded by" not in replayed
        assert "section identity: the same body as printed for run run-1" in text

    def test_tool_calls_paired_with_results_and_outcomes(self, story: Path) -> None:
        text = export(story, "md", "raw")
        assert "**run\\_tests** (call\\_2): failed" in text
        assert "error exit status 1" in text
        assert "result: line 11: FAILED" in text
        assert "never dispatched" in text
        assert "completed, settle never landed" in text

    def test_missing_section_body_is_said(self, tmp_path: Path) -> None:
        path = tmp_path / "t.jsonl"
        with Session.create(path, meta={}) as s:
            s.append_run_context(
                run_id="r",
                digest="d",
                facts=[],
                sections=[{"name": "id", "digest": "x", "rendered": "B"}],
            )
        # rewrite the section as a reference to a line that is not there
        raw = path.read_text().replace('"rendered":"B"', '"rendered-in":"gone"')
        path.write_text(raw)
        assert "body not in this transcript" in export(path, "md")


# -- HTML -------------------------------------------------------------------------------


def test_a_calls_every_argument_is_exported(tmp_path: Path) -> None:
    """A Claude Code Bash call's arguments beyond its command line (its description, a
    timeout, running in the background) are in the Markdown and the HTML, as JSON."""
    import json

    from claude_code_writer import CCWriter, tool_use

    from session_core.export import export

    w = CCWriter()
    w.user("test it")
    args = {"command": "pytest -x", "description": "Run the tests", "run_in_background": True}
    w.assistant("m1", [tool_use("t1", "Bash", **args)])
    w.result("t1", "started in the background")
    path = w.write(tmp_path / "s.jsonl")
    md = export(path, "md")
    assert f"```json\n{json.dumps(args, ensure_ascii=False)}\n```" in md
    assert "run_in_background" in export(path, "html")


def test_durations_are_said_as_the_viewer_says_them(tmp_path: Path) -> None:
    """A call's and a run's time in an export is the viewer's ``duration_text`` ("0.25s",
    "2m05s"): the exports wrote "0.25 s", "125.0 s" and, for v1, the number as written."""
    from claude_code_writer import CCWriter, tool_use

    path = tmp_path / "v1.jsonl"
    s = Session.create(path, meta={"agent": "a"})
    s.append_message(Message(role="user", content="go"))
    op = s.append_tool_dispatched(call_id="c1", tool="fs_read", arguments="{}", run_id="r1")
    s.append_tool_settled(op_id=op, outcome="completed", duration=125.0)
    s.close()
    assert "2m05s" in export(path, "md") and "125.0 s" not in export(path, "md")
    w = CCWriter()
    w.user("test it")
    w.assistant("m1", [tool_use("t1", "Bash", command="ls")])
    w.result("t1", "a")
    cc = w.write(tmp_path / "s.jsonl")
    from session_core import open_transcript

    (call,) = open_transcript(cc).tool_operations
    assert call.duration is not None
    from session_core.text import duration_text

    assert f"| {duration_text(call.duration)} |" in export(cc, "md")


class TestHtml:
    @pytest.mark.parametrize("view", ["replayed", "raw"])
    def test_hostile_content_is_escaped(self, hostile: Path, view: str) -> None:
        page = export(hostile, "html", view)  # type: ignore[arg-type]
        assert page.count("<script") == 0
        assert "<img" not in page and "onerror=alert(1)>" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "&lt;img src=x onerror=alert(1)&gt;" in page
        assert "\x1b" not in page and "\x07" not in page
        assert "␛[2J" in page
        assert "default-src &#x27;none&#x27;; style-src &#x27;unsafe-inline&#x27;" in page
        # nothing is fetched: no src=, no external href, no @import / url()
        tags = re.findall(r"<[a-zA-Z][^>]*>", page)
        assert not [t for t in tags if re.search(r"\s(src|on\w+)=", t)]
        assert re.findall(r'href="([^"]*)"', page) == [
            h for h in re.findall(r'href="([^"]*)"', page) if h.startswith("#")
        ]
        assert "@import" not in page and "url(" not in page

    def test_agentgo_html_has_its_sections(self, tmp_path: Path) -> None:
        page = export(write_agentgo(tmp_path / "ag.jsonl"), "html")
        for title in ("Conversation", "Runs", "Calls", "Checkpoints"):
            assert f">{title}" in page
        assert "&lt;script&gt;" in page and "<script" not in page
        assert "120 tok (100 in + 20 out)" in page
        # (its failed call returned nothing, no message nor usage: no response, none
        # that did not report)
        assert "responses reported" not in page


# -- read-only and writing ----------------------------------------------------------------


class TestReadOnly:
    def test_exports_never_touch_the_transcript(self, story: Path, tmp_path: Path) -> None:
        before = fingerprint(story)
        for fmt in ("md", "html", "json"):
            for view in ("replayed", "raw"):
                if fmt == "json" and view == "raw":
                    continue
                export(story, fmt, view)  # type: ignore[arg-type]
                assert (
                    main(
                        [
                            "export",
                            str(story),
                            "--format",
                            fmt,
                            "--view",
                            view,
                            "-o",
                            str(tmp_path / f"out.{fmt}"),
                        ]
                    )
                    == 0
                )
        assert fingerprint(story) == before

    def test_output_refuses_the_transcript(self, story: Path, capsys: Any) -> None:
        before = fingerprint(story)
        for spelling in (str(story), str(story.parent / "." / story.name)):
            assert main(["export", str(story), "--format", "md", "-o", spelling]) == 1
            assert "never writes over its transcript" in capsys.readouterr().err
        link = story.parent / "link.jsonl"
        link.symlink_to(story)
        assert main(["export", str(story), "--format", "md", "-o", str(link)]) == 1
        with pytest.raises(TranscriptError):
            write_export("x", story, link)
        assert fingerprint(story) == before
        # any other transcript too (a subagent's file the export reads, another session)
        other = story.parent / "other.jsonl"
        other.write_bytes(story.read_bytes())
        kept = fingerprint(other)
        assert main(["export", str(story), "--format", "md", "-o", str(other)]) == 1
        assert "is a transcript; an export never writes over one" in capsys.readouterr().err
        assert fingerprint(other) == kept

    def test_output_replaces_atomically(self, story: Path, tmp_path: Path) -> None:
        out = tmp_path / "out.md"
        out.write_text("old")
        assert main(["export", str(story), "--format", "md", "-o", str(out)]) == 0
        assert out.read_text() == export(story, "md")
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(".tailscope-export-")]

    def test_bad_file_is_a_clear_error(self, tmp_path: Path, capsys: Any) -> None:
        bad = tmp_path / "bad.jsonl"
        bad.write_text(
            '{"v":1,"type":"session-meta","id":"a","ts":"t","payload":{}}\nnot json\n{}\n'
        )
        assert main(["export", str(bad), "--format", "html"]) == 1
        err = capsys.readouterr().err
        assert "bad.jsonl" in err and "Traceback" not in err


# -- a real browser -------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium")


def chromium(args: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={tmp_path / 'chromium-profile'}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.chromium
@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (Debian's chromium package)")
def test_html_in_a_real_browser(hostile: Path, tmp_path: Path) -> None:
    page = tmp_path / "hostile.html"
    page.write_text(export(hostile, "html", "raw"), encoding="utf-8")
    done = chromium(["--dump-dom", page.as_uri()], tmp_path)
    dom = done.stdout
    assert "</html>" in dom, done.stderr[-2000:]
    assert "<script" not in dom.lower()
    assert "<img" not in dom.lower()
    # the hostile strings are there as text (the DOM dump re-escapes them)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert "&lt;img src=x onerror=alert(1)&gt;" in dom
    assert "[click](javascript:alert(1))" in dom
    assert "␛[2J" in dom and "\x1b" not in dom
    shot = tmp_path / "hostile.png"
    chromium([f"--screenshot={shot}", "--window-size=1300,1600", page.as_uri()], tmp_path)
    assert shot.exists() and shot.stat().st_size > 10_000
    keep = os.environ.get("TAILSCOPE_KEEP_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)


# -- the viewer's palette -------------------------------------------------------------------


def _palette_highlights(app: Any, title: str) -> bool:
    """The command palette is open with a command starting with ``title`` highlighted."""
    from textual.command import CommandList, CommandPalette

    screen = app.screen
    if not isinstance(screen, CommandPalette):
        return False
    commands = screen.query_one(CommandList)
    if commands.highlighted is None:
        return False
    hit = commands.get_option_at_index(commands.highlighted).hit
    return str(hit.text or hit.prompt).startswith(title)


async def test_palette_export_writes_beside_a_copy(story: Path, tmp_path: Path) -> None:
    from textual.widgets import Button, Input, RadioButton, RadioSet

    from viewer.app import TailscopeApp
    from viewer.screens.export import ExportScreen
    from viewer.screens.model_screen import ModelScreen

    copy = tmp_path / "copy" / "story.jsonl"
    copy.parent.mkdir()
    shutil.copy2(story, copy)
    before = fingerprint(copy)
    app = TailscopeApp(copy, force_polling=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await file_loaded(pilot, ModelScreen)
        await app.run_action("command_palette")
        await pilot.press(*"Export")
        await wait_for(pilot, lambda: _palette_highlights(app, "Export"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
        path = app.screen.query_one("#export-path", Input)
        assert path.value == str(copy.parent / "story.html")
        # Markdown: the path follows the format
        markdown = app.screen.query_one("#export-format", RadioSet).query(RadioButton)[0]
        await pilot.click(markdown)
        await wait_for(pilot, lambda: path.value == str(copy.parent / "story.md"))
        (copy.parent / "story.md").write_text("old")
        status = app.screen.query_one("#export-status")
        go = app.screen.query_one("#export-go", Button)
        await pilot.click(go)
        await wait_for(pilot, lambda: "exists" in str(status.render()))
        assert (copy.parent / "story.md").read_text() == "old"  # asks first
        assert isinstance(app.screen, ExportScreen) and str(go.label) == "Overwrite"
        # A button ignores clicks while it shows the last press (its "-active" class).
        await wait_for(pilot, lambda: not go.has_class("-active"))
        await pilot.click(go)  # Overwrite
        await wait_for(pilot, lambda: not isinstance(app.screen, ExportScreen))
    written = (copy.parent / "story.md").read_text()
    assert written == export(copy, "md", "replayed")
    assert fingerprint(copy) == before


async def test_the_export_dialog_says_its_choice_and_a_cancel(story: Path, tmp_path: Path) -> None:
    """Its radio buttons tell the choice by colour alone, and a Tab too many landed on
    Cancel, which closed it saying nothing (the viewer audit): the choice is in words,
    and a cancel is said."""
    from textual.widgets import RadioButton, RadioSet

    from viewer.app import TailscopeApp
    from viewer.screens.export import ExportScreen
    from viewer.screens.model_screen import ModelScreen

    copy = tmp_path / "copy" / "story.jsonl"
    copy.parent.mkdir()
    shutil.copy2(story, copy)
    app = TailscopeApp(copy, force_polling=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await file_loaded(pilot, ModelScreen)
        app.push_screen(ExportScreen(str(copy)))
        await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
        status = app.screen.query_one("#export-status")
        assert str(status.render()).startswith("HTML, the replayed view")
        raw = app.screen.query_one("#export-view", RadioSet).query(RadioButton)[1]
        await pilot.click(raw)
        await wait_for(pilot, lambda: str(status.render()).startswith("HTML, the raw view"))
        app.screen.query_one("#export-path").focus()
        await pilot.press("tab", "tab", "enter")  # (the Export button, then Cancel)
        await wait_for(pilot, lambda: not isinstance(app.screen, ExportScreen))
        assert said(app, "Export cancelled: nothing written.")
        assert not (copy.parent / "story.html").exists()


async def test_escape_while_exporting_stops_it_and_writes_nothing(
    story: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Escape while the export is written said "nothing written", and the export went on
    to write the file (an audit: 9 MB, 20 s later). It is stopped now, its temporary
    file removed, and only then said."""
    import time

    from textual.widgets import Button, Input

    import viewer.screens.export as export_screen
    from viewer.app import TailscopeApp
    from viewer.screens.export import ExportScreen
    from viewer.screens.model_screen import ModelScreen

    def slow(path: object, fmt: object, view: object, out: Any) -> None:
        for _ in range(2000):  # (20 s, unless stopped)
            out.write(b"x" * 1000)
            time.sleep(0.01)

    monkeypatch.setattr(export_screen, "export_into", slow)
    folder = tmp_path / "out"
    folder.mkdir()
    target = folder / "big.html"
    app = TailscopeApp(story, force_polling=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await file_loaded(pilot, ModelScreen)
        app.push_screen(ExportScreen(str(story)))
        await wait_for(pilot, lambda: isinstance(app.screen, ExportScreen))
        app.screen.query_one("#export-path", Input).value = str(target)
        app.screen.query_one("#export-go", Button).press()
        await wait_for(pilot, lambda: any(folder.iterdir()))  # (its temporary file)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ExportScreen), 5)
        assert said(app, "Export cancelled: nothing written.")
        await pilot.pause(0.3)
    assert list(folder.iterdir()) == []


def test_a_folder_that_is_not_there_is_said_of_the_users_path(story: Path, tmp_path: Path) -> None:
    """The viewer's export into a missing folder said "[Errno 2] ...: '/x/.tailscope-
    export-ef7c…'", a name of ours; the error is the user's path now."""
    target = tmp_path / "nowhere" / "x.html"
    with pytest.raises(TranscriptError) as caught:
        write_export("text", target, story)
    assert caught.value.path == str(target) and ".tailscope-export" not in str(caught.value)
    assert "No such file or directory" in str(caught.value)
