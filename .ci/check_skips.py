"""Fail when pytest skipped a test that CI requires.

Usage: check_skips.py ALLOWED PYTEST_LOG. PYTEST_LOG is the output of ``pytest -rs``; its
short summary has one ``SKIPPED [N] path:line: reason`` line per skip site. ALLOWED lists
the skips that may happen, one ``path: reason substring`` a line (``#`` starts a comment).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

SKIP = re.compile(r"^SKIPPED \[\d+\] (?P<path>[^:]+):\d+: (?P<reason>.*)$")


def main() -> int:
    allowed: list[tuple[str, str]] = []
    for raw in Path(sys.argv[1]).read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if line:
            path, _, reason = line.partition(":")
            allowed.append((path.strip(), reason.strip()))
    bad = []
    for line in Path(sys.argv[2]).read_text(errors="replace").splitlines():
        found = SKIP.match(line.strip())
        if found is None:
            continue
        path, reason = found["path"], found["reason"]
        if not any(path.endswith(p) and r in reason for p, r in allowed):
            bad.append(line.strip())
    if bad:
        print("ci: these tests were skipped, and CI requires them:", file=sys.stderr)
        for line in bad:
            print(f"  {line}", file=sys.stderr)
        return 1
    print("ci: no required test was skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
