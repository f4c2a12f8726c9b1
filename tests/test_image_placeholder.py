"""An image's placeholder keeps its closing bracket however it is cut: a redacted URL
cut after 40 cells, ``[image: [REDACTED_IMAGE_URL len=1320702 sha=d69…]``, read as an
``[image:`` left open (its one ``]`` closed nothing)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from codex_helpers import CODEX
from codex_writer import RolloutWriter
from helpers import screen_lines
from model_screen_helpers import opened
from rich.cells import cell_len

from viewer.widgets.item_text import image_placeholder

REDACTED = "[REDACTED_IMAGE_URL len=1320702 sha=d69f0a1b]"
IDLE = 1_700_000_000


@pytest.mark.parametrize("width", [10, 12, 20, 40, 53, 54, 120])
def test_a_bracketed_url_is_cut_inside_its_brackets(width: int) -> None:
    shown = image_placeholder(REDACTED, width)
    assert cell_len(shown) <= width and shown.startswith("[image: ") and shown.endswith("]")
    if width >= 12:  # (room for "[…]" inside)
        assert shown.endswith("]]") and shown.count("[") == shown.count("]"), shown
    if width >= len(REDACTED) + len("[image: ]"):
        assert shown == f"[image: {REDACTED}]"


def test_a_plain_placeholder() -> None:
    assert image_placeholder("", 40) == "[image]"
    assert image_placeholder("shot.png", 40) == "[image: shot.png]"
    long = "https://example.com/" + "a" * 100 + ".png"
    assert image_placeholder(long, 40) == "[image: https://example.com/aaaaaaaaaa…]"


async def test_the_conversation_shows_the_url_whole_or_closed(tmp_path: Path) -> None:
    """At 120 columns the redacted URL is whole (the placeholder had 40 cells, whatever
    the width); at 60 it is cut inside its brackets, both closed."""
    path = tmp_path / "rollout-2026-02-23T12-00-00-019c0000-0000-7000-8000-000000000001.jsonl"
    w = RolloutWriter(path)
    w.session_meta()
    blocks = [{"type": "input_text", "text": "see"}, {"type": "input_image", "image_url": REDACTED}]
    w.write("response_item", {"type": "message", "role": "user", "content": blocks})
    os.utime(path, (IDLE, IDLE))
    async with opened(path, size=(120, 20)) as (app, pilot, _screen):
        assert any(f"[image: {REDACTED}]" in line for line in screen_lines(app))
        await pilot.resize_terminal(60, 20)
        await pilot.pause(0.2)
        [line] = [line for line in screen_lines(app) if "[image: " in line]
        shown = line[line.index("[image: ") :].split("  ")[0].rstrip(" │▐▌█▃▆")
        assert shown.startswith("[image: [REDACTED_IMAGE_URL") and shown.endswith("…]]"), line


PNG = "data:image/png;base64," + "iVBORw0KGgo" * 2000  # (a pasted image, sent inline)


@pytest.mark.parametrize("width", [6, 12, 40])
def test_a_readers_own_words_are_not_said_twice(width: int) -> None:
    """A reader's words for an image with no address (``[image]``, ``[image image/png]``)
    are shown as they are: ``[image: [image]]`` said it twice."""
    for said in ("[image]", "[image image/png]", "[document application/pdf: spec]"):
        shown = image_placeholder(said, width)
        assert cell_len(shown) <= max(width, len("[image]")) and shown.endswith("]"), shown
        assert "[image: " not in shown
        if cell_len(said) <= width:
            assert shown == said


async def test_a_pasted_codex_image_reads_as_an_image_of_its_type(tmp_path: Path) -> None:
    """A Codex ``input_image`` sent as a ``data:`` URL (a pasted image) is ``[image
    image/png]``, one with no URL ``[image]``: in the item's text (peek's and the
    exports' too), in a tool's output and on screen, never ``[image: [image]]``."""
    path = tmp_path / "rollout-2026-02-23T12-00-00-019c0000-0000-7000-8000-000000000001.jsonl"
    w = RolloutWriter(path)
    w.session_meta()
    blocks = [
        {"type": "input_text", "text": "see"},
        {"type": "input_image", "image_url": PNG},
        {"type": "input_image"},
    ]
    w.write("response_item", {"type": "message", "role": "user", "content": blocks})
    w.function_call("view_image", {"path": "a.png"}, "v1")
    output = [{"type": "input_image", "image_url": "data:image/jpeg;base64,/9j/4AAQ"}]
    w.write("response_item", {"type": "function_call_output", "call_id": "v1", "output": output})
    os.utime(path, (IDLE, IDLE))
    t = CODEX.open(path)
    images = [p.text for item in t.raw for p in item.parts if p.kind == "image"]
    assert images == ["[image image/png]", "[image]"]
    [op] = t.tool_operations
    assert op.result == "[image image/jpeg]"
    async with opened(path, size=(120, 20)) as (app, _pilot, _screen):
        lines = screen_lines(app)
        assert any("[image image/png]" in line for line in lines), lines
        assert not any("[image: " in line for line in lines), lines
