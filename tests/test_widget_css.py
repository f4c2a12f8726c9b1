"""Textual styles a widget by the classes down its first bases alone (``_css_type_names``):
a widget of two bases whose second brings the CSS (a table's header, cursor, stripes and
search match) was drawn without any of it. Every class of the viewer gets the CSS of each
class it is made of."""

from __future__ import annotations

import importlib
import pkgutil

from textual.dom import DOMNode

import viewer


def _every_class() -> list[type[DOMNode]]:
    for module in pkgutil.walk_packages(viewer.__path__, "viewer."):
        if ".demo" not in module.name:
            importlib.import_module(module.name)
    found: list[type[DOMNode]] = []
    todo: list[type[DOMNode]] = [DOMNode]
    while todo:
        cls = todo.pop()
        for sub in cls.__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("viewer."):
                found.append(sub)
    return found


def test_every_viewer_widget_is_styled_as_each_of_its_bases() -> None:
    missed = [
        f"{cls.__module__}.{cls.__qualname__} lacks {base.__name__}'s CSS"
        for cls in _every_class()
        for base in cls.__mro__[1:]
        if issubclass(base, DOMNode)
        and "DEFAULT_CSS" in vars(base)
        and base.__name__ not in cls._css_type_names
    ]
    assert not missed, missed
    assert len(_every_class()) > 30  # (the walk found the viewer's widgets)
