"""A Claude Code file's model, dumped whole, to compare two builds' readers byte for byte.

    python bench/claude_code_dump.py FILE OUT [--live] [--snapshots N]

Writes one JSON line per thing the model holds: its meta, every raw item and every
replayed item (all their fields, each part's fields, lazy parts read again), every tool
operation, compaction and run, the usage, the subagents, the warnings and the format's
own keys. ``--live`` reads the file as the viewer does (``follow``'s raw batches applied
to ``fmt.live(path)``, ``--snapshots`` snapshots taken along the way, the last one
dumped) instead of ``fmt.open``. Run it with each build (``PYTHONPATH=... python -P``)
and ``cmp`` the outputs.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
from typing import IO, Any

import orjson

from session_core.following import MAX_BATCH_BYTES, _Tail
from session_core.formats import by_name
from session_core.model import Item, Transcript


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _item(item: Item) -> dict[str, Any]:
    out = {f.name: getattr(item, f.name) for f in dataclasses.fields(item) if f.name != "parts"}
    out["usage"] = _plain(item.usage)
    out["parts"] = [
        {
            "type": type(p).__name__ != "Part",
            "kind": p.kind,
            "text": p.text,
            "call_id": p.call_id,
            "name": p.name,
            "data": p.data,
            "is_error": p.is_error,
        }
        for p in item.parts
    ]
    return out


def dump(t: Transcript, out: IO[bytes]) -> None:
    def put(kind: str, value: Any) -> None:
        out.write(orjson.dumps([kind, value], option=orjson.OPT_NON_STR_KEYS, default=repr))
        out.write(b"\n")

    put("meta", _plain(t.meta))
    put("lines", t.lines)
    put("writer_alive", t.writer_alive)
    for item in t.raw:
        put("raw", _item(item))
    for item in t.messages:
        put("message", _item(item))
    for op in t.tool_operations:
        put("op", _plain(op))
    for c in t.compactions:
        put("compaction", _plain(c))
    for run in t.runs:
        put("run", _plain(run))
    put("usage", _plain(t.usage))
    put("subagents", _plain(t.subagents))
    put("warnings", list(t.warnings))
    put("extra", _plain(t.extra))


def live(path: str, snapshots: int) -> Transcript:
    fmt = by_name("claude-code")
    model = fmt.live(path)
    tail = _Tail(os.path.abspath(path), parse=False)
    size = os.path.getsize(path)
    every = size // (snapshots + 1) if snapshots else 0
    next_at = every
    while True:
        update = tail.step(MAX_BATCH_BYTES)
        if update is None:
            break
        model.apply(update)
        if every and update.offset >= next_at and not update.caught_up:
            model.transcript(writer_alive=False)
            next_at += every
        if update.caught_up:
            break
    tail.close()
    return model.transcript(writer_alive=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file")
    parser.add_argument("out")
    parser.add_argument("--live", action="store_true")
    parser.add_argument("--snapshots", type=int, default=3)
    args = parser.parse_args()
    gc.disable()
    if args.live:
        t = live(args.file, args.snapshots)
    else:
        t = by_name("claude-code").open(args.file, writer_alive=False)
    with open(args.out, "wb") as out:
        dump(t, out)


if __name__ == "__main__":
    main()
