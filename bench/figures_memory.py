"""memory: the viewer's RSS after a headless load, split by structure, beside the same
app on a two-line file."""

from __future__ import annotations

import array
import contextlib
import gc
import sys
import tempfile
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
from figures_common import HEIGHT, WIDTH, child, current_rss, mb1, peak_rss
from gen_common import OPTS
from open_big import marked_transcript, replayed
from sanity import Figures

MEMORY_KINDS = ("viewer-memory", "viewer-baseline")


def _deep(
    roots: list[tuple[str, Any]], ids: Any, skip: Callable[[Any], bool]
) -> tuple[dict[str, int], dict[str, int]]:
    """Bytes by root (first to reach an object owns it) and by kind of object; what the
    line ids (``ids``: packed, ``session_core.packed_ids``) hold counts as "ids"."""
    by_root: dict[str, int] = {}
    by_kind: dict[str, int] = {}
    seen: set[int] = set()
    get_referents = gc.get_referents
    sizeof = sys.getsizeof
    for name, root in roots:
        total = 0
        packed = root is ids
        stack = [root]
        while stack:
            obj = stack.pop()
            key = id(obj)
            if key in seen or skip(obj):
                continue
            seen.add(key)
            size = sizeof(obj)
            total += size
            t = type(obj)
            if packed:
                kind = "ids (packed)"
            elif t is str:
                kind = "strings"
            elif t is dict:
                kind = "dicts"
            elif t is array.array:
                kind = "arrays (per-line columns)"
            elif t is list:
                kind = "lists (pointer columns, entries)"
            elif t is tuple:
                kind = "tuples (entries, spans)"
            elif t in (int, float):
                kind = "numbers"
            elif t in (bytes, bytearray, memoryview):
                kind = "bytes"
            else:
                kind = "other objects"
            by_kind[kind] = by_kind.get(kind, 0) + size
            if t not in (str, int, float, bytes, array.array):
                stack.extend(get_referents(obj))
        by_root[name] = total
    return by_root, by_kind


def _attrs(prefix: str, obj: Any) -> Iterator[tuple[str, Any]]:
    names = list(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        names.extend(getattr(cls, "__slots__", ()))
    for name in names:
        with contextlib.suppress(AttributeError):
            yield f"{prefix}.{name}", getattr(obj, name)


async def memory_child(kind: str, path: Path, lines: int, timeout: float) -> dict[str, Any]:
    from textual.message_pump import MessagePump

    from viewer.app import TailscopeApp

    app = TailscopeApp(path)
    async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
        await replayed(app, pilot, lines, timeout)
        await pilot.pause(0.5)
        gc.collect()
        rss = current_rss()
        if kind == "viewer-baseline":
            return {"rss": rss, "peak": peak_rss()}
        screen = app.file_screen
        state = screen.live.replay.state
        model = screen.live._model  # v1's neutral model beside the replay
        ids = state.events.ids  # (packed: the first root, so that it owns its buffers)
        skip_types = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                      types.MethodType, types.CodeType, types.FrameType)  # fmt: skip

        def skip(obj: Any) -> bool:
            return isinstance(obj, (*skip_types, MessagePump))

        roots = [
            ("state.events.ids", ids),
            *_attrs("state.events", state.events),
            *_attrs("state.events.facts", state.events.facts),
            *_attrs("state.tool_ops", state.tool_ops),
            *_attrs("state", state),
            *_attrs("model", model),
            *_attrs("snapshot", screen.transcript),
            *_attrs("conversation", screen.conversation),
        ]
        by_root, by_kind = _deep(roots, ids, skip)
    return {"rss": rss, "peak": peak_rss(), "by_root": by_root, "by_kind": by_kind,
            "ids": len(ids), "lines": len(state.event_lines)}  # fmt: skip


def figure_memory(size: str, data_dir: Path, timeout: float, figures: Figures) -> None:
    path, _marker, lines = marked_transcript(data_dir, size)
    with tempfile.TemporaryDirectory(prefix="figures-memory-") as directory:
        tiny = Path(directory) / "tiny.jsonl"
        meta = {"id": "m", "payload": {}, "ts": "2026-08-09T12:00:00.000000Z",
                "type": "session-meta", "v": 1}  # fmt: skip
        message = {**meta, "id": "a", "type": "message",
                   "payload": {"role": "user", "content": "hello"}}  # fmt: skip
        tiny.write_bytes(orjson.dumps(meta, option=OPTS) + orjson.dumps(message, option=OPTS))
        base = child("viewer-baseline", str(tiny), "2", str(timeout), timeout=timeout + 60)
    run = child("viewer-memory", str(path), str(lines), str(timeout), timeout=timeout + 300)
    file_size = path.stat().st_size
    print(f"## The viewer's memory at {size} ({lines:,} lines), after a headless load\n")
    print(f"RSS after the load {mb1(run['rss'])} (peak {mb1(run['peak'])}, "
          f"{run['peak'] / file_size:.0%} of the file); the same app on a two-line file: "
          f"{mb1(base['rss'])} (Python and Textual themselves).\n")  # fmt: skip
    print("| kind of object (from the state, the model, the snapshot, the view) | size |")
    print("|---|---:|")
    kinds = sorted(run["by_kind"].items(), key=lambda kv: -kv[1])
    for kind, nbytes in kinds:
        print(f"| {kind} | {mb1(nbytes)} |")
    counted = sum(run["by_kind"].values())
    print(f"| **all of them** | {mb1(counted)} |")
    print("\n| structure (first to reach an object owns it) | size |")
    print("|---|---:|")
    for name, nbytes in sorted(run["by_root"].items(), key=lambda kv: -kv[1])[:16]:
        print(f"| `{name}` | {mb1(nbytes)} |")
    other = run["rss"] - counted - base["rss"]
    print(
        f"\n* RSS {mb1(run['rss'])} = Python and Textual {mb1(base['rss'])} + these structures "
        f"{mb1(counted)} + {mb1(other)} not reached from them (allocator slack, caches, the "
        "widgets' own state)."
    )
    by_kind = run["by_kind"]
    dicts = by_kind.get("dicts", 0)
    columns = by_kind.get("arrays (per-line columns)", 0) + by_kind.get(
        "lists (pointer columns, entries)", 0
    )
    compactions = run["by_root"].get("state.compactions", 0)
    print(
        f"* ids {mb1(by_kind.get('ids (packed)', 0))} ({run['ids']:,}, packed), dicts "
        f"{mb1(dicts)}, per-line columns (arrays and lists) {mb1(columns)}, compaction records "
        f"{mb1(compactions)}, Python and Textual {mb1(base['rss'])}. performance.md (1 GB, "
        "before ids were packed): ids 57 MB, "
        "dicts by id about 35 MB, per-line columns about 45 MB, Python and Textual about 60 MB."
    )
    figures.true(f"the viewer replayed {run['lines']:,} of {lines:,} lines", run["lines"] == lines)
    figures.true(f"{run['ids']:,} ids for {lines:,} lines", 0 < run["ids"] <= lines)
    figures.positive("the packed ids", by_kind.get("ids (packed)"))
    figures.true(
        f"the structures ({mb1(counted)}) exceed the whole RSS ({mb1(run['rss'])})",
        counted < run["rss"],
    )
    figures.true(
        f"the baseline ({mb1(base['rss'])}) exceeds the loaded app's RSS ({mb1(run['rss'])})",
        base["rss"] < run["rss"],
    )
