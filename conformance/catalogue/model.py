"""The shape of a rule and of a catalogue file.

Every normative statement of the three source documents becomes one ``Rule``. The model is the single
source of truth for the catalogue format: ``spec/schema/rule-file.schema.json`` is generated from it
(``python -m conformance.schemas``) and every ``spec/<system>/<area>.yaml`` is validated against both.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from conformance.systems import SYSTEMS, SystemName

System = SystemName
Level = Literal["must", "must-not", "should", "default", "limit"]
Observable = Literal["wire", "api", "ui"]

#: The three specification documents (and the llmz error catalogue) a rule may cite.
SOURCE_DOCUMENTS = (
    "llmz-1.0.2-DOCS.md",
    "llmz-1.0.1-ERRORS.md",
    "falai-4.0.0-alpha.10-docs.md",
    "akan-in-page-agent-guideline.md",
)

RULE_ID = re.compile(rf"^({'|'.join(SYSTEMS)})(\.[a-z0-9]+(-[a-z0-9]+)*)+$")


class Strict(BaseModel):
    """Unknown fields are errors: a typo must never silently drop part of a rule or scenario."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Source(Strict):
    document: Literal[
        "llmz-1.0.2-DOCS.md",
        "llmz-1.0.1-ERRORS.md",
        "falai-4.0.0-alpha.10-docs.md",
        "akan-in-page-agent-guideline.md",
    ]
    section: str = Field(min_length=1, description="The heading of the section, spelled as in the document.")
    passages: list[str] = Field(
        default_factory=list,
        description=(
            "Where the section is long: the fingerprints of the sentences, list items or table rows of that "
            "section the rule rests on (first 8 hex digits of SHA-256 over the passage's lower-cased words; "
            "conformance.drift.fingerprint). With the section they form the rule's anchor: it survives "
            "re-wording elsewhere in the section and holds no copy of the text. "
            "`python -m conformance spec anchors` checks each still resolves."
        ),
        json_schema_extra={"items": {"type": "string", "pattern": "^[0-9a-f]{8}$"}, "uniqueItems": True},
    )

    @field_validator("passages")
    @classmethod
    def _fingerprints(cls, value: list[str]) -> list[str]:
        bad = [p for p in value if not re.fullmatch(r"[0-9a-f]{8}", p)]
        if bad:
            raise ValueError(f"passages must be 8 lower-case hex digits each (a fingerprint), got {bad}")
        if len(set(value)) != len(value):
            raise ValueError(f"passages must not repeat a fingerprint, got {value}")
        return value


class Rule(Strict):
    id: str = Field(
        description="Stable dotted lower-case id, e.g. llmz.budget.output-reserve.floor.",
        json_schema_extra={"pattern": RULE_ID.pattern},
    )
    title: str = Field(min_length=3)
    statement: str = Field(min_length=10, description="The rule in the project's own words.")
    level: Level
    params: dict[str, Any] = Field(default_factory=dict, description="Numbers and codes the rule fixes.")
    source: Source
    since: str = Field(
        description='"1.0.1" or "1.0.2" for llmz, "4.0.0-alpha.10" for falai, "guideline" for Akan.'
    )
    observable: Observable
    open_question: str | None = None
    excluded: str | None = Field(default=None, description="Why no test could ever check this statement.")
    untested: str | None = Field(
        default=None,
        min_length=10,
        description=(
            "Why no scenario pins this rule yet, and what observing it would take (for example a `ui` rule "
            "the page model does not expose). Only for a rule no scenario names; drop it once one does."
        ),
    )

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not RULE_ID.match(value):
            raise ValueError(
                f"rule id {value!r} must be dotted lower-case words starting with llmz., falai. or akan."
            )
        return value

    @property
    def system(self) -> str:
        return self.id.split(".", 1)[0]

    @model_validator(mode="after")
    def _one_reason(self) -> Rule:
        if self.excluded is not None and self.untested is not None:
            raise ValueError("a rule is either excluded (never checkable) or untested (not yet), not both")
        return self

    @model_validator(mode="after")
    def _since_matches_system(self) -> Rule:
        allowed = {
            "llmz": {"1.0.1", "1.0.2"},
            "falai": {"4.0.0-alpha.10"},
            "akan": {"guideline"},
        }[self.system]
        if self.since not in allowed:
            raise ValueError(
                f"since for a {self.system} rule must be one of {sorted(allowed)}, got {self.since!r}"
            )
        return self


class RuleFile(Strict):
    """One ``spec/<system>/<area>.yaml`` file."""

    system: System
    area: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    description: str | None = None
    rules: list[Rule] = Field(min_length=1)

    @model_validator(mode="after")
    def _rules_belong_to_system(self) -> RuleFile:
        for rule in self.rules:
            if rule.system != self.system:
                raise ValueError(
                    f"rule {rule.id} is in the {self.system} catalogue but its id says {rule.system}"
                )
        return self
