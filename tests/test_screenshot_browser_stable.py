"""The README's browser picture (``screenshots/make_browser.py``) drew its live row's
"last active" as the time it was taken (the live file's mtime: a live row's last
activity is the later of its last record's and its mtime), so ``browser.svg`` changed
at every run. The script sets that mtime to a fixed time: the picture is the same."""

from __future__ import annotations

import html
import importlib.util
import re
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "screenshots" / "make_browser.py"


def _drawn(svg: Path) -> str:
    """The picture's text, its rows one a line (``<text>`` pieces by their height)."""
    rows: dict[float, list[str]] = {}
    for y, piece in re.findall(r'<text[^>]*y="([\d.]+)"[^>]*>([^<]*)</text>', svg.read_text()):
        rows.setdefault(float(y), []).append(html.unescape(piece).replace("\xa0", " "))
    return "\n".join("".join(rows[y]) for y in sorted(rows))


def test_the_browser_picture_is_the_same_whenever_it_is_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # (the script works in a directory of its own)
    monkeypatch.setenv("COLORTERM", "truecolor")  # (the script sets it: kept for others)
    spec = importlib.util.spec_from_file_location("make_browser", SCRIPT)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "browser.svg"
    assert script.main(out) == 0
    drawn = _drawn(out)
    (live,) = [line for line in drawn.splitlines() if "● live" in line]
    assert "Refactor the parser." in live and " 08-09 14:02 " in live, live
    # (the live row first, as while its writer works: the cursor on a crashed file)
    rows = [line for line in drawn.splitlines() if line[:1] in (" ", "▌")]
    assert rows.index(live) < min(i for i, line in enumerate(rows) if "crashed" in line)
