"""Where Codex keeps rollouts: ``sessions/YYYY/MM/DD/rollout-*.jsonl`` (and ``.zst``).

Used for the browser's listing and for finding a session's subagents among its
siblings. Both are bounded: the walk follows the dated layout only, and the subagent
search opens at most a few hundred first lines, from the parent's start onwards.
"""

from __future__ import annotations

import functools
import os
import time
from typing import Any, NamedTuple

import orjson

from ...compressed import open_maybe_compressed
from . import PLAIN, ZST

TREES = ("sessions", "archived_sessions")
_FIRST_LINE = 1 << 20  # a session_meta carries the base instructions: allow for them
_MAX_CANDIDATES = 400  # first lines read when looking for subagents
_MAX_FILES = 200_000  # rollouts listed from one tree
_MAX_DAYS = 1000  # day folders looked in for a fork's parent (``rollout_of``)
_SETTLED = 2.0  # seconds after its last change from which a folder's listing is kept


def is_rollout(name: str) -> bool:
    return name.startswith("rollout-") and (name.endswith(PLAIN) or name.endswith(ZST))


def stem(name: str) -> str:
    return name[: -len(ZST)] if name.endswith(ZST) else name.removesuffix(PLAIN)


def _names(directory: str) -> tuple[str, ...]:
    """A folder's names, sorted: listed once while the folder is unchanged. (Finding one
    rollout's subagents lists its day's folder and every later one, and a directory's
    scan does that for each rollout: the same folders listed again and again.)"""
    try:
        seen = os.stat(directory)
    except OSError:
        return ()
    if time.time() - seen.st_mtime < _SETTLED:  # (a folder's mtime is coarse: an entry
        return _listed(directory)  # added in the same tick leaves it as it was)
    return _listed_once(directory, seen.st_ino, seen.st_mtime_ns)


def _listed(directory: str) -> tuple[str, ...]:
    try:
        return tuple(sorted(os.listdir(directory)))
    except OSError:
        return ()


@functools.lru_cache(maxsize=4096)
def _listed_once(directory: str, _ino: int, _mtime_ns: int) -> tuple[str, ...]:
    return _listed(directory)


def _rollouts_in(directory: str, out: dict[str, str]) -> None:
    """Rollouts directly in a folder into ``out`` (by stem; the plain file wins)."""
    for name in _names(directory):
        if not is_rollout(name):
            continue
        key = os.path.join(directory, stem(name))
        if name.endswith(PLAIN) or key not in out:
            out[key] = os.path.join(directory, name)


def _dated(directory: str, depth: int) -> list[str]:
    """The ``YYYY/MM/DD`` folders under a sessions folder (digits only), in order."""
    found = [directory]
    for _ in range(depth):
        deeper: list[str] = []
        for parent in found:
            deeper.extend(os.path.join(parent, n) for n in _names(parent) if n.isdigit())
        found = deeper
    return [d for d in found if os.path.isdir(d)]


def _depth_below_tree(root: str) -> int | None:
    """How many dated levels lie below ``root`` if it is in a sessions tree, else None."""
    parts = os.path.normpath(os.path.abspath(root)).split(os.sep)
    for up in range(4):
        if len(parts) <= up:
            return None
        name = parts[len(parts) - 1 - up]
        if name in TREES:
            return 3 - up if name == "sessions" else 0
        if not name.isdigit():
            return None
    return None


def discover(root: str) -> list[str] | None:
    """Every rollout under a Codex home, a sessions tree or a part of one (None: not one)."""
    out: dict[str, str] = {}
    trees = [os.path.join(root, t) for t in TREES if os.path.isdir(os.path.join(root, t))]
    if trees:
        for tree in trees:
            depth = 0 if tree.endswith("archived_sessions") else 3
            for folder in _dated(tree, depth):
                _rollouts_in(folder, out)
    else:
        below = _depth_below_tree(root)
        if below is None:
            return None
        for folder in _dated(root, below):
            _rollouts_in(folder, out)
    return sorted(out.values())[:_MAX_FILES]


def first_record(path: str) -> dict[str, Any] | None:
    """A rollout's first line, parsed (None when it is not a JSON object or unreadable)."""
    head = b""
    try:
        with open_maybe_compressed(path) as fh:
            while b"\n" not in head and len(head) < _FIRST_LINE:  # most are one block
                block = fh.read(1 << 16)
                if not block:
                    break
                head += block
    except OSError:
        return None
    line = head.split(b"\n", 1)[0]
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


class FirstFacts(NamedTuple):
    """What the subagent search and ``written_since`` read of a rollout's first line: the
    parent it names, its ``cwd``, and a subagent's ``id`` and ``source`` (the rest of a
    session_meta, its base instructions among them, is not kept)."""

    parent: str | None
    cwd: str | None
    child: dict[str, Any] | None


def known_first_facts(path: str) -> FirstFacts | None:
    """``first_record``'s facts, read once while the file is the same (its inode, size
    and mtime): a rollout's subagent search reads up to 400 later siblings' first lines,
    so a directory's scan read each rollout's once for every earlier one of its days."""
    try:
        seen = os.stat(path)
    except OSError:
        return None
    return _facts_once(path, seen.st_ino, seen.st_size, seen.st_mtime_ns)


@functools.lru_cache(maxsize=_MAX_CANDIDATES * 4)
def _facts_once(path: str, _ino: int, _size: int, _mtime_ns: int) -> FirstFacts | None:
    record = first_record(path)
    if record is None:
        return None
    parent = parent_of(record)
    payload = record.get("payload")
    child = None
    if parent is not None and isinstance(payload, dict):
        child = {key: payload[key] for key in ("id", "source") if key in payload}
    return FirstFacts(parent, _cwd(record), child)


def parent_of(record: dict[str, Any]) -> str | None:
    """The ``parent_thread_id`` a subagent's session_meta names, if it is one."""
    payload = record.get("payload")
    if record.get("type") != "session_meta" or not isinstance(payload, dict):
        return None
    source = payload.get("source")
    sub = source.get("subagent") if isinstance(source, dict) else None
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    parent = spawn.get("parent_thread_id") if isinstance(spawn, dict) else None
    return parent if isinstance(parent, str) else None


def _stamp(name: str) -> str:
    """``rollout-2026-02-23T12-54-34-<uuid>`` -> ``2026-02-23T12-54-34`` (its start)."""
    return os.path.basename(stem(name))[8:27]


def _later(path: str, limit: int) -> list[str]:
    """Rollouts in the same tree that started no earlier than this one, in order: those of
    its day folder and the later ones', until about ``limit`` are listed."""
    here = os.path.dirname(os.path.abspath(path))
    if _depth_below_tree(here) == 0 and os.path.basename(here) not in TREES:
        top = os.path.dirname(os.path.dirname(os.path.dirname(here)))  # sessions/
        folders = [d for d in _dated(top, 3) if d >= here]  # this day and later ones
    else:
        folders = [here]
    out: dict[str, str] = {}
    for folder in folders:
        _rollouts_in(folder, out)
        if len(out) > limit:
            break
    mine = os.path.abspath(path)
    start = _stamp(mine)
    return sorted(p for p in out.values() if p != mine and _stamp(p) >= start)


def child_folders(path: str) -> tuple[str, ...]:
    """The folders a subagent's rollout started now would be put in (``_later``): the
    rollout's own, and in a dated tree the latest day's with the folders above it (a
    later day's is made in one of them)."""
    here = os.path.dirname(os.path.abspath(path))
    if _depth_below_tree(here) != 0 or os.path.basename(here) in TREES:
        return (here,)
    top = os.path.dirname(os.path.dirname(os.path.dirname(here)))  # sessions/
    latest = max((d for d in _dated(top, 3) if d >= here), default=here)
    month = os.path.dirname(latest)
    return tuple(dict.fromkeys((here, latest, month, os.path.dirname(month), top)))


def sibling_candidates(path: str) -> list[str]:
    """Rollouts in the same tree that started no earlier than this one (bounded, in order)."""
    return _later(path, _MAX_CANDIDATES * 4)[:_MAX_CANDIDATES]


def written_since(path: str, since: float) -> list[str]:
    """Rollouts of this one's project (its ``session_meta.cwd``) that started no earlier
    than it and were written to after ``since``, the latest first; no subagent's (a
    child is not where its parent's writer went on, nor is a subagent's own)."""
    mine = first_record(path)
    if mine is None or parent_of(mine) is not None:
        return []
    cwd = _cwd(mine)
    if cwd is None:
        return []
    found: list[tuple[float, str]] = []
    for candidate in _later(path, _MAX_FILES):
        try:
            written = os.stat(candidate).st_mtime
        except OSError:
            continue
        if written <= since:
            continue  # (a stat each; a first line read only of those written since)
        facts = known_first_facts(candidate)
        if facts is not None and facts.parent is None and facts.cwd == cwd:
            found.append((written, candidate))
    return [p for _, p in sorted(found, reverse=True)]


def _cwd(record: dict[str, Any]) -> str | None:
    payload = record.get("payload")
    if record.get("type") != "session_meta" or not isinstance(payload, dict):
        return None
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) else None


def rollout_of(path: str, thread: str) -> str | None:
    """The rollout of thread ``thread`` (its name ends in ``-<thread>``) that started no
    later than ``path``'s: in its folder, then, in a dated tree, the earlier days' of the
    same ``sessions`` folder, the latest first (``_MAX_DAYS`` of them; the plain file
    before its ``.zst``). None where none is (or ``thread`` is no name of one)."""
    if not thread or os.sep in thread or (os.altsep and os.altsep in thread):
        return None
    here = os.path.dirname(os.path.abspath(path))
    folders = [here]
    if _depth_below_tree(here) == 0 and os.path.basename(here) not in TREES:
        top = os.path.dirname(os.path.dirname(os.path.dirname(here)))  # sessions/
        folders.extend(sorted((d for d in _dated(top, 3) if d < here), reverse=True))
    mine, tail = os.path.abspath(path), f"-{thread}"
    for folder in folders[:_MAX_DAYS]:
        for name in _names(folder):  # (sorted: ``.jsonl`` before ``.jsonl.zst``)
            found = os.path.join(folder, name)
            if is_rollout(name) and stem(name).endswith(tail) and found != mine:
                return found
    return None


def find_children(path: str, session_id: str) -> list[tuple[str, dict[str, Any]]]:
    """Subagent rollouts naming ``session_id`` as their parent: (path, session_meta)."""
    found: list[tuple[str, dict[str, Any]]] = []
    for candidate in sibling_candidates(path):
        facts = known_first_facts(candidate)
        if facts is not None and facts.parent == session_id and facts.child is not None:
            found.append((candidate, facts.child))
    return found


__all__ = [
    "child_folders",
    "discover",
    "find_children",
    "first_record",
    "is_rollout",
    "parent_of",
    "rollout_of",
    "stem",
]
