"""What one row of an item says, on every surface that shows one: a call by its main
argument (the tool operations tab's rule), a response whose text is blank by its call."""

from __future__ import annotations

import os
from pathlib import Path

from claude_code_writer import CCWriter, text, tool_use

from session_core.diff_model import model_diff
from session_core.formats import by_name
from session_core.model import Part
from session_core.search import call_arguments, call_said
from viewer.widgets.model_diff import _item_row


def _blank_then_calls(tmp_path: Path) -> Path:
    """A response whose first text is blank, then thinking and two calls (line 2)."""
    w = CCWriter()
    w.user("Work on the bead")
    w.assistant(
        "m1",
        [
            text("\n\n"),
            {"type": "thinking", "thinking": "Let me look at the bead first.", "signature": "s"},
            tool_use("c1", "Bash", command="bd show x", description="Show the bead"),
            tool_use("c2", "Bash", command="bd ready", description="Find ready work"),
        ],
    )
    w.result("c1", "the bead")
    w.result("c2", "ready work")
    w.assistant("m2", [text("Done.")], stop="end_turn")
    return w.write(tmp_path / "s.jsonl")


def test_a_row_of_a_blank_text_says_its_first_call(tmp_path: Path) -> None:
    path = _blank_then_calls(tmp_path)
    t = by_name("claude-code").open(str(path), writer_alive=False)
    rows = "".join(model_diff(t)).splitlines()
    response = next(row for row in rows if "line      2 assistant" in row)
    # (the tool named: a command, not something the assistant said)
    assert 'assistant → Bash bd show x {"description":"Show the bead"}' in response
    result = next(row for row in rows if "line      6 user" in row)
    assert "user      ← result the bead" in result
    # The Diff tab's row says the same.
    item = next(i for i in t.raw if i.line == 2)
    assert _item_row("-", item).endswith(
        'assistant: → Bash bd show x  {"description":"Show the bead"}'
    )


def test_a_call_reads_by_its_main_argument_first() -> None:
    edit = {"replace_all": False, "file_path": "/p/a.py", "old_string": "x", "new_string": "y"}
    part = Part("tool-call", text='{"replace_all":false,…', name="Edit", data=edit)
    assert call_arguments(part).startswith("/p/a.py  {")
    assert call_said(part).startswith("→ Edit /p/a.py  {")
    # v1's arguments as written (a JSON string), Codex's argv alike
    v1 = Part("tool-call", '{"n":1,"path":"a.py"}', name="fs_read", data='{"n":1,"path":"a.py"}')
    assert call_said(v1) == '→ fs_read a.py  {"n":1}'
    argv = {"command": ["bash", "-lc", "ls -la"], "workdir": "/p"}
    assert call_arguments(Part("tool-call", "", name="shell", data=argv)).startswith("ls -la")
    # no arguments known: its text
    assert call_arguments(Part("tool-call", "raw text", name="x")) == "raw text"


NOTICE = (
    "<task-notification>\n<task-id>b76</task-id>\n<output-file>/tmp/t/b76.output</output-file>\n"
    '<status>completed</status>\n<summary>Background command "Run tests" completed (exit code 0)'
    "</summary>\n</task-notification>\nRead the output file to retrieve the result: /tmp/t/b76"
)
COMMAND = (
    "<command-name>/review</command-name>\n            <command-message>review</command-message>"
    "\n            <command-args>the auth module</command-args>"
)


def _wrapped(tmp_path: Path) -> Path:
    """A slash command (line 1), its output (2) and a stderr (3), an answer (4), then a
    background task's notice as the next turn's prompt (5) and its answer (6)."""
    w = CCWriter()
    w.user(COMMAND)
    w.user("<local-command-stdout>See ya!</local-command-stdout>")
    w.user("<local-command-stderr>no such file</local-command-stderr>")
    w.assistant("m1", [text("Reviewed.")], stop="end_turn")
    w.user(NOTICE)
    w.assistant("m2", [text("The tests pass.")], stop="end_turn")
    return w.write(tmp_path / "s.jsonl")


SUMMARY = 'Background command "Run tests" completed (exit code 0)'


def test_wrapped_texts_read_as_typed_on_every_row_and_export(tmp_path: Path) -> None:
    from session_core.export import export

    path = _wrapped(tmp_path)
    t = by_name("claude-code").open(str(path), writer_alive=False)
    rows = "".join(model_diff(t)).splitlines()
    said = {int(row[6:13]): row[24:].strip() for row in rows if row[2:6] == "line"}
    assert said[1] == "/review the auth module"
    assert said[2] == "stdout: See ya!"
    assert said[3] == "stderr: no such file"
    assert said[5].startswith(SUMMARY + " Read the output")
    from session_core.diff_model import row_words

    words = row_words(t.format)  # the Diff tab's rows alike
    by_line = {item.line: item for item in t.raw}
    assert _item_row("=", by_line[1], words=words).endswith("user: /review the auth module")
    assert _item_row("=", by_line[5], words=words).startswith(f"  = line 5 user: {SUMMARY}")
    # A run's prompt and the title: the command as typed, the notice's summary.
    assert t.runs[0].prompt == "/review the auth module"
    assert t.meta["title"] == "/review the auth module"
    first = CCWriter()  # (a session opened by a notice is named by its summary)
    first.user(NOTICE)
    first.assistant("m1", [text("Seen.")], stop="end_turn")
    noticed = by_name("claude-code").open(
        str(first.write(tmp_path / "n.jsonl")), writer_alive=False
    )
    assert noticed.meta["title"] == SUMMARY
    assert t.runs[-1].prompt is not None and t.runs[-1].prompt.startswith(SUMMARY + "\n")
    for fmt in ("md", "html"):
        out = export(str(path), fmt, "replayed")  # type: ignore[arg-type]
        assert "/review the auth module" in out and "stdout: See ya!" in out, fmt
        assert "stderr: no such file" in out and "completed (exit code 0)" in out, fmt
        assert "command-name" not in out and "task-notification" not in out, fmt
    # The raw view (every line as written) and the JSON export keep each line's content
    # as written.
    assert "command-name" in export(str(path), "md", "raw")
    json_out = export(str(path), "json")
    assert "<command-name>/review</command-name>" in json_out
    assert "<task-notification>" in json_out


async def test_the_conversation_shows_them_readable_the_raw_view_as_written(
    tmp_path: Path,
) -> None:
    from model_screen_helpers import IDLE, opened

    path = _wrapped(tmp_path)
    os.utime(path, (IDLE, IDLE))
    async with opened(path) as (_app, pilot, screen):
        view = screen.conversation

        def drawn(line: int) -> str:
            at = next(i for i, item in enumerate(view.items) if item.line == line)
            return "\n".join(text.plain for text in view.block_lines(at, 100))

        assert "/review the auth module" in drawn(1) and "command-name" not in drawn(1)
        assert "stdout: See ya!" in drawn(2)
        assert SUMMARY in drawn(5) and "task-notification" not in drawn(5)
        await pilot.press("r")
        await pilot.pause()
        assert view.mode == "raw"
        assert "<command-name>/review</command-name>" in drawn(1)
        assert "<task-notification>" in drawn(5)


def test_a_wrapped_text_is_read_in_time_linear_in_its_length() -> None:
    """Each opening tag that no closing tag followed was searched to the text's end (a
    ``<(tag)>(.*?)</\\1>`` pattern over the whole text): a 208 KB line of ``<bash-stdout>``
    took 22 s to ``check``, and 1 MB would take minutes. Now 1 MB of each such shape is
    read in well under a second (128 KB first: a quadratic reading fails in seconds)."""
    import time

    from session_core.formats.claude_code.blocks import readable

    shapes = {
        "output": lambda n: "<bash-stdout>" * (n // 13),
        "notice": lambda n: f"<task-notification>{'<summary>' * (n // 9)}</task-notification>",
        "command": lambda n: "<command-name>" + "<local-command-stdout>" * (n // 22),
        "mixed": lambda n: "<bash-stderr>" + "<bash-stdout><command-args><bash-input>" * (n // 38),
    }
    for size in (1 << 17, 1 << 20):
        for shape, make in shapes.items():
            text_of_it = make(size)
            began = time.perf_counter()
            assert readable(text_of_it) is None, shape  # (nothing in it is closed)
            took = time.perf_counter() - began
            assert took < 1.0, (shape, size, took)
    # What is closed is still read, each element whole, in order.
    many = "<bash-stdout>x</bash-stdout><bash-stderr>y</bash-stderr>" * 20_000
    began = time.perf_counter()
    said = readable(many)
    assert time.perf_counter() - began < 1.0
    assert said is not None and said.split("\n")[:3] == ["stdout: x", "stderr: y", "stdout: x"]
    # A tag inside another's text is that text, not a command (it was read as one).
    inner = "<bash-stdout>a <command-name>/x</command-name></bash-stdout>"
    assert readable(inner) == "stdout: a <command-name>/x</command-name>"


def test_a_search_finds_the_readable_words_shown_and_the_text_as_written(
    tmp_path: Path,
) -> None:
    """The conversation showed ``stdout: See ya!`` and a notice's status, but its search
    read the text as written alone: ``/stdout: See`` found nothing (the Diff tab's search
    found it). The search reads both, in either view."""
    from session_core.search import find, item_search_text
    from session_core.vocabulary import readable_of

    path = _wrapped(tmp_path)
    t = by_name("claude-code").open(str(path), writer_alive=False)
    readable = readable_of(t.format)
    for view in (t.messages, t.raw):
        lines = {
            term: [view[i].line for i in find(view, term, readable=readable) or []]
            for term in ("stdout: See", "stderr: no such", "/review the auth", "command-args")
        }
        assert lines == {
            "stdout: See": [2],
            "stderr: no such": [3],
            "/review the auth": [1],
            "command-args": [1],  # (as written: the raw view's)
        }
    built = next(item for item in t.raw if item.line == 2)  # (an item built: the same)
    assert "stdout: See ya!" in item_search_text(built, readable)
    assert "stdout:" not in item_search_text(built)  # (no format's words: as written)


def test_a_search_that_reads_readable_words_skips_no_line_by_its_bytes(tmp_path: Path) -> None:
    """A search may skip a v1 line whose bytes cannot hold the term; where it reads a
    readable form of each item too, whose words need not be in the line, it skips none
    (one rule with the search text)."""
    from session_core import Message, Session
    from session_core.model import Item
    from session_core.search import find

    path = tmp_path / "v1.jsonl"
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_message(Message(role="user", content="hello there"))
        s.append_message(Message(role="assistant", content="hi"))
    t = by_name("transcript-v1").open(str(path), writer_alive=False)
    assert [i.role for i in t.messages] == ["user", "assistant"]

    def shouted(item: Item) -> str | None:
        return "SHOUTED WORDS" if item.role == "user" else None

    from session_core.column_items import Items
    from session_core.search_skip import Skipping

    assert isinstance(t.messages, Items)  # (a search that reads no readable words skips)
    assert Skipping.of(t.messages._column, "shouted words") is not None
    assert find(t.messages, "shouted words", readable=shouted) == [0]
    assert find(t.messages, "shouted words") == []


async def test_a_folded_readable_row_taller_than_its_line_shows_what_it_says(
    tmp_path: Path,
) -> None:
    """A row was as tall as its line as written: ``<bash-stdout>OUT</bash-stdout><bash-
    stderr>ERR</bash-stderr>``, one line, read as two (``stdout: OUT``, ``stderr: ERR``)
    showed the first alone (then ``…``). A row is as tall as what it shows now
    (``test_readable_heights``): both, a folded text's first lines as any text's, and
    the search note finds the rest in what is folded."""
    from model_screen_helpers import IDLE, opened

    w = CCWriter()
    w.user("<bash-input>make</bash-input>")
    w.user("<bash-stdout>OUT</bash-stdout><bash-stderr>ERRTEXT shown</bash-stderr>")
    w.user(
        "<task-notification><status>failed</status><summary>Task X failed</summary>"
        "</task-notification>Read the output file UNIQUEREAD"
    )
    w.user("".join(f"<bash-stdout>out {n}{' FOURTH' * (n == 4)}</bash-stdout>" for n in range(5)))
    w.assistant("m1", [text("ok")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    os.utime(path, (IDLE, IDLE))
    async with opened(path) as (_app, pilot, screen):
        view = screen.conversation

        def drawn(line: int) -> list[str]:
            at = next(i for i, item in enumerate(view.items) if item.line == line)
            return [text.plain for text in view.block_lines(at, 100)]

        assert drawn(2)[1:] == ["  stdout: OUT", "  stderr: ERRTEXT shown"]
        assert drawn(3)[1:] == ["  Task X failed", "  Read the output file UNIQUEREAD"]
        assert drawn(1)[1:] == ["  ! make"]
        assert drawn(4)[1:] == ["  stdout: out 0", "  stdout: out 1", "  stdout: out 2 …"]
        await pilot.press("slash", *"FOURTH", "enter")
        await until_matched(pilot, view)
        assert "the match is in what is folded" in drawn(4)[0]
        await pilot.press("r")
        await until_matched(pilot, view)
        assert drawn(2)[1].startswith("  <bash-stdout>OUT")  # (as written)
        await pilot.press("slash", *"stdout: OUT", "enter")
        await until_matched(pilot, view)
        assert "the match is in its readable words: r shows them" in drawn(2)[0]


async def until_matched(pilot: object, view: object) -> None:
    from model_screen_helpers import until

    await until(
        pilot,  # type: ignore[arg-type]
        lambda: bool(view.matches) and not view.searching,  # type: ignore[attr-defined]
        "a match",
    )
