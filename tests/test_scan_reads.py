"""What a directory's scan reads: a Codex day's rollouts' first lines and folders read
once however many of its rollouts look among them for their subagents, but again once
they change. (A row's times without its items made: test_scan_live.)"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from codex_writer import SESSION, story, subagent

import session_core.formats.codex.tree as tree
from session_core.scan import scan_file
from story import OLD_MTIME

DAY = ("sessions", "2026", "02", "23")


def rollout_name(n: int, uuid_tail: str) -> str:
    return f"rollout-2026-02-23T12-{n:02d}-00-019c0000-0000-7000-8000-{uuid_tail}.jsonl"


@pytest.fixture(autouse=True)
def fresh_caches() -> None:
    tree._facts_once.cache_clear()
    tree._listed_once.cache_clear()


def _day(tmp_path: Path, rollouts: int) -> tuple[Path, list[Path]]:
    day = tmp_path.joinpath(*DAY)
    day.mkdir(parents=True)
    paths = []
    for n in range(rollouts):
        path = day / rollout_name(n, f"{n:012d}")
        story(path)  # (each the same session id: none is another's child)
        paths.append(path)
    for path in paths:
        os.utime(path, (OLD_MTIME, OLD_MTIME))
    for folder in (day, *list(day.parents)[: len(DAY) - 1]):  # (the day, up to sessions/)
        os.utime(folder, (OLD_MTIME, OLD_MTIME))
    return day, paths


def test_a_day_s_first_lines_are_read_once_for_all_its_rollouts(tmp_path, monkeypatch) -> None:
    _, paths = _day(tmp_path, 12)
    read: list[str] = []
    real = tree.first_record

    def counted(path: str) -> object:
        read.append(os.path.basename(path))
        return real(path)

    monkeypatch.setattr(tree, "first_record", counted)
    listed: list[str] = []
    real_listed = tree._listed
    monkeypatch.setattr(tree, "_listed", lambda d: listed.append(d) or real_listed(d))
    for path in paths:
        scan_file(str(path))
    assert sorted(read) == sorted(set(read))  # each at most once (it was 66 for 12)
    assert len(read) <= len(paths)
    assert len(listed) == len(set(listed))  # each folder listed once (the day 12 times)


def test_a_child_added_or_a_rollout_replaced_is_read_again(tmp_path: Path) -> None:
    day, (parent,) = _day(tmp_path, 1)
    assert tree.find_children(str(parent), SESSION) == []
    name = rollout_name(30, "00000000c41d")
    subagent(str(day), SESSION, "019c0000-0000-7000-8000-00000000c41d", name)
    os.utime(day / name, (OLD_MTIME, OLD_MTIME))
    os.utime(day, (OLD_MTIME + 60, OLD_MTIME + 60))  # (settled: its listing may be kept)
    (found,) = tree.find_children(str(parent), SESSION)
    assert found[0] == str(day / name)
    # the child replaced by a file of another session (a new inode): read again
    other = day / "other.tmp"
    story(other)
    os.replace(other, day / name)
    os.utime(day, (OLD_MTIME + 120, OLD_MTIME + 120))
    assert tree.find_children(str(parent), SESSION) == []


def test_a_folder_changed_in_the_last_moments_is_listed_every_time(tmp_path: Path) -> None:
    """A folder's mtime moves in coarse ticks: an entry added in the tick of the last
    listing leaves it as it was, so a folder changed lately is never taken as listed."""
    day, (parent,) = _day(tmp_path, 1)
    now = time.time()
    os.utime(day, (now, now))
    assert tree.find_children(str(parent), SESSION) == []
    name = rollout_name(31, "00000000c42d")
    subagent(str(day), SESSION, "019c0000-0000-7000-8000-00000000c42d", name)
    os.utime(day, (now, now))  # (the same tick: the mtime says nothing changed)
    (found,) = tree.find_children(str(parent), SESSION)
    assert found[0] == str(day / name)
