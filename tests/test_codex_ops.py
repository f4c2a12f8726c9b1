"""The ``codex`` format's tool operations: their states, arguments and results, in every
shape Codex wrote them, and the subagent a spawn call names."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from codex_helpers import CODEX, day_dir, opened, ops_by_call
from codex_writer import SESSION, RolloutWriter, subagent
from helpers import follow_into

from session_core.diff_model import model_diff
from session_core.search import op_arguments

# -- tool operations -------------------------------------------------------------------


def test_op_states_live_and_dead(rollout: Path) -> None:
    alive = ops_by_call(opened(rollout, alive=None))
    assert alive["c1"] == "completed"  # 0.5x JSON-string output, exit 0
    assert alive["c2"] == "failed"  # "Process exited with code 2"
    assert alive["c3"] == "completed"
    assert alive["c4"] == "failed"  # 0.5x exit_code 1
    assert alive["c5"] == "completed"  # local_shell_call answered
    assert alive["c6"] == "interrupted"  # its turn was aborted
    assert alive["c7"] == "running"  # open turn, writer may be at work
    dead = ops_by_call(opened(rollout, alive=False))
    assert dead["c7"] == "interrupted"
    assert {k: v for k, v in dead.items() if k != "c7"} == {
        k: v for k, v in alive.items() if k != "c7"
    }
    searches = [op for op in opened(rollout).tool_operations if op.tool == "web_search"]
    assert [op.state for op in searches] == ["completed", "interrupted"]
    assert searches[0].arguments["query"] == "codex rollout format"


def test_op_arguments_and_results(rollout: Path) -> None:
    t = opened(rollout)
    op = {o.call_id: o for o in t.tool_operations}
    c1 = t.op_for_call("c1")
    assert c1 is not None and c1.result == "a\nb" and c1.detail["exit_code"] == 0
    assert c1.duration == 0.5
    assert op["c2"].detail == {"exit_code": 2} and op["c2"].duration == 0.25
    assert op["c3"].tool == "apply_patch" and op["c3"].arguments.startswith("*** Begin Patch")
    calls = {p.call_id: p for i in t.raw for p in i.parts if p.kind == "tool-call"}
    assert calls["c1"].text == "ls -la"  # bash -lc SCRIPT shows the script
    assert calls["c2"].text == "make test"
    assert calls["c3"].text == "*** Begin Patch\n*** End Patch\n"
    assert calls["c5"].text == "python -c 'print(1)'"
    assert op["c1"].arguments == {"command": ["bash", "-lc", "ls -la"]}
    results = {p.call_id: p for i in t.raw for p in i.parts if p.kind == "tool-result"}
    assert results["c2"].is_error and not results["c1"].is_error
    assert op["c1"].run_id == "t1" and op["c7"].run_id == "t3"


def test_exec_command_end_fails_an_output_without_exit_code(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.function_call("exec_command", {"cmd": "x"}, "a")
    w.event("exec_command_end", call_id="a", exit_code=7)
    w.function_output("a", "plain output, no status lines")
    w.function_call("exec_command", {"cmd": "y"}, "b")
    w.function_output("b", "aborted")
    w.function_call("exec_command", {"cmd": "z"}, "c")
    w.function_output("c", "Exit code: 0\nWall time: 1.5 seconds\nOutput:\nok")
    states = ops_by_call(opened(Path(w.path)))
    assert states == {"a": "failed", "b": "interrupted", "c": "completed"}


# -- subagents ---------------------------------------------------------------------------


def test_subagent_found_among_siblings(tmp_path: Path, rollout: Path) -> None:
    child = "019c0000-0000-7000-8000-0000000000c1"
    w = RolloutWriter(rollout)  # a parent whose spawn call names the child
    w.session_meta()
    w.function_call("spawn_agent", {"message": "look around"}, "sp1")
    w.function_output("sp1", orjson.dumps({"agent_id": child}).decode())
    name = f"rollout-2026-02-23T12-00-05-{child}.jsonl"
    subagent(str(day_dir(tmp_path)), SESSION, child, name)
    unrelated = RolloutWriter(day_dir(tmp_path) / "rollout-2026-02-23T12-00-09-x.jsonl")
    unrelated.session_meta("019c0000-0000-7000-8000-0000000000ff")
    t = opened(rollout)
    (sub,) = t.subagents
    assert sub.id == child and sub.path == str(day_dir(tmp_path) / name)
    assert sub.description == "scout explorer" and sub.call_id == "sp1"
    assert sub.usage.input_tokens == 200 and sub.messages == 2
    assert t.usage.input_tokens is None  # the parent's own usage is not folded in
    both = t.to_json()["usage-with-subagents"]
    assert both["input-tokens"] == 200
    assert t.op_for_call("sp1") is not None and t.op_for_call("sp1").subagent == sub.path  # type: ignore[union-attr]
    child_t = opened(day_dir(tmp_path) / name)
    assert child_t.meta["parent-thread-id"] == SESSION and child_t.meta["agent-nickname"] == "scout"


def test_tool_search_and_image_generation_are_tool_operations(tmp_path: Path) -> None:
    """Newer writers' ``tool_search_call`` / ``tool_search_output`` pair by call id like
    any call; an ``image_generation_call`` settles by its status (its image not shown)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.146.0")
    w.task_started("t1")
    search = {"type": "tool_search_call", "id": "ts-1", "call_id": "s1", "status": "completed"}
    w.write("response_item", {**search, "execution": "local", "arguments": {"query": "calendar"}})
    tools = [
        {"type": "function", "name": "create_event", "description": "Create an event"},
        {"type": "function_group", "name": "cal", "tools": [{"type": "function", "name": "list"}]},
    ]
    found = {"type": "tool_search_output", "call_id": "s1", "status": "completed"}
    w.write("response_item", {**found, "execution": "local", "tools": tools})
    image = {"type": "image_generation_call", "id": "ig_1", "status": "completed"}
    w.write(
        "response_item", {**image, "revised_prompt": "a red fox", "result": "iVBORw0KGgo" * 500}
    )
    w.write(
        "response_item",
        {
            "type": "function_call_output",
            "call_id": "s9",
            "output": {"type": "input_text", "text": "a.txt\n", "image_url": None},
        },
    )
    w.function_call("shell", {"command": ["ls"]}, "s9")  # its output came first: not paired
    t = opened(Path(w.path), alive=False)
    ops = {op.call_id: op for op in t.tool_operations}
    assert (ops["s1"].tool, ops["s1"].state) == ("tool_search", "completed")
    assert ops["s1"].arguments == {"query": "calendar"}
    assert ops["s1"].result == "create_event\ncal/list"
    assert (ops["ig_1"].tool, ops["ig_1"].state) == ("image_generation", "completed")
    call = next(m for m in t.messages if m.parts[0].call_id == "ig_1")
    assert (
        call.parts[0].text == "a red fox"
        and "iVBOR" not in orjson.dumps(call.parts[0].data).decode()
    )
    # it reads as the prompt it drew and the image it made, never the image's bytes
    # (nor its id and status as JSON: its call id and state say them)
    assert ops["ig_1"].arguments == {"revised_prompt": "a red fox"}
    assert op_arguments(ops["ig_1"].arguments) == "a red fox"
    assert ops["ig_1"].result == "[image image/png]" and ops["ig_1"].result_line == 5
    row = next(r for r in "".join(model_diff(t)).splitlines() if r.startswith("= line      5"))
    assert row.endswith("assistant → image_generation a red fox")
    assert "iVBOR" not in orjson.dumps(t.to_json()).decode()
    [output] = [m for m in t.messages if m.role == "tool" and m.parts[0].call_id == "s9"]
    assert output.parts[0].text == "a.txt\n"


@pytest.mark.parametrize(
    ("output", "text", "failed"),
    [
        # Codex of 2025 wrote an MCP tool's content list as a JSON string
        ('[{"text":"found 2","type":"text"},{"type":"text","text":"ok"}]', "found 2\nok", False),
        ('[{"a": 1}]', '[{"a": 1}]', False),  # a JSON list that is no content: as it is
        ("tool call error: tool call failed for `memory/add`", None, True),
        ("failed in sandbox LinuxSeccomp with execution error: exit code: 1", None, True),
        ('error: Failed to find expected lines ["x"] in /w/a.py', None, True),
        ("Plan updated", None, False),
        # a call the user declined, or Codex's guardian refused: it did not run
        ("exec command rejected by user", None, True),
        ("patch rejected by user", None, True),
        ("edit rejected by user: the user denied this approval request; do not", None, True),
        ("This action was rejected due to unacceptable risk.", None, True),
        ("Exit code: 0\nOutput:\npatch rejected by user", None, False),  # (a file's text)
        # an MCP call whose arguments did not parse (mcp_tool_call.rs)
        ("err: expected value at line 1 column 1", None, True),
        ("Exit code: 0\nWall time: 0.1 seconds\nOutput:\nerr: not ours", None, False),
        (
            '{"output":"err: a shell said so","metadata":{"exit_code":0}}',
            "err: a shell said so",
            False,
        ),
    ],
)
def test_outputs_codex_wrote_itself(
    tmp_path: Path, output: str, text: str | None, failed: bool
) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta(cli_version="0.34.0")
    w.function_call("memory__add", {"x": 1}, "m1")
    w.function_output("m1", output)
    [op] = opened(Path(w.path)).tool_operations
    assert op.result == (output if text is None else text)
    assert op.state == ("failed" if failed else "completed")


def test_web_searches_read_as_what_they_did(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.write("response_item", {"type": "web_search_call", "status": "completed"})  # 0.104
    action = {"type": "open_page", "url": "https://example.com/a"}
    w.write("response_item", {"type": "web_search_call", "status": "completed", "action": action})
    find = {"type": "find_in_page", "url": "https://example.com/a", "pattern": "codex"}
    w.write("response_item", {"type": "web_search_call", "status": "completed", "action": find})
    t = opened(Path(w.path))
    shown = [m.parts[0].text for m in t.messages]
    assert shown == ["", "https://example.com/a", "codex in https://example.com/a"]
    assert [op.state for op in t.tool_operations] == ["completed"] * 3


def test_a_namespaced_call_is_named_with_its_namespace(tmp_path: Path) -> None:
    """Newer writers name an MCP tool's call by its namespace and its own name (older
    ones wrote ``mcp__server__tool`` as the name); its result object says its error."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    for call_id, namespace, name in (
        ("n1", "mcp__so_agents", "so_cli"),
        ("n2", "mcp__demo__", "get_weather"),
        ("n3", "mcp__docfork__", "mcp__docfork__search_docs"),
        ("n4", None, "shell"),
    ):
        payload = {"type": "function_call", "name": name, "namespace": namespace}
        w.write("response_item", {**payload, "arguments": "{}", "call_id": call_id})
    content = {"content": [{"type": "text", "text": "no such doc"}], "is_error": True}
    w.write("response_item", {"type": "mcp_tool_call_output", "call_id": "n3", "output": content})
    t = opened(Path(w.path))
    assert [op.tool for op in t.tool_operations] == [
        "mcp__so_agents__so_cli",
        "mcp__demo__get_weather",
        "mcp__docfork__search_docs",
        "shell",
    ]
    op = t.op_for_call("n3")
    assert op is not None and (op.state, op.result) == ("failed", "no such doc")


@pytest.mark.parametrize("said", [{"isError": True}, {"is_error": True}, None])
def test_an_mcp_call_the_server_answered_with_an_error_failed(
    tmp_path: Path, said: dict[str, bool] | None
) -> None:
    """The output line is the text alone; its ``mcp_tool_call_end`` says the server
    marked the result an error (``Ok.isError``, as Codex's ``is_success`` reads it)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.function_call("mcp__github__get_issue", {"number": 12}, "m1")
    content = [{"type": "text", "text": "MCP-ERR: issue 12 not found"}]
    result = {"Ok": {"content": content, **(said or {})}}
    invocation = {"server": "github", "tool": "get_issue", "arguments": {"number": 12}}
    w.event("mcp_tool_call_end", call_id="m1", invocation=invocation, result=result)
    w.function_output("m1", "MCP-ERR: issue 12 not found")
    op = opened(Path(w.path)).op_for_call("m1")
    assert op is not None and op.state == ("completed" if said is None else "failed")


@pytest.mark.parametrize("event_first", [True, False])
def test_an_mcp_calls_duration_is_what_its_end_event_measured(
    tmp_path: Path, event_first: bool
) -> None:
    """Not the time between its lines (the output is written after the event, and the
    model's next request may come between them)."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.function_call("mcp__github__get_issue", {"number": 12}, "m1")
    result = {"Ok": {"content": [{"type": "text", "text": "issue 12"}]}}
    took = {"secs": 1, "nanos": 250_000_000}

    def end() -> None:
        w.event("mcp_tool_call_end", call_id="m1", duration=took, result=result)

    if event_first:
        end()
    w.function_output("m1", "issue 12")
    if not event_first:
        end()
    op = opened(Path(w.path)).op_for_call("m1")
    assert op is not None and (op.state, op.duration) == ("completed", 1.25)
    live = CODEX.live(str(w.path))  # (as the viewer reads it, the same)
    follow_into(live.apply, Path(w.path), 1 << 20, parse=False)
    op = live.transcript(writer_alive=False).op_for_call("m1")
    assert op is not None and op.duration == 1.25


def test_raw_reasoning_beside_a_summary_is_kept(tmp_path: Path) -> None:
    """Some providers return raw reasoning (``content``, ``reasoning_text``) beside its
    summary: both are the item's (the raw text was shown nowhere but its duplicate
    event, raw); that event is the item's again, as ``agent_reasoning`` is."""
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.message("user", "why?")
    w.write(
        "response_item",
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "**Looking**"}],
            "content": [{"type": "reasoning_text", "text": "RAW: the test wants a newline."}],
            "encrypted_content": "gAAAA-opaque",
        },
    )
    w.event("agent_reasoning_raw_content", text="RAW: the test wants a newline.")
    w.message("assistant", "because")
    t = opened(Path(w.path))
    [thought] = [m for m in t.messages if m.parts and m.parts[0].kind == "reasoning"]
    assert [p.text for p in thought.parts] == ["**Looking**", "RAW: the test wants a newline."]
    [event] = [i for i in t.raw if i.line == 4]
    assert [(p.kind, p.text) for p in event.parts] == [
        ("reasoning", "RAW: the test wants a newline.")
    ]


def test_a_measured_duration_of_nothing_is_kept(tmp_path: Path) -> None:
    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.function_call("shell", {"command": ["true"]}, "a")
    meta = {"exit_code": 0, "duration_seconds": 0.0}
    w.function_output("a", orjson.dumps({"output": "", "metadata": meta}).decode())
    (op,) = opened(Path(w.path)).tool_operations
    assert op.duration == 0.0  # not unknown, nor the lines' times apart


@pytest.mark.parametrize(
    ("arguments", "shown"),
    [
        ({"cmd": "ls -la", "workdir": "/w"}, 'ls -la  {"workdir":"/w"}'),  # Codex exec_command
        ('{"cmd":"ls -la","workdir":"/w"}', 'ls -la  {"workdir":"/w"}'),  # written as a string
        ('{"command": "pytest -x"}', "pytest -x"),  # v1's shell tool
        ({"command": ["bash", "-lc", "ls -la"]}, "ls -la"),  # Codex shell: its script
        ({"command": ["/bin/zsh", "-c", "a && b"], "timeout": 5}, 'a && b  {"timeout":5}'),
        ({"command": ["git", "log", "-n 1"]}, "git log '-n 1'"),  # (argv: shell-joined)
        ({"pattern": "TODO", "path": "."}, 'TODO  {"path":"."}'),  # (a grep: its pattern)
        ("*** Begin Patch\n*** Add File: a.py\n+x\n*** End Patch", "a.py"),  # (its files)
        ({"input": "*** Begin Patch\n*** Delete File: b\n*** End Patch"}, "b"),
        ("*** Begin Patch", "(a patch of no file)"),
        ("Begin Patch", "Begin Patch"),  # no JSON: as it is
        ("{torn", "{torn"),
    ],
)
def test_the_operations_table_puts_a_command_first(arguments: object, shown: str) -> None:
    """The tool operations table shows a shell call's command first, as the conversation
    does, whatever the format writes its arguments as (v1's and Codex's showed raw JSON)."""
    from viewer.widgets.model_panes import op_arguments

    assert op_arguments(arguments) == shown


def test_the_op_detail_says_whose_timing_its_took_is(tmp_path: Path) -> None:
    """A call's ``duration_seconds`` (Codex's own timing) beside its lines' times, which
    say otherwise: the detail says which is which (it read "took: 0.50s" under a start and
    an end a second apart); where they agree, one figure."""
    from viewer.screens.op_detail import op_entries

    w = RolloutWriter(tmp_path / "r.jsonl")
    w.session_meta()
    w.function_call("shell", {"command": ["ls"]}, "c1")
    w.function_output("c1", "a.txt", exit_code=0, old=True)  # (0.5 s, its lines 1 s apart)
    (op,) = opened(Path(w.path)).tool_operations
    said = [text for _, text in op_entries(op)]
    assert "took: 0.50s as its writer timed it; 1.0s from started to ended" in said
    op.duration = 1.0
    assert "took: 1.0s" in [text for _, text in op_entries(op)]


def test_a_calls_command_reads_as_in_the_conversation(tmp_path: Path) -> None:
    """The same Codex shell call read ``→ shell [failed] pytest -q tests/test_ops.py`` in
    the conversation and ``bash -lc 'pytest -q tests/t…`` in the tool operations tab (the
    usability audit): the tab's arguments start with the conversation's call text."""
    from session_core.formats import by_name
    from session_core.search import call_arguments
    from viewer.demo import DEMO_FILES, simulate_run
    from viewer.widgets.model_panes import op_arguments

    path = tmp_path / DEMO_FILES["codex"]
    path.parent.mkdir(parents=True)
    simulate_run(str(path), speed=0, format="codex")
    transcript = by_name("codex").open(path)
    ops = transcript.tool_operations.by_call()  # type: ignore[attr-defined]
    calls = [p for i in transcript.messages for p in i.parts if p.kind == "tool-call"]
    shells = [p for p in calls if p.name == "shell"]
    assert shells and all("bash -lc" not in p.head for p in shells)
    for part in calls:
        shown = op_arguments(ops[part.call_id].arguments)
        assert shown == call_arguments(part)  # (the conversation's folded row's)
        if part.name != "apply_patch":  # (a patch: by its files, test_codex_patch_args)
            assert shown.startswith(part.head.split("\n")[0]), (shown, part.head)
