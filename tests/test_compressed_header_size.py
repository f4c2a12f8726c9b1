"""A compressed file's size, in the header as in the browser (the s44 audit a1, finding
8): the browser's column and ``peek`` say a ``.jsonl.zst``'s size on disk, the header
said the size of its lines unpacked alone, though the README said it was the browser's."""

from __future__ import annotations

from pathlib import Path

from codex_writer import story, zst_copy

from session_core.text import size_text


async def test_a_compressed_files_header_says_both_its_sizes(tmp_path: Path) -> None:
    """The browser and ``peek`` say a ``.zst``'s size on disk, the header said its lines'
    size unpacked alone: it says both now."""
    from helpers import screen_lines, wait_for

    from viewer.app import TailscopeApp
    from viewer.screens.model_screen import ModelScreen

    plain = tmp_path / "plain.jsonl"
    story(plain)
    zst = Path(zst_copy(str(plain), str(tmp_path / "r.jsonl.zst")))
    unpacked, packed = plain.stat().st_size, zst.stat().st_size
    for path, said in (
        (zst, f"{size_text(unpacked)} ({size_text(packed)} packed)"),
        (plain, f"{size_text(unpacked)} "),
    ):
        app = TailscopeApp(path)
        async with app.run_test(size=(200, 32)) as pilot:
            await wait_for(pilot, lambda a=app: isinstance(a.screen, ModelScreen), 30)
            screen = app.screen
            assert isinstance(screen, ModelScreen)
            await wait_for(pilot, lambda s=screen: s._loaded, 30)
            await pilot.pause(0.1)
            text = " ".join(screen_lines(app))
            assert said in text, text[:400]
            if path == plain:
                assert "packed)" not in text
