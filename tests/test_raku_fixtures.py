"""Interop with the reference: files written by the real LLM::Agent::Session (0.6.1, under
Rakudo 2022.12), with what its own ``peek`` and ``load`` returned for each
(tests/fixtures/raku/README.md, copied from shared/fixtures/raku/).

- Read by tailscope, each file gives exactly the reference's messages, ids, grants,
  operations, run contexts, events and warnings, and is left byte-for-byte as it was.
- Written again through this project's writer (the same calls, in the same order), the
  file replays to the same state: the writer is checked against the reference's reading,
  not against itself.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from session_core import Message, Session, peek
from session_core.message import MESSAGE_KEYS, message_from_payload

FIXTURES = Path(__file__).parent / "fixtures" / "raku"
NAMES = sorted(p.name.removesuffix(".jsonl") for p in FIXTURES.glob("*.jsonl"))


def test_the_three_reference_files_are_here() -> None:
    assert NAMES == ["t01-messages", "t05-tool-operations", "t06-run-context"]


def expected(name: str) -> dict[str, Any]:
    return orjson.loads((FIXTURES / f"{name}.expected.json").read_bytes())  # type: ignore[no-any-return]


# The optional message keys at their defaults: the reference reports every key, a
# payload (``to_payload``) only those set.
UNSET: dict[str, Any] = {
    "depth": None,
    "sticky": False,
    "sysprompt": False,
    "tool-call-id": None,
    "tool-calls": [],
}


def as_reference(message: Message) -> dict[str, Any]:
    """A message in the shape the reference reported it."""
    return UNSET | message.to_payload()


@pytest.fixture(params=NAMES)
def name(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def copy(name: str, tmp_path: Path) -> Path:
    target = tmp_path / f"{name}.jsonl"
    shutil.copyfile(FIXTURES / f"{name}.jsonl", target)
    want = expected(name)
    assert target.stat().st_size == want["input-size"]
    assert hashlib.sha256(target.read_bytes()).hexdigest() == want["input-sha256"]
    return target


def test_peek_matches_the_reference(name: str, copy: Path) -> None:
    want = expected(name)["peek"]
    got = peek(copy)
    assert got.error is None and want["error"] is None
    assert len(got.envelopes) == want["envelopes-count"]
    assert [e["type"] for e in got.envelopes] == want["envelope-types"]
    assert [e["id"] for e in got.envelopes] == want["envelope-ids"]
    assert [as_reference(m) for m in got.messages] == want["messages"]
    assert len(got.messages) == want["messages-count"]
    assert got.meta == want["meta"]
    assert got.warnings == want["warnings"]
    assert got.size == want["size"]


def check_load(s: Session, want: dict[str, Any]) -> None:
    assert [as_reference(m) for m in s.messages()] == want["messages"]
    assert s.meta() == want["meta"]
    assert s.grants() == want["grants"]
    assert s.pending_tool_operations() == want["pending-tool-operations"]
    assert s.run_contexts() == want["run-contexts"]
    assert s.last_run_context() == want["last-run-context"]
    for digest, text in want["run-context-section"].items():
        assert s.run_context_section(digest) == text, digest
    assert s.warnings() == want["warnings"]
    assert len(s.warnings()) == want["warnings-count"]
    assert len(s) == want["elems"]


def test_load_matches_the_reference(name: str, copy: Path) -> None:
    want = expected(name)["load"]
    with Session.load(copy) as s:
        check_load(s, want)
        assert s.message_ids() == want["message-ids"]
        assert [e["type"] for e in s.events()] == want["event-types"]
        assert s.events() == want["events"]
    assert not want["file-changed"] and not want["died"]
    assert copy.stat().st_size == want["after-size"]
    assert hashlib.sha256(copy.read_bytes()).hexdigest() == want["after-sha256"]
    assert not Path(f"{copy}.repair").exists()


def fields(payload: dict[str, Any], *keys: str) -> dict[str, Any]:
    """The payload's optional ``keys`` as a writer's keyword arguments (None when absent)."""
    return {key.replace("-", "_"): payload.get(key) for key in keys}


def rewrite(events: list[dict[str, Any]], target: Path) -> dict[str, str]:
    """The reference's calls, made again through this project's writer; returns the
    reference's ids mapped to the new ones."""
    ids: dict[str, str] = {}
    sections: dict[str, str] = {}  # a section's digest -> its rendered text
    first, *rest = events
    assert first["type"] == "session-meta"
    with Session.create(target, meta=first["payload"]) as s:
        ids[first["id"]] = s.state.events[0]["id"] if s.state.events else first["id"]
        for event in rest:
            kind, p = event["type"], event["payload"]
            if kind == "message":
                extra = {k: v for k, v in p.items() if k not in MESSAGE_KEYS}
                new = s.append_message(message_from_payload(p), extra=extra or None)
            elif kind == "tool-dispatched":
                optional = fields(p, "arguments-digest", "idempotency", "run-id", "round")
                new = s.append_tool_dispatched(p["call-id"], p["tool"], p["arguments"], **optional)
            elif kind == "tool-settled":
                optional = fields(p, "reason", "duration", "result-digest", "artifact", "error")
                new = s.append_tool_settled(ids[p["op-id"]], p["outcome"], **optional)
            elif kind == "compaction":
                new = s.append_compaction(
                    p["summary"],
                    ids[p["replaces-through-id"]],
                    tokens_before=p.get("tokens-before"),
                    tokens_after=p.get("tokens-after"),
                    fallback=p.get("fallback", False),
                )
            elif kind == "run-context":
                for section in p["sections"]:
                    if "rendered" in section:
                        sections[section["digest"]] = section["rendered"]
                new = s.append_run_context(
                    p["run-id"],
                    p["digest"],
                    facts=p["facts"],
                    sections=[
                        {
                            "name": x["name"],
                            "digest": x["digest"],
                            "rendered": sections[x["digest"]],
                        }
                        for x in p["sections"]
                    ],
                )
            else:
                raise AssertionError(f"no writer call for a {kind!r} line")
            ids[event["id"]] = new
    return ids


def renamed(value: Any, ids: dict[str, str]) -> Any:
    """``value`` with every reference id (as a whole string) replaced by the new one."""
    if isinstance(value, dict):
        return {k: renamed(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [renamed(v, ids) for v in value]
    return ids.get(value, value) if isinstance(value, str) else value


def untimed(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records without the writer's own times (``ts``, ``dispatched-at``)."""
    return [{k: v for k, v in r.items() if k not in ("ts", "dispatched-at")} for r in records]


def test_the_writer_replays_the_same_calls_identically(name: str, tmp_path: Path) -> None:
    ours = tmp_path / "ours.jsonl"
    ids = rewrite(expected(name)["load"]["events"], ours)
    want = renamed(expected(name)["load"], ids)
    with Session.load(ours) as s:
        # the times are the writer's own; everything else is what the reference read
        assert untimed(s.pending_tool_operations()) == untimed(want["pending-tool-operations"])
        assert untimed(s.run_contexts()) == untimed(want["run-contexts"])
        last = s.last_run_context()
        assert untimed([last] if last else []) == untimed(
            [want["last-run-context"]] if want["last-run-context"] else []
        )
        for key in ("pending-tool-operations", "run-contexts", "last-run-context"):
            want[key] = getattr(s, key.replace("-", "_"))()
        check_load(s, want)
        assert s.message_ids() == want["message-ids"]
        assert [(e["type"], e["payload"]) for e in s.events()] == [
            (e["type"], e["payload"]) for e in want["events"]
        ]
