"""The agentgo header: file, liveness, session and what it holds (runs, calls, gaps)."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from session_core.text import count

from ..safe import one_line
from .status import human_size


class AgentGoStatus(Static):
    """Two lines of facts about the open agentgo session; built inert, never markup."""

    def _top(self, name: str, size: int, live: str) -> Text:
        top = Text()
        top.append(f" {one_line(name, 60)} ", "bold")
        top.append(f" agentgo-v1 · {human_size(size)} ")
        style = {"live": "bold green", "idle": "yellow", "gone": "bold red"}.get(live, "")
        top.append(f"● {live}", style)
        return top

    def show_loading(self, *, name: str, size: int, live: str, note: str) -> None:
        """While a big file loads: what is known of it, and how far the load is."""
        both = Text("\n").join([self._top(name, size, live), Text(f" {note}", "dim")])
        both.no_wrap = True
        both.overflow = "ellipsis"
        self.update(both)

    def show(
        self,
        *,
        name: str,
        size: int,
        live: str,
        session_id: str | None,
        runs: dict[str, int],
        calls: int,
        failed: int,
        messages: int,
        checkpoints: int,
        gaps: int,
        warnings: int,
        showing: str,
    ) -> None:
        top = self._top(name, size, live)
        if warnings:
            top.append(f"  ⚠ {warnings} warning{'s' if warnings != 1 else ''} (w)", "bold red")
        if session_id:
            top.append(f"  session {one_line(session_id, 40)}", "dim")
        second = Text(" ")
        total = sum(runs.values())
        second.append(f"{total:,} run{'s' if total != 1 else ''}")
        states = [f"{n} {state}" for state, n in runs.items() if n]
        if states:
            second.append(f" ({', '.join(states)})")
        second.append(f" · {count(calls, 'call')}")
        if failed:
            second.append(f" ({failed:,} failed)", "bold red")
        second.append(f" · {count(messages, 'message')} · {count(checkpoints, 'checkpoint')} · ")
        second.append(f"{gaps:,} gap{'s' if gaps != 1 else ''}", "bold yellow" if gaps else "")
        second.append("  showing ", "dim")
        second.append(one_line(showing, 40), "bold")
        both = Text("\n").join([top, second])
        both.no_wrap = True
        both.overflow = "ellipsis"
        self.update(both)
