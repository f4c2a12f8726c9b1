"""Subagent files no line names, linked to the Task/Agent call that started them by its
prompt.

A 2.1.x teammate ``Agent`` call writes no ``agent_progress``, and its result (which
names the agent) comes only when the subagent is done: until then, or for good where
the run died, nothing in the session's file names its file. Such a file is linked as a
1.0.x sidechain is (``sidechains``): its first user line is the call's prompt
(``task_prompt``, ``prompt_text``). Where it is no call's, or cannot be read (not
written whole yet, or past ``PROMPT_BYTES``), its ``agent-<id>.meta.json`` description,
when one of those calls alone has it. A link made is kept as ``agent_progress`` would make it
(``agent_of``): the call's operation then names the file, and the Subagents tab lists
it on the call's row.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ...indexing import loads_payload
from ...linked import file_key
from ...reader import open_regular
from . import blocks
from .sidechains import names_agent, prompt_text, task_prompt
from .subagents import agent_file_names, agent_folders, meta_description, path_for

if TYPE_CHECKING:
    from .builder import ClaudeCodeBuilder

PROMPT_BYTES = 1 << 20  # of a file's start, looked in for its first user line
_SUMMARISER = "acompact"  # (the compaction summariser's files: no call starts one)


class FileLinks:
    """What ``link_files`` keeps between snapshots: the calls that name no agent yet, and
    each file's first prompt once read (a file does not change its first line)."""

    __slots__ = ("asked", "listed", "prompts", "tasks", "tried", "waiting")

    def __init__(self) -> None:
        self.tasks = 0  # of ``Sidechains.tasks`` looked at
        self.waiting: list[int] = []  # Task/Agent calls that name no agent, in order
        self.asked: dict[int, str | None] = {}  # a waiting call -> its prompt (read once)
        # the folders' (size, mtime) when listed, and the agent files then
        self.listed: tuple[object, list[str]] | None = None
        self.prompts: dict[str, str] = {}  # a file's path -> its first prompt, once read
        self.tried: dict[str, int] = {}  # a file with none yet -> its size when looked in


def link_files(b: ClaudeCodeBuilder) -> None:
    """Link each Task/Agent call that names no agent to the one subagent file no line
    names whose first prompt is the call's (else whose description is the call's alone)."""
    links = b.file_links
    tasks = b.sides.tasks
    links.waiting.extend(tasks[links.tasks :])
    links.tasks = len(tasks)
    links.waiting = [at for at in links.waiting if not names_agent(b, at)]
    if not links.waiting:
        return
    taken = {*b.agent_of.values(), *b.calls.agent.values()}
    free: list[tuple[str, str]] = []  # (agent, its file)
    for name in _listed(b, links):
        agent = name[len("agent-") : -len(".jsonl")]
        path = path_for(b, agent) if agent not in taken else None
        if path is not None and not agent.startswith(_SUMMARISER):
            free.append((agent, path))
    if not free:
        return
    unmatched: list[tuple[str, str]] = []
    for agent, path in free:
        prompt = _first_prompt(links, path)
        at = _waiting_for(b, links, prompt) if prompt is not None else -1
        if at >= 0:
            _link(b, links, at, agent)
        else:
            unmatched.append((agent, path))
    for agent, path in unmatched:  # (the description alone: one call of its words)
        desc = meta_description(path)
        said = [at for at in links.waiting if desc is not None and _description(b, at) == desc]
        if len(said) == 1:
            _link(b, links, said[0], agent)


def _link(b: ClaudeCodeBuilder, links: FileLinks, at: int, agent: str) -> None:
    b.agent_of.setdefault(b.calls.id_of(at), agent)
    links.waiting.remove(at)


def _waiting_for(b: ClaudeCodeBuilder, links: FileLinks, prompt: str) -> int:
    """The first waiting call whose prompt is ``prompt`` (-1: none)."""
    asked = links.asked
    for at in links.waiting:
        if at not in asked:
            asked[at] = task_prompt(b, at)
        if asked[at] == prompt:
            return at
    return -1


def _description(b: ClaudeCodeBuilder, at: int) -> str | None:
    args = b.calls.arguments(at)
    desc = args.get("description") if isinstance(args, dict) else None
    return desc if isinstance(desc, str) else None


def _listed(b: ClaudeCodeBuilder, links: FileLinks) -> list[str]:
    """The session's agent files (``agent_file_names``), listed again only when a folder
    they are in changed (a followed session is assembled at each change of its file)."""
    key = tuple(file_key(where) for where in agent_folders(b.path))
    if links.listed is None or links.listed[0] != key:
        links.listed = (key, agent_file_names(b))
    return links.listed[1]


def _first_prompt(links: FileLinks, path: str) -> str | None:
    """The text of the file's first user line (``prompt_text``), once it is written whole
    within its first ``PROMPT_BYTES``; None until then."""
    known = links.prompts.get(path)
    if known is not None:
        return known
    try:
        with open_regular(path) as fh:
            size = os.fstat(fh.fileno()).st_size
            if links.tried.get(path) == size:
                return None  # (as it was when looked in: not read again)
            links.tried[path] = size
            head = fh.read(PROMPT_BYTES)
    except OSError:
        return None
    for raw in head.split(b"\n")[:-1]:  # (whole lines alone: the last may be torn)
        if not raw.strip():
            continue
        try:
            record = loads_payload(raw)  # (as the subagent's own read parses it)
        except ValueError:
            return None
        if isinstance(record, dict) and record.get("type") == "user":
            prompt = prompt_text(blocks.line_parts(record))
            links.prompts[path] = prompt
            return prompt
    return None


__all__ = ["PROMPT_BYTES", "FileLinks", "link_files"]
