"""The scenario model: one YAML file under ``fixtures/scenarios/<system>/<area>/<name>.yaml``.

A scenario's id is its path below ``fixtures/scenarios`` without the extension
(``llmz/think-signal/inspection-beats-exit``), so ids cannot drift from file names. ``system`` must match
the first folder. ``spec/schema/scenario.schema.json`` is generated from this model.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field, TypeAdapter, model_validator

from conformance.scenario.akan import AkanCase
from conformance.scenario.common import Expectation, Strict
from conformance.scenario.falai import FalaiCase
from conformance.scenario.llmz import LlmzCase

CASE_FIELDS = ("system", "requires", "setup", "script", "steps")
"""The half of a scenario an implementation plays. The other half (``title``, ``description``, ``rules``,
``expect``) is the answer key: the harness judges with it and never sends it (see ``case_payload``)."""


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


class LlmzScenario(LlmzCase, Judging):
    pass


class FalaiScenario(FalaiCase, Judging):
    pass


class AkanScenario(AkanCase, Judging):
    pass


Scenario = Annotated[LlmzScenario | FalaiScenario | AkanScenario, Field(discriminator="system")]
#: Built on first use (``defer_build``), like every model here: a run of one system validates with that
#: system's class (``parse_scenario``) and never pays for building the other systems' validators.
_DEFERRED = ConfigDict(defer_build=True)
SCENARIO_ADAPTER: TypeAdapter[LlmzScenario | FalaiScenario | AkanScenario] = TypeAdapter(
    Scenario, config=_DEFERRED
)
Case = Annotated[LlmzCase | FalaiCase | AkanCase, Field(discriminator="system")]
CASE_ADAPTER: TypeAdapter[LlmzCase | FalaiCase | AkanCase] = TypeAdapter(Case, config=_DEFERRED)
SCENARIO_CLASSES: dict[str, type[LlmzScenario | FalaiScenario | AkanScenario]] = {
    "llmz": LlmzScenario,
    "falai": FalaiScenario,
    "akan": AkanScenario,
}


def parse_scenario(data: Any) -> LlmzScenario | FalaiScenario | AkanScenario:
    """Validate a scenario document (without its ``id``), raising pydantic's ValidationError.

    A document naming a known system is validated by that system's class alone (the same checks the
    discriminated union makes once it has picked the member); anything else goes through the union, whose
    error names the missing or unknown ``system``."""
    system = data.get("system") if isinstance(data, dict) else None
    chosen = SCENARIO_CLASSES.get(system) if isinstance(system, str) else None
    if chosen is not None:
        return chosen.model_validate(data)
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
