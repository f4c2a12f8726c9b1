"""Facts the header and the replay give (a v1/agentgo audit): a response that reports
its usage as a total alone (v1's ``total-tokens``, with no prompt or completion count)
is counted (it read "usage unknown" in the viewer and ``replay``, all null with
``reported: 1``, while the export said 10); a grant of another shape says what it
holds; "no meta yet" only before there is any."""

from __future__ import annotations

from pathlib import Path

from agentgo_helpers import finished
from session_core import Message, Session, open_transcript
from session_core.formats import by_name
from session_core.text import cost_text
from session_core.views import replay_any
from viewer.cli import main

# What tokens reported as a total only are said to be, on every surface: plainly what
# is known ("as a total alone" said it unclearly).
SAID = "total only, split unknown"

__all__ = ["finished"]  # (the fixture, used by name)


def _session(path: Path, usage: dict[str, int]) -> Path:
    with Session.create(path, meta={"agent": "x"}) as s:
        s.append_message(Message(role="user", content="hi"))
        s.append_message(Message(role="assistant", content="hello"), extra={"usage": usage})
        s.append_message(Message(role="user", content="again"))
        s.append_message(Message(role="assistant", content="done"))
    return path


def test_a_total_alone_is_counted(tmp_path: Path) -> None:
    path = _session(tmp_path / "t.jsonl", {"total-tokens": 10})
    usage = replay_any(path)["usage"]
    assert usage["total-only-tokens"] == 10 and usage["reported"] == 1
    assert usage["input-tokens"] is None  # (not made up: only the total was said)
    transcript = open_transcript(path)
    assert transcript.usage.tokens == 10
    assert transcript.usage.describe().startswith(f"10 tok (10 {SAID})")
    assert "1 of 2 responses reported" in transcript.usage.describe()
    said = [m.usage for m in transcript.messages if m.role == "assistant"]
    assert said[0] is not None and said[0].describe().startswith("10 tok")


def test_a_total_only_reads_the_same_in_the_export(tmp_path: Path) -> None:
    """The export's usage says it in the header's words (one rule: ``token_terms``)."""
    from session_core.export import export

    path = _session(tmp_path / "t.jsonl", {"total-tokens": 10, "prompt-tokens": 4})
    assert open_transcript(path).usage.describe().startswith(f"10 tok (4 in + 6 {SAID})")
    for form in ("md", "html"):
        said = export(path, form).replace("\\", "")  # (md escapes)
        assert f"usage: 10 tok (4 in + 6 {SAID})" in said, form
        assert "total alone" not in said


def test_a_broken_down_usage_keeps_its_keys(tmp_path: Path) -> None:
    path = _session(tmp_path / "t.jsonl", {"prompt-tokens": 7, "completion-tokens": 3})
    usage = replay_any(path)["usage"]
    assert "total-only-tokens" not in usage  # (every other file's JSON as it was)
    assert (usage["input-tokens"], usage["output-tokens"]) == (7, 3)
    assert open_transcript(path).usage.tokens == 10


def test_a_grant_of_another_shape_says_what_it_holds() -> None:
    """The spec leaves a grant's shape to its writer: ``{"tool": "bash", "allow": true}``
    read ``bash:?`` in the header (a v1/agentgo audit)."""
    from viewer.formats.v1 import grant_text

    assert grant_text({"tool": "fs_read", "scope": "always"}) == "fs_read:always"
    assert grant_text({"tool": "bash", "allow": True}) == "bash allow=true"
    assert grant_text({"mode": "ask"}) == "mode=ask"
    assert grant_text("anything") == "anything"


async def test_the_header_says_no_meta_yet_only_before_there_is_any(tmp_path: Path) -> None:
    """A v1 file whose meta is ``{"agent": "x"}`` (said on the header's last line) read
    "no meta yet" on its second (a v1/agentgo audit)."""
    from helpers import screen_text
    from model_screen_helpers import opened

    path = _session(tmp_path / "t.jsonl", {"total-tokens": 10})
    async with opened(path) as (app, _pilot, _screen):
        text = screen_text(app)
        assert "no meta yet" not in text and "agent=x" in text
        assert f"usage 10 tok (10 {SAID})" in text


def test_r_says_what_each_formats_raw_view_holds() -> None:
    """``r`` said "every line of the file" of v1's and agentgo's raw views, which hold
    their message lines (a v1/agentgo audit): each format says what its own holds."""
    from session_core.formats import by_name, names

    said = {name: by_name(name).raw_view for name in names()}
    assert said["claude-code"] == said["codex"] == "every line of the file, with its kind and marks"
    assert said["transcript-v1"].startswith("every message line as written")
    assert said["agentgo-v1"].startswith("every committed message")


async def test_the_search_bar_says_what_it_searches(tmp_path: Path) -> None:
    """From a tab without a search of its own (the runs table), ``/`` searches the
    conversation: the bar says so (it went there unasked: a v1/agentgo audit); the tool
    operations have their own."""
    from model_screen_helpers import opened
    from textual.widgets import Input

    path = _session(tmp_path / "t.jsonl", {"total-tokens": 10})
    async with opened(path) as (_app, pilot, screen):
        await pilot.press("5", "slash")  # (v1: the runs)
        await pilot.pause(0.1)
        assert screen.query_one("#search", Input).placeholder.startswith("search the conversation")
        await pilot.press("escape", "3", "slash")  # (v1: the tool operations)
        await pilot.pause(0.1)
        assert screen.query_one("#search", Input).placeholder.startswith("search this tab")


def test_a_duration_under_a_second_keeps_its_hundredths() -> None:
    """``took`` said 0.2s of 0.25 s and 0.0s of 116 µs (a v1/agentgo audit), and a
    minute's seconds cut, not rounded: 384.99 s "6m24s" (the exports' check)."""
    from session_core.text import duration_text

    durations = (0.25, 0.000116, 0.0, 1.25, 59.96, 247.6, 384.99, 100.7, 3599.7, None)
    assert [duration_text(s) for s in durations] == [
        "0.25s",
        "<0.01s",
        "0s",
        "1.2s",
        "1m00s",
        "4m08s",
        "6m25s",
        "1m41s",
        "1h00m",
        "",
    ]


async def test_an_elided_message_is_not_said_folded(tmp_path: Path) -> None:
    """The raw view tagged a message an elision stubbed "[elided, folded]" with no
    compaction in the file (its stub is sent: it is not folded), and a file whose meta
    line is ``{}`` read "no meta yet" (the fixes' check)."""
    from helpers import screen_lines
    from model_screen_helpers import opened

    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="hi"))
        tool = s.append_message(Message(role="tool", content="LONG", tool_call_id="c1"))
        s.append_elision([{"id": tool, "stub": "[elided]"}])
    async with opened(path) as (app, pilot, _screen):
        await pilot.press("r")
        await pilot.pause(0.1)
        text = "\n".join(screen_lines(app))
        assert "[elided]  line 3" in text and "folded" not in text
        assert "no meta yet" not in text and "no meta" in text


def test_a_claude_code_session_s_branch_is_in_the_header(tmp_path: Path) -> None:
    """Its lines' ``gitBranch`` is the meta's ``git-branch``: the header looked for the
    line's own word and never said it."""
    from claude_code_writer import CCWriter, text

    from session_core.vocabulary import header_meta

    w = CCWriter()
    w.user("fix it")
    w.assistant("m1", [text("Fixed.")], stop="end_turn")
    transcript = open_transcript(w.write(tmp_path / "s.jsonl"))
    said = dict(header_meta(transcript.meta, transcript.format))
    assert said["git-branch"] == "main"
    assert said["cwd"] == "/work/proj" and said["version"] == "2.1.39"


def test_a_cost_under_a_hundredth_of_a_cent_is_not_said_as_nothing(tmp_path: Path) -> None:
    """``$0.0000`` read as nothing spent: the header's, the check's, an item's and an
    export's totals say ``<$0.0001`` for a cost above 0 that rounds to it."""
    path = _session(
        tmp_path / "t.jsonl", {"prompt-tokens": 2, "completion-tokens": 1, "cost": 0.00003}
    )
    transcript = open_transcript(path)
    assert transcript.usage.describe_cost() == "<$0.0001"
    assert "<$0.0001" in by_name("transcript-v1").check(path)
    (item,) = [i for i in transcript.messages if i.usage is not None and i.usage.cost]
    assert item.usage is not None and "<$0.0001" in item.usage.describe()
    exported = tmp_path / "t.md"
    assert main(["export", str(path), "--format", "md", "-o", str(exported)]) == 0
    assert "<$0.0001" in exported.read_text() and "$0.0000" not in exported.read_text()
    assert cost_text(0.0) == "$0.0000" and cost_text(0.00005) == "$0.0001"


def test_agentgo_s_format_version_is_said_by_its_name_alone(finished: Path) -> None:
    """agentgo's meta ``version`` is its format's (session_start's, always 1): the header
    said ``version=1`` among the facts, where the others' ``version`` is their writer's
    (Claude Code's 2.1.39); it is said as v1's is, by the format's name (a first-time-user
    audit). ``peek`` keeps it in the meta."""
    from session_core.formats import by_name
    from session_core.vocabulary import header_meta

    transcript = open_transcript(finished)
    assert transcript.meta["version"] == 1
    said = dict(header_meta(transcript.meta, transcript.format))
    assert "version" not in said and said["model"]
    assert by_name(transcript.format).title.startswith("agentgo-v1")


async def test_a_value_holding_the_separator_is_not_broken_at_it(tmp_path: Path) -> None:
    """The format's note was split at every " · " to be broken between lines, inside an
    agent's name that holds one too: its line ended at "agent=north" and the rest of the
    name began the next, read as a count of its own. Its parts are given whole."""
    from helpers import screen_lines
    from model_screen_helpers import opened

    agent = "north · " + "s" * 32
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": agent}) as s:
        s.append_message(Message(role="user", content="hi"))
    async with opened(path, size=(44, 30)) as (app, _pilot, _screen):
        lines = screen_lines(app)
        own = [line for line in lines if "agent=north" in line]
        assert own and " · sss" in own[0], own
        assert not any(line.strip().startswith("sss") for line in lines), lines
