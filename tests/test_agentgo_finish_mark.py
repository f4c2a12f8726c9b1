"""An agentgo message says why it ended (its ``stop_reason``) as a v1 message says its
``finish-reason``: ``[finish …]`` beside it in the conversation, ``finish …`` in an
export (one rule, ``text.finish_mark``). agentgo's conversation said nothing of it, its
export "stop …"."""

from __future__ import annotations

from pathlib import Path

from helpers import for_screen, screen_lines, wait_for, written

from agentgo_helpers import REQUEST, USAGE, model, text
from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.export import export
from story import write_story
from viewer.screens.model_screen import ModelScreen

opened, _shows = for_screen(ModelScreen, (120, 30))
ANSWER = {**text("assistant", "Done."), "stop_reason": "max_tokens"}


def write_answer(path: Path) -> None:
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        run.record("message_end", {"message": text("user", "go")})
        run.record("model_request", REQUEST, execution=model("m1"))
        run.record("model_exec_end", {"message": ANSWER, "usage": USAGE}, execution=model("m1"))
        run.record("message_end", {"message": ANSWER})
        run.record("agent_end", {})
        run.close()


def test_the_mark_is_v1s(tmp_path: Path) -> None:
    v1 = open_transcript(written(tmp_path / "v1.jsonl", write_story))
    assert any("finish tool_calls" in item.marks for item in v1.raw)  # (v1's, as it was)
    agentgo = open_transcript(written(tmp_path / "go.jsonl", write_answer))
    assert [item.marks for item in agentgo.messages] == [[], ["finish max_tokens"]]
    assert [item.marks for item in agentgo.raw] == [[], ["finish max_tokens"]]


def test_the_export_says_it_as_v1s_does(tmp_path: Path) -> None:
    path = written(tmp_path / "go.jsonl", write_answer)
    md = export(path, "md")  # (markdown escapes the _)
    assert "**finish max\\_tokens**" in md and "stop max" not in md
    v1 = written(tmp_path / "v1.jsonl", write_story)
    assert "**finish tool\\_calls**" in export(v1, "md", "raw")


async def test_the_conversation_shows_it(tmp_path: Path) -> None:
    path = written(tmp_path / "go.jsonl", write_answer)
    async with opened(path) as (app, pilot):
        await pilot.press("3")
        await wait_for(
            pilot,
            lambda: any("assistant  [finish max_tokens]" in line for line in screen_lines(app)),
        )
