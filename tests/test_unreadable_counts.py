"""A file the viewer cannot read (or look at) says so: what is not known is never shown
as 0 (an audit: "0 lines · 0 sent next · 0 tool ops" beside a 2 MB file of mode 000, and
"0 B" for a file whose folder could not be read), and what was read stays shown."""

from __future__ import annotations

from pathlib import Path

from helpers import file_permissions_apply, screen_lines, wait_for

from session_core import Message, Session
from session_core.text import size_text
from viewer.app import TailscopeApp
from viewer.widgets.items_view import ItemsView

SIZE = (200, 30)


def _written(path: Path) -> Path:
    with Session.create(path, meta={"agent": "a"}) as s:
        s.append_message(Message(role="user", content="read before"))
        s.append_message(Message(role="assistant", content="an answer"))
    return path


async def test_a_file_unreadable_from_the_start_counts_nothing(tmp_path: Path) -> None:
    path = _written(tmp_path / "t.jsonl")
    path.chmod(0)
    try:
        with file_permissions_apply():
            app = TailscopeApp(path)
            async with app.run_test(size=SIZE) as pilot:
                await wait_for(pilot, lambda: "Permission denied" in " ".join(screen_lines(app)))
                await pilot.pause(0.2)
                text = " ".join(screen_lines(app))
                assert "nothing read: the file cannot be read" in text
                for zero in ("0 lines", "0 sent next", "0 tool ops", "usage"):
                    assert zero not in text.split("Permission denied")[0], zero
                assert size_text(path.stat().st_size) in text  # (its size is known: a stat)
                path.chmod(0o644)
                await wait_for(pilot, lambda: "read before" in " ".join(screen_lines(app)))
                assert "nothing read" not in " ".join(screen_lines(app))
    finally:
        path.chmod(0o644)


async def test_a_file_that_cannot_be_looked_at_keeps_its_last_size(tmp_path: Path) -> None:
    folder = tmp_path / "d"
    folder.mkdir()
    path = _written(folder / "t.jsonl")
    size = size_text(path.stat().st_size)
    try:
        with file_permissions_apply():
            app = TailscopeApp(path)
            async with app.run_test(size=SIZE) as pilot:
                view = app.query_one(ItemsView)
                await wait_for(pilot, lambda: len(view.items) == 2)
                assert size in " ".join(screen_lines(app))
                folder.chmod(0)
                await wait_for(pilot, lambda: "Permission denied" in " ".join(screen_lines(app)))
                await pilot.pause(0.2)
                text = " ".join(screen_lines(app))
                assert size in text and " 0 B " not in text  # (the size read, not 0)
                assert len(view.items) == 2 and "2 sent next" in text
                folder.chmod(0o755)  # (nothing appended: the banner goes all the same)
                await wait_for(
                    pilot, lambda: "Permission denied" not in " ".join(screen_lines(app))
                )
    finally:
        folder.chmod(0o755)


async def test_a_damaged_zst_that_unpacks_to_nothing_counts_nothing(tmp_path: Path) -> None:
    """A ``.zst`` cut inside its first frame: opened, but no line read of it, so its
    counts are not known: "nothing read", as for a file of mode 000, not "0 lines"."""
    import zstandard

    plain = _written(tmp_path / "plain.jsonl")
    path = tmp_path / "t.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes())[:8])
    app = TailscopeApp(path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "cannot be read" in " ".join(screen_lines(app)))
        await pilot.pause(0.2)
        text = " ".join(screen_lines(app))
        assert "nothing read: the file cannot be read" in text
        for zero in ("0 lines", "0 sent next", "0 tool ops"):
            assert zero not in text, zero
        assert size_text(8) in text
