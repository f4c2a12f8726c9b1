"""1.0.x subagents: their lines written into the session's own file (``isSidechain``).

A subagent's conversation starts at a sidechain ``user`` line with a null
``parentUuid`` whose text is its Task call's ``input.prompt`` (the call's result names
no agentId then). The builder notes those roots and the file's Task/Agent calls as they
are fed (nothing else per line); the assembly links each call that names no agent to
the first sidechain after it whose text is its prompt (a root to one call at most),
and counts each linked sidechain's messages and responses from the chain's nodes,
only when the file has roots, from where the last assembly stopped.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .threading import ASSISTANT, USER

if TYPE_CHECKING:
    from ...model import Part
    from .builder import ClaudeCodeBuilder

TASK_TOOLS = frozenset({"Task", "Agent", "dispatch_agent"})  # (dispatch_agent: 0.2.x)


@dataclass(slots=True)
class InFile:
    """A sidechain in the session's file: from its first line (its root) on."""

    raw: int  # the root's raw item
    node: int
    line: int
    ident: str  # the root's item id
    text: str | None = None  # the root's text, once read (by its line's span)
    call: int = -1  # the call it is linked to (``CallColumn``)
    messages: int = 0  # its conversation items
    responses: list[int] = field(default_factory=list)  # (``Responses``)


class Sidechains:
    """What the builder notes of in-file sidechains, and the links made from it."""

    __slots__ = ("by_node", "root_of", "roots", "tasks", "tried")

    def __init__(self) -> None:
        self.roots: list[InFile] = []  # file order
        self.by_node: dict[int, InFile] = {}
        self.tasks: list[int] = []  # the file's own Task/Agent calls, file order
        self.root_of = array("i")  # node -> its sidechain's root node (-1: none)
        self.tried = (0, 0)  # roots and tasks when calls were last linked

    def root(self, raw: int, node: int, line: int, ident: str) -> None:
        found = InFile(raw, node, line, ident)
        self.roots.append(found)
        self.by_node[node] = found


def link(b: ClaudeCodeBuilder) -> None:
    """Count the sidechains' new nodes and link the calls not linked yet (nothing to do
    for a file without sidechain roots)."""
    sides = b.sides
    if not sides.roots:
        return
    _count(b, sides)
    now = (len(sides.roots), len(sides.tasks))
    if now == sides.tried:
        return
    sides.tried = now
    free = [r for r in sides.roots if r.call < 0]
    calls = b.calls
    for at in sides.tasks:
        if not free:
            break
        if names_agent(b, at):
            continue
        prompt = task_prompt(b, at)
        if prompt is None:
            continue
        for root in free:
            if root.line > calls.line[at] and _text(b, root) == prompt:
                root.call = at
                calls.sidechain[at] = root  # (its operation says so when made)
                free.remove(root)
                break


def names_agent(b: ClaudeCodeBuilder, at: int) -> bool:
    """Is call ``at`` linked to its subagent already: its result or ``agent_progress``
    names the agent, or its lines in this file are linked to it?"""
    calls = b.calls
    return at in calls.sidechain or at in calls.agent or calls.id_of(at) in b.agent_of


def task_prompt(b: ClaudeCodeBuilder, at: int) -> str | None:
    """What Task/Agent call ``at`` asked its subagent (its ``prompt``), as its subagent's
    first user line says it (``prompt_text``); None where it gave none."""
    args = b.calls.arguments(at)
    prompt = args.get("prompt") if isinstance(args, dict) else None
    return prompt.strip() if isinstance(prompt, str) else None


def prompt_text(parts: Sequence[Part]) -> str:
    """A subagent's first user line's text, as its call's ``task_prompt`` is compared
    with it: its text parts, joined."""
    return "\n".join(p.text for p in parts if p.kind == "text").strip()


def _text(b: ClaudeCodeBuilder, root: InFile) -> str:
    if root.text is None:
        root.text = prompt_text(b.raw.parts_of(root.raw))
    return root.text


def _count(b: ClaudeCodeBuilder, sides: Sidechains) -> None:
    """Each node fed since: its sidechain's root (its parent's), and what it adds to
    that sidechain's messages and responses (a response split over lines once)."""
    threads, root_of, by_node = b.threads, sides.root_of, sides.by_node
    kinds, side, node_raw = threads.kind, threads.side, b.node_raw
    for node in range(len(root_of), len(threads)):
        top = -1
        if side[node]:
            parent = threads.parent_of(node)
            if parent < 0:
                top = node
            elif parent < node:
                top = root_of[parent]
        root_of.append(top)
        found = by_node.get(top) if top >= 0 else None
        if found is None:
            continue
        kind = kinds[node]
        if kind == USER:
            found.messages += 1
        elif kind == ASSISTANT:
            response = b.responses.of_raw(node_raw[node])
            if response >= 0 and b.responses.nodes.first[response] == node:
                found.messages += 1
                found.responses.append(response)


__all__ = [
    "TASK_TOOLS",
    "InFile",
    "Sidechains",
    "link",
    "names_agent",
    "prompt_text",
    "task_prompt",
]
