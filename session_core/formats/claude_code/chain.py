"""The chain of a Claude Code session as an assembly found it, and the next built on it.

``recover`` makes the walked chain whole (what parallel tool calls leave beside it);
``Chain`` is what an assembly made of it; ``grown``, ``unchanged`` and ``taken`` let the
next assembly of a followed file build on that where the new lines only extend it.
"""

from __future__ import annotations

import itertools
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .builder import META
from .threading import ASSISTANT, USER

if TYPE_CHECKING:
    from .builder import ClaudeCodeBuilder


def recover(
    b: ClaudeCodeBuilder,
    chain: Sequence[int],
    on: bytearray | None = None,
    before: bytes = b"",
) -> bytearray:
    """A walked chain, with what parallel tool calls leave beside it.

    One response split over lines A1 → A2 → A3 has its results answer A1, A2 and A3
    each, and the next line continues from one of them only: the chain walked back
    from the leaf misses the other split lines and results. Every line of a response
    on the chain is on it, and so is the first result answering each of its calls.
    A byte per node (1: on it): a chain can be most of a file's hundreds of thousands.
    Given ``on``, the chain's nodes are marked there (as well). Each response is walked
    once for each side it is reached from (a response split over thousands of lines has
    thousands on the chain: walked for each, that was quadratic). ``before``: the last
    assembly's, whose responses on it (their first node is: a response's lines are all
    of one side) are not walked again: their later lines and answers are the caller's
    (``grown``: a followed response split over thousands of lines was walked whole for
    each snapshot, quadratic again).
    """
    if on is None:
        on = bytearray(len(b.threads))
    for node in chain:
        on[node] = 1
    side, kinds = b.threads.side, b.threads.kind
    node_raw, raw_node, results = b.node_raw, b.raw_node, b.calls.result
    responses = b.responses
    # (the responses' lists walked inline: this runs for every node of a long chain)
    items, nodes, calls = responses.raw, responses.nodes, responses.calls
    first_node, next_node, first_call, next_call = nodes.first, nodes.next, calls.first, calls.next
    count = len(items)
    # Per response, the sides it was walked from (bit 1: the main side, 2: a sidechain):
    # what it marks depends on nothing else.
    walked = bytearray(count)
    for node in chain:
        if kinds[node] != ASSISTANT:
            continue
        item = node_raw[node]
        response = bisect_left(items, item)  # (``Responses.of_raw``)
        if response == count or items[response] != item:
            continue
        from_side = 1 << side[node]
        if walked[response] & from_side:
            continue
        walked[response] |= from_side
        other = first_node[response]
        if 0 <= other < len(before) and before[other]:
            continue  # (walked by the last assembly)
        while other >= 0:
            on[other] = 1
            other = next_node[other]
        at = first_call[response]
        while at >= 0:
            result = results[at]
            answer = raw_node[result] if result >= 0 else -1  # (its line's node)
            if answer >= 0 and side[answer] == side[node]:
                on[answer] = 1
            at = next_call[at]
    # A line whose tool_result names no call (rare) follows its response as a result
    # does: on the chain where the response line it hangs from is (shown as written).
    for node in b.idless_answers:
        parent = b.threads.parent_of(node)
        if parent >= 0 and on[parent] and kinds[parent] == ASSISTANT and side[parent] == side[node]:
            on[node] = 1
    return on


def span_of(on: bytearray) -> tuple[int, int]:
    """Where a ``recover`` bytearray's nodes are: from its first to past its last (by
    memchr: a compaction's chain is a stretch of a file's hundreds of thousands)."""
    first = on.find(1)
    return (0, 0) if first < 0 else (first, on.rfind(1) + 1)


def nodes_of(on: bytearray) -> array[int]:
    """The nodes a ``recover`` bytearray has, in file order."""
    lo, hi = span_of(on)
    return array("i", itertools.compress(range(lo, hi), memoryview(on)[lo:hi]))


@dataclass(slots=True)
class Chain:
    """What the last assembly made of the chain, for the next to build on: a followed
    file's new lines mostly extend the chain, and then the nodes and items before them
    keep their statuses, marks and place in the replayed view."""

    main_side: int
    boundaries: int
    leaf: int
    active: bytes  # per node: on the chain (``recover``)
    status: bytearray  # per node (``Threads.statuses``)
    items: int  # raw items marked
    branches: list[int]  # the raw items counted as where a branch leaves the chain
    messages: array[int]  # the replayed view's raw items, before kept segments are hung
    seen: bytearray  # per raw item: taken (or passed over) for the replayed view
    resolved: int  # ``Threads.resolved`` then
    elided: frozenset[str] = frozenset()  # the items elisions stubbed then


def first_change(old: bytes, new: bytearray) -> int:
    """The first node where ``new`` differs from ``old`` (``len(old)``: none before)."""
    n = len(old)
    if new[:n] == old:
        return n
    lo, hi = 0, n  # new[:lo] == old[:lo], not so up to hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if new[:mid] == old[:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def grown(b: ClaudeCodeBuilder, prev: Chain, leaf: int) -> bytearray | None:
    """``recover`` of the chain from ``leaf``, from the last assembly's, where the new leaf
    hangs from the old through nodes written after it alone (else None): those nodes (new
    ones, and the progress lines that came after the old leaf before the last assembly,
    on no chain then), what they bring beside them, new lines of the responses on it and
    new answers to their calls."""
    threads = b.threads
    n0 = len(prev.active)
    # (walked back to the old leaf: a batch that ended in a run of progress lines left
    # nodes after it, on the chain once the next message hangs from them)
    segment, node = threads.walk_new(leaf, prev.leaf + 1)
    if node != prev.leaf:
        return None  # the chain moved (a rewind, a new root, a subagent's file) or goes
        # on to a node written later (a parent found late, a cycle): walked whole
    active = bytearray(prev.active)
    active.extend(bytes(len(threads) - n0))
    # (What the new nodes bring may reach back: a response's first line, an answer
    # written before the line the chain came by.)
    recover(b, segment, active, prev.active)
    side, kinds = threads.side, threads.kind
    node_raw, responses, first_node = b.node_raw, b.responses, b.responses.nodes.first
    for node in range(n0, len(threads)):  # a response's new line beside the chain
        if kinds[node] == ASSISTANT and not active[node]:
            # (a response on the chain has every line of it on: its first one too)
            response = responses.of_raw(node_raw[node])
            if response >= 0 and active[first_node[response]]:
                active[node] = 1
    calls, raw_node = b.calls, b.raw_node
    for at in b.answered:  # an answer to a call of a response on the chain
        result = calls.result_node(at, raw_node)
        first = raw_node[calls.response[at]]  # (the response's first line's node)
        if result >= 0 and first >= 0 and active[first] and side[result] == side[first]:
            active[result] = 1
        elif first < 0:
            return None  # (a response without a uuid: its place on the chain is not known)
    return active


def unchanged(b: ClaudeCodeBuilder, prev: Chain, active: bytearray) -> int:
    """The first node whose place on the chain is not what the last assembly found, where
    that is after its leaf (the progress lines after the last message join the chain once
    the next message hangs from them); -1 when it is not (the chain moved: a rewind)."""
    first = first_change(prev.active, active)
    return first if first == len(prev.active) or first > prev.leaf else -1


# Kinds of a chain's items Claude Code never sends a model: a meta line, and its own
# API-error message (``normalizeMessagesForAPI`` drops an ``isApiErrorMessage`` line of
# model ``<synthetic>``; such a line is of kind ``error``: ``conversation.assistant``).
_NOT_SENT = ("meta", "error")


def taken(
    b: ClaudeCodeBuilder,
    active: bytearray,
    start: int,
    messages: array[int],
    seen: bytearray,
    items: int,
) -> tuple[array[int], bytearray] | None:
    """The replayed view's items: ``messages`` (those of the nodes before ``start``),
    then those of the active nodes from ``start``, each once, in file order. None when
    one of those is an item from before ``items`` not yet taken: its place is further up,
    where only the whole view puts it."""
    raw, node_raw, flags, kinds = b.raw, b.node_raw, b.raw_flags, b.threads.kind
    seen = seen + bytearray(len(raw) - len(seen))
    taken = array("i", messages)  # (a new array: the last snapshot's view keeps its own)
    for node in itertools.compress(range(start, len(active)), active[start:]):
        if kinds[node] not in (USER, ASSISTANT):
            continue
        index = node_raw[node]
        if seen[index] or flags[index] & META:
            continue
        if index < items:
            return None
        seen[index] = 1
        if raw.kind_of(index) not in _NOT_SENT:
            taken.append(index)
    return taken, seen


__all__ = [
    "Chain",
    "first_change",
    "grown",
    "nodes_of",
    "recover",
    "span_of",
    "taken",
    "unchanged",
]
