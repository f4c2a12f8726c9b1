"""The demo's tools as Claude Code's: Read, Bash, Edit, WebFetch and a Task subagent.

The story speaks of ``fs_read``, ``run_tests``, ``apply_patch``...; Claude Code has
its own tools, inputs and structured results (``toolUseResult``). This module turns
one story call into the Claude Code tool uses it would have been, and a story result
into what each of those tools returns, so the recorder only threads lines together.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

from .recorders import ToolCall
from .story import (
    BAD_PATCH,
    CHANGELOG,
    CHANGELOG_ENTRY,
    GOOD_PATCH,
    GREP_RESULT,
    MODULO_PATCH,
    OPS_PY,
    REGRESSION_PATCH,
)

MODEL = "claude-sonnet-4-5-20250929"  # a real model id: its price is known

# Lines in the files the story reads (Read reports the file's length beside the range).
FILE_LINES = {"calc/ops.py": OPS_PY.count("\n"), "tests/test_ops.py": 54, "CHANGELOG.md": 10}

_DIVIDE = '    if b == 0:\n        return Decimal("NaN")\n    return a / b'
_MODULO = '    if b == 0:\n        return Decimal("NaN")\n    return a % b'
_RAISE = '    if b == 0:\n        raise CalcError("division by zero")\n'
_MODULO_TEST = '    assert modulo(Decimal("7"), Decimal("3")) == Decimal("1")'

# The story's unified diffs as the Edit calls Claude would make: (file, old, new). The
# first one's old string is misremembered ("nan"), so it is not found in the file.
PATCH_EDITS: dict[str, list[tuple[str, str, str]]] = {
    BAD_PATCH: [
        ("calc/ops.py", _DIVIDE.replace('"NaN"', '"nan"'), _RAISE + "    return a / b"),
    ],
    GOOD_PATCH: [("calc/ops.py", _DIVIDE, _RAISE + "    return a / b")],
    REGRESSION_PATCH: [
        (
            "tests/test_ops.py",
            _MODULO_TEST,
            _MODULO_TEST + "\n\n\ndef test_modulo_by_zero() -> None:\n"
            '    with pytest.raises(CalcError, match="division by zero"):\n'
            '        modulo(Decimal("1"), Decimal("0"))',
        ),
        ("CHANGELOG.md", "## Unreleased\n", f"## Unreleased\n{CHANGELOG_ENTRY}\n"),
    ],
    MODULO_PATCH: [("calc/ops.py", _MODULO, _RAISE + "    return a % b")],
}

EXPLORE_PROMPT = (
    "Find every definition and use of CalcError in this repository (calc/ and tests/). "
    "Report the file and line of each, where it is defined, what it subclasses, and "
    "whether calc/ops.py already imports it. Quick search, no edits."
)
EXPLORE_REPORT = (
    "`CalcError` is defined in `calc/errors.py:4` as a `ValueError` subclass, and "
    "`calc/ops.py` already imports it (line 5); only `power` raises it there. "
    "The parser and the CLI use it too.\n\nMatches:\n" + GREP_RESULT
)


@dataclass(slots=True)
class Use:
    """One Claude Code tool use made for a story call."""

    id: str
    name: str
    input: dict[str, Any]
    rel: str = ""  # the file it reads or edits, relative to the repository
    line_uuid: str = ""  # the assistant line that holds the tool_use block
    progress: int = 0  # bash_progress lines written so far
    extra: dict[str, Any] = field(default_factory=dict)


def translate(call: ToolCall, cwd: str, new_id: Any) -> list[Use]:
    """The tool uses one story call becomes (two for a patch of two files)."""
    args = call.arguments
    name = call.name
    if name == "fs_read":
        rel = str(args["path"])
        read: dict[str, Any] = {"file_path": os.path.join(cwd, rel)}
        if "start" in args:
            read["offset"] = int(args["start"])
            read["limit"] = int(args.get("end", args["start"])) - int(args["start"]) + 1
        return [Use(new_id(), "Read", read, rel=rel)]
    if name == "grep":
        task = {
            "description": "Find CalcError usages",
            "prompt": EXPLORE_PROMPT,
            "subagent_type": "Explore",
        }
        return [Use(new_id(), "Task", task)]
    if name == "run_tests":
        verbose = bool(args.get("verbose"))
        command = f"pytest {'-v' if verbose else '-q'} {args.get('target', 'tests/')}"
        what = "Run the tests verbosely" if verbose else "Run the tests"
        return [Use(new_id(), "Bash", {"command": command, "description": what})]
    if name == "git_diff":
        command = "git diff --stat && git diff calc/ops.py"
        return [Use(new_id(), "Bash", {"command": command, "description": "Show the diff"})]
    if name == "apply_patch":
        return [
            Use(
                new_id(),
                "Edit",
                {
                    "file_path": os.path.join(cwd, rel),
                    "old_string": old,
                    "new_string": new,
                    "replace_all": False,
                },
                rel=rel,
            )
            for rel, old, new in PATCH_EDITS[str(args["patch"])]
        ]
    if name == "web_fetch":
        fetch = {
            "url": str(args["url"]),
            "prompt": "Is DivisionByZero trapped by default, and what does x / 0 do?",
        }
        return [Use(new_id(), "WebFetch", fetch)]
    return [Use(new_id(), name, dict(args))]


class WorkingTree:
    """The files the demo edits, as far as it knows them: for Edit's originalFile."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {"calc/ops.py": OPS_PY, "CHANGELOG.md": CHANGELOG + "\n"}

    def edit(self, rel: str, old: str, new: str) -> tuple[str | None, int]:
        """Apply an edit; the file before it (None: not known) and the old text's line."""
        before = self.files.get(rel)
        if before is None or old not in before:
            return before, 1
        self.files[rel] = before.replace(old, new, 1)
        return before, before[: before.index(old)].count("\n") + 1


def structured_patch(old: str, new: str, start: int) -> list[dict[str, Any]]:
    """Edit's ``structuredPatch``: the hunks of old -> new, numbered from ``start``."""
    a, b = old.split("\n"), new.split("\n")
    hunks: list[dict[str, Any]] = []
    for group in difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(3):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                lines += [" " + line for line in a[a1:a2]]
                continue
            lines += ["-" + line for line in a[a1:a2]]
            lines += ["+" + line for line in b[b1:b2]]
        hunks.append(
            {
                "oldStart": start + i1,
                "oldLines": i2 - i1,
                "newStart": start + j1,
                "newLines": j2 - j1,
                "lines": lines,
            }
        )
    return hunks


_NUMBERED = re.compile(r"^\s*(\d+)(?:  (.*))?$")


def read_result(use: Use, output: str) -> tuple[str, dict[str, Any]]:
    """Read's answer: the lines numbered ``cat -n`` style, and the file it read."""
    lines = output.split("\n")
    matches = [_NUMBERED.match(line) for line in lines]
    if all(matches):
        start = int(matches[0].group(1)) if matches[0] else 1
        texts = [m.group(2) or "" for m in matches if m]
    else:
        start, texts = 1, lines
    shown = "\n".join(f"{start + i:>6}\u2192{text}" for i, text in enumerate(texts))
    total = max(FILE_LINES.get(use.rel, len(texts)), start + len(texts) - 1)
    file = {
        "filePath": use.input["file_path"],
        "content": "\n".join(texts),
        "numLines": len(texts),
        "startLine": start,
        "totalLines": total,
    }
    return shown, {"type": "text", "file": file}


def bash_result(output: str) -> tuple[str, Any, bool]:
    """Bash's answer from the story's output (its ``$ command`` echo dropped).

    pytest exits 1 when a test fails, and Claude Code reports any non-zero exit as a
    failed call: the result says ``Exit code 1`` and toolUseResult is the error string.
    """
    stdout = output.split("\n", 1)[1] if output.startswith("$ ") else output
    if re.search(r"^\d+ failed", stdout, re.MULTILINE):
        return f"Exit code 1\n{stdout}", f"Error: Exit code 1\n{stdout}", True
    detail = {
        "stdout": stdout,
        "stderr": "",
        "interrupted": False,
        "isImage": False,
        "noOutputExpected": False,
    }
    return stdout, detail, False


def edit_result(
    use: Use, tree: WorkingTree, failed: bool
) -> tuple[str, Any, bool, list[dict[str, Any]] | None]:
    """Edit's answer: the update, or Claude Code's "String to replace not found"."""
    old, new = use.input["old_string"], use.input["new_string"]
    if failed:
        why = f"String to replace not found in file.\nString: {old}"
        return f"<tool_use_error>{why}</tool_use_error>", f"Error: {why}", True, None
    before, start = tree.edit(use.rel, old, new)
    patch = structured_patch(old, new, start)
    detail = {
        "filePath": use.input["file_path"],
        "oldString": old,
        "newString": new,
        "originalFile": before,
        "structuredPatch": patch,
        "userModified": False,
        "replaceAll": False,
    }
    text = f"The file {use.input['file_path']} has been updated successfully."
    return text, detail, False, patch


def fetch_result(use: Use, output: str) -> tuple[str, Any, bool]:
    """WebFetch gave up: Claude Code's error string (the story's says why)."""
    host = re.sub(r"^https?://([^/]+).*$", r"\1", str(use.input["url"]))
    why = f"Request to {host} timed out after 30000ms ({output.split(':', 1)[-1].strip()})"
    return f"<tool_use_error>{why}</tool_use_error>", f"Error: {why}", True


def progress_output(use: Use, elapsed: float, verbose_lines: list[str]) -> list[str]:
    """What a running pytest has printed ``elapsed`` demo seconds in (growing)."""
    if "-v" in str(use.input.get("command", "")).split():
        shown = min(len(verbose_lines) - 1, 6 + int(elapsed * 90))
        return verbose_lines[:shown]
    done = min(213, int(elapsed * 110))
    rows = []
    for row in range(0, done, 72):
        n = min(72, done - row)
        rows.append("." * n + " " * (72 - n) + f" [{(row + n) * 100 // 214:3d}%]")
    return rows


class Lines:
    """An append-only JSONL file: one write and a flush a line (what a live reader sees)."""

    def __init__(self, path: str) -> None:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        self.fh = open(path, "ab")  # noqa: SIM115 (held open for the whole run)

    def write(self, record: dict[str, Any]) -> None:
        self.fh.write(dumps(record) + b"\n")
        self.fh.flush()

    def close(self) -> None:
        self.fh.close()


def dumps(record: dict[str, Any]) -> bytes:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()
