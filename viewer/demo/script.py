"""The demo run, turn by turn, and ``simulate_run``."""

from __future__ import annotations

import time
from collections.abc import Callable

from .agent import Crashed, DemoAgent, ToolOutcome
from .recorders import RECORDERS, Section, Settled, Sleep
from .story import (
    AGENTS_MD_1,
    AGENTS_MD_2,
    BAD_PATCH,
    CHANGELOG,
    CHANGELOG_AFTER,
    FINAL_DIFF,
    FIRST_FAILURE,
    GOOD_PATCH,
    GREP_RESULT,
    IDENTITY,
    MODULO_FAILURE,
    MODULO_PATCH,
    OPS_DIVIDE_RANGE,
    OPS_PY,
    REGRESSION_PATCH,
    REPO,
    SUMMARY,
    SYSTEM_PROMPT,
    TEST_MODULO_EXCERPT,
    TEST_OPS_EXCERPT,
    TOOLS,
    facts,
    verbose_suite,
)


def _script(agent: DemoAgent, crash: bool, at_crash: Callable[[], object] | None) -> None:
    a = agent
    # ---- run 1 ------------------------------------------------------------------------
    a.rec.grants(
        [
            {"tool": "fs_read", "scope": "always"},
            {"tool": "grep", "scope": "always"},
            {"tool": "run_tests", "scope": "always"},
        ]
    )
    a.begin_run(
        "run-1",
        facts(1, a.rec.utc_now().date().isoformat()),
        [Section("identity", IDENTITY), Section("AGENTS.md", AGENTS_MD_1), Section("tools", TOOLS)],
    )
    a.system(SYSTEM_PROMPT)
    a.user(
        "The test test_divide_by_zero in tinycalc started failing after yesterday's refactor. "
        "Can you find out why and fix it? Don't touch the test."
    )

    c = a.call("run_tests", target="tests/")
    a.think(
        "I'll start by running the test suite to see the failure.",
        "Reproduce first: run the whole suite, then read the failing test and the code.",
        c,
    )
    tests1 = a.run_tool(c, ToolOutcome(FIRST_FAILURE, duration=2.2))

    c1 = a.call("fs_read", path="tests/test_ops.py", start=38, end=48)
    c2 = a.call("fs_read", path="calc/ops.py")
    a.think(
        "One failure: `divide` does not raise. Let me read the test and the implementation.",
        "The test expects CalcError('division by zero'); read both sides in parallel.",
        c1,
        c2,
    )
    read_test, read_ops = a.run_parallel(
        [(c1, ToolOutcome(TEST_OPS_EXCERPT, 0.4)), (c2, ToolOutcome(OPS_PY, 0.5))]
    )

    c = a.call("grep", pattern="CalcError", path=".")
    a.think(
        "`divide` returns NaN for a zero divisor. Let me check how CalcError is used elsewhere.",
        "Confirm CalcError is the project's user-facing error and is importable in ops.py.",
        c,
    )
    grep = a.run_tool(c, ToolOutcome(GREP_RESULT, 0.7))

    a.grants(
        [
            {"tool": "fs_read", "scope": "always"},
            {"tool": "grep", "scope": "always"},
            {"tool": "run_tests", "scope": "always"},
            {"tool": "web_fetch", "scope": "session", "host": "docs.python.org"},
        ]
    )
    c = a.call(
        "web_fetch", url="https://docs.python.org/3/library/decimal.html#decimal.DivisionByZero"
    )
    a.think(
        "Before changing it, I'll check what the decimal module itself does on division by zero.",
        "Decimal may trap DivisionByZero depending on context; check the docs to be sure the "
        "explicit check is still needed.",
        c,
    )
    op = a.dispatch(c)
    a.pause(4.5, running=(c,))  # it hangs: shown running until the loop gives up
    hang = ToolOutcome(
        "error: web_fetch did not answer within 30s and was abandoned; whether the request "
        "completed is unknown",
        duration=30.0,
        outcome="outcome-unknown",
        reason="timeout",
    )
    a.finish(c, op, hang)

    a.grants(
        [
            {"tool": "fs_read", "scope": "always"},
            {"tool": "grep", "scope": "always"},
            {"tool": "run_tests", "scope": "always"},
            {"tool": "web_fetch", "scope": "session", "host": "docs.python.org"},
            {"tool": "apply_patch", "scope": "session", "path": REPO},
        ]
    )
    c = a.call("apply_patch", patch=BAD_PATCH)
    a.think(
        "The docs fetch timed out; it isn't needed. The fix is to raise CalcError in `divide`.",
        "Replace the NaN return with raise CalcError('division by zero').",
        c,
    )
    a.run_tool(
        c,
        ToolOutcome(
            "error: patch failed: calc/ops.py:18\n"
            "error: calc/ops.py: patch does not apply (hunk 1 of 1: context does not match)",
            duration=0.3,
            outcome="failed",
            error="patch does not apply: hunk 1 of 1 at calc/ops.py:18",
        ),
    )

    c = a.call("fs_read", path="calc/ops.py", start=21, end=30)
    a.think(
        "The hunk's line numbers were off. Let me re-read the exact lines.",
        "Hunk header said 18; divide starts at 21. Re-read, then rebuild the patch.",
        c,
    )
    a.run_tool(c, ToolOutcome(OPS_DIVIDE_RANGE, 0.3))

    c = a.call("apply_patch", patch=GOOD_PATCH)
    a.think(
        "`divide` starts at line 21. Applying the corrected patch.",
        "Same change, correct context.",
        c,
    )
    a.run_tool(c, ToolOutcome("Applied 1 hunk to calc/ops.py (+1 -1).", 0.3))

    # The compactor's observation aging: the oldest tool results become stubs, in place.
    a.age_observations(
        [(tests1, "run_tests"), (read_test, "fs_read"), (read_ops, "fs_read"), (grep, "grep")]
    )

    c = a.call("run_tests", target="tests/", verbose=True)
    a.think(
        "Patched. Running the full suite verbosely to confirm nothing else changed.",
        "Verbose run so every test is listed; the output will be long.",
        c,
    )
    verbose = a.run_tool(c, ToolOutcome(verbose_suite(a.rng), duration=2.4, artifact_limit=1600))

    a.think(
        'Fixed. `divide` now raises `CalcError("division by zero")` for a zero divisor instead '
        "of returning NaN, which is what `test_divide_by_zero` expects. All 214 tests pass. "
        "Note that `modulo` has the same NaN behaviour; tell me if you want it changed too.",
        "Done; mention modulo, which has the same pattern but no test.",
    )
    a.rec.end_run("run-1")

    # The compactor, as the run hands back: fold everything but the answer into a summary.
    a.compact(SUMMARY, through=verbose)

    # ---- run 2 ------------------------------------------------------------------------
    a.pause(1.5)  # the human reads the answer
    a.begin_run(
        "run-2",
        facts(2, a.rec.utc_now().date().isoformat()),
        [Section("identity", IDENTITY), Section("AGENTS.md", AGENTS_MD_2), Section("tools", TOOLS)],
    )
    a.user(
        "Thanks! Yes, please fix modulo too and add a regression test for it. AGENTS.md now "
        "asks for a CHANGELOG entry, so add one."
    )

    c1 = a.call("fs_read", path="CHANGELOG.md")
    c2 = a.call("fs_read", path="tests/test_ops.py", start=46, end=50)
    a.think(
        "I'll look at the changelog and the end of the modulo tests first.",
        "AGENTS.md changed: a CHANGELOG line is now required. Test first, then the fix.",
        c1,
        c2,
    )
    read_log, read_tail = a.run_parallel(
        [
            (c1, ToolOutcome(CHANGELOG, 0.3)),
            (c2, ToolOutcome(TEST_MODULO_EXCERPT, 0.3)),
        ]
    )

    c = a.call("apply_patch", patch=REGRESSION_PATCH)
    a.think(
        "Adding the regression test and the changelog entry.",
        "Write the test before the fix so it is seen to fail.",
        c,
    )
    a.run_tool(c, ToolOutcome("Applied 2 hunks to 2 files (+6 -0).", 0.4))

    c = a.call("run_tests", target="tests/test_ops.py")
    a.think("Running the ops tests; the new one should fail.", "Expect exactly one failure.", c)
    a.run_tool(c, ToolOutcome(MODULO_FAILURE, 1.4))

    c = a.call("apply_patch", patch=MODULO_PATCH)
    a.think("It fails as expected. Fixing `modulo` the same way.", "Mirror the divide fix.", c)
    a.run_tool(c, ToolOutcome("Applied 1 hunk to calc/ops.py (+1 -1).", 0.3))
    # Observation aging goes on in run 2: these reads stay in place, as stubs.
    a.age_observations([(read_log, "fs_read"), (read_tail, "fs_read")])

    # The last round: three calls, at most two tools at a time.
    suite = a.call("run_tests", target="tests/")
    diff = a.call("git_diff")
    reread_log = a.call("fs_read", path="CHANGELOG.md")
    a.think(
        "Now the whole suite, the diff for review, and a last look at the changelog.",
        "Run everything; check the diff touches only ops.py, the test and CHANGELOG.",
        suite,
        diff,
        reread_log,
    )
    suite_op = a.dispatch(suite)
    diff_op = a.dispatch(diff)
    a.pause(1.0, running=(suite, diff))
    a.context.add(a.rec.tool_result(diff, FINAL_DIFF), FINAL_DIFF)  # the diff is back ...
    if crash:
        # ... and the process dies before its settle lands: git_diff answered but
        # unsettled, run_tests in flight, fs_read never dispatched (no free slot).
        if a.rec.progress_every:
            a.pause(0.6, running=(suite,))  # the suite's progress goes on to the end
        a.rec.crashing()
        if at_crash is not None:
            at_crash()
        raise Crashed
    a.pause(0.25)
    a.rec.tool_settled(Settled(diff_op, "completed", duration=0.4, result=FINAL_DIFF))
    a.pause(2.0)
    suite_out = FIRST_FAILURE.split("\n", 1)[0] + "\n" + "." * 72 + "\n214 passed in 1.93s"
    a.finish(suite, suite_op, ToolOutcome(suite_out, 2.8))
    a.run_tool(reread_log, ToolOutcome(CHANGELOG_AFTER, 0.2))
    a.think(
        'Done: `modulo` now raises `CalcError("division by zero")` like `divide`, with a '
        "regression test, and CHANGELOG.md has an Unreleased entry. All 215 tests pass.",
        "Everything green; summarize.",
    )
    a.rec.end_run("run-2")


def simulate_run(
    path: str,
    *,
    speed: float = 1.0,
    sleep: Sleep = time.sleep,
    crash: bool = True,
    format: str = "transcript-v1",
    at_crash: Callable[[], object] | None = None,
) -> None:
    """Write a simulated agent run to ``path`` (a new file), pacing it for a live viewer.

    ``speed`` scales every pause (2.0 is twice as fast; 0 does not sleep at all).
    With ``crash`` the run ends in a crash: the session is left open (never
    closed) with tool calls in flight; ``at_crash`` is called at that moment,
    with the session still open (the ``write`` command kills the process
    there). Without ``crash`` the run finishes and the session is closed.
    """
    try:
        make = RECORDERS[format]
    except KeyError:
        raise ValueError(
            f"unknown demo format {format!r} (known: {', '.join(RECORDERS)})"
        ) from None
    meta = {
        "agent": "quill",
        "agent-version": "0.9.2",
        "model": "demo-model-1",
        "cwd": REPO,
        "task": "fix the failing test_divide_by_zero",
        "simulated": True,
    }
    recorder = make(path, meta)
    agent = DemoAgent(recorder, speed=speed, sleep=sleep)
    try:
        _script(agent, crash, at_crash)
    except Crashed:
        return  # the session is abandoned, never closed: that is the crash
    recorder.close()
