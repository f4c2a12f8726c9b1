"""The conversation as rows, and each row as lines of inert Rich text.

A row is one message line (raw view), one replayed message, a compaction,
an elision or another event. Folded rows have a height that does not
depend on the width, so the scroll height of 100,000 rows is a sum kept in
a Fenwick tree rather than a layout pass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import orjson
from rich.console import Console
from rich.style import Style
from rich.text import Text

from session_core.events import LazyPayload
from session_core.model import STATE_TONES
from session_core.replay import KNOWN_TYPES, Entry, ReplayState, payload_of
from session_core.text import count

from .model import CallIndex, call_state, op_label
from .safe import inert

PREVIEW = 3  # content lines a folded row shows
EXPAND_LIMIT = 200_000  # characters an expanded row wraps; the rest is said, not drawn
Mode = Literal["replayed", "raw"]
# An operation state's tone (session_core.model.STATE_TONES) as a conversation style.
_TONE_STYLES = {"ok": "ok", "bad": "error", "warn": "warn", "info": "running"}
RowKind = Literal["message", "summary", "compaction", "elision", "event"]
ROLES = ("system", "user", "assistant", "tool")
HIDDEN_BY_DEFAULT = frozenset(
    ("tool-dispatched", "tool-settled", "run-context", "grants", "session-meta")
)


@dataclass(slots=True)
class Row:
    kind: RowKind
    event: int  # index into state.events of the line this row shows
    id: str  # envelope id (for a summary: the compaction's id)
    role: str


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def _line_count(text: str) -> int:
    return text.count("\n") + 1 if text else 1


def _at(line: int) -> str:
    """Where a row's line is; 0 while only the end of a big file has been read."""
    return f" line {line}" if line else " line …"


def short_ts(ts: str) -> str:
    """HH:MM:SS.mmm of an ISO timestamp, or the text as it is."""
    if len(ts) >= 19 and ts[10] == "T":
        return ts[11:23] if len(ts) >= 23 else ts[11:19]
    return ts


class RowRenderer:
    """Lays out rows for one view; ``styles`` maps a component name to a Rich style."""

    def __init__(self, state: ReplayState, styles: Callable[[str], Style], mode: Mode) -> None:
        self.state = state
        self.styles = styles
        self.mode = mode
        self._op_of_call: dict[str, int] = {}  # call id -> index into state.tool_ops
        self.calls = CallIndex()  # the file's tool calls and answers (the screen's too)
        self._marks: dict[str, int] = {}  # compaction and elision id -> event index
        self._messages: dict[str, int] = {}  # message id -> event index, made on first need
        self._messages_seen = 0
        self.compaction_line: dict[str, int] = {}
        self.compactions: dict[str, Any] = {}
        self.live = True  # whether a writer is still at work (decides "running" vs "died")
        self._ops_seen = 0
        self._events_seen = 0
        self._compactions_seen = 0

    def index_new(self) -> None:
        """Index events and operations added since the last call (from the facts kept at
        replay: no line is parsed here)."""
        state = self.state
        events = state.events
        kinds, ids = events.kinds, events.ids
        for position in range(self._events_seen, len(events)):
            kind = kinds[position]
            if kind == "compaction":
                eid = ids[position]
                self._marks[eid] = position
                self.compaction_line[eid] = state.event_lines[position]
            elif kind == "elision":
                self._marks[ids[position]] = position
        self._events_seen = len(events)
        self.calls.update(state)
        call_ids = state.tool_ops.call_ids
        for position in range(self._ops_seen, len(call_ids)):
            self._op_of_call[call_ids[position]] = position
        self._ops_seen = len(call_ids)
        for record in state.compactions[self._compactions_seen :]:
            self.compactions[record.id] = record
        self._compactions_seen = len(state.compactions)

    def event_index(self, eid: str) -> int | None:
        """The event of line ``eid`` (message, compaction or elision; the last, if repeated)."""
        found = self._marks.get(eid)
        if found is not None:
            return found
        # A message's event is needed only for a folded one's line number (a live one's
        # body knows it): the index of every message is made when first needed.
        events = self.state.events
        index = self._messages
        if self._messages_seen < len(events):
            kinds, ids = events.kinds, events.ids
            for position in range(self._messages_seen, len(events)):
                if kinds[position] == "message":
                    index[ids[position]] = position
            self._messages_seen = len(events)
        return index.get(eid)

    def line_of(self, eid: str) -> int | None:
        """The file line of line ``eid``, if the file has it."""
        found = self.event_index(eid)
        return None if found is None else self.state.event_lines[found]

    # -- what a row displays ------------------------------------------------

    def op_for_call(self, call_id: str) -> dict[str, Any] | None:
        """The (last) operation dispatched for a tool call, if any."""
        index = self._op_of_call.get(call_id)
        return None if index is None else self.state.tool_ops[index]

    def payload(self, row: Row, *, fresh: bool = False) -> dict[str, Any]:
        """The row's payload; ``fresh``: parsed again, not through the cache (a worker)."""
        events = self.state.events
        return payload_of(events.read(row.event) if fresh else events[row.event])

    def displayed_content(self, row: Row, show_original: bool) -> str:
        """The content this view shows for a message row."""
        if row.kind == "summary":
            record = self._compaction(row.id)
            summary = record.summary if record else ""
            elisions = self.state.elided.get(row.id)
            if elisions and self.mode == "replayed" and self.state.is_live(row.id):
                return elisions[-1].stub
            return summary
        elisions = self.state.elided.get(row.id)
        if elisions and not show_original:
            return elisions[-1].stub  # the original is not read: it may be big
        return _text(self.payload(row).get("content"))

    def _compaction(self, cid: str) -> Any:
        return self.compactions.get(cid)

    # -- heights --------------------------------------------------------------

    def height(self, row: Row, expanded: bool, show_original: bool, width: int) -> int:
        if expanded:
            return len(self.lines(row, expanded, show_original, width))
        return self.folded_height(row, show_original)

    def folded_height(self, row: Row, show_original: bool) -> int:
        if row.kind in ("message", "summary"):
            facts = self.state.events.facts
            message = row.kind == "message" and facts.is_message(row.event)
            elisions = self.state.elided.get(row.id)
            if message and not (elisions and not show_original):
                n = facts.lines(row.event)  # the content itself: counted when it was replayed
            else:
                n = _line_count(self.displayed_content(row, show_original))
            h = 1 + min(PREVIEW, n) + (1 if n > PREVIEW else 0)
            if message:
                h += facts.call_count(row.event) + (1 if facts.reasoning(row.event) else 0)
            if self.mode == "raw" and row.id in self.state.elided:
                h += 1
            if self.mode == "raw" and row.id in self.state.folded_by:
                h += 1
            return h + 1
        if row.kind == "compaction":
            record = self._compaction(row.id)
            n = _line_count(record.summary if record else "")
            return 2 + min(PREVIEW, n) + (1 if n > PREVIEW else 0) + 1
        if row.kind == "elision":
            items = self.payload(row).get("items")
            count = len(items) if isinstance(items, list) else 0
            return 1 + min(PREVIEW, count) + (1 if count > PREVIEW else 0) + 1
        return 2 + 1

    # -- lines ----------------------------------------------------------------

    def lines(self, row: Row, expanded: bool, show_original: bool, width: int) -> list[Text]:
        width = max(width, 20)
        if row.kind in ("message", "summary"):
            out = self._message_lines(row, expanded, show_original, width)
        elif row.kind == "compaction":
            out = self._compaction_lines(row, expanded, width)
        elif row.kind == "elision":
            out = self._elision_lines(row, expanded, width)
        else:
            out = self._event_lines(row, expanded, width)
        out.append(Text(""))
        if not expanded:
            # The folded height is promised before layout; keep the promise.
            h = self.folded_height(row, show_original)
            out = out[:h] + [Text("")] * (h - len(out))
        return out

    def _clip(self, text: str, width: int, style: Style | str = "") -> Text:
        if len(text) > 4 * width + 64:
            text = text[: 4 * width + 64]  # only what can show is made inert and measured
        line = Text(
            inert(text.replace("\t", "    ")), style=style, no_wrap=True, overflow="ellipsis"
        )
        line.truncate(width, overflow="ellipsis")
        return line

    def _wrap(self, text: str, width: int, style: Style | str = "", indent: int = 2) -> list[Text]:
        out: list[Text] = []
        console = _console(width)
        hidden = len(text) - EXPAND_LIMIT
        if hidden > 0:
            # A giant tool result: wrap a bounded head, never the whole thing.
            text = text[:EXPAND_LIMIT]
        for raw_line in text.split("\n"):
            line = Text(inert(raw_line.replace("\t", "    ")), style=style)
            if not raw_line:
                out.append(Text(" " * indent))
                continue
            for piece in line.wrap(console, width - indent):
                out.append(Text(" " * indent) + piece)
        if hidden > 0:
            note = f"… {count(hidden, 'more character')} not shown (c copies the whole message)"
            out.append(Text(" " * indent + note, style=self.styles("meta")))
        return out

    def _header(self, row: Row, width: int) -> Text:
        state = self.state
        envelope = state.events[row.event]
        line = state.event_lines[row.event]
        s = self.styles
        role = row.role
        header = Text(no_wrap=True, overflow="ellipsis")
        if row.kind == "summary":
            cline = self.compaction_line.get(row.id, line)
            header.append(" summary ", s("summary"))
            header.append(f" user · compaction at line {cline}", s("meta"))
        else:
            header.append(f" {inert(role)} ", s(role if role in ROLES else "other"))
            header.append(_at(line), s("meta"))
        header.append(f" · {short_ts(_text(envelope.get('ts')))}", s("meta"))
        payload = payload_of(envelope) if row.kind == "message" else {}
        flags = [k for k in ("sticky", "sysprompt") if payload.get(k)]
        if payload.get("depth") is not None:
            flags.append(f"depth {inert(_text(payload.get('depth')))}")
        if flags:
            header.append(" · " + ", ".join(flags), s("flag"))
        tcid = payload.get("tool-call-id")
        if tcid is not None:
            op = self.op_for_call(_text(tcid))
            tool = f"{inert(_text(op.get('tool')))} " if op else ""
            header.append(f" · answers {tool}({inert(_text(tcid))})", s("meta"))
        if payload.get("is-error"):
            header.append(" · ERROR", s("error"))
        for key in ("outcome-unknown", "cancelled", "injected"):
            if payload.get(key):
                header.append(f" · {key}", s("flag"))
        finish = payload.get("finish-reason")
        if finish is not None:
            header.append(f" · {inert(_text(finish))}", s("meta"))
        usage = payload.get("usage")
        if isinstance(usage, dict):
            parts = []
            if usage.get("total-tokens") is not None:
                parts.append(f"{inert(_text(usage.get('total-tokens')))} tok")
            elif usage.get("prompt-tokens") is not None:
                parts.append(
                    f"{inert(_text(usage.get('prompt-tokens')))}+"
                    f"{inert(_text(usage.get('completion-tokens')))} tok"
                )
            cost = usage.get("cost")
            if isinstance(cost, int | float) and not isinstance(cost, bool):
                parts.append(f"${cost:.4f}")
            if parts:
                header.append(" · " + " ".join(parts), s("usage"))
        if self.mode == "raw":
            folded = state.folded_by.get(row.id)
            if folded is not None:
                header.append(" · folded", s("folded"))
            if row.id in state.elided:
                header.append(" · elided", s("elided"))
        header.truncate(width, overflow="ellipsis")
        return header

    def _message_lines(
        self, row: Row, expanded: bool, show_original: bool, width: int
    ) -> list[Text]:
        s = self.styles
        payload = self.payload(row) if row.kind == "message" else {}
        out = [self._header(row, width)]
        if self.mode == "raw" and row.id in self.state.folded_by:
            cid = self.state.folded_by[row.id]
            record = self._compaction(cid)
            cline = self.compaction_line.get(cid, 0)
            note = f"  ┃ folded by the compaction at line {cline} into its summary"
            if record is not None:
                note += (
                    f" (tokens {record.tokens_before if record.tokens_before is not None else '?'}"
                    f" → {record.tokens_after if record.tokens_after is not None else '?'}"
                    f", fallback {'yes' if record.fallback else 'no'})"
                )
            out.append(self._clip(note, width, s("folded")))
        content = self.displayed_content(row, show_original)
        elisions = self.state.elided.get(row.id)
        body_style = s("body-error") if payload.get("is-error") else s("body")
        if elisions and not show_original:
            body_style = s("elided")
        if expanded:
            out.extend(self._wrap(content, width, body_style))
        else:
            parts = content.split("\n", PREVIEW)
            for piece in parts[:PREVIEW]:
                out.append(Text("  ") + self._clip(piece, width - 2, body_style))
            if len(parts) > PREVIEW:
                more = _line_count(content) - PREVIEW
                note = f"  … {count(more, 'more line')} (enter expands)"
                out.append(self._clip(note, width, s("meta")))
        reasoning = payload.get("reasoning")
        if reasoning:
            text = _text(reasoning)
            if expanded:
                out.append(self._clip("  reasoning:", width, s("meta")))
                out.extend(self._wrap(text, width, s("reasoning"), indent=4))
            else:
                out.append(
                    self._clip(f"  ▸ reasoning ({count(len(text), 'char')})", width, s("reasoning"))
                )
        calls = payload.get("tool-calls")
        if isinstance(calls, list):
            for call in calls:
                out.extend(self._call_lines(call, expanded, width))
        if self.mode == "raw" and elisions:
            last = elisions[-1]
            where = self.line_of(last.elision_id)
            shown = "original shown" if show_original else "stub shown"
            at = f" at line {where}" if where else ""
            out.append(
                self._clip(
                    f"  ✂ elided{at} ({shown}; o toggles): "
                    f"original {count(len(_text(payload.get('content'))), 'char')}",
                    width,
                    s("elided"),
                )
            )
        return out

    def _call_lines(self, call: Any, expanded: bool, width: int) -> list[Text]:
        s = self.styles
        if not isinstance(call, dict):
            return [self._clip(f"  → {call!r}", width, s("call"))]
        function = call.get("function")
        function = function if isinstance(function, dict) else {}
        cid = _text(call.get("id"))
        name = _text(function.get("name"))
        args = _text(function.get("arguments"))
        op = self.op_for_call(cid)
        answered = [self.state.event_lines[at] for at in self.calls.answer_events(cid)]
        # The tools tab's words for it (viewer.model), and its tone as this row's style.
        state = call_state(op, bool(answered))
        if state == "running" and not self.live:
            state = "running-dead"
        status = op_label(state, self.live)
        style = _TONE_STYLES[STATE_TONES.get(state, "warn")]
        where = f" · answer at{_at(answered[0])}" if answered else ""
        line = Text("  → ", s("call"), no_wrap=True, overflow="ellipsis")
        line.append(inert(name), s("call"))
        line.append(f" [{inert(status)}]", s(style))
        line.append(f" {inert(cid)}{where} ", s("meta"))
        if expanded:
            out = [line]
            out.extend(self._wrap(_pretty(args), width, s("body"), indent=6))
            return out
        line.append(inert(args.replace("\n", " ")), s("body"))
        line.truncate(width, overflow="ellipsis")
        return [line]

    def _compaction_lines(self, row: Row, expanded: bool, width: int) -> list[Text]:
        s = self.styles
        record = self._compaction(row.id)
        out = [self._event_head(row, " compaction ", "compaction")[1]]
        if record is None:
            out.append(self._clip("  (not applied)", width, s("error")))
            return out
        through = self.line_of(record.through)
        tline = "?" if through is None else through
        out.append(
            self._clip(
                f"  ▼ folded {count(len(record.folded), 'message')} through line {tline} "
                f"(kept {len(record.kept)} sticky) · tokens "
                f"{record.tokens_before if record.tokens_before is not None else '?'} → "
                f"{record.tokens_after if record.tokens_after is not None else '?'} · fallback "
                f"{'yes' if record.fallback else 'no'}",
                width,
                s("compaction-text"),
            )
        )
        if expanded:
            out.extend(self._wrap(record.summary, width, s("body")))
        else:
            parts = record.summary.split("\n", PREVIEW)
            for piece in parts[:PREVIEW]:
                out.append(Text("  ") + self._clip(piece, width - 2, s("body")))
            if len(parts) > PREVIEW:
                more = _line_count(record.summary) - PREVIEW
                out.append(self._clip(f"  … {count(more, 'more line')}", width, s("meta")))
        return out

    def _elision_lines(self, row: Row, expanded: bool, width: int) -> list[Text]:
        s = self.styles
        out = [self._event_head(row, " elision ", "elision")[1]]
        items = self.payload(row).get("items")
        items = items if isinstance(items, list) else []
        shown = items if expanded else items[:PREVIEW]
        for item in shown:
            if not isinstance(item, dict):
                continue
            mid = _text(item.get("id"))
            at = self.line_of(mid)
            where = f"line {at}" if at is not None else mid[:8]
            out.append(self._clip(f"  ✂ {where} → {_text(item.get('stub'))}", width, s("elided")))
        if not expanded and len(items) > PREVIEW:
            out.append(self._clip(f"  … {len(items) - PREVIEW} more", width, s("meta")))
        return out

    def _event_head(self, row: Row, label: str | None, style: str) -> tuple[dict[str, Any], Text]:
        """An event row's envelope and first line: ``label`` (None: the event's type), its
        line and time."""
        envelope = self.state.events[row.event]
        line = self.state.event_lines[row.event]
        if label is None:
            label = f" {inert(_text(envelope.get('type')))} "
        head = Text(label, self.styles(style), no_wrap=True)
        head.append(f"{_at(line)} · {short_ts(_text(envelope.get('ts')))}", self.styles("meta"))
        return envelope, head

    def _event_lines(self, row: Row, expanded: bool, width: int) -> list[Text]:
        s = self.styles
        envelope, head = self._event_head(row, None, "event")
        body = orjson.dumps(envelope.get("payload"), default=str).decode()
        if expanded:
            return [head, *self._wrap(_pretty(body), width, s("body"))]
        return [head, Text("  ") + self._clip(body, width - 2, s("body"))]

    def search_text(self, row: Row, *, fresh: bool = False) -> str:
        """What a search looks at for this row (raw content and stub, calls, reasoning)."""
        payload = self.payload(row, fresh=fresh)
        if row.kind == "summary" or row.kind == "compaction":
            record = self._compaction(row.id)
            return record.summary if record else ""
        parts = [_text(payload.get("content"))]
        for e in self.state.elided.get(row.id, []):
            parts.append(e.stub)
        if payload.get("reasoning"):
            parts.append(_text(payload.get("reasoning")))
        calls = payload.get("tool-calls")
        if isinstance(calls, list) or row.kind == "event" or row.kind == "elision":
            parts.append(orjson.dumps(payload, default=str).decode())
        return "\n".join(parts)


def _pretty(text: str) -> str:
    try:
        return orjson.dumps(orjson.loads(text), option=orjson.OPT_INDENT_2).decode()
    except orjson.JSONDecodeError:
        return text


_consoles: dict[int, Console] = {}


def _console(width: int) -> Console:
    console = _consoles.get(width)
    if console is None:
        console = Console(
            width=width, color_system=None, force_terminal=False, legacy_windows=False
        )
        _consoles[width] = console
    return console


def build_rows(
    renderer: RowRenderer,
    start_event: int = 0,
    roles: frozenset[str] | None = None,
    types: frozenset[str] | None = None,
) -> list[Row]:
    """Rows for events from ``start_event`` on (raw), or all live entries (replayed)."""
    state = renderer.state
    rows: list[Row] = []
    if renderer.mode == "replayed":
        return replayed_rows(renderer, state.entries, roles)
    events = state.events
    kinds, ids, facts = events.kinds, events.ids, events.facts
    for position in range(start_event, len(events)):
        kind = kinds[position]
        if kind == "message":
            role = facts.role(position)
            if roles is not None and role not in roles:
                continue
            rows.append(Row("message", position, ids[position], role))
            continue
        key = kind if kind in KNOWN_TYPES else "other"
        if key not in types if types is not None else key in HIDDEN_BY_DEFAULT:
            continue
        row_kind: RowKind = (
            "compaction" if kind == "compaction" else "elision" if kind == "elision" else "event"
        )
        rows.append(Row(row_kind, position, ids[position], kind))
    return rows


def replayed_rows(
    renderer: RowRenderer, entries: list[Entry], roles: frozenset[str] | None
) -> list[Row]:
    """Rows for these live entries: messages, and compaction summaries."""
    events = renderer.state.events
    kinds, facts = events.kinds, events.facts
    rows: list[Row] = []
    for mid, body, _sticky, _stub in entries:
        # A file line's body knows its event; a summary is its compaction's.
        position = body.index if isinstance(body, LazyPayload) else renderer.event_index(mid)
        if position is None:
            continue
        if kinds[position] == "compaction":
            row = Row("summary", position, mid, "user")
        else:
            row = Row("message", position, mid, facts.role(position))
        if roles is None or row.role in roles:
            rows.append(row)
    return rows
