"""One execute call's resolved configuration: which tools, exits and components, and which options.

Exits follow the guide: a worker given no exits gets ``DefaultExit``; an explicit empty list gives none;
chat always adds the listen exit. Options left unset take the runtime's defaults below.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from reference.clock import parse_duration_ms
from reference.llmz.api import Chat, Component, Exit, Hooks, HostObject, Options, Tool

DEFAULT_LOOP: Final = 3
"""Not stated by the guide (llmz.configuration.loop-bounds-iterations leaves it open); 3 here."""

LISTEN: Final = "listen"

#: DefaultExit's payload: success with a result, or failure with an error message.
DEFAULT_EXIT_SCHEMA: Final[dict[str, Any]] = {
    "oneOf": [
        {"type": "object", "properties": {"success": {"const": True}, "result": {}}, "required": ["success"]},
        {
            "type": "object",
            "properties": {"success": {"const": False}, "error": {"type": "string"}},
            "required": ["success", "error"],
        },
    ]
}

DEFAULT_EXIT: Final = Exit("done", "The task is finished (or cannot be finished).", DEFAULT_EXIT_SCHEMA)
LISTEN_EXIT: Final = Exit(LISTEN, "Hand the turn back to the user and wait for their reply.", None)
"""llmz.exits.chat-listen-exit: the exit chat mode registers to hand the turn back."""


@dataclass(frozen=True)
class RunConfig:
    mode: str
    instructions: str
    tools: dict[str, Tool]
    objects: list[HostObject]
    exits: dict[str, Exit]
    components: dict[str, Component]
    text_handler: Callable[[str], Any] | None
    on_delta: Callable[[str, str], Any] | None
    on_restart: Callable[[dict[str, Any]], Any] | None
    hooks: Hooks
    duplicates: dict[str, list[str]]
    """Names registered more than once, per kind (tool, exit, component)."""
    loop: int
    timeout_ms: int | None
    require_chat_response: bool
    max_tokens: object
    """As the host gave it; checked (llmz.budget.max-tokens.positive-safe-integer) as requests are fitted."""
    result_budget: object
    """As the host gave it: checked (llmz.inspection.tool-result-range) before the first iteration."""
    mid_stream_fallback: bool = False
    """``options.midStreamFallback`` (llmz.streaming.mid-stream-fallback-before-dispatch)."""
    max_time_to_first_token: float | None = None
    """``options.maxTimeToFirstToken`` as the host gave it (llmz.configuration.streaming-options)."""
    transcription_model: str | None = None
    """``options.transcriptionModel`` (llmz.configuration.transcription-model)."""
    tools_getter: Callable[[], Sequence[Tool]] | None = None
    """The host's tools getter, when it gave one instead of a list (llmz.tools.dynamic-getters)."""
    preset: str | None = None
    """``Chat.response``'s preset, checked before the first iteration (reference.llmz.host_api)."""
    response_instructions: str | None = None
    legacy_problem: Any = None
    """The refusal of removed options of the previous API, when the policies refuse them
    (reference.llmz.host_api.legacy_refusal); None: they are ignored."""

    @property
    def result_budget_tokens(self) -> int:
        """The tool-result budget as a whole number of tokens: the value itself once ``definitions`` has
        accepted it (a runtime whose check is broken reads other values the loose way JavaScript would)."""
        value = self.result_budget
        if isinstance(value, int | float):
            return int(value)
        return int(float(str(value))) if str(value).strip() else 0

    @property
    def chat(self) -> bool:
        return self.mode == "chat"


def available_exits(exits: Sequence[Exit] | None, chat: bool, listen_exit: Exit) -> dict[str, Exit]:
    """The exits a run may complete through: DefaultExit for a worker given none (llmz.exits.default-exit),
    nothing for an explicit empty list (llmz.exits.empty-exits-none), and ``listen_exit`` added in chat
    only (llmz.exits.chat-listen-exit)."""
    chosen = list(exits) if exits is not None else []
    if exits is None and not chat:
        chosen = [DEFAULT_EXIT]
    if chat and LISTEN not in {e.name for e in chosen}:
        chosen.append(listen_exit)
    return {e.name: e for e in chosen}


def _repeated(names: list[Any]) -> list[Any]:
    """The names given more than once, each once, sorted (counted in one pass: a run may have many tools)."""
    return sorted(name for name, times in Counter(names).items() if times > 1)


def _duplicates(tools: Sequence[Tool], exits: Sequence[Exit], chat: Chat | None) -> dict[str, list[str]]:
    found = {
        "tool": _repeated([t.name for t in tools]),
        "exit": _repeated([e.name for e in exits]),
        "component": _repeated([c.name for c in chat.components]) if chat else [],
    }
    return {kind: names for kind, names in found.items() if names}


def fallback_sequence(models: list[Any]) -> list[list[Any]]:
    """The candidates still to try after each failed call: the whole list first, then without its head,
    so models are tried in list order (llmz.configuration.fallback-order). Only when every candidate
    failed is the generation failure critical (llmz.errors.generation-failed)."""
    return [models[start:] for start in range(len(models))]


def with_tools(config: RunConfig) -> RunConfig:
    """The configuration with its tools getter evaluated again (llmz.tools.dynamic-getters)."""
    if config.tools_getter is None:
        return config
    tools = config.tools_getter()
    return replace(config, tools={t.name: t for t in tools})


def resolve(
    *,
    instructions: str,
    tools: Sequence[Tool] | Callable[[], Sequence[Tool]],
    exits: Sequence[Exit] | None,
    objects: Sequence[HostObject],
    chat: Chat | None,
    hooks: Hooks,
    options: Options,
    listen_exit: Exit = LISTEN_EXIT,
    exits_of: Callable[[Sequence[Exit] | None, bool, Exit], dict[str, Exit]] = available_exits,
) -> RunConfig:
    """The configuration of one execute call. ``chat`` None makes it a worker; ``exits`` None gives the
    default exits (DefaultExit for a worker, none for chat), beside which chat adds ``listen_exit``."""
    timeout = options.timeout
    getter = tools if callable(tools) else None
    if getter is not None:
        tools = getter()
    assert not callable(tools)
    return RunConfig(
        mode="worker" if chat is None else "chat",
        instructions=instructions,
        tools={t.name: t for t in tools},
        objects=list(objects),
        exits=exits_of(exits, chat is not None, listen_exit),
        components={c.name: c for c in chat.components} if chat else {},
        text_handler=chat.handler if chat else None,
        on_delta=chat.on_delta if chat else None,
        on_restart=chat.on_restart if chat else None,
        hooks=hooks,
        duplicates=_duplicates(tools, exits or (), chat),
        loop=options.loop if options.loop is not None else DEFAULT_LOOP,
        timeout_ms=parse_duration_ms(timeout) if isinstance(timeout, str) else timeout,
        require_chat_response=options.require_chat_response,
        max_tokens=options.max_tokens,
        result_budget=options.tool_result_max_tokens,
        mid_stream_fallback=options.mid_stream_fallback,
        max_time_to_first_token=options.max_time_to_first_token,
        transcription_model=options.transcription_model,
        tools_getter=getter,
        preset=chat.preset if chat else None,
        response_instructions=chat.response_instructions if chat else None,
    )


def iterations_allowed(loop: int) -> int:
    """``options.loop`` is the most model iterations a run may take, the last of them included
    (llmz.configuration.loop-bounds-iterations)."""
    return loop
