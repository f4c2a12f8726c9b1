"""A Codex ``turn_context`` as a run context: its fields are facts, instructions sections."""

from __future__ import annotations

from typing import Any

import orjson

from ...model import RunContext
from .tools import compact

SECTION_KEYS = ("base_instructions", "developer_instructions", "user_instructions")
OWN_FACTS = ("turn_id",)  # each turn's own: it differs every turn and says nothing changed


def run_context(payload: dict[str, Any], line: int) -> RunContext:
    facts: list[tuple[str, str]] = []
    sections: list[tuple[str, str]] = []
    for key, value in payload.items():
        if key in SECTION_KEYS:
            continue
        facts.append((str(key), value if isinstance(value, str) else compact(value)))
    for key in SECTION_KEYS:
        if key in payload:
            sections.append((key, section_text(payload[key])))
    return RunContext(facts=facts, sections=sections, line=line, own_facts=OWN_FACTS)


def context_key(payload: dict[str, Any]) -> int:
    """What tells one context from another: its compact JSON's hash (of its UTF-8, not of
    a text that may take four bytes a character)."""
    try:
        return hash(orjson.dumps(payload))
    except (TypeError, orjson.JSONEncodeError):
        return hash(compact(payload))


def section_text(value: Any) -> str:
    """Instructions as written: a string, or ``{text}`` (older: a bare string)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return str(value["text"])
    return compact(value)


def changed(previous: RunContext | None, current: RunContext) -> list[str]:
    """The facts and sections whose values differ from the previous context's (all at first).

    Its own facts (``OWN_FACTS``) are left out: they differ every turn and say nothing
    changed.
    """
    if previous is None:
        names = [k for k, _ in current.facts] + [k for k, _ in current.sections]
        return [n for n in names if n not in current.own_facts]
    before = dict(previous.facts) | {f"section:{k}": v for k, v in previous.sections}
    after = dict(current.facts) | {f"section:{k}": v for k, v in current.sections}
    for name in current.own_facts:
        before.pop(name, None)
        after.pop(name, None)
    names = [k for k, v in after.items() if before.get(k) != v]
    names += [k for k in before if k not in after]
    return [n.removeprefix("section:") for n in names]


def turn_id_and_model(payload: dict[str, Any]) -> tuple[str | None, str | None]:
    turn = payload.get("turn_id")
    model = payload.get("model")
    return (turn if isinstance(turn, str) else None, model if isinstance(model, str) else None)


__all__ = [
    "SECTION_KEYS",
    "changed",
    "context_key",
    "run_context",
    "section_text",
    "turn_id_and_model",
]
