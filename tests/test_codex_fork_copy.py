"""A Codex fork's copy of its parent's history, told by the parent's own rollout.

Codex writes a fork's rollout as its own ``session_meta`` (``forked_from_id``), then the
parent's lines up to the fork point (its ``session_meta`` first), each with the time of
the copy, then the fork's own lines; its count goes on from the parent's. Where the
parent's rollout is in the fork's ``sessions`` tree, the copied turns are the parent's:
their usage is not the fork's (it is counted in the parent's file), as where a fork's
count starts again from 0. Where it is not, the file reads as before, and says so."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from io import BytesIO
from pathlib import Path
from typing import Any

import orjson
import pytest
from codex_helpers import CODEX, opened
from codex_writer import RolloutWriter, usage, zst_copy
from helpers import file_loaded, follow_into, said

from session_core.export import export
from session_core.formats.base import check_note
from session_core.formats.codex import fork_copy
from session_core.model import COPIED_CUT, Transcript
from session_core.scan import scan_file
from session_core.tail_reader import TailReader
from viewer.app import TailscopeApp
from viewer.browser_cells import totals
from viewer.screens.model_screen import ModelScreen

PARENT = "0199aaaa-0000-7000-8000-00000000000a"
FORK = "0199aaaa-0000-7000-8000-00000000000f"
FIRST, SECOND = (1000, 0, 100, 0), (2500, 800, 250, 0)  # the parent's totals
OWN = (1200, 500, 60, 0)  # the fork's own response


def _report(w: RolloutWriter, total: tuple[int, ...], last: tuple[int, ...], odd: bool) -> None:
    """A token_count as Codex writes it; ``odd``: with an unrelated field of a type the
    typed decoder refuses (the line then takes the dict path)."""
    info = {
        "total_token_usage": usage((total[0], total[1], total[2], total[3])),
        "last_token_usage": usage((last[0], last[1], last[2], last[3])),
        "model_context_window": "272k" if odd else 272000,
    }
    w.event("token_count", info=info, rate_limits=None)


def _turn(w: RolloutWriter, turn: str, said: str, total: tuple[int, ...], odd: bool) -> None:
    w.task_started(turn)
    w.turn_context(turn, model="gpt-5-codex")
    w.message("user", f"prompt {turn}")
    w.message("assistant", said)
    before = w.total or (0, 0, 0, 0)
    w.total = (total[0], total[1], total[2], total[3])
    _report(w, total, tuple(a - b for a, b in zip(total, before, strict=True)), odd)
    w.task_complete(turn)


def _family(root: Path, odd: bool, cut: bool) -> tuple[Path, Path]:
    """A parent rollout of two turns and its fork, in a ``sessions`` tree (the parent a
    day earlier). ``cut``: forked before the parent's second prompt, else after it."""
    sessions = root / "sessions" / "2026" / "01"
    w = RolloutWriter(sessions / "02" / f"rollout-2026-01-02T10-00-00-{PARENT}.jsonl")
    w.session_meta(PARENT)
    _turn(w, "t1", "parent a", FIRST, odd)
    _turn(w, "t2", "parent b", SECOND, odd)
    parent = Path(w.path)
    lines = [orjson.loads(raw) for raw in parent.read_bytes().splitlines()]
    if cut:  # (strictly before the second user message, as upstream truncates)
        second = [i for i, r in enumerate(lines) if r["payload"].get("role") == "user"][1]
        lines = lines[:second]
    f = RolloutWriter(sessions / "03" / f"rollout-2026-01-03T09-00-00-{FORK}.jsonl")
    f.clock = 500  # (the copy's lines: the time of the copy)
    f.session_meta(FORK, forked_from_id=PARENT)
    for record in lines:
        f.write(record["type"], record["payload"])
    seed = FIRST if cut else SECOND
    f.total = seed
    _turn(f, "t3", "own", tuple(a + b for a, b in zip(seed, OWN, strict=True)), odd)
    return parent, Path(f.path)


def _live(path: Path, batch: int) -> Transcript:
    live = CODEX.live(os.fspath(path))
    follow_into(live.apply, path, batch, parse=False)
    return live.transcript(writer_alive=False)


def _dumped(t: Transcript) -> bytes:
    """The whole model as ``bench/model_dump.py`` dumps it (to compare two reads)."""
    bench = Path(__file__).resolve().parent.parent / "bench" / "model_dump.py"
    spec = importlib.util.spec_from_file_location("model_dump", bench)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = BytesIO()
    module._whole(t, out)
    return out.getvalue()


def _grown(path: Path, pieces: int) -> Transcript:
    """The file written again, ``pieces`` lines at a time, followed as the viewer does:
    after each piece the model is fed to caught up and a snapshot taken."""
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"")
    live = CODEX.live(os.fspath(path))
    tail = TailReader(os.fspath(path), parse=False)
    try:
        for at in range(0, len(lines), pieces):
            with path.open("ab") as fh:
                fh.write(b"".join(lines[at : at + pieces]))
            _caught_up(tail, live)
    finally:
        tail.close()
    return live.transcript(writer_alive=False)


def _caught_up(tail: TailReader, live: Any) -> None:
    """What was written fed to ``live``, then a snapshot taken (as the viewer does)."""
    while (update := tail.step(1 << 20)) is not None:
        live.apply(update)
        if update.caught_up:
            break
    live.transcript(writer_alive=True)


def _written_line_by_line(
    fork: Path, lines: list[bytes], live: Any, before: dict[int, Callable[[], Any]] | None = None
) -> None:
    """``lines`` appended to ``fork`` one at a time, ``live`` caught up after each (what
    ``before`` names done before the line at its index)."""
    tail = TailReader(os.fspath(fork), parse=False)
    try:
        for at, raw in enumerate(lines):
            if before and at in before:
                before[at]()
            with fork.open("ab") as fh:
                fh.write(raw)
            _caught_up(tail, live)
    finally:
        tail.close()


def _reads(path: Path) -> list[Transcript]:
    return [opened(path), _live(path, 1 << 20), _live(path, 300)]


def _seen(path: Path) -> tuple[Any, ...]:
    st = os.stat(path)
    return st.st_ino, st.st_size, st.st_mtime_ns


@pytest.mark.parametrize("cut", [False, True], ids=["whole", "cut"])
@pytest.mark.parametrize("odd", [False, True], ids=["typed", "dict"])
def test_a_forks_copied_turns_are_its_parents_where_its_file_is_found(
    tmp_path: Path, odd: bool, cut: bool
) -> None:
    """The copied turns' usage is the parent's (in no run, message or total of the
    fork's: the runs add up to it), whole and followed; the parent's file is only read."""
    parent, fork = _family(tmp_path, odd, cut)
    before = _seen(parent), _seen(fork)
    for t in _reads(fork):
        u = t.usage
        assert (u.input_tokens, u.cache_read_tokens, u.output_tokens) == (700, 500, 60)
        assert u.reported == u.responses == 1
        *copied, own = t.runs
        assert len(copied) == 2 and all(r.copied for r in copied)
        assert all(r.usage.reported == 0 for r in copied)
        assert all(r.to_json()["copied-from-parent"] is True for r in copied)
        assert not own.copied and "copied-from-parent" not in own.to_json()
        assert own.usage == u
        said = {i.parts[0].text: i.usage for i in t.messages if i.role == "assistant"}
        assert said["parent a"] is None and said["own"] is not None
        assert said["own"].input_tokens == 700
        assert not any("forked from" in w for w in t.warnings), t.warnings
    assert (_seen(parent), _seen(fork)) == before  # (read paths never write)


def test_the_footer_counts_a_forks_copied_usage_once(tmp_path: Path) -> None:
    """Over the parent's and the fork's rows, the copied responses are counted once."""
    parent, fork = _family(tmp_path, odd=False, cut=False)
    rows = [scan_file(parent), scan_file(fork)]
    assert [r.tokens for r in rows] == [2500 + 250, 1200 + 60]  # (cache reads in input)
    assert f"tokens {2500 + 250 + 1200 + 60:,}" in totals(rows, 2).plain


@pytest.mark.parametrize("odd", [False, True], ids=["typed", "dict"])
def test_a_fork_whose_parents_file_is_not_found_reads_as_before_and_says_so(
    tmp_path: Path, odd: bool
) -> None:
    """Without the parent's rollout nothing tells where the copy ends: its turns read as
    the fork's own (the total Codex counted), and a warning says why."""
    parent, fork = _family(tmp_path, odd, cut=False)
    parent.unlink()
    for t in _reads(fork):
        u = t.usage
        assert (u.input_tokens, u.output_tokens) == (3700 - 1300, 310)
        assert not any(r.copied for r in t.runs)
        said = [w for w in t.warnings if "forked from" in w]
        assert said == [
            "forked from 0199aaaa…: its file not found, the copied turns read as this "
            "file's own (their usage in its total, and in the parent's file)"
        ]


def test_a_copy_that_differs_inside_a_turn_is_not_told(tmp_path: Path) -> None:
    """A copied line that is not the parent's, inside a turn, is no fork point: the copy
    is not told (no guess), and the warning says so."""
    parent, fork = _family(tmp_path, odd=False, cut=False)
    lines = parent.read_bytes().splitlines(keepends=True)
    at = next(i for i, raw in enumerate(lines) if b"parent a" in raw)
    lines[at] = lines[at].replace(b"parent a", b"parent A")
    parent.write_bytes(b"".join(lines))
    t = opened(fork)
    assert not any(r.copied for r in t.runs)
    assert any("where its copy ends could not be told" in w for w in t.warnings)


def test_a_copy_is_told_where_the_parent_went_on_after_the_fork(tmp_path: Path) -> None:
    """The parent's lines after the fork point (a new turn of its own) are not the
    fork's: the copy ends before them."""
    parent, fork = _family(tmp_path, odd=False, cut=False)
    w = RolloutWriter.__new__(RolloutWriter)  # (appends to the parent's file)
    w.path, w.crlf, w.line, w.clock, w.total, w.last = str(parent), False, 14, 900, SECOND, None
    _turn(w, "t9", "parent went on", (4000, 2000, 300, 0), odd=False)
    t = opened(fork)
    assert (t.usage.input_tokens, t.usage.output_tokens) == (700, 60)
    assert [r.copied for r in t.runs] == [True, True, False]


def test_a_fork_of_a_fork_is_told_by_its_own_parent(tmp_path: Path) -> None:
    """A fork's fork copies its parent's file whole (both headers): its copy is that."""
    _parent, fork = _family(tmp_path, odd=False, cut=False)
    lines = [orjson.loads(raw) for raw in fork.read_bytes().splitlines()]
    day = fork.parent.parent / "04"
    again = "0199aaaa-0000-7000-8000-0000000000ff"
    w = RolloutWriter(day / f"rollout-2026-01-04T09-00-00-{again}.jsonl")
    w.clock = 2000
    w.session_meta(again, forked_from_id=FORK)
    for record in lines:
        w.write(record["type"], record["payload"])
    w.total = tuple(a + b for a, b in zip(SECOND, OWN, strict=True))  # type: ignore[assignment]
    _turn(w, "t4", "own again", (4000, 1500, 400, 0), odd=False)
    t = opened(Path(w.path))
    u = t.usage  # (its own: past the fork's total, 3700 in, 1300 cached, 310 out)
    assert (u.input_tokens, u.cache_read_tokens, u.output_tokens) == (100, 200, 90)
    assert [r.copied for r in t.runs] == [True, True, True, False]
    assert not any("forked from" in w for w in t.warnings)


def test_a_forks_count_from_0_tells_its_copy_without_the_parents_file(tmp_path: Path) -> None:
    """Where the fork's own count starts again from 0, that tells the copy (as before):
    no warning that its turns read as the fork's own."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(FORK, forked_from_id=PARENT)
    w.session_meta(PARENT)
    _turn(w, "t1", "copied", FIRST, odd=False)
    w.total = None
    _turn(w, "t2", "own", OWN, odd=False)
    t = opened(Path(w.path))
    assert (t.usage.input_tokens, t.usage.output_tokens) == (700, 60)
    assert [r.copied for r in t.runs] == [True, False]
    assert not any("forked from" in said for said in t.warnings), t.warnings


def test_a_parent_kept_compressed_tells_the_copy(tmp_path: Path) -> None:
    """Codex compresses an idle rollout (``.jsonl.zst``): the parent's is read so."""
    parent, fork = _family(tmp_path, odd=False, cut=True)
    zst_copy(str(parent), str(parent) + ".zst")
    parent.unlink()
    t = opened(fork)
    assert (t.usage.input_tokens, t.usage.output_tokens) == (700, 60)
    assert [r.copied for r in t.runs] == [True, True, False]


@pytest.mark.parametrize("pieces", [1, 2, 3])
@pytest.mark.parametrize("cut", [False, True], ids=["whole", "cut"])
def test_a_fork_followed_while_its_copy_is_written_ends_as_its_whole_read(
    tmp_path: Path, cut: bool, pieces: int
) -> None:
    """Codex writes the copy a line at a time: a fork whose lines so far are all the
    parent's (ending before any of the parent's lines, a new turn's too) has no copy end
    yet; followed as it is written, it ends with the model its whole read gives."""
    _parent, fork = _family(tmp_path, odd=False, cut=cut)
    whole = opened(fork)
    assert [r.copied for r in whole.runs] == [True, True, False]
    grown = _grown(fork, pieces)
    assert (grown.usage.input_tokens, grown.usage.output_tokens) == (700, 60)
    assert _dumped(grown) == _dumped(whole)


def test_a_fork_with_no_usage_of_its_own_reads_unknown_not_0(tmp_path: Path) -> None:
    """A fork whose own response reported no usage (or that has none of its own yet):
    its usage is unknown, as a rollout's with no report is, never 0 tokens."""
    _parent, fork = _family(tmp_path, odd=False, cut=False)
    kept = [
        raw
        for raw in fork.read_bytes().splitlines(keepends=True)
        if b'"input_tokens":3700' not in raw
    ]
    fork.write_bytes(b"".join(kept))
    for t in _reads(fork):
        assert t.usage.tokens is None and t.usage.input_tokens is None, t.usage
        assert [r.copied for r in t.runs] == [True, True, False]
        assert "usage unknown" in check_note(t)
    assert scan_file(fork).tokens is None
    _parent, only = _family(tmp_path / "only", odd=False, cut=False)  # (the copy alone)
    lines = only.read_bytes().splitlines(keepends=True)
    only.write_bytes(b"".join(lines[: lines.index(next(r for r in lines if b'"own"' in r)) - 3]))
    for t in _reads(only):
        assert t.usage.tokens is None, t.usage
        assert all(r.copied for r in t.runs) and len(t.runs) == 2
        assert not any("forked from" in w for w in t.warnings), t.warnings


def test_a_copied_turn_cut_short_is_the_parents_not_an_interrupted_run(tmp_path: Path) -> None:
    """Upstream cuts the copy before a prompt: its last turn's start is copied alone.
    That turn is the parent's (it went on there): no run of the fork's interrupted, no
    crashed row."""
    _parent, fork = _family(tmp_path, odd=False, cut=True)
    for t in _reads(fork):
        assert [r.copied for r in t.runs] == [True, True, False]
        assert "interrupted" not in check_note(t), check_note(t)
    row = scan_file(fork)
    assert row.status != "crashed" and row.reason is None, (row.status, row.reason)


@pytest.mark.parametrize("form", ["md", "html"])
def test_the_export_says_a_copied_turn_cut_short_is_the_parents(tmp_path: Path, form: str) -> None:
    """Its state in the export's Runs table is the parent's copied turn, not a run of the
    fork's that was interrupted."""
    _parent, fork = _family(tmp_path, odd=False, cut=True)
    said_in = export(fork, form).replace("\\", "")  # (md escapes)
    runs = said_in[said_in.index("Runs") :]
    assert "interrupted" not in runs, runs
    assert f"{COPIED_CUT} (a copy of its turn, cut short" in runs.replace("&#x27;", "'"), runs


async def test_the_runs_tab_says_a_copied_turn_cut_short_is_the_parents(tmp_path: Path) -> None:
    """Its state cell is the parent's, and ``e`` does not stop at it (no run of the
    fork's did not finish)."""
    _parent, fork = _family(tmp_path, odd=False, cut=True)
    app = TailscopeApp(fork)
    async with app.run_test(size=(140, 40)) as pilot:
        await file_loaded(pilot, ModelScreen)
        await pilot.press("3")  # (a Codex file's runs)
        table = app.file_screen.runs.table
        assert table.column_cells("state") == ["finished", COPIED_CUT, "finished"]
        await pilot.press("e")
        assert table.cursor_row == 0 and said(app, "No run that did not finish after the cursor.")


def test_a_parent_that_cannot_be_read_is_said_so(tmp_path: Path) -> None:
    """A parent's rollout found but not readable is not a copy whose lines differ."""
    parent, fork = _family(tmp_path, odd=False, cut=False)
    parent.unlink()
    parent.mkdir()  # (as root, as the tests may run, a mode 000 file would be read)
    for t in _reads(fork):
        said = [w for w in t.warnings if "forked from" in w]
        assert said == [
            "forked from 0199aaaa…: its file could not be read (Is a directory), the copied "
            "turns read as this file's own (their usage in its total, and in the parent's file)"
        ]
        assert not any(r.copied for r in t.runs)


@pytest.mark.parametrize("late", [False, True], ids=["before-its-own", "after-its-own"])
def test_a_parent_not_found_is_looked_for_again_as_the_fork_grows(
    tmp_path: Path, late: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Followed, a fork whose parent's file comes only later: looked for again as the
    fork grows, its copy is told as a whole read tells it; where its own counts were
    read already (they cannot be told apart now), a warning says to open it again."""
    monkeypatch.setattr(fork_copy, "SEARCH_AGAIN", 0.0)  # (every growth: no clock here)
    parent, fork = _family(tmp_path, odd=False, cut=False)
    whole = opened(fork)
    kept = parent.read_bytes()
    parent.unlink()
    lines = fork.read_bytes().splitlines(keepends=True)
    fork.write_bytes(b"")
    live = CODEX.live(os.fspath(fork))
    came = len(lines) - 1 if late else 14  # (after the copy; after its own count)
    _written_line_by_line(fork, lines, live, {came: lambda: parent.write_bytes(kept)})
    t = live.transcript(writer_alive=False)
    if late:
        assert not any(r.copied for r in t.runs)
        assert [w for w in t.warnings if "forked from" in w] == [
            "forked from 0199aaaa…: its file found late (open this one again to tell it), "
            "the copied turns read as this file's own (their usage in its total, and in the "
            "parent's file)"
        ]
    else:
        assert _dumped(t) == _dumped(whole)


def test_a_fork_of_a_compressed_parent_followed_while_written_ends_as_its_whole_read(
    tmp_path: Path,
) -> None:
    """Each look at a copy being written goes on where the last left off: in a parent
    kept compressed too (its bytes read past, not sought)."""
    parent, fork = _family(tmp_path, odd=False, cut=True)
    zst_copy(str(parent), str(parent) + ".zst")
    parent.unlink()
    whole = opened(fork)
    assert [r.copied for r in whole.runs] == [True, True, False]
    assert _dumped(_grown(fork, 1)) == _dumped(whole)


@pytest.mark.parametrize(
    ("gone", "why"), [("unlinked", "its file not found"), ("linked", "its file could not be read")]
)
def test_a_parent_not_found_is_not_looked_for_on_every_growth(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, gone: str, why: str
) -> None:
    """A live fork grows many times a second: its missing parent is looked for (its
    sessions tree listed) at most every ``SEARCH_AGAIN`` seconds, not on each growth;
    so is one found but not opened (its path a link to nothing)."""
    parent, fork = _family(tmp_path, odd=False, cut=False)
    parent.unlink()
    if gone == "linked":
        parent.symlink_to(tmp_path / "nothing-here")
    searched: list[str] = []
    from session_core.formats.codex import tree

    real = tree.rollout_of
    monkeypatch.setattr(tree, "rollout_of", lambda p, t: searched.append(t) or real(p, t))
    lines = fork.read_bytes().splitlines(keepends=True)
    fork.write_bytes(b"")
    live = CODEX.live(os.fspath(fork))
    _written_line_by_line(fork, lines, live)
    t = live.transcript(writer_alive=False)
    assert len(lines) > 10 and 1 <= len(searched) <= 2, searched
    assert any(why in w for w in t.warnings)
