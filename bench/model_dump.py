"""A file's neutral model, dumped whole, to compare two builds' readers byte for byte.

    python bench/model_dump.py FILE OUT [--format NAME] [--live] [--snapshots N]

Any registered format (``--format``, or the one that claims FILE's first line). Writes
everything the model holds: its meta, every raw item and every replayed item (all
their fields, each part's fields, lazy parts read again), every tool operation,
compaction and run (a run's context and usage), the usage, the subagents, the warnings
and the format's own keys. Codex's dump is one JSON document (``_whole``: chosen
fields, usages with their ``repr``, ``to_json()`` too); every other format's is a JSON
line per thing (``_lines``: every dataclass field). ``--live`` reads the file as the
viewer does (``follow``'s raw batches applied to ``fmt.live(path)``, ``--snapshots``
snapshots taken along the way, the last one dumped) instead of ``fmt.open``. Run it
with each build (``PYTHONPATH=... python -P``) and ``cmp`` the outputs.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS
_ABSENT = object()


def _dumps(value: Any) -> bytes:
    """``value`` as JSON; an int orjson will not write (past 64 bits, which a hostile
    file's counts may be) written as its digits all the same."""
    try:
        return orjson.dumps(value, option=_OPTIONS, default=repr)
    except TypeError as err:
        if "64-bit" not in str(err):
            raise
        return orjson.dumps(_digits(value), option=_OPTIONS, default=repr)


def _digits(value: Any) -> Any:
    """``value`` with each int past orjson's range as a fragment of its digits."""
    if type(value) is int and not -(1 << 63) <= value < 1 << 64:
        return orjson.Fragment(str(value).encode())
    if isinstance(value, dict):
        return {(str(k) if type(k) is int else k): _digits(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_digits(v) for v in value]
    return value


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # A field some format's subclass does without (v1's and AgentGo's ops) is left out.
        got = ((f.name, getattr(value, f.name, _ABSENT)) for f in dataclasses.fields(value))
        return {name: _plain(v) for name, v in got if v is not _ABSENT}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


_PART_FIELDS = ("kind", "text", "call_id", "name", "data", "is_error")


def _picked(value: Any, names: tuple[str, ...]) -> dict[str, Any]:
    """``value``'s attributes ``names`` (a lazy part's read again), in that order."""
    return {name: getattr(value, name) for name in names}


def _lines_item(item: Any) -> dict[str, Any]:
    out = {f.name: getattr(item, f.name) for f in dataclasses.fields(item) if f.name != "parts"}
    out["usage"] = _plain(item.usage)
    out["parts"] = [
        {"type": type(p).__name__ != "Part"} | _picked(p, _PART_FIELDS) for p in item.parts
    ]
    return out


def _lines(t: Any, out: IO[bytes]) -> None:
    """A JSON line per thing, ``[kind, value]``, every dataclass field."""

    def put(kind: str, value: Any) -> None:
        out.write(_dumps([kind, value]))
        out.write(b"\n")

    put("meta", _plain(t.meta))
    put("lines", t.lines)
    put("writer_alive", t.writer_alive)
    for item in t.raw:
        put("raw", _lines_item(item))
    for item in t.messages:
        put("message", _lines_item(item))
    for op in t.tool_operations:
        put("op", _plain(op))
    for c in t.compactions:  # (their id lists may be sequences of their own: listed)
        put("compaction", _plain(dataclasses.replace(c, folded=list(c.folded), kept=list(c.kept))))
    for run in t.runs:
        put("run", _plain(run))
    put("usage", _plain(t.usage))
    put("subagents", _plain(t.subagents))
    put("warnings", list(t.warnings))
    put("extra", _plain(t.extra))


def _usage(usage: Any) -> Any:
    return None if usage is None else usage.to_json() | {"repr": repr(usage)}


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


def _whole_item(item: Any) -> dict[str, Any]:
    return {
        "id": item.id,
        "role": item.role,
        "parts": [_picked(p, _PART_FIELDS) for p in item.parts],
        "line": item.line,
        "kind": item.kind,
        "ts": item.ts,
        "model": item.model,
        "usage": _usage(item.usage),
        "marks": list(item.marks),
        "sticky": item.sticky,
        "lines": item.lines,
    }


def _whole_run(run: Any) -> dict[str, Any]:
    out = {f.name: getattr(run, f.name) for f in dataclasses.fields(run)}
    out["usage"] = _usage(run.usage)
    context = run.context
    out["context"] = (
        None
        if context is None
        else {"facts": context.facts, "sections": context.sections, "line": context.line}
    )
    return out


def _whole(t: Any, out: IO[bytes]) -> None:
    """One JSON document: chosen fields, usages with their ``repr``, ``to_json()``."""
    doc = {
        "format": t.format,
        "meta": t.meta,
        "messages": [_whole_item(i) for i in t.messages],
        "raw": [_whole_item(i) for i in t.raw],
        "ops": [_picked(op, _OP_FIELDS) for op in t.tool_operations],
        "compactions": [  # (their id lists may be sequences of their own: listed)
            dataclasses.asdict(dataclasses.replace(c, folded=list(c.folded), kept=list(c.kept)))
            for c in t.compactions
        ],
        "runs": [_whole_run(r) for r in t.runs],
        "usage": _usage(t.usage),
        "subagents": [dataclasses.asdict(s) for s in t.subagents],
        "warnings": t.warnings,
        "lines": t.lines,
        "extra": t.extra,
        "json": t.to_json(),
    }
    out.write(_dumps(doc))


LAYOUTS: dict[str, Callable[[Any, IO[bytes]], None]] = {"codex": _whole}


def format_name(path: str, name: str | None) -> str:
    """``name``, or the format that claims the file's first line (exits if none does)."""
    if name is not None:
        return name
    from session_core.formats import detect_format

    found = detect_format(path)
    if found is None:
        sys.exit(f"{path}: no format claims it; name one with --format")
    return found


def batches(path: str) -> Iterator[Any]:
    """``follow``'s raw batches of the whole file, as the viewer's worker reads them."""
    from session_core.following import MAX_BATCH_BYTES
    from session_core.tail_reader import TailReader

    tail = TailReader(os.path.abspath(path), parse=False)
    try:
        while (update := tail.step(MAX_BATCH_BYTES)) is not None:
            yield update
            if update.caught_up:
                break
    finally:
        tail.close()


def live(path: str, name: str, snapshots: int) -> Any:
    """The file fed to ``fmt.live(path)``, ``snapshots`` snapshots along the way."""
    from session_core.formats import by_name

    model = by_name(name).live(path)
    every = os.path.getsize(path) // (snapshots + 1) if snapshots else 0
    next_at = every
    for update in batches(path):
        model.apply(update)
        if every and update.offset >= next_at and not update.caught_up:
            model.transcript(writer_alive=False)
            next_at += every
    return model.transcript(writer_alive=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("out")
    parser.add_argument("--format", help="a registered format's name (default: detected)")
    parser.add_argument("--live", action="store_true", help="read it as the viewer does")
    parser.add_argument("--snapshots", type=int, default=3, help="with --live (default 3)")
    args = parser.parse_args(argv)
    name = format_name(args.file, args.format)
    gc.disable()
    if args.live:
        t = live(args.file, name, args.snapshots)
    else:
        from session_core.formats import by_name

        t = by_name(name).open(args.file, writer_alive=False)
    with open(args.out, "wb") as out:
        LAYOUTS.get(name, _lines)(t, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
