"""A tiny format of the tests' own ("toy-model"): every part of the neutral model from a
few obvious records, so the model screen can be shown a deterministic file.

It is registered only while a test uses it (``toy_format``): the contract tests that
run over ``FORMATS`` never see it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from registering import registered

from session_core import model
from session_core.formats.base import TranscriptFormat
from session_core.formats.builders import Builder
from session_core.model import Compaction, Item, Part, Transcript, Usage

NAME = "toy-model"
HOSTILE = "\x1b[31mRED\x1b[0m [bold]not bold[/bold] \x1b]0;pwned\x07"


class ToyBuilder(Builder):
    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.meta: dict[str, Any] = {}
        self.raw: list[Item] = []
        self.calls: dict[str, tuple[str, Any, int, str]] = {}  # id -> (tool, args, line, item)
        self.results: dict[str, tuple[str, bool, int, Any]] = {}
        self.compactions: list[Compaction] = []
        self.runs: list[dict[str, Any]] = []

    def feed(self, record: dict[str, Any], line: int) -> None:
        kind = record.get("type")
        if kind == "meta":
            self.meta.update(record.get("meta", {}))
            self.raw.append(Item(f"meta-{line}", "meta", line=line, kind="meta"))
        elif kind == "msg":
            self.raw.append(self._message(record, line))
        elif kind == "compact":
            folded = [item.id for item in self.raw if item.kind == "message"]
            summary = record.get("summary", "")
            self.compactions.append(
                Compaction(f"c{line}", "compaction", line, summary, folded, trigger="auto")
            )
            self.raw.append(
                Item(f"s{line}", "user", [Part("text", summary)], line=line, kind="summary")
            )
        elif kind == "run":
            self.runs.append({**record, "line": line})
        else:
            self.raw.append(
                Item(
                    f"r{line}",
                    "record",
                    [Part("other", name=str(kind), data=record)],
                    line,
                    "record",
                )
            )

    def _message(self, record: dict[str, Any], line: int) -> Item:
        ident = record["id"]
        parts: list[Part] = []
        if record.get("reasoning"):
            parts.append(Part("reasoning", record["reasoning"]))
        if record.get("text"):
            parts.append(Part("text", record["text"]))
        for call in record.get("calls", ()):
            parts.append(Part("tool-call", "", call["id"], call["name"], call.get("args")))
            self.calls[call["id"]] = (call["name"], call.get("args"), line, ident)
        if "result" in record:
            result = record["result"]
            error = bool(result.get("error"))
            parts.append(Part("tool-result", result["text"], result["call"], is_error=error))
            self.results[result["call"]] = (result["text"], error, line, result.get("detail"))
        if record.get("image"):
            parts.append(Part("image", "screenshot.png"))
        usage = Usage.of_response(**record["usage"]) if "usage" in record else None
        return Item(
            ident,
            record.get("role", "user"),
            parts,
            line=line,
            model=record.get("model"),
            usage=usage,
            marks=list(record.get("marks", ())),
        )

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        ops = []
        for call_id, (tool, args, line, item) in self.calls.items():
            result = self.results.get(call_id)
            state = model.classify_op(
                has_result=result is not None,
                failed=bool(result and result[1]),
                writer_alive=writer_alive,
            )
            ops.append(
                model.ToolOp(
                    call_id,
                    tool,
                    state,
                    args,
                    result[0] if result else None,
                    result[3] if result else None,
                    line,
                    result[2] if result else None,
                    message_id=item,
                    progress=None if result else "still working…",
                    duration=1.5 if result else None,
                )
            )
        folded = {ident for c in self.compactions for ident in c.folded}
        messages = [i for i in self.raw if i.kind in ("message", "summary") and i.id not in folded]
        messages = [i for i in messages if "sidechain" not in i.marks]
        runs = [
            model.Run(
                r["id"],
                r.get("state", "finished"),
                r["line"],
                prompt=r.get("prompt"),
                context=model.RunContext(
                    facts=[tuple(f) for f in r.get("facts", ())], line=r["line"]
                ),
            )
            for r in self.runs
        ]
        usage = Usage.total(i.usage for i in self.raw if i.usage is not None)
        return Transcript(
            NAME,
            self.path,
            dict(self.meta),
            messages,
            list(self.raw),
            ops,
            list(self.compactions),
            runs,
            usage,
            warnings=list(self.warnings),
            lines=self.lines,
            writer_alive=writer_alive,
        )


class ToyFormat(TranscriptFormat):
    name: ClassVar[str] = NAME
    title: ClassVar[str] = "toy session"
    # its compaction's summary line is a compaction item, by its own word (no format is
    # given another's words)
    kind_words: ClassVar[Mapping[str, tuple[str, ...]]] = {"compaction": ("summary",)}

    def claims(self, record: dict[str, Any]) -> bool:
        return record.get("type") == "meta" and record.get("toy") is True

    def builder(self, path: str) -> Builder:
        return ToyBuilder(path)


def toy_registered() -> contextlib.AbstractContextManager[ToyFormat]:
    return registered(ToyFormat())


def toy_lines(*, hostile: bool = False) -> list[dict[str, Any]]:
    """A short session: prompt, reasoning, three calls (done, failed, unanswered)."""
    return [
        {"type": "meta", "toy": True, "meta": {"cwd": "/home/u/proj", "model": "toy-1"}},
        {"type": "run", "id": "turn-1", "prompt": "fix the tests", "facts": [["model", "toy-1"]]},
        {"id": "u1", "type": "msg", "role": "user", "text": "fix the tests please"},
        {
            "id": "a1",
            "type": "msg",
            "role": "assistant",
            "model": "toy-1",
            "reasoning": "The tests fail because of the parser.",
            "text": "Let me look at the parser.",
            "calls": [{"id": "call-1", "name": "Read", "args": {"path": "parser.py"}}],
            "usage": {"input_tokens": 100, "output_tokens": 20},
        },
        {
            "id": "t1",
            "type": "msg",
            "role": "tool",
            "result": {"call": "call-1", "text": "def parse(): ..."},
        },
        {"type": "compact", "summary": "The user asked to fix the tests; the parser was read."},
        {
            "id": "a2",
            "type": "msg",
            "role": "assistant",
            "model": "toy-1",
            "text": HOSTILE if hostile else "Running the suite now.",
            "calls": [
                {"id": "call-2", "name": "Bash", "args": {"command": "pytest -q"}},
                {"id": "call-3", "name": "Edit", "args": {"path": "parser.py"}},
            ],
            "usage": {"input_tokens": 300, "output_tokens": 40},
        },
        {
            "id": "t2",
            "type": "msg",
            "role": "tool",
            "result": {
                "call": "call-2",
                "text": "1 failed",
                "error": True,
                "detail": {"stdout": "F.\n1 failed", "stderr": "warning: slow"},
            },
        },
        {
            "id": "side1",
            "type": "msg",
            "role": "assistant",
            "text": "a subagent's line",
            "marks": ["sidechain"],
        },
        {"type": "file-history-snapshot", "files": ["parser.py"]},
        {"id": "u2", "type": "msg", "role": "user", "text": "and the image?", "image": True},
    ]


def write_toy(path: Path, *, hostile: bool = False) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in toy_lines(hostile=hostile)))
    return path
