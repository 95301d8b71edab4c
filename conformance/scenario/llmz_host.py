"""llmz host-API probes: steps that call a documented host-side API directly and record its answer.

Why: some llmz rules are about calls only the host makes (``inspect``, ``createInspector``,
``component.render``, ``tool.toJSON()``, ``DefaultComponents``, which names the package exposes). A
language-neutral suite cannot call them itself, so each probe names the documented call and the adapter
reports what its runtime answered, as one ``probe`` event (spec/protocol/records/llmz.md). A port in
another language maps each probe to its equivalent API (docs/testing-llmz.md, "Host calls"). Expectations pin
only what the documents fix: acceptance of the documented options, budgets, presence of documented names,
never wording.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, StrictInt, model_validator

from conformance.scenario.common import Strict


class InspectStep(Strict):
    """Format ``value`` with the host inspector and record the text and its size in the runtime's tokens.

    ``via: inspect`` is ``inspect(value, undefined, {tokens: max_tokens, compact})``; ``via: inspector`` is
    ``createInspector(undefined)(value, {purpose, maxTokens: max_tokens, preserve})``
    (llmz.inspection.inspector-api)."""

    op: Literal["inspect"]
    via: Literal["inspect", "inspector"]
    value: Any = Field(description="The value to format (JSON).")
    max_tokens: StrictInt = Field(ge=0, description="`tokens` for inspect, `maxTokens` for an inspector.")
    compact: bool | None = Field(default=None, description="inspect only: `compact`; omitted: not passed.")
    purpose: Literal["result", "variable"] | None = Field(
        default=None, description="inspector only (required there): the preview's purpose."
    )
    preserve: Literal["top", "bottom", "both"] | None = Field(
        default=None, description="inspector only: which end survives a cut; omitted: not passed."
    )

    @model_validator(mode="after")
    def _options_match_call(self) -> InspectStep:
        if self.via == "inspect" and (self.purpose is not None or self.preserve is not None):
            raise ValueError("inspect takes tokens and compact; purpose and preserve are inspector options")
        if self.via == "inspector" and self.compact is not None:
            raise ValueError("compact is an inspect option; an inspector takes purpose, maxTokens, preserve")
        if self.via == "inspector" and self.purpose is None:
            raise ValueError("an inspector call needs a purpose (result or variable)")
        return self


CHANGED_PROPS_KEY = "changed"
"""What ``render`` writes into the input and the rendered props after rendering (``changed: true`` on
objects, an extra ``{changed: true}`` element on arrays)."""


class RenderStep(Strict):
    """``component.render(props)`` on the setup component as defined (before any ``withHandler``), then
    change the input object and try to change the rendered props (llmz.components.render-immutable); record
    the rendered props and whether that definition has a handler of its own (llmz.components.with-handler).
    A render the runtime refuses is recorded with its error code instead."""

    op: Literal["render"]
    component: str = Field(min_length=1, description="A name from setup.chat.components.")
    props: Any = Field(description="The props passed to render (JSON).")
    change_input: bool = Field(default=True, description="Change the input object after rendering.")
    change_rendered: bool = Field(
        default=True, description="Try to change the rendered props (a refusal is not an error)."
    )


class ApiSurfaceStep(Strict):
    """Which of ``names`` the runtime's public API exposes (llmz.api.exports, and the names the migration
    guide removed). Names are the documented JavaScript spellings; a dotted name is a member of an export
    (``utils.wrapContent``). A port reports its equivalent of each; extra names it exposes are not asked."""

    op: Literal["api_surface"]
    names: list[str] = Field(min_length=1)


class DefinitionJsonStep(Strict):
    """Record ``toJSON()`` of one setup tool or exit (llmz.tools.schema-json-descriptive)."""

    op: Literal["definition_json"]
    tool: str | None = Field(default=None, description="A name from setup.tools.")
    exit: str | None = Field(default=None, description="A name from setup.exits.")

    @model_validator(mode="after")
    def _one_definition(self) -> DefinitionJsonStep:
        if (self.tool is None) == (self.exit is None):
            raise ValueError("definition_json names exactly one of tool or exit")
        return self


class DefaultComponentsStep(Strict):
    """Count the predefined component definitions (``DefaultComponents``), how many carry a delivery handler,
    and how many still carry none after ``withHandler`` (llmz.components.default-components)."""

    op: Literal["default_components"]


class ResultContentsStep(Strict):
    """Read the last execute's ``ExecutionResult`` (llmz.api.result-contents): how it ended (``status``), the
    provider usage it reports (``tokens``) and whether it carries diagnostics (``diagnostics()``)."""

    op: Literal["result_contents"]


HOST_PROBE_STEPS = (
    InspectStep,
    RenderStep,
    ApiSurfaceStep,
    DefinitionJsonStep,
    DefaultComponentsStep,
    ResultContentsStep,
)


class ResponseSpec(Strict):
    """``Chat.response`` in one of its documented forms (llmz.components.response-options): ``form: preset``
    passes the preset name alone (``response: 'speech'``, so no text handler is bound); ``form: object``
    passes ``{preset?, instructions?, handler, onDelta}`` with the chat's text handler and preview hook."""

    form: Literal["preset", "object"]
    preset: Literal["markdown", "text", "speech"] | None = None
    instructions: str | None = None

    @model_validator(mode="after")
    def _preset_form_has_preset(self) -> ResponseSpec:
        if self.form == "preset" and (self.preset is None or self.instructions is not None):
            raise ValueError("response form preset passes only a preset name: give preset, not instructions")
        return self


class LegacyMessage(Strict):
    """A conversation message in the previous API's shape (``{role, content}``)."""

    role: Literal["user", "assistant"]
    content: str = Field(min_length=1)


class LegacyChatSpec(Strict):
    """Options of the previous ``Chat`` API, handed to the runtime as written. The migration guide removed
    them (llmz.migration.handlers-moved, llmz.migration.input-via-session) without saying whether they are
    refused or ignored, so a scenario accepts both and checks only that they take no effect."""

    handler: bool = Field(
        default=False,
        description="Bind the text handler as `Chat.handler` and `onMessageDelta`, not `response.handler`.",
    )
    transcript: list[LegacyMessage] = Field(default_factory=list, description="`Chat.transcript`.")


class LegacyExecuteSpec(Strict):
    """Options of the previous ``execute`` API, handed to it as written (llmz.migration.input-via-session)."""

    messages: list[LegacyMessage] = Field(min_length=1, description="`execute({messages})`.")


class ToolCloneSpec(Strict):
    """Register ``tool.clone({name})`` of a setup tool in its place (llmz.tools.clone-keeps-validators):
    the clone, not the original, is what the program calls, under ``name``."""

    of: str = Field(min_length=1, description="A name from setup.tools.")
    name: str = Field(pattern=r"^[A-Za-z_$][A-Za-z0-9_$]*$")

