"""The scenario model: one YAML file under ``fixtures/scenarios/<system>/<area>/<name>.yaml``.

A scenario's id is its path below ``fixtures/scenarios`` without the extension
(``llmz/think-signal/inspection-beats-exit``), so ids cannot drift from file names. ``system`` must match
the first folder. ``spec/schema/scenario.schema.json`` is generated from this model.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field, TypeAdapter

from conformance.scenario.akan import AkanCase
from conformance.scenario.akan_scenario import AkanScenario
from conformance.scenario.answer_key import CASE_FIELDS, Judging, case_payload
from conformance.scenario.common import Expectation
from conformance.scenario.falai import FalaiCase
from conformance.scenario.falai_scenario import FalaiScenario
from conformance.scenario.llmz import LlmzCase
from conformance.scenario.llmz_scenario import LlmzScenario

# Each system's scenario class lives in ``conformance.scenario.<system>_scenario`` (the loader validates a
# file with its own system's class, importing nothing of the others); this module is their union.
__all__ = [
    "CASE_FIELDS",
    "AkanCase",
    "AkanScenario",
    "Expectation",
    "FalaiCase",
    "FalaiScenario",
    "Judging",
    "LlmzCase",
    "LlmzScenario",
    "case_payload",
]


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
