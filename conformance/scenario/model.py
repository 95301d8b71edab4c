"""The scenario model: one YAML file under ``fixtures/scenarios/<system>/<area>/<name>.yaml``.

A scenario's id is its path below ``fixtures/scenarios`` without the extension
(``llmz/think-signal/inspection-beats-exit``), so ids cannot drift from file names. ``system`` must match
the first folder. ``spec/schema/scenario.schema.json`` is generated from this model.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, TypeAdapter, model_validator

from conformance.scenario import akan, falai, llmz
from conformance.scenario.common import Expectation, ScriptEntry, Strict


class ScenarioBase(Strict):
    title: str = Field(min_length=3)
    description: str | None = None
    rules: list[str] = Field(min_length=1, description="The rule ids this scenario pins.")
    requires: list[str] = Field(
        default_factory=list,
        description="Capability flags an implementation must declare, else the case is a skip.",
    )
    script: list[ScriptEntry] = Field(default_factory=list)
    expect: list[Expectation] = Field(min_length=1)

    @model_validator(mode="after")
    def _expectations_name_listed_rules(self) -> ScenarioBase:
        for index, expectation in enumerate(self.expect):
            if expectation.rule not in self.rules:
                raise ValueError(
                    f"expect[{index}].rule {expectation.rule!r} is not one of this scenario's rules "
                    f"{self.rules}"
                )
        return self


class LlmzScenario(ScenarioBase):
    system: Literal["llmz"]
    setup: llmz.Setup = Field(default_factory=llmz.Setup)
    steps: list[llmz.Step] = Field(min_length=1)


class FalaiScenario(ScenarioBase):
    system: Literal["falai"]
    setup: falai.Setup = Field(default_factory=falai.Setup)
    steps: list[falai.Step] = Field(min_length=1)


class AkanScenario(ScenarioBase):
    system: Literal["akan"]
    setup: akan.Setup = Field(default_factory=akan.Setup)
    steps: list[akan.Step] = Field(min_length=1)


Scenario = Annotated[LlmzScenario | FalaiScenario | AkanScenario, Field(discriminator="system")]
SCENARIO_ADAPTER: TypeAdapter[LlmzScenario | FalaiScenario | AkanScenario] = TypeAdapter(Scenario)


def parse_scenario(data: Any) -> LlmzScenario | FalaiScenario | AkanScenario:
    """Validate a scenario document (without its ``id``), raising pydantic's ValidationError."""
    return SCENARIO_ADAPTER.validate_python(data)


def scenario_payload(scenario_id: str, data: dict[str, Any]) -> dict[str, Any]:
    """The JSON object sent to an implementation: the document as written, plus its id."""
    return {"id": scenario_id, **data}
