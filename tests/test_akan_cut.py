"""The compaction cut (reference.akan.cut): examples from the rules and a property over any transcript."""

from __future__ import annotations

import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st

from reference.akan.cut import choose_cut
from variants.mutants.akan.conversation import _nominal_cut

ROLE_LISTS = st.lists(st.sampled_from(["user", "assistant", "tool", "local", "summary"]), max_size=40)
KEEPS = st.integers(min_value=0, max_value=12)


def _lands_on_tool(roles: list[str], cut: int | None) -> bool:
    return cut is not None and cut < len(roles) and roles[cut] == "tool"


def test_kept_part_of_a_ten_tool_turn_opens_on_the_assistant_message() -> None:
    # akan.compaction.cut.assistant-when-no-user
    roles = ["user", "assistant", *["tool"] * 10]
    assert choose_cut(roles, keep=4) == 1


def test_a_user_message_in_the_tail_is_preferred_over_walking_back() -> None:
    # akan.compaction.cut.prefers-user: nominal cut is the second tool result, the tail holds a user message
    roles = ["user", "assistant", "user", "assistant", "tool", "tool", "assistant", "user"]
    assert choose_cut(roles, keep=3) == 7


def test_the_earliest_user_message_of_the_tail_is_taken() -> None:
    roles = ["user", "assistant", "user", "assistant", "user"]
    assert choose_cut(roles, keep=3) == 2


def test_keep_zero_summarizes_everything() -> None:
    # akan.compaction.command-keeps-nothing
    assert choose_cut(["user", "assistant", "tool"], keep=0) == 3


def test_nothing_to_summarize_when_the_history_fits_in_keep() -> None:
    assert choose_cut(["user", "assistant"], keep=2) is None
    assert choose_cut(["summary", "user"], keep=1) is None


def test_local_messages_are_not_counted_by_keep() -> None:
    # akan.local.withheld-from-wire: a note is not history, so it does not use up `keep`
    roles = ["user", "assistant", "local", "local", "user"]
    assert choose_cut(roles, keep=2) == 4


def test_negative_keep_is_an_error() -> None:
    with pytest.raises(ValueError, match="keep"):
        choose_cut(["user"], keep=-1)


@settings(max_examples=500)
@given(roles=ROLE_LISTS, keep=KEEPS)
def test_the_cut_never_lands_on_a_tool_message(roles: list[str], keep: int) -> None:
    # akan.compaction.cut.never-on-tool, over any sequence of roles (well-formed or not)
    cut = choose_cut(roles, keep)
    if cut is None:
        return
    assert 0 < cut <= len(roles)
    assert not _lands_on_tool(roles, cut), f"cut {cut} opens the kept part on a tool result: {roles}"
    assert any(role != "local" for role in roles[:cut]), "a cut must summarize some history"


def test_the_property_finds_the_flaw_in_a_cut_that_ignores_tool_messages() -> None:
    # The property above is not vacuous: against the akan-cut-on-tool mutant's cut it finds a counterexample.
    cases = st.tuples(ROLE_LISTS, KEEPS)
    roles, keep = find(cases, lambda case: _lands_on_tool(case[0], _nominal_cut(*case)))
    assert roles[_nominal_cut(roles, keep) or 0] == "tool"


@given(
    turns=st.lists(st.tuples(st.booleans(), st.integers(min_value=0, max_value=10)), min_size=1, max_size=8),
    keep=st.integers(min_value=1, max_value=12),
)
def test_well_formed_transcripts_keep_every_result_with_its_call(
    turns: list[tuple[bool, int]], keep: int
) -> None:
    # For transcripts the loop produces (user, then assistant turns each followed by its results), the kept
    # part never holds a result whose call was summarized.
    roles: list[str] = []
    for asks, calls in turns:
        if asks or not roles:
            roles.append("user")
        roles.append("assistant")
        roles.extend(["tool"] * calls)
    cut = choose_cut(roles, keep)
    if cut is None or cut == len(roles):
        return
    assert roles[cut] in ("user", "assistant")
