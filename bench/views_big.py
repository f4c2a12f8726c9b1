"""Time what a user does after a big transcript has loaded: each tab, the raw view, a search.

    python bench/views_big.py [--sizes 1GB] [--format transcript-v1] [--actions ...] [--smoke]

Headless and in-process (``App.run_test``), on the generated transcript of
``open_big.py`` (another format's: ``model_scale.py``'s), after its whole replay:

* **calls**: agentgo's call tree (``2``), until it has a row per call and run;
* **subagents**: Claude Code's and Codex's (``5``), until it has a row per subagent;
* **tools**: ``3``, until the tool-operations table has a row per operation;
* **contexts**: ``4``, until the list of runs has every run (v1 only);
* **diff**: ``2``, until the diff has a row per message line and summary (v1 only);
* **raw**: back to the conversation, ``r``, until the raw view has its rows;
* **search**: a word searched in the raw view, until every row was looked at
  (a worker does it, the screen stays live; the time is until its result), and
  **search: first match**, until the cursor went to the first match it found;

each with the process's peak RSS after it, beside the same run's bare
``orjson.loads`` loop over the file (the yardstick of ``open_big.py``).

Every wait has a deadline (``--timeout``): an action that never completes
fails the run (exit 1) saying which, and so does a figure that cannot be
(a zero time, a table with no rows where the file has operations).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
# This checkout's build, after a PYTHONPATH's: ``PYTHONPATH=/tmp/base python -P`` names
# the build measured (put first, this checkout's ran whatever PYTHONPATH said).
_GIVEN = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
_AT = max((i + 1 for i, p in enumerate(sys.path) if p and os.path.abspath(p) in _GIVEN), default=0)
sys.path.insert(_AT, str(HERE.parent))

from model_scale import FORMATS, bench_file  # noqa: E402
from open_big import bare_loop, replayed  # noqa: E402
from sanity import Deadline, Figures  # noqa: E402

WIDTH, HEIGHT = 160, 48
WORD = "make"  # in a few of the generated tool results (of every format)
V1 = "transcript-v1"
ACTIONS = ("tools", "contexts", "diff", "raw", "search")  # v1's; another format's:
OTHER_ACTIONS = ("tools", "diff", "raw", "search")  # (its diff: the model screen's)
OFFERED = {
    V1: ACTIONS,
    "agentgo-v1": ("calls", *OTHER_ACTIONS),
    "claude-code": ("subagents", *OTHER_ACTIONS),
    "codex": ("subagents", *OTHER_ACTIONS),
}


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(
    path: Path,
    lines: int,
    timeout: float = 600.0,
    actions: tuple[str, ...] = ACTIONS,
    v1: bool = True,
) -> list[tuple[str, float, float, str]]:
    from viewer.app import TailscopeApp

    results: list[tuple[str, float, float, str]] = []

    async def timed(name: str, act: Callable[[], object], done: Callable[[], str | None]) -> float:
        # The action itself, not a key press: Pilot waits for the screen to settle
        # (0.4 s of animations) after each key, which no user waits for.
        t0 = time.perf_counter()
        deadline = Deadline(timeout, f"the {name} action on {path.name}")
        act()
        while (what := done()) is None:
            deadline.check()
            await asyncio.sleep(0.002)
        results.append((name, time.perf_counter() - t0, peak_mb(), what))
        await asyncio.sleep(0.3)
        return t0

    async def run() -> None:
        app = TailscopeApp(path)
        async with app.run_test(size=(WIDTH, HEIGHT)) as pilot:
            await replayed(app, pilot, lines, timeout)
            await pilot.pause(0.2)
            screen = app.file_screen  # the model screen (v1's with its own panes)
            view = screen.conversation
            ops = screen.ops

            def tools() -> str | None:
                count = ops.table.row_count
                wanted = len(screen.transcript.tool_operations)
                return f"{count:,} rows" if count and count >= wanted else None

            def raw() -> str | None:
                count = len(view.items)
                done = view.mode == "raw" and count == len(screen.transcript.raw) > 0
                return f"{count:,} rows" if done else None

            moved: list[float] = []  # when the search's first match was gone to

            def searched() -> str | None:
                if not moved and view.cursor != start_at:
                    moved.append(time.perf_counter())
                if view.search_term != WORD or view._searched_through != len(view.items):
                    return None
                return f"{len(view.matches):,} matches in {len(view.items):,} rows"

            if "calls" in actions:  # (agentgo's call tree: a row per call and run)
                from viewer.widgets.agentgo_calls import CallsPane

                def calls() -> str | None:
                    pane = screen.query_one(CallsPane)
                    tree, view = pane.call_tree, pane.view
                    wanted = len(view.call_order) + len(view.runs)
                    done = pane.active and len(pane.nodes) == len(view.call_order)
                    count = tree.item_count() if done else 0
                    return f"{count:,} rows" if count and count >= wanted else None

                await timed("calls", lambda: screen.action_show_tab("calls"), calls)
            if "subagents" in actions:  # (Claude Code's and Codex's own tab)
                from viewer.widgets.subagents_pane import SubagentsPane

                def subagents() -> str | None:
                    table = screen.query_one(SubagentsPane).table
                    wanted = len(screen.transcript.subagents)
                    return f"{table.row_count:,} rows" if table.row_count == wanted else None

                await timed("subagents", lambda: screen.action_show_tab("subagents"), subagents)
            if "tools" in actions:
                await timed("tools", lambda: screen.action_show_tab("tools"), tools)
            if v1:  # (its run contexts and diff: v1's own panes)
                from viewer.widgets.diff_view import DiffView
                from viewer.widgets.run_context import RunContextPane

                state = screen.live.replay.state
                runs = screen.query_one(RunContextPane)
                diff = screen.query_one(DiffView)

                def contexts() -> str | None:
                    count = runs.runs_table.row_count
                    return f"{count:,} runs" if count == len(state.run_contexts) else None

                def diffed() -> str | None:
                    count = len(diff.order)
                    wanted = len(state.message_events) + len(state.compactions)
                    return f"{count:,} rows" if count and count == wanted else None

                if "contexts" in actions:
                    await timed("contexts", lambda: screen.action_show_tab("contexts"), contexts)
                if "diff" in actions:
                    await timed("diff", lambda: screen.action_show_tab("changes"), diffed)
            elif "diff" in actions:  # the model screen's (``ModelDiff``)

                def model_diffed() -> str | None:
                    pane = screen.diff  # (measured at its width once laid out)
                    count = len(pane.entries)
                    done = len(pane.heights) == count and pane.measured_width == pane.content_width
                    return f"{count:,} rows" if count and done else None

                await timed("diff", lambda: screen.action_show_tab("diff"), model_diffed)
            screen.action_show_tab("conversation")
            await pilot.pause(0.3)
            if "raw" in actions or "search" in actions:
                await timed("raw", screen.action_toggle_mode, raw)
            if "search" in actions:
                start_at = view.cursor
                t0 = await timed("search", lambda: view.search(WORD), searched)
                if moved:
                    at = f"row {view.cursor:,}"
                    results.append(("search: first match", moved[0] - t0, peak_mb(), at))

    asyncio.run(run())
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1GB")
    parser.add_argument("--format", default=V1, choices=FORMATS)
    parser.add_argument(
        "--actions",
        default="",
        help="some of the format's: "
        + "; ".join(f"{fmt}: {','.join(OFFERED.get(fmt, OTHER_ACTIONS))}" for fmt in FORMATS)
        + " (raw comes with search)",
    )
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--smoke", action="store_true", help="2MB (for CI)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per wait")
    args = parser.parse_args(argv)
    sizes = ["2MB"] if args.smoke else args.sizes.split(",")
    v1 = args.format == V1
    offered = OFFERED.get(args.format, OTHER_ACTIONS)
    asked = tuple(a for a in args.actions.split(",") if a) or offered
    unknown = [a for a in asked if a not in offered]
    if unknown:
        parser.error(f"{args.format} has no action {', '.join(unknown)} here (of {offered})")
    actions = tuple(a for a in offered if a in asked or (a == "raw" and "search" in asked))
    figures = Figures()
    print(f"{args.format}:")
    print("| file | action | time | peak RSS after | what |")
    print("|---|---|---:|---:|---|")
    for size_text in sizes:
        path, _marker, lines = bench_file(args.data_dir, args.format, size_text)
        loop = bare_loop(path)
        figures.positive(f"{size_text}: the bare orjson loop", loop)
        results = measure(path, lines, args.timeout, actions, v1)
        wanted = len(actions)
        measured = sum(1 for result in results if result[0] in actions)
        figures.true(f"{size_text}: {measured} of {wanted} actions measured", measured == wanted)
        for name, seconds, peak, what in results:
            print(
                f"| {size_text} | {name} | {seconds:.2f} s ({seconds / loop:.2f}× the loop) "
                f"| {peak:,.0f} MB | {what} |"
            )
            figures.positive(f"{size_text} {name}: its time", seconds)
            figures.positive(f"{size_text} {name}: the peak RSS", peak)
            if not name.startswith(("search", "subagents")):  # (a file may have none)
                figures.true(f"{size_text} {name}: no rows ({what})", not what.startswith("0 "))
        print(f"\nbare orjson.loads loop over {size_text}: {loop:.2f} s (this run)")
    return figures.verdict()


if __name__ == "__main__":
    sys.exit(main())
