"""The host-API probe steps (conformance/scenario/llmz_host.py) played on the reference's host API.

Each probe calls the reference's equivalent of the documented llmz call (``reference.llmz.host_api``)
and records one ``probe`` event with what it answered. The JavaScript names a scenario asks about in
``api_surface`` are answered by the reference's own list of exposed names; the reference decides it, the
player only asks.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from conformance.scenario.llmz import ComponentSpec, Setup
from conformance.scenario.llmz_host import (
    CHANGED_PROPS_KEY,
    ApiSurfaceStep,
    DefaultComponentsStep,
    DefinitionJsonStep,
    InspectStep,
    RenderStep,
    ResultContentsStep,
)
from reference.llmz import Component, ExecutionResult, Exit, LlmzError, Policies, Tool, host_api
from reference.record import Recorder

ProbeStep = (
    InspectStep
    | RenderStep
    | ApiSurfaceStep
    | DefinitionJsonStep
    | DefaultComponentsStep
    | ResultContentsStep
)


def change(value: Any) -> None:
    """What ``render`` does to the input and to the rendered props after rendering."""
    if isinstance(value, dict):
        value[CHANGED_PROPS_KEY] = True
    elif isinstance(value, list):
        value.append({CHANGED_PROPS_KEY: True})


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value))


def component_definition(spec: ComponentSpec, handler: Callable[..., Any] | None, effects: Any) -> Component:
    """The definition as the setup gives it: bound in the definition, or unbound when it is to be bound
    through ``withHandler`` (the chat then gets ``bound_component``)."""
    return Component(
        spec.name if isinstance(spec.name, str) else str(spec.name),
        handler if spec.bind == "definition" else None,
        description=spec.description,
        props=spec.props,
        effects=effects,
        takes_metadata=spec.report_metadata,
        legacy={"aliases": list(spec.aliases)} if spec.aliases else {},
    )


def metadata_reporter(
    handler: Callable[[Any], Any] | None, recorder: Recorder, name: str
) -> Callable[..., Any] | None:
    """A handler that records whether the metadata it got carries a message id, then acts as ``handler``."""
    if handler is None:
        return None
    bound = handler

    def reporting(props: Any, metadata: Any = None) -> Any:
        message_id = metadata.get("id") if isinstance(metadata, dict) else None
        has_id = isinstance(message_id, str) and bool(message_id)
        recorder.emit("host_call", step="component_handler", component=name, metadata_id=has_id)
        return bound(props)

    return reporting


def clones_in_place(setup: Setup, tools: list[Tool], policies: Policies) -> list[Tool]:
    """``setup.tool_clones``: each named tool is replaced by ``tool.clone({name})``."""
    by_name = {tool.name: tool for tool in tools}
    clones = {clone.of: clone.name for clone in setup.tool_clones}
    missing = sorted(set(clones) - set(by_name))
    if missing:
        raise ValueError(f"setup.tool_clones: {missing} are not in setup.tools")
    return [policies.clone_tool(tool, clones[tool.name]) if tool.name in clones else tool for tool in tools]


class HostProbes:
    """Plays the probe steps for one scenario: ``definitions`` are the setup's components as defined."""

    def __init__(
        self,
        setup: Setup,
        recorder: Recorder,
        policies: Policies,
        components: dict[str, Component],
        tools: dict[str, Tool],
        exits: dict[str, Exit],
    ) -> None:
        self.setup = setup
        self.recorder = recorder
        self.policies = policies
        self.components = components
        self.tools = tools
        self.exits = exits

    def play(self, step: ProbeStep) -> None:
        if isinstance(step, InspectStep):
            self.inspect(step)
        elif isinstance(step, RenderStep):
            self.render(step)
        elif isinstance(step, ApiSurfaceStep):
            present = [name for name in step.names if host_api.exposes(name, self.policies)]
            absent = [name for name in step.names if name not in present]
            self.recorder.emit("host_call", step="api_surface", present=present, absent=absent)
        elif isinstance(step, DefinitionJsonStep):
            self.definition_json(step)
        elif isinstance(step, DefaultComponentsStep):
            self.default_components()
        else:
            raise ValueError("result_contents is played by the player, which holds the last result")

    def result_contents(self, result: ExecutionResult | None) -> None:
        """The documented parts of the last ``ExecutionResult`` (llmz.api.result-contents)."""
        if result is None:
            raise ValueError("steps: result_contents needs an earlier execute step")
        tokens = result.tokens or {}
        self.recorder.emit(
            "host_call",
            step="result_contents",
            outcome=result.status,
            usage={key: tokens.get(key, 0) for key in ("input_tokens", "output_tokens")},
            diagnostics=bool(result.diagnostics()),
        )

    def inspect(self, step: InspectStep) -> None:
        try:
            if step.via == "inspect":
                text = host_api.inspect(
                    step.value,
                    None,
                    tokens=step.max_tokens,
                    compact=bool(step.compact),
                    policies=self.policies,
                )
            else:
                inspector = host_api.create_inspector(None, self.policies)
                assert step.purpose is not None
                text = inspector(
                    step.value, purpose=step.purpose, max_tokens=step.max_tokens, preserve=step.preserve
                )
        except LlmzError as error:
            self.recorder.emit("host_call", step="inspect", error={"code": error.code})
            return
        tokens = host_api.count_tokens(text, self.policies)
        self.recorder.emit("host_call", step="inspect", text=text, tokens=tokens)

    def render(self, step: RenderStep) -> None:
        component = self.components.get(step.component)
        if component is None:
            raise ValueError(f"steps: render.component {step.component!r} is not in setup.chat.components")
        given = _plain(step.props)
        try:
            rendered = host_api.render(component, given, self.policies)
        except LlmzError as error:
            failure = {"code": error.code}
            self.recorder.emit("host_call", step="render", component=step.component, error=failure)
            return
        if step.change_input:
            change(given)
        if step.change_rendered:
            change(rendered.props)
        self.recorder.emit(
            "host_call",
            step="render",
            component=step.component,
            props=_plain(rendered.props),
            handler_bound=component.handler is not None,
        )

    def definition_json(self, step: DefinitionJsonStep) -> None:
        name = step.tool or step.exit or ""
        found: dict[str, Tool] | dict[str, Exit] = self.tools if step.tool is not None else self.exits
        definition = found.get(name)
        if definition is None:
            raise ValueError(f"steps: definition_json names {name!r}, which setup does not define")
        exported = _plain(self.policies.definition_json(definition))
        self.recorder.emit("host_call", step="definition_json", json=exported)

    def default_components(self) -> None:
        defaults = self.policies.default_components
        bound = [self.policies.bind_handler(c, lambda _props: None) for c in defaults]
        self.recorder.emit(
            "host_call",
            step="default_components",
            definitions=len(defaults),
            bound=sum(c.handler is not None for c in defaults),
            unbound_after_with_handler=sum(c.handler is None for c in bound),
        )
