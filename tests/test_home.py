"""``tailscope`` with no path: each format's default roots in one browser, or a welcome."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from claude_code_writer import story
from helpers import fingerprint, screen_text, wait_for

from session_core.scan import default_roots, list_transcript_paths
from viewer.app import TailscopeApp
from viewer.screens.browser import BrowserScreen
from viewer.screens.welcome import WelcomeScreen


def _claude_tree(home: Path) -> Path:
    project = home / "projects" / "-home-dev-src-tinycalc"
    project.mkdir(parents=True)
    return story(project, torn=False)


def test_default_roots_honour_the_environment(tmp_path: Path) -> None:
    claude = tmp_path / "claude-config"
    (claude / "projects").mkdir(parents=True)
    env = {"HOME": str(tmp_path / "nobody"), "CLAUDE_CONFIG_DIR": str(claude)}
    assert str(claude / "projects") in default_roots(env)
    # HOME's ~/.claude/projects, when no $CLAUDE_CONFIG_DIR
    (tmp_path / "home" / ".claude" / "projects").mkdir(parents=True)
    found = default_roots({"HOME": str(tmp_path / "home")})
    assert found[:1] == [str(tmp_path / "home" / ".claude" / "projects")]
    # a root that does not exist is not offered
    assert default_roots({"HOME": str(tmp_path / "empty")}) == []


def test_subagent_files_are_not_sessions_of_their_own(tmp_path: Path) -> None:
    session = _claude_tree(tmp_path)
    subagents = session.with_suffix("") / "subagents"
    assert any(subagents.glob("agent-*.jsonl")), "the writer gives the session a subagent"
    paths, problems = list_transcript_paths(tmp_path)
    assert paths == [str(session)] and problems == []


async def test_no_path_opens_the_browser_over_the_roots(tmp_path: Path) -> None:
    session = _claude_tree(tmp_path / "claude")
    other = tmp_path / "elsewhere"
    other.mkdir()
    shutil.copy(session, other / "copy.jsonl")
    before = fingerprint(session)
    app = TailscopeApp([str(tmp_path / "claude" / "projects"), str(other)])
    async with app.run_test(size=(140, 30)) as pilot:
        assert isinstance(app.screen, BrowserScreen)
        browser = app.screen
        await wait_for(pilot, lambda: not browser.scanning and len(browser.rows) == 2, 15)
        rels = sorted(row.rel for row in browser.rows.values())
        # below each root's parent, so that the trees tell themselves apart
        assert rels[0].startswith("claude/projects/-home-dev-src-tinycalc/"), rels
        assert rels[1] == "elsewhere/copy.jsonl" or rels[1].endswith("copy.jsonl"), rels
        assert "claude-code" in {row.format for row in browser.rows.values()}
    assert fingerprint(session) == before


async def test_no_roots_shows_how_to_begin(tmp_path: Path) -> None:
    app = TailscopeApp([])
    async with app.run_test(size=(120, 30)) as pilot:
        assert isinstance(app.screen, WelcomeScreen)
        text = screen_text(app)
        assert "No agent sessions were found here" in text
        assert "tailscope path/to/transcript.jsonl" in text
        await pilot.press("d")
    assert app.return_value == "demo"


async def test_the_welcome_box_fits_80_columns() -> None:
    """It was 84 columns wide: at 80 its right border was off the screen."""
    from textual.containers import Vertical

    app = TailscopeApp([])
    async with app.run_test(size=(80, 24)):
        assert isinstance(app.screen, WelcomeScreen)
        assert app.screen.query_one(Vertical).region.right <= 80


@pytest.mark.parametrize("argv", [[]])
def test_the_command_with_no_path_runs_the_home_view(
    argv: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import viewer.cli as cli

    seen: list[object] = []

    class Recorder:
        return_code = 0  # (as Textual's app has it, once run)

        def __init__(self, roots: object) -> None:
            seen.append(roots)

        def run(self) -> None:
            return None

    monkeypatch.setattr("viewer.app.TailscopeApp", Recorder)
    monkeypatch.setattr("session_core.scan.default_roots", lambda: ["/r1", "/r2"])
    monkeypatch.setattr(cli, "no_terminal", lambda: None)  # (a test has no terminal)
    assert cli.main(argv) == 0
    assert seen == [["/r1", "/r2"]]


def test_codex_home_and_its_compressed_copies(tmp_path: Path) -> None:
    from codex_writer import story as codex_story
    from codex_writer import zst_copy

    day = tmp_path / "codex" / "sessions" / "2026" / "02" / "23"
    day.mkdir(parents=True)
    plain = day / "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
    codex_story(plain)
    zst_copy(str(plain), str(plain) + ".zst")
    alone = day / "rollout-2026-02-23T13-00-00-019c8a59-e9dd-71f0-9ae3-000000000002.jsonl"
    codex_story(alone)
    zst_copy(str(alone), str(alone) + ".zst")
    alone.unlink()
    env = {"HOME": str(tmp_path / "nobody"), "CODEX_HOME": str(tmp_path / "codex")}
    assert default_roots(env) == [str(tmp_path / "codex" / "sessions")]
    # archived rollouts are sessions too (they were not listed with no path)
    archived = tmp_path / "codex" / "archived_sessions"
    archived.mkdir()
    codex_story(archived / "rollout-2026-01-15T08-00-00-019c478c-0000-7000-8000-000000000003.jsonl")
    assert default_roots(env) == [
        str(tmp_path / "codex" / s) for s in ("sessions", "archived_sessions")
    ]
    assert len(list_transcript_paths(archived)[0]) == 1
    paths, _ = list_transcript_paths(tmp_path / "codex" / "sessions")
    # the plain file wins over its compressed copy; a compressed one alone is listed
    assert paths == [str(plain), str(alone) + ".zst"]


def test_a_session_row_names_its_project_and_title(tmp_path: Path) -> None:
    from codex_writer import story as codex_story

    from session_core.scan import scan_file

    path = tmp_path / "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
    codex_story(path)
    row = scan_file(path)
    meta_cwd = str(open_cwd(path))
    assert row.agent == Path(meta_cwd).name
    assert row.title  # the first prompt, when the file has no title of its own
    assert row.title == "fix the bug"  # the first turn's prompt, not injected context


def open_cwd(path: Path) -> str:
    import orjson

    first = orjson.loads(path.read_bytes().splitlines()[0])
    return str(first["payload"]["cwd"])
