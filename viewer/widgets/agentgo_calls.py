"""``CallsPane``: the call tree of a run (model, tool and compact calls by parent) and a detail.

The tree grows by appends (new calls go under their parent's latest attempt,
as ``AgentGoView`` nests them) and only the nodes an update touched are
relabelled. It is a ``LineTree`` (a followed 1 GB session's tree holds tens of
thousands of calls). Labels and the detail are ``Text`` built from inert strings.
"""

from __future__ import annotations

from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

from session_core.agentgo.view import AgentGoView, Call, CallKey, state_said
from session_core.fold import fold, holds

from ..agentgo_detail import call_detail
from ..agentgo_model import args_differ, call_label_parts, short
from ..safe import one_line
from .line_list import component_style
from .line_tree import LineTree
from .pane import FocusPane

NodeData = CallKey | str  # a call, or a run id for a run's node

FALLBACK_STYLES: dict[str, str] = {
    "agentgo-calls--ok": "green",
    "agentgo-calls--failed": "bold red",
    "agentgo-calls--gap": "bold yellow",
    "agentgo-calls--running": "cyan",
    "agentgo-calls--kind": "bold",
    "agentgo-calls--dim": "dim",
    "agentgo-calls--retry": "magenta",
    "agentgo-calls--differ": "bold yellow",
    "agentgo-calls--run": "bold",
    "agentgo-calls--heading": "bold underline",
    "agentgo-calls--title": "bold",
    "agentgo-calls--label": "bold",
}

GLYPH = {"ok": "✓", "failed": "✗", "gap": "?", "running": "…"}


class CallsPane(Horizontal, FocusPane):
    """Calls of the chosen run (``None``: every run, one branch each) and the selected call."""

    FOCUS_ON = "#agentgo-call-tree"

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "step_match(1)", "Next matching call"),  # (in the footer once searched)
        Binding("N", "step_match(-1)", "Previous matching call", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = set(FALLBACK_STYLES)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = AgentGoView()
        self.run_id: str | None = None
        self.nodes: dict[CallKey, None] = {}  # the calls in the tree, in call order
        self.run_nodes: dict[str, None] = {}  # the runs' nodes
        self._run_labels: dict[str, tuple[int, str, str] | None] = {}  # what each says
        self._latest: dict[tuple[str, str], CallKey] = {}
        self._seen = 0
        self.selected: CallKey | None = None
        self.active = False  # the tab is shown; a hidden tree is caught up when it is
        self._pending: dict[CallKey, None] = {}
        self._unbuilt = False  # set_view came while hidden: the tree is built when shown
        self.search_term = ""  # what ``/`` looked for in the calls' labels
        self._match = (0, 0)  # the selected match's place among them, and how many

    def compose(self) -> ComposeResult:
        yield LineTree[NodeData](id="agentgo-call-tree")
        with VerticalScroll(id="agentgo-call-detail-scroll"):
            yield Static(Text("No call selected.", style="dim"), id="agentgo-call-detail")

    @property
    def call_tree(self) -> LineTree[NodeData]:
        return self.query_one("#agentgo-call-tree", LineTree)

    def _style(self, name: str) -> Style:
        return component_style(self, f"agentgo-calls--{name}", FALLBACK_STYLES)

    # -- feeding ------------------------------------------------------------------

    def set_view(self, view: AgentGoView, run_id: str | None) -> None:
        """A new view or another run: rebuild the tree (one pass over the calls), now if
        the tab is shown, else when it is (a big session's tree takes a while)."""
        self.view = view
        self.run_id = run_id
        self._pending.clear()
        self.call_tree.clear()
        self.nodes.clear()
        self.run_nodes.clear()
        self._run_labels.clear()
        self._latest.clear()
        self._seen = 0
        self._unbuilt = not self.active
        if self.active:
            self._build()

    def _build(self) -> None:
        self._unbuilt = False
        self._pending.clear()  # every call is added now
        keep = self.selected
        self._catch_up()
        self._relabel_runs()
        if keep is None or keep not in self.nodes:
            keep = next(iter(self.nodes), None)  # the first call, so the detail shows one
        if keep is not None:
            self.select(keep)
        else:
            self.selected = None
            self._show_detail()

    def refresh_calls(self, touched: list[CallKey]) -> None:
        """Add new calls, relabel touched ones; while hidden, only remember the touched."""
        if not self.active:
            self._pending.update(dict.fromkeys(touched))
            return
        if self._pending:
            touched = [*self._pending, *touched]
            self._pending.clear()
        fresh = self._catch_up()
        for key in touched:
            if key in fresh:
                continue  # labelled as it was added
            if key in self.nodes:
                self.call_tree.set_label(key, self._label(self.view.calls[key]))
        self._relabel_runs()
        if self.selected is None and self.nodes and self.call_tree.cursor_key is None:
            self.select(next(iter(self.nodes)))
        elif self.selected is not None and self.selected in touched:
            self._show_detail()

    def activate(self, active: bool) -> None:
        """The tab is shown (catch up with what came while hidden) or hidden."""
        self.active = active
        if active and self._unbuilt:
            self._build()
        elif active:
            self.refresh_calls([])

    def _catch_up(self) -> set[CallKey]:
        view = self.view
        order = view.call_order
        tree = self.call_tree
        fresh: set[CallKey] = set()
        for index in range(self._seen, len(order)):
            key = order[index]
            call = view.calls[key]
            if self.run_id is not None and call.run_id != self.run_id:
                continue
            tree.add(key, self._label(call), self._under(call))
            self.nodes[key] = None
            fresh.add(key)
            self._latest[(call.run_id, call.id)] = key
            if call.attempt > 1:  # the earlier attempt now reads "retried"
                earlier = (call.run_id, call.id, call.attempt - 1)
                if earlier in self.nodes:
                    tree.set_label(earlier, self._label(view.calls[earlier]))
        self._seen = len(order)
        return fresh

    def _under(self, call: Call) -> NodeData:
        """The node a call goes under: its parent's latest attempt, else its run's."""
        if call.parent_id is not None:
            parent_key = self._latest.get((call.run_id, call.parent_id))
            if parent_key is not None:
                return parent_key
        self._add_run(call.run_id)
        return call.run_id

    def _add_run(self, run_id: str) -> None:
        if run_id not in self.run_nodes:
            self.call_tree.add(run_id, Text(""))
            self.run_nodes[run_id] = None

    def _relabel_runs(self) -> None:
        view = self.view
        if self.run_id is not None and self.run_id in view.runs:
            self._add_run(self.run_id)
        labelled = self._run_labels
        for run_id in self.run_nodes:
            run = view.runs.get(run_id)
            says = (
                None
                if run is None
                else (run.index, view.run_status(run_id), view.run_outcome(run_id))
            )
            if run_id in labelled and labelled[run_id] == says:
                continue  # (every run was labelled again at every append: 70% of it)
            was = labelled.get(run_id)
            labelled[run_id] = says
            if (
                says is not None
                and was is not None
                and was[1] != says[1]
                and "open" in (was[1], says[1])
            ):
                # (a call without its end runs while its run is open: a gap before or after)
                self._relabel_open_calls(view.runs[run_id].calls)
            label = Text()
            if says is None:
                label.append(f"(no run) {short(run_id, 12)}", self._style("dim"))
            else:
                index, status, outcome = says
                label.append(f"run {index + 1} ", self._style("run"))
                label.append(short(run_id, 8), self._style("dim"))
                label.append(f" {status}", self._style("gap") if status != "closed" else Style())
                label.append(f" · {one_line(outcome, 30)}")
            self.call_tree.set_label(run_id, label)

    def _relabel_open_calls(self, keys: list[CallKey]) -> None:
        """Label again a run's calls without their terminal event (running while the run
        is being written, gaps when it is not)."""
        calls = self.view.calls
        for key in keys:
            if key in self.nodes and calls[key].status == "gap":
                self.call_tree.set_label(key, self._label(calls[key]))

    def _label(self, call: Call) -> Text:
        # What tells rows apart comes first (state, attempt, retry, ≠args), the names
        # after: a narrow pane cuts the row's end with ``…``, never its state.
        status = self.view.call_state(call)
        kind, name, qualifier = call_label_parts(call)
        label = Text()
        label.append(f"{GLYPH[status]} {state_said(status)}", self._style(status))
        retried = (call.run_id, call.id, call.attempt + 1) in self.view.calls
        if call.attempt > 1 or retried:  # (a first and only attempt: said by nothing)
            label.append(
                f" attempt {call.attempt}", self._style("retry" if call.attempt > 1 else "dim")
            )
        if retried:
            label.append(" ↻ retried", self._style("retry"))
        if args_differ(call):
            label.append(" ≠args", self._style("differ"))
        label.append(f" {kind} ", self._style("kind"))
        label.append(name)
        if qualifier:
            label.append(f" {qualifier}", self._style("dim"))
        return label

    # -- selection ----------------------------------------------------------------

    def select(self, key: CallKey) -> bool:
        """Move the cursor to a call (expanding its ancestors); False if it is not shown."""
        if key not in self.nodes:
            return False
        self.call_tree.move_to_key(key)
        self.selected = key
        self._show_detail()
        return True

    def step_problem(self, step: int) -> bool:
        """Select the next (or previous) failed or gap call, in call order."""
        keys = list(self.nodes)
        if not keys:
            return False
        start = keys.index(self.selected) if self.selected in self.nodes else -1
        if start < 0 and step < 0:
            start = len(keys)
        position = start + step
        while 0 <= position < len(keys):
            if self.view.calls[keys[position]].status != "ok":
                return self.select(keys[position])
            position += step
        return False

    def search(self, term: str) -> int:
        """The calls whose label holds ``term`` (any case): the cursor to the first at or
        after the selected one; ``n`` / ``N`` step through them. Returns how many."""
        self.search_term = term  # (asked on the tab alone: its tree is caught up)
        self.refresh_bindings()  # (n / N, and the footer's n, come and go with a term)
        return self._to_match(0)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``n`` / ``N`` while a term is set (the footer says ``n`` then)."""
        if action == "step_match" and not self.search_term:
            return False
        return super().check_action(action, parameters)

    def action_step_match(self, step: int) -> None:
        """The next (or previous) call that matches the search, round the end."""
        if not self._to_match(step):
            self.notify("No call matches: / searches the calls.", timeout=2)
        self.screen._refresh_status()  # type: ignore[attr-defined]  # (its place, said)

    def match_text(self) -> str:
        """``/bash: 2/3`` (the header's, as the conversation's search says its place)."""
        if not self.search_term:
            return ""
        place, found = self._match
        return f"/{one_line(self.search_term, 30)}: " + (f"{place}/{found}" if found else "none")

    def _to_match(self, step: int) -> int:
        """The cursor to the first match after the selected call (``step`` 1), before it
        (-1) or at or after it (0), round the end; how many calls match."""
        keys = list(self.nodes)
        term, tree = fold(self.search_term), self.call_tree
        found = [n for n, key in enumerate(keys) if term and holds(tree.label_of(key).plain, term)]
        if found:
            at = keys.index(self.selected) if self.selected in self.nodes else -1
            if step < 0:
                before = [n for n in found if n < at]
                target = before[-1] if before else found[-1]
            else:
                after = [n for n in found if n > at or (step == 0 and n == at)]
                target = after[0] if after else found[0]
            self.select(keys[target])
            self._match = (found.index(target) + 1, len(found))
        else:
            self._match = (0, 0)
        return len(found)

    @on(LineTree.Highlighted, "#agentgo-call-tree")
    def _highlighted(self, event: LineTree.Highlighted) -> None:
        event.stop()
        key = event.key
        self.selected = key if isinstance(key, tuple) else None  # (a run's node: its id)
        self._show_detail()

    def _show_detail(self) -> None:
        detail = self.query_one("#agentgo-call-detail", Static)
        call = self.view.calls.get(self.selected) if self.selected is not None else None
        if call is None:
            detail.update(
                Text(
                    "Select a call (↑/↓) to see its request, result, tool steps and events.",
                    style="dim",
                )
            )
            return
        detail.update(call_detail(self.view, call, self._style))

    def detail_text(self) -> str:
        """The detail shown, as plain text (for tests)."""
        call = self.view.calls.get(self.selected) if self.selected is not None else None
        return "" if call is None else call_detail(self.view, call, self._style).plain
