"""An agentgo run whose loop failed (``agent_end`` carrying an ``error``) reads *failed*
on every surface: the neutral model's run, ``check``, the header, the Runs tab (and its
``e``). It read *finished*, its scope closed, ``e`` passing over it."""

from __future__ import annotations

from pathlib import Path

from helpers import for_screen, screen_lines, wait_for, written

from agentgo_helpers import REQUEST, USAGE, model, text
from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.formats import by_name
from viewer.screens.model_screen import ModelScreen

opened, _shows = for_screen(ModelScreen, (120, 40))


ANSWER = {**text("assistant", "Done."), "stop_reason": "end_turn"}


def write_runs(path: Path) -> None:
    """Three closed runs: ended, failed, ended (each a model call that asks for no tool)."""
    with AgentGoSession.create(path) as s:
        for end in ({"stop_reason": "end_turn"}, {"error": "budget exceeded"}, {}):
            run = s.begin_run()
            run.record("agent_start")
            run.record("model_request", REQUEST, execution=model("m1"))
            run.record("model_exec_end", {"message": ANSWER, "usage": USAGE}, execution=model("m1"))
            run.record("message_end", {"message": ANSWER})
            run.record("agent_end", end)
            run.close()


def test_a_failed_loop_is_a_failed_run_and_check_says_so(tmp_path: Path) -> None:
    path = written(tmp_path / "failed.jsonl", write_runs)
    transcript = open_transcript(path)
    assert [run.state for run in transcript.runs] == ["finished", "failed", "finished"]
    assert transcript.runs[1].to_json()["state"] == "failed"
    assert "1 run failed" in by_name("agentgo-v1").check(path)


async def test_the_header_and_the_runs_tab_say_it_and_e_stops_at_it(tmp_path: Path) -> None:
    path = written(tmp_path / "failed.jsonl", write_runs)
    async with opened(path) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        await pilot.press("1")
        table = screen.runs.table
        await wait_for(pilot, lambda: table.row_count == 3)
        lines = screen_lines(app)
        assert any("3 runs (1 failed)" in line for line in lines), lines[:5]
        assert any(line.split()[:2] == ["2", "failed"] for line in lines)  # (its row)
        table.move_cursor(0)
        await pilot.press("e")
        await pilot.pause(0.05)
        assert table.cursor_row == 1  # (it passed over the failed run: it read finished)


def test_the_browser_row_says_failed(tmp_path: Path) -> None:
    """(the row read *finished*, "every run and tool operation ended", and nothing more)"""
    from session_core.scan import scan_file
    from viewer.browser_cells import detail, status_cell

    path = written(tmp_path / "failed.jsonl", write_runs)
    size = path.stat().st_size
    for budget in (None, size - 1):  # whole, and its head and a tail window (runs 2, 3)
        window = size * 3 // 4
        row = scan_file(path) if budget is None else scan_file(path, budget=budget, window=window)
        assert row.estimated == (budget is not None)
        assert (row.status, row.failed_runs) == ("finished", 1)  # (no work left open)
        assert status_cell(row).plain == "failed"
        assert "1 run failed" in detail(row, str(path)).plain


async def test_the_browser_finds_it_by_f_and_by_its_word(tmp_path: Path) -> None:
    """``f`` (finished) keeps a file read *failed*, and says so; the text filter finds it by
    the word its row shows (it matched ``finished`` alone); the footer counts it apart."""
    import os

    from test_browser import QuickApp, browser, scanned

    from story import OLD_MTIME

    failed = written(tmp_path / "failed.jsonl", write_runs)
    ended = written(tmp_path / "ended.jsonl", write_ended)
    for path in (failed, ended):
        os.utime(path, (OLD_MTIME, OLD_MTIME))
    app = QuickApp(str(tmp_path))
    async with app.run_test(size=(80, 30)) as pilot:
        await scanned(pilot)
        screen = browser(app)
        footer = str(screen.query_one("#browser-totals").render())
        assert "2 finished (1 failed)" in footer, footer
        await pilot.press("f")
        assert sorted(screen.order) == [str(ended), str(failed)]
        binding = next(b for b in screen.BINDINGS if getattr(b, "key", "") == "f")
        assert "failed" in getattr(binding, "tooltip", ""), binding
        await pilot.press("slash", *"failed", "enter")
        await pilot.pause()
        assert screen.order == [str(failed)]


def write_ended(path: Path) -> None:
    """One closed run whose loop ended well."""
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        run.record("message_end", {"message": ANSWER})
        run.record("agent_end", {"stop_reason": "end_turn"})
        run.close()


def test_the_raw_conversation_says_where_it_failed(tmp_path: Path) -> None:
    """An ``error`` row after the failed run's messages, in its error's words, at its
    ``agent_end``'s line (the conversation held committed messages alone: ``e`` found
    nothing); what the model is sent next holds none (it is sent no such row)."""
    path = written(tmp_path / "failed.jsonl", write_runs)
    transcript = open_transcript(path)
    kinds = [(item.kind, item.text) for item in transcript.raw]
    assert kinds == [
        ("message", "Done."),
        ("message", "Done."),
        ("error", f"run {transcript.runs[1].id} failed: budget exceeded"),
        ("message", "Done."),
    ]
    lines = path.read_text().splitlines()
    at = next(n for n, line in enumerate(lines, 1) if '"error":"budget exceeded"' in line)
    assert transcript.raw[2].line == at  # (its agent_end's)
    assert all(item.kind == "message" for item in transcript.messages)
    assert "1 run failed" in by_name("agentgo-v1").check(path)  # (as it says)


async def test_e_in_the_raw_conversation_stops_where_it_failed(tmp_path: Path) -> None:
    path = written(tmp_path / "failed.jsonl", write_runs)
    async with opened(path) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        view = screen.conversation
        await pilot.press("r")
        await wait_for(pilot, lambda: view.mode == "raw" and len(view.items) == 4)
        await pilot.press("g", "e")
        await pilot.pause(0.05)
        assert view.cursor == 2 and view.items[2].kind == "error"
        assert any("failed: budget exceeded" in line for line in screen_lines(app))


def test_the_raw_export_says_it_where_the_raw_view_does(tmp_path: Path) -> None:
    """md and html, raw view: the failure said after the failed run's messages, as the
    viewer's raw view has it; replayed, as the replayed view, no such row (the Runs table
    says the outcome in both)."""
    from session_core.export import export

    path = written(tmp_path / "failed.jsonl", write_runs)
    said = f"run {open_transcript(path).runs[1].id} failed: budget exceeded"
    md = export(path, "md", "raw")
    conversation = md.split("## Conversation")[1].split("\n## ")[0]
    before, _, after = conversation.partition(f"> ✖ {said}")
    assert (before.count("Done."), after.count("Done.")) == (2, 1), conversation
    assert said in export(path, "html", "raw")
    replayed = export(path, "md").split("## Conversation")[1].split("\n## ")[0]
    assert "✖" not in replayed and replayed.count("Done.") == 3
