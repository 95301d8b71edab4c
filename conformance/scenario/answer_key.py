"""The answer key of a scenario: what the harness judges with and never sends (``title``, ``description``,
``rules``, ``expect``).

A module of its own so that each system's scenario class (``conformance.scenario.<system>_scenario``) can
be built from its case class and this key alone: loading one system's scenarios never imports the other
systems' step models. ``conformance.scenario.model`` re-exports everything here.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from conformance.scenario.common import Expectation, Strict
from conformance.scenario.twins import Twin

CASE_FIELDS = ("system", "requires", "setup", "script", "steps")
"""The half of a scenario an implementation plays. The other half (``title``, ``description``, ``rules``,
``expect``) is the answer key: the harness judges with it and never sends it (see ``case_payload``)."""


class Judging(Strict):
    """The answer key: kept by the harness, never put on the wire."""

    title: str = Field(min_length=3)
    description: str | None = None
    rules: list[str] = Field(min_length=1, description="The rule ids this scenario pins.")
    expect: list[Expectation] = Field(min_length=1)
    twins: dict[str, Twin] = Field(
        default_factory=dict,
        description=(
            "Second plays of this case, each differing in one documented way, for `relation` expectations "
            "(conformance/scenario/twins.py). Part of the answer key: each is sent as a case of its own."
        ),
    )

    @model_validator(mode="after")
    def _expectations_name_listed_rules(self) -> Judging:
        for index, expectation in enumerate(self.expect):
            if expectation.rule not in self.rules:
                raise ValueError(
                    f"expect[{index}].rule {expectation.rule!r} is not one of this scenario's rules "
                    f"{self.rules}"
                )
            play = expectation.relation.play if expectation.relation is not None else None
            if play is not None and play not in self.twins:
                raise ValueError(
                    f"expect[{index}].relation.play {play!r} names no twin of this scenario "
                    f"(twins: {', '.join(self.twins) or 'none'})"
                )
        for name in self.twins:
            if not name.replace("-", "").replace("_", "").isalnum():
                raise ValueError(f"twins.{name}: a twin's name uses letters, digits, - and _ only")
        return self


def case_payload(scenario_id: str, data: dict[str, Any]) -> dict[str, Any]:
    """The JSON object sent to an implementation: its id and the played half of the document only.

    Like Bowtie's cases, a case leaves the harness without its expected results, so an implementation
    cannot read (or be tempted by) the answers.
    """
    return {"id": scenario_id, **{k: data[k] for k in CASE_FIELDS if k in data}}
