"""What a Codex ``compacted`` line's replacement history carries that is no message of
its own: an undo snapshot (never sent), and the items it made when a later compaction
folds them after the line changed on disk."""

from __future__ import annotations

from pathlib import Path

from codex_helpers import CODEX, opened
from codex_writer import RolloutWriter, message_payload
from helpers import follow_into, neutral

from session_core.diff_model import model_diff

GHOST = {
    "type": "ghost_snapshot",
    "ghost_commit": {"id": "deadbeef", "parent": "abc", "preexisting_untracked_files": []},
}


def turn(w: RolloutWriter, name: str, prompt: str, answer: str) -> None:
    w.task_started(name)
    w.message("user", prompt)
    w.message("assistant", answer)
    w.token_count((10, 0, 1, 0))
    w.task_complete(name)


def test_an_undo_snapshot_a_compaction_carries_is_not_sent(tmp_path: Path) -> None:
    """(review 1, finding 1) Codex copies every ``ghost_snapshot`` into a compaction's
    history (so that ``/undo`` still works) and sends none: the copy is no message sent
    next, as the line it copies is none (it was a replayed ``+`` row, counted as sent)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.task_started("t1")
    w.message("user", "hello PROMPT1")
    w.write("response_item", GHOST)
    w.message("assistant", "hi ANSWER1")
    w.task_complete("t1")
    summary = {"type": "compaction", "encrypted_content": "A" * 100}
    line = w.compacted("", [message_payload("user", "hello PROMPT1"), GHOST, summary])
    turn(w, "t2", "second", "ok")
    path = Path(w.path)
    t = opened(path, alive=False)
    assert [(m.role, m.text) for m in t.messages][:2] == [("user", "hello PROMPT1"), ("system", "")]
    assert not any("undo snapshot" in m.text or m.kind == "record" for m in t.messages)
    assert [m.id for m in t.messages if m.line == line] == [f"L{line}.3"]  # (its place kept)
    rows = "".join(model_diff(t)).splitlines()
    assert f"{len(t.messages)} items sent next" in rows[0] and len(t.messages) == 4
    assert not any(r.startswith("+ ") and "undo snapshot" in r for r in rows), rows
    assert any(
        p.text == "undo snapshot deadbeef" for i in t.raw for p in i.parts
    )  # (the raw view has it)
    for batch in (1 << 20, 90):  # followed, in one read and a piece at a time
        live = CODEX.live(str(path))
        follow_into(live.apply, path, batch, live.format.parsed_updates)
        assert neutral(live.transcript(writer_alive=False)) == neutral(t)


def test_a_folded_made_item_of_a_line_changed_on_disk_says_so(tmp_path: Path) -> None:
    """(review 1, finding 4) A compaction that folds what an earlier one made reads those
    items again from that line: where it changed on disk, ``diff`` lists each as changed
    (as every other row of a changed line), where it left them out without a word."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    turn(w, "t1", "hello PROMPT1", "hi ANSWER1")
    made = message_payload("developer", "DEV-NOTE-MADE-BY-C1")
    summary = {"type": "compaction", "encrypted_content": "A" * 100}
    first = w.compacted("", [message_payload("user", "hello PROMPT1"), made, summary])
    turn(w, "t2", "second PROMPT2", "ok ANSWER2")
    second = w.compacted("", [message_payload("user", "second PROMPT2")])
    turn(w, "t3", "third", "ok")
    path = Path(w.path)

    def folded_under(rows: list[str], line: int) -> list[str]:
        return [r for r in rows if r.startswith(f"- line {line:>6} ")]

    t = opened(path, alive=False)
    rows = "".join(model_diff(t)).splitlines()
    assert [r.split()[4] for r in folded_under(rows, first)] == [
        "DEV-NOTE-MADE-BY-C1",
        "[compaction",
    ]
    assert f"# line {second}: compaction, folded 4 items" in "\n".join(rows)
    t = opened(path, alive=False)  # (read again: the first keeps the line it read)
    data = path.read_bytes()
    path.write_bytes(data.replace(b"DEV-NOTE-MADE-BY-C1", b"short"))  # (line ``first``, shorter)
    rows = "".join(model_diff(t)).splitlines()
    changed = folded_under(rows, first)
    assert [r.split()[3] for r in changed] == ["developer", "system"], rows
    assert all(
        "[changed on disk: this line could not be read again] [folded]" in r for r in changed
    ), changed
