"""A ``content-replacement`` line (Claude Code 2.1.x): a tool result too large to send is
kept on disk and the model is sent a ``<persisted-output>`` preview of it instead
(``replacements: [{kind: "tool-result", toolUseId, replacement}]``); the result's own
line stays as it was. An elision, as a microcompact's: the replayed view sends the
preview, ``diff`` marks the row ``~``, and the line itself is kept as written, a type
the reader names (listed as one the spec does not name only where it holds a replacement
of another kind or shape)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_code_writer import CCWriter, text, tool_use
from helpers import follow_into

from session_core.formats import by_name

FMT = by_name("claude-code")
KIND = "content-replacement"
BIG = "line\n" * 20_000
PREVIEW = (
    "<persisted-output>\nOutput too large (100KB). Full output saved to: "
    "/home/u/.claude/projects/p/s/tool-results/t1.txt\n\nPreview (first 2KB):\nline\n"
    "</persisted-output>"
)


def _replacement(w: CCWriter, *pairs: tuple[str, Any], kind: str = "tool-result") -> None:
    w.bare(
        {
            "type": "content-replacement",
            "sessionId": w.session,
            "replacements": [
                {"kind": kind, "toolUseId": call, "replacement": sent} for call, sent in pairs
            ],
        }
    )


def _read_big(w: CCWriter) -> str:
    w.user("read the log")
    w.assistant("m1", [tool_use("t1", "Bash", command="cat big.log")], stop="tool_use")
    return w.result("t1", BIG)


def test_a_replaced_result_is_sent_as_its_preview(tmp_path: Path) -> None:
    w = CCWriter()
    answered = _read_big(w)
    _replacement(w, ("t1", PREVIEW))
    w.assistant("m2", [text("The log is long.")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    t = FMT.open(str(path), writer_alive=False)
    replay = t.to_json()
    sent = {m["id"]: m for m in replay["messages"]}
    assert sent[answered]["content"] == PREVIEW
    (elision,) = replay["compactions"]
    assert elision["kind"] == "elision" and elision["line"] == 4
    assert elision["folded"] == [answered]
    assert elision["summary"] == "1 tool result too large to send, sent as a preview"
    assert not replay.get("other-records")  # a type named, not one kept unnamed
    (item,) = [i for i in t.raw if i.id == answered]
    assert "elided" in item.marks and item.stub == PREVIEW
    assert BIG[:100] in item.parts[0].text  # the line as written: the whole result
    (kept,) = [i for i in t.raw if i.line == 4]  # the line itself, shown as written
    assert '"content-replacement"' in kept.parts[0].text
    live = FMT.live(str(path))  # followed a block at a time: the same
    follow_into(live.apply, path, 4096, FMT.parsed_updates)
    assert live.transcript(writer_alive=False).to_json() == replay  # type: ignore[attr-defined]
    rows = FMT.diff(path).splitlines()
    (row,) = [r for r in rows if " line      3 " in r]
    assert row.startswith("~ ")
    assert any(r.startswith("# line 4: elision") for r in rows)


def _read_two(w: CCWriter, second: str) -> str:
    """Two reads in one response, answered in one user line (``ta``: BIG, ``tb``:
    ``second``); that line's id."""
    w.user("read both")
    calls = [tool_use("ta", "Read", file_path="a"), tool_use("tb", "Read", file_path="b")]
    w.assistant("m1", calls)
    return w.user(
        [
            {"type": "tool_result", "tool_use_id": "ta", "content": BIG},
            {"type": "tool_result", "tool_use_id": "tb", "content": second},
        ]
    )


def test_only_the_named_result_of_a_line_is_replaced_and_a_later_clear_wins(
    tmp_path: Path,
) -> None:
    w = CCWriter()
    both = _read_two(w, "BETA")
    _replacement(w, ("ta", PREVIEW))
    path = w.write(tmp_path / "one.jsonl")
    sent = {m["id"]: m for m in FMT.open(str(path), writer_alive=False).to_json()["messages"]}
    assert sent[both]["content"] == f"{PREVIEW}\nBETA"
    w.microcompact(["ta", "tb"])  # (later: both cleared, the preview with them)
    path = w.write(tmp_path / "two.jsonl")
    sent = {m["id"]: m for m in FMT.open(str(path), writer_alive=False).to_json()["messages"]}
    stub = "[Old tool result content cleared]"
    assert sent[both]["content"] == f"{stub}\n{stub}"


def test_a_replacement_of_no_known_kind_or_shape_is_kept_and_listed(tmp_path: Path) -> None:
    """A replacement of a ``kind`` newer than this reader, or not in its shape, elides
    nothing and its line is listed as a record the reader does not know (``check``
    counts it), shown as written: it was read as nothing at all."""
    w = CCWriter()
    answered = _read_big(w)
    _replacement(w, ("t1", PREVIEW), kind="image")  # (a kind newer than this reader)
    _replacement(w, ("t1", 7))
    w.bare({"type": "content-replacement", "sessionId": w.session, "replacements": "t1"})
    path = w.write(tmp_path / "s.jsonl")
    t = FMT.open(str(path), writer_alive=False)
    replay = t.to_json()
    sent = {m["id"]: m for m in replay["messages"]}
    assert sent[answered]["content"] == BIG
    assert replay["compactions"] == []
    listed = replay["other-records"]
    assert [(r["line"], r["type"]) for r in listed] == [(n, KIND) for n in (4, 5, 6)]
    assert listed[0]["record"]["replacements"][0]["kind"] == "image"
    for n in (4, 5, 6):  # (each line itself, shown as written)
        (kept,) = [i for i in t.raw if i.line == n]
        assert '"content-replacement"' in kept.parts[0].text
    assert "3 records of a type the spec does not name (kept raw)" in FMT.check(path)


def test_a_replacement_of_no_call_of_the_file_is_no_elision(tmp_path: Path) -> None:
    """A replacement naming a call the file has not (before it) stubs nothing: no
    elision is made of it (it was one, "stubbing nothing", counted by ``check``), the
    line is shown as written and the warnings say it names no call of this file; one
    naming some calls it has and some not elides those it has."""
    w = CCWriter()
    answered = _read_big(w)
    _replacement(w, ("t9", PREVIEW))  # (a call this file has not)
    _replacement(w, ("t1", PREVIEW), ("t8", PREVIEW))  # (one it has, one not)
    path = w.write(tmp_path / "s.jsonl")
    t = FMT.open(str(path), writer_alive=False)
    replay = t.to_json()
    (elision,) = replay["compactions"]
    assert (elision["line"], elision["folded"]) == (5, [answered])
    assert elision["summary"] == "1 tool result too large to send, sent as a preview"
    assert t.warnings == [
        'line 4: a content-replacement names "t9", no call of this file: '
        "no elision is made of it (shown as written)",
        'line 5: a content-replacement names "t8", no call of this file: '
        "only its others are elided",
    ]
    assert not replay.get("other-records")  # (in its shape: a record the reader reads)
    (kept,) = [i for i in t.raw if i.line == 4]
    assert '"t9"' in kept.parts[0].text
    checked = FMT.check(path)
    assert "1 elision" in checked and "2 elisions" not in checked
    live = FMT.live(str(path))  # followed a block at a time: the same
    follow_into(live.apply, path, 4096, FMT.parsed_updates)
    assert live.transcript(writer_alive=False).to_json() == replay  # type: ignore[attr-defined]


def test_a_cleared_result_stays_cleared_past_a_later_preview(tmp_path: Path) -> None:
    """A result a microcompact cleared is sent cleared still once a content-replacement
    names it after (its preview does not bring it back), and a second preview of a result
    replaced is sent in place of the first: the merge of what each elision sends
    (``assemble._compactions``, review r2 finding 7: made one dict of what is new)."""
    w = CCWriter()
    both = _read_two(w, BIG)
    w.microcompact(["ta"])
    _replacement(w, ("ta", PREVIEW), ("tb", PREVIEW))
    _replacement(w, ("tb", "second preview"))
    path = w.write(tmp_path / "s.jsonl")
    sent = {m["id"]: m for m in FMT.open(str(path), writer_alive=False).to_json()["messages"]}
    assert sent[both]["content"] == "[Old tool result content cleared]\nsecond preview"
