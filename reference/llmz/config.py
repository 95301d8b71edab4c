"""One execute call's resolved configuration: which tools, exits and components, and which options.

Resolution order for options: the execute step, then the scenario's setup defaults, then the runtime's
own defaults below. Exits follow the guide: a worker without custom exits gets ``DefaultExit``; an
explicit empty list gives none; chat always adds ``ListenExit``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from conformance.scenario.invalid import raw
from conformance.scenario.llmz import (
    AfterToolHook,
    BeforeRequestHook,
    BeforeToolHook,
    ComponentSpec,
    ExecuteStep,
    ObjectSpec,
    OnInspectHook,
    Setup,
    ToolSpec,
)
from reference.clock import parse_duration_ms
from reference.llmz.preview import DEFAULT_RESULT_BUDGET

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


@dataclass(frozen=True)
class ExitDef:
    name: str
    description: str
    schema: dict[str, Any] | None


DEFAULT_EXIT: Final = ExitDef("done", "The task is finished (or cannot be finished).", DEFAULT_EXIT_SCHEMA)
LISTEN_EXIT: Final = ExitDef(LISTEN, "Hand the turn back to the user and wait for their reply.", None)


@dataclass(frozen=True)
class RunConfig:
    mode: str
    instructions: str
    tools: dict[str, ToolSpec]
    objects: list[ObjectSpec]
    exits: dict[str, ExitDef]
    components: dict[str, ComponentSpec]
    text_handler: str
    on_delta: str
    on_exit: str
    after_tool: dict[str, AfterToolHook]
    before_tool: dict[str, BeforeToolHook]
    before_execution: str | None
    before_request: BeforeRequestHook | None
    on_inspect: OnInspectHook | None
    on_iteration_start: str
    on_iteration_end: str
    on_trace: str
    duplicates: dict[str, list[str]]
    """Names registered more than once, per kind (tool, exit, component)."""
    loop: int
    timeout_ms: int | None
    require_chat_response: bool
    max_tokens: object
    """As the host gave it; checked (llmz.budget.max-tokens.positive-safe-integer) as requests are fitted."""
    result_budget: object
    """As the host gave it: checked (llmz.inspection.tool-result-range) before the first iteration."""

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


def _pick(*values: Any, default: Any) -> Any:
    return next((value for value in values if value is not None), default)


def _exits(setup: Setup, step: ExecuteStep) -> dict[str, ExitDef]:
    defined = {e.name: ExitDef(e.name, e.description, e.schema_) for e in setup.exits}
    if step.exits is None:
        chosen = list(defined.values())
        if not chosen and step.mode == "worker":
            chosen = [DEFAULT_EXIT]
    else:
        missing = [name for name in step.exits if name not in defined]
        if missing:
            raise ValueError(f"steps: execute.exits names {missing}, which setup.exits does not define")
        chosen = [defined[name] for name in step.exits]
    if step.mode == "chat" and LISTEN not in {e.name for e in chosen}:
        chosen.append(LISTEN_EXIT)
    return {e.name: e for e in chosen}


def _repeated(names: list[str]) -> list[str]:
    return sorted({name for name in names if names.count(name) > 1})


def _duplicates(setup: Setup) -> dict[str, list[str]]:
    found = {
        "tool": _repeated([t.name for t in setup.tools]),
        "exit": _repeated([e.name for e in setup.exits]),
        "component": _repeated([raw(c.name) for c in setup.chat.components]),
    }
    return {kind: names for kind, names in found.items() if names}


def _components(setup: Setup) -> dict[str, ComponentSpec]:
    """Components by name, a name written invalid on purpose handed over as written: the runtime's own
    checks (``definitions``) refuse it, exactly as they would a host's."""
    specs = [c.model_copy(update={"name": raw(c.name)}) for c in setup.chat.components]
    return {spec.name: spec for spec in specs}  # type: ignore[misc]


def resolve(setup: Setup, step: ExecuteStep) -> RunConfig:
    options, defaults = step.options, setup.options
    timeout = _pick(options.timeout, defaults.timeout, default=None)
    return RunConfig(
        mode=step.mode,
        instructions=step.instructions,
        tools={t.name: t for t in setup.tools},
        objects=list(setup.objects),
        exits=_exits(setup, step),
        components=_components(setup) if step.mode == "chat" else {},
        text_handler=setup.chat.text_handler,
        on_delta=setup.chat.on_delta,
        on_exit=setup.hooks.on_exit,
        after_tool={hook.tool: hook for hook in setup.hooks.after_tool},
        before_tool={hook.tool: hook for hook in setup.hooks.before_tool},
        before_execution=setup.hooks.before_execution,
        before_request=setup.hooks.before_request,
        on_inspect=setup.hooks.on_inspect,
        on_iteration_start=setup.hooks.on_iteration_start,
        on_iteration_end=setup.hooks.on_iteration_end,
        on_trace=setup.hooks.on_trace,
        duplicates=_duplicates(setup),
        loop=_pick(options.loop, defaults.loop, default=DEFAULT_LOOP),
        timeout_ms=parse_duration_ms(timeout) if isinstance(timeout, str) else timeout,
        require_chat_response=_pick(
            options.require_chat_response, defaults.require_chat_response, default=True
        ),
        max_tokens=raw(_pick(options.max_tokens, defaults.max_tokens, default=None)),
        result_budget=raw(
            _pick(
                options.tool_result_max_tokens, defaults.tool_result_max_tokens, default=DEFAULT_RESULT_BUDGET
            )
        ),
    )
