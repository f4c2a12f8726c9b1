"""The exports' *Compactions and elisions* notes say a compaction's tokens as ``diff``'s
``#`` row and the Diff tab do (``tokens_said``): the count after it too. The audit on
the real Codex sample: ``diff`` said ``209,950 → 48,297 tok``, the export only
``209,950 tokens before``; a Claude Code microcompact's ``tokensSaved`` was lost the
same way."""

from __future__ import annotations

from pathlib import Path

from claude_code_writer import story as cc_story
from codex_writer import story as codex_story

from session_core.diff_model import tokens_said
from session_core.export import export
from session_core.formats import by_name


def test_the_compactions_notes_say_the_tokens_as_diff_does(tmp_path: Path) -> None:
    codex = tmp_path / "rollout-2026-01-01T00-00-00-a.jsonl"
    codex_story(codex)
    files = [("claude-code", cc_story(tmp_path / "cc")), ("codex", codex)]
    arrows = 0
    for name, path in files:
        fmt = by_name(name)
        heads = [r for r in fmt.diff(path).splitlines() if r.startswith("# line ")]
        compactions = fmt.open(str(path)).compactions
        assert compactions, name
        for view in ("replayed", "raw"):
            for kind in ("md", "html"):
                text = export(path, kind, view)  # type: ignore[arg-type]
                for c in compactions:
                    tokens = tokens_said(c)
                    (head,) = [r for r in heads if r.startswith(f"# line {c.line}: ")]
                    assert (f", {tokens}" in head) == bool(tokens), head
                    if not tokens:
                        continue
                    arrows += "→" in tokens
                    said = f"at line {c.line}: "
                    notes = [r for r in text.splitlines() if said in r and tokens in r]
                    assert notes, (name, view, kind, tokens)
    assert arrows, "no compaction with a count after it was looked at"
