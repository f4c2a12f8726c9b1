"""What a model format's export (Claude Code, Codex) keeps of the file: each run's context
(a rollout's instructions and turn facts, an older header's ``instructions``), each
response's blocks in the order written, and why each call the conversation does not hold
is not there (a subagent's, a compaction's, a rollback's)."""

from __future__ import annotations

import html
from pathlib import Path

from claude_code_writer import CCWriter, text, tool_use
from codex_writer import RolloutWriter, legacy_story

from session_core.export import export
from session_core.exportdoc import UNSHOWN_BY_MARK, UNSHOWN_CALLS

LONG = "\n".join(f"rule {n}: be careful with step {n}." for n in range(600))  # ~20,000 chars


def _section(page: str, title: str) -> str:
    return page.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def _rollout(tmp_path: Path) -> Path:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(base_instructions={"text": LONG})
    for n, effort in enumerate(["high", "high", "low"], 1):
        w.task_started(f"t{n}")
        w.turn_context(f"t{n}", effort=effort)
        w.message("user", f"prompt {n}")
        w.message("assistant", f"answer {n}")
        w.task_complete(f"t{n}")
    return tmp_path / "r.jsonl"


def test_a_rollouts_run_contexts_are_exported_each_text_once(tmp_path: Path) -> None:
    path = _rollout(tmp_path)
    page = export(path, "md")
    contexts = _section(page, "Run contexts")
    # every turn's context, its facts the first time, then what changed
    assert [line for line in contexts.splitlines() if line.startswith("### run ")] == [
        "### run t1 · its context from line 3",
        "### run t2 · its context from line 8",
        "### run t3 · its context from line 13",
    ]
    first, second, third = contexts.split("### run ")[1:]
    assert "| approval\\_policy | on-request |" in first and "| effort | high |" in first
    assert "| model | gpt-5-codex |" in first
    assert "effort" not in second and "| turn\\_id | t2 |" in second
    assert "| effort | low |" in third and "approval" not in third
    # the session's instructions and the turn's, each text once however often it repeats
    assert contexts.count("rule 599: be careful") == 1 and page.count("rule 599") == 1
    assert contexts.count("Be brief.") == 1 and contexts.count("Use the tools.") == 1
    assert "section base\\_instructions: the same body as printed for run t1" in third
    # a long text is folded in HTML, as every long text is
    page = export(path, "html")
    folded = page.split('id="run-contexts"', 1)[1].split("<details>", 1)
    assert len(folded) == 2 and html.escape("rule 599") in folded[1]


def test_an_older_headers_instructions_are_its_runs_context(tmp_path: Path) -> None:
    """A rollout of bare items under a bare header writes no turn context: its header's
    ``instructions`` (what every turn was told) were in no export but the raw record."""
    path = tmp_path / "old.jsonl"
    legacy_story(path, {"instructions": "Always run the tests."})
    contexts = _section(export(path, "md"), "Run contexts")
    assert "Always run the tests." in contexts and "its context from line 1\n" in contexts
    # a rollout whose turn contexts come later takes theirs, not its header's alone
    page = export(_rollout(tmp_path), "md")
    assert "its context from line 1\n" not in _section(page, "Run contexts")


def test_a_claude_code_session_has_no_run_contexts_section(tmp_path: Path) -> None:
    """Claude Code writes no run context: no empty section says so for every session."""
    w = CCWriter()
    w.user("hello")
    w.assistant("m1", [text("hi")], stop="end_turn")
    assert "## Run contexts" not in export(w.write(tmp_path / "s.jsonl"), "md")


def test_a_responses_blocks_are_exported_in_their_order(tmp_path: Path) -> None:
    """A response split over lines, merged by its id, keeps its blocks' order: its
    thinking before its text, a web search's blocks before the text written on them."""
    w = CCWriter()
    w.user("look it up")
    thinking = {"type": "thinking", "thinking": "THINK-FIRST", "signature": "sig"}
    w.assistant("m1", [thinking, text("SAY-SECOND"), tool_use("t1", "Bash", command="ls")])
    w.result("t1", "a.txt")
    query = {"query": "QUERY-WORD"}
    search = {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": query}
    hit = {"type": "web_search_result", "title": "RESULT-WORD", "url": "https://example.org"}
    found = {"type": "web_search_tool_result", "tool_use_id": "s1", "content": [hit]}
    w.assistant("m2", [text("INTRO-TEXT"), search, found, text("FOUND-TEXT")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    for fmt in ("md", "html"):
        page = export(path, fmt)
        # (the search said by its query, its result by its hits' titles: in their place)
        order = ["THINK-FIRST", "SAY-SECOND", "INTRO-TEXT", "QUERY-WORD"]
        order += ["RESULT-WORD", "FOUND-TEXT"]
        at = [page.find(word) for word in order]
        assert -1 not in at and at == sorted(at), (fmt, at)
    page = export(path, "md")
    second = page.split("FOUND-TEXT", 1)[0].rsplit("### ", 1)[1]
    assert second.count("**text**") == 1  # (the first text is the content, the later a block)


def test_a_sidechains_calls_are_said_to_be_a_subagents(tmp_path: Path) -> None:
    """Claude Code 1.0.x wrote a subagent's lines in the session's own file: its calls,
    not sent to the main agent, were said to be folded by a compaction the file lacks."""
    w = CCWriter(version="1.0.24")
    w.user("find the TODOs")
    main = w.assistant("m1", [tool_use("task1", "Task", prompt="grep TODO")])[-1]
    side = w.user("grep TODO", parent=None, sidechain=True)
    w.assistant("mS", [tool_use("g1", "Grep", pattern="TODO")], parent=side, sidechain=True)
    block = {"tool_use_id": "g1", "type": "tool_result", "content": "a.py:1: TODO"}
    w.user([block], sidechain=True)
    w.assistant("mS2", [text("one TODO in a.py")], sidechain=True, stop="end_turn")
    w.result("task1", "one TODO in a.py", parent=main)
    w.assistant("m2", [text("There is one TODO.")], stop="end_turn")
    page = export(w.write(tmp_path / "s.jsonl"), "md").replace("\\", "")
    operations = _section(page, "Tool operations")
    assert UNSHOWN_BY_MARK["sidechain"] in operations
    assert UNSHOWN_CALLS not in operations  # (there is no compaction)
    assert "g1 · Grep · " in operations.split(UNSHOWN_BY_MARK["sidechain"], 1)[1]


def test_a_rollbacks_calls_are_said_to_be_dropped(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    for n in (1, 2):
        w.task_started(f"t{n}")
        w.turn_context(f"t{n}")
        w.message("user", f"prompt {n}")
        w.event("user_message", message=f"prompt {n}", images=[])
        w.function_call("shell", {"command": ["ls"]}, f"c{n}")
        w.function_output(f"c{n}", "ok")
        w.message("assistant", f"answer {n}")
        w.task_complete(f"t{n}")
    w.event("thread_rolled_back", num_turns=1)
    page = export(tmp_path / "r.jsonl", "md").replace("\\", "")
    operations = _section(page, "Tool operations")
    dropped = operations.split(UNSHOWN_BY_MARK["rolled-back"], 1)
    assert len(dropped) == 2 and "c2 · shell · " in dropped[1] and "c1 · " not in dropped[1]
    assert UNSHOWN_CALLS not in operations


def test_a_context_whose_facts_are_all_the_last_ones_promises_no_table(tmp_path: Path) -> None:
    """Older writers name no turn: a context whose facts are all the run before's and
    whose instructions differ said "…; those that differ:" over no table."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    for n, said in enumerate(["Be brief.", "Be thorough."], 1):
        w.task_started(f"t{n}")
        w.turn_context("", user_instructions=said)
        w.message("user", f"prompt {n}")
        w.message("assistant", f"answer {n}")
        w.task_complete(f"t{n}")
    second = _section(export(tmp_path / "r.jsonl", "md"), "Run contexts").split("### run ")[2]
    assert "facts as run t1's\n" in second and "those that differ" not in second
    assert "| fact | value |" not in second and "Be thorough." in second


def test_a_turns_own_id_is_listed_but_not_as_a_change(tmp_path: Path) -> None:
    """Each Codex turn context names its turn: its ``turn_id`` differs every turn, and was
    listed among "those that differ" on every run (the audit on the real samples): it is
    listed as the run's own, the facts that changed apart."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    for n, effort in enumerate(["high", "high", "low"], 1):
        w.task_started(f"t{n}")
        w.turn_context(f"t{n}", effort=effort)
        w.message("user", f"prompt {n}")
        w.message("assistant", f"answer {n}")
        w.task_complete(f"t{n}")
    runs = _section(export(tmp_path / "r.jsonl", "md"), "Run contexts").split("### run ")
    assert "7 facts as run t1's; its own turn\\_id:" in runs[2]
    assert "| turn\\_id | t2 |" in runs[2] and "those that differ" not in runs[2]
    assert "6 facts as run t2's; its own turn\\_id and those that differ:" in runs[3]
    assert "| turn\\_id | t3 |\n| effort | low |" in runs[3]
