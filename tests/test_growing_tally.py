"""agentgo's usage totals, a snapshot at a time (``GrowingTally``): each snapshot adds only
the calls after a kept prefix, and gives what adding every call again gives, to the last
bit of every float, however calls arrive, change or stop being model calls."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st

from session_core.message_usage import MessageUsage
from session_core.usage import OPEN_CALLS, GrowingTally, tally_model_calls


@dataclass
class FakeCall:
    run_id: str | None


@dataclass
class FakeView:
    """What the tally reads of an ``AgentGoView``: calls in order, and the runs."""

    call_order: list[str] = field(default_factory=list)
    calls: dict[str, FakeCall] = field(default_factory=dict)
    run_order: list[str] = field(default_factory=list)


usages = st.one_of(
    st.none(),
    st.builds(
        MessageUsage,
        input=st.one_of(st.none(), st.integers(0, 10**6)),
        output=st.one_of(st.none(), st.integers(0, 10**5)),
        total=st.one_of(st.none(), st.integers(0, 10**6)),
        cost=st.one_of(st.none(), st.floats(0, 3, allow_nan=False)),
    ),
)
# a step: a new call (in its run), a change to the call ``back`` from the end, a call
# that is no model call any more, or a snapshot
steps = st.lists(
    st.one_of(
        st.tuples(st.just("new"), st.integers(0, 3), usages),
        st.tuples(st.just("change"), st.integers(0, 12), usages),
        st.tuples(st.just("drop"), st.integers(0, 12), st.none()),
        st.tuples(st.just("snapshot"), st.just(0), st.none()),
    ),
    max_size=400,
)


@settings(max_examples=150, deadline=None)
@given(steps)
def test_every_snapshot_gives_what_a_whole_tally_gives(script: list) -> None:  # type: ignore[type-arg]
    view = FakeView()
    model: dict[int, MessageUsage | None] = {}
    growing = GrowingTally(open_calls=3)  # (64 in use: few examples would reach it)
    for what, n, used in script:
        if what == "new":
            key = f"c{len(view.call_order)}"
            run = None if n == 0 else f"r{n}"
            if run is not None and run not in view.run_order:
                view.run_order.append(run)
            view.call_order.append(key)
            view.calls[key] = FakeCall(run)
            model[len(view.call_order) - 1] = used
        elif what == "change" and view.call_order:
            index = max(0, len(view.call_order) - 1 - n)
            growing.changed(index)
            model[index] = used
            model = dict(sorted(model.items()))
        elif what == "drop" and view.call_order:
            index = max(0, len(view.call_order) - 1 - n)
            if index in model:
                del model[index]
                growing.changed(index)
        elif what == "snapshot":
            got = growing.tally(view, model)  # type: ignore[arg-type]
            order = view.call_order
            whole = tally_model_calls(
                view,  # type: ignore[arg-type]
                ((view.calls[order[i]], used) for i, used in model.items()),  # type: ignore[misc]
            )
            assert got.transcript == whole.transcript
            assert dict(got.runs) == dict(whole.runs)


def test_a_snapshot_adds_only_the_open_end() -> None:
    """A long session: after the first snapshot, one adds the last calls, not them all."""
    view = FakeView(run_order=["r"])
    model: dict[int, MessageUsage | None] = {}
    growing = GrowingTally()
    for index in range(10_000):
        view.call_order.append(f"c{index}")
        view.calls[f"c{index}"] = FakeCall("r")
        model[index] = MessageUsage(input=1, output=1, total=2, cost=0.1)
    growing.tally(view, model)  # type: ignore[arg-type]
    assert growing.upto == 10_000 - OPEN_CALLS
    added: list[int] = []
    real_add = type(growing.kept.transcript).add

    def counting(self, usage):  # type: ignore[no-untyped-def]
        added.append(1)
        real_add(self, usage)

    type(growing.kept.transcript).add = counting  # type: ignore[method-assign]
    try:
        view.call_order.append("c10000")
        view.calls["c10000"] = FakeCall("r")
        model[10_000] = MessageUsage(total=2)
        got = growing.tally(view, model)  # type: ignore[arg-type]
    finally:
        type(growing.kept.transcript).add = real_add  # type: ignore[method-assign]
    assert got.transcript.total == 20_002 and got.transcript.turns == 10_001
    assert len(added) < 3 * OPEN_CALLS  # (the whole tally adds 20,002 times)
