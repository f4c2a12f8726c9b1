"""The header: what file this is, whether it is live, and what it holds."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from session_core.text import count
from session_core.usage import Usage

from ..safe import one_line


def size_text(size: int, *, compact: bool = False) -> str:
    """``1.5 MB`` (or ``1.5M`` where a table column is narrow)."""
    value = float(size)
    limit = 1000 if compact else 1024  # a narrow column never shows four digits
    for unit in ("B", "KB", "MB", "GB"):
        if value < limit or unit == "GB":
            label = unit[0] if compact else f" {unit}"
            return f"{int(value)}{label}" if unit == "B" else f"{value:.1f}{label}"
        value /= 1024
    return f"{size} B"


def human_size(size: int) -> str:
    return size_text(size)


class StatusBar(Static):
    """Two lines of facts about the open transcript; text is built inert, never markup."""

    def show(
        self,
        *,
        name: str,
        fmt: str,
        size: int,
        live: str,
        meta: dict[str, object],
        lines: int,
        raw_messages: int,
        sent_messages: int,
        ops: int,
        pending: int,
        warnings: int,
        grants: list[object],
        usage: Usage,
        unseen: int,
        extra: str = "",
    ) -> None:
        top = Text()
        top.append(f" {one_line(name, 60)} ", "bold")
        top.append(f" {fmt} · {human_size(size)} ")
        style = {"live": "bold green", "idle": "yellow", "gone": "bold red"}.get(live, "")
        top.append(f"● {live}", style)
        if unseen:
            top.append(f"  ↓ {unseen} new", "bold reverse")
        if warnings:
            top.append(f"  ⚠ {count(warnings, 'warning')} (w)", "bold red")
        if extra:
            top.append(f"  {one_line(extra, 60)}", "italic")
        facts = []
        for key in ("agent", "model"):
            if key in meta:
                facts.append(f"{key}={one_line(str(meta[key]), 30)}")
        if facts:
            top.append("  " + " ".join(facts), "dim")
        second = Text(" ")
        second.append(
            f"{count(lines, 'line')} · {count(raw_messages, 'message line')}, "
            f"{sent_messages:,} sent next"
        )
        second.append(f" · {count(ops, 'tool op')}")
        if pending:
            second.append(f" ({pending} pending)", "bold yellow")
        # Unknown is never zero; a partial total says how many turns reported it.
        second.append(f" · tokens {usage.describe_tokens()} · cost {usage.describe_cost()}")
        if grants:
            names = []
            for grant in grants[:4]:
                if isinstance(grant, dict):
                    names.append(f"{grant.get('tool', '?')}:{grant.get('scope', '?')}")
                else:
                    names.append(str(grant))
            more = f" +{len(grants) - 4}" if len(grants) > 4 else ""
            second.append(" · grants " + one_line(", ".join(names), 60) + more, "dim")
        self.update(Text("\n").join([top, second]))
