"""What the demo agent reads, writes and says: a tiny calculator and its failing test."""

from __future__ import annotations

import random

# --- the script ---------------------------------------------------------------------------


REPO = "/home/dev/src/tinycalc"

SYSTEM_PROMPT = """\
You are quill, a careful coding agent working in a git repository on the user's machine.

Work in small, verifiable steps: read before you edit, run the tests before and after a \
change, and never weaken a test to make it pass. Prefer `apply_patch` for edits and keep \
patches minimal. When a tool fails, read the error before retrying. Say what you changed \
and how you checked it when you are done."""

IDENTITY = """\
# Identity
You are quill 0.9.2, running for dev@example.com.
You may read and edit files under the working directory and run its tests.
You may not push, publish, or contact hosts other than the ones granted."""

AGENTS_MD_1 = """\
# AGENTS.md (tinycalc)
- Run the tests with `pytest -q`; the suite must stay green.
- Public functions in `calc/` are typed; keep them typed.
- Errors the user can see are `calc.errors.CalcError`, with a lower-case message.
- Do not change a test to make it pass; fix the code."""

AGENTS_MD_2 = (
    AGENTS_MD_1
    + """
- Every user-visible fix gets a line in CHANGELOG.md under `## Unreleased`."""
)

TOOLS = """\
# Tools
- fs_read(path, start?, end?): read a file, optionally a line range
- grep(pattern, path?): search the repository
- run_tests(target?, verbose?): run pytest and return its output
- apply_patch(patch): apply a unified diff to the working tree
- git_diff(): the working tree's diff against HEAD
- web_fetch(url): fetch a page (only granted hosts)"""

OPS_PY = '''\
"""Arithmetic operations for tinycalc."""

from decimal import Decimal

from .errors import CalcError


def add(a: Decimal, b: Decimal) -> Decimal:
    return a + b


def subtract(a: Decimal, b: Decimal) -> Decimal:
    return a - b


def multiply(a: Decimal, b: Decimal) -> Decimal:
    return a * b


def divide(a: Decimal, b: Decimal) -> Decimal:
    if b == 0:
        return Decimal("NaN")
    return a / b


def modulo(a: Decimal, b: Decimal) -> Decimal:
    if b == 0:
        return Decimal("NaN")
    return a % b


def power(a: Decimal, b: Decimal) -> Decimal:
    if b != b.to_integral_value() and a < 0:
        raise CalcError("fractional power of a negative number")
    return a**b
'''

TEST_OPS_EXCERPT = """\
 38  def test_divide() -> None:
 39      assert divide(Decimal("7"), Decimal("2")) == Decimal("3.5")
 40
 41
 42  def test_divide_by_zero() -> None:
 43      with pytest.raises(CalcError, match="division by zero"):
 44          divide(Decimal("1"), Decimal("0"))
 45
 46
 47  def test_modulo() -> None:
 48      assert modulo(Decimal("7"), Decimal("3")) == Decimal("1")
"""


def _failure(command: str, progress: str, test: str, at: int, summary: str) -> str:
    """``pytest -q``'s output where one test (``test``, failing at line ``at`` of
    tests/test_ops.py) did not raise the CalcError it expects."""
    return (
        f"$ pytest -q {command}\n{progress}\n"
        f"{' FAILURES '.center(80, '=')}\n{f' {test} '.center(80, '_')}\n\n"
        f"    def {test}() -> None:\n"
        '>       with pytest.raises(CalcError, match="division by zero"):\n'
        "E       Failed: DID NOT RAISE <class 'calc.errors.CalcError'>\n\n"
        f"tests/test_ops.py:{at}: Failed\n{summary}"
    )


FIRST_FAILURE = _failure(
    "tests/",
    "........................................F............................... [ 33%]\n"
    "........................................................................ [ 67%]\n"
    "......................................................................   [100%]",
    "test_divide_by_zero",
    43,
    f"{' short test summary info '.center(80, '=')}\n"
    "FAILED tests/test_ops.py::test_divide_by_zero - Failed: DID NOT RAISE <class "
    "'calc.errors.CalcError'>\n"
    "1 failed, 213 passed in 1.84s",
)

GREP_RESULT = """\
calc/errors.py:4:class CalcError(ValueError):
calc/errors.py:5:    \"\"\"An error the user made, with a message worth showing them.\"\"\"
calc/ops.py:5:from .errors import CalcError
calc/ops.py:39:        raise CalcError("fractional power of a negative number")
calc/parser.py:12:from .errors import CalcError
calc/parser.py:57:            raise CalcError(f"unexpected token {tok!r} at column {col}")
calc/cli.py:31:    except CalcError as err:
tests/test_ops.py:6:from calc.errors import CalcError
tests/test_ops.py:43:    with pytest.raises(CalcError, match="division by zero"):
tests/test_parser.py:9:from calc.errors import CalcError"""

BAD_PATCH = """\
--- a/calc/ops.py
+++ b/calc/ops.py
@@ -18,4 +18,4 @@
 def divide(a: Decimal, b: Decimal) -> Decimal:
-    if b == 0:
-        return Decimal("NaN")
+    if b == 0:
+        raise CalcError("division by zero")
     return a / b"""


def _raise_patch(name: str, at: int, operator: str) -> str:
    """The patch that makes ``name`` (at line ``at`` of calc/ops.py) raise on a zero divisor."""
    return (
        f"--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -{at},6 +{at},6 @@\n"
        f" def {name}(a: Decimal, b: Decimal) -> Decimal:\n"
        "     if b == 0:\n"
        '-        return Decimal("NaN")\n'
        '+        raise CalcError("division by zero")\n'
        f"     return a {operator} b\n"
    )


GOOD_PATCH = _raise_patch("divide", 21, "/")

OPS_DIVIDE_RANGE = """\
 21  def divide(a: Decimal, b: Decimal) -> Decimal:
 22      if b == 0:
 23          return Decimal("NaN")
 24      return a / b
 25
 26
 27  def modulo(a: Decimal, b: Decimal) -> Decimal:
 28      if b == 0:
 29          return Decimal("NaN")
 30      return a % b"""

CHANGELOG = """\
# Changelog

## Unreleased

## 0.4.1 (2026-06-30)
- The parser reports the column of an unexpected token.

## 0.4.0 (2026-05-12)
- `power` accepts fractional exponents.
- New `tinycalc --precision N` option."""

CHANGELOG_ENTRY = (
    '- `divide` and `modulo` raise `CalcError("division by zero")` instead of returning NaN.'
)

CHANGELOG_AFTER = CHANGELOG.replace("## Unreleased\n", f"## Unreleased\n{CHANGELOG_ENTRY}\n")

TEST_MODULO_EXCERPT = """\
 46
 47  def test_modulo() -> None:
 48      assert modulo(Decimal("7"), Decimal("3")) == Decimal("1")
 49
 50"""

REGRESSION_PATCH = """\
--- a/tests/test_ops.py
+++ b/tests/test_ops.py
@@ -50,0 +51,5 @@
+
+
+def test_modulo_by_zero() -> None:
+    with pytest.raises(CalcError, match="division by zero"):
+        modulo(Decimal("1"), Decimal("0"))
--- a/CHANGELOG.md
+++ b/CHANGELOG.md
@@ -3,0 +4 @@
+- `divide` and `modulo` raise `CalcError("division by zero")` instead of returning NaN.
"""

MODULO_FAILURE = _failure(
    "tests/test_ops.py",
    "...........................F.                                            [100%]",
    "test_modulo_by_zero",
    54,
    "1 failed, 28 passed in 0.21s",
)

MODULO_PATCH = _raise_patch("modulo", 27, "%")

FINAL_DIFF = """\
 CHANGELOG.md      | 1 +
 calc/ops.py       | 4 ++--
 tests/test_ops.py | 5 +++++
 3 files changed, 8 insertions(+), 2 deletions(-)

diff --git a/calc/ops.py b/calc/ops.py
@@ -21,6 +21,6 @@ def divide(a: Decimal, b: Decimal) -> Decimal:
     if b == 0:
-        return Decimal("NaN")
+        raise CalcError("division by zero")
@@ -27,6 +27,6 @@ def modulo(a: Decimal, b: Decimal) -> Decimal:
     if b == 0:
-        return Decimal("NaN")
+        raise CalcError("division by zero")"""

SUMMARY = (
    "[Summary of earlier conversation] The user asked to fix the failing test "
    "`tests/test_ops.py::test_divide_by_zero` in tinycalc. The first test run showed 1 failed, "
    '213 passed: `divide` returned Decimal("NaN") for a zero divisor where the test expects '
    '`CalcError("division by zero")`. `CalcError` lives in `calc/errors.py` (a ValueError '
    "subclass) and is already imported by `calc/ops.py`. A fetch of the `decimal` docs on "
    "DivisionByZero timed out (outcome unknown; not needed). A first patch did not apply "
    "(wrong line numbers); after re-reading lines 21-30 the corrected patch made `divide` raise "
    '`CalcError("division by zero")`, and the full verbose run passed (214 passed; its output '
    "is stored as an artifact). `modulo` still returns NaN for a zero divisor and has no test."
)


def verbose_suite(rng: random.Random) -> str:
    """The output of ``pytest -v`` over the whole suite: big enough to become an artifact."""
    modules = {
        "tests/test_ops.py": ["add", "subtract", "multiply", "divide", "modulo", "power"],
        "tests/test_parser.py": ["number", "unary", "binary", "parens", "precedence", "errors"],
        "tests/test_cli.py": ["precision", "stdin", "argv", "exit_code", "help", "version"],
        "tests/test_format.py": ["fixed", "scientific", "grouping", "rounding", "padding", "nan"],
    }
    cases = ["ints", "decimals", "negatives", "large", "small", "mixed", "zero", "unicode", "edge"]
    names: list[str] = []
    for module, topics in modules.items():
        for topic in topics:
            for case in cases:
                names.append(f"{module}::test_{topic}_{case}")
    names = names[:214]
    lines = [
        "$ pytest -v tests/",
        "============================= test session starts ==============================",
        "platform linux -- Python 3.12.4, pytest-8.3.2, pluggy-1.5.0 -- .venv/bin/python",
        f"rootdir: {REPO}",
        "configfile: pyproject.toml",
        f"collected {len(names)} items",
        "",
    ]
    for index, name in enumerate(names, start=1):
        percent = index * 100 // len(names)
        lines.append(f"{name} PASSED{' ' * max(1, 60 - len(name))}[{percent:3d}%]")
    seconds = 1.7 + rng.random() * 0.4
    lines += [
        "",
        "============================= slowest 5 durations ==============================",
        "0.31s call     tests/test_cli.py::test_stdin_large",
        "0.12s call     tests/test_format.py::test_rounding_edge",
        "0.05s call     tests/test_parser.py::test_precedence_mixed",
        "0.02s setup    tests/test_cli.py::test_precision_ints",
        "0.01s call     tests/test_ops.py::test_power_negatives",
        f"============================= {len(names)} passed in {seconds:.2f}s "
        "==============================",
    ]
    return "\n".join(lines)


def facts(run: int, day: str) -> list[tuple[str, str]]:
    """Run ``run``'s context facts, on ``day`` (the recorders' clock's: fixed for the
    screenshots)."""
    return [
        ("date", day),
        ("cwd", REPO),
        ("branch", "fix/divide-by-zero"),
        ("head", "3f9c2e1" if run == 1 else "3f9c2e1 (+1 modified: calc/ops.py)"),
        ("model", "demo-model-1 (simulated)"),
        ("os", "linux"),
    ]
