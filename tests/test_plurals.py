"""The viewer's counts agree with their number: "1 call", "2 calls" (never "1 calls")."""

from __future__ import annotations

from pathlib import Path

from helpers import file_loaded, screen_lines
from textual.app import App, ComposeResult

from session_core import Message, Session
from session_core.agentgo import AgentGoSession
from session_core.model import ToolOp, Transcript
from session_core.usage import Usage
from story import call
from viewer.app import TailscopeApp
from viewer.screens.agentgo import AgentGoScreen
from viewer.screens.transcript import TranscriptScreen
from viewer.widgets.agentgo_status import AgentGoStatus
from viewer.widgets.model_status import ModelStatus
from viewer.widgets.status import StatusBar

SIZE = (140, 30)


class Headers(App[None]):
    """The three headers on their own, to be shown exact counts."""

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield AgentGoStatus()
        yield ModelStatus()


def _v1(bar: StatusBar, n: int) -> str:
    bar.show(
        name="t.jsonl",
        fmt="transcript-v1",
        size=100,
        live="idle",
        meta={},
        lines=n,
        raw_messages=n,
        sent_messages=n,
        ops=n,
        pending=0,
        warnings=n,
        grants=[],
        usage=Usage(),
        unseen=0,
    )
    return str(bar.render())


def _agentgo(header: AgentGoStatus, n: int) -> str:
    header.show(
        name="s.jsonl",
        size=100,
        live="idle",
        session_id="s",
        runs={"closed": n},
        calls=n,
        failed=0,
        messages=n,
        checkpoints=n,
        gaps=n,
        warnings=n,
        showing="all runs",
    )
    return str(header.render())


def _model(header: ModelStatus, n: int) -> str:
    ops = [ToolOp(call_id=f"c{i}", tool="t", state="completed") for i in range(n)]
    transcript = Transcript(format="toy", path="t.jsonl", tool_operations=ops, lines=n)
    header.show(transcript, name="t.jsonl", title="toy", size=100, live="idle", mode="replayed")
    return str(header.render())


async def test_the_headers_say_one_thing_and_two_things() -> None:
    app = Headers()
    async with app.run_test(size=SIZE):
        bar, agentgo, model = (
            app.query_one(StatusBar),
            app.query_one(AgentGoStatus),
            app.query_one(ModelStatus),
        )
        one = _v1(bar, 1)
        assert "1 line · 1 message line, 1 sent next · 1 tool op" in one, one
        assert "1 warning (w)" in one
        two = _v1(bar, 2)
        assert "2 lines · 2 message lines, 2 sent next · 2 tool ops" in two, two
        assert "2 warnings (w)" in two

        one = _agentgo(agentgo, 1)
        assert "1 run (1 closed) · 1 call · 1 message · 1 checkpoint · 1 gap" in one, one
        assert "1 warning (w)" in one
        two = _agentgo(agentgo, 2)
        assert "2 runs (2 closed) · 2 calls · 2 messages · 2 checkpoints · 2 gaps" in two, two

        one = _model(model, 1)
        assert "1 line · 0 sent next · 1 tool op" in one, one
        two = _model(model, 2)
        assert "2 lines · 0 sent next · 2 tool ops" in two, two


async def test_a_one_run_agentgo_session_says_1_run(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    with AgentGoSession.create(path) as s:
        s.begin_run().record("agent_start")
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await file_loaded(pilot, AgentGoScreen)
        await pilot.press("3")  # the runs tab
        await pilot.pause()
        lines = screen_lines(app)
        header = next(line for line in lines if "showing" in line)
        assert " 1 run (" in header and " · 0 calls · 0 messages · " in header, header
        # The "all runs" row's status cell (its column is too narrow to tell on screen).
        screen = app.screen
        assert isinstance(screen, AgentGoScreen)
        first = screen.runs.table.row_cells(0)
        assert first[1:3] == ["all runs", "1 run"]


async def test_a_v1_file_with_one_of_each_says_1(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(
            Message(role="assistant", content="on it", tool_calls=(call("c1", "ls", "{}"),))
        )
        s.append_tool_dispatched(call_id="c1", tool="ls", arguments="{}", run_id="r")
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await file_loaded(pilot, TranscriptScreen)
        text = "\n".join(screen_lines(app))
        assert "3 lines · 1 message line, 1 sent next · 1 tool op (1 pending)" in text, text


async def test_the_warnings_screen_title_counts_one_warning() -> None:
    from viewer.screens.warnings import WarningsScreen

    app = Headers()
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(WarningsScreen(["line 7 is not valid JSON"]))
        await pilot.pause()
        lines = screen_lines(app)  # type: ignore[arg-type]
        assert any(line.strip() == "1 warning" for line in lines), lines
        assert any("line 7 is not valid JSON" in line for line in lines), lines
