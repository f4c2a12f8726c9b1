"""One representative file per registered format, for the contract suite (test_contract.py).

``FACTORIES`` maps a registered format's name to a function(folder) -> the path of a file
of that format in ``folder``: it makes the folder (and its parents) where it is not there,
and gives the file an old mtime, so that no writer is presumed (a call with no answer
reads as interrupted, not running). The built-ins' files are written here (richer than a
format's own); any other registered format's is its ``contract_sample``, so registering
a format enrols it. One that has neither fails the contract suite.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from agentgo_story import write_agentgo_story
from session_core.formats import FORMATS, TranscriptFormat
from story import OLD_MTIME, write_story


def transcript_v1(tmp_path: Path) -> Path:
    path = tmp_path / "v1.jsonl"
    write_story(path)
    return path


def agentgo_v1(tmp_path: Path) -> Path:
    path = tmp_path / "agentgo.jsonl"
    write_agentgo_story(path)
    return path


def claude_code(tmp_path: Path) -> Path:
    from claude_code_writer import story

    path = story(tmp_path / "claude")
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    return path


def codex(tmp_path: Path) -> Path:
    from codex_writer import story

    path = tmp_path / "rollout.jsonl"
    story(path)
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    return path


Factory = Callable[[Path], Path]

BUILT_IN: dict[str, Factory] = {
    "transcript-v1": transcript_v1,
    "agentgo-v1": agentgo_v1,
    "claude-code": claude_code,
    "codex": codex,
}


def own_sample(fmt: TranscriptFormat) -> Factory:
    """A factory of the format's own ``contract_sample``: its folder made, its file old."""

    def factory(folder: Path) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        written = fmt.contract_sample(str(folder))
        assert written is not None, f"{fmt.name} gives no contract_sample"
        os.utime(written, (OLD_MTIME, OLD_MTIME))
        return Path(written)

    return factory


def gives_a_sample(fmt: TranscriptFormat) -> bool:
    return type(fmt).contract_sample is not TranscriptFormat.contract_sample


class Factories(Mapping[str, Factory]):
    """Every registered format's factory, looked up as it is asked for (a format
    registered after this module was imported is one too): the built-ins' own, else the
    format's ``contract_sample``."""

    def _formats(self) -> dict[str, TranscriptFormat]:
        return {f.name: f for f in FORMATS if f.name in BUILT_IN or gives_a_sample(f)}

    def __getitem__(self, name: str) -> Factory:
        fmt = self._formats().get(name)
        if fmt is None:
            raise KeyError(name)
        return BUILT_IN.get(name) or own_sample(fmt)

    def __iter__(self) -> Iterator[str]:
        return iter(self._formats())

    def __len__(self) -> int:
        return len(self._formats())


FACTORIES = Factories()
