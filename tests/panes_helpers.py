"""What the panes' tests share: the v1 transcript they drive, and reading a table's cells.

The transcript is written by ``session_core.Session`` (ids and timestamps made
deterministic: the ``fixed_ids`` fixture) plus a few raw lines the writer would never
produce: every operation state, three artifacts, three runs.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from rich.text import Text
from textual.widgets import DataTable

import session_core.session as session_module
from session_core import Message, Session
from session_core.artifacts import artifact_dir
from session_core.codec import dump_line, section_digest
from viewer.widgets.virtual_table import VirtualTable

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


@pytest.fixture
def transcript(tmp_path: Path, fixed_ids: None) -> Iterator[Path]:
    path = tmp_path / "run.jsonl"
    write_transcript(path)
    yield path


# -- reading a table -----------------------------------------------------------


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
