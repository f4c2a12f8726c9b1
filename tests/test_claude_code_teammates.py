"""An agent team's teammate (2.1.x): ``Agent`` with a ``team_name`` is answered at once,
``toolUseResult {"status": "teammate_spawned", "teammate_id": "name@team", …}``, while the
teammate works on; it reports back in a user line ``<teammate-message teammate_id="name"
…>`` (the shapes other readers' fixtures quote). The call is settled as a background
Agent's (``async_launched``) is: by its teammate's file, else by that reply; never
"completed" at its spawn."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text, tool_use, usage
from test_claude_code_background_agents import SID, op_of, opened
from test_claude_code_decode import by_dict, everything

from session_core.formats.base import check_note
from session_core.formats.claude_code.subagents import folder_of

PROMPT = "You are the readme inspector. Inspect README.md and report."
AGENT = "a9f8e7d6c5b4a3921"


def reply(name: str, said: str = "README looks fine.") -> str:
    return (
        f'Another Claude session sent a message:\n<teammate-message teammate_id="{name}" '
        f'color="blue" summary="{said}">\n{said}\n</teammate-message>'
    )


def team_session(
    folder: Path,
    *,
    file: bool = True,
    finished: bool = True,
    replies: tuple[str, ...] = (),
    teammate_id: object = "readme-inspector@snoopy",
) -> Path:
    """The lead's file: a teammate spawned (call at 10:00:02, answered at once), then
    ``replies`` (each a minute apart, the first at 10:01:05); the teammate's own file
    (``file``), its turn finished or still at work. ``teammate_id``: as its result
    writes it (``agent_id`` the name, always)."""
    w = CCWriter(SID, version="2.1.150")
    w.user("make a team to inspect the repo")
    call = tool_use("toolu_tm", "Agent", description="inspect", team_name="snoopy", prompt=PROMPT)
    call["input"]["name"] = "readme-inspector"
    w.assistant("m1", [call])
    spawned = {
        "status": "teammate_spawned",
        "teammate_id": teammate_id,
        "agent_id": "readme-inspector@snoopy",
        "name": "readme-inspector",
        "team_name": "snoopy",
        "prompt": PROMPT,
    }
    w.result("toolu_tm", "Spawned successfully.", tool_use_result=spawned)
    w.assistant("m2", [text("Teammate spawned; waiting.")], usage=usage(5, 6), stop="end_turn")
    for n, name in enumerate(replies):
        w._clock = 64 + 60 * n
        w.user(reply(name))
        w.assistant(f"m{3 + n}", [text("Noted.")], usage=usage(5, 6), stop="end_turn")
    session = w.write(folder / f"{SID}.jsonl")
    if file:
        mate = CCWriter(SID, version="2.1.150", agent_id=AGENT)
        mate._clock = 2
        mate.user(PROMPT, parent=None)
        mate._clock = 362  # (it works 6 minutes)
        if finished:
            mate.assistant("m-s", [text("README looks fine.")], usage=usage(9, 9), stop="end_turn")
        else:
            mate.assistant("m-s", [tool_use("b-s", "Bash", command="sleep 999")])
        mate.write(folder_of(str(session)) / f"agent-{AGENT}.jsonl")
    return session


def test_a_spawned_teammate_at_work_is_running_not_completed(tmp_path: Path) -> None:
    t = opened(team_session(tmp_path, finished=False))
    op = op_of(t, "toolu_tm")
    assert op.state == "running" and op.duration is None  # (never 0 s to its spawn)
    assert "1 tool call running" in check_note(t)
    # the lead's writer gone (an in-process teammate runs in it): cut off
    assert op_of(opened(tmp_path / f"{SID}.jsonl", writer_alive=False), "toolu_tm").state == (
        "interrupted"
    )


def test_a_teammate_whose_file_finished_completes_in_its_time(tmp_path: Path) -> None:
    op = op_of(opened(team_session(tmp_path, finished=True)), "toolu_tm")
    assert op.state == "completed" and op.duration == 360.0


def test_with_no_file_its_reply_ends_it(tmp_path: Path) -> None:
    session = team_session(tmp_path, file=False, replies=("readme-inspector",))
    op = op_of(opened(session), "toolu_tm")
    assert op.state == "completed" and op.duration == 63.0  # (10:00:02 to 10:01:05)


def test_with_no_file_and_no_reply_its_outcome_is_unknown(tmp_path: Path) -> None:
    op = op_of(opened(team_session(tmp_path, file=False)), "toolu_tm")
    assert op.state == "outcome-unknown" and op.duration is None


def test_another_teammates_message_is_no_reply(tmp_path: Path) -> None:
    session = team_session(tmp_path, file=False, replies=("team-lead", "readme-inspector"))
    op = op_of(opened(session), "toolu_tm")
    assert op.state == "completed" and op.duration == 123.0  # (its own, the second)


def test_its_file_says_more_than_its_reply(tmp_path: Path) -> None:
    """An idle teammate's reply is no end of its work where its file says it goes on."""
    session = team_session(tmp_path, finished=False, replies=("readme-inspector",))
    assert op_of(opened(session), "toolu_tm").state == "running"


def test_typed_and_dict_paths_agree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = team_session(tmp_path, file=False, replies=("readme-inspector",))
    typed = opened(session)
    assert op_of(typed, "toolu_tm").state == "completed"
    assert everything(typed) == everything(by_dict(session, monkeypatch))


def test_followed_its_reply_ends_it_as_opened_does(tmp_path: Path) -> None:
    from test_claude_code_live_subagents import followed

    session = team_session(tmp_path, file=False, replies=("readme-inspector",))
    live, seen = followed(session, block=256)
    states = [op_of(t, "toolu_tm").state for t in seen if t.tool_operations]
    assert states[-1] == "completed" and "completed" not in states[:2], states
    assert op_of(live.transcript(None), "toolu_tm").duration == 63.0


@pytest.mark.parametrize("odd", [7, True, ["readme-inspector@snoopy"], {"name": "x"}])
def test_a_teammate_id_of_another_type_leaves_its_agent_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, odd: object
) -> None:
    """A ``teammate_id`` that is no string counts as absent: its ``agent_id`` names the
    teammate, whose reply ends the call (it hid it: the call's outcome unknown)."""
    session = team_session(tmp_path, file=False, replies=("readme-inspector",), teammate_id=odd)
    typed = opened(session)
    op = op_of(typed, "toolu_tm")
    assert op.state == "completed" and op.duration == 63.0, op
    assert everything(typed) == everything(by_dict(session, monkeypatch))
