"""``on_inspect.when``: a scenario's onInspect acts only on the values that mention a marker.

It lets a scenario tell whose preview a hook's answer lands on (the generated llmz/inspector 77:15 mutant
replayed one value's answer for another value of the same iteration)."""

from __future__ import annotations

import pytest

from conformance.players.llmz import _on_inspect
from conformance.scenario.llmz import OnInspectHook
from reference.llmz import InspectEvent


def test_a_hook_with_when_replaces_only_the_values_that_mention_it() -> None:
    heard: list[InspectEvent] = []
    hook = _on_inspect(OnInspectHook(action="replace", text="[hidden]", when="CARD-4111"), heard.append)
    assert hook(InspectEvent({"card": "CARD-4111-1111"}, "result", None)) == "[hidden]"
    assert hook(InspectEvent({"order": "ORDER-17"}, "result", None)) is None
    assert heard == []  # record is off


def test_a_hook_without_when_acts_on_every_value() -> None:
    hook = _on_inspect(OnInspectHook(action="replace", text="[hidden]"), lambda _event: None)
    assert hook(InspectEvent({"order": "ORDER-17"}, "result", None)) == "[hidden]"


def test_when_must_name_something() -> None:
    with pytest.raises(ValueError, match="when"):
        OnInspectHook(action="replace", when="")
