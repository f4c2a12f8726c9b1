"""``LineTree``: rows kept by appends are the rows laid out afresh, each drawn with the
guides a tree has; a growing run's appends and relabels never lay the rows out again;
folding, unfolding and the cursor as a person uses them."""

from __future__ import annotations

import random
from typing import Any

import pytest
from rich.text import Text
from textual.app import App, ComposeResult

from viewer.widgets.line_tree import LineTree


class Host(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.moves: list[object] = []

    def compose(self) -> ComposeResult:
        yield LineTree[str](id="tree")

    def on_line_tree_highlighted(self, event: LineTree.Highlighted) -> None:
        self.moves.append(event.key)


def reference(top: list[str], children: dict[str, list[str]], shut: set[str]) -> list[str]:
    """Each visible row as a tree is drawn: the guides, ▼/▶ on a node with children,
    the label (the key)."""
    out: list[str] = []

    def walk(key: str, guides: str, last: bool, depth: int) -> None:
        below = children.get(key, [])
        toggle = ("▶ " if key in shut else "▼ ") if below else ""
        out.append(guides + ("" if depth == 0 else "└─ " if last else "├─ ") + toggle + key)
        if key in shut:
            return
        inner = guides + ("" if depth == 0 else "   " if last else "│  ")
        for n, child in enumerate(below):
            walk(child, inner, n == len(below) - 1, depth + 1)

    for n, key in enumerate(top):
        walk(key, "", n == len(top) - 1, 0)
    return out


def shown(tree: LineTree[Any]) -> list[str]:
    """Each row as drawn after its first cell (the cursor's mark)."""
    return [tree.rendered_text(row)[1:].rstrip() for row in range(tree.item_count())]


def marks(tree: LineTree[Any]) -> str:
    """Each row's first cell: ``▌`` on the cursor's row, a blank on the others."""
    return "".join(tree.rendered_text(row)[0] for row in range(tree.item_count()))


async def test_rows_kept_by_appends_are_the_rows_laid_out_afresh() -> None:
    """Random trees grown a node at a time (under any node: the last row's branch, kept
    by an append, or another, laid out again), with folds and unfolds between."""
    async with Host().run_test() as pilot:
        tree = pilot.app.query_one(LineTree)
        for seed in range(60):
            rng = random.Random(seed)
            tree.clear()
            top: list[str] = []
            children: dict[str, list[str]] = {}
            shut: set[str] = set()
            keys: list[str] = []
            for n in range(40):
                key = f"n{n}"
                if keys and rng.random() < 0.8:
                    # mostly under one of the latest nodes, as a run grows
                    parent = keys[max(0, len(keys) - 1 - int(rng.expovariate(0.5)))]
                    children.setdefault(parent, []).append(key)
                    tree.add(key, Text(key), parent)
                else:
                    top.append(key)
                    tree.add(key, Text(key))
                keys.append(key)
                if rng.random() < 0.15:
                    fold = rng.choice(keys)
                    if children.get(fold):
                        expanded = fold in shut
                        (shut.discard if expanded else shut.add)(fold)
                        tree.set_expanded(fold, expanded)
                assert shown(tree) == reference(top, children, shut), (seed, n)


async def test_a_growing_run_is_never_laid_out_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Calls come under the latest model call, model calls under the run: each new node
    is appended to the rows, and a relabel redraws its own row only."""
    laid_out: list[int] = []
    real = LineTree._lay_out

    def counted(tree: LineTree[Any]) -> None:
        laid_out.append(1)
        real(tree)

    monkeypatch.setattr(LineTree, "_lay_out", counted)
    async with Host().run_test(size=(80, 20)) as pilot:
        tree = pilot.app.query_one(LineTree)
        tree.add("run", Text("run 1"))
        for turn in range(2000):
            tree.add(f"m{turn}", Text(f"model {turn}"), "run")
            for call in range(3):
                tree.add(f"t{turn}.{call}", Text(f"tool {call}"), f"m{turn}")
                tree.set_label(f"m{turn}", Text(f"model {turn} ({call + 1} tools)"))
            if turn % 100 == 0:
                await pilot.pause()  # drawn as it grows
        await pilot.pause()
        assert tree.item_count() == 1 + 2000 * 4 and not laid_out
        tree.move_to_key("m5")
        tree.item_strips(5 * 4 + 1)  # (on screen now)
        tree.item_strips(5 * 4 + 2)
        tree.set_label("t5.0", Text("tool 0 failed"))
        assert 5 * 4 + 1 in tree._cache and 5 * 4 + 2 not in tree._cache
        assert tree.rendered_text(5 * 4 + 2).rstrip() == " │  ├─ tool 0 failed"
        assert not laid_out


async def test_fold_unfold_and_the_cursor_by_keys() -> None:
    async with Host().run_test(size=(60, 12)) as pilot:
        tree = pilot.app.query_one(LineTree)
        tree.add("a", Text("a"))
        tree.add("a1", Text("a1"), "a")
        tree.add("a1x", Text("a1x"), "a1")
        tree.add("a2", Text("a2"), "a")
        tree.add("b", Text("b"))
        tree.focus()
        assert tree.move_to_key("a1x")
        await pilot.pause()
        assert pilot.app.moves[-1] == "a1x"
        await pilot.press("left")  # a leaf: to its parent
        assert tree.cursor_key == "a1"
        await pilot.press("left")  # fold it
        assert shown(tree) == ["▼ a", "├─ ▶ a1", "└─ a2", "b"]
        assert marks(tree) == " ▌  "  # (the cursor told by a mark, not colour alone)
        await pilot.press("right")  # unfold
        await pilot.press("right")  # into its first child
        assert tree.cursor_key == "a1x"
        tree.set_expanded("a", False)  # the cursor was under it: it goes to it
        await pilot.pause()
        assert shown(tree) == ["▶ a", "b"] and tree.cursor_key == "a"
        assert pilot.app.moves[-1] == "a"
        await pilot.press("down")
        assert tree.cursor_key == "b"
        assert marks(tree) == " ▌"
        assert tree.move_to_key("a2")  # a folded ancestor is unfolded
        assert tree.cursor_key == "a2" and tree.is_expanded("a")
        await pilot.press("up", "up", "enter")  # enter (or space) folds the cursor's node
        assert tree.cursor_key == "a1" and shown(tree)[1] == "├─ ▶ a1"
        await pilot.click(LineTree, offset=(4, 1))  # its ▶: unfolded again
        assert shown(tree)[2] == "│  └─ a1x"
        await pilot.click(LineTree, offset=(8, 3))  # a label: the cursor moves there
        assert tree.cursor_key == "a2"
        await pilot.double_click(LineTree, offset=(8, 1))  # a row: folded
        assert tree.cursor_key == "a1" and shown(tree)[1:3] == ["├─ ▶ a1", "└─ a2"]
        await pilot.double_click(LineTree, offset=(8, 1))  # and unfolded
        assert shown(tree)[2] == "│  └─ a1x"
        assert not tree.move_to_key("nothing")


async def test_a_label_is_drawn_as_text_and_clear_empties_the_tree() -> None:
    async with Host().run_test(size=(60, 8)) as pilot:
        tree = pilot.app.query_one(LineTree)
        tree.add("x", Text("[bold]not markup[/] \x1b[31m"))
        await pilot.pause()
        assert "[bold]not markup[/]" in tree.rendered_text(0)
        tree.clear()
        await pilot.pause()
        assert tree.item_count() == 0 and tree.cursor_key is None and "x" not in tree
        tree.add("x", Text("x"))
        with pytest.raises(ValueError, match="in the tree already"):
            tree.add("x", Text("again"))  # (one row a key: its row is found by it)
