"""The relay endpoint ``runAgentTurn`` as a policy: who may call it, how it answers, what it never does.

Theory of operation. The browser's runner posts each turn to the relay. The relay is served by the
framework unless the server runs with ``AKAN_AGENT=false`` (akan.mount.run-agent-turn-served-by-framework).
A served relay first asks its guard: the guard the app named with ``setAgentAccess``, else one a library
named, else ``AgentRelayAccess``, which turns every caller away exactly as the ``None`` guard does
(akan.mount.relay-access-refuses-until-guard-named). A list of guards passes only when each passes
(akan.mount.set-agent-access-guard-semantics). An admitted turn goes to the LLM adaptor and the model's
answer comes back over SSE or JSON, as the runner's ``accept`` header asked
(akan.mount.streaming-negotiated-by-accept) -- with its tool calls untouched: the relay keeps no state and
runs no tool, so each call is run by the caller's own session (akan.mount.relay-never-executes-tools).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from reference.akan.model import UNSET, Caller, GuardSpec, Relay
from reference.providers.model import ModelResponse

#: What ``AgentRelayAccess`` answers: it is the ``None`` guard until the app names another.
DEFAULT_GUARD = "None"
#: The accept header the default runner sends, asking for a stream.
DEFAULT_ACCEPT = "text/event-stream"
#: akan.mount.run-agent-turn-served-by-framework
DISABLE_ENV = ("AKAN_AGENT", "false")

AskModel = Callable[[dict[str, Any]], ModelResponse]
"""The relay's one way to the model: post a request, get the answer."""
RunTool = Callable[[str, dict[str, Any]], str]
"""A page tool, as only the caller's own session can run it."""


@dataclass(frozen=True)
class Admission:
    """The relay's answer before any model work: ``relayed``, ``refused`` (with the guard) or ``absent``."""

    outcome: str
    refused_by: str | None = None


@dataclass(frozen=True)
class RelayPolicy:
    """``runAgentTurn``: who may call it, how it answers, and what it never does."""

    default_guard: str = DEFAULT_GUARD
    """akan.mount.relay-access-refuses-until-guard-named: ``AgentRelayAccess`` is the None guard."""

    def guard_passes(self, guard: str, caller: Caller) -> bool:
        """One guard class against the caller: the reference's small fixed family of guards."""
        if guard == "Public":
            return True
        if guard == "None":
            return False
        if guard == "SignedIn":
            return caller.signed_in
        return guard in caller.roles

    def effective_guards(self, relay: Relay) -> tuple[str, ...]:
        """The guards the relay applies, in order.

        akan.mount.relay-access-refuses-until-guard-named: with nothing named, ``AgentRelayAccess`` (the
        None guard). akan.mount.set-agent-access-guard-semantics: the app's call wins over a library's;
        ``null`` clears what the library set. What is left after ``null`` is an open question in the
        documents; the reference falls back to ``AgentRelayAccess`` (refusing), and no scenario checks
        that fallback.
        """
        named: GuardSpec = relay.library_access if relay.access is UNSET else relay.access
        if named is None:
            return (self.default_guard,)
        return (named,) if isinstance(named, str) else tuple(named) or (self.default_guard,)

    def admit(self, relay: Relay | None) -> Admission:
        """Whether the relay takes this turn; ``relay`` None means a served endpoint the caller may use.

        akan.mount.set-agent-access-guard-semantics: a list passes only when every guard in it passes.
        """
        if relay is None:
            return Admission("relayed")
        if not relay.served:
            return Admission("absent")
        for guard in self.effective_guards(relay):
            if not self.guard_passes(guard, relay.caller):
                return Admission("refused", refused_by=guard)
        return Admission("relayed")

    def accept_header(self, relay: Relay | None) -> str:
        """akan.mount.streaming-negotiated-by-accept: the runner asks for a stream unless told otherwise."""
        return relay.accept if relay is not None and relay.accept is not None else DEFAULT_ACCEPT

    def response_path(self, accept: str) -> str:
        """``sse`` when the accept header admits an event stream, else ``json``."""
        return "sse" if "text/event-stream" in accept.lower() else "json"

    def exchange(self, request: dict[str, Any], ask: AskModel, run_tool: RunTool) -> ModelResponse:
        """One admitted turn: the model's answer goes back as it came, its calls unexecuted.

        akan.mount.relay-never-executes-tools: the relay keeps no state and runs no tool, so ``run_tool``
        (what a relay that did would need) is left alone; each call is run by the caller's own session.
        """
        return ask(request)

    def deltas(self, entry: ModelResponse, path: str, on_delta: bool) -> list[str]:
        """Text the browser sees arrive before the whole answer: only on the stream, only if the adaptor
        reports deltas (akan.llm.on-delta-optional: without them the answer still arrives, whole)."""
        if path != "sse" or not on_delta:
            return []
        return list(entry.chunks) if entry.chunks else [entry.text] if entry.text else []
