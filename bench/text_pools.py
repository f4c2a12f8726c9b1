"""The text every generator here cuts its content from: words, identifiers, files,
shell commands, prose and ~1 MB pools of code, grep output and logs.

Shared so that every format's file reads alike (and a change to a pool changes
every generator's bytes: bump their ``GEN_VERSION``s).
"""

from __future__ import annotations

import random


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


WORDS = _words(
    "session transcript replay compaction elision envelope writer reader cache buffer "
    "handler request response token budget context window summary parser index offset "
    "digest artifact excerpt operation dispatch settle outcome retry timeout backoff "
    "config loader module package import export schema record field column value key "
    "thread lock queue worker pool scheduler event signal stream socket client server "
    "path file directory branch commit diff patch merge rebase test fixture assertion "
    "snapshot render widget layout style theme screen panel tree list table cell row"
)
IDENTS = _words(
    "load_session apply_compaction replay_line read_chunk parse_envelope live_ids "
    "pending_ops tool_result render_tree on_mount refresh_view compute_digest "
    "write_line flush_buffer open_handle close_handle build_index resolve_op "
    "section_body follow_file watch_dir split_lines decode_payload encode_payload "
    "msg env op ctx cfg path data buf idx n i j rows items result state"
)
_TYPES = ("str", "int", "bytes", "bool", "None", "list[str]", "dict[str, Any]", "Path", "Session")
FILES = _words(
    "session_core/session.py session_core/replay.py session_core/peek.py "
    "session_core/follow.py session_core/digest.py viewer/app.py viewer/cli.py "
    "viewer/widgets/tree.py viewer/widgets/detail.py tests/test_replay.py "
    "tests/test_follow.py tests/test_peek.py README.md pyproject.toml docs/format.md"
)
_UNICODE = (
    "naïve café — “quoted” ✓",
    "日本語のテキスト",
    "Grüße aus Köln",
    "emoji 🚀 ok",
    "παράδειγμα",
    "→ ← ↑ ↓ • …",
)
_VERBS = _words(
    "check read update refactor trace fix rename split inline cache validate "
    "simplify document test profile guard extract"
)
_PURPOSES = (
    "keep the replay linear",
    "avoid re-reading the whole file",
    "make the error name the line",
    "handle a CRLF transcript",
    "cope with a torn final line",
    "keep the viewer responsive while following",
    "preserve byte-exact output",
    "stop leaking the file handle",
    "match what the Raku module writes",
    "make the test deterministic",
)


def sentence(rng: random.Random) -> str:
    w = rng.choice
    k = rng.random()
    if k < 0.25:
        return f"I'll {w(_VERBS)} the {w(WORDS)} {w(WORDS)} in `{w(FILES)}` to {w(_PURPOSES)}."
    if k < 0.45:
        return (
            f"The {w(WORDS)} is {w(('already', 'not yet', 'only partly', 'never'))} "
            f"{w(('flushed', 'validated', 'cached', 'sorted', 'closed'))} before `{w(IDENTS)}` "
            f"returns, so the {w(WORDS)} {w(('can', 'cannot', 'must', 'should'))} "
            f"{w(_VERBS)} it."
        )
    if k < 0.6:
        return (
            f"Running the tests again shows {rng.randint(0, 40)} passed and "
            f"{rng.randint(0, 3)} failed in `{w(FILES)}`."
        )
    if k < 0.75:
        return f"Next I need to {w(_VERBS)} `{w(IDENTS)}()` so that it {w(_PURPOSES)[5:]}."
    if k < 0.9:
        return " ".join(w(WORDS) for _ in range(rng.randint(6, 18))).capitalize() + "."
    return f"Note: {w(_UNICODE)} appears in the {w(WORDS)} and must survive the round trip."


def prose(rng: random.Random, n: int) -> str:
    return " ".join(sentence(rng) for _ in range(n))


def _code_line(rng: random.Random, indent: int) -> str:
    w = rng.choice
    pad = "    " * indent
    k = rng.random()
    if k < 0.08:
        return f"{pad}def {w(IDENTS)}(self, {w(IDENTS)}: {w(_TYPES)}) -> {w(_TYPES)}:"
    if k < 0.4:
        return f"{pad}{w(IDENTS)} = {w(IDENTS)}.{w(IDENTS)}({w(IDENTS)}, {rng.randint(0, 999)})"
    if k < 0.5:
        return f"{pad}if {w(IDENTS)} is None or len({w(IDENTS)}) > {rng.randint(1, 64)}:"
    if k < 0.6:
        return f"{pad}return {w(IDENTS)}"
    if k < 0.7:
        return f'{pad}raise TranscriptError(f"{{path}}: line {{n}}: {w(WORDS)} {w(WORDS)}")'
    if k < 0.8:
        return f"{pad}# {' '.join(w(WORDS) for _ in range(rng.randint(3, 10)))}"
    if k < 0.82:
        return f"{pad}# {w(_UNICODE)}"
    if k < 0.9:
        return ""
    return f'{pad}for {w(IDENTS)} in {w(IDENTS)}:  # "{w(WORDS)}"\t{w(WORDS)}'


def build_pools(rng: random.Random, nbytes: int = 1 << 20) -> dict[str, str]:
    """Three ~1 MB text pools (code, grep output, logs) that tool results are cut from."""
    code: list[str] = []
    size = 0
    while size < nbytes:
        indent = rng.randint(0, 2)
        for _ in range(rng.randint(4, 30)):
            line = _code_line(rng, indent)
            indent = max(0, min(3, indent + rng.choice((-1, 0, 0, 0, 1))))
            code.append(line)
            size += len(line) + 1
    grep: list[str] = []
    size = 0
    while size < nbytes:
        line = f"{rng.choice(FILES)}:{rng.randint(1, 2400)}:{_code_line(rng, rng.randint(0, 2))}"
        grep.append(line)
        size += len(line) + 1
    log: list[str] = []
    size = 0
    levels = ("INFO", "INFO", "INFO", "DEBUG", "WARNING", "ERROR")
    while size < nbytes:
        k = rng.random()
        if k < 0.6:
            line = (
                f"2026-08-09 {rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
                f"{rng.randint(0, 59):02d},{rng.randint(0, 999):03d} {rng.choice(levels)} "
                f"{rng.choice(IDENTS)}: {sentence(rng)}"
            )
        elif k < 0.9:
            test = f"tests/test_{rng.choice(WORDS)}.py::test_{rng.choice(IDENTS)}"
            line = f"{test} {rng.choice(('PASSED', 'PASSED', 'PASSED', 'FAILED', 'SKIPPED'))}"
        else:
            where = f'"{rng.choice(FILES)}", line {rng.randint(1, 900)}'
            line = f"  File {where}, in {rng.choice(IDENTS)}"
        log.append(line)
        size += len(line) + 1
    return {"code": "\n".join(code), "grep": "\n".join(grep), "log": "\n".join(log)}


SHELL = (  # what a shell tool is asked to run
    "pytest -q",
    "ruff check .",
    "git status --short",
    "mypy",
    "python -m pytest tests/test_replay.py -x",
    "git diff --stat",
)
