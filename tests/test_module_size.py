"""Small modules: no module of the library or the app is over 600 lines (a module that
grows past it is split along a seam, as the README's layout says)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LIMIT = 600


def _lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def test_no_module_of_session_core_or_viewer_is_over_the_limit() -> None:
    modules = [p for top in ("session_core", "viewer") for p in (REPO / top).rglob("*.py")]
    assert len(modules) > 100  # (the walk found the tree)
    over = {str(p.relative_to(REPO)): n for p in modules if (n := _lines(p)) > LIMIT}
    assert over == {}, f"modules over {LIMIT} lines (split them along a seam): {over}"
