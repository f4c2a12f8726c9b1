"""A v1 file's tool operations (on the model screen), its run-context pane, and the
artifact viewer.

The transcript is written by ``session_core.Session`` (ids and timestamps
made deterministic) plus a few raw lines the writer would never produce.
"""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import file_loaded, screen_text, wait_for
from rich.text import Text
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
from story import OLD_MTIME
from viewer.app import TailscopeApp
from viewer.screens.artifact import MISSING, REFUSED, ArtifactScreen
from viewer.screens.model_screen import ModelScreen
from viewer.screens.op_detail import OpDetailScreen
from viewer.widgets.run_context import RunContextPane, SectionView
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


def live_from(path: Path, upto: int | None = None) -> LiveTranscript:
    envelopes, lines = read_envelopes(path)
    live = LiveTranscript(path)
    live.apply(FollowUpdate(envelopes=envelopes[:upto], lines=lines[:upto], initial=True))
    return live


@pytest.fixture
def transcript(tmp_path: Path, fixed_ids: None) -> Iterator[Path]:
    path = tmp_path / "run.jsonl"
    write_transcript(path)
    yield path


@pytest.fixture
def crashed(transcript: Path) -> Path:
    """The transcript, its writer long gone (an old mtime, no lock)."""
    os.utime(transcript, (OLD_MTIME, OLD_MTIME))
    return transcript


# -- the harness -------------------------------------------------------------------


class PaneApp(App[None]):
    """Mounts the run-context pane and feeds it a transcript."""

    CSS_PATH = str(PANES_TCSS)
    TITLE = "panes"

    def __init__(self, live: LiveTranscript) -> None:
        super().__init__()
        self.pane = RunContextPane(id="runs-pane")
        self.live = live

    def compose(self) -> ComposeResult:
        yield self.pane

    def on_mount(self) -> None:
        self.feed(self.live)

    def feed(self, live: LiveTranscript) -> None:
        self.live = live
        self.pane.refresh_view(live.state, live.path)


def runs_app(path: Path) -> PaneApp:
    return PaneApp(live_from(path))


@asynccontextmanager
async def operations(
    path: Path, size: tuple[int, int] = (160, 40)
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], ModelScreen]]:
    """The app on ``path``, its tool operations tab shown with every call."""
    app = TailscopeApp(path)
    async with app.run_test(size=size) as pilot:
        await file_loaded(pilot, ModelScreen)
        screen = app.file_screen
        await pilot.press("3")
        await wait_for(pilot, lambda: screen.ops.table.row_count == len(CALLS))
        yield app, pilot, screen


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
    """The tool operations table's cursor on the call's row."""
    table = pilot.app.screen.query_one("#ops-table", VirtualTable)
    table.move_cursor(column(table, "call").index(call_id))
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
    """An artifact's screen (if one is shown) done reading, and the screen refreshed."""
    screen = pilot.app.screen
    if isinstance(screen, ArtifactScreen):
        await wait_for(pilot, lambda: screen.state != "loading")
    await pilot.pause()


async def artifact_of(pilot: Pilot[None], call_id: str) -> ArtifactScreen:
    """``a`` on the call's operation: its artifact's screen, once read."""
    await press_on(pilot, call_id, "a")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, ArtifactScreen))
    await settled(pilot)
    return artifact_screen(pilot.app)


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


# -- tool operations ----------------------------------------------------------------

STATES = {
    "call_ok": "completed",
    "call_fail": "failed",
    "call_unk": "outcome unknown",
    "call_run": "interrupted: no result, the writer is gone",
    "call_unsettled": "completed, settle never landed",
    "call_art": "completed",
    "call_gone": "completed",
    "call_evil": "completed",
    "call_esc": "failed",
    "call_never": "never dispatched",
}


async def test_every_state_is_told_apart(crashed: Path) -> None:
    async with operations(crashed) as (_app, _pilot, screen):
        assert by_call(screen.ops.table, "state") == STATES
        assert column(screen.ops.table, "call")[-1] == "call_never"


async def test_running_while_the_writer_is_at_work(transcript: Path) -> None:
    async with operations(transcript) as (app, pilot, screen):
        assert screen.writer_is_alive()  # written a moment ago, by a writer that does not lock
        assert by_call(screen.ops.table, "state")["call_run"] == "running"
        # The file goes quiet: the same row now says the call was cut off.
        os.utime(transcript, (OLD_MTIME, OLD_MTIME))
        await wait_for(
            pilot,
            lambda: by_call(screen.ops.table, "state")["call_run"] == STATES["call_run"],
            5,
        )
        await wait_for(pilot, lambda: "idle" in screen_text(app))


async def test_followed_a_line_at_a_time_the_rows_are_the_whole_files(
    crashed: Path, tmp_path: Path
) -> None:
    whole = crashed.read_bytes().splitlines(keepends=True)
    async with operations(crashed) as (_app, _pilot, screen):
        expected = plain_rows(screen.ops.table)
    grown = tmp_path / "grown.jsonl"
    grown.write_bytes(b"".join(whole[:3]))  # the meta, the system prompt, the calls
    app = TailscopeApp(grown)
    async with app.run_test(size=(160, 40)) as pilot:
        await file_loaded(pilot, ModelScreen)
        screen = app.file_screen
        await pilot.press("3")
        for line in whole[3:]:
            with grown.open("ab") as fh:
                fh.write(line)
            await pilot.pause(0.02)
        os.utime(grown, (OLD_MTIME, OLD_MTIME))  # the writer gone, as in the whole file
        await wait_for(pilot, lambda: plain_rows(screen.ops.table) == expected, 10)


async def test_a_reset_rebuilds(crashed: Path, tmp_path: Path) -> None:
    lines = crashed.read_bytes().splitlines(keepends=True)
    async with operations(crashed) as (_app, pilot, screen):
        shorter = tmp_path / "shorter.jsonl"
        shorter.write_bytes(b"".join(lines[:6]))  # the calls, the first two settled
        os.utime(shorter, (OLD_MTIME, OLD_MTIME))
        os.replace(shorter, crashed)  # a new inode, as a repair's rename leaves
        await wait_for(pilot, lambda: by_call(screen.ops.table, "state")["call_fail"] == "failed")
        states = by_call(screen.ops.table, "state")
        assert states["call_ok"] == "completed"
        assert {states[c] for c in CALLS if c not in ("call_ok", "call_fail")} == {
            "never dispatched"
        }


async def test_detail_shows_the_whole_operation(crashed: Path) -> None:
    async with operations(crashed) as (app, pilot, _screen):
        await press_on(pilot, "call_fail", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, OpDetailScreen))
        detail = screen_text(app)
        assert "make: *** [all] Error 2" in detail
        assert '"cmd": "make"' in detail  # arguments pretty-printed
        assert "idempotency: destructive" in detail and "round: 1" in detail
        await pilot.press("escape")
        await press_on(pilot, "call_art", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, OpDetailScreen))
        detail = screen_text(app)
        assert "artifact: here (a: open)" in detail
        assert "op-art.txt" in detail and "elided-chars: 900" in detail


async def test_artifact_opens_and_shows_its_text(crashed: Path) -> None:
    async with operations(crashed, size=(140, 40)) as (app, pilot, _screen):
        screen = await artifact_of(pilot, "call_art")
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


async def test_artifact_is_cut_when_large(crashed: Path) -> None:
    async with operations(crashed, size=(140, 40)) as (app, pilot, _screen):
        await app.push_screen(ArtifactScreen(crashed, "op-art.txt", {}, limit=100))
        await settled(pilot)
        screen = artifact_screen(app)
        assert screen.cut
        assert len(screen.text) == 100
        assert "the rest is cut" in static_text(screen.query_one("#artifact-status"))


async def test_missing_artifact_is_not_here_any_more(crashed: Path) -> None:
    async with operations(crashed, size=(140, 40)) as (_app, pilot, _screen):
        screen = await artifact_of(pilot, "call_gone")
        assert screen.state == "missing"
        assert static_text(screen.query_one("#artifact-status")) == MISSING
        assert not screen.query_one("#artifact-body", TextArea).display


async def test_hostile_artifact_name_is_refused(crashed: Path) -> None:
    async with operations(crashed, size=(140, 40)) as (_app, pilot, _screen):
        screen = await artifact_of(pilot, "call_evil")
        assert screen.state == "refused"  # decided before any worker could read
        assert static_text(screen.query_one("#artifact-status")) == REFUSED
        assert screen.query_one("#artifact-body", TextArea).text == ""
        title = static_text(screen.query_one("#artifact-title"))
        assert "../../etc/passwd" in title


async def test_m_shows_the_calling_message(crashed: Path) -> None:
    async with operations(crashed) as (_app, pilot, screen):
        await press_on(pilot, "call_unsettled", "m")
        await wait_for(pilot, lambda: screen.query_one("#tabs").active == "conversation")
        selected = screen.conversation.selected
        assert selected is not None and selected.role == "assistant"
        assert any(p.call_id == "call_unsettled" for p in selected.parts)


async def test_escapes_in_a_tool_name_are_visible_text(crashed: Path) -> None:
    async with operations(crashed, size=(200, 50)) as (app, pilot, screen):
        await goto_call(pilot, "call_esc")
        tools = by_call(screen.ops.table, "tool")
        assert tools["call_esc"].startswith("␛[2J␛]0;pwned␇[")  # cut to its column
        svg = app.export_screenshot()
        assert "␛" in svg and "pwned" in svg
        assert "\x1b" not in svg and "\x07" not in svg
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, OpDetailScreen))
        detail = screen_text(app)
        assert "␛[2J␛]0;pwned␇[bold red]boom[/]" in detail
        assert "␛[31mred error␛[0m" in detail
        assert '"q": "\\u001b[31mred"' in detail  # pretty JSON keeps the escape escaped
        svg = app.export_screenshot()
        assert "\x1b" not in svg and "\x07" not in svg


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
    cut = len(envelopes) - 2  # up to and including the first run context
    live.apply(FollowUpdate(envelopes=envelopes[:cut], lines=lines[:cut]))
    app = PaneApp(live)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = app.query_one(RunContextPane)
        assert pane.runs_table.row_count == 1
        live.apply(FollowUpdate(envelopes=envelopes[cut:], lines=lines[cut:]))
        app.feed(live)
        await pilot.pause()
        assert pane.runs_table.row_count == 3
        assert pane.runs_table.cursor_row == 2  # it followed the newest run
        assert any(v.info.body is None for v in pane.section_views())


# -- snapshots ------------------------------------------------------------------------


def on_operations(call_id: str, *press: str) -> Any:
    """A snapshot's ``run_before``: the file loaded, its tool operations shown, the cursor
    on the call and ``press`` pressed."""

    async def run_before(pilot: Pilot[None]) -> None:
        await file_loaded(pilot, ModelScreen)
        await pilot.press("3")
        await wait_for(pilot, lambda: pilot.app.screen.ops.table.row_count == len(CALLS))
        await goto_call(pilot, call_id)
        for key in press:
            await pilot.press(key)
        await settled(pilot)

    return run_before


# What each snapshot of the tool operations shows: the call under the cursor, the keys
# pressed there, the terminal's size.
OPERATION_SNAPSHOTS = {
    # every state in its colour; the writer is gone, so the running call was cut off
    "tool_ops": ("call_fail", (), (140, 40)),
    # the hostile tool's detail: ␛ and its markup shown as text, the v1 record's fields
    "tool_op_detail_hostile": ("call_esc", ("enter",), (140, 40)),
    "artifact": ("call_art", ("a",), (140, 40)),
    "artifact_refused": ("call_evil", ("a",), (100, 24)),
}


@pytest.mark.flaky(reruns=2)  # see test_viewer_snapshots.py
@pytest.mark.parametrize("shot", list(OPERATION_SNAPSHOTS))
def test_snapshot_operations(crashed: Path, snap_compare: Any, shot: str) -> None:
    call_id, press, size = OPERATION_SNAPSHOTS[shot]
    run_before = on_operations(call_id, *press)
    assert snap_compare(TailscopeApp(crashed), terminal_size=size, run_before=run_before)


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
