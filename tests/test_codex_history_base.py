"""A Codex rollout that builds on history kept in another file (a paginated fork: its
``session_meta`` names a ``history_base``, and the file holds none of the parent's lines).
Codex seeds the fork's token count with the parent's, so its first total holds the
parent's usage past its own last: that is the parent file's, not the fork's."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import orjson
import pytest
from codex_helpers import CODEX, opened
from codex_writer import RolloutWriter, usage
from helpers import follow_into

from session_core.model import Transcript

PARENT = "0199aaaa-0000-7000-8000-000000000000"
PARENT_TOTAL = (9000, 6000, 400, 100)  # what the parent counted before the fork


class PaginatedWriter(RolloutWriter):
    """Lines as a paginated rollout has them: each with its ``ordinal`` envelope, counted
    on from the history it builds on (``odd``: its reports take the dict path)."""

    def __init__(self, path: str | os.PathLike[str], first: int, odd: bool) -> None:
        super().__init__(path)
        self.ordinal = first
        self.odd = odd

    def write(self, kind: str, payload: Any) -> int:
        record = {"timestamp": self.ts(), "ordinal": self.ordinal, "type": kind, "payload": payload}
        self.ordinal += 1
        return self.raw(orjson.dumps(record) + b"\n")


def _report(
    w: PaginatedWriter, total: tuple[int, int, int, int], last: tuple[int, ...] | None
) -> None:
    """A token_count as Codex writes it (``last`` None: no last usage); ``w.odd``: with an
    unrelated field of a type the typed decoder refuses (the line then takes the dict path)."""
    info: dict[str, Any] = {
        "total_token_usage": usage(total),
        "model_context_window": "272k" if w.odd else 272000,
    }
    if last is not None:
        info["last_token_usage"] = usage((last[0], last[1], last[2], last[3]))
    w.event("token_count", info=info, rate_limits=None)


def _fork(path: Path, odd: bool, based: bool = True, first_last: bool = True) -> Path:
    """A paginated fork: its header (``forked_from_id``, ``history_base``), the settings
    Codex applies, then two turns of its own, whose totals go on from the parent's."""
    w = PaginatedWriter(path, first=12, odd=odd)
    base = {"thread_id": PARENT, "end_ordinal_exclusive": 12, "end_byte_offset": 4096}
    more: dict[str, Any] = {"forked_from_id": PARENT, "history_mode": "paginated"}
    if based:
        more["history_base"] = base
    w.session_meta("019c0000-0000-7000-8000-00000000000f", **more)
    w.event("thread_settings_applied", model="gpt-5-codex")
    p = PARENT_TOTAL
    w.task_started("t1")
    w.turn_context("t1", model="gpt-5-codex")
    w.message("user", "go on")
    w.message("assistant", "own a")
    _report(
        w, (p[0] + 1200, p[1] + 500, p[2] + 60, p[3]), (1200, 500, 60, 0) if first_last else None
    )
    w.task_complete("t1")
    w.task_started("t2")
    w.turn_context("t2", model="gpt-5-codex")
    w.message("user", "and more")
    w.message("assistant", "own b")
    _report(w, (p[0] + 2000, p[1] + 1100, p[2] + 90, p[3]), (800, 600, 30, 0))
    w.task_complete("t2")
    return Path(w.path)


def _live(path: Path, batch: int) -> Transcript:
    live = CODEX.live(os.fspath(path))
    follow_into(live.apply, path, batch, parse=False)
    return live.transcript(writer_alive=False)


@pytest.mark.parametrize("odd", [False, True], ids=["typed", "dict"])
def test_a_paginated_forks_usage_is_its_own_not_its_parents(tmp_path: Path, odd: bool) -> None:
    """The seeded part of the first total (the parent's count) is in no run, no message
    and not the session's total; the runs add up to it; whole and followed alike."""
    path = _fork(tmp_path / "r.jsonl", odd)
    for t in (opened(path), _live(path, 1 << 20), _live(path, 300)):
        u = t.usage
        assert (u.input_tokens, u.cache_read_tokens, u.output_tokens) == (900, 1100, 90)
        assert u.reported == u.responses == 2
        assert u.cost == pytest.approx((900 * 1.25 + 1100 * 0.125 + 90 * 10.0) / 1_000_000)
        first, second = t.runs
        assert (first.usage.input_tokens, first.usage.output_tokens) == (700, 60)
        assert (second.usage.input_tokens, second.usage.output_tokens) == (200, 30)
        assert not first.copied and not second.copied
        assert sum(r.usage.reported for r in t.runs) == u.reported
        said = {i.parts[0].text: i.usage for i in t.messages if i.role == "assistant"}
        assert said["own a"] is not None and said["own a"].input_tokens == 700
        assert t.to_json()["usage"]["input-tokens"] == 900


def test_a_fork_that_names_no_history_base_is_read_as_before(tmp_path: Path) -> None:
    """Without a ``history_base`` nothing says the first total holds another file's
    count: it is taken whole, as in any rollout (the rule keys on what Codex writes)."""
    t = opened(_fork(tmp_path / "r.jsonl", odd=False, based=False))
    u = t.usage
    assert (u.input_tokens, u.output_tokens) == (9000 + 2000 - 6000 - 1100, 400 + 90)


@pytest.mark.parametrize("odd", [False, True], ids=["typed", "dict"])
def test_a_paginated_forks_first_report_with_no_last_usage_counts_no_seed(
    tmp_path: Path, odd: bool
) -> None:
    """Its first total holds the parent's count and its own, with nothing to tell them
    apart: none of it is the fork's (never the parent's counted as its own), that
    response's usage is unknown, and a warning says why; the second is counted."""
    path = _fork(tmp_path / "r.jsonl", odd, first_last=False)
    for t in (opened(path), _live(path, 1 << 20), _live(path, 300)):
        u = t.usage
        assert (u.input_tokens, u.cache_read_tokens, u.output_tokens) == (200, 600, 30)
        assert (u.reported, u.responses) == (1, 2)
        first, second = t.runs
        assert first.usage.input_tokens is None and not first.usage.reported
        assert (second.usage.input_tokens, second.usage.output_tokens) == (200, 30)
        assert any("history_base" in w and "cannot be told" in w for w in t.warnings)


def test_a_big_forks_preview_never_counts_its_parents_seed(tmp_path: Path) -> None:
    """The big-file preview (``tail``) reads the file's end alone, whose first total
    holds the count before the window (here the parent's seed too): only its own last
    usage is the window's, so its runs and total are the window's responses' (it counted
    the parent's 9,000 in as the fork's)."""
    path = _fork(tmp_path / "r.jsonl", odd=False)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([lines[0], lines[1] * 400, *lines[2:]]))  # (a long middle)
    whole = opened(path).usage
    assert (whole.input_tokens, whole.output_tokens) == (900, 90)
    preview = CODEX.tail(path, 8192)
    assert preview is not None and "id" not in preview.meta  # (the header not in the window)
    u = preview.usage
    assert (u.input_tokens, u.output_tokens, u.responses) == (900, 90, 2)
    assert [(r.usage.input_tokens, r.usage.output_tokens) for r in preview.runs] == [
        (700, 60),
        (200, 30),
    ]
    small = CODEX.tail(_fork(tmp_path / "small.jsonl", odd=False))  # (its header in the window)
    assert small is not None and small.usage.input_tokens == 900


def test_a_big_rollouts_preview_counts_the_windows_responses_alone(tmp_path: Path) -> None:
    """Any big rollout's first screen: the window's first total is the session's so far
    (every response before the window in it); its first run is its own response's usage,
    not that total (a 1 GB file's first run read 4.9 billion tokens), and the preview's
    total is the window's responses', as the header says ("the file's end alone")."""
    path = _fork(tmp_path / "r.jsonl", odd=False, based=False)
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join([lines[0], lines[1] * 400, *lines[2:]]))
    preview = CODEX.tail(path, 8192)
    assert preview is not None and "id" not in preview.meta
    assert [(r.usage.input_tokens, r.usage.output_tokens) for r in preview.runs] == [
        (700, 60),
        (200, 30),
    ]
    assert (preview.usage.input_tokens, preview.usage.output_tokens) == (900, 90)
