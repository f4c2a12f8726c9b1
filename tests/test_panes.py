"""The tool-operations and run-context panes, and the artifact viewer.

The transcript is written by ``session_core.Session`` (ids and timestamps
made deterministic) plus a few raw lines the writer would never produce.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import DataTable, Static, TextArea

import session_core.session as session_module
from session_core import Message, Session
from session_core.artifacts import artifact_dir
from session_core.codec import dump_line, section_digest
from session_core.following import FollowUpdate
from session_core.live import LiveTranscript
from viewer.model import CallIndex
from viewer.screens.artifact import MISSING, REFUSED, ArtifactScreen
from viewer.widgets.run_context import RunContextPane, SectionView
from viewer.widgets.tool_ops import ToolOpsPane
from viewer.widgets.virtual_table import VirtualTable

PANES_TCSS = Path(__file__).resolve().parent.parent / "viewer" / "styles" / "panes.tcss"

HOSTILE_TOOL = "\x1b[2J\x1b]0;pwned\x07[bold red]boom[/]"
HOSTILE_FACT = "\x1b]52;c;SGVsbG8=\x07[link=http://x]y[/link]"
ARTIFACT_TEXT = "line 1 of the full result\n" + "".join(f"row {n}: data\n" for n in range(2, 60))
ABSENT_CARRIER = "99999999-0000-4000-8000-000000000000"

IDENTITY = "You are a careful coding agent.\nRule 1: read before writing.\nRule 2: run the tests.\nRule 3: never force-push.\nRule 4: ask when unsure.\nRule 5: keep notes."  # noqa: E501
TOOLS_V1 = "fs_read(path)\nshell(cmd)"
TOOLS_V2 = "fs_read(path)\nshell(cmd)\ngrep(pattern, path)"
MEMORY = "The user prefers short answers."
PLAN = "1. read the failing test\n2. fix it"


# -- the fixture transcript --------------------------------------------------


@pytest.fixture
def fixed_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deterministic envelope ids (uuid4-shaped) and timestamps 1.5 s apart."""
    rng = random.Random(20260809)
    start = datetime(2026, 8, 9, 13, 10, 0, 125000, tzinfo=UTC)
    ticks = iter(range(10_000))

    def new_id() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    def now_ts() -> str:
        moment = start + timedelta(seconds=1.5 * next(ticks))
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    monkeypatch.setattr(session_module, "new_id", new_id)
    monkeypatch.setattr(session_module, "now_ts", now_ts)


# The assistant's tool calls, in its message's order: call id -> (tool, arguments).
CALLS = {
    "call_ok": ("fs_read", '{"path":"README.md"}'),
    "call_fail": ("shell", '{"cmd":"make"}'),
    "call_unk": ("http_post", '{"url":"https://example.test/deploy"}'),
    "call_run": ("shell", '{"cmd":"sleep 100"}'),
    "call_unsettled": ("fs_write", '{"path":"a.txt","text":"hi"}'),
    "call_never": ("deploy", '{"env":"prod"}'),
    "call_art": ("grep", '{"pattern":"TODO","path":"."}'),
    "call_gone": ("grep", '{"pattern":"FIXME","path":"."}'),
    "call_evil": ("grep", '{"pattern":"x"}'),
    "call_esc": (HOSTILE_TOOL, '{"q":"\\u001b[31mred"}'),
}


def call(cid: str) -> dict[str, Any]:
    name, arguments = CALLS[cid]
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}}


def section(name: str, body: str) -> dict[str, str]:
    return {"name": name, "digest": section_digest(name, body), "rendered": body}


def artifact(file: str, digest: str, size: int, elided: int) -> dict[str, Any]:
    return {"file": file, "digest": digest, "bytes": size, "chars": size, "elided-chars": elided}


def write_transcript(path: Path) -> dict[str, str]:
    """Every operation state, three artifacts, three runs; returns the op ids by call id."""
    ops: dict[str, str] = {}
    folder = Path(artifact_dir(path))
    with Session.create(path, meta={"agent": "sadna", "model": "test"}) as s:
        s.append_message(Message(role="system", content="be careful", sysprompt=True))
        s.append_message(Message(role="user", content="fix the build"))
        calls = tuple(call(cid) for cid in CALLS)
        s.append_message(Message(role="assistant", content="", tool_calls=calls))

        def dispatch(cid: str, **kw: Any) -> str:
            op = s.append_tool_dispatched(cid, *CALLS[cid], **kw)
            ops[cid] = op
            return op

        def answer(cid: str, text: str) -> None:
            s.append_message(Message(role="tool", content=text, tool_call_id=cid))

        op = dispatch("call_ok", idempotency="read-only", run_id="r1", round=1)
        s.append_tool_settled(op, "completed", duration=0.25, result_digest="ab" * 32)
        answer("call_ok", "# README")
        op = dispatch("call_fail", idempotency="destructive", run_id="r1", round=1)
        s.append_tool_settled(
            op, "failed", duration=3.5, error="exit status 2\nmake: *** [all] Error 2"
        )
        answer("call_fail", "make failed")
        op = dispatch("call_unk", idempotency="unknown", run_id="r1", round=2)
        s.append_tool_settled(op, "outcome-unknown", reason="resumed after a crash")
        dispatch("call_run", idempotency="idempotent", run_id="r1", round=2)
        dispatch("call_unsettled", idempotency="destructive", run_id="r1", round=2)
        answer("call_unsettled", "wrote 2 bytes")
        op = dispatch("call_art", run_id="r2", round=3)
        folder.mkdir()
        (folder / "op-art.txt").write_text(ARTIFACT_TEXT, encoding="utf-8")
        art = artifact("op-art.txt", "0" * 64, len(ARTIFACT_TEXT), 900)
        s.append_tool_settled(op, "completed", duration=75.5, artifact=art)
        answer("call_art", "line 1 …[elided]…")
        op = dispatch("call_gone", run_id="r2", round=3)
        gone = artifact("op-gone.txt", "1" * 64, 99999, 90000)
        s.append_tool_settled(op, "completed", duration=1.0, artifact=gone)
        answer("call_gone", "excerpt")
        op = dispatch("call_evil", run_id="r2", round=3)
        evil = {"file": "../../etc/passwd", "digest": "2" * 64, "bytes": 10}
        s.append_tool_settled(op, "completed", duration=0.5, artifact=evil)
        answer("call_evil", "excerpt")
        op = dispatch("call_esc", run_id="r2", round=4)
        s.append_tool_settled(op, "failed", error="\x1b[31mred error\x1b[0m", duration=0.001)

        facts1 = [("date", "2026-08-09"), ("cwd", "/work/repo"), ("evil", HOSTILE_FACT)]
        sections1 = [
            section("identity", IDENTITY),
            section("tools", TOOLS_V1),
            section("memory", MEMORY),
        ]
        first_run = s.append_run_context("r1", "c1" * 32, facts1, sections1)
        facts2 = [("date", "2026-08-10"), ("cwd", "/work/repo"), ("branch", "main")]
        sections2 = [
            section("identity", IDENTITY),
            section("tools", TOOLS_V2),
            section("plan", PLAN),
        ]
        s.append_run_context("r2", "c2" * 32, facts2, sections2)
    # A third run whose "tools" body lives on a line that is not in this file.
    with path.open("ab") as fh:
        fh.write(
            dump_line(
                {
                    "id": "77777777-0000-4000-8000-000000000003",
                    "payload": {
                        "run-id": "r3",
                        "digest": "c3" * 32,
                        "facts": [["date", "2026-08-10"], ["cwd", "/work/repo"]],
                        "sections": [
                            {
                                "name": "identity",
                                "digest": section_digest("identity", IDENTITY),
                                "rendered-in": first_run,
                            },
                            {"name": "tools", "digest": "d" * 64, "rendered-in": ABSENT_CARRIER},
                        ],
                    },
                    "ts": "2026-08-10T09:00:00.000000Z",
                    "type": "run-context",
                    "v": 1,
                }
            )
        )
    return ops


def read_envelopes(path: Path) -> tuple[list[dict[str, Any]], list[int]]:
    envelopes: list[dict[str, Any]] = []
    lines: list[int] = []
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, 1):
            if raw.strip():
                envelopes.append(orjson.loads(raw))
                lines.append(number)
    return envelopes, lines


def live_from(path: Path, upto: int | None = None) -> tuple[LiveTranscript, CallIndex]:
    envelopes, lines = read_envelopes(path)
    live = LiveTranscript(path)
    live.apply(FollowUpdate(envelopes=envelopes[:upto], lines=lines[:upto], initial=True))
    calls = CallIndex()
    calls.update(live.state)
    return live, calls


@pytest.fixture
def transcript(tmp_path: Path, fixed_ids: None) -> Iterator[Path]:
    path = tmp_path / "run.jsonl"
    write_transcript(path)
    yield path


# -- the harness -------------------------------------------------------------------


class PaneApp(App[None]):
    """Mounts one pane and feeds it a transcript."""

    CSS_PATH = str(PANES_TCSS)
    TITLE = "panes"

    def __init__(
        self,
        make: Callable[[], ToolOpsPane | RunContextPane],
        live: LiveTranscript,
        calls: CallIndex,
        is_live: bool = False,
    ) -> None:
        super().__init__()
        self.pane = make()
        self.live = live
        self.calls = calls
        self.is_live = is_live
        self.selected: list[ToolOpsPane.Selected] = []

    def compose(self) -> ComposeResult:
        yield self.pane

    def on_mount(self) -> None:
        self._refresh()

    def _refresh(self) -> None:
        pane = self.pane
        if isinstance(pane, RunContextPane):
            pane.refresh_view(self.live.state, self.live.path)
        else:
            pane.refresh_view(self.live, self.calls, self.is_live)

    @on(ToolOpsPane.Selected)
    def _selected(self, event: ToolOpsPane.Selected) -> None:
        self.selected.append(event)

    def feed(self, live: LiveTranscript, calls: CallIndex) -> None:
        self.live, self.calls = live, calls
        self._refresh()


def ops_app(path: Path, is_live: bool = False) -> PaneApp:
    live, calls = live_from(path)
    return PaneApp(lambda: ToolOpsPane(id="ops"), live, calls, is_live)


def runs_app(path: Path) -> PaneApp:
    live, calls = live_from(path)
    return PaneApp(lambda: RunContextPane(id="runs-pane"), live, calls, False)


def plain_rows(table: DataTable[Any] | VirtualTable) -> list[list[str]]:
    if isinstance(table, VirtualTable):
        return [table.row_cells(index) for index in range(table.row_count)]
    return [
        [cell.plain if isinstance(cell, Text) else str(cell) for cell in table.get_row(row.key)]
        for row in table.ordered_rows
    ]


def column(table: DataTable[Any] | VirtualTable, key: str) -> list[str]:
    if isinstance(table, VirtualTable):
        return table.column_cells(key)
    return [cell.plain for cell in table.get_column(key)]


async def goto_call(pilot: Pilot[None], call_id: str) -> None:
    pane = pilot.app.query_one(ToolOpsPane)
    ids = column(pane.table, "call")
    pane.table.move_cursor(row=ids.index(call_id))
    await pilot.pause()


async def goto_run(pilot: Pilot[None], row: int) -> RunContextPane:
    """The run-context pane with its cursor on the ``row``-th run."""
    pane = pilot.app.query_one(RunContextPane)
    pane.runs_table.move_cursor(row=row)
    await pilot.pause()
    return pane


async def press_on(pilot: Pilot[None], call_id: str, key: str) -> None:
    """The cursor to the call's row, then ``key`` pressed."""
    await goto_call(pilot, call_id)
    await pilot.press(key)
    await pilot.pause()


async def settled(pilot: Pilot[None]) -> None:
    """The app's workers (the artifact's reader) done, and the screen refreshed."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def artifact_screen(app: App[None]) -> ArtifactScreen:
    screen = app.screen
    assert isinstance(screen, ArtifactScreen)
    return screen


def by_call(table: DataTable[Any] | VirtualTable, key: str) -> dict[str, str]:
    """The column ``key`` of each row, by the row's call id."""
    return dict(zip(column(table, "call"), column(table, key), strict=True))


def static_text(widget: Widget) -> str:
    assert isinstance(widget, Static)
    return str(widget.render())


# -- the tool-operations pane ----------------------------------------------------------


async def test_every_state_is_told_apart(transcript: Path) -> None:
    app = ops_app(transcript, is_live=False)
    async with app.run_test(size=(200, 50)):
        pane = app.query_one(ToolOpsPane)
        states = by_call(pane.table, "state")
        assert states == {
            "call_ok": "completed",
            "call_fail": "failed",
            "call_unk": "outcome unknown",
            "call_run": "running when the writer died",
            "call_unsettled": "completed, settle never landed",
            "call_art": "completed",
            "call_gone": "completed",
            "call_evil": "completed",
            "call_esc": "failed",
            "call_never": "never dispatched",
        }
        assert column(pane.table, "call")[-1] == "call_never"
        artifacts = by_call(pane.table, "artifact")
        assert artifacts["call_art"] == "▤ op-art.txt"
        assert artifacts["call_gone"] == "✗ not here: op-gone.txt"
        assert artifacts["call_evil"].startswith("⚠ refused")
        assert artifacts["call_ok"] == ""


async def test_running_when_the_file_is_live(transcript: Path) -> None:
    app = ops_app(transcript, is_live=True)
    async with app.run_test(size=(200, 50)):
        pane = app.query_one(ToolOpsPane)
        states = by_call(pane.table, "state")
        assert states["call_run"] == "running"
        # The writer stops: the same row now says it died in flight.
        app.is_live = False
        app.feed(app.live, app.calls)
        states = by_call(pane.table, "state")
        assert states["call_run"] == "running when the writer died"


async def test_incremental_refresh_matches_a_full_build(transcript: Path) -> None:
    envelopes, lines = read_envelopes(transcript)
    live = LiveTranscript(transcript)
    calls = CallIndex()
    app = PaneApp(lambda: ToolOpsPane(id="ops"), live, calls, is_live=True)
    async with app.run_test(size=(200, 50)) as pilot:
        pane = app.query_one(ToolOpsPane)
        followed: list[str] = []  # the call under the cursor after each line
        for envelope, line in zip(envelopes, lines, strict=True):
            live.apply(FollowUpdate(envelopes=[envelope], lines=[line]))
            calls.update(live.state)
            app.feed(live, calls)
            if not followed and "call_art" in column(pane.table, "call"):
                pane.table.move_cursor(column(pane.table, "call").index("call_art"))
            row = pane.selected_row()
            if followed or row is not None:
                followed.append(row.call_id if row else "")
        await pilot.pause()
        incremental = plain_rows(pane.table)
        assert pane.table.row_count == 10
        # The cursor stayed on its call while it waited, and on its operation once
        # dispatched (its row moved up among the operations).
        assert set(followed) == {"call_art"}
        assert column(pane.table, "state")[pane.table.cursor_row] == "completed"

    full_live, full_calls = live_from(transcript)
    full = PaneApp(lambda: ToolOpsPane(id="ops"), full_live, full_calls, is_live=True)
    async with full.run_test(size=(200, 50)):
        expected = plain_rows(full.query_one(ToolOpsPane).table)
    assert incremental == expected


async def test_a_reset_rebuilds(transcript: Path) -> None:
    app = ops_app(transcript)
    async with app.run_test(size=(200, 50)):
        pane = app.query_one(ToolOpsPane)
        assert pane.table.row_count == 10
        live, calls = live_from(transcript, upto=6)  # a new state: what a reset gives
        app.feed(live, calls)
        assert column(pane.table, "call") == [
            "call_ok",
            "call_fail",
            "call_unk",
            "call_run",
            "call_unsettled",
            "call_never",
            "call_art",
            "call_gone",
            "call_evil",
            "call_esc",
        ]
        assert column(pane.table, "state")[0] == "completed"
        assert column(pane.table, "state")[1] == "never dispatched"


async def test_detail_shows_the_whole_operation(transcript: Path) -> None:
    app = ops_app(transcript)
    async with app.run_test(size=(200, 50)) as pilot:
        await goto_call(pilot, "call_fail")
        detail = static_text(app.query_one("#tool-op-detail"))
        assert "make: *** [all] Error 2" in detail
        assert '"cmd": "make"' in detail  # arguments pretty-printed
        assert "destructive" in detail
        await goto_call(pilot, "call_art")
        detail = static_text(app.query_one("#tool-op-detail"))
        assert "op-art.txt" in detail and "elided-chars: 900" in detail


async def test_artifact_opens_and_shows_its_text(transcript: Path) -> None:
    app = ops_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        await press_on(pilot, "call_art", "enter")
        screen = artifact_screen(app)
        await settled(pilot)
        assert screen.state == "here"
        body = screen.query_one("#artifact-body", TextArea)
        assert body.display
        assert body.text == ARTIFACT_TEXT
        assert not screen.cut
        status = static_text(screen.query_one("#artifact-status"))
        assert "digest differs" in status  # the record's digest is made up
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ArtifactScreen)
        # "q" closes it too, even with the (read-only) text focused.
        await pilot.press("a")
        await settled(pilot)
        assert artifact_screen(app).focused is app.screen.query_one("#artifact-body")
        await pilot.press("q")
        await pilot.pause()
        assert not isinstance(app.screen, ArtifactScreen)
        assert app.is_running


async def test_artifact_is_cut_when_large(transcript: Path) -> None:
    app = ops_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        await app.push_screen(ArtifactScreen(transcript, "op-art.txt", {}, limit=100))
        await settled(pilot)
        screen = artifact_screen(app)
        assert screen.cut
        assert len(screen.text) == 100
        assert "the rest is cut" in static_text(screen.query_one("#artifact-status"))


async def test_missing_artifact_is_not_here_any_more(transcript: Path) -> None:
    app = ops_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        await press_on(pilot, "call_gone", "a")
        await settled(pilot)
        screen = artifact_screen(app)
        assert screen.state == "missing"
        assert static_text(screen.query_one("#artifact-status")) == MISSING
        assert not screen.query_one("#artifact-body", TextArea).display


async def test_hostile_artifact_name_is_refused(transcript: Path) -> None:
    app = ops_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        await press_on(pilot, "call_evil", "enter")
        screen = artifact_screen(app)
        assert screen.state == "refused"  # decided before any worker could read
        assert static_text(screen.query_one("#artifact-status")) == REFUSED
        assert screen.query_one("#artifact-body", TextArea).text == ""
        title = static_text(screen.query_one("#artifact-title"))
        assert "../../etc/passwd" in title


async def test_no_artifact_opens_nothing(transcript: Path) -> None:
    app = ops_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        await press_on(pilot, "call_ok", "enter")
        assert not isinstance(app.screen, ArtifactScreen)


async def test_m_and_double_click_ask_for_the_conversation(transcript: Path) -> None:
    app = ops_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        await press_on(pilot, "call_unsettled", "m")
        assert len(app.selected) == 1
        event = app.selected[0]
        assert event.call_id == "call_unsettled"
        assert event.control is app.query_one(ToolOpsPane)
        state = app.live.state
        assistant = [e["id"] for e in state.events if e["payload"].get("tool-calls")]
        assert event.message_id == assistant[0]
        assert len(event.answer_ids) == 1
        # A double click on the first data row (y=1: under the header).
        await pilot.double_click("#tool-ops-table", offset=(5, 1))
        await pilot.pause()
        assert len(app.selected) == 2
        assert app.selected[1].call_id == "call_ok"
        assert not isinstance(app.screen, ArtifactScreen)


async def test_escapes_in_a_tool_name_are_visible_text(transcript: Path) -> None:
    app = ops_app(transcript)
    async with app.run_test(size=(200, 50)) as pilot:
        await goto_call(pilot, "call_esc")
        pane = app.query_one(ToolOpsPane)
        tools = column(pane.table, "tool")
        hostile = tools[column(pane.table, "call").index("call_esc")]
        assert hostile.startswith("␛[2J␛]0;pwned␇[bold")
        detail = static_text(app.query_one("#tool-op-detail"))
        assert "␛[2J␛]0;pwned␇[bold red]boom[/]" in detail
        assert "␛[31mred error␛[0m" in detail
        assert '"q": "\\u001b[31mred"' in detail  # pretty JSON keeps the escape escaped
        svg = app.export_screenshot()
        assert "␛" in svg
        assert "\x1b" not in svg and "\x07" not in svg
        assert "pwned" in svg


# -- the run-context pane ------------------------------------------------------------


async def test_runs_list_and_changes(transcript: Path) -> None:
    app = runs_app(transcript)
    async with app.run_test(size=(140, 40)):
        pane = app.query_one(RunContextPane)
        assert column(pane.runs_table, "run") == ["r1", "r2", "r3"]
        assert column(pane.runs_table, "changed") == [
            "first run",
            "changed: 3 sections",  # tools changed, memory removed, plan new
            "changed: 2 sections",  # tools changed, plan removed
        ]
        # The newest run is selected first.
        assert pane.runs_table.cursor_row == 2


async def test_sections_resolve_rendered_in(transcript: Path) -> None:
    app = runs_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(RunContextPane)
        await pilot.pause()
        views = pane.section_views()
        by_name = {v.info.name: v.info for v in views}
        assert by_name["identity"].status == "same"
        assert by_name["identity"].location.startswith("rendered-in ")
        assert by_name["identity"].body == IDENTITY  # resolved through the index
        assert by_name["tools"].status == "changed"
        assert by_name["tools"].body is None
        assert by_name["plan"].status == "removed"
        rendered = [str(v.render()) for v in views]
        assert any("body not in this transcript" in text for text in rendered)

        await goto_run(pilot, 1)
        infos = {v.info.name: v.info for v in pane.section_views()}
        assert [(name, info.status) for name, info in infos.items()] == [
            ("identity", "same"),
            ("tools", "changed"),
            ("plan", "new"),
            ("memory", "removed"),
        ]
        assert infos["identity"].location.startswith("rendered-in")
        assert infos["tools"].location == "inline"
        assert infos["memory"].body == MEMORY
        facts = plain_rows(pane.facts_table)
        assert facts[0] == ["1", "date", "2026-08-10", "changed"]
        assert facts[2] == ["3", "branch", "main", "new"]
        assert facts[3][1:] == ["evil", "␛]52;c;SGVsbG8=␇[link=http://x]y[/link]", "removed"]


async def test_sections_fold_and_expand(transcript: Path) -> None:
    app = runs_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = await goto_run(pilot, 0)
        identity = pane.section_views()[0]
        assert identity.info.name == "identity"
        folded = str(identity.render())
        assert "Rule 2" in folded and "Rule 5" not in folded
        assert "3 more lines" in folded
        identity.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert identity.expanded
        assert "Rule 5: keep notes." in str(identity.render())
        # Switching runs and back keeps it expanded.
        await goto_run(pilot, 1)
        await goto_run(pilot, 0)
        assert pane.section_views()[0].expanded
        await pilot.press("tab")


async def test_escapes_in_a_fact_are_visible_text(transcript: Path) -> None:
    app = runs_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = await goto_run(pilot, 0)
        values = column(pane.facts_table, "value")
        assert values[2] == "␛]52;c;SGVsbG8=␇[link=http://x]y[/link]"
        svg = app.export_screenshot()
        assert "␛]52;c;SGVsbG8=␇" in svg
        assert "\x1b" not in svg and "\x07" not in svg


async def test_run_context_grows_live(transcript: Path) -> None:
    envelopes, lines = read_envelopes(transcript)
    live = LiveTranscript(transcript)
    calls = CallIndex()
    cut = len(envelopes) - 2  # up to and including the first run context
    live.apply(FollowUpdate(envelopes=envelopes[:cut], lines=lines[:cut]))
    app = PaneApp(lambda: RunContextPane(id="runs-pane"), live, calls, is_live=True)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(RunContextPane)
        assert pane.runs_table.row_count == 1
        live.apply(FollowUpdate(envelopes=envelopes[cut:], lines=lines[cut:]))
        app.feed(live, calls)
        await pilot.pause()
        assert pane.runs_table.row_count == 3
        assert pane.runs_table.cursor_row == 2  # it followed the newest run
        assert any(v.info.body is None for v in pane.section_views())


# -- snapshots ------------------------------------------------------------------------


@pytest.mark.flaky(reruns=2)  # see test_viewer_snapshots.py
def test_snapshot_tool_ops(transcript: Path, snap_compare: Any) -> None:
    """Every state in its colour; the writer is gone, so `running` died in flight."""

    async def run_before(pilot: Pilot[None]) -> None:
        await goto_call(pilot, "call_fail")

    assert snap_compare(ops_app(transcript), terminal_size=(140, 40), run_before=run_before)


@pytest.mark.flaky(reruns=2)  # see test_viewer_snapshots.py
def test_snapshot_tool_ops_live_hostile(transcript: Path, snap_compare: Any) -> None:
    """A live file: `running`; the hostile tool name shows ␛ and its markup as text."""

    async def run_before(pilot: Pilot[None]) -> None:
        await goto_call(pilot, "call_esc")

    app = ops_app(transcript, is_live=True)
    assert snap_compare(app, terminal_size=(140, 40), run_before=run_before)


@pytest.mark.flaky(reruns=2)  # see test_viewer_snapshots.py
def test_snapshot_artifact(transcript: Path, snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await press_on(pilot, "call_art", "enter")
        await settled(pilot)

    assert snap_compare(ops_app(transcript), terminal_size=(140, 40), run_before=run_before)


@pytest.mark.flaky(reruns=2)  # see test_viewer_snapshots.py
def test_snapshot_artifact_refused(transcript: Path, snap_compare: Any) -> None:
    async def run_before(pilot: Pilot[None]) -> None:
        await press_on(pilot, "call_evil", "a")

    assert snap_compare(ops_app(transcript), terminal_size=(100, 24), run_before=run_before)


@pytest.mark.flaky(reruns=2)  # see test_viewer_snapshots.py
def test_snapshot_run_context_changes(transcript: Path, snap_compare: Any) -> None:
    """Run 2 against run 1: a fact changed, sections same / changed / new / removed."""

    async def run_before(pilot: Pilot[None]) -> None:
        await goto_run(pilot, 1)

    assert snap_compare(runs_app(transcript), terminal_size=(140, 40), run_before=run_before)


@pytest.mark.flaky(reruns=2)  # see test_viewer_snapshots.py
def test_snapshot_run_context_missing_body(transcript: Path, snap_compare: Any) -> None:
    """Run 3: a body reached through rendered-in, and one whose carrier is gone."""

    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.pause()
        views = pilot.app.query(SectionView)
        assert len(views) == 3

    assert snap_compare(runs_app(transcript), terminal_size=(140, 40), run_before=run_before)


async def test_focusing_a_pane_focuses_its_table(transcript: Path) -> None:
    app = runs_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(RunContextPane)
        pane.facts_table.focus()
        await pilot.pause()
        pane.focus()
        await pilot.pause()
        assert app.focused is pane.runs_table
    app = ops_app(transcript)
    async with app.run_test(size=(140, 40)) as pilot:
        pane_ops = app.query_one(ToolOpsPane)
        app.query_one("#tool-op-detail-scroll").focus()
        await pilot.pause()
        pane_ops.focus()
        await pilot.pause()
        assert app.focused is pane_ops.table
