"""What a Codex rollout says the model is sent next after the two rewrites that count
user turns: a ``thread_rolled_back`` event and an older writer's ``compacted`` line
without a ``replacement_history`` (codex-rs rebuilds both; the file keeps every line)."""

from __future__ import annotations

import os
from pathlib import Path

from codex_helpers import CODEX
from codex_helpers import opened as opened_as
from codex_writer import RolloutWriter
from helpers import follow_into

from session_core.formats.codex.user_turns import (
    USER_MESSAGE_BUDGET,
    View,
    contextual_developer,
    contextual_user,
)
from session_core.model import Item, Transcript

ENV = "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"
AGENTS = "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>"


def opened(path: str) -> Transcript:
    return opened_as(Path(path), False)


def sent(t: Transcript) -> list[tuple[str, str]]:
    return [(m.role, m.text) for m in t.messages]


def turn(w: RolloutWriter, n: int, prompt: str, answer: str) -> None:
    w.event("task_started", turn_id=f"t{n}", model_context_window=1000)
    w.turn_context(f"t{n}")
    w.message("user", ENV)  # the context Codex injects before a turn's prompt
    w.message("user", prompt)
    w.function_call("shell", {"command": ["ls"]}, f"c{n}")
    w.function_output(f"c{n}", "ok")
    w.message("assistant", answer)
    w.event("task_complete", turn_id=f"t{n}", last_agent_message=answer)


def story(tmp_path: Path, turns: int = 3) -> RolloutWriter:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("developer", "<permissions instructions>sandboxed</permissions instructions>")
    w.message("user", AGENTS)
    for n in range(1, turns + 1):
        turn(w, n, f"prompt {n}", f"answer {n}")
    return w


def test_markers_are_codex_own() -> None:
    assert contextual_user(ENV) and contextual_user("  " + AGENTS.upper() + "\n")
    assert contextual_user("<turn_aborted>\nstopped\n</turn_aborted>")
    assert not contextual_user("<environment_context> but no end")
    assert not contextual_user("please read <skill>x</skill> and go on")
    assert contextual_developer("\n<permissions instructions>x")
    assert not contextual_developer("you are a helpful agent")


def test_rollback_drops_the_newest_user_turns(tmp_path: Path) -> None:
    w = story(tmp_path)
    line = w.event("thread_rolled_back", num_turns=2)
    w.message("user", "prompt 4")
    before = os.stat(w.path)
    t = opened(w.path)
    texts = [m.text or m.parts[0].kind for m in t.messages]
    assert texts == [
        "<permissions instructions>sandboxed</permissions instructions>",
        AGENTS,
        ENV,
        "prompt 1",
        "tool-call",
        "tool-result",
        "answer 1",
        "prompt 4",
    ]
    # The injected context of the dropped turn 2 went with it; turn 1's stayed.
    assert texts.count(ENV) == 1
    (rollback,) = t.compactions
    assert rollback.line == line and rollback.trigger == "rollback"
    dropped = [i for i in t.raw if i.id in set(rollback.folded)]
    assert {i.text for i in dropped} >= {ENV, "prompt 2", "answer 2", "prompt 3", "answer 3"}
    assert all("rolled-back" in i.marks for i in dropped)
    assert not any("rolled-back" in i.marks for i in t.raw if i.id not in set(rollback.folded))
    # What happened stays: every line in the raw view, the runs and the tool calls.
    assert len(t.raw) == t.lines and [r.state for r in t.runs] == ["finished"] * 3
    assert len(t.tool_operations) == 3
    event = next(i for i in t.raw if i.line == line)
    note = event.parts[0].text
    assert "rolled back 2 user turns" in note and "no longer sent" in note
    assert os.stat(w.path).st_mtime_ns == before.st_mtime_ns  # read paths never write


def test_rollback_of_more_turns_than_there_are_keeps_the_prefix(tmp_path: Path) -> None:
    w = story(tmp_path, turns=2)
    w.event("thread_rolled_back", num_turns=9)
    t = opened(w.path)
    # All of them: what came before the first turn stays (its injected context too).
    assert sent(t) == [
        ("developer", "<permissions instructions>sandboxed</permissions instructions>"),
        ("user", AGENTS),
        ("user", ENV),
    ]


def test_rollback_of_nothing_changes_nothing(tmp_path: Path) -> None:
    w = story(tmp_path, turns=1)
    whole = sent(opened(w.path))
    w.event("thread_rolled_back", num_turns=0)
    w.event("thread_rolled_back", num_turns="two")  # not a count: nothing to drop
    t = opened(w.path)
    assert sent(t) == whole
    assert [len(c.folded) for c in t.compactions] == [0, 0]


def test_rollback_after_a_compaction_counts_the_kept_turns(tmp_path: Path) -> None:
    w = story(tmp_path, turns=2)
    history = [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "prompt 1"}],
        },
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "prompt 2"}],
        },
        {"type": "compaction", "encrypted_content": "xyz"},
    ]
    w.compacted("", history)
    turn(w, 3, "prompt 3", "answer 3")
    w.event("thread_rolled_back", num_turns=2)
    texts = [m.text for m in opened(w.path).messages]
    assert texts[0] == "prompt 1" and "prompt 2" not in texts and "prompt 3" not in texts


def test_rollback_seen_live(tmp_path: Path) -> None:
    """Fed as the viewer follows a file, in small batches: the turn is sent, then not."""
    w = story(tmp_path, turns=2)
    w.event("thread_rolled_back", num_turns=1)
    live = CODEX.live(w.path)
    seen: list[bool] = []

    def apply(update: object) -> None:
        live.apply(update)  # type: ignore[arg-type]
        t = live.transcript(writer_alive=True)
        seen.append(any(m.text == "prompt 2" for m in t.messages))

    follow_into(apply, w.path, 256, parse=False)
    assert True in seen and seen[-1] is False
    t = live.transcript(writer_alive=False)
    assert t.compactions[-1].trigger == "rollback"
    assert [m.text for m in t.messages if m.role == "user"][-1] == "prompt 1"


def test_older_compaction_keeps_user_messages_within_the_budget(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("developer", "<permissions instructions>x</permissions instructions>")
    w.message("user", ENV)
    big = "a" * (USER_MESSAGE_BUDGET * 4 - 100)
    w.message("user", "first " + "b" * 1000 + " last")
    w.message("assistant", "ok")
    w.message("user", ENV)  # injected context is no user message of a turn
    w.message("user", big)
    w.message("assistant", "done")
    w.compacted("the summary", None)
    t = opened(w.path)
    texts = [m.text for m in t.messages]
    # The prefix, the one before the big one cut to what was left, the big one, the summary.
    assert texts[:2] == ["<permissions instructions>x</permissions instructions>", ENV]
    assert texts[2].startswith("first ") and texts[2].endswith(" last") and "cut" in texts[2]
    assert len(texts[2].encode()) < 130
    assert texts[3:] == [big, "the summary"]
    (c,) = t.compactions
    raw = {i.id: i.text for i in t.raw}
    assert sorted(raw[i] for i in c.folded if i in raw) == sorted(
        ["first " + "b" * 1000 + " last", "ok", ENV, "done"]
    )
    note = next(i for i in t.raw if i.kind == "compaction")
    assert "2 user messages and the summary" in note.parts[-1].text


async def test_the_viewer_tells_a_rollback_from_a_fold(tmp_path: Path) -> None:
    from helpers import app_on, screen_text

    from viewer.screens.model_screen import ModelScreen

    w = story(tmp_path, turns=2)
    w.event("thread_rolled_back", num_turns=1)
    async with app_on(w.path, (150, 60)) as (app, pilot):
        for _ in range(200):
            await pilot.pause(0.05)
            screen = app.screen
            if isinstance(screen, ModelScreen) and screen._loaded and screen.conversation.items:
                break
        else:
            raise AssertionError("the codex file did not load")
        assert "prompt 2" not in screen_text(app)
        await pilot.press("r")
        await pilot.pause(0.2)
        text = screen_text(app)
        assert "prompt 2" in text and "[rolled-back]" in text and "folded" not in text


def test_the_view_packs_indexes_and_keeps_its_own_items() -> None:
    summary = Item("L9.1", "user", [], 9)
    view = View.of([3, 5, summary, 8])
    assert list(view) == [3, 5, summary, 8] and view[-2] is summary
    assert list(view.codes) == [3, 5, -1, 8] and view.own == [summary]
    head = view.head(3)
    head.append(11)
    assert list(head) == [3, 5, summary, 11] and list(view) == [3, 5, summary, 8]
    assert view[1:3] == [5, summary]


def test_a_compactions_ids_keep_no_item_alive() -> None:
    """Each compaction folds the last one's encrypted item (4-12 KB); its ids name it
    without holding it, or every one of a long session's would stay in memory (1,073
    compactions of 1 GB: 14 MB)."""
    import gc

    from session_core.formats.codex.compaction import EntryIds
    from session_core.model import Part

    encrypted = Item("L9.41", "assistant", [Part("other", "x" * 8000)], 9)
    ids = EntryIds([3, encrypted, 5], lambda index: f"L{index}")
    assert list(ids) == ["L3", "L9.41", "L5"]
    holders = [r for r in gc.get_referrers(encrypted) if isinstance(r, (list, dict, tuple))]
    assert not any(ids in gc.get_referrers(h) for h in holders)


def test_a_rollback_is_counted_as_a_rollback_not_a_compaction(tmp_path: Path) -> None:
    """It dropped turns and summarised nothing: ``check``, the header and the exports
    say "rollback" where they said "compaction"."""
    from session_core.export import export
    from session_core.formats.base import check_note
    from session_core.model import overlay_counts
    from viewer.widgets.model_status import ModelStatus

    w = story(tmp_path)
    w.event("thread_rolled_back", num_turns=1)
    t = opened(w.path)
    counts = overlay_counts(t.compactions)
    assert (counts.compactions, counts.elisions, counts.rollbacks) == (0, 0, 1)
    note = check_note(t)
    assert "1 rollback" in note and "compaction" not in note
    shown: list[str] = []
    status = ModelStatus()
    status.update = lambda text: shown.append(str(text))  # type: ignore[method-assign]
    status.show(t, name="r.jsonl", title="codex", size=1, live="ended", mode="replayed")
    assert "0 compactions · 1 rollback" in shown[0]
    assert "rollback at line" in export(w.path, "md")
    w.compacted("the summary", None)
    counts = overlay_counts(opened(w.path).compactions)
    assert (counts.compactions, counts.rollbacks) == (1, 1)


def test_a_rollback_is_told_as_a_rollback_by_every_count(tmp_path: Path) -> None:
    """``check``, the header, ``diff`` and the Diff tab count a rollback as one, not as
    a compaction (``diff`` and the Diff tab said "2 compactions" of one compaction and a
    rollback, "◆ compaction … · rollback", "folds 5 items"); it dropped what it names."""
    from session_core.diff_model import model_diff
    from session_core.formats.base import check_note
    from viewer.widgets.model_diff import ModelDiff

    w = story(tmp_path)
    w.compacted("the summary so far", None)
    turn(w, 4, "prompt 4", "answer 4")
    line = w.event("thread_rolled_back", num_turns=1)
    t = opened(w.path)
    assert "1 compaction, 1 rollback" in check_note(t)
    text = "".join(model_diff(t)).splitlines()
    assert text[0].endswith("1 compaction, 0 elisions, 1 rollback"), text[0]
    assert f"# line {line}: rollback, dropped " in "\n".join(text)
    rows = [str(entry[1]) for entry in ModelDiff(t)]
    assert any(r.endswith("1 compaction, 0 elisions, 1 rollback") for r in rows), rows[:3]
    assert f"◆ rollback at line {line}" in rows and any(r.startswith("dropped: ") for r in rows)


def test_diff_lists_every_item_sent_next(tmp_path: Path) -> None:
    """An item of a replacement history that no line holds as written (a summary) is
    sent next: ``diff`` lists it with ``+`` (it counted it among the items sent and
    listed none: 4 rows of "5 items sent next")."""
    from session_core.diff_model import model_diff

    w = story(tmp_path, turns=2)
    summary = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "SUMMARY"}],
    }
    w.compacted("the summary so far", [summary])
    turn(w, 3, "prompt 3", "answer 3")
    t = opened(w.path)
    rows = "".join(model_diff(t)).splitlines()
    sent = [row for row in rows if row[:2] in ("= ", "~ ", "+ ")]
    assert len(sent) == len(t.messages) and f"{len(t.messages)} items sent next" in rows[0]
    assert any(row.startswith("+ ") and "SUMMARY" in row for row in sent)


def test_a_compaction_lines_own_history_items_are_in_its_raw_item(tmp_path: Path) -> None:
    """A message the replacement history alone holds (no earlier line has it) is in the
    raw view's item of that line, as written: the raw view (and its export) lost it."""
    w = story(tmp_path, turns=1)
    made = {
        "type": "message",
        "role": "developer",
        "content": [{"type": "input_text", "text": "only this line holds me"}],
    }
    prompt = {
        "type": "message",
        "role": "user",
        "content": [{"type": "input_text", "text": "prompt 1"}],
    }
    w.compacted("the summary", [prompt, made])
    t = opened(w.path)
    assert "only this line holds me" in [m.text for m in t.messages]  # (sent next)
    (item,) = [i for i in t.raw if i.kind == "compaction"]
    said = {p.name: p.text for p in item.parts if p.kind == "other"}
    assert said["replacement item 2 (developer)"] == "only this line holds me"
    assert not any(text == "prompt 1" for text in said.values())  # (an earlier line's)


def test_diff_lists_a_compactions_own_items_under_it_in_the_order_sent(tmp_path: Path) -> None:
    """What a replacement history holds that no earlier line does is listed under its
    compaction's ``#`` row, in the history's order, each with its place among what it
    sends: they were listed after the file's last line, as if sent after it."""
    from codex_writer import message_payload

    from session_core.diff_model import model_diff

    w = story(tmp_path, turns=2)
    history = [
        message_payload("user", "prompt 1"),  # (kept: line 1's prompt)
        message_payload("developer", "MADE ONE"),
        message_payload("user", "prompt 2"),
        {"type": "compaction", "encrypted_content": "gAAAA-opaque"},
    ]
    first = w.compacted("", history)
    turn(w, 3, "prompt 3", "answer 3")
    rows = "".join(model_diff(opened(w.path))).splitlines()
    heading = next(n for n, r in enumerate(rows) if r.startswith(f"# line {first}: "))
    made = [r for r in rows if r.startswith("+ ")]
    assert rows[heading + 1 : heading + 3] == made and len(made) == 2, rows
    assert "MADE ONE" in made[0] and made[0].endswith("[2 of 4 in its place]")
    assert "encrypted" in made[1] and made[1].endswith("[4 of 4 in its place]")
    listed = [int(r.split()[2].rstrip(":")) for r in rows if r[:2] in ("= ", "- ", "+ ", "# ")]
    assert listed == sorted(listed)  # (every row in line order)
    # A later compaction that keeps one of them sends it now: listed under that one.
    second = w.compacted("", [message_payload("developer", "MADE ONE")])
    w.message("user", "prompt 4")
    rows = "".join(model_diff(opened(w.path))).splitlines()
    heading = next(n for n, r in enumerate(rows) if r.startswith(f"# line {second}: "))
    assert "MADE ONE" in rows[heading + 1] and rows[heading + 1].endswith("[1 of 1 in its place]")
    assert [r for r in rows if r.startswith("+ ")] == [rows[heading + 1]]


def test_a_rollback_of_a_replacement_historys_items_says_them(tmp_path: Path) -> None:
    """What a rollback drops of a compaction's replacement history is on no line of its
    own, and no longer sent next: the Diff tab's rows of it said "(an item a rewrite made
    there, not sent next)", and ``tailscope diff`` listed no row of it at all. Both say
    them now, as the rows of the lines it dropped, under the line that made them."""
    from session_core.diff_model import model_diff
    from viewer.widgets.model_diff import ModelDiff

    w = story(tmp_path, turns=2)

    def said(role: str, text: str) -> dict[str, object]:
        kind = "output_text" if role == "assistant" else "input_text"
        return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}

    history = [
        said("user", "prompt 1"),
        said("user", "UNIQUEMADE prompt"),
        said("assistant", "UNIQUEMADE answer"),
        {"type": "compaction", "encrypted_content": "xyz"},
    ]
    line = w.compacted("", history)
    turn(w, 3, "prompt 3", "answer 3")
    w.event("thread_rolled_back", num_turns=2)
    t = opened(w.path)
    assert [m.text for m in t.messages] == ["prompt 1"]
    rows = "".join(model_diff(t)).splitlines()
    under = rows[rows.index(f"# line {line}: compaction, folded 11 items") + 1 :][:3]
    assert [row.split(None, 4)[4] for row in under] == [
        "UNIQUEMADE prompt [rolled-back]",
        "UNIQUEMADE answer [rolled-back]",
        "[compaction summary, encrypted, 3 chars] [rolled-back]",
    ]
    assert all(row.startswith(f"- line     {line} ") for row in under)
    assert not any(row.startswith("  + sent next") for row in rows)  # (none is)
    diff = ModelDiff(t)
    shown = [diff[i][1] for i in range(len(diff))]
    dropped = shown[shown.index("◆ rollback at line 30") + 2 :][:3]
    assert dropped == [
        f"  − line {line} user: UNIQUEMADE prompt",
        f"  − line {line} assistant: UNIQUEMADE answer",
        f"  − line {line} system: [compaction summary, encrypted, 3 chars]",
    ]
    assert not any("not sent next)" in row for row in shown)
