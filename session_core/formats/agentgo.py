"""agentgo-v1 on the format seam: its strict reader, view, peek, summary and export."""

from __future__ import annotations

import os
from typing import IO, TYPE_CHECKING, Any, ClassVar

from ..model import Item, Part, Run, ToolOp, Transcript, Usage, classify_op
from ..text import count
from .base import Builder, TranscriptFormat

if TYPE_CHECKING:
    from ..agentgo.view import AgentGoView
    from ..exportdoc import Document, View
    from ..peeking import PeekResult
    from ..scan import FileRead

NAME = "agentgo-v1"


class AgentGoBuilder(Builder):
    """The agentgo view fed record by record (a rule broken is a warning, as when live)."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        from ..agentgo.live import LiveAgentGo

        self.live = LiveAgentGo(path)

    def feed(self, record: dict[str, Any], line: int) -> None:
        from ..following import FollowUpdate

        update = FollowUpdate(envelopes=[record], lines=[line])
        self.live.apply(update)

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        view = self.live.view
        view.warnings[:0] = [w for w in self.warnings if w not in view.warnings]
        return transcript_of(view, self.path, writer_alive)


class AgentGoFormat(TranscriptFormat):
    name: ClassVar[str] = NAME
    title: ClassVar[str] = "agentgo-v1 session"
    writable: ClassVar[bool] = True
    locks: ClassVar[bool] = True
    first_line: ClassVar[str] = "an agentgo session_start"
    extra_panes: ClassVar[tuple[str, ...]] = ("calls", "checkpoints", "timeline")

    def claims(self, record: dict[str, Any]) -> bool:
        return record.get("type") == "session_start" and "session_id" in record and "seq" in record

    def builder(self, path: str) -> Builder:
        return AgentGoBuilder(path)

    def _view(self, path: str | os.PathLike[str], writer_alive: bool | None) -> AgentGoView:
        from ..agentgo.reader import read_view

        view = read_view(path)
        view.writer_alive = writer_alive
        return view

    def open(self, path: str | os.PathLike[str], *, writer_alive: bool | None = None) -> Transcript:
        where = os.fspath(path)
        return transcript_of(self._view(where, writer_alive), where, writer_alive)

    def replay_json(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        from ..gc_pause import paused
        from ..writers import writer_holds_lock

        where = os.fspath(path)
        view = self._view(where, None)
        with paused():  # everything it reads again is kept in the result: none is cyclic
            out = view.to_json()  # the format's own keys, as they always were
            shared = transcript_of(view, where, writer_holds_lock(where)).to_json()
        for key in ("tool-operations", "compactions", "usage"):
            out[key] = shared[key]
        return out

    def write_replay(self, path: str | os.PathLike[str], out: IO[bytes]) -> None:
        from ..views import dump_json

        out.write(dump_json(self.replay_json(path)))

    def check(self, path: str | os.PathLike[str]) -> str:
        """Read strictly, streaming: what the note says is counted, no record is kept."""
        from ..agentgo.reader import read_view

        view = read_view(path, keep=False)
        note = f"{NAME}, {count(len(view.messages), 'message')}"
        gaps = len(view.gaps())
        if gaps:
            note += f", {count(gaps, 'gap')} (runs or calls without their terminal event)"
        for warning in view.warnings:
            note += f"; warning: {warning}"
        return note

    def peek_into(self, result: PeekResult) -> None:
        from ..peeking import peek_agentgo

        peek_agentgo(result)

    def document(self, path: str | os.PathLike[str], view: View = "replayed") -> Document:
        from ..exportdoc_agentgo import agentgo_document

        where = os.fspath(path)
        return agentgo_document(self._view(where, None), where)

    def diff(self, path: str | os.PathLike[str]) -> str:
        from ..errors import TranscriptError

        raise TranscriptError(
            "diff compares a transcript with what its model is sent next; an agentgo-v1 "
            "session has no compactions or elisions (try `tailscope replay`)",
            path=os.fspath(path),
        )

    def summarise_file(self, read: FileRead) -> None:
        from .. import scan

        scan.agentgo_summary(read)


def transcript_of(view: AgentGoView, path: str, writer_alive: bool | None) -> Transcript:
    """An agentgo view in the neutral model: committed messages, tool calls, runs, usage."""
    from ..agentgo.view import message_text
    from ..usage import is_model_call, tally_agentgo

    view.writer_alive = writer_alive
    messages: list[Item] = []
    for m in view.messages:
        kind = str(m.message.get("kind") or "user")
        parts = [Part("text", message_text(m.message))]
        content = m.message.get("content")
        if isinstance(content, list):
            for part in content:
                if isinstance(part, dict) and part.get("type") == "tool_call":
                    parts.append(
                        Part(
                            "tool-call",
                            str(part.get("arguments", "")),
                            call_id=str(part.get("id", "")),
                            name=str(part.get("name", "")),
                            data=part.get("arguments"),
                        )
                    )
        tcid = m.message.get("tool_call_id")
        if tcid is not None:
            parts = [Part("tool-result", parts[0].text, call_id=str(tcid))]
        role = {"tool_result": "tool"}.get(kind, kind)
        messages.append(Item(f"seq-{m.seq}", role, parts, m.seq + 1, ts=m.time))
    ops: list[ToolOp] = []
    for key in view.call_order:
        call = view.calls[key]
        if is_model_call(call) or (call.tool_start is None and call.tool_end is None):
            continue
        end = call.tool_end
        run_dead = view.run_status(call.run_id) == "interrupted"
        state = classify_op(
            has_result=end is not None,
            failed=bool(end and end.get("is_error")),
            writer_alive=False if run_dead else writer_alive,
        )
        start = call.tool_start or {}
        ops.append(
            ToolOp(
                call_id=call.id,
                tool=call.name,
                state=state,
                arguments=start.get("args", start.get("arguments")),
                result=None if end is None else str(end.get("result", "")),
                line=call.first_seq + 1,
                run_id=call.run_id,
                started=call.first_time,
                ended=call.last_time or None,
            )
        )
    tally = tally_agentgo(view)
    runs = []
    for run_id in view.run_order:
        run = view.runs[run_id]
        status = view.run_status(run_id)
        used = tally.runs.get(run_id)
        runs.append(
            Run(
                id=run_id,
                state={"closed": "finished", "open": "running"}.get(status, "interrupted"),  # type: ignore[arg-type]
                line=run.first_seq + 1,
                end_line=run.close_seq + 1 if run.close_seq is not None else None,
                started=run.first_time,
                ended=run.last_time or None,
                usage=Usage.of_totals(used) if used is not None else Usage(),
                items=run.turns,
            )
        )
    return Transcript(
        format=NAME,
        path=path,
        meta={"session-id": view.session_id, "version": view.version, "started": view.started},
        messages=messages,
        raw=list(messages),
        tool_operations=ops,
        runs=runs,
        usage=Usage.of_totals(tally.transcript),
        warnings=list(view.warnings),
        lines=len(view.records),
        writer_alive=writer_alive,
    )
