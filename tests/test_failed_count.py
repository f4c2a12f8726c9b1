"""How many tool operations failed (the header says it beside running and interrupted
``150 tool ops (5 failed)``, in every format), counted by ``model.ops_in_state``. A
format counts its column without making each operation; every snapshot of a followed
file (older ones too, their column since moved on) counts what ``state_of`` says. The
tool names a format says without making its operations are theirs."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import app_loaded, follow_into, screen_lines

from session_core.formats import by_name
from session_core.model import Transcript, op_states, ops_in_state, packed_tools
from viewer.demo import DEMO_FILES, DEMO_FORMATS, simulate_run
from viewer.screens.model_screen import ModelScreen

STATES = ["failed", "completed", "interrupted", "running", "outcome-unknown", "unsettled-answered"]


def demo_file(tmp_path: Path, fmt: str) -> Path:
    path = tmp_path / DEMO_FILES[fmt]
    path.parent.mkdir(parents=True, exist_ok=True)
    simulate_run(str(path), speed=0, format=fmt)  # (a failed call, and its crash)
    return path


def states_said(transcript: Transcript) -> dict[str, int]:
    ops = transcript.tool_operations
    state_of = op_states(ops)
    said = {state: ops_in_state(ops, state) for state in STATES}
    assert said == {s: sum(state_of(i) == s for i in range(len(ops))) for s in STATES}
    return said


@pytest.mark.parametrize("fmt", DEMO_FORMATS)
def test_every_snapshot_counts_each_state_as_its_operations_say(tmp_path: Path, fmt: str) -> None:
    path = demo_file(tmp_path, fmt)
    live = by_name(fmt).live(str(path))
    kept: list[Transcript] = []

    def apply(update: object) -> None:
        live.apply(update)  # type: ignore[arg-type]
        alive = [None, True, False][len(kept) % 3]
        snapshot = live.transcript(writer_alive=alive)
        ops = snapshot.tool_operations
        if len(kept) % 2 and len(ops):  # (some made: counted by their objects)
            ops[len(ops) // 2]
        states_said(snapshot)
        kept.append(snapshot)

    follow_into(apply, path, 1 << 10, live.format.parsed_updates)
    assert len(kept) > 5
    for snapshot in kept:  # (the live columns have moved on since each was taken)
        states_said(snapshot)
    assert states_said(by_name(fmt).open(path))["failed"] >= 1


@pytest.mark.parametrize("fmt", DEMO_FORMATS)
async def test_the_header_says_how_many_failed(tmp_path: Path, fmt: str) -> None:
    path = demo_file(tmp_path, fmt)
    failed = ops_in_state(by_name(fmt).open(path).tool_operations, "failed")
    async with app_loaded(path, ModelScreen, (200, 30)) as (app, _pilot):
        counts = screen_lines(app)[2]
    assert failed and " tool ops (" in counts and f"{failed} failed)" in counts, counts


@pytest.mark.parametrize("fmt", DEMO_FORMATS)
def test_the_tool_names_said_without_making_the_operations_are_theirs(
    tmp_path: Path, fmt: str
) -> None:
    """The tool column's width is measured on them (``model.packed_tools``): where a format
    says them, they are its operations' own, from any start."""
    ops = by_name(fmt).open(demo_file(tmp_path, fmt)).tool_operations
    for start in (0, 3, len(ops)):
        names = packed_tools(ops, start)
        assert names is None or list(names) == [op.tool for op in ops[start:]]
    assert packed_tools(ops) is not None  # (v1 too: its replay keeps them)
