"""The host-side API that generated code never sees: the inspector helpers, component rendering and
``withHandler``, tool cloning and ``toJSON``, the predefined components, ``Chat.response`` presets and the
names the package exposes.

Each behaviour a rule fixes is one small function here, reached by the runtime and the harness through
``Policies`` (so a variant replaces it, nothing is patched):

* ``inspect`` / ``create_inspector`` take the documented options and format with the native inspector
  (llmz.inspection.inspector-api), marker counted inside the budget (llmz.inspection.markers-counted);
* ``render`` parses props once and keeps its own copy, so neither the caller's input nor the returned
  props can change what was captured (llmz.components.render-immutable);
* ``with_handler`` returns a new bound definition and leaves the original alone
  (llmz.components.with-handler);
* ``clone_tool`` keeps the original's validators, effects included (llmz.tools.clone-keeps-validators);
* ``definition_json`` exports descriptions and JSON Schemas, never callbacks
  (llmz.tools.schema-json-descriptive);
* ``DEFAULT_COMPONENTS`` come without handlers (llmz.components.default-components);
* ``message_metadata`` is what a component handler gets beside the props (llmz.components.handler-metadata);
* ``response_problem`` accepts the three presets (llmz.components.response-options) and ``delivered_text``
  hands text handlers text whatever the preset (llmz.components.speech-no-audio);
* ``PUBLIC_NAMES`` lists the documented exports (llmz.api.exports); the names the migration guide removed
  (``Example``, ``utils.wrapContent``) are not among them (llmz.migration.no-examples,
  llmz.migration.truncate-replaces-helpers).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

from reference.llmz.api import Component, Exit, SchemaIssue, Tool
from reference.llmz.errors import LlmzError
from reference.llmz.inspector import RESULT, InspectHook, asker, present
from reference.llmz.preview import Preserve, Previewer, display_budget_problem

if TYPE_CHECKING:
    from reference.llmz.policies import Policies

PUBLIC_NAMES: Final = frozenset(
    {
        "execute",
        "Session",
        "Chat",
        "Tool",
        "Exit",
        "Component",
        "ExecutionResult",
        "truncate",
        "inspect",
        "createInspector",
        "ThinkSignal",
        "DefaultComponents",
    }
)
"""The documented entry points this runtime exposes by name (llmz.api.exports)."""

PRESETS: Final = frozenset({"markdown", "text", "speech"})
"""llmz.components.response-options: the presets ``Chat.response`` accepts."""


def exposes(name: str, policies: Policies) -> bool:
    """Whether the public API offers ``name`` (a documented JavaScript spelling, possibly dotted)."""
    return name in policies.public_names


def inspector_budget(tokens: object) -> int:
    """The budget an ``inspect``/inspector call asked for (``tokens`` / ``maxTokens``), checked
    (llmz.inspection.inspector-api, llmz.inspection.budget-integers)."""
    problem = display_budget_problem(tokens)
    if problem is not None:
        raise LlmzError("INVALID_CONFIG", problem)
    assert isinstance(tokens, int)
    return tokens


def _compact(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def inspect(
    value: Any, hook: InspectHook | None, *, tokens: object, compact: bool, policies: Policies
) -> str:
    """``inspect(value, hook, {tokens, compact})``: a bounded preview; ``compact`` writes it on one line."""
    budget = policies.inspector_budget(tokens)
    if compact:
        previewer = Previewer(_compact, policies.cut_preview, policies.measure.count_text)
        return previewer(value, budget, "top")
    return present(value, budget, "top", asker(hook, policies), policies, RESULT)


Inspector = Callable[..., str]


def create_inspector(hook: InspectHook | None, policies: Policies) -> Inspector:
    """``createInspector(hook)``: a function of a value and ``{purpose, maxTokens, preserve}``."""

    def inspector(value: Any, *, purpose: str, max_tokens: object, preserve: Preserve | None = None) -> str:
        budget = policies.inspector_budget(max_tokens)
        return present(value, budget, preserve or "top", asker(hook, policies), policies, purpose)

    return inspector


def count_tokens(text: str, policies: Policies) -> int:
    """The size of a preview in the runtime's own tokens (what its budgets are measured in)."""
    return policies.measure.count_text(text)


@dataclass(frozen=True)
class Rendered:
    """What ``component.render(props)`` returns: the component's name and the props it captured."""

    name: str
    captured: Any
    view: Callable[[Any], Any]

    @property
    def props(self) -> Any:
        return self.view(self.captured)


def capture(props: Any) -> Any:
    """The rendered value's own copy (llmz.components.render-immutable)."""
    return copy.deepcopy(props)


def render(component: Component, props: Any, policies: Policies) -> Rendered:
    """Parse ``props`` once (schema, then effects) and capture the result
    (llmz.components.render-parses-once)."""
    issues = policies.schema_issues(component.props, props)
    value = props
    if not issues and policies.render_runs_effects:
        try:
            for effect in component.effects:
                value = effect.apply(value)
        except SchemaIssue as issue:
            issues = [(issue.path, issue.message)]
    if issues:
        raise LlmzError("INVALID_COMPONENT_INPUT", f"{component.name}: props do not match its schema")
    return Rendered(component.name, policies.render_capture(value), policies.render_view)


def with_handler(component: Component, handler: Callable[..., Any]) -> Component:
    """A bound copy; the definition given stays as it was (llmz.components.with-handler)."""
    return replace(component, handler=handler)


def clone_tool(tool: Tool, name: str) -> Tool:
    """``tool.clone({name})``: the same schemas and effects under another name
    (llmz.tools.clone-keeps-validators)."""
    return replace(tool, name=name)


def definition_json(definition: Tool | Exit) -> dict[str, Any]:
    """``toJSON()``: name, description and JSON Schemas; effects are callbacks and are not exported
    (llmz.tools.schema-json-descriptive)."""
    if isinstance(definition, Tool):
        exported: dict[str, Any] = {"name": definition.name, "description": definition.description}
        exported["input"] = definition.input
        if definition.output is not None:
            exported["output"] = definition.output
        return exported
    exported = {"name": definition.name, "description": definition.description}
    if definition.schema is not None:
        exported["schema"] = definition.schema
    return exported


_ITEM = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}
DEFAULT_COMPONENTS: Final = (
    Component("card", None, "One item with a title.", _ITEM),
    Component("buttons", None, "A row of choices.", {"type": "array", "items": _ITEM}),
    Component(
        "image", None, "An image by URL.", {"type": "object", "properties": {"url": {"type": "string"}}}
    ),
)
"""Ready-made rich message definitions, without handlers (llmz.components.default-components)."""


def message_metadata(sequence: int) -> dict[str, Any]:
    """What a component handler gets beside the props: the message id (llmz.components.handler-metadata)."""
    return {"id": f"message_{sequence}"}


def legacy_options(where: str, options: Mapping[str, Any]) -> Mapping[str, Any]:
    """Which options of the previous API, passed at ``where`` (``execute``, ``chat``, ``component``,
    ``onIterationStart``), take effect: none. Input goes through the session
    (llmz.migration.input-via-session), text through ``response.handler``
    (llmz.migration.handlers-moved), components have exact names only
    (llmz.components.no-aliases-or-metadata), and onIterationStart only observes
    (llmz.migration.iteration-start-no-mutation). Whether a runtime refuses them instead is open; this
    one ignores them."""
    del where, options
    return {}


def legacy_problem(where: str, options: Mapping[str, Any]) -> LlmzError | None:
    """Whether removed options are refused before the run: not by this runtime, which ignores them (the
    other reading of the open questions on llmz.migration.input-via-session, llmz.migration.handlers-moved
    and llmz.components.no-aliases-or-metadata refuses them as INVALID_CONFIG)."""
    del where, options
    return None


def legacy_refusal(chat: Any, execute_options: Mapping[str, Any], policies: Policies) -> LlmzError | None:
    """The first refusal ``policies.legacy_problem`` gives for the removed options of one execute call."""
    given = [("execute", execute_options)]
    if chat is not None:
        given.append(("chat", chat.legacy))
        given.extend(("component", component.legacy) for component in chat.components)
    for where, options in given:
        if options:
            problem = policies.legacy_problem(where, options)
            if problem is not None:
                return problem
    return None


def with_legacy(chat: Any, session: Any, policies: Policies) -> Any:
    """The chat as the run uses it, after the removed options the policies honour (none, by default)."""
    if chat is None:
        return None
    honoured = policies.legacy_options("chat", chat.legacy)
    for message in honoured.get("transcript", []):
        session.append([dict(message)])
    if honoured.get("handler") is not None and chat.handler is None:
        chat = replace(chat, handler=honoured["handler"])
    components = list(chat.components)
    for component in chat.components:
        for alias in policies.legacy_options("component", component.legacy).get("aliases", []):
            components.append(replace(component, name=alias, legacy={}))
    return replace(chat, components=tuple(components))


def run_session(session: Any, chat: Any, policies: Policies) -> Any:
    """The session a run uses: the one given, else a fresh one. The chat plays no part: it configures
    delivery and holds no conversation (llmz.api.chat-configures-delivery, llmz.api.session-owns-state)."""
    del chat
    return session if session is not None else policies.session_when_omitted(policies)


def response_problem(preset: str | None, presets: frozenset[str]) -> LlmzError | None:
    """A ``Chat.response`` preset outside the documented three is a configuration error."""
    if preset is None or preset in presets:
        return None
    return LlmzError("INVALID_CONFIG", f"Chat.response: unknown preset {preset!r}")


def delivered_text(preset: str | None, text: str) -> Any:
    """What a text handler gets: the text, whatever the preset; speech only changes the writing style
    (llmz.components.speech-no-audio)."""
    return text
