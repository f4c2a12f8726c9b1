"""A ``content-replacement`` line (Claude Code 2.1.x): a tool result too large to send is
kept on disk and the model is sent a ``<persisted-output>`` preview of it instead
(``replacements: [{kind: "tool-result", toolUseId, replacement}]``); the result's own
line stays as it was. An elision, as a microcompact's: the replayed view sends the
preview, ``diff`` marks the row ``~``, and the line itself is kept as written, a type
the reader names (not "a type the spec does not name")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claude_code_writer import CCWriter, text, tool_use
from helpers import follow_into

from session_core.formats import by_name

FMT = by_name("claude-code")
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


def test_a_replacement_of_no_known_kind_or_shape_elides_nothing(tmp_path: Path) -> None:
    w = CCWriter()
    answered = _read_big(w)
    _replacement(w, ("t1", PREVIEW), kind="image")  # (a kind newer than this reader)
    _replacement(w, ("t1", 7))
    _replacement(w, ("t9", PREVIEW))  # (a call this file has not)
    path = w.write(tmp_path / "s.jsonl")
    replay = FMT.open(str(path), writer_alive=False).to_json()
    sent = {m["id"]: m for m in replay["messages"]}
    assert sent[answered]["content"] == BIG
    assert [c["folded"] for c in replay["compactions"]] == [[]]  # (t9's: it stubs nothing)
    assert not replay.get("other-records")


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
