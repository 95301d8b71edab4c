"""The end-of-iteration precedence (reference.llmz.settle): critical > inspection > error > exit."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from reference.llmz.settle import Happenings, settle

happenings = st.builds(Happenings, st.booleans(), st.booleans(), st.booleans(), st.booleans())


@given(happenings)
def test_critical_failures_always_stop(happened: Happenings) -> None:
    if happened.critical:
        assert settle(happened) == "critical"


@given(happenings)
def test_a_signal_beats_exits_and_recoverable_errors(happened: Happenings) -> None:
    if happened.signalled and not happened.critical:
        assert settle(happened) == "inspect"


@given(happenings)
def test_an_exit_applies_only_when_nothing_else_happened(happened: Happenings) -> None:
    expected = happened.exit_attempted and not (
        happened.critical or happened.signalled or happened.recoverable_error
    )
    assert (settle(happened) == "exit") is expected


def test_nothing_happening_continues_the_loop() -> None:
    assert settle(
        Happenings(critical=False, signalled=False, recoverable_error=False, exit_attempted=False)
    ) == ("continue")
