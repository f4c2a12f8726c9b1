"""What ``facts.FactsColumn`` keeps of message lines reads back as ``message_facts`` says:
usage numbers in int32 columns (a count past them kept as it is), where a line's texts
and usage row start as a byte a line (one that does not fit kept whole)."""

from __future__ import annotations

import random

import pytest

from session_core.events import Events
from session_core.facts import message_facts, payload_fields


@pytest.mark.parametrize(
    "tokens",
    [0, 1, 2**31 - 1, 2**31, -(2**31), -(2**31) + 1, 2**40, -(2**40), None],
)
def test_usage_numbers_read_back_as_given(tokens: int | None) -> None:
    events = Events()
    payloads = [
        {"role": "assistant", "content": "a", "usage": {"prompt-tokens": tokens, "cost": 0.5}},
        {"role": "assistant", "content": "b", "usage": {"completion-tokens": 7}},
        {"role": "user", "content": "c"},
    ]
    for n, payload in enumerate(payloads):
        envelope = {"v": 1, "type": "message", "id": f"m{n}", "payload": payload}
        events.append(envelope, "message", f"m{n}", payload_fields(payload, None))
    for n, payload in enumerate(payloads):
        assert events.facts.usage(n) == message_facts(payload).usage
        assert events.facts[n] == message_facts(payload)
    # (a negative count is no count: unknown, as every reader takes it)
    want = tokens if tokens is None or tokens >= 0 else None
    assert events.facts.usage(0).input == want  # type: ignore[union-attr]


def _payload(n: int, calls: int) -> dict[str, object]:
    """Message ``n``: an assistant line with ``calls`` tool calls, or a tool's answer."""
    if n % 3 == 2:
        return {"role": "tool", "tool-call-id": f"call_{n - 1}_0", "content": "done"}
    return {
        "role": "assistant",
        "content": f"step {n}",
        "tool-calls": [
            {"id": f"call_{n}_{k}", "type": "function", "function": {"name": f"t{k % 3}"}}
            for k in range(calls)
        ],
        "usage": {"prompt-tokens": n, "completion-tokens": 2 * n},
    }


@pytest.mark.parametrize("lazy", [False, True])
def test_facts_of_lines_with_many_texts_taken_in_any_order(lazy: bool) -> None:
    # Lines of 0 to 150 calls (a block of 32 lines holds far more than 255 texts), with
    # lines of other types between; taken as fed, or each when first asked for in a
    # shuffled order (then most start far from their block's).
    rng = random.Random(7)
    events = Events()
    payloads: dict[int, dict[str, object]] = {}
    for n in range(300):
        if n % 5 == 4:
            events.append({"v": 1, "type": "x-note", "id": f"x{n}", "payload": {}}, "x-note", "x")
            continue
        payload = _payload(n, rng.choice([0, 1, 2, 150]))
        payloads[n] = payload
        envelope = {"v": 1, "type": "message", "id": f"m{n}", "payload": payload}
        events.append(envelope, "message", f"m{n}", None if lazy else payload_fields(payload, None))
    order = list(payloads)
    rng.shuffle(order)
    for n in order:
        assert events.facts[n] == message_facts(payloads[n])
    for n in range(300):
        if n not in payloads:
            assert events.facts[n] is None
    assert events.facts.call_texts(order)[2] == [
        cid for n in order for cid, _name in message_facts(payloads[n]).calls
    ]
