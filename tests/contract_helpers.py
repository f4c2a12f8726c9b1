"""The contract suite's fixtures (``conftest`` shares them): every registered format, a
representative file of it (``format_fixtures.FACTORIES``), and what a read of it shows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from format_fixtures import FACTORIES

import session_core
from session_core import TranscriptError
from session_core.formats import FORMATS, TranscriptFormat, format_of

NAMES = [fmt.name for fmt in FORMATS]


@pytest.fixture(params=NAMES)
def fmt(request: pytest.FixtureRequest) -> TranscriptFormat:
    name = request.param
    if name not in FACTORIES:
        pytest.fail(f"{name} is registered but gives no contract_sample (format_fixtures.py)")
    return next(f for f in FORMATS if f.name == name)


@pytest.fixture
def sample(fmt: TranscriptFormat, tmp_path: Path) -> Path:
    return FACTORIES[fmt.name](tmp_path)


def open_transcript(path: Path) -> object:
    opener = getattr(session_core, "open_transcript", None)
    if opener is not None:
        return opener(path)
    found = format_of(path)
    if found is None:
        raise TranscriptError("no format claims it", path=str(path))
    return found.open(path)


def items_text(transcript: Any) -> str:
    items = [*getattr(transcript, "raw", ()), *getattr(transcript, "messages", ())]
    return "\n".join(part.text or "" for item in items for part in item.parts)


def assert_ids_unique(transcript: Any) -> None:
    """No two items of the raw view, nor of the conversation, share an id (what the
    viewer and ``replay`` tell them apart by)."""
    for view in ("raw", "messages"):
        ids = [item.id for item in getattr(transcript, view, ())]
        twice = sorted({ident for ident in ids if ids.count(ident) > 1})
        assert not twice, f"{view}: ids given to more than one item: {twice[:5]}"
