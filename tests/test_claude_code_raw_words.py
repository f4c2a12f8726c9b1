"""What a Claude Code file's raw view says of its bookkeeping lines, and how a folded
item ends: each said once, in the words the rest of the app uses (the audit on the real
samples: ``turn_duration: 247.5 s`` where every other place said ``4m08s``, a boundary's
trigger and tokens dropped, an attachment's type said twice, ``… …``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from claude_code_helpers import FMT
from claude_code_writer import CCWriter, text, usage
from helpers import follow_into, screen_lines
from model_screen_helpers import IDLE, opened
from test_claude_code_variants import both

from session_core.follow_update import FollowUpdate


def _raw_texts(path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Each raw item's parts, ``name: text`` as the raw view says an unnamed part's."""
    t = both(path, monkeypatch)  # (a whole read and a followed one alike)
    return [f"{p.name}: {p.text}" if p.kind == "other" else p.text for i in t.raw for p in i.parts]


def test_system_lines_say_durations_and_boundaries_as_the_rest_of_the_app(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A turn's duration is said as every duration is (``4m08s``, not ``247.5 s``); a
    boundary's words are followed by its metadata's (trigger, tokens before, as the
    Diff tab says them), an elision's too; an attachment's type, the part's name, is not
    said again in its JSON."""
    w = CCWriter()
    w.user("go")
    w.assistant("m1", [text("done")], usage=usage(10, 2), stop="end_turn")
    w.system("turn_duration", durationMs=247_500)
    w.env(
        "attachment",
        attachment={"type": "hook_success", "hookName": "Stop", "exitCode": 0},
    )
    w.microcompact([])
    w.compact()
    w.user("again")
    texts = _raw_texts(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert "turn_duration: 4m08s" in texts
    assert 'hook_success: {"hookName":"Stop","exitCode":0}' in texts
    assert "microcompact_boundary: Context microcompacted · trigger auto · 900 tok before" in texts
    assert "compact_boundary: Conversation compacted · trigger auto · 100 tok before" in texts


def test_a_subagents_own_file_marks_no_line_sidechain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every line of a subagent's own file is a sidechain line: marking each said nothing
    (its raw view read ``[sidechain]`` on every item). A session's in-file sidechain is
    still marked (``test_a_session_file_opening_with_a_sidechain_is_still_the_main_side``)."""
    w = CCWriter(agent_id="a1")
    w.user("Search the repo for parser usages", parent=None)
    w.assistant("s1", [text("Found 3.")], usage=usage(5, 6), stop="end_turn")
    agent = both(w.write(tmp_path / "agent-a1.jsonl"), monkeypatch)
    assert [i.text for i in agent.raw] == ["Search the repo for parser usages", "Found 3."]
    assert not any("sidechain" in i.marks for i in agent.raw)


async def test_a_folded_item_cut_on_its_last_line_ends_in_one_ellipsis(tmp_path: Path) -> None:
    """A folded text whose last shown line is cut to the width ends in that line's ``…``
    alone (it read ``…/b7636e2.output</output-fi… …``); one whose last shown line fits
    still says ``…`` that more lines follow."""
    w = CCWriter()
    long = "/tmp/claude-1000/tasks/" + "b7636e2" * 30 + ".output</output-file>"
    w.user(f"<task-notification>\n<task-id>b7636e2</task-id>\n{long}\n<status>done</status>")
    w.assistant("m1", [text("first\nsecond\nthird\nfourth")], usage=usage(1, 1), stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    os.utime(path, (IDLE, IDLE))
    async with opened(path, (80, 24)) as (app, pilot, _screen):
        await pilot.pause(0.1)
        shown = [line.rstrip(" ▁▂▃▄▅▆▇█") for line in screen_lines(app)]
        cut = next(line for line in shown if "b7636e2b7636e2" in line)
        assert cut.endswith("…") and not cut.endswith("… …"), cut
        assert any(line.endswith("third …") for line in shown), shown


@pytest.mark.parametrize("ms", [10**18, -5, 1e300])
def test_a_turn_duration_past_any_timing_is_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ms: float
) -> None:
    """A ``durationMs`` no writer can have timed (past a year, below 0) is no
    timing: its line says it is unknown (it read 277777777777h46m), and the run took what
    its lines' times say, as where none is written."""
    w = CCWriter()
    w.user("go")
    w.assistant("m1", [text("done")], usage=usage(10, 2), stop="end_turn")
    w.system("turn_duration", durationMs=ms)
    path = w.write(tmp_path / "s.jsonl")
    assert "turn_duration: unknown" in _raw_texts(path, monkeypatch)
    assert both(path, monkeypatch).runs[0].duration == 2.0  # (10:00:01 to :03)


async def _raw_row_head(path: Path, line: int) -> str:
    """The head of the raw view's row of ``line``, as the screen draws it (160 columns)."""
    async with opened(path, (160, 40)) as (app, pilot, screen):
        view = screen.conversation
        await pilot.press("r")
        await pilot.pause(0.2)
        assert view.mode == "raw"
        view.jump_to(next(n for n, i in enumerate(view.items) if i.line == line))
        await pilot.pause(0.1)
        [head] = [row for row in screen_lines(app) if f"line {line} " in row]
        return head


async def test_a_response_written_again_says_its_first_copys_usage_is_the_copys() -> None:
    """2.0.76 wrote a response whole, then again where it was: the raw view shows the
    first copy's usage as written, and says it is counted with its copy (the header and
    totals count it once), as the raw export does."""
    from session_core.export import export

    path = Path(__file__).parent / "fixtures/claude-code-real/2.0.76-response-written-twice.jsonl"
    head = await _raw_row_head(path, 5)
    assert "usage counted with its copy" in head and "78,169 tok" in head, head
    assert export(path, "md", "raw").count("usage counted with its copy") == 1


def _side_then_main(path: Path) -> Path:
    """A subagent's response in the session's file (a sidechain), then the same response
    (its message id and request id) on the main chain: the main chain's takes its place."""
    w = CCWriter()
    w.user("build it")
    [m1] = w.assistant("m1", [text("asking a subagent")], usage=usage(10, 5), stop="end_turn")
    side = w.user("subagent prompt", parent=None, sidechain=True)
    answer = [text("the shared answer")]
    w.assistant("mX", answer, usage=usage(100, 50), parent=side, sidechain=True, stop="end_turn")
    w.user("next", parent=m1)
    w.assistant("mX", answer, usage=usage(100, 50), stop="end_turn")
    path = w.write(path)
    os.utime(path, (IDLE, IDLE))
    return path


def test_a_sidechain_response_the_main_chain_copied_says_its_usage_is_the_copys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reader counts the response once, with the main chain's copy: the sidechain's
    line shows its usage as written, marked as counted with its copy, in the raw view
    and its export alike (as a response written again where it was), followed too."""
    from session_core.export import export

    path = _side_then_main(tmp_path / "s.jsonl")
    t = both(path, monkeypatch)
    assert (t.usage.input_tokens, t.usage.output_tokens) == (110, 55)  # (once)
    [first, side, copy] = [i for i in t.raw if i.usage is not None]
    assert (side.line, copy.line) == (4, 6) and side.usage == copy.usage
    assert side.marks == ["sidechain", "usage counted with its copy"] and copy.marks == []
    assert first.marks == []
    assert export(path, "md", "raw").count("usage counted with its copy") == 1
    # Followed a line or two at a time, a snapshot after each: the sidechain's line,
    # marked at an earlier snapshot, is marked again once its copy comes.
    live = FMT.live(str(path))
    marks: list[list[str]] = []

    def apply(update: FollowUpdate) -> None:
        live.apply(update)
        marks[:] = [i.marks for i in live.transcript(writer_alive=False).raw]

    follow_into(apply, path, 600, live.format.parsed_updates)
    assert marks == [i.marks for i in t.raw]


async def test_the_raw_view_marks_a_sidechain_response_the_main_chain_copied(
    tmp_path: Path,
) -> None:
    path = _side_then_main(tmp_path / "s.jsonl")
    head = await _raw_row_head(path, 4)
    assert "usage counted with its copy" in head, head
