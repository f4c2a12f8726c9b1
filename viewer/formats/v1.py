"""transcript-v1's own panes on the model screen (its ``extra_panes``): the diff of each
message line as written beside what the model is sent (``DiffView``: ``=`` ``~`` ``-``
``+``, ``n``/``p`` through the differences, ``a`` the changed ones only, ``/`` its own
search), and the run contexts (each run-context line's facts and sections, bodies
resolved through their ``rendered-in`` pointers, and what changed since the previous
run). Both read the v1 replay itself (``V1Live.replay``), which the model screen's
snapshot is made from.

And what only v1 operations carry: an operation's artifact (``a`` in the tool
operations tab; ``viewer.screens.artifact``) and its record's own fields (op id,
round, idempotency, digests, reason, error) in its detail; its agent and grants in the
header (what it left open is said as every format's is: ``in flight``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual.binding import Binding, BindingType
from textual.widget import Widget
from textual.widgets import TabbedContent

from session_core.artifacts import ARTIFACT_SAID
from session_core.formats import V1
from session_core.formats.v1 import V1Live
from session_core.formats.v1.ops import V1Op
from session_core.json_out import compact_json
from session_core.model import ToolOp
from session_core.replay import ReplayState
from session_core.text import count

from ..safe import one_line
from ..screens.following import Command
from ..widgets.block_view import Entry
from ..widgets.diff_view import DiffView
from ..widgets.run_context import RunContextPane
from . import ExtraPane, PaneSet, register_panes

if TYPE_CHECKING:
    from ..screens.model_screen import ModelScreen

ARTIFACT_STATES = {**ARTIFACT_SAID, "here": "here (a opens it)"}


def grant_text(grant: object) -> str:
    """A permission grant in the header: ``fs_read:always`` (its tool and scope), else
    what it holds (the spec leaves a grant's shape to its writer: a grant of
    ``{"tool": "bash", "allow": true}`` read ``bash:?``)."""
    if isinstance(grant, dict):
        tool, scope = grant.get("tool"), grant.get("scope")
        if tool is not None and scope is not None:
            return f"{one_line(tool, 30)}:{one_line(scope, 20)}"
        rest = " ".join(
            f"{one_line(key, 12)}={one_line(_value(value), 12)}"
            for key, value in grant.items()
            if key != "tool"
        )
        return one_line(f"{tool if tool is not None else ''} {rest}".strip() or "{}", 40)
    return one_line(grant, 40)


def _value(value: object) -> str:
    return value if isinstance(value, str) else compact_json(value)


class V1Panes(PaneSet):
    """v1's diff and run contexts, over the replay the screen follows."""

    PANES = (
        ExtraPane(
            "changes",
            "Diff",
            lambda: DiffView(id="diffview"),
            "Show the diff",
            "Each message line as written beside what is sent",
        ),
        ExtraPane(
            "contexts",
            "Run contexts",
            lambda: RunContextPane(id="runcontexts"),
            "Show run contexts",
            "Facts and sections of each run",
        ),
    )
    # v1's keys as they always were: 1 conversation, 2 diff, 3 tool operations, 4 run
    # contexts; then the shared runs. (v1's diff is its own: a row per message line.)
    ORDER = ("conversation", "changes", "tools", "contexts", "runs")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d", "show_tab('changes')", "Diff"),
        Binding("a", "open_artifact", "Artifact", show=False),
    ]

    def __init__(self, screen: ModelScreen) -> None:
        super().__init__(screen)
        self._state: ReplayState | None = None  # what the diff was given
        self._contexts_stale = True

    @property
    def state(self) -> ReplayState:
        live = self.screen.live
        assert isinstance(live, V1Live)
        return live.replay.state

    @property
    def diff(self) -> DiffView:
        return self.screen.query_one(DiffView)

    @property
    def contexts(self) -> RunContextPane:
        return self.screen.query_one(RunContextPane)

    # -- following ---------------------------------------------------------------------

    def followed(self, reset: bool) -> None:
        state = self.state
        if reset or state is not self._state:
            self._state = state
            self.diff.state_lock = self.screen.state_lock  # (a search holds it: its rows read
            self.diff.set_state(state)  # the state this screen's reader changes)
        else:
            self.diff.mark_stale()
        self._contexts_stale = True
        self._refresh_shown()

    def _refresh_shown(self) -> None:
        self.tab_shown(self.screen.query_one(TabbedContent).active)

    def tab_shown(self, tab: str) -> None:
        if tab == "changes":
            self.diff.on_show()
        elif tab == "contexts" and self._contexts_stale:
            self._contexts_stale = False
            self.contexts.refresh_view(self.state, self.screen.path)

    def focus_target(self, tab: str) -> Widget:
        panes: dict[str, Widget] = {"changes": self.diff, "contexts": self.contexts}
        return panes[tab]

    # -- what the header and an operation's detail say ----------------------------------

    def status(self) -> list[str]:
        state = self._state
        if state is None:
            return []
        agent = state.meta.get("agent")  # (the shared header names the model, not the agent)
        parts = [f"agent={one_line(str(agent), 40)}"] if agent not in (None, "") else []
        parts.append(count(state.message_count, "message line"))
        # (what was left open, its operations pending among it, is the header's "in
        # flight", in ``check``'s words: of the snapshot its other counts are of)
        grants = state.grants
        if grants:
            more = f" (+{len(grants) - 6})" if len(grants) > 6 else ""
            parts.append(f"grants {', '.join(grant_text(g) for g in grants[:6])}{more}")
        return parts

    def op_detail(self, op: ToolOp) -> list[Entry]:
        if not isinstance(op, V1Op):
            return []
        record = op.record()
        fields = [
            ("op id", record.get("op-id")),
            ("round", record.get("round")),
            ("idempotency", record.get("idempotency")),
            ("outcome", record.get("outcome")),
            ("reason", record.get("reason")),
            ("arguments-digest", record.get("arguments-digest")),
            ("result-digest", record.get("result-digest")),
            ("settle line id", record.get("settle-id")),
        ]
        out: list[Entry] = [("bold", "transcript-v1")]
        out += [("", f"{name}: {value}") for name, value in fields if value not in (None, "")]
        error = record.get("error")
        if error not in (None, ""):
            out += [("bold red", "error"), ("red", str(error))]
        artifact = record.get("artifact")
        if isinstance(artifact, dict):
            from session_core.artifacts import artifact_status

            status = artifact_status(self.screen.path, artifact.get("file"))
            where = ARTIFACT_STATES.get(status.state, status.state)
            out.append(("bold", f"artifact: {where}"))
            for key in ("file", "bytes", "chars", "elided-chars", "digest"):
                if key in artifact:
                    out.append(("", f"  {key}: {artifact[key]}"))
        return out

    # -- the diff's messages ---------------------------------------------------------------

    def on_diff_view_stepped(self, event: DiffView.Stepped) -> None:
        self.screen.notify(event.text, timeout=2)

    def on_diff_view_show_line(self, event: DiffView.ShowLine) -> None:
        self.screen.show_in_raw(
            lambda view: view.move_to_line(event.line), "That line is not shown (a filter?)."
        )

    # -- actions -------------------------------------------------------------------------

    def action_open_artifact(self) -> None:
        """The artifact of the operation selected in the tool operations tab."""
        screen = self.screen
        op = screen.ops.selected if screen.panes_ready else None
        if screen.query_one(TabbedContent).active != "tools" or op is None:
            screen.notify("Select an operation in the tool operations tab (3) first.", timeout=2)
            return
        opener = self.op_artifact(op)
        if opener is None:
            screen.notify("This operation has no artifact.", timeout=2)
            return
        opener()

    def op_artifact(self, op: ToolOp) -> Callable[[], None] | None:
        artifact = op.record().get("artifact") if isinstance(op, V1Op) else None
        if not isinstance(artifact, dict):
            return None
        screen = self.screen

        def opener() -> None:
            from ..screens.artifact import ArtifactScreen  # only when one is opened

            screen.app.push_screen(ArtifactScreen(screen.path, artifact.get("file"), artifact))

        return opener

    # -- the palette ---------------------------------------------------------------------

    def palette(self) -> list[Command]:
        return [
            *super().palette(),
            ("Open the artifact", "Of the selected tool operation", self.action_open_artifact),
        ]


register_panes(V1, V1Panes)

__all__ = ["V1Panes"]
