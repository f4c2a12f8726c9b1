"""Names a file gives (a role, a line type, the file's own name) reach the screen inert in
the dialogs and toasts too: a terminal obeyed an OSC 52 sequence in a role from the
filter dialog's lists, and in a file's name from the export dialog's box and its toast
(the hostile-content audit: each put text on the clipboard)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from format_fixtures import FACTORIES
from helpers import app_loaded, wait_for

from session_core.scan import FileSummary
from viewer.browser_cells import detail
from viewer.cli import main
from viewer.screens.export import suggested_output
from viewer.screens.filter import FilterScreen
from viewer.screens.model_screen import ModelScreen

OSC52 = "\x1b]52;c;RVhQT1JU\x07"


async def test_the_filter_dialog_and_every_toast_show_names_inert(tmp_path: Path) -> None:
    from textual.widgets import SelectionList

    path = FACTORIES["transcript-v1"](tmp_path)
    async with app_loaded(path, ModelScreen, (120, 30)) as (app, pilot):
        app.notify(f"Exported HTML to x{OSC52}.html", title=f"t{OSC52}")
        await wait_for(pilot, lambda: bool(list(app._notifications)))
        notes = list(app._notifications)
        assert notes and all("\x1b" not in str(n.message) + n.title for n in notes)
        assert any("␛]52" in str(n.message) for n in notes), notes
        roles = (f"user{OSC52}", "[/oops]", "assistant")
        await app.push_screen(FilterScreen.conversation(None, None, roles, ("x-note\x9b2J",)))
        await wait_for(pilot, lambda: isinstance(app.screen, FilterScreen))
        prompts = [
            str(option.prompt)
            for lists in app.screen.query(SelectionList)
            for option in lists._options
        ]
        assert len(prompts) == 4
        assert all("\x1b" not in p and "\x9b" not in p and "\x07" not in p for p in prompts)
        assert "user␛]52;c;RVhQT1JU␇" in prompts and "[/oops]" in prompts
        # the values are the names as the file has them: a tick filters by those
        values = [o.value for lists in app.screen.query(SelectionList) for o in lists._options]
        assert values[0] == roles[0]
        assert app.is_running


def test_the_export_box_offers_a_name_it_can_show(tmp_path: Path) -> None:
    plain = str(tmp_path / "run.jsonl")
    assert suggested_output(plain, "html") == str(tmp_path / "run.html")
    odd = str(tmp_path / f"x{OSC52}\tz.jsonl")
    assert suggested_output(odd, "md") == str(tmp_path / "x_]52;c;RVhQT1JU__z.md")
    folder = tmp_path / "in\x1bc"
    offered = suggested_output(str(folder / "run.jsonl"), "md")
    assert offered == os.path.join(os.getcwd(), "run.md")


def test_the_line_under_the_browser_tells_a_tab_in_a_name() -> None:
    summary = FileSummary(path="/d/tab\there.jsonl", rel="tab\there.jsonl", size=10)
    line = detail(summary, summary.path).plain
    assert "/d/tab␉here.jsonl" in line and "    " not in line.split("\n")[0][:20]


@pytest.mark.parametrize(
    "args",
    [
        ["diff", "a.jsonl", "b.jsonl", "\x1b[41mRED\x1b]0;title\x07.jsonl"],  # (a glob's third)
        ["-\x1b]52;c;cGF5bG9hZA==\x07"],
        ["export", "--format", "\x1b[2J[bold]md", "a.jsonl"],
    ],
)
def test_a_usage_refusal_quotes_names_inert(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """argparse's "unrecognized arguments" quoted a glob's file names raw: the terminal
    obeyed their escapes (a colour, its title, the clipboard)."""
    with pytest.raises(SystemExit) as info:
        main(args)
    err = capsys.readouterr().err
    assert info.value.code == 2 and "\x1b" not in err and "\x07" not in err
    refusal = err.splitlines()[-1]  # (after the usage: the refusal, on one line)
    assert refusal.startswith("tailscope") and " error: " in refusal
    assert "␛" in refusal or "\\x1b" in refusal  # (shown: a mark, or argparse's repr)


@pytest.mark.parametrize("fmt", sorted(FACTORIES))
def test_an_export_tells_a_tab_in_its_files_name(tmp_path: Path, fmt: str) -> None:
    """The md and html exports showed a tab in the file's name as spaces, where ``check``,
    ``diff``, the browser and the header show ``␉`` (one rule for names)."""
    from session_core.export import export

    path = FACTORIES[fmt](tmp_path)
    named = path.with_name("tab\there.jsonl")
    os.rename(path, named)
    assert "tab␉here.jsonl |" in export(named, "md")
    assert "tab␉here.jsonl</td>" in export(named, "html")
