"""The panes of the formats whose sessions start subagents of their own (Claude Code,
Codex; their ``extra_panes``): a Subagents tab, each subagent the session linked with
its call's state, its messages and usage, and where its lines are (``enter`` opens it,
``m`` shows the call that started it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.widget import Widget
from textual.widgets import TabbedContent

from session_core.formats import CLAUDE_CODE, CODEX

from ..format_screens import open_linked
from ..widgets.subagents_pane import SubagentsPane
from . import ExtraPane, PaneSet, register_panes

if TYPE_CHECKING:
    from ..screens.model_screen import ModelScreen

TAB = "subagents"


class SubagentPanes(PaneSet):
    """The Subagents tab, drawn from the screen's snapshot when it is shown."""

    PANES = (
        ExtraPane(
            TAB,
            "Subagents",
            lambda: SubagentsPane(id="subagents"),
            "Show subagents",
            "Each subagent: its state, messages, usage, and its file",
        ),
    )

    def __init__(self, screen: ModelScreen) -> None:
        super().__init__(screen)
        self._stale = True  # the pane has not been drawn from the last snapshot

    @property
    def pane(self) -> SubagentsPane:
        pane: SubagentsPane = self.screen.query_one(SubagentsPane)
        return pane

    def followed(self, reset: bool) -> None:
        self._stale = True
        self.tab_shown(self.screen.query_one(TabbedContent).active)

    def liveness_changed(self, live: bool) -> None:
        self.followed(False)  # (a call without a result turns from running to interrupted)

    def tab_shown(self, tab: str) -> None:
        if tab == TAB and self._stale:
            self._stale = False
            self.pane.show(self.screen.transcript)

    def focus_target(self, tab: str) -> Widget:
        return self.pane.table

    def on_subagents_pane_open(self, event: SubagentsPane.Open) -> None:
        subagent = event.subagent
        screen = self.screen
        if subagent.line is not None:
            line = subagent.line
            screen.show_in_raw(
                lambda view: view.move_to_line(line), "That subagent's lines are not shown."
            )
        else:
            why = subagent.no_file if subagent.no_file_name else None
            open_linked(screen.app, subagent.path, force_polling=screen.force_polling, why=why)

    def on_subagents_pane_jump(self, event: SubagentsPane.Jump) -> None:
        self.screen.show_call_message(event.op)


register_panes(CLAUDE_CODE, SubagentPanes)
register_panes(CODEX, SubagentPanes)
