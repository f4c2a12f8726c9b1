"""A Claude Code session compacted many times: each compaction folds its own stretch of
the file, kept as that stretch alone and folded into the model once, not again on every
snapshot (500 compactions of a 1 GB session made every snapshot 0.3 s and the open
10 s and 336 MB; now 5 ms, 6.8 s and 117 MB)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from claude_code_writer import CCWriter, text, tool_use
from helpers import follow_into

from session_core.formats import by_name
from session_core.formats.claude_code import assemble

FMT = by_name("claude-code")
SEGMENTS = 12


def compacted(w: CCWriter, segments: int) -> list[list[str]]:
    """``segments`` stretches of two turns, each but the first opened by a compaction
    (its boundary and summary); the uuids of each stretch's conversation lines."""
    stretches: list[list[str]] = []
    for k in range(segments):
        mine: list[str] = []
        if k:
            mine.append(w.compaction(f"Summary of part {k - 1}.", 1000 + k))
        for turn in range(2):
            mine.append(w.user(f"question {k}.{turn}"))
            mine.extend(w.assistant(f"m{k}.{turn}", [text(f"answer {k}.{turn}")]))
        stretches.append(mine)
    return stretches


def followed(path: Path) -> object:
    live = FMT.live(str(path))
    follow_into(live.apply, path, 4096, FMT.parsed_updates)
    return live


def test_each_compaction_folds_its_own_stretch_kept_as_that_alone(tmp_path: Path) -> None:
    w = CCWriter()
    stretches = compacted(w, SEGMENTS)
    path = w.write(tmp_path / "s.jsonl")
    live = followed(path)
    t = live.transcript(writer_alive=False)  # type: ignore[attr-defined]
    compactions = [c for c in t.compactions if c.kind == "compaction"]
    assert len(compactions) == SEGMENTS - 1
    for k, compaction in enumerate(compactions):
        assert list(compaction.folded) == stretches[k], k  # the stretch before it, alone
    assert [m.text for m in t.messages][-5:] == [
        f"Summary of part {SEGMENTS - 2}.",
        f"question {SEGMENTS - 1}.0",
        f"answer {SEGMENTS - 1}.0",
        f"question {SEGMENTS - 1}.1",
        f"answer {SEGMENTS - 1}.1",
    ]
    b = live.builder  # type: ignore[attr-defined]
    kept = sum(len(bd.folded) for bd in b.boundaries if bd.folded is not None)
    assert kept <= len(b.threads)  # a stretch each, not the whole file each
    assert FMT.open(str(path), writer_alive=False).to_json() == t.to_json()


def test_a_snapshot_folds_in_only_the_compactions_new_since_the_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = CCWriter()
    compacted(w, SEGMENTS)
    path = w.write(tmp_path / "s.jsonl")
    records = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    folds: list[int] = []
    real = assemble._fold_in
    monkeypatch.setattr(
        assemble, "_fold_in", lambda folded, on, at: folds.append(at) or real(folded, on, at)
    )
    b = FMT.builder(str(path))
    for number, record in enumerate(records[:-3], 1):
        b.feed(record, number)
    b.transcript(None)
    assert len(folds) == SEGMENTS - 1
    folds.clear()
    b.feed(records[-3], len(records) - 2)  # lines more, no compaction among them
    b.transcript(None)
    b.transcript(None)
    assert folds == []
    w2 = CCWriter()
    compacted(w2, SEGMENTS + 1)  # the same, with one compaction more at the end
    more = w2.write(tmp_path / "more.jsonl")
    b = FMT.builder(str(more))
    lines = [orjson.loads(line) for line in more.read_bytes().splitlines() if line.strip()]
    cut = next(n for n in range(len(lines) - 1, 0, -1) if lines[n].get("subtype"))
    for number, record in enumerate(lines[:cut], 1):
        b.feed(record, number)
    b.transcript(None)
    folds.clear()
    for number, record in enumerate(lines[cut:], cut + 1):
        b.feed(record, number)
    t = b.transcript(None)
    assert len(folds) == 1  # the new one alone
    assert t.to_json() == FMT.open(str(more), writer_alive=None).to_json()


@pytest.mark.parametrize("batch", [300, 2000])
def test_a_snapshot_after_new_compactions_built_on_the_last_is_the_one_made_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    """A followed session's snapshot that takes in a new compaction keeps the statuses
    and marks from before what it changed (``assemble._since``); each such snapshot
    equals the one assembled afresh."""
    from test_claude_code_live import neutral

    w = CCWriter()
    compacted(w, SEGMENTS)
    path = w.write(tmp_path / "s.jsonl")
    since: list[tuple[int, int]] = []
    real = assemble._since
    monkeypatch.setattr(assemble, "_since", lambda *a: since.append(real(*a)) or since[-1])
    live = FMT.live(str(path))

    def apply(update: Any) -> None:
        live.apply(update)
        builder: Any = live.builder
        kept = neutral(live.transcript(writer_alive=False))
        last = builder.chain
        builder.chain = None  # the whole chain taken again
        assert kept == neutral(live.transcript(writer_alive=False))
        builder.chain = last

    follow_into(apply, path, batch, FMT.parsed_updates)
    assert since and any(node > 0 for node, _item in since)  # built on, not taken again


def test_a_response_split_around_its_results_is_folded_once(tmp_path: Path) -> None:
    from claude_code_writer import tool_use

    w = CCWriter()
    prompt = w.user("list")
    (first,) = w.assistant("m1", [tool_use("t1", "Bash", command="ls")])
    answer1 = w.result("t1", "a")
    w.assistant("m1", [tool_use("t2", "Read", file_path="/p")])  # the same response
    answer2 = w.result("t2", "/p")
    w.compaction("Summary.", 100, trigger="manual")
    path = w.write(tmp_path / "split.jsonl")
    (compaction,) = [c for c in FMT.open(str(path)).compactions if c.kind == "compaction"]
    assert list(compaction.folded) == [prompt, first, answer1, answer2]


def test_a_branch_left_before_a_compaction_is_a_branch_not_folded() -> None:
    """A prompt edited before a compaction: the first try is a branch (on no chain the
    compaction folded), as it is in a file that was never compacted; only the chain the
    compaction folded is marked folded."""
    import tempfile

    w = CCWriter()
    w.user("first")
    a1 = w.assistant("m1", [text("answer 1")], stop="end_turn")[-1]
    w.user("second ORIGINAL")
    w.assistant("m2", [text("answer 2 ORIGINAL")], stop="end_turn")
    w.user("second EDITED", parent=a1)
    w.assistant("m3", [text("answer 2 EDITED")], stop="end_turn")
    w.system(
        "compact_boundary",
        parent=None,
        content="Conversation compacted",
        logicalParentUuid=w.last,
        compactMetadata={"trigger": "manual", "preTokens": 5000},
    )
    w.user("This session is being continued… SUMMARY", isCompactSummary=True)
    with tempfile.TemporaryDirectory() as where:
        t = FMT.open(w.write(Path(where) / "s.jsonl"), writer_alive=False)
    marks = {i.text: i.marks for i in t.raw if i.kind == "message"}
    assert "branch" in marks["second ORIGINAL"] and "folded" not in marks["second ORIGINAL"]
    assert "branch" in marks["answer 2 ORIGINAL"]
    assert all("folded" in marks[x] for x in ("first", "answer 1", "second EDITED"))
    (compaction,) = t.compactions
    assert len(compaction.folded) == 4
    assert t.to_json()["branches"] == 1


def test_a_result_written_after_a_compaction_is_not_folded_by_it(tmp_path: Path) -> None:
    """A compaction folds what was written before it. Its folded set is worked out at
    the first snapshot that has it, so a folded call's result written after the
    boundary (the fuzzer's case: the boundary's logical parent not in the file) would
    be folded in a whole read and not in a followed one."""
    from claude_code_writer import tool_use

    w = CCWriter()
    w.user("go")
    (asking,) = w.assistant("m1", [tool_use("t1", "Bash", command="ls")])
    w.system(
        "compact_boundary",
        parent=None,
        content="Conversation compacted",
        logicalParentUuid="not-in-the-file",
        compactMetadata={"trigger": "auto", "preTokens": 100},
    )
    late = w.result("t1", "done")
    path = w.write(tmp_path / "late.jsonl")
    lines = [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]
    b = FMT.builder(str(path))
    for number, record in enumerate(lines[:-1], 1):
        b.feed(record, number)
    b.transcript(None)  # the boundary's folded set worked out before the result came
    b.feed(lines[-1], len(lines))
    live = b.transcript(None)
    whole = FMT.open(str(path), writer_alive=None)
    (compaction,) = [c for c in whole.compactions if c.kind == "compaction"]
    assert asking in list(compaction.folded)
    assert late not in list(compaction.folded)
    assert live.to_json() == whole.to_json()


def test_a_microcompact_stubs_only_the_results_it_names(tmp_path: Path) -> None:
    """A line answering two calls, one of them cleared: the other is sent as it was
    (every result of the line was sent as the stub), and the line is elided once."""
    w = CCWriter(version="1.0.80")
    w.user("read both")
    w.assistant(
        "m1", [tool_use("ta", "Read", file_path="a"), tool_use("tb", "Read", file_path="b")]
    )
    both_answered = w.user(
        [
            {"type": "tool_result", "tool_use_id": "ta", "content": "ALPHA"},
            {"type": "tool_result", "tool_use_id": "tb", "content": "BETA"},
        ]
    )
    w.assistant("m2", [text("read them")])
    w.user("lone", parent=True)
    w.assistant("m3", [tool_use("tc", "Read", file_path="c")])
    lone = w.result("tc", "GAMMA")
    for ids in (["ta"], ["tb", "tc"]):  # (the second leaves the first's cleared)
        w.system(
            "microcompact_boundary",
            content="Context microcompacted",
            microcompactMetadata={"trigger": "auto", "preTokens": 900, "compactedToolIds": ids},
        )
    path = w.write(tmp_path / "s.jsonl")
    stub = "[Old tool result content cleared]"
    whole = FMT.open(path, writer_alive=False)
    live = followed(path).transcript(writer_alive=False)  # type: ignore[attr-defined]
    for t in (whole, live):
        first, second = [c for c in t.compactions if c.kind == "elision"]
        assert list(first.folded) == [both_answered]
        assert list(second.folded) == [both_answered, lone]  # (each line once)
        sent = {m["id"]: m for m in t.to_json()["messages"]}
        # the later elision clears both: each result the stub, as Claude Code sends it
        assert sent[both_answered]["content"] == f"{stub}\n{stub}"
        assert sent[lone]["content"] == stub
    first_only = w.lines[:-1]  # (the first elision alone)
    w.lines = first_only
    path = w.write(tmp_path / "one.jsonl")
    for t in (FMT.open(path, writer_alive=False), followed(path).transcript(writer_alive=False)):  # type: ignore[attr-defined]
        sent = {m["id"]: m for m in t.to_json()["messages"]}
        assert sent[both_answered]["content"] == f"{stub}\nBETA"
        assert sent[lone]["content"] == "GAMMA"
        (item,) = [i for i in t.raw if i.id == both_answered]
        assert "elided" in item.marks and item.stub == f"{stub}\nBETA"


def test_a_microcompact_naming_a_result_a_compaction_folded_stubs_nothing_of_it(
    tmp_path: Path,
) -> None:
    """A result a compaction before it folded is not sent, so a microcompact naming it
    stubs nothing of it: it stubs, counts and marks the live result alone (it counted
    both, "stubbed: 2 items", and marked the folded one elided), read whole and followed
    alike, and a compaction after it changes nothing of that."""
    w = CCWriter(version="1.0.80")
    w.user("read a")
    w.assistant("m1", [tool_use("t1", "Read", file_path="a")])
    old = w.result("t1", "ALPHA")
    w.compact()
    w.user("This session is being continued. Summary: read a.", isCompactSummary=True)
    w.user("read b")
    w.assistant("m2", [tool_use("t2", "Read", file_path="b")])
    live_result = w.result("t2", "BETA")
    w.system(
        "microcompact_boundary",
        content="Context microcompacted",
        microcompactMetadata={
            "trigger": "auto",
            "preTokens": 900,
            "compactedToolIds": ["t2", "t1"],
        },
    )
    w.user("go on")
    path = w.write(tmp_path / "s.jsonl")
    for t in (FMT.open(path, writer_alive=False), followed(path).transcript(writer_alive=False)):  # type: ignore[attr-defined]
        (elision,) = [c for c in t.compactions if c.kind == "elision"]
        assert list(elision.folded) == [live_result]
        (item,) = [i for i in t.raw if i.id == old]
        assert "elided" not in item.marks and item.stub is None
    w.compact()
    path = w.write(tmp_path / "later.jsonl")
    for t in (FMT.open(path, writer_alive=False), followed(path).transcript(writer_alive=False)):  # type: ignore[attr-defined]
        (elision,) = [c for c in t.compactions if c.kind == "elision"]
        assert list(elision.folded) == [live_result]


def test_diff_sets_an_elided_results_stub_beside_it(tmp_path: Path) -> None:
    """``diff`` sets what an elided item is sent as under its row (the original), as
    v1's does: the Claude Code row said ``[elided]`` and never what was sent."""
    from session_core.diff_model import model_diff

    w = CCWriter(version="1.0.80")
    w.user("read a")
    w.assistant("m1", [tool_use("t1", "Read", file_path="a")])
    w.result("t1", "ALPHA")
    w.microcompact(["t1"])
    rows = "".join(model_diff(FMT.open(w.write(tmp_path / "s.jsonl"), writer_alive=False)))
    lines = rows.splitlines()
    at = next(i for i, row in enumerate(lines) if row.startswith("~ "))
    assert "ALPHA" in lines[at] and lines[at + 1].split() == ["sent:", *blocks_stub().split()]


def blocks_stub() -> str:
    from session_core.formats.claude_code.blocks import CLEARED

    return CLEARED


def test_a_queued_prompt_before_a_compaction_is_not_what_it_folded(tmp_path: Path) -> None:
    """A ``queue-operation`` line is on no chain: the replayed view never had it, so no
    compaction folds it (``diff`` marked it ``[folded]`` after a heading that did not
    count it, 133 rows under "folded 132 items"). Every ``[folded]`` row of ``diff`` is
    one its compaction's heading counts; the raw view's bookkeeping before the boundary
    is still marked folded with what it was written among."""
    from session_core.diff_model import model_diff

    w = CCWriter()
    w.user("question 0")
    w.assistant("m0", [text("answer 0")])
    w.bare({"type": "queue-operation", "operation": "enqueue", "content": "QUEUED WORDS"})
    w.bare({"type": "file-history-snapshot", "messageId": "x", "snapshot": {}})
    w.user("question 1")
    w.assistant("m1", [text("answer 1")])
    w.compact()
    w.user("question 2")
    w.bare({"type": "queue-operation", "operation": "enqueue", "content": "QUEUED LATER"})
    path = w.write(tmp_path / "s.jsonl")
    for t in (FMT.open(path, writer_alive=False), followed(path).transcript(writer_alive=False)):  # type: ignore[attr-defined]
        marks = {i.text: i.marks for i in t.raw if i.kind == "queued"}
        assert marks == {"QUEUED WORDS": [], "QUEUED LATER": []}
        assert [i.marks for i in t.raw if i.kind == "record"] == [["folded"]]
        rows = "".join(model_diff(t)).splitlines()
        (heading,) = [r for r in rows if r.startswith("# line ")]
        (compaction,) = t.compactions
        assert f"folded {len(compaction.folded)} items," in heading
        assert sum(r.endswith("[folded]") for r in rows) == len(compaction.folded) == 4
        assert any("QUEUED WORDS" in r and r.startswith("- ") for r in rows)


def test_a_queued_prompt_not_sent_says_why_in_the_diff(tmp_path: Path) -> None:
    """A ``queue-operation`` line is listed ``-`` by ``diff`` with its reason, ``[queued]``
    (its delivery is what is sent), as the legend says; a meta line keeps its own mark
    alone, and a line a mark explains is not said queued as well."""
    from session_core.diff_model import model_diff

    w = CCWriter()
    w.user("question 0")
    w.assistant("m0", [text("answer 0")])
    w.bare({"type": "queue-operation", "operation": "enqueue", "content": "QUEUED WORDS"})
    w.user("question 1")
    w.assistant("m1", [text("answer 1")])
    w.compact()
    w.user("question 2")
    w.user("<local-command-caveat>CAVEAT</local-command-caveat>", isMeta=True)
    w.bare({"type": "queue-operation", "operation": "enqueue", "content": "QUEUED LATER"})
    path = w.write(tmp_path / "s.jsonl")
    for t in (FMT.open(path, writer_alive=False), followed(path).transcript(writer_alive=False)):  # type: ignore[attr-defined]
        rows = "".join(model_diff(t)).splitlines()
        (meta,) = [r for r in rows if "CAVEAT" in r]
        assert meta.startswith("- ") and meta.endswith(" [meta]"), meta
        legend = next(r for r in rows if r.startswith("  = sent next"))
        assert (
            "- not sent (folded, rolled back, another branch, a sidechain, meta, queued, an error)"
            in legend
        )
        queued = [r for r in rows if "QUEUED" in r]
        assert len(queued) == 2 and all(r.startswith("- ") for r in queued)
        assert all(r.endswith(" [queued]") for r in queued), queued
        folded = [r for r in rows if r.endswith("[folded]")]
        assert folded and not any("queued" in r for r in folded)


def test_the_diff_tab_sets_what_an_elided_item_is_sent_as_under_it(tmp_path: Path) -> None:
    """The Diff tab's elision lists each stubbed item as written, then what is sent in
    its place, as ``diff`` does: the stub, and a result the elision did not name as
    written (it listed the originals alone). ``enter`` on either row is that item."""
    from viewer.widgets.model_diff import ModelDiff

    w = CCWriter(version="1.0.80")
    w.user("read both")
    w.assistant(
        "m1", [tool_use("ta", "Read", file_path="a"), tool_use("tb", "Read", file_path="b")]
    )
    both = w.user(
        [
            {"type": "tool_result", "tool_use_id": "ta", "content": "ALPHA"},
            {"type": "tool_result", "tool_use_id": "tb", "content": "BETA"},
        ]
    )
    w.microcompact(["ta"])
    t = FMT.open(w.write(tmp_path / "s.jsonl"), writer_alive=False)
    diff = ModelDiff(t)
    rows = [text for _style, text in diff]
    at = rows.index("stubbed: 1 item")
    index = next(i for i, item in enumerate(t.raw) if item.id == both)
    assert rows[at + 1 :] == [
        f"  − line {t.raw[index].line} user: ← result ALPHA",
        f"      sent: {blocks_stub()}⏎BETA",
    ]
    assert diff.raw_index(at + 1) == diff.raw_index(at + 2) == index


def test_a_summary_row_shows_what_follows_claude_codes_fixed_opening(tmp_path: Path) -> None:
    """Every Claude Code summary opens with the same words (the 2.1.39 sample's): its
    rows in ``diff`` and the Diff tab show what follows them, so two summaries' rows
    differ (both read "This session is being continued from a previous conversation
    that ran o…")."""
    from session_core.diff_model import model_diff
    from session_core.formats.claude_code.summaries import SUMMARY_COVERS, SUMMARY_OPENING
    from viewer.widgets.model_diff import ModelDiff

    w = CCWriter(version="2.1.39")
    w.user("U1")
    w.assistant("m1", [text("A1")])
    w.compact()
    first = f"{SUMMARY_OPENING} {SUMMARY_COVERS}\n\nAnalysis:\nthe FIRST summary"
    w.user(first, isCompactSummary=True)
    w.compact()
    w.user(f"{SUMMARY_OPENING} the SECOND summary", isCompactSummary=True)
    w.user(f"{SUMMARY_OPENING} a prompt that quotes it")  # (no summary: as written)
    t = FMT.open(w.write(tmp_path / "s.jsonl"), writer_alive=False)
    said = "".join(model_diff(t)).splitlines()
    assert [r.split(None, 4)[-1] for r in said if r.startswith(("- line", "= line"))][2:] == [
        "Analysis: the FIRST summary [folded]",
        "the SECOND summary",
        f"{SUMMARY_OPENING} a prompt that quotes it"[:71] + "…",
    ]
    rows = [text for _style, text in ModelDiff(t)]
    assert "  − line 4 user: Analysis:⏎the FIRST summary" in rows
    assert "  + line 6 user: the SECOND summary" in rows
