"""Everything a Codex rollout reads as, dumped to JSON: to compare two builds' reading.

    python bench/codex_dump.py FILE OUT [--live]

Every field of every item (replayed view and raw view, parts whole), operation, run
(its context and usage), compaction, the usage, meta, warnings and the format's own
keys. ``--live`` reads it as the viewer does (``follow``'s raw batches into
``fmt.live(path)``, one snapshot at the end) instead of ``open_transcript``. Run it
with another build on ``PYTHONPATH`` (``python -P``) and ``cmp`` the two outputs.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

import orjson


def _part(part: Any) -> dict[str, Any]:
    return {
        "kind": part.kind,
        "text": part.text,
        "call_id": part.call_id,
        "name": part.name,
        "data": part.data,
        "is_error": part.is_error,
    }


def _usage(usage: Any) -> Any:
    return None if usage is None else usage.to_json() | {"repr": repr(usage)}


def _item(item: Any) -> dict[str, Any]:
    return {
        "id": item.id,
        "role": item.role,
        "parts": [_part(p) for p in item.parts],
        "line": item.line,
        "kind": item.kind,
        "ts": item.ts,
        "model": item.model,
        "usage": _usage(item.usage),
        "marks": list(item.marks),
        "sticky": item.sticky,
        "lines": item.lines,
    }


_OP_FIELDS = (
    "call_id",
    "tool",
    "state",
    "arguments",
    "result",
    "detail",
    "line",
    "result_line",
    "run_id",
    "message_id",
    "progress",
    "subagent",
    "sidechain",
    "started",
    "ended",
    "duration",
)


def _op(op: Any) -> dict[str, Any]:
    return {name: getattr(op, name) for name in _OP_FIELDS}


def _run(run: Any) -> dict[str, Any]:
    out = {f.name: getattr(run, f.name) for f in dataclasses.fields(run)}
    out["usage"] = _usage(run.usage)
    context = run.context
    out["context"] = (
        None
        if context is None
        else {"facts": context.facts, "sections": context.sections, "line": context.line}
    )
    return out


def dump(transcript: Any) -> dict[str, Any]:
    return {
        "format": transcript.format,
        "meta": transcript.meta,
        "messages": [_item(i) for i in transcript.messages],
        "raw": [_item(i) for i in transcript.raw],
        "ops": [_op(o) for o in transcript.tool_operations],
        "compactions": [dataclasses.asdict(c) for c in transcript.compactions],
        "runs": [_run(r) for r in transcript.runs],
        "usage": _usage(transcript.usage),
        "subagents": [dataclasses.asdict(s) for s in transcript.subagents],
        "warnings": transcript.warnings,
        "lines": transcript.lines,
        "extra": transcript.extra,
        "json": transcript.to_json(),
    }


def live_read(path: str) -> Any:
    from session_core.following import MAX_BATCH_BYTES, _Tail
    from session_core.formats import by_name

    live = by_name("codex").live(path)
    tail = _Tail(path, parse=False)
    try:
        while True:
            update = tail.step(MAX_BATCH_BYTES)
            if update is None:
                break
            live.apply(update)
            if update.caught_up:
                break
    finally:
        tail.close()
    return live.transcript(writer_alive=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("out")
    parser.add_argument("--live", action="store_true")
    args = parser.parse_args(argv)
    if args.live:
        transcript = live_read(args.file)
    else:
        from session_core import open_transcript

        transcript = open_transcript(args.file)
        transcript.writer_alive = None
    data = orjson.dumps(dump(transcript), option=orjson.OPT_NON_STR_KEYS, default=repr)
    with open(args.out, "wb") as fh:
        fh.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
