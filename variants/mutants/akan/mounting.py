"""Mutants of the relay endpoint, its guard and the LLM adaptor's answers."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from reference.akan import llm
from reference.akan.model import Adaptor, Caller, ErrorKey, Relay
from reference.akan.relay import Admission, AskModel, RelayPolicy, RunTool
from reference.providers.model import ModelResponse
from variants import Mutant
from variants.mutants.akan.common import mutant


class _RelayRunsTools(RelayPolicy):
    """A relay that runs the page's tools itself and asks again, handing the browser only the last answer."""

    def exchange(self, request: dict[str, Any], ask: AskModel, run_tool: RunTool) -> ModelResponse:
        entry = ask(request)
        while entry.tool_calls:
            calls: list[dict[str, Any]] = [
                {"id": c.id or c.name, "name": c.name, "arguments": c.arguments or {}}
                for c in entry.tool_calls
            ]
            results = [
                {"role": "tool", "tool_call_id": c["id"], "content": run_tool(c["name"], c["arguments"])}
                for c in calls
            ]
            asked = {"role": "assistant", "content": entry.text, "tool_calls": calls}
            request = {**request, "messages": [*request["messages"], asked, *results]}
            entry = ask(request)
        return entry


class _GuardsOred(RelayPolicy):
    """Admits a caller who passes any one of the named guards."""

    def admit(self, relay: Relay | None) -> Admission:
        if relay is None or not relay.served:
            return super().admit(relay)
        guards = self.effective_guards(relay)
        if any(self.guard_passes(guard, relay.caller) for guard in guards):
            return Admission("relayed")
        return Admission("refused", refused_by=guards[0])


class _ServedAlways(RelayPolicy):
    def admit(self, relay: Relay | None) -> Admission:
        return super().admit(replace(relay, served=True) if relay is not None else None)


class _StreamsAlways(RelayPolicy):
    def response_path(self, accept: str) -> str:
        return "sse"


class _DeltasRequired(RelayPolicy):
    def deltas(self, entry: ModelResponse, path: str, on_delta: bool) -> list[str]:
        return list(entry.chunks or [])


class _SignedInRefusesEveryone(RelayPolicy):
    def guard_passes(self, guard: str, caller: Caller) -> bool:
        return False if guard == "SignedIn" else super().guard_passes(guard, caller)


def _err_as_null(adaptor: Adaptor, turn: int) -> ErrorKey | None:
    error = llm.adaptor_error(adaptor, turn)
    return ErrorKey(llm.UNAVAILABLE_KEY) if error is not None else None


def _settings_only_for_default(adaptor: Adaptor) -> dict[str, str]:
    """setLlm's settings are the default adaptor's: a swapped-in adaptor gets only its name."""
    if adaptor.name != "deepseek":
        return {"name": adaptor.name}
    return llm.provider_settings(adaptor)


def _default_unless_configured(adaptor: Adaptor) -> dict[str, str]:
    """An applied adaptor takes the turns only once setLlm gave settings; without them DeepSeek answers."""
    if adaptor.settings is None:
        return dict(llm.DEFAULT_PROVIDER)
    return llm.provider_settings(adaptor)


MUTANTS: list[Mutant] = [
    mutant(
        "akan-relay-open-by-default",
        "akan.mount.relay-access-refuses-until-guard-named",
        "with no guard named the relay lets every caller through",
        relay=RelayPolicy(default_guard="Public"),
    ),
    mutant(
        "akan-relay-runs-tools",
        "akan.mount.relay-never-executes-tools",
        "the relay executes tool calls on the server and returns only the model's final answer",
        relay=_RelayRunsTools(),
    ),
    mutant(
        "akan-guards-ored",
        "akan.mount.set-agent-access-guard-semantics",
        "an array of guards admits a caller who passes any one of them",
        relay=_GuardsOred(),
    ),
    mutant(
        "akan-relay-ignores-akan-agent-false",
        "akan.mount.run-agent-turn-served-by-framework",
        "AKAN_AGENT=false leaves runAgentTurn served",
        relay=_ServedAlways(),
    ),
    mutant(
        "akan-accept-ignored",
        "akan.mount.streaming-negotiated-by-accept",
        "the relay streams whatever the runner's accept header asks for",
        relay=_StreamsAlways(),
    ),
    mutant(
        "akan-err-collapsed-to-null",
        ("akan.llm.adaptor-throw-shows-provider-reason", "akan.llm.err-travels-as-key-and-values"),
        "a thrown Err is reported as llmUnavailable, the way null is",
        adaptor_error=_err_as_null,
    ),
    mutant(
        "akan-error-key-shown-raw",
        "akan.llm.fetch-runner-resolves-error-key",
        "the browser puts the error's dictionary key in the transcript unresolved",
        resolve_error=lambda error, dictionary: error.key,
    ),
    mutant(
        "akan-deltas-required",
        "akan.llm.on-delta-optional",
        "the stream reports deltas the adaptor never sent",
        relay=_DeltasRequired(),
    ),
    mutant(
        "akan-swap-needs-settings",
        "akan.llm.apply-adaptor-swaps-provider",
        "an adaptor applied to the role is passed over for DeepSeek while setLlm gave no model or host",
        provider_settings=_default_unless_configured,
    ),
    mutant(
        "akan-settings-lost-on-swap",
        "akan.llm.settings-belong-to-role",
        "the model and host given to setLlm do not reach an adaptor applied in DeepSeek's place",
        provider_settings=_settings_only_for_default,
    ),
    mutant(
        "akan-signed-in-refuses-everyone",
        "akan.mount.set-agent-access-guard-semantics",
        "the SignedIn guard the app names refuses a signed-in caller too",
        relay=_SignedInRefusesEveryone(),
    ),
]
