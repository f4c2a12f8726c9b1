"""A tiny format of the tests' own ("tiny-log"), the least a plugin writes: one message
a line (a header line first), tool calls and their results, no compactions; every item
named by its line (``Builder.line_id``), in a plain list. Registered only while a test
uses it (``tiny_registered``)."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any, ClassVar

from registering import registered

from session_core.formats.base import TranscriptFormat
from session_core.formats.builders import Builder
from session_core.model import Item, Part, ToolOp, Transcript, classify_op

NAME = "tiny-log"


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


class TinyBuilder(Builder):
    joins_lines: ClassVar[bool] = True

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.meta: dict[str, Any] = {}
        self.items: list[Item] = []
        self.calls: dict[str, tuple[str, Any, int, str]] = {}  # id -> (tool, args, line, item)
        self.results: dict[str, tuple[str, bool, int]] = {}

    def feed(self, record: dict[str, Any], line: int) -> None:
        ident = self.line_id(line)
        if record.get("tiny") == "log":
            meta = record.get("meta")
            self.meta.update(meta if isinstance(meta, dict) else {})
            self.items.append(Item(ident, "meta", line=line, kind="meta"))
            return
        role = record.get("role")
        if not isinstance(role, str):
            self.items.append(Item(ident, "record", [Part("other", data=record)], line, "record"))
            return
        parts = [Part("text", _text(record.get("text")))]
        call = record.get("call")
        if isinstance(call, dict) and isinstance(call.get("id"), str):
            tool = _text(call.get("tool"))
            parts.append(Part("tool-call", "", call["id"], tool, call.get("args")))
            self.calls[call["id"]] = (tool, call.get("args"), line, ident)
        answers = record.get("answers")
        if isinstance(answers, str):
            error = record.get("error") is True
            parts = [Part("tool-result", _text(record.get("text")), answers, is_error=error)]
            self.results[answers] = (_text(record.get("text")), error, line)
        self.items.append(Item(ident, role, parts, line=line))

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        ops = []
        for call_id, (tool, args, line, item) in self.calls.items():
            result = self.results.get(call_id)
            state = classify_op(
                has_result=result is not None,
                failed=bool(result and result[1]),
                writer_alive=writer_alive,
            )
            ops.append(
                ToolOp(
                    call_id,
                    tool,
                    state,
                    args,
                    result[0] if result else None,
                    None,
                    line,
                    result[2] if result else None,
                    message_id=item,
                )
            )
        return Transcript(
            NAME,
            self.path,
            dict(self.meta),
            [item for item in self.items if item.kind == "message"],
            list(self.items),
            ops,
            warnings=list(self.warnings),
            lines=self.lines,
            writer_alive=writer_alive,
        )


class TinyFormat(TranscriptFormat):
    name: ClassVar[str] = NAME
    title: ClassVar[str] = "tiny log"
    first_line: ClassVar[str] = "a tiny-log header"
    joins_lines: ClassVar[bool] = True
    has_compactions: ClassVar[bool] = False

    def claims(self, record: dict[str, Any]) -> bool:
        return record.get("tiny") == "log"

    def builder(self, path: str) -> Builder:
        return TinyBuilder(path)

    def contract_sample(self, folder: str) -> str:
        return str(write_tiny(Path(folder) / "tiny.jsonl"))


TINY_LINES: list[dict[str, Any]] = [
    {"tiny": "log", "meta": {"model": "tiny-1", "cwd": "/home/u/proj"}},
    {"role": "user", "text": "list the files"},
    {"role": "assistant", "text": "Listing.", "call": {"id": "c1", "tool": "ls", "args": {}}},
    {"role": "tool", "answers": "c1", "text": "a.py b.py"},
    {"role": "assistant", "text": "Reading.", "call": {"id": "c2", "tool": "cat", "args": "a"}},
    {"role": "tool", "answers": "c2", "text": "no such file", "error": True},
    {"role": "assistant", "text": "And b.", "call": {"id": "c3", "tool": "cat", "args": "b"}},
    {"role": "user", "text": "thanks"},
    *(
        line
        for n in range(4, 12)
        for line in (
            {"role": "user", "text": f"and file {n}?"},
            {"role": "assistant", "text": "Here.", "call": {"id": f"c{n}", "tool": "cat"}},
            {"role": "tool", "answers": f"c{n}", "text": f"the text of file {n}"},
        )
    ),
    {"role": "assistant", "text": "Done."},
]


def write_tiny(path: Path) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in TINY_LINES))
    return path


def tiny_registered() -> contextlib.AbstractContextManager[TinyFormat]:
    return registered(TinyFormat())
