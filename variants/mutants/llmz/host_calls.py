"""Mutants for the llmz host-call rules (issue 10): one decision of ``reference.llmz.host_api`` or the
preview each, reached through ``Policies``.

``tests/test_llmz_mutants.py`` proves the scenarios pinning each mutant's rules fail against it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from reference.llmz import preview
from reference.llmz.api import Component, Tool, Truncated
from reference.llmz.host_api import PUBLIC_NAMES
from reference.llmz.policies import Policies
from reference.llmz.reports import Display
from variants import Mutant


def _marker_left_out(
    text: str,
    kept: preview.KeptChars,
    max_tokens: int,
    preserve: preview.Preserve,
    count: Callable[[str], int],
) -> str:
    """Cut as if the cut-off marker took no room: the text alone fills the budget."""
    return preview.cut(text, kept, max_tokens + count(f"\n{preview.MARKER}"), preserve, count)


def _preserve_dropped(result: Truncated) -> tuple[Any, Display]:
    """truncate() keeps value and maxTokens but forgets preserve."""
    return result.value, (result.max_tokens, "top")  # type: ignore[return-value]


def _binds_in_place(component: Component, handler: Callable[..., Any]) -> Component:
    """withHandler binds the definition itself and returns it."""
    object.__setattr__(component, "handler", handler)
    return component


def _clone_without_effects(tool: Tool, name: str) -> Tool:
    """A clone rebuilt from the JSON Schema alone: its effects are lost."""
    return replace(tool, name=name, input_effects=())


def _json_without_description(definition: Any) -> dict[str, Any]:
    exported: dict[str, Any] = {"name": definition.name}
    schema = definition.input if isinstance(definition, Tool) else definition.schema
    if schema is not None:
        exported["input" if isinstance(definition, Tool) else "schema"] = schema
    return exported


def _speech_as_audio(preset: str | None, text: str) -> Any:
    return {"audio": f"<synthesized {len(text)} characters>"} if preset == "speech" else text


def _conversation_kept_by_chat(p: Policies) -> Policies:
    """The chat configuration keeps the conversation: a run given no session goes on with the session the
    last run with the same components and preset used."""
    base = p.run_session
    kept: dict[Any, Any] = {}

    def run_session(session: Any, chat: Any, policies: Policies) -> Any:
        key = None if chat is None else (chat.preset, tuple(c.name for c in chat.components))
        if session is None and key is not None and key in kept:
            return kept[key]
        chosen = base(session, chat, policies)
        if key is not None:
            kept[key] = chosen
        return chosen

    return replace(p, run_session=run_session)


def _override_bypasses_limit(p: Policies) -> Policies:
    """Once a tool result carries a truncate() override, requests are no longer held to the limit."""
    base_unwrap, base_fits = p.unwrap_truncated, p.input_fits
    overridden: list[bool] = []

    def unwrap(result: Truncated) -> tuple[Any, Display]:
        overridden.append(True)
        return base_unwrap(result)

    def fits(window: Any, input_tokens: int) -> bool:
        return True if overridden else base_fits(window, input_tokens)

    return replace(p, unwrap_truncated=unwrap, input_fits=fits)


def _honours(*places: str) -> Callable[[str, Any], Any]:
    """Options of the previous API passed at ``places`` still take effect."""

    def legacy_options(where: str, options: Any) -> Any:
        return options if where in places else {}

    return legacy_options


MUTANTS: list[Mutant] = [
    Mutant(
        "llmz-api-create-inspector-missing",
        rules=("llmz.api.exports",),
        description="createInspector is not exposed by name",
        policies=lambda p: replace(p, public_names=PUBLIC_NAMES - {"createInspector"}),
    ),
    Mutant(
        "llmz-migration-wrap-content-kept",
        rules=("llmz.migration.truncate-replaces-helpers",),
        description="the legacy utils.wrapContent helper is still exposed",
        policies=lambda p: replace(p, public_names=PUBLIC_NAMES | {"utils.wrapContent"}),
    ),
    Mutant(
        "llmz-migration-example-kept",
        rules=("llmz.migration.no-examples",),
        description="the removed Example class is still exposed",
        policies=lambda p: replace(p, public_names=PUBLIC_NAMES | {"Example"}),
    ),
    Mutant(
        "llmz-inspection-marker-not-counted",
        rules=("llmz.inspection.markers-counted",),
        description="a cut preview fills the budget with text and adds the cut-off marker on top",
        policies=lambda p: replace(p, cut_preview=_marker_left_out),
    ),
    Mutant(
        "llmz-inspection-inspector-ignores-budget",
        rules=("llmz.inspection.inspector-api",),
        description="inspect's tokens and an inspector's maxTokens are ignored: previews get 2,000 tokens",
        policies=lambda p: replace(p, inspector_budget=lambda _tokens: preview.DEFAULT_RESULT_BUDGET),
    ),
    Mutant(
        "llmz-inspection-default-budget-off-by-one",
        rules=("llmz.inspection.tool-result-default",),
        description="a left-out toolResultMaxTokens gives previews 1,999 tokens, not the 2,000 written out",
        policies=lambda p: replace(p, default_result_budget=preview.DEFAULT_RESULT_BUDGET - 1),
    ),
    Mutant(
        "llmz-inspection-truncate-preserve-dropped",
        rules=("llmz.inspection.truncate-options",),
        description="truncate({value, maxTokens, preserve}) ignores preserve",
        policies=lambda p: replace(p, unwrap_truncated=_preserve_dropped),
    ),
    Mutant(
        "llmz-components-render-shares-props",
        rules=("llmz.components.render-immutable",),
        description="render keeps and hands out the caller's props object itself",
        policies=lambda p: replace(p, render_capture=lambda v: v, render_view=lambda v: v),
    ),
    Mutant(
        "llmz-components-with-handler-mutates",
        rules=("llmz.components.with-handler",),
        description="withHandler binds the handler onto the reusable definition",
        policies=lambda p: replace(p, bind_handler=_binds_in_place),
    ),
    Mutant(
        "llmz-components-handler-without-id",
        rules=("llmz.components.handler-metadata",),
        description="component handlers get metadata without the message id",
        policies=lambda p: replace(p, message_metadata=lambda _n: {}),
    ),
    Mutant(
        "llmz-components-defaults-prebound",
        rules=("llmz.components.default-components",),
        description="the predefined components come with a handler already bound",
        policies=lambda p: replace(
            p, default_components=tuple(replace(c, handler=lambda _props: None) for c in p.default_components)
        ),
    ),
    Mutant(
        "llmz-components-presets-refused",
        rules=("llmz.components.response-options",),
        description="Chat.response presets are refused as configuration errors",
        policies=lambda p: replace(p, response_presets=frozenset()),
    ),
    Mutant(
        "llmz-components-speech-synthesized",
        rules=("llmz.components.speech-no-audio",),
        description="the speech preset hands the text handler synthesized audio instead of text",
        policies=lambda p: replace(p, delivered_text=_speech_as_audio),
    ),
    Mutant(
        "llmz-tools-clone-drops-effects",
        rules=("llmz.tools.clone-keeps-validators",),
        description="a cloned tool keeps the JSON Schema but loses the effects",
        policies=lambda p: replace(p, clone_tool=_clone_without_effects),
    ),
    Mutant(
        "llmz-api-result-without-diagnostics",
        rules=("llmz.api.result-contents",),
        description="an ExecutionResult carries no diagnostics of its run",
        policies=lambda p: replace(p, result_diagnostics=lambda *_args: {}),
    ),
    Mutant(
        "llmz-api-chat-holds-conversation",
        rules=("llmz.api.chat-configures-delivery", "llmz.api.session-owns-state"),
        description="a run without a session continues the conversation last run with the same chat setup",
        policies=_conversation_kept_by_chat,
    ),
    Mutant(
        "llmz-migration-legacy-input-used",
        rules=("llmz.migration.input-via-session",),
        description="execute.messages and Chat.transcript still feed the conversation",
        policies=lambda p: replace(p, legacy_options=_honours("execute", "chat")),
    ),
    Mutant(
        "llmz-migration-chat-handler-used",
        rules=("llmz.migration.handlers-moved",),
        description="a text handler passed as Chat.handler still receives the answer",
        policies=lambda p: replace(p, legacy_options=_honours("chat")),
    ),
    Mutant(
        "llmz-migration-iteration-start-applied",
        rules=("llmz.migration.iteration-start-no-mutation",),
        description="instructions returned by onIterationStart replace the iteration's instructions",
        policies=lambda p: replace(p, legacy_options=_honours("onIterationStart")),
    ),
    Mutant(
        "llmz-components-aliases-registered",
        rules=("llmz.components.no-aliases-or-metadata",),
        description="a component's aliases become extra chat methods",
        policies=lambda p: replace(p, legacy_options=_honours("component")),
    ),
    Mutant(
        "llmz-hooks-on-trace-not-called",
        rules=("llmz.hooks.names",),
        description="onTrace is not one of the hooks the runtime calls",
        policies=lambda p: replace(p, trace_observed=False),
    ),
    Mutant(
        "llmz-inspection-override-bypasses-limit",
        rules=("llmz.inspection.request-limit-wins",),
        description="a truncate() budget lets the next request past the overall request limit",
        policies=_override_bypasses_limit,
    ),
    Mutant(
        "llmz-tools-json-without-description",
        rules=("llmz.tools.schema-json-descriptive",),
        description="toJSON leaves the description out",
        policies=lambda p: replace(p, definition_json=_json_without_description),
    ),
]
