"""Tool calls paired with their outputs (``CodexCalls``): an operation for every call, its
result, duration and state from its output, and a late ``*_end`` event's word on how a
call ended."""

from __future__ import annotations

from typing import Any

from ...indexing import field_said
from ...parts import Part
from ...text import as_written
from ...times import seconds_between
from ...tool_ops import LazyToolOp, classify_op
from .items import output_call_id
from .ops import PackedOp
from .tools import Outcome, marked_error, rust_seconds
from .turns import CodexTurns


class CodexCalls(CodexTurns):
    def _call(
        self,
        by_status: bool,
        call_id: str,
        tool: str,
        status: Any,
        index: int,
        line: int,
        ts: str | None,
        part: Part | None,
    ) -> int:
        """A call's operation (its index); ``by_status``: the call says how it ended by
        its own ``status`` (``settled_by_status``), no output answers it."""
        open_run = self.open_run  # (``_run``'s, inline: once for every call)
        run_id = self.runs[open_run].id if open_run >= 0 else None
        tool = self.tools.setdefault(tool, tool)  # one copy of each name
        column = self.op_items
        if self.raw.parts[index] is None:  # packed: the rest is read from its items
            at = column.add(index, call_id, tool, run_id)
        else:
            op = LazyToolOp(
                call_id=call_id,
                tool=tool,
                state="running",
                args_from=self._ref(index, part),
                line=line,
                run_id=run_id,
                message_id=f"L{line}",
                started=ts,
            )
            at = column.add_own(op)
        self.op_run.append(open_run)
        if by_status and status in ("completed", "failed"):
            if at in column.own:
                column.own[at].ended = ts
            column.settle(at, status, at_call=True)
            column.waiting.pop(call_id, None)  # (no longer its call id's last operation)
        else:
            self.pending[at] = None
            column.waiting[call_id] = at
            if status is None and by_status:
                self.unstated[at] = False
                if open_run < 0:
                    self.runless_waiting.append(at)
        return at

    def _carried(self, call_id: str, result: str, line: int) -> None:
        """A call that carries its result (an image generation's image, as ``result``
        says it): its operation's result, from its own line (its state is its status's)."""
        at = self.op_items.find(call_id)
        if at is not None:
            op = self.op_items.kept(at)
            op.result = result
            op.result_line = line

    def _output(
        self,
        call_id: str | None,
        outcome: Outcome,
        index: int,
        line: int,
        ts: str | None,
        part: Part | None,
        verbatim: bool = False,
        written: object = None,
    ) -> None:
        """An output answers its call; ``verbatim``: its text is the line's ``output``
        string as it is (then the replay JSON copies that string from the line);
        ``written``: its ``call_id`` as written where that is no string (None: none)."""
        at = self.op_items.answer(call_id) if call_id is not None else None
        if at is None:  # an answer to a call this file does not have (kept as its item)
            if call_id is None or call_id not in self.compacted_calls:
                self.warnings.append(orphan_output(line, written if call_id is None else call_id))
            return
        column = self.op_items
        duration = outcome.duration
        if duration is None and self.late_duration:  # (what its MCP end event measured)
            duration = self.late_duration.pop(column.call_id(at), None)
        if duration is None:  # (0.0 is a duration the writer measured)
            duration = seconds_between(column.started(at), ts)
        own = column.own.get(at)
        if (own is None or isinstance(own, PackedOp)) and self.raw.parts[index] is None:
            column.answered(at, index, duration, outcome if verbatim else None)  # (its item's)
        else:
            op = column.kept(at)
            ref = self._ref(index, part)
            if isinstance(op, LazyToolOp):
                op._result_from = ref  # its text (and outcome), read from the (maybe packed) part
                if self.raw.parts[index] is None:
                    op._detail_from = ref  # the outcome is the part's data, read again too
                else:
                    op.detail = outcome.detail
            else:
                op.result = outcome.text
                op.detail = outcome.detail
            op.result_line = line
            op.ended = ts
            op.duration = duration
        failed = outcome.failed
        late = self.late_failure
        code = late.pop(column.call_id(at), None) if late else None
        if code is not None and outcome.exit_code is None:
            failed = True
            column.kept(at).detail = {**(outcome.detail or {}), "exit_code": code}
        column.settle(
            at, classify_op(has_result=True, failed=failed, interrupted=outcome.interrupted)
        )
        self.pending.pop(at, None)

    def _hosted_output(
        self,
        call_id: str | None,
        outcome: Outcome,
        index: int,
        line: int,
        ts: str | None,
        part: Part | None,
    ) -> None:
        """A hosted tool search's output (``hosted_search``): the result of the call its
        call id names, else of the last hosted search while that has none (the server
        writes the two one after the other, neither naming the other). With neither it
        is kept as its item, unpaired, and no damage: upstream keeps such an output as
        the model's own history, never an orphan (``remove_orphan_outputs``). A call
        that said how it ended keeps its state: its output gives it its result."""
        column = self.op_items
        at = column.find(call_id) if call_id is not None else None
        if at is None:
            at = self.hosted_search if self.hosted_search >= 0 else None
            if at is None or column.has_result(at):
                return
        self.hosted_search = -1
        stated = None if at in self.pending else column.state_of(at)
        self.unstated.pop(at, None)  # (its output says it ended)
        self._output(column.call_id(at), outcome, index, line, ts, part)
        if stated is not None:
            column.settle(at, stated)

    def _image_saved(self, payload: dict[str, Any]) -> None:
        """An ``image_generation_end``: where Codex saved the image its call made
        (``saved_path``), in that call's operation's detail (its result says the image,
        never its bytes)."""
        call_id = output_call_id(payload.get("call_id"))
        path = payload.get("saved_path")
        at = self.op_items.find(call_id) if call_id is not None else None
        if at is None or not isinstance(path, str) or not path:
            return
        op = self.op_items.kept(at)
        op.detail = {**(op.detail or {}), "saved_path": path}

    def _late_outcome(self, kind: str, payload: dict[str, Any]) -> None:
        """An ``*_end`` event's word on a call, for outputs that do not say how it ended."""
        call_id = output_call_id(payload.get("call_id"))
        if call_id is None:
            return
        code: int | None = None
        if (
            kind == "mcp_tool_call_end"
            and (took := rust_seconds(payload.get("duration"))) is not None
        ):
            at = self.op_items.find(call_id)
            if at is not None and self.op_items.has_result(at):
                self.op_items.kept(at).duration = took
            else:
                self.late_duration[call_id] = took  # (its output comes next)
        if kind == "exec_command_end":
            value = payload.get("exit_code")
            code = value if isinstance(value, int) and not isinstance(value, bool) else None
        elif kind == "patch_apply_end":
            code = 1 if payload.get("success") is False else None
        else:
            code = 1 if _mcp_failed(payload.get("result")) else None
        if not code:
            return
        column = self.op_items
        at = column.find(call_id)
        if at is not None and column.has_result(at):
            if column.state_of(at) == "completed":
                op = column.kept(at)
                op.state = "failed"
                op.detail = {**(op.detail or {}), "exit_code": code}
        else:
            self.late_failure[call_id] = code


def _mcp_failed(result: Any) -> bool:
    """An MCP call's end says it failed: an ``Err``, or an ``Ok`` whose result the server
    marked an error (``isError``), as Codex's own ``McpToolCallEndEvent::is_success`` reads
    it (the output line beside it is the text alone)."""
    if not isinstance(result, dict):
        return False
    ok = result.get("Ok")
    return "Err" in result or (isinstance(ok, dict) and marked_error(ok))


def orphan_output(line: int, call_id: object) -> str:
    """The warning for an output whose call id no call of the file has (in v1's words for
    a settle of no dispatch), or that names none (None) or names one by no string (quoted
    as JSON writes it, as every warning quotes a value: ``as_written``, inert, cut
    short): it is shown unpaired, as written."""
    if call_id is None:
        return f"line {line}: an output with no call id answers no operation (shown unpaired)"
    named = as_written(call_id)
    return (
        f"line {line}: answers {named}, which is not an operation this transcript "
        "dispatched (shown unpaired)"
    )


def no_call_id(kind: str, payload: dict[str, Any], named: str, line: int) -> str:
    """The warning for a call whose ``call_id`` (what its output names) is left out or no
    non-empty string, in Claude Code's words for a block with no usable id: its operation
    is named by its item's ``id``, else its line (``named``)."""
    said = field_said(payload, "call_id", "a non-empty string")
    by = "line" if named == f"L{line}" else "id"
    name = as_written(named)  # (JSON-quoted as every refusal quotes, inert, cut short)
    return f"line {line}: a {kind} has {said}: its operation is named {name} (by its {by})"


__all__ = ["CodexCalls", "no_call_id", "orphan_output"]
