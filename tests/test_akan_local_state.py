"""st.useState / st.expose on the agent's surface (reference.akan.local_state)."""

from __future__ import annotations

from typing import Any

import pytest

from reference.akan.declarations import Declarations
from reference.akan.local_state import LocalStates
from reference.akan.model import LocalState, Page
from reference.akan.page import LivePage
from reference.akan.policies import DEFAULT_POLICIES

local_state = LocalStates()


def _state(**fields: Any) -> LocalState:
    return LocalState(**fields)


def test_only_a_use_state_with_a_describable_set_type_gets_a_setter() -> None:
    # akan.state.use-state-read-only-unless-set, akan.tool.use-state-set-degrades-read-only
    states = [
        _state(api="useState", name="tab", value="a"),
        _state(api="useState", name="sort", value="new", set="string"),
        _state(api="useState", name="filters", value={}, set="Map"),
        _state(api="expose", name="total", value=3),
    ]
    assert [name for name, _ in local_state.setters(states, Declarations().parameters).values()] == ["sort"]
    assert set(local_state.published(states)) == {"tab", "sort", "filters", "total"}


def test_a_falsy_name_publishes_nothing() -> None:
    # akan.tool.falsy-name-state-too
    unnamed = [_state(api="expose", name="", value=1), _state(api="expose", name=None)]
    assert local_state.published(unnamed) == {}


def test_expose_takes_no_set() -> None:
    with pytest.raises(ValueError, match=r"only st\.useState takes `set`"):
        _state(api="expose", name="total", set="string")


def test_the_setter_writes_what_readstate_then_reads() -> None:
    sort = LocalState(api="useState", name="sort", set="string")
    page = LivePage(Page(local_state=[sort]), DEFAULT_POLICIES)
    [tool] = page.local_tools()
    assert page.run_local_tool(tool["name"], {"value": "oldest"}) == '{"written":{"sort":"oldest"}}'
    assert page.read_state("sort") == '{"key":"sort","value":"oldest"}'
    assert page.run_local_tool("setStateOther", {"value": 1}) is None
