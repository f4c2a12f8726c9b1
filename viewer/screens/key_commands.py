"""Command palette entries made from key bindings: each does what its key does where
the palette was opened (the binding's own action, run on the widget that binds it), and
is named as ``?`` names the key (``help.what_it_does``). So the palette cannot fall
behind the keys, nor run a pane's action while another pane is shown."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial

from textual.binding import Binding
from textual.dom import DOMNode
from textual.screen import Screen
from textual.widget import Widget

from .following import Command
from .help import key_name, offers, what_it_does


def key_chain(focused: Widget) -> list[Widget]:
    """Where a key typed with ``focused`` focused goes, in turn: it, then each of its
    containers, up to (not) its screen."""
    chain: list[Widget] = []
    node: DOMNode | None = focused
    while isinstance(node, Widget) and not isinstance(node, Screen):
        chain.append(node)
        node = node.parent
    return chain


def key_commands(chain: Sequence[Widget], keys: Iterable[str], where: str = "") -> list[Command]:
    """One palette entry per action that ``keys`` run along ``chain`` (a key goes to the
    first widget that binds it and offers its action now, as Textual gives it); a key
    that none of them binds is left out. Its help names its keys, and ``where``."""
    found: dict[tuple[int, str], tuple[Widget, Binding, list[str]]] = {}
    for key in keys:
        bound = _bound(chain, key)
        if bound is not None:
            node, binding = bound
            entry = found.setdefault((id(node), binding.action), (node, binding, []))
            entry[2].append(key_name(key))
    return [
        (
            what_it_does(binding),
            " ".join(("key", " / ".join(names), where)).strip(),
            partial(node.run_action, binding.action),
        )
        for node, binding, names in found.values()
    ]


def _bound(chain: Sequence[Widget], key: str) -> tuple[Widget, Binding] | None:
    for node in chain:
        for binding in node._bindings.key_to_bindings.get(key, ()):
            if offers(node, binding.action):
                return node, binding
    return None


__all__ = ["key_chain", "key_commands"]
