"""An ``ItemColumn`` item of several lines: its later lines' spans in file order, read
again by span, and its count of lines, whichever order items are extended in."""

from __future__ import annotations

from session_core.item_column import ItemColumn
from session_core.model import Part, PartSource


def _column() -> ItemColumn:
    column = ItemColumn()
    column.source = PartSource(lambda span: [Part("text", text=f"line at {span}")])
    for n in range(3):
        column.append([Part("text", text="x")], n + 1, role="assistant", span=100 * (n + 1))
    return column


def test_later_lines_in_file_order_whatever_item_grows() -> None:
    column = _column()
    column.extend(1, [Part("text", text="y")], span=201)
    column.extend(2, [Part("text", text="y")], span=301)
    column.extend(1, [Part("text", text="y")], span=202)  # (after a later item grew)
    column.extend(0, [Part("text", text="y")], span=101)
    column.extend(2, [Part("text", text="y")], span=302)
    assert [column.more_spans(i) for i in range(3)] == [[101], [201, 202], [301, 302]]
    texts = [p.text for p in column.item(1).parts]
    assert texts == ["line at 200", "line at 201", "line at 202"]


def test_lines_counted_where_set() -> None:
    column = _column()
    assert [column.lines_of(i) for i in range(3)] == [1, 1, 1]
    column.set_lines(2, 5)
    column.set_lines(0, 3)
    assert [column.lines_of(i) for i in range(3)] == [3, 1, 5]
    assert column.item(2).lines == 5
