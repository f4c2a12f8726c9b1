"""The calls that name a Claude Code subagent (``NamedAgents``), kept up to date line by
line, are at every line what looking every call up again finds: the agent the result
names, else the first ``agent_progress``'s, and that agent's file where it is there."""

from __future__ import annotations

import random
from pathlib import Path

from claude_code_writer import CCWriter, text, tool_use, usage

from session_core.formats import by_name
from session_core.formats.claude_code.subagents import folder_of, path_for


def agent_progress(w: CCWriter, call_id: str, agent: str) -> None:
    message = {"id": f"s-{agent}", "role": "assistant", "content": [text("…")]}
    w.progress(
        call_id,
        {
            "type": "agent_progress",
            "agentId": agent,
            "message": {"type": "assistant", "message": {**message, "usage": usage(1, 2)}},
        },
    )


def session(folder: Path, seed: int) -> Path:
    """Task calls whose agents are named by progress, by results, by both (the result
    naming another), answered twice, or progress naming a call before its line."""
    rng = random.Random(seed)
    w = CCWriter()
    w.user("go")
    early: list[str] = []
    again: list[str] = []
    for n in range(40):
        call = f"t{n}"
        agent = f"a{n}"
        if rng.random() < 0.1:  # its progress written before its call's line
            agent_progress(w, call, agent)
            early.append(call)
        w.assistant(f"m{n}", [tool_use(call, "Task", description=f"job {n}", prompt="go")])
        for _ in range(rng.randrange(3)):
            agent_progress(w, call, agent if rng.random() < 0.8 else f"p{n}")
        roll = rng.random()
        if roll < 0.6:
            named = agent if roll < 0.4 else f"r{n}"
            w.result(call, "done", tool_use_result={"agentId": named, "status": "completed"})
            if rng.random() < 0.2:  # answered again later, naming another
                again.append(call)
        elif roll < 0.8:
            w.result(call, "no agent named")
    for call in again:
        w.result(call, "again", tool_use_result={"agentId": f"x{call}"})
    path = w.write(folder / "5e55e55e-0000-4000-8000-000000000001.jsonl")
    subagents = folder_of(str(path))
    subagents.mkdir(parents=True)
    for n in range(0, 40, 3):  # some agents' files are there
        (subagents / f"agent-a{n}.jsonl").write_text("")
    return path


def looked_up_again(b) -> dict[int, str]:  # type: ignore[no-untyped-def]
    calls = b.calls
    found = dict(calls.agent)
    for call_id, agent in b.agent_of.items():
        at = calls.find(call_id)
        if at >= 0 and at not in calls.agent:
            found[at] = agent
    return found


def test_named_agents_line_by_line_match_a_lookup_of_every_call(tmp_path: Path) -> None:
    for seed in range(6):
        path = session(tmp_path / f"s{seed}", seed)
        b = by_name("claude-code").builder(str(path))
        named = b.named  # type: ignore[attr-defined]
        checked = 0
        for number, raw in enumerate(path.read_bytes().splitlines(), start=1):
            b.take_line(raw, number)
            if number % 3 and number > 5:
                continue  # (a snapshot every few lines, as a follower takes them)
            want = looked_up_again(b)
            assert named.update(b) == want, (seed, number)
            assert named.paths == {at: path_for(b, agent) for at, agent in want.items()}
            checked += 1
        assert checked > 20 and len(named.of) > 10
        assert any(p is not None for p in named.paths.values())
        assert any(p is None for p in named.paths.values())
