"""transcript-v1's run contexts in the neutral model, each read from its line when asked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...model import RunContext

if TYPE_CHECKING:
    from ...replay import ReplayState


MISSING = "[this section's body is not in the transcript]"  # the line carrying it is gone


class V1RunContext(RunContext):
    """A run-context line's facts and its sections' bodies (wherever they are carried),
    read from the line when asked for: a big file has 10,000s of runs, and their bodies
    would be kept once each."""

    __slots__ = ("_index", "_state")
    _state: ReplayState
    _index: int

    @classmethod
    def of(cls, state: ReplayState, index: int, line: int) -> V1RunContext:
        context = cls.__new__(cls)
        context._state, context._index, context.line = state, index, line
        context.own_facts = ()
        return context

    @property
    def facts(self) -> list[tuple[str, str]]:  # type: ignore[override]
        record = self._state.run_contexts[self._index]
        return [(str(k), str(v)) for f in record.get("facts", []) if len(f) == 2 for k, v in [f]]

    @property
    def sections(self) -> list[tuple[str, str]]:  # type: ignore[override]
        state = self._state
        out = []
        for section in state.run_contexts[self._index].get("sections", []):
            body = state.run_context_section(str(section.get("digest", "")))
            out.append((str(section.get("name", "")), body if body is not None else MISSING))
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RunContext):
            return NotImplemented
        return (self.facts, self.sections, self.line) == (other.facts, other.sections, other.line)

    def __repr__(self) -> str:
        return f"RunContext(facts={self.facts!r}, sections={self.sections!r}, line={self.line!r})"
