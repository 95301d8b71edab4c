"""The relay's guard and negotiation policy (reference.akan.relay) and the adaptor's error answers
(reference.akan.llm), at each boundary."""

from __future__ import annotations

from typing import Any

import pytest

from reference.akan import llm
from reference.akan.model import Adaptor, Caller, ErrorKey, Relay
from reference.akan.relay import Admission, RelayPolicy
from reference.providers.model import ModelResponse, ToolCall

relay = RelayPolicy()


def _relay(caller: dict[str, Any] | None = None, **fields: Any) -> Relay:
    return Relay(caller=Caller(**(caller or {})), **fields)


SIGNED_IN_ADMIN = {"signed_in": True, "roles": ["Admin"]}


def test_no_guard_named_refuses_even_the_most_privileged_caller_as_none_does() -> None:
    # akan.mount.relay-access-refuses-until-guard-named
    unnamed = relay.admit(_relay(caller=SIGNED_IN_ADMIN))
    none = relay.admit(_relay(access="None", caller=SIGNED_IN_ADMIN))
    assert unnamed == none == Admission("refused", refused_by="None")


@pytest.mark.parametrize(
    ("caller", "outcome"),
    [({"signed_in": True, "roles": ["Admin"]}, "relayed"), ({"signed_in": True}, "refused"),
     ({"roles": ["Admin"]}, "refused")],
)
def test_a_list_of_guards_needs_every_one_to_pass(caller: dict[str, object], outcome: str) -> None:
    # akan.mount.set-agent-access-guard-semantics
    assert relay.admit(_relay(access=["SignedIn", "Admin"], caller=caller)).outcome == outcome


def test_the_apps_null_removes_a_library_guard_and_omitting_the_call_keeps_it() -> None:
    # akan.mount.set-agent-access-guard-semantics
    assert relay.effective_guards(_relay(library_access="Admin")) == ("Admin",)
    assert "Admin" not in relay.effective_guards(_relay(library_access="Admin", access=None))
    assert relay.effective_guards(_relay(library_access="Admin", access="Public")) == ("Public",)


def test_akan_agent_false_takes_the_endpoint_away_before_any_guard() -> None:
    # akan.mount.run-agent-turn-served-by-framework
    assert relay.admit(_relay(served=False, access="Public")).outcome == "absent"
    assert relay.admit(None).outcome == "relayed"


def test_guard_family() -> None:
    anonymous, member = Caller(), Caller(signed_in=True, roles=("Editor",))
    assert relay.guard_passes("Public", anonymous) and not relay.guard_passes("None", member)
    assert relay.guard_passes("SignedIn", member) and not relay.guard_passes("SignedIn", anonymous)
    assert relay.guard_passes("Editor", member) and not relay.guard_passes("Admin", member)


def test_the_default_runner_asks_for_a_stream_and_json_only_gets_json() -> None:
    # akan.mount.streaming-negotiated-by-accept
    assert relay.response_path(relay.accept_header(None)) == "sse"
    assert relay.response_path(relay.accept_header(_relay(accept="application/json"))) == "json"
    assert relay.response_path("application/json, Text/Event-Stream") == "sse"


def test_the_relay_returns_tool_calls_untouched() -> None:
    # akan.mount.relay-never-executes-tools
    entry = ModelResponse(tool_calls=(ToolCall(name="lookupOrder", arguments={"id": 1}),))

    def run_tool(name: str, arguments: dict[str, Any]) -> str:
        raise AssertionError(f"the relay ran {name}")

    assert relay.exchange({"messages": []}, lambda request: entry, run_tool) is entry


def test_deltas_only_on_the_stream_and_only_when_the_adaptor_reports_them() -> None:
    # akan.llm.on-delta-optional
    entry = ModelResponse(text="ab", chunks=("a", "b"))
    assert relay.deltas(entry, "sse", True) == ["a", "b"]
    assert relay.deltas(entry, "sse", False) == relay.deltas(entry, "json", True) == []


def test_no_api_key_and_a_null_answer_are_both_llm_unavailable_but_an_err_keeps_its_key() -> None:
    # akan.llm.missing-api-key-boots-and-answers-unavailable, akan.llm.adaptor-null-means-not-configured,
    # akan.llm.adaptor-throw-shows-provider-reason
    assert llm.adaptor_error(Adaptor(api_key=False), 1) == ErrorKey("llmUnavailable")
    provider = Adaptor(name="claude", fails={1: None, 2: ErrorKey("tooLong", {"n": 3})})
    assert llm.adaptor_error(provider, 1) == ErrorKey("llmUnavailable")
    assert llm.adaptor_error(provider, 2) == ErrorKey("tooLong", {"n": 3})
    assert llm.adaptor_error(provider, 3) is None


def test_fetch_runner_interpolates_values_and_prefers_the_apps_dictionary() -> None:
    # akan.llm.fetch-runner-resolves-error-key
    error = ErrorKey("tooLong", {"tokens": 9, "limit": 8})
    assert llm.resolve(error, {"tooLong": "{tokens} over {limit}"}) == "9 over 8"
    assert llm.resolve(ErrorKey("llmUnavailable"), {}) == llm.BASE_DICTIONARY["llmUnavailable"]
    assert llm.resolve(ErrorKey("x", {"a": 1}), {"x": "{a} {missing}"}) == "1 {missing}"
