"""How long a followed Claude Code session takes for one response split over many lines.

    python bench/split_follow.py [--lines 1000,2000,4000,8000] [--every 20]
                                 [--shapes text,inter,parallel]

Claude Code writes one line per content block of a streamed response, all sharing its
``message.id``. A follower assembles the session every few lines (``--every``); each
assembly should cost what came since the last, not the whole response. For each shape
and size a file is written (one prompt, one response of ``N`` lines, a closing
response) and fed to a builder, assembled every ``--every`` lines; printed: the time
of the whole follow and its time per line (flat when the follow is linear).

Shapes: ``text`` (a text block a line), ``inter`` (a call a line, each answered by a
result hung from its line before the next call: ``N`` lines of the response, ``N``
results), ``parallel`` (``N`` calls, then their ``N`` results: every call open while
the response is written).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# This checkout's build, after a PYTHONPATH's: ``PYTHONPATH=/tmp/base python -P`` names
# the build measured (put first, this checkout's ran whatever PYTHONPATH said).
_GIVEN = {os.path.abspath(p) for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p}
_AT = max((i + 1 for i, p in enumerate(sys.path) if p and os.path.abspath(p) in _GIVEN), default=0)
sys.path.insert(_AT, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "tests"))

from claude_code_writer import CCWriter, text, tool_use  # noqa: E402

from session_core.file_lines import read_lines  # noqa: E402
from session_core.formats import CLAUDE_CODE, by_name  # noqa: E402


def write(path: Path, lines: int, shape: str) -> Path:
    w = CCWriter()
    w.user("go")
    if shape == "text":
        w.assistant("msg_1", [text(f"block {i}") for i in range(lines)])
    elif shape == "inter":
        for i in range(lines):
            (line,) = w.assistant("msg_1", [tool_use(f"t{i}", "Bash", command=f"echo {i}")])
            w.result(f"t{i}", f"out {i}", parent=line)
    else:
        calls = [tool_use(f"t{i}", "Bash", command=f"echo {i}") for i in range(lines)]
        for i, line in enumerate(w.assistant("msg_1", calls)):
            w.result(f"t{i}", f"out {i}", parent=line)
    w.assistant("msg_2", [text("done")])
    return w.write(path)


def follow(path: Path, every: int) -> float:
    """Seconds to feed the file's lines, assembling every ``every`` lines."""
    fmt = by_name(CLAUDE_CODE)
    builder = fmt.builder(str(path))
    lines = list(read_lines(str(path), builder))
    start = time.perf_counter()
    for fed, (number, raw, span) in enumerate(lines, 1):
        builder.lines, builder.span, builder.line_bytes = number, span, len(raw)
        builder.feed_line(raw, number)
        if fed % every == 0:
            builder.transcript(writer_alive=True)
    builder.transcript(writer_alive=True)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", default="1000,2000,4000,8000")
    parser.add_argument("--every", type=int, default=20)
    parser.add_argument("--shapes", default="text,inter,parallel")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as where:
        for shape in args.shapes.split(","):
            for lines in map(int, args.lines.split(",")):
                path = write(Path(where) / f"{shape}-{lines}.jsonl", lines, shape)
                took = follow(path, args.every)
                per = took / lines * 1e6
                print(f"{shape:8} {lines:6} lines  {took:7.3f} s  {per:6.1f} µs/line", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
