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

CASE_FIELDS = ("system", "requires", "setup", "script", "steps")
"""The half of a scenario an implementation plays. The other half (``title``, ``description``, ``rules``,
``expect``) is the answer key: the harness judges with it and never sends it (see ``case_payload``)."""


class CaseBase(Strict):
    """What an implementation needs to play a scenario, and nothing it could be judged by."""

    requires: list[str] = Field(
        default_factory=list,
        description="Capability flags an implementation must declare, else the case is a skip.",
    )
    script: list[ScriptEntry] = Field(default_factory=list)


class Judging(Strict):
    """The answer key: kept by the harness, never put on the wire."""

    title: str = Field(min_length=3)
    description: str | None = None
    rules: list[str] = Field(min_length=1, description="The rule ids this scenario pins.")
    expect: list[Expectation] = Field(min_length=1)

    @model_validator(mode="after")
    def _expectations_name_listed_rules(self) -> Judging:
        for index, expectation in enumerate(self.expect):
            if expectation.rule not in self.rules:
                raise ValueError(
                    f"expect[{index}].rule {expectation.rule!r} is not one of this scenario's rules "
                    f"{self.rules}"
                )
        return self


class LlmzCase(CaseBase):
    system: Literal["llmz"]
    setup: llmz.Setup = Field(default_factory=llmz.Setup)
    steps: list[llmz.Step] = Field(min_length=1)


class FalaiCase(CaseBase):
    system: Literal["falai"]
    setup: falai.Setup = Field(default_factory=falai.Setup)
    steps: list[falai.Step] = Field(min_length=1)


class AkanCase(CaseBase):
    system: Literal["akan"]
    setup: akan.Setup = Field(default_factory=akan.Setup)
    steps: list[akan.Step] = Field(min_length=1)


class LlmzScenario(LlmzCase, Judging):
    pass


class FalaiScenario(FalaiCase, Judging):
    pass


class AkanScenario(AkanCase, Judging):
    pass


Scenario = Annotated[LlmzScenario | FalaiScenario | AkanScenario, Field(discriminator="system")]
SCENARIO_ADAPTER: TypeAdapter[LlmzScenario | FalaiScenario | AkanScenario] = TypeAdapter(Scenario)
Case = Annotated[LlmzCase | FalaiCase | AkanCase, Field(discriminator="system")]
CASE_ADAPTER: TypeAdapter[LlmzCase | FalaiCase | AkanCase] = TypeAdapter(Case)


def parse_scenario(data: Any) -> LlmzScenario | FalaiScenario | AkanScenario:
    """Validate a scenario document (without its ``id``), raising pydantic's ValidationError."""
    return SCENARIO_ADAPTER.validate_python(data)


def parse_case(data: Any) -> LlmzCase | FalaiCase | AkanCase:
    """Validate what an implementation received (a case, without ``id``), raising ValidationError."""
    return CASE_ADAPTER.validate_python(data)


def case_payload(scenario_id: str, data: dict[str, Any]) -> dict[str, Any]:
    """The JSON object sent to an implementation: its id and the played half of the document only.

    Like Bowtie's cases, a case leaves the harness without its expected results, so an implementation
    cannot read (or be tempted by) the answers.
    """
    return {"id": scenario_id, **{k: data[k] for k in CASE_FIELDS if k in data}}
