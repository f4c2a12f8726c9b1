"""The model screen's text, made without a screen: the header's first line, Codex's rate
limits, the operations table's columns at each width, a run's detail."""

from __future__ import annotations

import pytest


def test_rate_limits_read_in_both_shapes_codex_wrote() -> None:
    from viewer.widgets.model_status import rate_limits_text

    nested = {
        "primary": {"used_percent": 12.0, "window_minutes": 300},
        "secondary": {"used_percent": 3.0, "window_minutes": 10080},
    }
    assert rate_limits_text(nested) == "primary 12% of 5h · secondary 3% of 7d"
    flat = {  # older writers
        "primary_used_percent": 40.0,
        "secondary_used_percent": 7.5,
        "primary_window_minutes": 300,
        "secondary_window_minutes": 10080,
    }
    assert rate_limits_text(flat) == "primary 40% of 5h · secondary 7.5% of 7d"
    assert rate_limits_text({"primary_used_percent": 5}) == "primary 5%"
    odd = {"primary": {"used_percent": 1, "window_minutes": 45}}
    assert rate_limits_text(odd) == "primary 1% of 45 min"
    assert rate_limits_text({"other": 1}) == "{'other': 1}"  # kept, on one line
    # one number however written: a float 8.0 and an int 8 read alike, long floats cut
    assert rate_limits_text({"primary_used_percent": 8}) == "primary 8%"
    assert rate_limits_text({"primary_used_percent": 8.0}) == "primary 8%"
    assert rate_limits_text({"primary_used_percent": 33.3333}) == "primary 33.3%"
    assert rate_limits_text({"primary_used_percent": float("nan")}) == "primary nan%"


def test_the_first_line_cuts_the_name_never_the_state() -> None:
    """At 80 columns a rollout's long name pushed "● live", the warnings, a search's
    place and "↓ N new" off the header's first line (the viewer audit): the format's
    title goes first, then the name is cut, never the state."""
    from rich.text import Text

    from viewer.widgets.model_status import top_line

    name = "rollout-2025-10-01T10-11-12-0199aaaa-bbbb-cccc-dddd-eeeeffff0000.jsonl"
    state = Text("● live  ⚠ 1 warning (w)  ↓ 8 new")
    narrow = top_line(name, "Codex rollout", "replayed view · 1.0 MB", state, 80).plain
    assert narrow.endswith(state.plain) and len(narrow) <= 80, narrow
    assert "Codex rollout" not in narrow and "replayed view · 1.0 MB" in narrow
    assert "rollout-2025" in narrow and "…" in narrow
    tight = top_line(name, "Codex rollout", "replayed view · 1.0 MB", state, 60).plain
    assert tight.endswith(state.plain) and len(tight) <= 60, tight  # (the view goes too)
    assert "replayed view" not in tight
    wide = top_line(name, "Codex rollout", "replayed view · 1.0 MB", state, 200).plain
    assert f" {name}  Codex rollout · replayed view · 1.0 MB ● live" in wide


@pytest.mark.parametrize("tool", [5, 12])  # (a Codex rollout's "shell"; a longer name)
@pytest.mark.parametrize("state", [9, 15, 40])  # (completed; outcome unknown; v1's crash states)
@pytest.mark.parametrize("width", [60, 76, 80, 100, 120, 140, 200, 250])
def test_the_operations_line_is_on_screen(width: int, state: int, tool: int) -> None:
    """The arguments take what the other columns leave, so the line column ends inside
    the table (at 140 cells a Codex rollout's lines read "2," and "38": the viewer audit);
    the call id (the least needed: the detail has it) is its start, and goes first on a
    narrow screen, where the arguments would keep fewer than ``ARGS_BEFORE_CALL`` cells
    (at 120 columns it had 32 cells to their 30: the usability audit); where they still
    would, the line goes too and ``took`` narrows (at 80 columns they kept 32 cells to
    those two's 15: a first-time-user audit); past that the table scrolls."""
    from viewer.widgets.model_panes import (
        ARGS_BEFORE_CALL,
        ARGS_WIDTH,
        CALL_WIDTH,
        NARROW_TOOK,
        OP_COLUMNS,
        op_columns,
    )

    columns = op_columns(width, state, tool)
    widths = {key: w for key, _, w in columns}
    keys = list(widths)
    assert keys == [k for k, _, _ in OP_COLUMNS if k in keys]
    assert widths["state"] == state and widths["tool"] == tool
    used = sum(widths.values()) + 2 * len(columns) + 2
    least = state + tool + ARGS_WIDTH[0] + NARROW_TOOK + 2 * 4 + 2  # (the call id, line gone)
    assert used <= width or (width < least and used == least), (width, columns)
    args = widths["args"]
    assert ARGS_WIDTH[0] <= args <= ARGS_WIDTH[1]
    if "call" in keys:
        assert args >= ARGS_BEFORE_CALL and CALL_WIDTH[0] <= widths["call"] <= CALL_WIDTH[1]
        assert widths["call"] == CALL_WIDTH[0] or args == ARGS_WIDTH[1]  # (whole: with room)
    else:
        assert args - 2 - CALL_WIDTH[0] < ARGS_BEFORE_CALL  # (dropped only to keep them)
    if "line" in keys:
        assert keys[-2:] == ["duration", "line"] and widths["duration"] == 8
    else:  # (dropped only to keep them, and took narrowed with it)
        assert widths["duration"] == NARROW_TOOK and "call" not in keys
        assert args - 2 - 7 - (8 - NARROW_TOOK) < ARGS_BEFORE_CALL
    if width == 120 and state <= 15:
        assert "call" in keys and args >= 2 * widths["call"]
    if width == 120:  # (as it was: every column, or all but the call id)
        assert keys[-2:] == ["duration", "line"]
    if width == 80 and state == 9:  # (completed alone: the usual)
        assert args >= ARGS_BEFORE_CALL
    assert dict((k, w) for k, _, w in op_columns(0, state))["args"] == 54  # (not laid out)


def test_a_runs_detail_says_both_its_durations_where_they_differ() -> None:
    """A Claude Code run "took 4m07s" (its turn_duration, the writer's own timing) where
    its lines span 16m07s: the detail says both, and which is which (the viewer audit)."""
    from session_core.model import Run
    from viewer.widgets.model_panes import run_entries

    def took(run: Run) -> str:
        return run_entries(run, 0, None)[1][1]

    timed = Run("r", "finished", 5, 114, "2026-04-18T13:18:42Z", "2026-04-18T13:34:49Z", 247.4)
    assert took(timed).startswith(
        "started 2026-04-18T13:18:42Z · "
        "took 4m07s as its writer timed it; 16m07s from its first line to its last ·"
    )
    by_lines = Run("r", "finished", 5, 114, "2026-04-18T13:18:42Z", "2026-04-18T13:34:49Z", 967.0)
    assert took(by_lines).startswith("started 2026-04-18T13:18:42Z · took 16m07s ·")
    # A run still going: blank in the column, and said so here (it read "took ?")
    assert took(Run("r", "running", 5)).startswith("still running ·")
    assert took(Run("r", "finished", 5)).startswith("took ? ·")  # (no time known)


def test_the_state_and_tool_columns_fit_what_they_hold() -> None:
    """The state column is as wide as the labels of the states the operations are in
    (not "outcome unknown" where none is), the tool column as the widest tool name, up to
    its cap; a format that cannot say its names without reading them gets the cap."""
    from session_core.model import ToolOp
    from viewer.widgets.model_panes import TOOL_WIDTH, state_widths, tool_width

    def state_width(ops: list[ToolOp]) -> int:
        long, short = state_widths(ops)
        assert short == long  # (no crash state: no short label)
        return long

    done = [ToolOp("c1", "Bash", "completed"), ToolOp("c2", "shell", "failed")]
    assert state_width(done) == len("completed")
    assert state_width([*done, ToolOp("c3", "x", "outcome-unknown")]) == len("outcome unknown")
    running = ToolOp("c4", "x", "running", progress="50%")
    assert state_width([*done, running]) == len("completed")  # ("running …")
    assert state_width([]) == len("state")
    crashed = [*done, ToolOp("c5", "x", "unsettled-answered")]
    long, short = len("completed, settle never landed"), len("completed, unsettled")
    assert state_widths(crashed) == (long, short)
    assert tool_width(["shell", "apply_patch", "shell"]) == len("apply_patch")
    assert tool_width(["Bash"], least=9) == 9  # (the names measured before)
    assert tool_width(["AskUserQuestion"]) == TOOL_WIDTH[1] < len("AskUserQuestion")
    assert tool_width([]) == TOOL_WIDTH[0] and tool_width(None) == TOOL_WIDTH[1]


@pytest.mark.parametrize(
    ("arguments", "width", "shown"),
    [
        ({"file_path": "/home/u/pj/lib/web/live/session_live.ex"}, 24, "…eb/live/session_live.ex"),
        # (the path whole where it fits, then the rest cut at its end)
        ({"file_path": "/w/a.py", "limit": 40, "offset": 10}, 20, '/w/a.py  {"limit":4…'),
        ({"path": "/a/long/way/down/to/notes.md"}, 12, "…to/notes.md"),
        ({"path": "/a/b/notes.md", "pattern": "x"}, 12, 'x  {"path":…'),  # (a pattern first)
        ({"command": "cat /a/long/way/down/to/notes.md"}, 12, "cat /a/long…"),  # (its head)
        ('{"file_path": "/x/y/z/mod.rs"}', 8, "…/mod.rs"),  # (written as a JSON string)
        ({"file_path": "/x/y\tz/mod.rs"}, 30, "/x/y␉z/mod.rs"),  # (inert, one line)
    ],
)
def test_the_operations_table_cuts_a_path_before_its_file_name(
    arguments: object, width: int, shown: str
) -> None:
    """A path argument cut to its cell keeps its end, the file name (it was cut at its end:
    dozens of Read and Edit rows read ``/home/u/projects/spotter-worktrees/…/lib/s…`` alike)."""
    from rich.cells import cell_len

    from viewer.widgets.model_panes import fit_op_arguments

    said = fit_op_arguments(arguments, width)
    assert said == shown and cell_len(said) <= width


def test_a_runs_detail_says_no_context_missing_where_its_format_records_none() -> None:
    """Every Claude Code run's detail ended "No run context recorded for this run." (the
    format never records one): said only where the format records run contexts
    (``has_run_contexts``); a fact each run has its own value of (Codex's ``turn_id``,
    ``RunContext.own_facts``) is not marked changed, every turn (the audit on the real
    samples)."""
    from session_core.formats import by_name
    from session_core.model import Run, RunContext
    from viewer.widgets.model_panes import run_entries

    missing = "No run context recorded for this run."
    bare = Run("r", "finished", 5)
    assert missing in [text for _style, text in run_entries(bare, 0, None)]
    assert missing not in [text for _style, text in run_entries(bare, 0, None, contexts=False)]
    assert not by_name("claude-code").has_run_contexts
    assert not by_name("agentgo-v1").has_run_contexts
    assert by_name("codex").has_run_contexts and by_name("transcript-v1").has_run_contexts

    own = ("turn_id",)
    first = RunContext([("turn_id", "t1"), ("model", "a"), ("cwd", "/w")], own_facts=own)
    second = RunContext([("turn_id", "t2"), ("model", "b"), ("cwd", "/w")], own_facts=own)
    facts = [text for _s, text in run_entries(Run("t2", "finished", 9, context=second), 1, first)]
    assert "  turn_id = t2" in facts and "  cwd = /w" in facts
    assert "  model = b   (changed)" in facts
