"""The viewer on a file whose records hold values of other types than their format's
(a count made a list, a role made an object, a seq past any line number, a string made a
list nested 1,000 or 5,000 deep, hostile text): every tab, a row's detail, the raw view, search
and the filter are visited, and the app shows what it can and keeps running (a crash in
a pane or a worker would end ``run_test`` with the exception)."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path
from typing import Any

import orjson
import pytest
from format_fixtures import FACTORIES
from helpers import app_on, places, put_at, wait_for

from viewer.screens.model_screen import ModelScreen

ODD: list[Any] = [
    None,
    True,
    -1,
    2**62,
    1.5,
    "",
    "\x1b[31m[bold]x[/bold]",
    [],
    [1, "a", {}],
    {},
    {"a": None},
    float("inf"),  # (written 1e400, which Python and orjson read as inf)
    json.loads("[" * 1000 + "]" * 1000),
    json.loads("[" * 5000 + "]" * 5000),  # past orjson's 1,024 levels: ``indexing.deeper``
]

KEYS = [
    *("home", "enter", "down", "enter", "t", "e", "r", "end", "up", "enter", "r"),
    *("2", "home", "enter", "escape", "down", "enter", "escape"),
    *("3", "home", "enter", "escape", "4", "home", "enter", "escape"),
    *("w", "escape", "slash", "a", "enter", "n", "escape", "f", "u", "enter", "escape", "1"),
]


# Each a crash once (the first record of that type whose place is there gets the value).
FOUND: list[tuple[str, tuple[str, ...], Any]] = [
    ("compaction", ("payload", "tokens-before"), []),  # v1: drawn with f"{value:,}"
    ("message_end", ("seq",), 2**62),  # agentgo: an item's line, an int32
    ("tool-settled", ("payload", "duration"), float("inf")),  # v1: a took of 1e400
]


def _odd_copy(sample: Path, seed: int) -> Path:
    """``sample`` with a field of every other record given an odd value, and the values
    found so (JSON written by the standard library: orjson writes 254 levels)."""
    chosen = random.Random(seed)
    found = list(FOUND)
    lines = sample.read_bytes().split(b"\n")
    for index, line in enumerate(lines):
        if not line.startswith(b"{"):
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        where = list(places(record))
        for kind, at, new in list(found):
            if record.get("type") == kind and at in where:
                record = put_at(record, at, new)
                found.remove((kind, at, new))
        if index % 2 and where:
            record = put_at(record, chosen.choice(where), chosen.choice(ODD))
        lines[index] = json.dumps(record).replace("Infinity", "1e400").encode()
    path = sample.with_name(f"odd-{seed}{sample.suffix}")
    path.write_bytes(b"\n".join(lines))
    return path


@pytest.mark.parametrize("name", sorted(FACTORIES))
async def test_a_file_with_values_of_other_types_is_toured_without_a_crash(
    name: str, tmp_path: Path
) -> None:
    path = _odd_copy(FACTORIES[name](tmp_path), seed=1)
    async with app_on(path, (120, 36)) as (app, pilot):
        await wait_for(pilot, lambda: isinstance(app.screen, ModelScreen), timeout=15)
        for key in KEYS:
            await pilot.press(key)
            await pilot.pause(0.02)
        await pilot.pause(0.2)
        assert app.is_running


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_a_file_with_values_of_other_types_exports(name: str, tmp_path: Path) -> None:
    """(A v1 settle's duration of 1e400 ended the Markdown and HTML exports with a
    traceback: an infinite number of seconds made no minutes.)"""
    from session_core import TranscriptError
    from session_core.export import export_into

    path = _odd_copy(FACTORIES[name](tmp_path), seed=1)
    for fmt in ("md", "html", "json"):
        out = io.BytesIO()
        try:
            export_into(path, fmt, "replayed", out)
        except TranscriptError:  # (a strict reader's refusal of a value: said, no traceback)
            continue
        assert out.getvalue()


@pytest.mark.parametrize("written", [b"1e400", b"-1e400"])
def test_a_duration_of_1e400_is_no_duration(written: bytes, tmp_path: Path) -> None:
    from session_core import open_transcript
    from session_core.export import export_into
    from session_core.text import duration_text

    path = tmp_path / "t.jsonl"
    path.write_bytes(
        b'{"payload":{"agent":"a"},"ts":"2026-12-06T10:36:23Z","type":"session-meta","v":1}\n'
        b'{"id":"op1","payload":{"arguments":"{}","call-id":"c1","idempotency":"read-only",'
        b'"round":1,"run-id":"r1","tool":"grep"},"ts":"2026-12-06T10:36:23Z",'
        b'"type":"tool-dispatched","v":1}\n'
        b'{"id":"st1","payload":{"duration":' + written + b',"op-id":"op1",'
        b'"outcome":"completed"},"ts":"2026-12-06T10:36:24Z","type":"tool-settled","v":1}\n'
    )
    assert duration_text(float("inf")) == duration_text(float("nan")) == ""
    (op,) = open_transcript(path).tool_operations
    assert op.state == "completed" and op.duration is None  # (replay's null, as orjson's)
    for fmt in ("md", "html"):
        out = io.BytesIO()
        export_into(path, fmt, "replayed", out)
        assert b"grep" in out.getvalue()
        assert not re.search(rb"\binf(inity)?\b", out.getvalue(), re.IGNORECASE)
