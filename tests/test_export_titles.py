"""An export's title is the session's title as the browser's row gives it (the meta's
``title``), in every format: a v1 export was titled by its agent though its meta had a
title. A message whose response reported no usage says "usage: unknown", once."""

from __future__ import annotations

from pathlib import Path

import pytest

from session_core import Message, Session
from session_core.export import export
from session_core.scan import scan_file


def _v1(path: Path, meta: dict[str, str]) -> Path:
    with Session.create(path, meta=meta) as s:
        s.append_message(Message(role="user", content="go"))
        s.append_message(Message(role="assistant", content="done"))  # (no usage reported)
    return path


@pytest.mark.parametrize(
    ("meta", "title"),
    [
        ({"agent": "nightly", "title": "overnight  refactor\nof the parser"}, None),
        ({"agent": "nightly"}, "nightly — tailscope export"),
    ],
    ids=["titled", "untitled"],
)
def test_a_v1_export_is_titled_as_the_browser_titles_it(
    tmp_path: Path, meta: dict[str, str], title: str | None
) -> None:
    path = _v1(tmp_path / "t.jsonl", meta)
    shown = scan_file(path, live_window=0).title
    heading = export(path, "md").splitlines()[0]
    if title is None:  # (the browser's: one line)
        assert shown == "overnight refactor of the parser"
        assert heading == f"# {shown}"
    else:
        assert heading == f"# {title}"


def test_an_unreported_usage_is_said_once(tmp_path: Path) -> None:
    text = export(_v1(tmp_path / "t.jsonl", {"agent": "a"}), "md")
    assert "usage: unknown (not reported)" in text.replace("\\", "")
    assert "usage unknown (not reported)" not in text.replace("\\", "")
