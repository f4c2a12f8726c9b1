"""A small writer of Claude Code session files, for the claude-code reader's tests.

It writes what the CLI writes (shared/spec/claude-code.md): the envelope on every
conversation line, a response split over one line per content block sharing
``message.id``, tool results answering the line of their call, progress lines, the
compaction boundary and its summary, bookkeeping lines. ``story()`` writes a session
with every line type the spec names.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SESSION = "5e55e55e-0000-4000-8000-000000000001"
HOSTILE = "hi <script>alert(1)</script> \x1b[31mred\x1b[0m [bold]x[/bold] \u202e evil"


class CCWriter:
    """Lines of one file; ``parent`` defaults to the last conversation line written."""

    def __init__(
        self, session: str = SESSION, *, version: str = "2.1.39", agent_id: str | None = None
    ) -> None:
        self.session = session
        self.version = version
        self.agent_id = agent_id
        self.lines: list[dict[str, Any]] = []
        self.last: str | None = None
        self._n = 0
        self._clock = 0

    def _uuid(self) -> str:
        self._n += 1
        tag = (self.agent_id or "main").encode().hex()[:8].ljust(8, "0")
        return f"{tag}-0000-4000-8000-{self._n:012d}"

    def _ts(self) -> str:
        self._clock += 1
        return f"2026-03-01T10:{self._clock // 60:02d}:{self._clock % 60:02d}.000Z"

    def env(self, kind: str, parent: str | bool | None = True, **extra: Any) -> dict[str, Any]:
        uuid = self._uuid()
        line: dict[str, Any] = {
            "parentUuid": self.last if parent is True else parent or None,
            "isSidechain": self.agent_id is not None or extra.pop("sidechain", False),
            "userType": "external",
            "cwd": "/work/proj",
            "sessionId": self.session,
            "version": self.version,
            "gitBranch": "main",
            "type": kind,
            "uuid": uuid,
            "timestamp": self._ts(),
        }
        if self.agent_id is not None:
            line["agentId"] = self.agent_id
        line.update(extra)
        self.lines.append(line)
        if kind != "progress":
            self.last = uuid
        return line

    def user(self, content: Any, parent: str | bool | None = True, **extra: Any) -> str:
        line = self.env("user", parent, message={"role": "user", "content": content}, **extra)
        return str(line["uuid"])

    def assistant(
        self,
        msg_id: str,
        blocks: list[dict[str, Any]],
        *,
        usage: dict[str, int] | None = None,
        model: str = "claude-sonnet-4-5-20250929",
        stop: str | None = None,
        parent: str | bool | None = True,
        sidechain: bool = False,
    ) -> list[str]:
        """One response, one line per block; the early lines' usage is partial."""
        usage = usage or {}
        uuids = []
        for i, block in enumerate(blocks):
            last = i == len(blocks) - 1
            shown = dict(usage) if last else {**usage, "output_tokens": 3}
            message = {
                "model": model,
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "content": [block],
                "stop_reason": stop if last else None,
                "usage": shown,
            }
            line = self.env(
                "assistant",
                parent if i == 0 else True,
                message=message,
                requestId=f"req_{msg_id}",
                sidechain=sidechain,
            )
            uuids.append(str(line["uuid"]))
        return uuids

    def result(
        self,
        call_id: str,
        content: Any,
        *,
        parent: str | bool | None = True,
        is_error: bool = False,
        tool_use_result: Any = None,
    ) -> str:
        block: dict[str, Any] = {"tool_use_id": call_id, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        extra: dict[str, Any] = {}
        if tool_use_result is not None:
            extra["toolUseResult"] = tool_use_result
        return self.user([block], parent, **extra)

    def progress(self, call_id: str, data: dict[str, Any]) -> None:
        self.env("progress", True, data=data, toolUseID=f"p-{call_id}", parentToolUseID=call_id)

    def microcompact(self, call_ids: list[str]) -> str:
        """A microcompact_boundary clearing the results of ``call_ids``."""
        return self.system(
            "microcompact_boundary",
            content="Context microcompacted",
            microcompactMetadata={
                "trigger": "auto",
                "preTokens": 900,
                "compactedToolIds": call_ids,
            },
        )

    def compact(self) -> str:
        """A compact_boundary that starts a chain of its own (an auto compaction)."""
        return self.system(
            "compact_boundary",
            parent=None,
            content="Conversation compacted",
            compactMetadata={"trigger": "auto", "preTokens": 100},
        )

    def compaction(self, summary: str, pre_tokens: int, trigger: str = "auto") -> str:
        """A compact_boundary whose logical parent is the last line, and its summary (the
        summary's uuid)."""
        self.system(
            "compact_boundary",
            parent=None,
            content="Conversation compacted",
            logicalParentUuid=self.last,
            compactMetadata={"trigger": trigger, "preTokens": pre_tokens},
        )
        return self.user(summary, isCompactSummary=True, isVisibleInTranscriptOnly=True)

    def system(self, subtype: str, parent: str | bool | None = True, **extra: Any) -> str:
        return str(self.env("system", parent, subtype=subtype, **extra)["uuid"])

    def bare(self, line: dict[str, Any]) -> None:
        self.lines.append(line)

    def write(self, path: Path, *, crlf: bool = False, torn: bytes = b"") -> Path:
        end = b"\r\n" if crlf else b"\n"
        body = b"".join(json.dumps(line, ensure_ascii=False).encode() + end for line in self.lines)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body + torn)
        return path


def tool_use(call_id: str, name: str, **args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": args}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def usage(inp: int, out: int, cread: int = 0, cwrite: int = 0) -> dict[str, int]:
    return {
        "input_tokens": inp,
        "output_tokens": out,
        "cache_read_input_tokens": cread,
        "cache_creation_input_tokens": cwrite,
    }


# The story's responses' usage (input, output, cache read, cache write), main file only.
STORY_USAGE = {
    "m1": (10, 50, 100, 20),
    "m2": (5, 40, 200, 0),
    "m3": (2, 30, 300, 0),
    "m4": (3, 20, 400, 0),
    "m5": (4, 25, 500, 0),
    "mS": (1, 7, 0, 0),  # the in-file sidechain's response
    "m6": (6, 35, 50, 10),
    "m7": (1, 9, 60, 0),
    "mA": (2, 11, 70, 0),
    "mB": (3, 12, 80, 0),
    "m8": (4, 13, 90, 0),
}
SUBAGENT_USAGE = {"s1": (1, 100, 10, 5), "s2": (2, 200, 20, 0)}


def story(folder: Path, *, crlf: bool = False, torn: bool = True) -> Path:
    """A session with every line type of the spec, and a subagent file beside it."""
    w = CCWriter()
    u = {k: usage(*v) for k, v in STORY_USAGE.items()}
    w.bare(
        {
            "type": "file-history-snapshot",
            "messageId": "x",
            "snapshot": {},
            "isSnapshotUpdate": False,
        }
    )
    w.progress("hook-start", {"type": "hook_progress", "hookEvent": "SessionStart"})
    w.user(HOSTILE)
    m1 = w.assistant(
        "m1",
        [
            {"type": "thinking", "thinking": "let me think", "signature": "sig"},
            text("Running."),
            tool_use("t1", "Bash", command="ls -la"),
        ],
        usage=u["m1"],
    )
    for n in range(3):
        w.progress("t1", {"type": "bash_progress", "output": f"out {n}", "fullOutput": "x"})
    w.result(
        "t1",
        "file-a\nfile-b",
        tool_use_result={"stdout": "file-a\nfile-b", "stderr": "", "interrupted": False},
    )
    # parallel calls: each result answers its own call's line
    m2 = w.assistant(
        "m2",
        [tool_use("t2", "Edit", file_path="a.py"), tool_use("t3", "Read", file_path="b.py")],
        usage=u["m2"],
    )
    w.result(
        "t3",
        "<tool_use_error>no such file</tool_use_error>",
        parent=m2[1],
        is_error=True,
        tool_use_result="Error: no such file",
    )
    w.result(
        "t2",
        "edited",
        parent=m2[0],
        tool_use_result={
            "filePath": "a.py",
            "structuredPatch": [{"lines": ["-a", "+b"]}],
            "originalFile": "a" * 1000,
        },
    )
    w.assistant("m3", [text("Done.")], usage=u["m3"], stop="end_turn")
    w.system("stop_hook_summary", hookCount=1)
    w.system("turn_duration", durationMs=4200)
    # a slash command
    w.user("<local-command-caveat>Caveat: ...</local-command-caveat>", isMeta=True)
    w.user(
        "<command-name>/cost</command-name>\n<command-message>cost</command-message>\n<command-args></command-args>"
    )
    w.user("<local-command-stdout>Total cost: $0.01</local-command-stdout>")
    w.bare(
        {
            "type": "queue-operation",
            "operation": "enqueue",
            "timestamp": "2026-03-01T11:00:00.000Z",
            "sessionId": SESSION,
            "content": "queued words",
        }
    )
    # a subagent: its own file, and agent_progress copies carrying its usage
    w.user("Explore the code")
    m4 = w.assistant(
        "m4", [tool_use("t4", "Task", description="explore", prompt="look around")], usage=u["m4"]
    )
    for s, (i, o, cr, cw) in SUBAGENT_USAGE.items():
        w.progress(
            "t4",
            {
                "type": "agent_progress",
                "agentId": "a1",
                "prompt": "look around",
                "message": {
                    "type": "assistant",
                    "message": {
                        "id": s,
                        "model": "claude-sonnet-4-5",
                        "role": "assistant",
                        "content": [text("sub")],
                        "usage": usage(i, o, cr, cw),
                    },
                },
            },
        )
    w.progress("t4", {"type": "waiting_for_task", "taskDescription": "explore"})
    w.result(
        "t4",
        [text("found things"), text("agentId: a1")],
        parent=m4[0],
        tool_use_result={
            "status": "completed",
            "agentId": "a1",
            "totalTokens": 338,
            "usage": usage(3, 300, 30, 5),
        },
    )
    # an in-file sidechain (older versions): counted as the file's own lines
    side = w.user("sidechain prompt", parent=None, sidechain=True)
    w.assistant("mS", [text("sidechain answer")], usage=u["mS"], parent=side, sidechain=True)
    w.last = _uuid_of_result(w, "t4")
    m5 = w.assistant("m5", [tool_use("t5", "Bash", command="sleep 100")], usage=u["m5"])
    w.result(
        "t5",
        "[Request interrupted by user for tool use]",
        is_error=True,
        tool_use_result={"stdout": "", "stderr": "", "interrupted": True},
    )
    w.user([text("[Request interrupted by user for tool use]")])
    before = w.last
    # compaction: the boundary's logical parent names no line of the file
    boundary = w.system(
        "compact_boundary",
        parent=None,
        content="Conversation compacted",
        logicalParentUuid="ffffffff-0000-4000-8000-00000000dead",
        compactMetadata={"trigger": "auto", "preTokens": 12345},
    )
    w.user(
        "This session is being continued from a previous conversation. Summary: stuff.",
        isCompactSummary=True,
        isVisibleInTranscriptOnly=True,
    )
    w.user("Now the second part")
    m6 = w.assistant("m6", [tool_use("t6", "Read", file_path="c.py")], usage=u["m6"])
    w.result("t6", "contents of c", tool_use_result={"type": "text", "file": {"filePath": "c.py"}})
    m7 = w.assistant("m7", [text("Read it.")], usage=u["m7"], stop="end_turn")
    w.system(
        "microcompact_boundary",
        content="Context microcompacted",
        microcompactMetadata={
            "trigger": "auto",
            "preTokens": 5000,
            "tokensSaved": 1200,
            "compactedToolIds": ["t6"],
        },
    )
    fork = w.last
    # a rewind: "try A" is abandoned, "try B" continues from the same point
    w.user("try A")
    w.assistant("mA", [text("A it is")], usage=u["mA"], stop="end_turn")
    w.user("try B", parent=fork)
    w.assistant("mB", [text("B it is")], usage=u["mB"], stop="end_turn")
    w.bare({"type": "summary", "summary": "A story session", "leafUuid": "elsewhere"})
    w.bare({"type": "custom-title", "customTitle": "My titled story", "sessionId": SESSION})
    w.bare({"type": "brand-new-thing", "sessionId": SESSION, "payloadish": {"x": HOSTILE}})
    w.user("last prompt")
    w.assistant("m8", [tool_use("t7", "Bash", command="make test")], usage=u["m8"])
    w.progress("t7", {"type": "bash_progress", "output": "running tests 1/3"})
    w.progress("t7", {"type": "bash_progress", "output": "running tests 2/3"})
    del before, boundary, m1, m5, m6, m7
    path = w.write(
        folder / f"{SESSION}.jsonl",
        crlf=crlf,
        torn=b'{"type":"assistant","uuid":"tor' if torn else b"",
    )
    sub = CCWriter(agent_id="a1")
    sub.user("look around", parent=None)
    sub.assistant("s1", [tool_use("st1", "Grep", pattern="x")], usage=usage(*SUBAGENT_USAGE["s1"]))
    sub.result("st1", "x.py:1")
    sub.assistant("s2", [text("found things")], usage=usage(*SUBAGENT_USAGE["s2"]), stop="end_turn")
    sub.write(folder / SESSION / "subagents" / "agent-a1.jsonl")
    return path


def _uuid_of_result(w: CCWriter, call_id: str) -> str:
    for line in w.lines:
        content = line.get("message", {}).get("content") if line.get("type") == "user" else None
        if isinstance(content, list) and any(b.get("tool_use_id") == call_id for b in content):
            return str(line["uuid"])
    raise KeyError(call_id)
