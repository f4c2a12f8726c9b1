"""A small writer of Codex rollouts, for the tests: every line type codex.md names.

It writes what Codex writes (``{timestamp, type, payload}`` lines), in the shapes the
reader must accept from different versions: 0.5x JSON-string outputs, newer plain-text
outputs, ``item_completed`` events. ``story`` writes one rollout with all of them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from typing import Any

import orjson

Totals = tuple[int, int, int, int]  # input (cached included), cached, output, reasoning
SESSION = "019c0000-0000-7000-8000-000000000001"
HOSTILE = "\x1b[31mred\x1b[0m [bold]markup[/] \u202eevil\u202c <script>x</script> \t\r\u0000end"


def message_payload(role: str, *texts: str) -> dict[str, Any]:
    """A message item: ``texts`` as output text (the assistant's) or input text."""
    kind = "output_text" if role == "assistant" else "input_text"
    return {
        "type": "message",
        "role": role,
        "content": [{"type": kind, "text": t} for t in texts],
    }


def message_line(timestamp: str, role: str, text: str) -> dict[str, Any]:
    """A whole rollout line: a message item at ``timestamp``."""
    return {"timestamp": timestamp, "type": "response_item", "payload": message_payload(role, text)}


def usage(totals: Totals) -> dict[str, int]:
    inputs, cached, output, reasoning = totals
    return {
        "input_tokens": inputs,
        "cached_input_tokens": cached,
        "output_tokens": output,
        "reasoning_output_tokens": reasoning,
        "total_tokens": inputs + output,
    }


class RolloutWriter:
    """Appends rollout lines to a file; ``line`` is the number of the last line written."""

    def __init__(self, path: str | os.PathLike[str], *, crlf: bool = False) -> None:
        self.path = os.fspath(path)
        self.crlf = crlf
        self.line = 0
        self.clock = 0
        self.total: Totals | None = None  # the last total a token_count said
        self.last: Totals | None = None  # and its last response's usage
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        open(self.path, "wb").close()

    def ts(self) -> str:
        self.clock += 1
        return f"2026-02-23T12:{self.clock // 60:02d}:{self.clock % 60:02d}.000Z"

    def write(self, kind: str, payload: Any) -> int:
        record = {"timestamp": self.ts(), "type": kind, "payload": payload}
        return self.raw(orjson.dumps(record) + (b"\r\n" if self.crlf else b"\n"))

    def raw(self, data: bytes) -> int:
        with open(self.path, "ab") as fh:
            fh.write(data)
        self.line += data.count(b"\n")
        return self.line

    # -- line types ------------------------------------------------------------------

    def session_meta(self, session: str = SESSION, *, source: Any = "cli", **more: Any) -> int:
        payload = {
            "id": session,
            "timestamp": "2026-02-23T12:00:00.000Z",
            "cwd": "/work/project",
            "originator": "codex_cli_rs",
            "cli_version": "0.104.0",
            "source": source,
            "model_provider": "openai",
            "base_instructions": {"text": "You are Codex."},
            "git": {"commit_hash": "abc123", "branch": "main", "repository_url": "git@x:y.git"},
        }
        payload.update(more)
        return self.write("session_meta", payload)

    def turn_context(self, turn: str, *, model: str = "gpt-5-codex", **more: Any) -> int:
        payload = {
            "turn_id": turn,
            "cwd": "/work/project",
            "approval_policy": "on-request",
            "sandbox_policy": {"type": "workspace-write", "network_access": False},
            "model": model,
            "effort": "high",
            "summary": "auto",
            "user_instructions": "Be brief.",
            "developer_instructions": "Use the tools.",
            "truncation_policy": {"mode": "tokens", "limit": 10000},
        }
        payload.update(more)
        if not turn:  # older writers name no turn
            del payload["turn_id"]
        return self.write("turn_context", payload)

    def message(self, role: str, *texts: str, phase: str | None = None) -> int:
        payload = message_payload(role, *texts)
        if phase is not None:
            payload["phase"] = phase
        return self.write("response_item", payload)

    def message_payload(self, role: str, *texts: str) -> dict[str, Any]:
        return message_payload(role, *texts)

    def reasoning(self, *summaries: str) -> int:
        return self.write(
            "response_item",
            {
                "type": "reasoning",
                "summary": [{"type": "summary_text", "text": s} for s in summaries],
                "content": None,
                "encrypted_content": "gAAAA-opaque",
            },
        )

    def function_call(self, name: str, arguments: Any, call_id: str) -> int:
        text = arguments if isinstance(arguments, str) else orjson.dumps(arguments).decode()
        return self.write(
            "response_item",
            {"type": "function_call", "name": name, "arguments": text, "call_id": call_id},
        )

    def function_output(
        self, call_id: str, output: str, *, exit_code: int | None = None, old: bool = False
    ) -> int:
        """0.5x (``old``): a JSON string with metadata; newer: the text as it is."""
        if old:
            body = {"output": output, "metadata": {"exit_code": exit_code, "duration_seconds": 0.5}}
            value: Any = orjson.dumps(body).decode()
        elif exit_code is not None:
            head = f"Wall time: 0.2500 seconds\nProcess exited with code {exit_code}\n"
            value = f"{head}Output:\n{output}"
        else:
            value = output
        return self.write(
            "response_item", {"type": "function_call_output", "call_id": call_id, "output": value}
        )

    def custom_call(self, name: str, text: str, call_id: str) -> int:
        return self.write(
            "response_item",
            {
                "type": "custom_tool_call",
                "status": "completed",
                "call_id": call_id,
                "name": name,
                "input": text,
            },
        )

    def custom_output(self, call_id: str, output: str) -> int:
        return self.write(
            "response_item",
            {"type": "custom_tool_call_output", "call_id": call_id, "output": output},
        )

    def local_shell(self, call_id: str, command: list[str], status: str = "completed") -> int:
        return self.write(
            "response_item",
            {
                "type": "local_shell_call",
                "call_id": call_id,
                "status": status,
                "action": {"type": "exec", "command": command, "timeout_ms": 1000},
            },
        )

    def web_search(self, status: str, query: str) -> int:
        return self.write(
            "response_item",
            {
                "type": "web_search_call",
                "status": status,
                "action": {"type": "search", "query": query},
            },
        )

    def event(self, event_type: str, **fields: Any) -> int:
        return self.write("event_msg", {"type": event_type, **fields})

    def token_count(
        self, total: Totals | None, last: Totals | None = None, *, limits: bool = True
    ) -> int:
        info = None
        if total is not None:
            if last is None:  # as Codex writes it: what this response added (all: from 0)
                before = self.total or (0, 0, 0, 0)
                added = (
                    total[0] - before[0],
                    total[1] - before[1],
                    total[2] - before[2],
                    total[3] - before[3],
                )
                last = added if min(added) >= 0 else total
                if not any(last):  # (the same response reported again)
                    last = self.last or total
            self.total, self.last = total, last
            info = {
                "total_token_usage": usage(total),
                "last_token_usage": usage(last),
                "model_context_window": 272000,
            }
        rate = {"primary": {"used_percent": 12.0, "window_minutes": 300, "resets_at": 1}}
        return self.event("token_count", info=info, rate_limits=rate if limits else None)

    def task_started(self, turn: str) -> int:
        return self.event("task_started", turn_id=turn, model_context_window=272000)

    def task_complete(self, turn: str, last: str | None = None) -> int:
        return self.event("task_complete", turn_id=turn, last_agent_message=last)

    def turn_aborted(self, turn: str) -> int:
        return self.event("turn_aborted", turn_id=turn, reason="interrupted")

    def compacted(self, message: str, history: Iterable[dict[str, Any]] | None) -> int:
        payload: dict[str, Any] = {"message": message}
        if history is not None:
            payload["replacement_history"] = list(history)
        line = self.write("compacted", payload)
        self.event("context_compacted")
        return line

    def item_completed(self, item: dict[str, Any], turn: str = "t") -> int:
        return self.event("item_completed", thread_id=SESSION, turn_id=turn, item=item)


def story(path: str | os.PathLike[str], *, crlf: bool = False) -> RolloutWriter:
    """One rollout with every line type; the tests' expectations are in its comments."""
    w = RolloutWriter(path, crlf=crlf)
    w.session_meta()
    w.message("developer", "<permissions>sandboxed</permissions>")
    w.message("user", "# AGENTS.md\nbe nice")
    # turn 1: finished; an old-style output (exit 0), a new-style failure, a patch
    w.task_started("t1")
    w.turn_context("t1")
    w.token_count(None)  # rate limits only
    w.message("user", "fix the bug")
    w.event("user_message", message="fix the bug", images=[])
    w.event("agent_reasoning", text="Looking at the code")
    w.reasoning("Looking at the code")
    w.function_call("shell", {"command": ["bash", "-lc", "ls -la"]}, "c1")
    w.function_output("c1", "a\nb", exit_code=0, old=True)
    w.function_call("exec_command", {"cmd": "make test"}, "c2")
    w.event("exec_command_end", call_id="c2", exit_code=2)
    w.function_output("c2", "FAILED", exit_code=2)
    w.token_count((1000, 200, 50, 10))
    w.token_count((1000, 200, 50, 10))  # the same response reported again
    w.custom_call("apply_patch", "*** Begin Patch\n*** End Patch\n", "c3")
    w.custom_output("c3", "Success. Updated the following files:\nM a.py")
    w.function_call("shell", {"command": ["false"]}, "c4")
    w.function_output("c4", "", exit_code=1, old=True)
    w.local_shell("c5", ["python", "-c", "print(1)"])
    w.function_output("c5", "1")
    w.web_search("completed", "codex rollout format")
    w.event("agent_message", message="Done: " + HOSTILE)
    w.message("assistant", "Done: " + HOSTILE, phase="final_answer")
    w.token_count((2500, 1200, 120, 20), (1500, 1000, 70, 10))
    w.task_complete("t1", "Done")
    # turn 2: aborted with a call in flight; a different model
    w.task_started("t2")
    w.turn_context("t2", model="gpt-5.1-codex", effort="low")
    w.message("user", "now deploy")
    w.function_call("exec_command", {"cmd": "deploy"}, "c6")
    w.web_search("in_progress", "deploy docs")
    w.token_count((4000, 2000, 150, 20), (1500, 800, 30, 0))
    w.turn_aborted("t2")
    # unknown things, kept raw
    w.write("future_line", {"x": 1})
    w.write("response_item", {"type": "ghost_snapshot", "ghost_commit": {"id": "g1"}})
    w.write("response_item", {"type": "brand_new_item", "role": "assistant", "v": HOSTILE})
    w.event("brand_new_event", detail=HOSTILE)
    # compaction: keeps the user prompts and the developer message, adds a summary
    w.compacted(
        "",
        [
            w.message_payload("developer", "<permissions>sandboxed</permissions>"),
            w.message_payload("user", "fix the bug"),
            w.message_payload("user", "now deploy"),
            {"type": "compaction", "encrypted_content": "ENC"},
        ],
    )
    # turn 3: after the compaction, still open at the end (no task_complete)
    w.task_started("t3")
    w.turn_context("t3", model="gpt-5.1-codex", effort="low")
    w.message("user", "status?")
    w.function_call("exec_command", {"cmd": "git status"}, "c7")
    w.token_count((5000, 2500, 200, 30), (1000, 500, 50, 10))
    return w


def completed_story(path: str | os.PathLike[str]) -> RolloutWriter:
    """A newer writer's rollout whose conversation is only in ``item_completed`` events."""
    w = RolloutWriter(path)
    w.session_meta(cli_version="0.148.0")
    w.task_started("t1")
    w.turn_context("t1")
    w.event("user_message", message="hello")
    w.item_completed(
        {"type": "UserMessage", "id": "u1", "content": [{"type": "text", "text": "hello"}]}
    )
    w.event("agent_reasoning", text="thinking")
    w.item_completed(
        {"type": "Reasoning", "id": "r1", "summary_text": ["thinking"], "raw_content": []}
    )
    w.item_completed(
        {
            "type": "CommandExecution",
            "id": "x1",
            "command": ["bash", "-lc", "exit 3"],
            "status": "failed",
            "aggregatedOutput": "boom",
            "exitCode": 3,
        }
    )
    w.item_completed(
        {"type": "FileChange", "id": "p1", "changes": {"a.py": {}}, "status": "completed"}
    )
    w.event("agent_message", message="hi there")
    w.item_completed(
        {"type": "AgentMessage", "id": "a1", "content": [{"type": "Text", "text": "hi there"}]}
    )
    w.item_completed({"type": "SomethingNew", "id": "n1"})
    w.token_count((100, 0, 10, 0))
    w.task_complete("t1")
    return w


def subagent(tree: str, parent: str, child: str, name: str) -> RolloutWriter:
    """A subagent's rollout beside its parent (the same day folder)."""
    w = RolloutWriter(os.path.join(tree, name))
    spawn = {
        "parent_thread_id": parent,
        "depth": 1,
        "agent_nickname": "scout",
        "agent_role": "explorer",
    }
    w.session_meta(child, source={"subagent": {"thread_spawn": spawn}})
    w.task_started("s1")
    w.turn_context("s1")
    w.message("user", "look around")
    w.message("assistant", "found it")
    w.token_count((300, 100, 30, 0))
    w.task_complete("s1")
    return w


def zst_copy(source: str, dest: str) -> str:
    """A ``.jsonl.zst`` of a rollout, as Codex leaves an idle one."""
    import zstandard

    with open(source, "rb") as src, open(dest, "wb") as out:
        out.write(zstandard.ZstdCompressor(write_checksum=True).compress(src.read()))
    return dest


def copy(source: str, dest: str) -> str:
    shutil.copyfile(source, dest)
    return dest


__all__ = [
    "HOSTILE",
    "SESSION",
    "RolloutWriter",
    "completed_story",
    "story",
    "subagent",
    "zst_copy",
]


def legacy_story(
    path: str | os.PathLike[str], header: dict[str, Any] | None = None
) -> RolloutWriter:
    """A rollout of the CLI of mid 2025, before the ``{timestamp, type, payload}`` lines: a
    bare header (``header``'s keys beside its id and timestamp), ``record_type`` state
    markers, and bare response items (no timestamps)."""
    w = RolloutWriter(path)

    def bare(record: dict[str, Any]) -> int:
        return w.raw(orjson.dumps(record) + b"\n")

    if header is None:
        header = {"instructions": None, "git": {"commit_hash": "abc123", "branch": "main"}}
    bare({"id": SESSION, "timestamp": "2025-08-20T13:20:47.060Z", **header})
    bare({"record_type": "state"})
    bare(message_payload("user", "list the files"))
    bare({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"})
    arguments = orjson.dumps({"command": ["bash", "-lc", "ls"]}).decode()
    bare({"type": "function_call", "id": "fc_1", "name": "shell", "arguments": arguments,
          "call_id": "c1"})  # fmt: skip
    body = {"output": "a.txt\n", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}
    bare({"type": "function_call_output", "call_id": "c1", "output": orjson.dumps(body).decode()})
    bare({"record_type": "state"})
    bare(message_payload("assistant", "one file: a.txt"))
    return w


def turnless_story(path: str | os.PathLike[str]) -> RolloutWriter:
    """A 0.5x/0.6x rollout: its turns are not written (no ``task_started`` nor
    ``task_complete``), a ``user_message`` event starts each, ``turn_aborted`` ends one."""
    w = RolloutWriter(path)
    w.session_meta(cli_version="0.58.0", instructions=None)
    w.message("user", "<environment_context>cwd</environment_context>")
    # (0.2x–0.3x also said it as an event, of its own kind: no prompt, no turn)
    said = {"message": "<environment_context>cwd</environment_context>"}
    w.event("user_message", **said, kind="environment_context")
    # turn 1: answered, then the next prompt
    w.message("user", "list the files")
    w.event("user_message", message="list the files", images=[])
    w.turn_context("", model="gpt-5.1-codex")
    w.function_call("shell", {"command": ["bash", "-lc", "ls"]}, "c1")
    w.function_output("c1", "a.txt", exit_code=0, old=True)
    w.token_count((1000, 0, 50, 0))
    w.message("assistant", "one file")
    w.token_count((2100, 1000, 80, 0), (1100, 1000, 30, 0))
    # turn 2: interrupted by the person
    w.message("user", "now delete it")
    w.event("user_message", message="now delete it", images=[])
    w.turn_context("", model="gpt-5.1-codex")
    w.function_call("shell", {"command": ["rm", "a.txt"]}, "c2")
    w.event("turn_aborted", reason="interrupted")
    # turn 3: answered, the last line of the file
    w.message("user", "thanks")
    w.event("user_message", message="thanks", images=[])
    w.turn_context("", model="gpt-5.1-codex")
    w.token_count((3300, 2000, 90, 0), (1200, 1000, 10, 0))
    w.message("assistant", "you are welcome")
    return w


def searched_once_done(path: str | os.PathLike[str]) -> RolloutWriter:
    """A prompt, a ``web_search_call`` (one line, written once the search was done: its
    start is not in the file) and the answer."""
    w = RolloutWriter(path)
    w.session_meta()
    w.message("user", "look it up")
    w.web_search("completed", "python 3.13")
    w.message("assistant", "found")
    return w
