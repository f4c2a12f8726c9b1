"""An independent reference replay of transcript-v1 (``gen_transcript.py --check``).

It uses neither ``session_core`` nor the generator's bookkeeping (only
``gen_common``'s canonical line and digest), so that the generator, the library
and this can cross-check one another.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import orjson
from gen_common import OPTS, data_digest

_UUID4 = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
_TS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z")
_ROLES = {"system", "user", "assistant", "tool"}
_OUTCOMES = {"completed", "failed", "outcome-unknown"}
_IDEMPOTENCY = {"read-only", "idempotent", "destructive", "unknown"}


class CheckError(Exception):
    """A broken rule, the file and line named."""


def check(path: str | Path, strict: bool = True) -> dict[str, Any]:
    """Replay ``path`` with a small reference implementation of the spec's replay.

    Raises :class:`CheckError` naming the line on the first broken fatal rule. With
    ``strict`` it also checks what this generator promises beyond the fatal rules:
    byte-exact canonical lines, uuid4 ids, increasing ts, digests, the section
    dedup rule, and that tool messages and dispatches name a call the model made.
    Returns the expected replayed view in summary form (counts, live ids, pending ops).
    """
    live: list[tuple[str, bool]] = []  # (id, sticky)
    live_pos: dict[str, int] = {}
    ops: dict[str, dict[str, Any]] = {}  # op-id -> record
    op_order: list[str] = []
    seen_ids: set[str] = set()
    calls_made: set[str] = set()
    tool_result: dict[str, str] = {}  # call-id -> content
    carriers: dict[str, str] = {}  # digest -> first carrier id
    run_contexts = 0
    grants: Any = None
    events = 0
    counts: dict[str, int] = {}
    last_ts = ""
    n = 0
    meta: Any = None

    def fail(msg: str) -> None:
        raise CheckError(f"{path}: line {n}: {msg}")

    def reindex() -> None:
        live_pos.clear()
        live_pos.update((mid, i) for i, (mid, _) in enumerate(live))

    with open(path, "rb") as f:
        for raw in f:
            n += 1
            if not raw.strip():
                continue
            if not raw.endswith(b"\n"):
                fail("final line has no newline")
            try:
                env = orjson.loads(raw)
            except orjson.JSONDecodeError as e:
                fail(f"not JSON: {e}")
            if not isinstance(env, dict):
                fail("not an object")
            if env.get("v") != 1 or isinstance(env.get("v"), bool):
                fail(f"v is {env.get('v')!r}")
            typ = env.get("type")
            if not isinstance(typ, str) or not typ:
                fail("no string type")
            if n == 1 and typ != "session-meta":
                fail("first line is not session-meta")
            p = env.get("payload")
            eid = env.get("id")
            if strict:
                if set(env) != {"id", "payload", "ts", "type", "v"}:
                    fail(f"keys {sorted(env)}")
                if orjson.dumps(env, option=OPTS) != raw:
                    fail("line is not canonical (sorted keys, compact, one LF)")
                if not isinstance(eid, str) or not _UUID4.fullmatch(eid):
                    fail(f"id {eid!r} is not a lower-case uuid4")
                if eid in seen_ids:
                    fail(f"duplicate id {eid}")
                seen_ids.add(eid)
                ts = env.get("ts")
                if not isinstance(ts, str) or not _TS.fullmatch(ts) or ts <= last_ts:
                    fail(f"ts {ts!r} malformed or not increasing")
                last_ts = ts
            counts[typ] = counts.get(typ, 0) + 1
            if not isinstance(p, dict):
                fail("payload is not an object")

            if typ == "session-meta":
                if n != 1:
                    fail("session-meta after line 1")
                meta = p
            elif typ == "message":
                if p.get("role") not in _ROLES or not isinstance(p.get("content"), str):
                    fail("message without role/content")
                sticky = bool(p.get("sticky") or p.get("sysprompt") or "depth" in p)
                live_pos[eid] = len(live)
                live.append((eid, sticky))
                if strict:
                    for tc in p.get("tool-calls", ()):
                        if tc.get("type") != "function" or not isinstance(
                            tc.get("function", {}).get("arguments"), str
                        ):
                            fail("malformed tool call")
                        calls_made.add(tc["id"])
                    if "tool-call-id" in p:
                        if p["tool-call-id"] not in calls_made:
                            fail("tool message answers a call nobody made")
                        tool_result[p["tool-call-id"]] = p["content"]
            elif typ == "compaction":
                cut = live_pos.get(p.get("replaces-through-id"))  # type: ignore[arg-type]
                if cut is None:
                    fail(f"replaces-through-id {p.get('replaces-through-id')!r} is not live")
                if not isinstance(p.get("summary"), str) or not isinstance(p.get("fallback"), bool):
                    fail("compaction without summary/fallback")
                live[:] = [e for e in live[: cut + 1] if e[1]] + [(eid, False)] + live[cut + 1 :]
                reindex()
            elif typ == "elision":
                items = p.get("items")
                if not isinstance(items, list):
                    fail("elision without items")
                for it in items:
                    if not (
                        isinstance(it, dict)
                        and isinstance(it.get("id"), str)
                        and isinstance(it.get("stub"), str)
                    ):
                        fail("malformed elision item")
                    if it["id"] not in live_pos:
                        fail(f"elision names {it['id']}, which is not live")
            elif typ == "tool-dispatched":
                if strict:
                    if p.get("idempotency") not in _IDEMPOTENCY:
                        fail("bad idempotency")
                    if p.get("call-id") not in calls_made:
                        fail("dispatch of a call nobody made")
                    if "arguments-digest" in p and p["arguments-digest"] != data_digest(
                        p["arguments"]
                    ):
                        fail("arguments-digest does not match")
                ops[eid] = {"call-id": p.get("call-id"), "settled": False}
                op_order.append(eid)
            elif typ == "tool-settled":
                op = ops.get(p.get("op-id"))  # type: ignore[arg-type]
                if op is None:
                    fail(f"settle of unknown op {p.get('op-id')!r}")
                if op["settled"]:
                    fail(f"op {p['op-id']} settled twice")
                if p.get("outcome") not in _OUTCOMES:
                    fail(f"bad outcome {p.get('outcome')!r}")
                op["settled"] = True
                if strict and "result-digest" in p:
                    seen = tool_result.get(op["call-id"])
                    if seen is None or data_digest(seen) != p["result-digest"]:
                        fail("result-digest does not match the tool message")
            elif typ == "run-context":
                run_contexts += 1
                if strict:
                    if not p.get("run-id") or not p.get("digest"):
                        fail("run-context without run-id/digest")
                    for s in p.get("sections", ()):
                        d = s["digest"]
                        if "rendered" in s:
                            if d in carriers:
                                fail(f"section {s['name']} repeats a carried digest")
                            if data_digest([s["name"], s["rendered"]]) != d:
                                fail(f"section {s['name']} digest mismatch")
                            carriers[d] = eid
                        elif carriers.get(d) != s.get("rendered-in"):
                            fail(f"section {s['name']} rendered-in is not the first carrier")
            elif typ == "grants":
                grants = p.get("grants")
            else:
                events += 1

    if n == 0:
        raise CheckError(f"{path}: empty file")
    ids = [mid for mid, _ in live]
    pending = [o for o in op_order if not ops[o]["settled"]]
    return {
        "lines": sum(counts.values()),
        "types": dict(sorted(counts.items())),
        "meta": meta,
        "messages": len(ids),
        "message-ids-sha256": hashlib.sha256("\n".join(ids).encode()).hexdigest(),
        "last-message-id": ids[-1] if ids else None,
        "tool-operations": len(op_order),
        "pending-tool-operations": pending,
        "run-contexts": run_contexts,
        "grants": len(grants) if isinstance(grants, list) else None,
        "unknown-events": events,
    }
