"""The viewer's counts agree with their number: "1 call", "2 calls" (never "1 calls")."""

from __future__ import annotations

from pathlib import Path

from helpers import agentgo_screen, file_loaded, screen_lines, wait_for
from textual.app import App, ComposeResult

from session_core import Message, Session
from session_core.agentgo import AgentGoSession
from session_core.model import Compaction, ToolOp, Transcript
from story import call
from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.model_status import ModelStatus

SIZE = (140, 30)


class Headers(App[None]):
    """The headers on their own, to be shown exact counts."""

    def compose(self) -> ComposeResult:
        yield ModelStatus()


def _model(header: ModelStatus, n: int) -> str:
    ops = [ToolOp(call_id=f"c{i}", tool="t", state="completed") for i in range(n)]
    overlays = [
        Compaction(id=f"{kind}{i}", kind=kind, line=i)
        for i in range(n)
        for kind in ("compaction", "elision")
    ]
    transcript = Transcript(
        format="toy",
        path="t.jsonl",
        tool_operations=ops,
        lines=n,
        warnings=[f"line {i} is not valid JSON" for i in range(n)],
        compactions=overlays,
    )
    header.show(transcript, name="t.jsonl", title="toy", size=100, live="idle", mode="replayed")
    return str(header.render())


async def test_the_headers_say_one_thing_and_two_things() -> None:
    app = Headers()
    async with app.run_test(size=SIZE):
        model = app.query_one(ModelStatus)
        one = _model(model, 1)
        assert "1 line · 0 sent next · 1 tool op" in one, one
        assert "1 compaction · 1 elision" in one and "1 warning (w)" in one, one
        two = _model(model, 2)
        assert "2 lines · 0 sent next · 2 tool ops" in two, two
        assert "2 compactions · 2 elisions" in two and "2 warnings (w)" in two, two


def _agentgo_session(path: Path, n: int) -> None:
    """n runs (closed), each with one call (a gap: no terminal event), one message and
    one checkpoint."""
    with AgentGoSession.create(path) as s:
        for i in range(n):
            run = s.begin_run()
            execution = {"id": f"m{i}", "kind": "model", "attempt": 1}
            run.record(
                "model_request", {"messages": [], "tools": [], "config": {}}, execution=execution
            )
            run.record("message_end", {"message": {"kind": "user", "content": f"hi {i}"}})
            run.save_checkpoint({"i": i})
            run.close()


async def test_an_agentgo_session_counts_one_and_two(tmp_path: Path) -> None:
    for n, want in (
        (1, " 1 run (1 closed) · 1 call · 1 message · 1 checkpoint · 1 gap · showing all runs"),
        (2, " 2 runs (2 closed) · 2 calls · 2 messages · 2 checkpoints · 2 gaps · showing"),
    ):
        path = tmp_path / f"s{n}.jsonl"
        _agentgo_session(path, n)
        app = TailscopeApp(path)
        async with app.run_test(size=SIZE) as pilot:
            await file_loaded(pilot, ModelScreen)
            header = next(line for line in screen_lines(app) if "showing" in line)
            assert want in header, header
            await pilot.press("1")  # the runs tab: one row a run
            await pilot.pause()
            assert agentgo_screen(app).runs.table.row_count == n


async def test_a_v1_file_with_one_of_each_says_1(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(
            Message(role="assistant", content="on it", tool_calls=(call("c1", "ls", "{}"),))
        )
        s.append_tool_dispatched(call_id="c1", tool="ls", arguments="{}", run_id="r")
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await file_loaded(pilot, ModelScreen)
        text = "\n".join(screen_lines(app))
        assert "3 lines · 1 sent next · 1 tool op (1 running)" in text, text
        assert "1 message line" in text, text
        assert "in flight: 1 tool operation pending (1 running)" in text, text


async def test_the_warnings_screen_title_counts_one_warning() -> None:
    from viewer.screens.warnings import WarningsScreen

    app = Headers()
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(WarningsScreen(["line 7 is not valid JSON"]))
        await pilot.pause()
        lines = screen_lines(app)  # type: ignore[arg-type]
        assert any(line.strip() == "1 warning" for line in lines), lines
        assert any("line 7 is not valid JSON" in line for line in lines), lines


async def test_the_v1_pending_count_is_the_headers_snapshots(tmp_path: Path) -> None:
    """The header's "pending" (its ``in flight``) is of the snapshot its "1 running" is
    of: the replay's own count is ahead of a snapshot drawn (a settle read, its snapshot
    not yet made), and the header once said "none pending" beside "1 running" (the
    audit, a demo followed)."""
    path = tmp_path / "one.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(
            Message(role="assistant", content="on it", tool_calls=(call("c1", "ls", "{}"),))
        )
        op = s.append_tool_dispatched(call_id="c1", tool="ls", arguments="{}", run_id="r")
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await file_loaded(pilot, ModelScreen)
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        running = screen.transcript  # (the snapshot of one running operation)
        with Session.load(path) as s:
            s.append_message(Message(role="tool", content="a.py", tool_call_id="c1"))
            s.append_tool_settled(op_id=op, outcome="completed")

        def settled() -> bool:  # (nothing pending: none in flight said)
            text = "\n".join(screen_lines(app))
            return "1 tool op · " in text and "pending" not in text

        await wait_for(pilot, settled)
        screen.transcript = running  # drawn from the older snapshot: the state is ahead
        screen._refresh_status()
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert "1 tool op (1 running)" in text, text
        assert "in flight: 1 tool operation pending (1 running)" in text, text
