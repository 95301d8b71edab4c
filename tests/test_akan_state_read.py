"""What readState shows of one key (reference.akan.state_read)."""

from __future__ import annotations

from reference.akan.model import StateKey
from reference.akan.state_read import MASK, StateReader, holds_data

agent_view, readable = StateReader().agent_view, StateReader().readable

ACCOUNT = {"name": "Ada", "token": "sk", "avatarColor": "#f80", "cards": [{"token": "x", "last4": "4242"}]}


def test_a_secret_holding_data_refuses_the_read_without_a_mask_model() -> None:
    # akan.state.masked-model-refused-without-mask
    value, refused = agent_view(StateKey(value=ACCOUNT, secret=["token"]))
    assert value is None and refused is not None and "mask" in refused


def test_an_empty_secret_does_not_refuse() -> None:
    value, refused = agent_view(StateKey(value={"name": "Ada", "token": ""}, secret=["token"]))
    assert refused is None and value == {"name": "Ada", "token": ""}
    assert not holds_data({"token": None, "x": [{"token": []}]}, ["token"])


def test_a_mask_model_masks_its_fields_and_every_secret_at_any_depth() -> None:
    # akan.state.read-masked-by-declared-model
    value, refused = agent_view(StateKey(value=ACCOUNT, secret=["token"], mask=["name"]))
    assert refused is None
    cards = [{"token": MASK, "last4": "4242"}]
    assert value == {"name": MASK, "token": MASK, "avatarColor": "#f80", "cards": cards}


def test_visual_fields_are_dropped_and_never_refuse() -> None:
    # akan.state.visual-field-stripped-from-agent-reads, akan.state.visual-field-never-refused
    value, refused = agent_view(StateKey(value=ACCOUNT, visual=["avatarColor", "token"]))
    assert refused is None
    assert value == {"name": "Ada", "cards": [{"last4": "4242"}]}


def test_keys_kept_off_the_surface() -> None:
    # akan.state.agent-false-keeps-key-off, akan.tool.falsy-name-state-too
    state = {"a": StateKey(), "b": StateKey(agent=False), "": StateKey()}
    assert list(readable(state)) == ["a"]
