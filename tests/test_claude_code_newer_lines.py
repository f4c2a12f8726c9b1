"""Claude Code lines this reader does not know, or could not read: a file opening with
types newer than the reader, a progress of a newer kind, a meta line not sent, blank
lines first, a damaged last line; each kept and shown as it is. Every test reads the
file both ways (msgspec's typed lines and orjson's dicts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from claude_code_helpers import FMT, both
from claude_code_writer import CCWriter, text, tool_use


def test_a_file_opening_with_types_newer_than_the_reader_is_detected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A newer Claude Code may open a file with bookkeeping of a type this reader never
    heard of and that names no session: the first line it claims after them (up to
    ``HEAD_LINES``) tells the format, in detection, the browser and a live follow; the
    unknown lines are kept raw."""
    import orjson
    from helpers import follow_into

    from session_core.formats import HEAD_LINES, detect_format
    from session_core.formats.base import LiveModel
    from session_core.scan import scan_file

    w = CCWriter()
    w.user("fix a.py")
    w.assistant("m1", [text("Fixed.")], stop="end_turn")
    body = w.write(tmp_path / "plain.jsonl").read_bytes()
    newer = [{"type": "marble-origami-commit", "messageId": "x", "n": i} for i in range(3)]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in newer) + body)
    assert detect_format(path) == "claude-code"
    assert scan_file(path).format == "claude-code"
    t = both(path, monkeypatch)
    assert [m.text for m in t.messages] == ["fix a.py", "Fixed."]
    assert [i.kind for i in t.raw][:3] == ["record"] * 3  # kept, shown raw
    live = LiveModel(FMT, str(path))
    told: list[Any] = []

    def apply(update: Any) -> None:
        told.append((update.format, update.warnings))
        live.apply(update)

    follow_into(apply, path, 64, FMT.parsed_updates)
    assert [m.text for m in live.transcript().messages] == ["fix a.py", "Fixed."]
    assert told[-1] == ("claude-code", []) and not any(w for _, w in told)
    # Past HEAD_LINES of them, or after a line that is no JSON object: no transcript.
    many = [{"type": "marble-origami-commit", "n": i} for i in range(HEAD_LINES + 1)]
    for head in (many, [[1, 2]]):
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in head) + body)
        assert detect_format(path) is None
        assert scan_file(path).format is None


def test_a_progress_of_a_kind_newer_than_the_reader_is_kept_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Progress lines of the kinds the spec names are condensed into runs; one of a kind
    this reader does not know is kept as it is, its payload shown raw, never dropped."""
    w = CCWriter()
    w.user("run it")
    w.assistant("m1", [tool_use("t1", "Bash", command="make")])
    w.progress("t1", {"type": "bash_progress", "output": "building"})
    w.progress("t1", {"type": "future_progress", "message": "FUTURE PAYLOAD", "percent": 42})
    w.progress("t1", {"type": "bash_progress", "output": "built"})
    w.result("t1", "ok")
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    kept = [i for i in t.raw if "FUTURE PAYLOAD" in " ".join(p.text for p in i.parts)]
    assert len(kept) == 1 and kept[0].kind == "record" and kept[0].line == 4
    runs = [i for i in t.raw if i.kind == "progress"]
    assert [(i.line, i.parts[0].text) for i in runs] == [(3, "bash_progress"), (5, "bash_progress")]
    assert t.to_json()["progress"] == {"bash_progress": 2}


def test_the_diff_lists_a_meta_line_not_sent(tmp_path: Path) -> None:
    """``tailscope diff``'s legend says a meta line is ``-`` (not sent); it was not listed
    at all, nor a queued prompt or a command the chain left out."""
    from session_core.diff_model import model_diff

    w = CCWriter()
    w.user("<local-command-caveat>Caveat: ...</local-command-caveat>", isMeta=True)
    w.user("hello")
    w.assistant("m1", [text("hi")], stop="end_turn")
    t = FMT.open(w.write(tmp_path / "s.jsonl"), writer_alive=False)
    rows = "".join(model_diff(t)).splitlines()
    assert any(r.startswith("- line      1 user") and "Caveat" in r for r in rows), rows
    assert sum(r.startswith("= ") for r in rows) == 2


def test_blank_lines_first_do_not_use_up_the_lines_looked_in_for_facts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session's facts are looked for in its first records (``META_LINES``), not its
    first lines: 1,000 blank lines first left it without its id, cwd and branch."""
    import session_core.formats.claude_code.builder as builder

    monkeypatch.setattr(builder, "META_LINES", 5)
    w = CCWriter()
    w.user("hello")
    w.assistant("m1", [text("hi")], stop="end_turn")
    plain = w.write(tmp_path / "plain.jsonl")
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n" * 20 + plain.read_bytes())
    meta = both(path, monkeypatch).meta
    assert meta == FMT.open(plain, writer_alive=False).meta
    assert meta["cwd"] == "/work/proj" and meta["git-branch"] == "main"


@pytest.mark.parametrize("last", [b'{"type":"user","uu\xff"}', b"this is not json {"])
def test_a_damaged_last_line_that_is_whole_is_kept_raw(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, last: bytes
) -> None:
    """A last line whose newline is there is whole (nobody is still writing it): kept in
    the raw view where it is, as within the file, read whole and followed (it was a
    warning alone, its line shown nowhere, while the header counted it). One with no
    newline is the writer's unfinished tail: a warning alone, as a follower holds it."""
    from helpers import follow_into

    w = CCWriter(version="1.0.24")
    w.user("hello")
    w.assistant("m1", [text("hi")], stop="end_turn")
    whole = w.write(tmp_path / "whole.jsonl")
    whole.write_bytes(whole.read_bytes() + last + b"\n")
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(whole.read_bytes()[:-1])
    for path, shown in ((whole, True), (torn, False)):
        live = FMT.live(str(path))
        follow_into(live.apply, path, 1 << 16, FMT.parsed_updates)
        read, followed = both(path, monkeypatch), live.transcript(writer_alive=False)
        for t in (read, followed):
            kinds = [(i.line, i.kind) for i in t.raw]
            assert ((3, "record") in kinds) is shown, (path.name, kinds)
        # (said by the whole read; a follower holds the unfinished tail back, unsaid)
        assert any(w.startswith("line 3 ") for w in read.warnings), read.warnings


@pytest.mark.parametrize("looked_in", [2, 3, 4])
def test_the_sessions_facts_are_each_taken_from_the_first_records_that_say_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, looked_in: int
) -> None:
    """Each fact is taken from the first of the first ``META_LINES`` records that says it
    (those found are not asked again; none after them), an agent only from a line of the
    conversation (a bookkeeping line names another's)."""
    import orjson

    import session_core.formats.claude_code.builder as builder

    monkeypatch.setattr(builder, "META_LINES", looked_in)
    head = {"parentUuid": None, "isSidechain": False, "timestamp": "2026-01-01T00:00:00Z"}
    records = [
        {**head, "type": "user", "uuid": "u1", "sessionId": "S", "cwd": "/a",
         "message": {"role": "user", "content": "hi"}},
        {"type": "file-history-snapshot", "messageId": "u1", "agentId": "other", "slug": "s1",
         "snapshot": {"messageId": "u1", "trackedFileBackups": {}, "timestamp": head["timestamp"]},
         "isSnapshotUpdate": False},
        {**head, "type": "user", "uuid": "u2", "parentUuid": "u1", "sessionId": "S", "cwd": "/b",
         "gitBranch": "dev", "version": "2.1.0", "slug": "s2",
         "message": {"role": "user", "content": "again"}},
        {**head, "type": "user", "uuid": "u3", "parentUuid": "u2", "sessionId": "S",
         "gitBranch": "late", "version": "9", "message": {"role": "user", "content": "more"}},
    ]  # fmt: skip
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    meta = both(path, monkeypatch).meta
    facts = ("session-id", "cwd", "git-branch", "version", "slug")
    said = {key: value for key, value in meta.items() if key in facts}
    if looked_in == 2:  # the third record is past the records looked in
        assert said == {"session-id": "S", "cwd": "/a", "slug": "s1"}
    else:
        assert said == {"session-id": "S", "cwd": "/a", "slug": "s1", "git-branch": "dev",
                        "version": "2.1.0"}  # fmt: skip
    assert "agent-id" not in meta  # (the snapshot's agentId is another's)
    assert [key for key in meta if key in said] == list(said)  # (in the order found)
