"""Mutants of the relay endpoint, its guard and the LLM adaptor's answers."""

from __future__ import annotations

from typing import Any
from unittest import mock

from conformance.scenario.akan import Provider, Relay
from conformance.scenario.common import ScriptEntry
from reference.akan import llm, relay
from reference.akan.session import ChatSession
from reference.akan.wire import json_text
from reference.mutants import Mutant

_relay_turn = ChatSession._relay_turn
_adaptor_error = llm.adaptor_error


def _relay_running_tools(self: ChatSession, request: dict[str, Any]) -> ScriptEntry | None:
    """A relay that runs the page's tools itself and posts again, handing the browser only the last answer."""
    entry = _relay_turn(self, request)
    while entry is not None and entry.tool_calls:
        calls = [
            {"id": c.id or c.name, "name": c.name, "arguments": c.arguments or {}} for c in entry.tool_calls
        ]
        results = [
            {"role": "tool", "tool_call_id": call["id"], "content": json_text(tool.returns if tool else None)}
            for call in calls
            for tool in [self._tool(str(call["name"]))]
        ]
        messages = [*request["messages"], {"role": "assistant", "content": entry.text, "tool_calls": calls}]
        request = {**request, "messages": [*messages, *results]}
        entry = _relay_turn(self, request)
    return entry


def _any_guard(settings: Relay | None) -> relay.Admission:
    """Admits a caller who passes any one of the named guards."""
    if settings is None or not settings.served:
        return relay.admit(settings)
    guards = relay.effective_guards(settings)
    if any(relay.guard_passes(guard, settings.caller) for guard in guards):
        return relay.Admission("relayed")
    return relay.Admission("refused", refused_by=guards[0])


_admit = relay.admit


def _served_always(settings: Relay | None) -> relay.Admission:
    return _admit(settings.model_copy(update={"served": True}) if settings is not None else None)


def _err_as_null(provider: Provider, turn: int) -> llm.ErrorKey | None:
    error = _adaptor_error(provider, turn)
    return llm.ErrorKey(llm.UNAVAILABLE_KEY) if error is not None else None


MUTANTS: list[Mutant] = [
    Mutant(
        "akan-relay-open-by-default",
        ("akan.mount.relay-access-refuses-until-guard-named",),
        lambda: mock.patch.object(relay, "DEFAULT_GUARD", "Public"),
        "with no guard named the relay lets every caller through",
    ),
    Mutant(
        "akan-relay-runs-tools",
        ("akan.mount.relay-never-executes-tools",),
        lambda: mock.patch.object(ChatSession, "_relay_turn", _relay_running_tools),
        "the relay executes tool calls on the server and returns only the model's final answer",
    ),
    Mutant(
        "akan-guards-ored",
        ("akan.mount.set-agent-access-guard-semantics",),
        lambda: mock.patch.object(relay, "admit", _any_guard),
        "an array of guards admits a caller who passes any one of them",
    ),
    Mutant(
        "akan-relay-ignores-akan-agent-false",
        ("akan.mount.run-agent-turn-served-by-framework",),
        lambda: mock.patch.object(relay, "admit", _served_always),
        "AKAN_AGENT=false leaves runAgentTurn served",
    ),
    Mutant(
        "akan-accept-ignored",
        ("akan.mount.streaming-negotiated-by-accept",),
        lambda: mock.patch.object(relay, "response_path", lambda accept: "sse"),
        "the relay streams whatever the runner's accept header asks for",
    ),
    Mutant(
        "akan-err-collapsed-to-null",
        ("akan.llm.adaptor-throw-shows-provider-reason", "akan.llm.err-travels-as-key-and-values"),
        lambda: mock.patch.object(llm, "adaptor_error", _err_as_null),
        "a thrown Err is reported as llmUnavailable, the way null is",
    ),
    Mutant(
        "akan-error-key-shown-raw",
        ("akan.llm.fetch-runner-resolves-error-key",),
        lambda: mock.patch.object(llm, "resolve", lambda error, dictionary: error.key),
        "the browser puts the error's dictionary key in the transcript unresolved",
    ),
    Mutant(
        "akan-deltas-required",
        ("akan.llm.on-delta-optional",),
        lambda: mock.patch.object(relay, "deltas", lambda entry, path, on_delta: list(entry.chunks or [])),
        "the stream reports deltas the adaptor never sent",
    ),
]


_provider = ChatSession._provider


def _settings_only_for_default(self: ChatSession) -> dict[str, str]:
    """setLlm's settings are the default adaptor's: a swapped-in adaptor gets only its name."""
    if self.setup.provider.name != "deepseek":
        return {"name": self.setup.provider.name}
    return _provider(self)


MUTANTS += [
    Mutant(
        "akan-settings-lost-on-swap",
        ("akan.llm.settings-belong-to-role",),
        lambda: mock.patch.object(ChatSession, "_provider", _settings_only_for_default),
        "the model and host given to setLlm do not reach an adaptor applied in DeepSeek's place",
    ),
]

_real_guard_passes = relay.guard_passes


def _signed_in_refuses_everyone(guard: str, caller: Any) -> bool:
    return False if guard == "SignedIn" else _real_guard_passes(guard, caller)


MUTANTS += [
    Mutant(
        "akan-signed-in-refuses-everyone",
        ("akan.mount.set-agent-access-guard-semantics",),
        lambda: mock.patch.object(relay, "guard_passes", _signed_in_refuses_everyone),
        "the SignedIn guard the app names refuses a signed-in caller too",
    ),
]
